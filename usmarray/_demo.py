"""The main job (``python -m usmarray``): report backends, devices and the default
device with the rule that chose it, then compute.

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


#: what the first run of the sieve includes on each backend: the truth about compilation
_FIRST_RUN = {
    "sycl": "the first run in a process loads each kernel: JIT-compiled the first time on "
            "this machine, read from the on-disk cache after that (SYCL_CACHE_PERSISTENT=1, "
            "usmarray's default)",
    "cuda": "the first run in a process loads each kernel: compiled the first time, read "
            "from CuPy's on-disk kernel cache after that",
}


def main(argv: list[str] | None = None) -> int:
    import argparse

    from usmarray import _backend
    from usmarray._device import default_device_reason

    argparse.ArgumentParser(
        prog="python -m usmarray",
        description="Print the backends and devices usmarray finds (and why a missing one "
                    "is missing), the default device with the rule that chose it, then run "
                    "a short demo on that device.").parse_args(argv or [])
    info = xp.__array_namespace_info__()
    print(f"usmarray {xp.__version__}, array API {xp.__array_api_version__}")
    absent = _backend.absent()
    for name, be in _backend.backends().items():
        if name not in absent:
            print(f"backend {name}: {be.provider_name}")
    for name, why in absent.items():
        print(f"backend {name}: unavailable: {why}")
    print("devices:")
    for d in info.devices():
        caps = d._be.capabilities(d._q)
        print(f"  {d!r}: {d.backend} backend, fp64={caps.fp64}")
    default = info.default_device()
    print(f"default device: {default!r}")
    print(f"  why: {default_device_reason()}")

    n = 10**6
    t0 = time.perf_counter()
    primes = sieve(n, device=default)
    count = primes.shape[0]
    note = _FIRST_RUN.get(default.backend)
    print(f"sieve: {count} primes below {n} on {default!r} in {_ms(t0)}"
          + (f" ({note})" if note else ""))
    t0 = time.perf_counter()
    count2 = sieve(n, device=default).shape[0]
    print(f"sieve again: {count2} primes in {_ms(t0)}"
          + (" (kernels already loaded: the computation alone)" if note else ""))
    if count != 78498:
        print("unexpected prime count: expected 78498")
        return 1

    x = xp.linspace(0, 1, 10**6, device=default)
    for d in info.devices():
        if d == default:
            continue
        t0 = time.perf_counter()
        back = x.to_device(d).to_device(default)
        ok = bool(xp.all(back == x))
        print(f"to_device {default!r} -> {d!r} and back: equal={ok} in {_ms(t0)}")
        if not ok:
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
