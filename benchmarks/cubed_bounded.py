"""Bounded-memory benchmark of cubed on usmarray: chunked reductions of data larger
than the memory they may use.

The mean and standard deviation of an N-element float32 array that exists only chunk by
chunk (``x = sin(1e-4 * arange(N))``, made on the chunk's device), with data at least
4x the memory budget (``allowed_mem``) given to cubed.  The standard deviation is the
two-pass ``sqrt(mean((x - mean(x))**2))``: cubed's own ``std`` mixes int64 counts with
float64 means through array operators, which the array API standard does not define
and usmarray refuses (docs/scale-out.md), so both backends run this same formulation.

Each configuration runs in a fresh process (cubed reads its backend at import):
backend ``usmarray`` (``usmarray.cubed``) or ``numpy`` (cubed's default), executor
``threads`` or ``dask`` (a LocalCluster of worker processes on loopback), ``workers``
threads or processes, and for usmarray a device policy (``default``, or ``cpu/2``: two
SYCL sub-devices of the CPU, one per worker).  Reported: wall time, the peak memory cubed
measured in its tasks (the worker process' peak RSS: on the SYCL CPU device, USM
memory is host memory and counts), cubed's projected peak, and allowed_mem.

    python -m benchmarks.cubed_bounded --n 2e9 --allowed-mem 2GB --out DIR
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks._paths import run_dir

CONFIGS = [
    # (label, backend, executor, workers, devices)
    ("numpy threads x2", "numpy", "threads", 2, None),
    ("usmarray threads x2", "usmarray", "threads", 2, "default"),
    ("numpy dask 2 procs", "numpy", "dask", 2, None),
    ("usmarray dask 2 procs", "usmarray", "dask", 2, "default"),
    ("usmarray dask 1 proc, 1 sub-device", "usmarray", "dask", 1, "cpu/2"),
    ("usmarray dask 2 procs, 2 sub-devices", "usmarray", "dask", 2, "cpu/2"),
    ("usmarray threads x1, 1 sub-device", "usmarray", "threads", 1, "cpu/2"),
    ("usmarray threads x2, 2 sub-devices", "usmarray", "threads", 2, "cpu/2"),
]


def _parse_mem(s: str) -> int:
    units = {"KB": 10**3, "MB": 10**6, "GB": 10**9}
    for u, f in units.items():
        if s.upper().endswith(u):
            return int(float(s[:-2]) * f)
    return int(float(s))


def _peak_rss() -> int:
    """This process' peak resident set size in bytes (Linux: ru_maxrss is in KiB)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def child(args: argparse.Namespace) -> dict:
    """One configuration, in this process (the parent set the environment)."""
    import cubed
    import cubed.array_api as cxp
    from cubed.runtime.create import create_executor
    from cubed.runtime.types import Callback

    class Peak(Callback):
        def __init__(self) -> None:
            self.peak = 0
            self.tasks = 0
            self.projected = 0

        def on_compute_start(self, event) -> None:  # type: ignore[no-untyped-def]
            for _, d in event.dag.nodes(data=True):
                op = d.get("primitive_op")
                if op is not None:
                    self.projected = max(self.projected, op.projected_mem)

        def on_task_end(self, event) -> None:  # type: ignore[no-untyped-def]
            self.tasks += event.num_tasks
            if event.peak_measured_mem_end is not None:
                self.peak = max(self.peak, event.peak_measured_mem_end)

    n, allowed = int(float(args.n)), _parse_mem(args.allowed_mem)
    work = tempfile.mkdtemp(prefix="cubed-bench-", dir=args.work_dir)
    spec = cubed.Spec(work_dir=work, allowed_mem=allowed, reserved_mem=args.reserved_mem)
    cluster = None
    if args.executor == "dask":
        import distributed

        cluster = distributed.LocalCluster(
            n_workers=args.workers, threads_per_worker=1, processes=True, host="127.0.0.1",
            dashboard_address=None, memory_limit=allowed * 2, silence_logs=40,
        )
        ex = create_executor("dask", dict(compute_kwargs={"address": cluster.scheduler_address}))
    else:
        ex = create_executor("threads", dict(max_workers=args.workers))

    rss_before = _peak_rss()
    i = cxp.arange(n, dtype=cxp.int32, chunks=args.chunk, spec=spec)
    x = cxp.sin(cxp.astype(i, cxp.float32) * 1e-4)
    peak = Peak()
    t0 = time.perf_counter()
    m = cxp.mean(x)
    mval = m.compute(executor=ex, callbacks=[peak])
    t1 = time.perf_counter()
    s = cxp.sqrt(cxp.mean(cxp.square(x - float(mval))))
    sval = s.compute(executor=ex, callbacks=[peak])
    t2 = time.perf_counter()
    rss = _peak_rss()  # the threads executor's tasks run in this process
    if cluster is not None:
        with distributed.Client(cluster) as client:
            rss = max(client.run(_peak_rss).values())  # the workers' peaks
        cluster.close()
    return dict(
        n=n, nbytes=4 * n, allowed_mem=allowed, chunk=args.chunk, tasks=peak.tasks,
        mean=float(mval), std=float(sval), t_mean=t1 - t0, t_std=t2 - t1, t=t2 - t0,
        peak_measured_mem=max(peak.peak, rss), projected_mem=peak.projected,
        rss_before=rss_before,
        chunk_type=type(mval).__module__ + "." + type(mval).__name__,
    )


def parent(args: argparse.Namespace) -> None:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    dest = out / (args.name + ".json")
    rows = []
    for label, backend, executor, workers, devices in CONFIGS:
        if args.only and label not in args.only:
            continue
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        env["CUBED_BACKEND_ARRAY_API_MODULE"] = "usmarray.cubed" if backend == "usmarray" else ""
        if backend == "numpy":
            env.pop("CUBED_BACKEND_ARRAY_API_MODULE")
        if devices:
            env["USMARRAY_CUBED_DEVICES"] = devices
        cmd = [sys.executable, "-m", "benchmarks.cubed_bounded", "--child",
               "--n", str(args.n), "--allowed-mem", args.allowed_mem, "--chunk", str(args.chunk),
               "--executor", executor, "--workers", str(workers),
               "--reserved-mem", str(args.reserved_mem)]
        if args.work_dir:
            cmd += ["--work-dir", args.work_dir]
        print(f"== {label}", flush=True)
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=args.timeout)
        if p.returncode != 0:
            print(p.stdout[-2000:], p.stderr[-4000:], flush=True)
            rows.append(dict(label=label, error=p.stderr.strip().splitlines()[-1:]))
            continue
        r = json.loads(p.stdout.strip().splitlines()[-1])
        r.update(label=label, backend=backend, executor=executor, workers=workers,
                 devices=devices or "-")
        print(json.dumps(r), flush=True)
        rows.append(r)
        dest.write_text(json.dumps(rows, indent=1))


def plot(out: Path) -> Path:
    """``bounded.png``: time and peak memory (vs allowed_mem) per configuration, from
    ``bounded.json`` and ``subdevices.json`` in ``out``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = []
    for name in ("bounded", "subdevices"):
        f = out / f"{name}.json"
        if f.exists():
            rows += [dict(r, set=name) for r in json.loads(f.read_text()) if "t" in r]
    fig, axes = plt.subplots(1, 2, figsize=(12, 0.5 * len(rows) + 2), sharey=True)
    labels = [f"{r['label']}  (N={r['n']:.0e})" for r in rows]
    ys = range(len(rows))
    colors = ["tab:blue" if r["backend"] == "numpy" else "tab:orange" for r in rows]
    axes[0].barh(ys, [r["t"] for r in rows], color=colors)
    axes[0].set_xlabel("wall time, mean + std passes (s)")
    axes[0].set_yticks(list(ys), labels)
    axes[0].invert_yaxis()
    axes[1].barh(ys, [r["peak_measured_mem"] / 1e9 for r in rows], color=colors,
                 label="peak RSS of a task's process")
    axes[1].scatter([r["projected_mem"] / 1e9 for r in rows], list(ys), color="k", marker="|",
                    s=200, label="cubed's projected task memory", zorder=3)
    for r, y in zip(rows, ys, strict=True):
        axes[1].plot([r["allowed_mem"] / 1e9] * 2, [y - 0.4, y + 0.4], color="red")
    axes[1].set_xlabel("GB (red: allowed_mem)")
    axes[1].legend(loc="lower right", fontsize=8)
    fig.suptitle("mean and std of sin(1e-4 * arange(N)) float32 with cubed, "
                 "data = 4 x allowed_mem for the 1e9 runs (blue: NumPy, orange: usmarray)")
    fig.tight_layout()
    dest = out / "bounded.png"
    fig.savefig(dest, dpi=110)
    return dest


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", default="2e9")
    ap.add_argument("--allowed-mem", default="2GB")
    ap.add_argument("--reserved-mem", type=int, default=0)
    ap.add_argument("--chunk", type=int, default=25_000_000)
    ap.add_argument("--executor", default="threads")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--work-dir", default=None)
    ap.add_argument("--out", default=str(run_dir("cubed-bounded")))
    ap.add_argument("--only", nargs="*", default=None, help="run only these labels (exact)")
    ap.add_argument("--timeout", type=int, default=1800)
    ap.add_argument("--name", default="bounded", help="results file name (no .json)")
    ap.add_argument("--child", action="store_true")
    ap.add_argument("--plot", action="store_true", help="only plot the results in --out")
    args = ap.parse_args()
    if args.plot:
        print(plot(Path(args.out)))
    elif args.child:
        print(json.dumps(child(args)))
    else:
        parent(args)


if __name__ == "__main__":
    main()
