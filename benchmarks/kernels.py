# ruff: noqa: B023  (timed closures are called inside the loop that defines them)
"""Kernel factory benchmark: launch cost and bandwidth, ratios of medians in one process.

``python -m benchmarks.kernels [--quick] [--sycl-only | --cuda-only]``

SYCL (the OpenCL CPU device): host time per call of a 100-element factory kernel
``y(i0) = x(i0) + x(i0)`` against a raw ``queue.submit`` of the same compiled kernel with
the same arguments (the factory's own cost), a raw ``queue.submit`` of a hand-written
kernel, and the provider's ``add(x, x, out=y)``; every sample ends with ``q.wait()``.
Bandwidth: the elementwise helper's ``z = x + y`` on 2**24 float32 against the
provider's add.  CUDA: host time per call (no synchronisation in the loop) of the same
100-element kernel against a raw CuPy launch of the same compiled kernel and CuPy's
``x + x``; bandwidth of the elementwise ``z = x + y`` on 2**28 float32 (CUDA events)
against a device copy (bytes read + written) and CuPy's add.  Each variant is timed in
interleaved rounds; the factory is timed twice (A/A) to show the noise.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

import usmarray as xp
from usmarray import _backend
from usmarray.kernels import elementwise, kernel


def rounds(variants: dict[str, Callable[[], float]], n: int) -> dict[str, float]:
    """Median of ``n`` interleaved samples per variant (rotating order)."""
    samples: dict[str, list[float]] = {k: [] for k in variants}
    names = list(variants)
    for r in range(n):
        for name in names[r % len(names):] + names[:r % len(names)]:
            samples[name].append(variants[name]())
    return {k: statistics.median(v) for k, v in samples.items()}


def host_loop(f: Callable[[], object], sync: Callable[[], object], inner: int) -> Callable[[], float]:
    def sample() -> float:
        sync()
        t = time.perf_counter()
        for _ in range(inner):
            f()
        sync()
        return (time.perf_counter() - t) / inner
    return sample


def cuda_timed(f: Callable[[], object], reps: int = 10) -> Callable[[], float]:
    """A sample: seconds per call of ``f`` on the current CUDA stream (CUDA events
    around ``reps`` calls, after one call outside them)."""
    import cupy

    def sample() -> float:
        e0, e1 = cupy.cuda.Event(), cupy.cuda.Event()
        f()
        e0.record()
        for _ in range(reps):
            f()
        e1.record()
        e1.synchronize()
        return cupy.cuda.get_elapsed_time(e0, e1) / 1e3 / reps
    return sample


def report(title: str, med: dict[str, float], base: str, unit: str = "us", scale: float = 1e6) -> None:
    print(f"\n{title}")
    for k, v in med.items():
        print(f"  {k:34s} {v * scale:10.2f} {unit}   ratio to {base}: {v / med[base]:.3f}")


def sycl_section(quick: bool) -> None:
    import dpctl.program as dpp

    d = xp.Device.create_device("opencl:cpu")
    q = d.sycl_queue
    pt = _backend.sycl.provider
    print(f"SYCL: {d!r} {q.sycl_device.name}, provider {xp.provider}")
    x = xp.asarray(np.arange(100, dtype=np.float32), device=d)
    y = xp.empty(100, dtype=xp.float32, device=d)
    k = kernel("float32[:] x, float32[:] y", "y(i0) = x(i0) + x(i0);", shape="y")
    k(x, y)
    launch, packed = k._last[4], k._last[5]
    packed = getattr(packed, "args", packed)  # SyclQueue.submit's form of the arguments
    hand = dpp.create_program_from_source(
        q, "__kernel void r(__global const float *x, __global float *y) "
           "{ size_t i = get_global_id(0); y[i] = x[i] + x[i]; }").get_sycl_kernel("r")
    xa, ya = x._arr, y._arr
    inner, n = (50, 9) if quick else (200, 31)
    wait = q.wait
    med = rounds({
        "factory kernel": host_loop(lambda: k(x, y), wait, inner),
        "factory kernel (A/A)": host_loop(lambda: k(x, y), wait, inner),
        "raw queue.submit, same kernel+args": host_loop(
            lambda: q.submit(launch.kernel, packed, [100]), wait, inner),
        "raw queue.submit, hand-written": host_loop(
            lambda: q.submit(hand, [xa.usm_data, ya.usm_data], [100]), wait, inner),
        "provider add(x, x, out=y)": host_loop(lambda: pt.add(xa, xa, out=ya), wait, inner),
    }, n)
    report("launch cost, 100 float32 (host us per call, q.wait() per batch)", med,
           "raw queue.submit, same kernel+args")
    print(f"  factory / provider add: {med['factory kernel'] / med['provider add(x, x, out=y)']:.3f}")
    N = 1 << (20 if quick else 24)
    add = elementwise("float32[] a, float32[] b -> float32[] c", "c = a + b")
    a = xp.asarray(np.random.default_rng(0).random(N, dtype=np.float32), device=d)
    b = xp.asarray(np.random.default_rng(1).random(N, dtype=np.float32), device=d)
    c = xp.empty(N, dtype=xp.float32, device=d)
    add(a, b, out=c)
    np.testing.assert_array_equal(xp.asnumpy(c), xp.asnumpy(a) + xp.asnumpy(b))
    aa, ba, ca = a._arr, b._arr, c._arr
    med = rounds({
        "factory elementwise c = a + b": host_loop(lambda: add(a, b, out=c), wait, 5),
        "factory elementwise (A/A)": host_loop(lambda: add(a, b, out=c), wait, 5),
        "provider add(a, b, out=c)": host_loop(lambda: pt.add(aa, ba, out=ca), wait, 5),
    }, 7 if quick else 21)
    print(f"\nbandwidth, {N} float32 (GB/s, 12 bytes per element)")
    for kk, v in med.items():
        print(f"  {kk:34s} {12 * N / v / 1e9:8.2f} GB/s   rate ratio to provider: "
              f"{med['provider add(a, b, out=c)'] / v:.3f}")


def cuda_section(quick: bool) -> None:
    import cupy

    d = xp.Device.create_device("cuda:0")
    name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
    print(f"\nCUDA: {d!r} {name.decode() if isinstance(name, bytes) else name}, CuPy {cupy.__version__}")
    x = xp.asarray(np.arange(100, dtype=np.float32), device=d)
    y = xp.empty(100, dtype=xp.float32, device=d)
    k = kernel("float32[:] x, float32[:] y", "y(i0) = x(i0) + x(i0);", shape="y")
    k(x, y)
    launch, packed, gsize = k._last[4], k._last[5], k._last[6]
    from usmarray._backend._cuda import program as pc

    grid, block = pc._grid(gsize)
    args = tuple(packed)
    xc = x._arr
    sync = cupy.cuda.get_current_stream().synchronize
    inner, n = (200, 9) if quick else (1000, 31)
    med = rounds({
        "factory kernel": host_loop(lambda: k(x, y), sync, inner),
        "factory kernel (A/A)": host_loop(lambda: k(x, y), sync, inner),
        "raw CuPy launch, same kernel+args": host_loop(
            lambda: launch.kernel(grid, block, args), sync, inner),
        "CuPy x + x": host_loop(lambda: xc + xc, sync, inner),
        "usmarray x + x": host_loop(lambda: x + x, sync, inner),
    }, n)
    report("launch cost, 100 float32 (host us per call, no sync in the loop)", med,
           "raw CuPy launch, same kernel+args")
    N = 1 << (24 if quick else 28)
    add = elementwise("float32[] a, float32[] b -> float32[] c", "c = a + b")
    a = xp.asarray(np.random.default_rng(0).random(N, dtype=np.float32), device=d)
    b = xp.asarray(np.random.default_rng(1).random(N, dtype=np.float32), device=d)
    c = xp.empty(N, dtype=xp.float32, device=d)
    add(a, b, out=c)
    assert bool(xp.all(c == a + b))
    ac, bc, cc = a._arr, b._arr, c._arr

    timed = cuda_timed
    med = rounds({
        "factory elementwise c = a + b": timed(lambda: add(a, b, out=c)),
        "factory elementwise (A/A)": timed(lambda: add(a, b, out=c)),
        "CuPy add(a, b, out=c)": timed(lambda: cupy.add(ac, bc, out=cc)),
        "device copy c[...] = a": timed(lambda: cupy.copyto(cc, ac)),
    }, 7 if quick else 15)
    nbytes = {"device copy c[...] = a": 8 * N}
    rates = {kk: nbytes.get(kk, 12 * N) / v for kk, v in med.items()}
    print(f"\nbandwidth, {N} float32 (TB/s, bytes read + written)")
    for kk, r in rates.items():
        print(f"  {kk:34s} {r / 1e12:8.3f} TB/s   ratio to device copy: "
              f"{r / rates['device copy c[...] = a']:.3f}")


def run_sections(doc: str, sycl: Callable[[bool], None], cuda: Callable[[bool], None]) -> None:
    """The command line of a benchmark with a SYCL and a CUDA section: ``--quick``,
    ``--sycl-only``, ``--cuda-only``; a section runs where its device is."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--sycl-only", action="store_true")
    ap.add_argument("--cuda-only", action="store_true")
    ns = ap.parse_args()
    if not ns.cuda_only and _backend.sycl is not None and _backend.sycl.available():
        sycl(ns.quick)
    if not ns.sycl_only and _backend.get_backend("cuda") is not None:
        cuda(ns.quick)


def main() -> None:
    run_sections(__doc__, sycl_section, cuda_section)


if __name__ == "__main__":
    main()
