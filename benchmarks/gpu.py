# ruff: noqa: B023  (timed closures are called inside the loop that defines them)
"""GPU section: usmarray's CUDA backend against CuPy and PyTorch, side by side.

``USMARRAY_DEFAULT_DEVICE=cuda:0 python -m benchmarks.gpu [--quick] [--out DIR]``

Every figure comes from one process on one GPU, the libraries interleaved per
size: the median over ``trials`` of the kernel time per call measured with CUDA
events around ``reps`` back-to-back calls (after a warm-up), and an A/A run
(CuPy measured twice) for the noise.  Ratios are peer time / usmarray time
(> 1: usmarray faster).  Bandwidth counts bytes read and written.  The small-op
table is host time per call of ``x + x`` on 100 float32 elements without a
synchronization in the loop, beside a raw CuPy ``RawKernel`` launch and (where
cuda.core imports) a cuda.core launch of the same kernel.

Writes ``gpu.json``, ``gpu.txt`` and ``gpu_bandwidth.png`` into ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("USMARRAY_DEFAULT_DEVICE", "cuda:0")

import cupy  # noqa: E402
import numpy as np  # noqa: E402

import usmarray as xp  # noqa: E402

try:
    import torch  # noqa: E402
except ImportError:  # pragma: no cover
    torch = None

_REF_SRC = r"""
extern "C" __global__ void ref_add(const float4* a, const float4* b, float4* o, long long nv) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nv) { float4 x = a[i], y = b[i]; o[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w); }
}
"""


def _events_time(fn: Any, reps: int, trials: int, sync: Any) -> float:
    """Median seconds per call of ``fn`` (CUDA events on the current stream)."""
    fn()
    sync()
    out = []
    for _ in range(trials):
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        for _ in range(reps):
            fn()
        stop.record()
        stop.synchronize()
        out.append(cupy.cuda.get_elapsed_time(start, stop) / 1e3 / reps)
    return statistics.median(out)


def _torch_time(fn: Any, reps: int, trials: int) -> float:
    fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(trials):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(reps):
            fn()
        stop.record()
        stop.synchronize()
        out.append(start.elapsed_time(stop) / 1e3 / reps)
    return statistics.median(out)


def _cases(n: int, dtype: str) -> dict[str, dict[str, Any]]:
    """op -> {lib: callable}, plus bytes moved per call."""
    rng = np.random.default_rng(0)
    h = rng.standard_normal(n).astype(dtype)
    h2 = rng.standard_normal(n).astype(dtype)
    c = cupy.asarray(h)
    c2 = cupy.asarray(h2)
    cm = c > 0
    u = xp.asarray(h)
    u2 = xp.asarray(h2)
    um = u > 0
    isz = np.dtype(dtype).itemsize
    cases: dict[str, dict[str, Any]] = {
        "add": {"bytes": 3 * n * isz, "usm": lambda: u + u2, "cupy": lambda: c + c2},
        "x*y+z": {"bytes": 6 * n * isz, "usm": lambda: u * u2 + u, "cupy": lambda: c * c2 + c},
        "sin": {"bytes": 2 * n * isz, "usm": lambda: xp.sin(u), "cupy": lambda: cupy.sin(c)},
        "copy": {"bytes": 2 * n * isz, "usm": lambda: xp.asarray(u, copy=True),
                 "cupy": lambda: c.copy()},
        "astype f64": {"bytes": n * isz + n * 8, "usm": lambda: xp.astype(u, xp.float64),
                       "cupy": lambda: c.astype(cupy.float64)},
        "where": {"bytes": 3 * n * isz + n, "usm": lambda: xp.where(um, u, u2),
                  "cupy": lambda: cupy.where(cm, c, c2)},
        "sum": {"bytes": n * isz, "usm": lambda: xp.sum(u), "cupy": lambda: c.sum()},
        "mean": {"bytes": n * isz, "usm": lambda: xp.mean(u), "cupy": lambda: c.mean()},
        "max": {"bytes": n * isz, "usm": lambda: xp.max(u), "cupy": lambda: c.max()},
        "argmax": {"bytes": n * isz, "usm": lambda: xp.argmax(u), "cupy": lambda: c.argmax()},
    }
    if n <= 1 << 26:
        cases["sort"] = {"bytes": 2 * n * isz, "usm": lambda: xp.sort(u), "cupy": lambda: cupy.sort(c)}
    if torch is not None:
        t = torch.as_tensor(h, device="cuda")
        t2 = torch.as_tensor(h2, device="cuda")
        tm = t > 0
        torch_ops = {
            "add": lambda: t + t2, "x*y+z": lambda: t * t2 + t, "sin": lambda: torch.sin(t),
            "copy": lambda: t.clone(), "astype f64": lambda: t.to(torch.float64),
            "where": lambda: torch.where(tm, t, t2), "sum": lambda: t.sum(),
            "mean": lambda: t.mean(), "max": lambda: t.max(), "argmax": lambda: t.argmax(),
            "sort": lambda: torch.sort(t),
        }
        for k, v in torch_ops.items():
            if k in cases:
                cases[k]["torch"] = v
    if dtype == "float32" and n % 4 == 0:
        ref = cupy.RawKernel(_REF_SRC, "ref_add")
        out = cupy.empty_like(c)
        nv = n // 4
        grid = ((nv + 255) // 256,)
        cases["add"]["float4 ref"] = lambda: ref(grid, (256,), (c, c2, out, np.int64(nv)))
    return cases


def throughput(sizes: list[int], reps_for: Any, trials: int) -> list[dict[str, Any]]:
    rows = []
    sync = cupy.cuda.Device().synchronize
    for n in sizes:
        cases = _cases(n, "float32")
        for op, libs in cases.items():
            nbytes = libs.pop("bytes")
            reps = reps_for(n)
            times: dict[str, float] = {}
            order = ["usm", "cupy", "torch", "float4 ref", "cupy A/A"]
            for lib in order:
                key = "cupy" if lib == "cupy A/A" else lib
                fn = libs.get(key)
                if fn is None:
                    continue
                if lib == "torch":
                    times[lib] = _torch_time(fn, reps, trials)
                else:
                    times[lib] = _events_time(fn, reps, trials, sync)
            row = {"op": op, "n": n, "bytes": nbytes, "times": times}
            rows.append(row)
        del cases
        cupy.get_default_memory_pool().free_all_blocks()
        if torch is not None:
            torch.cuda.empty_cache()
    return rows


def matmul(sizes: list[int], trials: int) -> list[dict[str, Any]]:
    rows = []
    sync = cupy.cuda.Device().synchronize
    if torch is not None:
        torch.backends.cuda.matmul.allow_tf32 = False
    for dtype in ("float32", "float64"):
        for n in sizes:
            h = np.random.default_rng(0).standard_normal((n, n)).astype(dtype)
            c = cupy.asarray(h)
            u = xp.asarray(h)
            reps = 5 if n >= 4096 else 20
            times = {"usm": _events_time(lambda: u @ u, reps, trials, sync),
                     "cupy": _events_time(lambda: c @ c, reps, trials, sync)}
            if torch is not None:
                t = torch.as_tensor(h, device="cuda")
                times["torch"] = _torch_time(lambda: t @ t, reps, trials)
            times["cupy A/A"] = _events_time(lambda: c @ c, reps, trials, sync)
            rows.append({"op": f"matmul {dtype}", "n": n, "flops": 2 * n**3, "times": times})
    return rows


def small_ops(calls: int, trials: int) -> dict[str, float]:
    """Host microseconds per call of x + x on 100 float32 elements, no sync in the loop."""
    h = np.arange(100, dtype=np.float32)
    c = cupy.asarray(h)
    u = xp.asarray(h)
    fns: dict[str, Any] = {"usm": lambda: u + u, "cupy": lambda: c + c}
    src = r'''extern "C" __global__ void k(const float* a, const float* b, float* o, long long n)
    { long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; if (i < n) o[i] = a[i] + b[i]; }'''
    raw = cupy.RawKernel(src, "k")
    out = cupy.empty_like(c)
    n64 = np.int64(100)
    fns["RawKernel launch"] = lambda: raw((1,), (128,), (c, c, out, n64))
    fns["RawKernel launch+alloc"] = lambda: raw((1,), (128,), (c, c, cupy.ndarray((100,), np.float32), n64))
    try:  # a cuda.core launch of the same kernel on CuPy's null stream
        try:
            from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch
        except ImportError:
            from cuda.core.experimental import Device, LaunchConfig, Program, ProgramOptions, launch  # type: ignore[no-redef]

        dev = Device()
        dev.set_current()
        arch = "".join(str(v) for v in dev.compute_capability)
        prog = Program(src, code_type="c++", options=ProgramOptions(arch=f"sm_{arch}"))
        ker = prog.compile("cubin").get_kernel("k")
        stream = dev.create_stream(cupy.cuda.get_current_stream())
        cfg = LaunchConfig(grid=1, block=128)
        pa, po = c.data.ptr, out.data.ptr
        fns["cuda.core launch"] = lambda: launch(stream, cfg, ker, pa, pa, po, n64)
    except Exception as exc:  # noqa: BLE001 - an optional comparison
        print(f"(cuda.core launch not measured: {type(exc).__name__}: {exc})", file=sys.stderr)
    if torch is not None:
        t = torch.as_tensor(h, device="cuda")
        fns["torch"] = lambda: t + t
    # where usmarray's time goes: the backend's fast path alone, its allocation, the
    # namespace function without the operator, CuPy's ufunc on the same raw array
    be = u._be
    ra = u._arr
    fns["usm: xp.add(x, x)"] = lambda: xp.add(u, u)
    fns["usm: backend add(raw, raw)"] = lambda: be.add(ra, ra)
    fns["usm: backend queue_of(raw)"] = lambda: be.queue_of(ra)
    fns["cupy.ndarray((100,), f4)"] = lambda: cupy.ndarray((100,), np.float32)
    from benchmarks.gpu_small import add_kernel

    f = add_kernel(be, ra)
    fns["Function call (no alloc)"] = lambda: f((1,), (256,), (ra, ra, out, n64))
    res: dict[str, list[float]] = {k: [] for k in fns}
    for fn in fns.values():
        for _ in range(200):
            fn()
    cupy.cuda.Device().synchronize()
    for _ in range(trials):
        for k, fn in fns.items():  # interleaved
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            res[k].append((time.perf_counter() - t0) / calls * 1e6)
            cupy.cuda.Device().synchronize()
    return {k: statistics.median(v) for k, v in res.items()}


def _fmt_table(rows: list[dict[str, Any]]) -> str:
    libs = ["usm", "cupy", "torch", "float4 ref"]
    head = (f"{'op':12} {'n':>10} " + " ".join(f"{k + ' TB/s':>15}" for k in libs)
            + f" {'cupy/usm':>9} {'torch/usm':>9} {'best/usm':>9} {'usm/ref':>8} {'A/A':>6}")
    lines = [head, "-" * len(head)]
    for r in rows:
        t = r["times"]
        if "bytes" in r:
            val = {k: r["bytes"] / t[k] / 1e12 for k in libs if k in t}
        else:
            val = {k: r["flops"] / t[k] / 1e12 for k in libs if k in t}
        peers = [t[k] for k in ("cupy", "torch") if k in t]
        best = min(peers) / t["usm"]
        ref = f"{t['usm'] / t['float4 ref']:8.3f}" if "float4 ref" in t else f"{'':8}"
        ref = f"{t['float4 ref'] / t['usm']:8.3f}" if "float4 ref" in t else f"{'':8}"
        aa = t["cupy A/A"] / t["cupy"]
        lines.append(
            f"{r['op']:12} {r['n']:>10} " + " ".join(
                f"{val[k]:15.3f}" if k in val else f"{'-':>15}" for k in libs)
            + f" {t['cupy'] / t['usm']:9.3f} "
            + (f"{t['torch'] / t['usm']:9.3f}" if "torch" in t else f"{'-':>9}")
            + f" {best:9.3f} {ref} {aa:6.3f}")
    return "\n".join(lines)


def _plot(rows: list[dict[str, Any]], path: Path, gpu: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover
        return
    ops = [o for o in ("add", "x*y+z", "sin", "copy", "where", "sum") if any(r["op"] == o for r in rows)]
    fig, axes = plt.subplots(2, 3, figsize=(15, 8), sharex=True)
    for ax, op in zip(axes.flat, ops, strict=False):
        for lib, style in (("usm", "-o"), ("cupy", "-s"), ("torch", "-^"), ("float4 ref", ":")):
            pts = [(r["n"], r["bytes"] / r["times"][lib] / 1e12) for r in rows
                   if r["op"] == op and lib in r["times"]]
            if pts:
                ax.plot(*zip(*pts, strict=True), style, label=lib, markersize=3)
        ax.set_xscale("log", base=2)
        ax.set_title(op)
        ax.set_ylabel("TB/s (read + written)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"usmarray (cuda backend) vs CuPy vs PyTorch, float32, {gpu}")
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.gpu", description=__doc__)
    p.add_argument("--quick", action="store_true", help="sizes 2^10..2^24, fewer trials")
    p.add_argument("--out", default=None, help="folder for gpu.json / gpu.txt / gpu_bandwidth.png")
    args = p.parse_args(argv)
    d = xp.asarray([0.0]).device
    gpu = cupy.cuda.runtime.getDeviceProperties(0)["name"]
    gpu = gpu.decode() if isinstance(gpu, bytes) else str(gpu)
    top = 24 if args.quick else 28
    sizes = [1 << k for k in range(10, top + 1, 2)]
    trials = 5 if args.quick else 7

    def reps_for(n: int) -> int:
        return 200 if n <= 1 << 16 else 50 if n <= 1 << 22 else 10

    head = (f"GPU: {gpu}; default device {d}; cupy {cupy.__version__}; torch "
            f"{getattr(torch, '__version__', 'absent')}; numpy {np.__version__}")
    print(head, flush=True)
    rows = throughput(sizes, reps_for, trials)
    mm = matmul([1024, 4096] if not args.quick else [1024], trials=3)
    small = small_ops(2000 if args.quick else 5000, 5)
    text = [head, "", "== Throughput, float32 (ratios: peer time / usmarray time; > 1 = usmarray faster) ==",
            _fmt_table(rows), "", "== matmul (TFLOP/s; no TF32) ==", _fmt_table(mm), "",
            "== Small op: host us per call of x + x, 100 float32, no sync ==",
            *(f"  {k:24} {v:8.2f} us" for k, v in small.items())]
    out = "\n".join(text)
    print(out, flush=True)
    if args.out:
        o = Path(args.out)
        o.mkdir(parents=True, exist_ok=True)
        (o / "gpu.txt").write_text(out + "\n")
        (o / "gpu.json").write_text(json.dumps(
            {"gpu": gpu, "throughput": rows, "matmul": mm, "small_us": small}, indent=1))
        _plot(rows, o / "gpu_bandwidth.png", gpu)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
