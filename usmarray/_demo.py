"""The main job (``python -m usmarray``): report backends and devices, then compute.

The demonstration runs the sieve of Eratosthenes from the dpctl.tensor guide on
the default device and a ``to_device`` round trip, with timings.
"""

from __future__ import annotations

import time
from typing import Any

import usmarray as xp


def sieve(n: int, device: Any = None) -> xp.usm_ndarray:
    """Primes <= n, computed with array operations on ``device``."""
    idt = xp.int32
    s = xp.concat(
        (xp.arange(2, 3, dtype=idt, device=device), xp.arange(3, n + 1, 2, dtype=idt, device=device))
    )
    lb = xp.zeros((), dtype=idt, device=device)
    while lb * lb < n + 1:
        m = xp.min(s[s > lb])
        s[(s > m) & (s % m == 0)] = 0
        lb = m
    return s[s > 0]


def _ms(t0: float) -> str:
    return f"{(time.perf_counter() - t0) * 1e3:.1f} ms"


def main() -> int:
    from usmarray import _backend

    info = xp.__array_namespace_info__()
    print(f"usmarray {xp.__version__}, array API {xp.__array_api_version__}")
    for name, be in _backend.backends().items():
        print(f"backend {name}: {be.provider_name}")
    if _backend.sycl is None:
        print("backend sycl: unavailable (dpctl or the kernel provider cannot be imported)")
    print("devices:")
    for d in info.devices():
        if d.backend == "sycl":
            dev = d.sycl_device
            print(f"  {d!r}: {dev.name}, fp64={dev.has_aspect_fp64}, "
                  f"compute units={dev.max_compute_units}")
        else:
            print(f"  {d!r}: {d.backend} backend")
    default = info.default_device()
    print(f"default device: {default!r}")

    n = 10**6
    t0 = time.perf_counter()
    primes = sieve(n, device=default)
    count = primes.shape[0]
    print(f"sieve: {count} primes below {n} on {default!r} in {_ms(t0)} (first run JIT-compiles kernels)")
    t0 = time.perf_counter()
    count2 = sieve(n, device=default).shape[0]
    print(f"sieve again: {count2} primes in {_ms(t0)}")
    if count != 78498:
        print("unexpected prime count: expected 78498")
        return 1

    if default.backend != "sycl":
        return 0
    x = xp.linspace(0, 1, 10**6, device=default)
    q_other = type(default.sycl_queue)(default.sycl_context, default.sycl_device)
    t0 = time.perf_counter()
    y = x.to_device(q_other)
    same = y.__sycl_usm_array_interface__["data"][0] == x.__sycl_usm_array_interface__["data"][0]
    print(f"to_device within one context: zero-copy={same} in {_ms(t0)}")
    sub = default.sycl_device.create_sub_devices(partition=1)[0] if default.sycl_device.is_cpu else None
    if sub is not None:
        t0 = time.perf_counter()
        z = x.to_device(xp.Device.create_device(type(default.sycl_queue)(sub)))
        back = z.to_device(default)
        ok = bool(xp.all(back == x))
        print(f"to_device across contexts and back: equal={ok} in {_ms(t0)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
