"""Per-task profile of one cubed plan on usmarray against cubed on NumPy.

The plan: the mean and the two-pass standard deviation,
``sqrt(mean(square(x - mean(x))))``, of an N-element float32 array ``x`` stored in a
Zarr array on local disk (written once, by cubed on NumPy, before any configuration
runs, so every configuration reads the same bytes), with cubed's ``allowed_mem`` at
most a quarter of the data.

Configurations, each in a fresh process (cubed reads its backend at import), all on
the same host in the same invocation:

- ``numpy``: cubed's default backend;
- ``usmarray numpy``: ``CUBED_BACKEND_ARRAY_API_MODULE=usmarray.cubed`` with
  ``USMARRAY_DEFAULT_DEVICE=numpy`` (usmarray's NumPy backend);
- ``usmarray sycl-cpu``: the same on the SYCL OpenCL CPU device.

Each process times the plan ``--repeats`` times with the executor of ``--executor``
(after a first run, reported separately: it includes the first-call costs, such as
kernel compilation or a program-cache load), then runs it once more under cProfile with
cubed's single-threaded executor, so that every task runs in the profiled thread.
The profile's exclusive ("own") time per function is put in buckets by where the
function lives: Zarr and its codecs (storage read/write, compression), pickling,
cubed's planner and runtime, usmarray's cubed adapter, usmarray's namespace and
backend dispatch, and the chunk math (NumPy, dpctl/dpnp kernels and the waits on
them).  The inclusive time of the backend's ``asarray`` (a chunk read from Zarr onto
the device) and ``to_host`` (a chunk written back) is reported as the host<->device
transfer time.  In the timed runs, a cubed callback sums the tasks' own time: ``idle``
is the share of the workers' time (``workers`` x wall) in no task.

The order of the processes alternates (numpy, usmarray numpy, sycl, numpy, ...), so
two NumPy processes give the A/A noise; the ratio is the ratio of medians over all
timed runs of a configuration.

    python -m benchmarks.cubed_profile --n 2e8 --allowed-mem 200MB --chunk 5e6 --out DIR
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks._paths import run_dir
from benchmarks.cubed_bounded import _parse_mem

#: label -> (backend, USMARRAY_DEFAULT_DEVICE, more environment)
CONFIGS: dict[str, tuple[str, str | None, dict[str, str]]] = {
    "numpy": ("numpy", None, {}),
    "usmarray numpy": ("usmarray", "numpy", {}),
    "usmarray sycl-cpu": ("usmarray", "cpu", {}),
    # the chunk pool off: every chunk read from Zarr into a fresh USM allocation
    "usmarray sycl-cpu, no pool": ("usmarray", "cpu", {"USMARRAY_CUBED_POOL_BYTES": "0"}),
    # one GPU (a CUDA device; run on a GPU machine only)
    "usmarray cuda:0": ("usmarray", "cuda:0", {}),
}

#: bucket -> substrings of a profile entry's file name (first match wins, in order)
BUCKETS: list[tuple[str, tuple[str, ...]]] = [
    ("pickling", ("pickle", "copyreg")),
    ("zarr + codecs (storage)", ("/zarr/", "/numcodecs/", "/fsspec/", "/obstore/",
                                 "/donfig/", "/crc32c/", "/google_crc32c/")),
    ("usmarray cubed adapter", ("usmarray/cubed.py", "usmarray/_cubed_placement.py")),
    ("usmarray namespace + dispatch", ("usmarray/",)),
    ("chunk math (numpy/dpctl/dpnp)", ("/numpy/", "/dpctl/", "/dpnp/")),
    ("cubed planner + runtime", ("/cubed/",)),
    ("asyncio + threads", ("asyncio", "threading.py", "concurrent/")),
]

#: builtins (file "~") -> bucket, by a substring of the function's name
BUILTIN_BUCKETS: list[tuple[str, tuple[str, ...]]] = [
    ("pickling", ("pickle", "__reduce")),
    ("zarr + codecs (storage)", ("posix.", "_io.", "io.open", "numcodecs", "zstd", "blosc",
                                 "crc32c")),
    ("chunk math (numpy/dpctl/dpnp)", ("numpy", "dpctl", "dpnp", "ufunc", "ndarray",
                                        "usm_ndarray", "SyclQueue", "SyclEvent")),
    ("asyncio + threads", ("lock", "select", "_thread", "epoll")),
]


def _bucket(filename: str, funcname: str) -> str:
    if filename == "~":
        for b, keys in BUILTIN_BUCKETS:
            if any(k in funcname for k in keys):
                return b
        return "other builtins"
    for b, keys in BUCKETS:
        if any(k in filename for k in keys):
            return b
    return "other python"


#: (file name suffix, function) -> phase, for the inclusive ("cumulative") view
PHASES = {
    ("cubed/primitive/blockwise.py", "apply_blockwise"): "task",
    ("cubed/primitive/blockwise.py", "get_chunk"): "read",
    ("cubed/backend_array_api.py", "numpy_array_to_backend_array"): "h2d",
    ("cubed/backend_array_api.py", "backend_array_to_numpy_array"): "d2h",
    ("zarr/core/array.py", "__setitem__"): "write",
}


def summarise(stats: pstats.Stats, total: float) -> dict[str, object]:
    """The profile in two views: per phase of cubed's tasks (inclusive times), and
    exclusive time per bucket; plus the top functions by own time."""
    buckets: dict[str, float] = {}
    incl = dict.fromkeys(["task", "read", "h2d", "d2h", "write", "pickle"], 0.0)
    top = []
    raw = stats.stats  # type: ignore[attr-defined]
    for (filename, _line, func), (_cc, _nc, tt, ct, _callers) in raw.items():
        b = _bucket(filename, func)
        buckets[b] = buckets.get(b, 0.0) + tt
        for (suffix, name), phase in PHASES.items():
            if func == name and filename.endswith(suffix):
                incl[phase] += ct
        if ("pickle" in filename or "pickle" in func) and ("dumps" in func or "loads" in func):
            incl["pickle"] += ct
        top.append((tt, f"{Path(filename).name}:{func}" if filename != "~" else func, b))
    top.sort(reverse=True)
    phases = {
        "Zarr read (incl. decompression)": incl["read"] - incl["h2d"],
        "host->device (namespace.asarray of the chunk)": incl["h2d"],
        "chunk math (cubed's chunk functions on the backend)":
            incl["task"] - incl["read"] - incl["d2h"] - incl["write"],
        "device->host (np.asarray of the result)": incl["d2h"],
        "Zarr write (incl. compression)": incl["write"],
        "pickling": incl["pickle"],
        "outside tasks (planning, scheduling, result)": total - incl["task"],
    }
    return dict(buckets=buckets, phases=phases, tasks_s=incl["task"],
                top=[dict(own_s=t, func=f, bucket=b) for t, f, b in top[:15]])


def _plan(path: str, spec: object) -> tuple[object, object]:
    import cubed
    import cubed.array_api as cxp

    x = cubed.from_zarr(path, spec=spec)
    m = cxp.mean(x)
    return x, m


def _task_clock() -> object:
    """A cubed callback summing the tasks' function time (``busy``) and counting them."""
    from cubed.runtime.types import Callback

    class TaskClock(Callback):
        def __init__(self) -> None:
            self.busy = 0.0
            self.tasks = 0

        def on_task_end(self, event) -> None:  # type: ignore[no-untyped-def]
            self.tasks += event.num_tasks
            if event.function_start_tstamp and event.function_end_tstamp:
                self.busy += event.function_end_tstamp - event.function_start_tstamp

    return TaskClock()


def _run_plan(path: str, spec: object, executor: object,
              callbacks: list | None = None, **compute_kw: object) -> tuple[float, float]:
    import cubed.array_api as cxp

    x, m = _plan(path, spec)
    mval = m.compute(executor=executor, callbacks=callbacks, **compute_kw)  # type: ignore[attr-defined]
    s = cxp.sqrt(cxp.mean(cxp.square(x - float(mval))))  # type: ignore[operator]
    sval = s.compute(executor=executor, callbacks=callbacks, **compute_kw)
    return float(mval), float(sval)


def child(args: argparse.Namespace) -> dict[str, object]:
    t_import = time.perf_counter()
    import cubed
    from cubed.runtime.create import create_executor

    import_s = time.perf_counter() - t_import
    allowed = _parse_mem(args.allowed_mem)
    work = tempfile.mkdtemp(prefix="cubed-prof-", dir=args.work_dir)
    spec = cubed.Spec(work_dir=work, allowed_mem=allowed, reserved_mem=args.reserved_mem)
    if args.executor == "threads":
        ex = create_executor("threads", dict(max_workers=args.workers))
    else:
        ex = create_executor("single-threaded")
    single = create_executor("single-threaded")
    times, cpus, busy = [], [], []
    values = None
    tasks = 0
    for _ in range(args.repeats + 1):
        clock = _task_clock()
        w0, c0 = time.perf_counter(), time.process_time()
        values = _run_plan(args.data, spec, ex, [clock])
        times.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
        busy.append(clock.busy)  # type: ignore[attr-defined]
        tasks = clock.tasks  # type: ignore[attr-defined]
    prof = cProfile.Profile()
    w0 = time.perf_counter()
    prof.enable()
    _run_plan(args.data, spec, single)
    prof.disable()
    profiled_s = time.perf_counter() - w0
    summary = summarise(pstats.Stats(prof), profiled_s)
    shutil.rmtree(work, ignore_errors=True)
    import resource

    return dict(
        pool=_pool_stats(), import_s=import_s, first_s=times[0], times=times[1:], cpu=cpus[1:], busy=busy[1:],
        tasks=tasks,
        first_cpu=cpus[0], profiled_s=profiled_s, values=values,
        peak_rss=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, **summary,
    )


def _pool_stats() -> dict[str, int] | None:
    """The chunk pool's counters in this process (None: no pool was used)."""
    if "usmarray" not in sys.modules:
        return None
    import usmarray

    pool = usmarray.Device.create_device(None)._be.__dict__.get("_chunk_pool")
    if pool is None:
        return None
    return dict(hits=pool.hits, misses=pool.misses, idle_bytes=pool.idle_bytes())


def pool_ab(chunk: int = 5_000_000, count: int = 20, rounds: int = 7) -> str:
    """The chunk pool alone, in this process, on the SYCL CPU device: the time per chunk
    of what a cubed task does with a chunk read from Zarr (``asarray`` of a NumPy array,
    a ``sum`` over it, the result to the host), ``count`` chunks of ``chunk`` float32 per
    block, blocks alternating pool on, pool off, pool on (A/A), ``rounds`` times."""
    import gc

    import numpy as np

    import usmarray
    import usmarray.cubed as uc
    from usmarray import _cubed_placement as pl

    dev = usmarray.Device.create_device("cpu")
    hosts = [np.random.default_rng(i).random(chunk, dtype=np.float32) for i in range(4)]

    def block(pool_bytes: int) -> float:
        pl._policy = pl.Placement([dev], "auto", pool_bytes)
        gc.collect()
        t0 = time.perf_counter()
        for i in range(count):
            float(uc.sum(uc.asarray(hosts[i % 4])))
        return (time.perf_counter() - t0) / count * 1e3

    on, off, on2 = [], [], []
    block(pl.POOL_DEFAULT)
    block(0)  # warm-up: kernels loaded, the pool filled
    for _ in range(rounds):
        on.append(block(pl.POOL_DEFAULT))
        off.append(block(0))
        on2.append(block(pl.POOL_DEFAULT))
    m_on, m_off, m_on2 = (statistics.median(v) for v in (on, off, on2))
    return (f"per chunk of {chunk:.0e} float32 ({chunk * 4 / 1e6:.0f} MB): asarray + sum + "
            f"to host, median of {rounds} blocks of {count}: pool off {m_off:.2f} ms, pool on "
            f"{m_on:.2f} ms (off / on = {m_off / m_on:.2f}x; A/A on / on = "
            f"{m_on2 / m_on:.3f}); blocks off: " + ", ".join(f"{x:.1f}" for x in off)
            + "; on: " + ", ".join(f"{x:.1f}" for x in on))


def make_input(args: argparse.Namespace) -> None:
    """Write x = sin(1e-4 * arange(N)) as float32 to Zarr at ``args.data`` (NumPy)."""
    import cubed
    import cubed.array_api as cxp

    work = tempfile.mkdtemp(prefix="cubed-prof-", dir=args.work_dir)
    allowed = _parse_mem(args.allowed_mem)
    spec = cubed.Spec(work_dir=work, allowed_mem=allowed,
                      zarr_compressor=None if args.compressor == "none" else "default")
    i = cxp.arange(int(float(args.n)), dtype=cxp.int32, chunks=int(float(args.chunk)),
                   spec=spec)
    x = cxp.sin(cxp.astype(i, cxp.float32) * 1e-4)
    cubed.to_zarr(x, args.data)
    shutil.rmtree(work, ignore_errors=True)


def _env(backend: str, device: str | None, extra: dict[str, str] | None = None
         ) -> dict[str, str]:
    env = dict(os.environ, PYTHONUNBUFFERED="1", SYCL_CACHE_PERSISTENT="1")
    for k in ("CUBED_BACKEND_ARRAY_API_MODULE", "USMARRAY_DEFAULT_DEVICE",
              "USMARRAY_CUBED_POOL_BYTES"):
        env.pop(k, None)
    env.update(extra or {})
    if backend == "usmarray":
        env["CUBED_BACKEND_ARRAY_API_MODULE"] = "usmarray.cubed"
    if device:
        env["USMARRAY_DEFAULT_DEVICE"] = device
    return env


def _child_cmd(args: argparse.Namespace, *extra: str) -> list[str]:
    cmd = [sys.executable, "-m", "benchmarks.cubed_profile", "--n", str(args.n),
           "--allowed-mem", args.allowed_mem, "--chunk", str(args.chunk),
           "--data", args.data, "--repeats", str(args.repeats), "--executor",
           args.executor, "--workers", str(args.workers), "--reserved-mem",
           str(args.reserved_mem), "--compressor", args.compressor, *extra]
    if args.work_dir:
        cmd += ["--work-dir", args.work_dir]
    return cmd


def table(rows: list[dict], workers: int) -> str:
    """Markdown: timings per configuration, then the profile buckets side by side."""
    by: dict[str, list[dict]] = {}
    for r in rows:
        by.setdefault(r["label"], []).append(r)
    med = {k: statistics.median([t for r in v for t in r["times"]]) for k, v in by.items()}
    base = med.get("numpy")
    out = ["| configuration | processes | median (s) | vs numpy | runs | first run (s) | "
           "CPU/wall | idle | tasks | import (s) | peak RSS (GB) |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for k, v in by.items():
        ts = [t for r in v for t in r["times"]]
        cs = [c for r in v for c in r["cpu"]]
        bs = [c for r in v for c in r["busy"]]
        ratio = f"{med[k] / base:.3f}" if base else "-"
        out.append(
            f"| {k} | {len(v)} | {med[k]:.2f} | {ratio} | "
            + ", ".join(f"{t:.2f}" for t in ts)
            + f" | {statistics.median(r['first_s'] for r in v):.2f} | "
            f"{statistics.median(cs) / statistics.median(ts):.2f} | "
            + (f"{1 - statistics.median(bs) / (workers * statistics.median(ts)):.0%} | "
               if statistics.median(bs) > 0 else "- | ")
            + f"{v[0]['tasks']} | "
            f"{statistics.median(r['import_s'] for r in v):.2f} | "
            f"{max(r['peak_rss'] for r in v) / 1e9:.2f} |")
    np_runs = by.get("numpy", [])
    for k, v in by.items():
        if k != "numpy" and len(v) == len(np_runs) > 1:
            pr = [statistics.median(a["times"]) / statistics.median(b["times"])
                  for a, b in zip(v, np_runs, strict=True)]
            out.append(f"\nPaired by round, {k} / numpy: "
                       + ", ".join(f"{x:.3f}" for x in pr))
    for k, v in by.items():
        if v[0].get("pool"):
            out.append(f"\nChunk pool, {k}: " + "; ".join(
                f"{r['pool']['hits']} reused, {r['pool']['misses']} allocated, "
                f"{r['pool']['idle_bytes'] / 1e6:.0f} MB idle at the end" for r in v))
    if len(np_runs) >= 2:
        a = statistics.median(np_runs[0]["times"])
        b = statistics.median(np_runs[1]["times"])
        out.append(f"\nA/A: numpy process 2 / process 1 = {b / a:.3f} (medians {b:.2f} / "
                   f"{a:.2f} s)")
    names = [b for b, _ in BUCKETS] + [b for b, _ in BUILTIN_BUCKETS] + [
        "other builtins", "other python"]
    names = list(dict.fromkeys(names))
    out += ["", "Profile of one run (cProfile, single-threaded executor; own time per "
            "bucket, seconds; the first process of each configuration):", "",
            "| bucket | " + " | ".join(by) + " |", "|---|" + "---|" * len(by)]
    firsts = {k: v[0] for k, v in by.items()}
    for b in names:
        vals = [firsts[k]["buckets"].get(b, 0.0) for k in by]
        if max(vals) < 0.005:
            continue
        out.append(f"| {b} | " + " | ".join(f"{x:.2f}" for x in vals) + " |")
    out.append("| **total under the profiler** | " + " | ".join(
        f"{firsts[k]['profiled_s']:.2f}" for k in by) + " |")
    out += ["", "The same run by phase of cubed's tasks (inclusive times, seconds):", "",
            "| phase | " + " | ".join(by) + " |", "|---|" + "---|" * len(by)]
    for ph in firsts[next(iter(by))]["phases"]:
        out.append(f"| {ph} | " + " | ".join(
            f"{firsts[k]['phases'][ph]:.2f}" for k in by) + " |")
    for k, r in firsts.items():
        out += ["", f"Top functions by own time, {k}:", "", "| own (s) | function | bucket |",
                "|---|---|---|"]
        out += [f"| {t['own_s']:.3f} | `{t['func']}` | {t['bucket']} |" for t in r["top"][:10]]
    return "\n".join(out)


def plot(out: Path) -> Path:
    """``profile.png``: the phases of the profiled run per configuration, stacked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = json.loads((out / "profile.json").read_text())["rows"]
    firsts: dict[str, dict] = {}
    for r in rows:
        firsts.setdefault(r["label"], r)
    labels = list(firsts)
    phases = list(firsts[labels[0]]["phases"])
    fig, ax = plt.subplots(figsize=(10, 4.5))
    left = [0.0] * len(labels)
    for ph in phases:
        vals = [max(firsts[k]["phases"][ph], 0.0) for k in labels]
        ax.barh(labels, vals, left=left, label=ph)
        left = [a + b for a, b in zip(left, vals, strict=True)]
    ax.invert_yaxis()
    ax.set_xlabel("seconds (one run under cProfile, single-threaded executor)")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3)
    ax.set_title("mean + std of a float32 Zarr array with cubed: where the time goes")
    fig.tight_layout()
    dest = out / "profile.png"
    fig.savefig(dest, dpi=110)
    return dest


def parent(args: argparse.Namespace) -> None:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    data_dir = tempfile.mkdtemp(prefix="cubed-prof-data-", dir=args.work_dir)
    args.data = str(Path(data_dir) / "x.zarr")
    try:
        t0 = time.perf_counter()
        subprocess.run(_child_cmd(args, "--make-input"), env=_env("numpy", None), check=True)
        print(f"input written in {time.perf_counter() - t0:.1f} s", flush=True)
        rows = []
        order = [c for _ in range(args.rounds) for c in args.configs]
        for label in order:
            backend, device, extra = CONFIGS[label]
            p = subprocess.run(_child_cmd(args, "--child"), env=_env(backend, device, extra),
                               capture_output=True, text=True, timeout=args.timeout)
            if p.returncode != 0:
                print(p.stderr[-3000:], flush=True)
                raise SystemExit(f"{label} failed")
            r = json.loads(p.stdout.strip().splitlines()[-1])
            r["label"] = label
            print(label, [round(t, 2) for t in r["times"]], flush=True)
            rows.append(r)
            (out / "profile.json").write_text(json.dumps(dict(
                n=int(float(args.n)), allowed_mem=args.allowed_mem, chunk=args.chunk,
                executor=args.executor, workers=args.workers, compressor=args.compressor,
                rows=rows), indent=1))
        md = table(rows, args.workers if args.executor == 'threads' else 1)
        (out / "profile.md").write_text(md + "\n")
        print(md)
        plot(out)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", default="2e8")
    ap.add_argument("--allowed-mem", default="200MB")
    ap.add_argument("--reserved-mem", type=int, default=0)
    ap.add_argument("--chunk", default="5e6")
    ap.add_argument("--executor", default="threads", choices=("threads", "single-threaded"))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3, help="timed runs after the first")
    ap.add_argument("--rounds", type=int, default=2, help="processes per configuration")
    ap.add_argument("--configs", nargs="*", default=[c for c in CONFIGS if "cuda" not in c],
                    choices=list(CONFIGS))
    ap.add_argument("--work-dir", default=None)
    ap.add_argument("--compressor", default="default", choices=("default", "none"),
                    help="the input Zarr array's compressor: cubed's default or none")
    ap.add_argument("--data", default=None)
    ap.add_argument("--out", default=str(run_dir("cubed-profile")))
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--child", action="store_true")
    ap.add_argument("--make-input", action="store_true")
    ap.add_argument("--pool-ab", action="store_true",
                    help="only time chunks with the chunk pool on and off (SYCL CPU device)")
    ap.add_argument("--render", action="store_true",
                    help="only rewrite profile.md and profile.png from --out's profile.json")
    args = ap.parse_args()
    if args.pool_ab:
        text = pool_ab(int(float(args.chunk)))
        print(text)
        if args.out:
            Path(args.out).mkdir(parents=True, exist_ok=True)
            (Path(args.out) / "pool_ab.txt").write_text(text + "\n")
    elif args.render:
        out = Path(args.out)
        res = json.loads((out / "profile.json").read_text())
        md = table(res["rows"], res["workers"] if res["executor"] == "threads" else 1)
        (out / "profile.md").write_text(md + "\n")
        print(md, plot(out), sep="\n")
    elif args.make_input:
        make_input(args)
    elif args.child:
        print(json.dumps(child(args)))
    else:
        parent(args)


if __name__ == "__main__":
    main()
