# ruff: noqa: B023  (timed closures are called inside the loop that defines them)
"""Per elementwise function and size: the kernel factory's one-operation kernel
(``usmarray.kernels._direct``) against the provider's kernel, on the SYCL OpenCL CPU
device; the measurement behind ``_direct.LIMITS``.

``python -m benchmarks.elementwise_dispatch [--quick] [--ops add,sin,...]``

Per function (float32 operands, plus float64 ``add``) and size, host time per call of
the raw backend call that allocates the result and returns when it is computed:
``be.<function>(x, y)`` (the provider) and ``_direct.binary``/``unary`` (the factory),
medians of interleaved rounds, the factory timed twice (A/A).  Both results are
compared bit for bit first.  A ratio factory / provider below 1 means the factory
is faster at that size.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import usmarray as xp
from usmarray._elementwise import UNARY
from usmarray.kernels import _direct

from .kernels import host_loop, rounds

#: every function the dispatch table sends through the factory on SYCL
OPS = tuple(_direct.LIMITS["sycl"])


def _dtype_for(name: str) -> str:
    if name.startswith("logical_"):
        return "bool"
    if name.startswith("bitwise_"):
        return "int32"
    return "float32"


def _operands(name: str, n: int, dtype: str, d: xp.Device) -> tuple:
    rng = np.random.default_rng(0)
    if dtype == "bool":
        return tuple(xp.asarray(rng.random(n) < 0.5, device=d) for _ in range(2))
    if dtype == "int32":
        return tuple(xp.asarray(rng.integers(-1000, 1000, n, dtype=np.int32), device=d)
                     for _ in range(2))
    lo = 0.1 if name in ("sqrt", "log", "log2", "log10", "pow", "acosh") else -2.0
    if name in ("asin", "acos", "atanh"):
        lo = -0.9
    hi = 0.9 if name in ("asin", "acos", "atanh") else 3.0 if name == "acosh" else 2.0
    if name == "acosh":
        lo = 1.0
    return tuple(xp.asarray(rng.uniform(lo, hi, n).astype(dtype), device=d)
                 for _ in range(2))


def _first_calls(d: xp.Device, wait: object) -> None:
    """The first calls of new signatures in this process, in ms (the third compiles)."""
    for name, dtype in (("hypot", "float64"), ("subtract", "int16")):
        x, y = _operands(name, 100, dtype, d)
        fn = getattr(xp, name)
        times = []
        for _ in range(_direct.COMPILE_AFTER + 3):
            t = time.perf_counter()
            fn(x, y)
            wait()  # type: ignore[operator]
            times.append((time.perf_counter() - t) * 1e3)
        print(f"first calls of {name} {dtype} (100 elements), ms: "
              + ", ".join(f"{v:.2f}" for v in times))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.elementwise_dispatch",
                                description=__doc__)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--ops", default=",".join(OPS))
    args = p.parse_args(argv)
    d = xp.Device.create_device("opencl:cpu")
    q = d.sycl_queue
    print(f"SYCL: {d!r} {q.sycl_device.name}, provider {xp.provider}")
    sizes = (100, 10**4, 10**6) if args.quick else (100, 10**4, 10**5, 10**6, 10**7)
    cases = [(name, _dtype_for(name)) for name in args.ops.split(",")] + [("add", "float64")]
    wait = q.wait
    _first_calls(d, wait)
    print(f"{'function':18s} {'size':>9s} {'provider us':>12s} {'factory us':>11s} "
          f"{'factory/provider':>17s} {'A/A':>6s}")
    for name, dtype in cases:
        unary = name in UNARY
        for n in sizes:
            x, y = _operands(name, n, dtype, d)
            be, xa, ya = x._be, x._arr, y._arr
            dx = xa.dtype

            def provider() -> object:
                return getattr(be, name)(xa) if unary else getattr(be, name)(xa, ya)

            def factory() -> object:
                return (_direct.unary(be, name, 1 << 62, xa, dx) if unary else
                        _direct.binary(be, name, 1 << 62, xa, ya, dx, ya.dtype))

            for _ in range(_direct.COMPILE_AFTER + 1):
                r = factory()
            if r is None:
                print(f"{name:18s} {n:9d}   (not through the factory)")
                break
            ref = provider()
            same = np.array_equal(be.to_host(r).view(np.uint8), be.to_host(ref).view(np.uint8))
            inner, rn = (200, 9) if n <= 10**4 else (20, 9) if n <= 10**6 else (3, 7)
            if args.quick:
                rn = 5
            med = rounds({
                "provider": host_loop(provider, wait, inner),
                "factory": host_loop(factory, wait, inner),
                "factory (A/A)": host_loop(factory, wait, inner),
            }, rn)
            print(f"{name + ' ' + dtype:18s} {n:9d} {med['provider'] * 1e6:12.1f} "
                  f"{med['factory'] * 1e6:11.1f} {med['factory'] / med['provider']:17.3f} "
                  f"{med['factory (A/A)'] / med['factory']:6.3f}"
                  + ("" if same else "   RESULTS DIFFER"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
