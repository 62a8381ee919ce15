# ruff: noqa: B023  (timed closures are called inside the loop that defines them)
"""Where the host time of a small GPU op goes: launch and allocation options side by side.

``USMARRAY_DEFAULT_DEVICE=cuda:0 python -m benchmarks.gpu_small [--calls N] [--json FILE]``

Host microseconds per call (median of interleaved trials, no synchronization in the
loop) of ``x + x`` on 100 float32 elements through usmarray, CuPy and PyTorch, and of
the parts of usmarray's path: the namespace function, the backend kernel, the
launch of one compiled kernel through CuPy's ``Function``, the driver's
``cuLaunchKernel`` with packed arguments (CuPy's C-typed binding),
cuda.core's ``launch``, and the allocation of the output (CuPy's ``ndarray``, the
pool's ``malloc``, the backend's spare outputs).  The A/A line is CuPy timed twice.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import struct
import sys
import time
from typing import Any

os.environ.setdefault("USMARRAY_DEFAULT_DEVICE", "cuda:0")

import cupy  # noqa: E402
import numpy as np  # noqa: E402

import usmarray as xp  # noqa: E402

try:
    import torch  # noqa: E402
except ImportError:  # pragma: no cover
    torch = None


def measure(fns: dict[str, Any], calls: int, trials: int) -> dict[str, float]:
    """Median host us per call of each callable, trials interleaved."""
    res: dict[str, list[float]] = {k: [] for k in fns}
    for fn in fns.values():
        for _ in range(200):
            fn()
    cupy.cuda.Device().synchronize()
    for _ in range(trials):
        for k, fn in fns.items():
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            res[k].append((time.perf_counter() - t0) / calls * 1e6)
            cupy.cuda.Device().synchronize()
            if torch is not None:
                torch.cuda.synchronize()
    return {k: statistics.median(v) for k, v in res.items()}


def add_kernel(be: Any, a: Any) -> Any:
    """The elementwise engine's compiled kernel of ``a + a`` (parameters: the two
    pointers, the result's, the count), for timing its launch alone."""
    engine = be.engine
    return engine._kernel(engine._plan("z = a0 + a1", ["a0", "a1"], [a, a], [], a.dtype,
                                       None, False))


def small_op_fns(n: int = 100) -> dict[str, Any]:
    h = np.arange(n, dtype=np.float32)
    c = cupy.asarray(h)
    u = xp.asarray(h)
    fns: dict[str, Any] = {"usm x + x": lambda: u + u, "cupy x + x": lambda: c + c,
                           "cupy x + x (A/A)": lambda: c + c}
    if torch is not None:
        t = torch.as_tensor(h, device="cuda")
        fns["torch x + x"] = lambda: t + t
    be = u._be
    ra = u._arr
    fns["usm xp.add(x, x)"] = lambda: xp.add(u, u)
    fns["usm x + 1.0"] = lambda: u + 1.0
    fns["backend add(raw, raw)"] = lambda: be.add(ra, ra)
    if not hasattr(be, "spare"):  # a usmarray before the elementwise engine's one path
        return fns
    from usmarray._backend._cuda.kernels import _launch as cf

    f = add_kernel(be, ra)
    out = cupy.empty_like(c)
    n64 = np.int64(n)
    fns["launch: Function call"] = lambda: f((1,), (256,), (ra, ra, out, n64))
    launch = cf.driver_launch
    if launch is not None:
        slots, pp = cf.SLOTS.t
        pack = struct.Struct("<QQQq").pack_into
        fp = f.ptr
        pa, po = ra.data.ptr, out.data.ptr
        fns["launch: cupy driver.launchKernel + pack"] = lambda: (
            pack(slots, 0, pa, pa, po, n), launch(fp, 1, 1, 1, 256, 1, 1, 0, 0, pp, 0))
        fns["launch: cupy driver.launchKernel only"] = lambda: launch(
            fp, 1, 1, 1, 256, 1, 1, 0, 0, pp, 0)
    try:
        try:
            from cuda.core import Device, LaunchConfig, Program, ProgramOptions
            from cuda.core import launch as cl
        except ImportError:
            from cuda.core.experimental import Device, LaunchConfig, Program, ProgramOptions  # type: ignore[no-redef]
            from cuda.core.experimental import launch as cl  # type: ignore[no-redef]
        src = r'''extern "C" __global__ void k(const float* a, const float* b, float* o, long long n)
        { long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; if (i < n) o[i] = a[i] + b[i]; }'''
        dev = Device()
        dev.set_current()
        arch = "".join(str(v) for v in dev.compute_capability)
        ker = Program(src, code_type="c++", options=ProgramOptions(arch=f"sm_{arch}")).compile(
            "cubin").get_kernel("k")
        stream = dev.create_stream(cupy.cuda.get_current_stream())
        cfg = LaunchConfig(grid=1, block=128)
        pa2, po2 = c.data.ptr, out.data.ptr
        fns["launch: cuda.core launch (int pointers)"] = lambda: cl(stream, cfg, ker, pa2, pa2, po2, n64)
        # verify cuda.core's argument passing: Python ints as 8-byte pointers
        o2 = cupy.zeros_like(c)
        cl(stream, cfg, ker, c.data.ptr, c.data.ptr, o2.data.ptr, n64)
        stream.sync()
        ok = bool((o2 == c + c).all())
        print(f"cuda.core launch with int pointers computes x + x correctly: {ok}")
    except Exception as exc:  # noqa: BLE001 - an optional comparison
        print(f"(cuda.core launch not measured: {type(exc).__name__}: {exc})", file=sys.stderr)
    pool = cupy.get_default_memory_pool()
    fns["alloc: cupy.ndarray((100,), f4)"] = lambda: cupy.ndarray((n,), np.float32)
    fns["alloc: pool.malloc(400)"] = lambda: pool.malloc(4 * n)
    shape, d = (n,), np.dtype(np.float32)
    new_out = be.spare.new_out
    fns["alloc: backend spare output"] = lambda: new_out(shape, d, n, 0)
    return fns


def sizes_fns(n: int) -> dict[str, Any]:
    """x + y at n elements: whole calls and kernels alone (output preallocated)."""
    rng = np.random.default_rng(0)
    h, h2 = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    c, c2 = cupy.asarray(h), cupy.asarray(h2)
    u, u2 = xp.asarray(h), xp.asarray(h2)
    out = cupy.empty_like(c)
    be = u._be
    f = add_kernel(be, c)
    grid = (((n + 3) // 4 + 255) // 256,)
    n64 = np.int64(n)
    fns = {"usm": lambda: u + u2, "cupy": lambda: c + c2,
           "usm kernel only": lambda: f(grid, (256,), (c, c2, out, n64)),
           "cupy kernel only": lambda: cupy.add(c, c2, out=out)}
    if torch is not None:
        t, t2 = torch.as_tensor(h, device="cuda"), torch.as_tensor(h2, device="cuda")
        to = torch.empty_like(t)
        fns["torch"] = lambda: t + t2
        fns["torch kernel only"] = lambda: torch.add(t, t2, out=to)
    return fns


def gpu_time(fns: dict[str, Any], reps: int, trials: int) -> dict[str, float]:
    """Median device us per call (CUDA events around reps back-to-back calls)."""
    res: dict[str, list[float]] = {k: [] for k in fns}
    for fn in fns.values():
        fn()
    cupy.cuda.Device().synchronize()
    for _ in range(trials):
        for k, fn in fns.items():
            s, e = cupy.cuda.Event(), cupy.cuda.Event()
            s.record()
            for _ in range(reps):
                fn()
            e.record()
            e.synchronize()
            res[k].append(cupy.cuda.get_elapsed_time(s, e) * 1e3 / reps)
    return {k: statistics.median(v) for k, v in res.items()}


def reductions(n: int) -> dict[str, float]:
    h = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    c, u = cupy.asarray(h), xp.asarray(h)
    fns: dict[str, Any] = {}
    for op in ("sum", "mean", "max", "argmax"):
        fns[f"{op} usm"] = lambda op=op: getattr(xp, op)(u)
        fns[f"{op} cupy"] = lambda op=op: getattr(c, op)()
        if torch is not None:
            t = torch.as_tensor(h, device="cuda")
            fns[f"{op} torch"] = lambda op=op, t=t: getattr(t, op)()
    res = gpu_time(fns, 20, 7)
    try:  # CuPy with its CUB reductions (a process-wide CuPy setting, restored after)
        from cupy._core import _accelerator as acc

        before = acc.get_reduction_accelerators()
        acc.set_reduction_accelerators(["cub"])
        try:
            cub = {f"{op} cupy+cub": (lambda op=op: getattr(c, op)()) for op in ("sum", "max", "argmax")}
            res.update(gpu_time(cub, 20, 7))
        finally:
            acc.set_reduction_accelerators(before)
    except Exception as exc:  # noqa: BLE001
        print(f"(CUB reductions not measured: {type(exc).__name__}: {exc})", file=sys.stderr)
    return res


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.gpu_small", description=__doc__)
    p.add_argument("--calls", type=int, default=5000)
    p.add_argument("--trials", type=int, default=7)
    p.add_argument("--only-small", action="store_true")
    p.add_argument("--json", default=None)
    args = p.parse_args(argv)
    name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
    name = name.decode() if isinstance(name, bytes) else str(name)
    print(f"GPU: {name}; usmarray from {os.path.dirname(xp.__file__)}; cupy {cupy.__version__}; "
          f"torch {getattr(torch, '__version__', 'absent')}; python {sys.version.split()[0]}")
    be = xp.asarray([0.0])._be
    spare = getattr(be, "spare", None)
    if spare is not None:
        print(f"spare outputs: {spare.on} refcounts={spare.free_refcounts}")
    out: dict[str, Any] = {"gpu": name}
    small = measure(small_op_fns(), args.calls, args.trials)
    out["small_us"] = small
    print("== host us per call, 100 float32, no sync ==")
    for k, v in small.items():
        print(f"  {k:45} {v:8.2f}")
    if not args.only_small:
        print("== device us per call of x + y (CUDA events) ==")
        out["sizes"] = {}
        for k in (16, 18, 20, 22):
            n = 1 << k
            r = gpu_time(sizes_fns(n), 50, 7)
            out["sizes"][n] = r
            print(f"  2^{k}: " + "  ".join(f"{a}={b:.2f}" for a, b in r.items()))
        print("== reductions at 2^24 float32, device us per call ==")
        r = reductions(1 << 24)
        out["reductions_us"] = r
        for a, b in r.items():
            print(f"  {a:20} {b:9.2f} us  {4 * (1 << 24) / b / 1e6:6.3f} TB/s")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
