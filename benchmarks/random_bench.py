# ruff: noqa: B023  (timed closures are called inside the loop that defines them)
"""usmarray.random against each backend's own generator, ratios of medians in one process.

``python -m benchmarks.random_bench [--quick] [--backends numpy,sycl,cuda] [--size N]
[--clock wall|cpu] [--out FILE]``

For ``random(n, float32|float64)`` and ``standard_normal(n, float32|float64)``:

- NumPy backend: NumPy's ``Generator(Philox)`` (the same stream, in C) on the host.
- SYCL device (the OpenCL CPU device): dpnp's ``RandomState`` (oneMKL) on the same
  queue, ``uniform(0, 1, n, float32)`` / ``random_sample`` and ``normal(0, 1, n,
  float32)`` / ``standard_normal``; every sample ends with ``q.wait()``.
- ``cuda:0``: ``torch.rand``/``torch.randn`` and CuPy's ``default_rng`` (CUDA events
  around ``reps`` calls, each library's own events on its stream), plus the host time
  per call at 100 elements (no synchronisation in the loop but at the end).

Each variant is timed in interleaved rounds (rotating order) and usmarray twice: the
A/A row shows the noise.  A ratio above 1 means usmarray is faster.  ``--clock cpu``
times the host sections by this process's CPU seconds (all its threads) instead of
the wall clock: on a machine shared with other work, that counts the work done
rather than the waiting.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

import usmarray as xp
import usmarray.random as ur

Sample = Callable[[], float]
CASES = (("random", "float32"), ("random", "float64"), ("standard_normal", "float32"),
         ("standard_normal", "float64"))


def rounds(variants: dict[str, Sample], n: int) -> dict[str, float]:
    """Median of ``n`` interleaved samples per variant (rotating order)."""
    samples: dict[str, list[float]] = {k: [] for k in variants}
    names = list(variants)
    for r in range(n):
        for name in names[r % len(names):] + names[:r % len(names)]:
            samples[name].append(variants[name]())
    return {k: statistics.median(v) for k, v in samples.items()}


#: the host sections' clock (``--clock``)
CLOCK = {"wall": time.perf_counter, "cpu": time.process_time}
_clock = time.perf_counter


def host_loop(f: Callable[[], object], sync: Callable[[], object], inner: int) -> Sample:
    def sample() -> float:
        sync()
        t = _clock()
        for _ in range(inner):
            f()
        sync()
        return (_clock() - t) / inner
    return sample


def report(out: list[str], title: str, med: dict[str, float], base: str) -> None:
    out.append(f"\n{title}")
    for k, v in med.items():
        ratio = med[base] / v if k != base else 1.0
        out.append(f"  {k:40s} {v * 1e3:10.3f} ms   speed vs {base}: {ratio:.3f}")


def _usm(rng: ur.Generator, method: str, n: int, dtype: str) -> Callable[[], object]:
    d = getattr(xp, dtype)
    return lambda: getattr(rng, method)(n, dtype=d)


def numpy_section(out: list[str], n: int, nrounds: int) -> None:
    out.append(f"NumPy backend, n = {n}, NumPy {np.__version__}")
    for method, dtype in CASES:
        ref = np.random.Generator(np.random.Philox(1))
        ref2 = np.random.Generator(np.random.Philox(2))
        a, b = ur.default_rng(1, device="numpy"), ur.default_rng(2, device="numpy")
        nf = getattr(ref, method)
        nf2 = getattr(ref2, method)
        med = rounds({
            "usmarray": host_loop(_usm(a, method, n, dtype), lambda: None, 1),
            "usmarray (A/A)": host_loop(_usm(b, method, n, dtype), lambda: None, 1),
            "numpy Generator(Philox)": host_loop(lambda: nf(n, dtype=dtype), lambda: None, 1),
            "numpy Generator(Philox) (A/A)": host_loop(lambda: nf2(n, dtype=dtype),
                                                       lambda: None, 1),
        }, nrounds)
        report(out, f"{method}({n}, {dtype})", med, "numpy Generator(Philox)")


def sycl_section(out: list[str], n: int, nrounds: int) -> None:
    import dpnp

    d = xp.Device.create_device("opencl:cpu")
    q = d.sycl_queue
    out.append(f"\nSYCL: {d!r} {q.sycl_device.name}, dpnp {dpnp.__version__}")
    rs = dpnp.random.RandomState(1, sycl_queue=q)
    theirs = {
        ("random", "float32"): lambda: rs.uniform(0.0, 1.0, n, dtype=dpnp.float32),
        ("random", "float64"): lambda: rs.random_sample(n),
        ("standard_normal", "float32"): lambda: rs.normal(0.0, 1.0, n, dtype=dpnp.float32),
        ("standard_normal", "float64"): lambda: rs.standard_normal(n),
    }
    for method, dtype in CASES:
        a, b = ur.default_rng(1, device=d), ur.default_rng(2, device=d)
        med = rounds({
            "usmarray": host_loop(_usm(a, method, n, dtype), q.wait, 1),
            "usmarray (A/A)": host_loop(_usm(b, method, n, dtype), q.wait, 1),
            "dpnp RandomState (oneMKL)": host_loop(theirs[method, dtype], q.wait, 1),
        }, nrounds)
        report(out, f"{method}({n}, {dtype})", med, "dpnp RandomState (oneMKL)")


def cuda_section(out: list[str], n: int, nrounds: int) -> None:
    import cupy

    try:
        import torch
    except ImportError:
        torch = None
    d = xp.Device.create_device("cuda:0")
    name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
    out.append(f"\nCUDA: {d!r} {name.decode() if isinstance(name, bytes) else name}, "
               f"CuPy {cupy.__version__}" + (f", PyTorch {torch.__version__}" if torch else ""))
    reps = 10

    def cupy_timed(f: Callable[[], object]) -> Sample:
        def sample() -> float:
            f()
            e0, e1 = cupy.cuda.Event(), cupy.cuda.Event()
            e0.record()
            for _ in range(reps):
                f()
            e1.record()
            e1.synchronize()
            return cupy.cuda.get_elapsed_time(e0, e1) / 1e3 / reps
        return sample

    def torch_timed(f: Callable[[], object]) -> Sample:
        def sample() -> float:
            f()
            e0 = torch.cuda.Event(enable_timing=True)
            e1 = torch.cuda.Event(enable_timing=True)
            e0.record()
            for _ in range(reps):
                f()
            e1.record()
            e1.synchronize()
            return e0.elapsed_time(e1) / 1e3 / reps
        return sample

    cg = cupy.random.default_rng(1)
    for method, dtype in CASES:
        a, b = ur.default_rng(1, device=d), ur.default_rng(2, device=d)
        variants = {
            "usmarray": cupy_timed(_usm(a, method, n, dtype)),
            "usmarray (A/A)": cupy_timed(_usm(b, method, n, dtype)),
            "cupy default_rng": cupy_timed(lambda: getattr(cg, method)(n, dtype=dtype)),
        }
        if torch is not None:
            tf = torch.rand if method == "random" else torch.randn
            td = getattr(torch, dtype)
            variants["torch"] = torch_timed(lambda: tf(n, device="cuda", dtype=td))
        base = "torch" if torch is not None else "cupy default_rng"
        report(out, f"{method}({n}, {dtype}), CUDA events", rounds(variants, nrounds), base)
    # host time at 100 elements (wall clock): calls are queued, one synchronisation at the end
    global _clock
    _clock = time.perf_counter
    small = 100
    a, b = ur.default_rng(1, device=d), ur.default_rng(2, device=d)
    sync = cupy.cuda.Device(0).synchronize
    variants = {
        "usmarray random(100)": host_loop(lambda: a.random(small, dtype=xp.float32), sync, 200),
        "usmarray random(100) (A/A)": host_loop(lambda: b.random(small, dtype=xp.float32),
                                                sync, 200),
        "cupy default_rng random(100)": host_loop(
            lambda: cg.random(small, dtype="float32"), sync, 200),
    }
    if torch is not None:
        variants["torch.rand(100)"] = host_loop(
            lambda: torch.rand(small, device="cuda"), torch.cuda.synchronize, 200)
    base = "torch.rand(100)" if torch is not None else "cupy default_rng random(100)"
    report(out, "host time per call, 100 float32", rounds(variants, nrounds), base)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer rounds and 2**20 elements")
    ap.add_argument("--backends", default="numpy,sycl,cuda",
                    help="comma-separated: numpy, sycl, cuda (those present run)")
    ap.add_argument("--size", type=int, default=None,
                    help="elements per call (default 2**24 on the host, 2**26 on CUDA)")
    ap.add_argument("--clock", choices=sorted(CLOCK), default="wall",
                    help="host sections: wall clock (default) or this process's CPU time")
    ap.add_argument("--out", default=None, help="also write the report to this file")
    args = ap.parse_args(argv)
    global _clock
    _clock = CLOCK[args.clock]
    from usmarray import _backend

    wanted = args.backends.split(",")
    nrounds = 5 if args.quick else 15
    host_n = args.size or (1 << (20 if args.quick else 24))
    out: list[str] = [f"clock: {args.clock}"]
    if "numpy" in wanted:
        numpy_section(out, host_n, nrounds)
    if "sycl" in wanted and _backend.sycl is not None:
        sycl_section(out, host_n, nrounds)
    if "cuda" in wanted and _backend.get_backend("cuda") is not None:
        cuda_section(out, args.size or (1 << (20 if args.quick else 26)), nrounds)
    text = "\n".join(out) + "\n"
    print(text, end="")
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
