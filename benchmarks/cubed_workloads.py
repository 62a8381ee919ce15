"""Two bounded-memory workloads of cubed on usmarray, side by side on one host.

- ``chain`` (compute-heavy): ``mean(f(x))`` of an N-element float32 array
  ``x = 20 * i / N - 10`` that exists only chunk by chunk (cubed's virtual ``arange``,
  made on the chunk's device), with ``f`` a chain of transcendental functions:
  ``sin(x) cos(x/2) + exp(-|x|) tanh(x) + log1p(x^2) + sqrt(|sin(3x)|) + atan(x)``.
  ``x`` feeds seven operations, and cubed stores an array that several operations use;
  with cubed's default optimizer, some of the tree's arrays go to Zarr as well (a
  fused task reads at most four source arrays). ``--fuse wide`` fuses the whole tree
  and the first reduction step into one task per chunk, so only ``x`` is written and
  read back (``optimize_function``).
- ``chain-blocks``: the same ``f`` written as one function applied chunk by chunk
  (``cubed.map_blocks``), the way a chain of elementwise steps on one array is handed
  to a chunked engine: with ``--fuse wide`` the source, ``f`` and the first reduction
  step are one task per chunk and nothing is stored (two operations in the plan).
- ``meanstd`` (storage-bound): the mean and the two-pass standard deviation of a float32
  Zarr array on local disk (the plan of ``benchmarks.cubed_profile``, whose input writer
  and plan this reuses).

Configurations, each in a fresh process (cubed reads its backend at import), in the
order given, with cubed's threads executor: ``numpy`` (cubed's default backend, NumPy
over ``--workers`` threads), ``usmarray numpy`` (``usmarray.cubed`` on the NumPy
backend), ``usmarray sycl-cpu`` (the SYCL OpenCL CPU device), ``usmarray cuda:0`` (one
GPU, chunks in managed memory), the usmarray device configurations over
``--device-workers`` threads.  Each process runs the plan once (the first run: kernel
compilation, program-cache loads) and then ``--repeats`` timed runs.  Reported: the
times, the value (checked against the ``numpy`` configuration), the process' peak RSS
and its RSS before the first run, and on a CUDA device the peak of the device memory
in use (``cudaMemGetInfo``, sampled every 10 ms, including the CUDA context and
CuPy's pool) and its value before the first run.  A configuration that fails is
reported with its error and the others still run.

    python -m benchmarks.cubed_workloads --workload chain --n 2e8 --allowed-mem 200MB \\
        --chunk 5e6 --out DIR
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from benchmarks._paths import run_dir
from benchmarks.cubed_bounded import _parse_mem, _peak_rss
from benchmarks.cubed_profile import _env

#: label -> (backend, USMARRAY_DEFAULT_DEVICE, uses --device-workers)
CONFIGS: dict[str, tuple[str, str | None, bool]] = {
    "numpy": ("numpy", None, False),
    "usmarray numpy": ("usmarray", "numpy", False),
    "usmarray sycl-cpu": ("usmarray", "cpu", True),
    "usmarray cuda:0": ("usmarray", "cuda:0", True),
}


def chain_f(x: Any) -> Any:
    """``f(x)`` of the chain (module docstring) in ``x``'s own namespace: cubed's array
    module for the whole array, NumPy or usmarray for one chunk."""
    xp = x.__array_namespace__()
    return (xp.sin(x) * xp.cos(0.5 * x) + xp.exp(-xp.abs(x)) * xp.tanh(x)
            + xp.log1p(x * x) + xp.sqrt(xp.abs(xp.sin(3.0 * x))) + xp.atan(x))


def chain_plan(n: int, chunk: int, spec: object, blocks: bool = False) -> object:
    """The compute-heavy plan: a cubed array holding ``mean(f(x))`` (module docstring);
    with ``blocks``, ``f`` is one function applied to each chunk (``cubed.map_blocks``),
    so ``x`` has one user and nothing is stored between the source and the mean."""
    import cubed
    import cubed.array_api as cxp

    i = cxp.arange(n, dtype=cxp.int32, chunks=chunk, spec=spec)
    x = cxp.astype(i, cxp.float32) * (20.0 / n) - 10.0
    t = cubed.map_blocks(chain_f, x, dtype=cxp.float32) if blocks else chain_f(x)
    return cxp.mean(t)


def optimize_function(fuse: str) -> object:
    """cubed's graph optimizer for ``--fuse``.

    ``cubed`` is its default: a fused group reads at most 4 source arrays, so the chain's
    tree of operations on ``x`` leaves some of its arrays in Zarr (five intermediate
    arrays in all at N = 4e7, against two with ``wide``). ``wide`` lets one task read up
    to 32 source arrays and 64 input blocks, so the whole tree and the first reduction step are one task per chunk
    and only ``x`` (used by seven operations, which cubed never recomputes) is stored."""
    if fuse == "cubed":
        return None
    from functools import partial

    from cubed.core.optimization import multiple_inputs_optimize_dag

    return partial(multiple_inputs_optimize_dag, max_total_source_arrays=32,
                   max_total_num_input_blocks=64)


def dedupe_chunk_reads() -> None:
    """An experiment that patches cubed (0.27-0.28) in this process: a task reads each
    (array, chunk) it needs once.  cubed's fused task reads a chunk once per use of its
    array (the chain's ``x`` eight times a task, ``x * x`` counting twice; profiled on an
    H100 host, those reads were 7.7 of the GPU's 8.5 s), and holds every read at once.  This measures what
    reading each chunk once would give; it is not a configuration to ship."""
    import cubed.primitive.blockwise as bw

    local = threading.local()
    read, scope = bw.get_chunk, bw.get_results_in_different_scope

    def get_chunk(in_key: Any, config: Any) -> Any:
        memo = getattr(local, "memo", None)
        if memo is None:
            return read(in_key, config)
        k = (in_key.name, tuple(in_key.coords))
        if k not in memo:
            memo[k] = read(in_key, config)
        return memo[k]

    def scoped(out_coords: Any, *, config: Any) -> Any:
        local.memo = {}
        try:
            return scope(out_coords, config=config)
        finally:
            local.memo = None

    bw.get_chunk = get_chunk
    bw.get_results_in_different_scope = scoped


def chain_reference(n: int) -> float:
    """``mean(f(x))`` in float64 NumPy, for a small ``n`` (tests)."""
    import numpy as np

    x = (np.arange(n, dtype=np.int32).astype(np.float32) * np.float32(20.0 / n)
         - np.float32(10.0)).astype(np.float64)
    f = (np.sin(x) * np.cos(0.5 * x) + np.exp(-np.abs(x)) * np.tanh(x) + np.log1p(x * x)
         + np.sqrt(np.abs(np.sin(3.0 * x))) + np.arctan(x))
    return float(f.mean())


class DeviceMemory:
    """The peak of a CUDA device's memory in use (total - free), sampled by a thread."""

    def __init__(self, period: float = 0.01) -> None:
        import cupy

        self._rt = cupy.cuda.runtime
        self.period = period
        self.peak = self.now()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def now(self) -> int:
        free, total = self._rt.memGetInfo()
        return int(total - free)

    def _run(self) -> None:
        while not self._stop.wait(self.period):
            self.peak = max(self.peak, self.now())

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return max(self.peak, self.now())


def _projected() -> object:
    """A cubed callback keeping the largest projected task memory of the plans it sees."""
    from cubed.runtime.types import Callback

    class Projected(Callback):
        projected = 0

        def on_compute_start(self, event) -> None:  # type: ignore[no-untyped-def]
            for _, d in event.dag.nodes(data=True):
                op = d.get("primitive_op")
                if op is not None:
                    self.projected = max(self.projected, op.projected_mem)

    return Projected()


def probe(n: int = 5_000_000, reps: int = 15) -> str:
    """Why the SYCL CPU device is slower on the chain: one elementwise kernel on ``n``
    float32 (20 MB) into a fresh output (what every operation of a plan does), into an
    output already touched (``out=``), and NumPy's own, medians in ms."""
    import dpctl
    import dpnp.tensor as dpt
    import numpy as np

    import usmarray  # noqa: F401 - points the OpenCL loader at the CPU runtime

    q = dpctl.SyclQueue("cpu", property="in_order")
    h = np.arange(n, dtype=np.float32) * np.float32(20 / n) - np.float32(10)
    x = dpt.asarray(h, sycl_queue=q)
    out = dpt.empty_like(x)
    out[...] = 0

    def med(f: object) -> float:
        ts = []
        for _ in range(reps):
            t0 = time.perf_counter()
            f()  # type: ignore[operator]
            q.wait()
            ts.append(time.perf_counter() - t0)
        return statistics.median(ts) * 1e3

    lines = [f"one kernel on {n:.0e} float32, median of {reps} (ms): SYCL CPU fresh output | "
             "SYCL CPU into a touched output | NumPy"]
    for name in ("sin", "exp", "multiply"):
        f, nf = getattr(dpt, name), getattr(np, name)
        args = (x, x) if name == "multiply" else (x,)
        hargs = (h, h) if name == "multiply" else (h,)
        lines.append(f"{name}: {med(lambda: f(*args)):.2f} | "  # noqa: B023
                     f"{med(lambda: f(*args, out=out)):.2f} | "  # noqa: B023
                     f"{med(lambda: nf(*hargs)):.2f}")  # noqa: B023
    return "\n".join(lines)


def child(args: argparse.Namespace) -> dict[str, object]:
    import cubed
    from cubed.runtime.create import create_executor

    from benchmarks.cubed_profile import _run_plan

    if os.environ.get("CUBED_BACKEND_ARRAY_API_MODULE"):
        import usmarray

        usmarray.asarray([1.0]) + 1.0  # the device initialised before the baseline
    device = os.environ.get("USMARRAY_DEFAULT_DEVICE", "")
    devmem = DeviceMemory() if device.startswith("cuda") else None
    dev_before = devmem.now() if devmem else None
    rss_before = _peak_rss()
    n, allowed = int(float(args.n)), _parse_mem(args.allowed_mem)
    work = tempfile.mkdtemp(prefix="cubed-wl-", dir=args.work_dir)
    # cubed's own default is left unset: cubed 0.28 refuses the string "default" it names
    extra = {"zarr_compressor": None} if args.intermediates == "none" else {}
    spec = cubed.Spec(work_dir=work, allowed_mem=allowed, reserved_mem=args.reserved_mem,
                      **extra)
    ex = create_executor("threads", dict(max_workers=args.workers))
    opt = optimize_function(args.fuse)
    if args.dedupe_reads:
        dedupe_chunk_reads()
    kw = {} if opt is None else {"optimize_function": opt}
    proj = _projected()
    times, cpus, values = [], [], []
    try:
        for _ in range(args.repeats + 1):
            t0, c0 = time.perf_counter(), time.process_time()
            if args.workload in ("chain", "chain-blocks"):
                plan = chain_plan(n, int(float(args.chunk)), spec,
                                  blocks=args.workload == "chain-blocks")
                v: object = float(plan.compute(  # type: ignore[attr-defined]
                    executor=ex, callbacks=[proj], **kw))
            else:
                v = _run_plan(args.data, spec, ex, [proj], **kw)
            times.append(time.perf_counter() - t0)
            cpus.append(time.process_time() - c0)
            values.append(v)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return dict(first_s=times[0], times=times[1:], cpu=cpus[1:], value=values[-1],
                peak_rss=_peak_rss(),
                projected_mem=proj.projected,  # type: ignore[attr-defined]
                rss_before=rss_before, device_peak=devmem.stop() if devmem else None,
                device_before=dev_before)


def _close(a: object, b: object, rtol: float) -> bool:
    if isinstance(a, (list, tuple)):
        return all(_close(x, y, rtol) for x, y in zip(a, b, strict=True))  # type: ignore[call-overload]
    return abs(float(a) - float(b)) <= rtol * max(abs(float(b)), 1e-30)  # type: ignore[arg-type]


def table(res: dict) -> str:
    """Markdown: one row per process, then per configuration the median over all its
    timed runs against ``numpy``'s (a ratio above 1: faster than cubed on NumPy), and
    the A/A ratio of two ``numpy`` processes where there are two."""
    rows = res["rows"]
    ok = [r for r in rows if "times" in r]
    by: dict[str, list[float]] = {}
    for r in ok:
        by.setdefault(r["label"], []).extend(r["times"])
    base = statistics.median(by["numpy"]) if "numpy" in by else None
    ref = next((r["value"] for r in ok if r["label"] == "numpy"), None)
    out = [f"{res['workload']}: N = {res['n']:.3g} float32 ({4 * res['n'] / 1e9:.2f} GB), "
           f"allowed_mem {res['allowed_mem']}, chunks of {float(res['chunk']):.3g} elements, "
           f"threads executor"
           + (f"; input compressor: {res['compressor']}" if res.get("compressor") else "")
           + f"; fusion: {res.get('fuse', 'cubed')}; intermediates' compressor: "
           f"{res.get('intermediates', 'default')}"
           + ("; each chunk read once a task (cubed patched: dedupe_chunk_reads)"
              if res.get("dedupe_reads") else "")
           + f"; {res['host']}", "",
           "| configuration | threads | median (s) | numpy / this | runs (s) | first run (s) | "
           "value agrees | peak RSS (GB) | RSS before (GB) | cubed's projected task (GB) | "
           "peak device mem (GB) | device mem before (GB) |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "times" not in r:
            out.append(f"| {r['label']} | {r.get('workers', '-')} | failed: "
                       f"{r['error'][:300]} |" + " |" * 9)
            continue
        med = statistics.median(r["times"])
        agree = "-" if ref is None else ("yes" if _close(r["value"], ref, 1e-3) else
                                         f"NO: {r['value']} vs {ref}")
        dev = (f"{r['device_peak'] / 1e9:.2f} | {r['device_before'] / 1e9:.2f}"
               if r.get("device_peak") is not None else "- | -")
        out.append(
            f"| {r['label']} | {r['workers']} | {med:.2f} | "
            + (f"{base / med:.2f}x" if base else "-") + " | "
            + ", ".join(f"{t:.2f}" for t in r["times"])
            + f" | {r['first_s']:.2f} | {agree} | {r['peak_rss'] / 1e9:.2f} | "
            f"{r['rss_before'] / 1e9:.2f} | "
            + (f"{r['projected_mem'] / 1e9:.3f}" if r.get("projected_mem") else "-")
            + f" | {dev} |")
    cpu: dict[str, list[float]] = {}
    for r in ok:
        cpu.setdefault(r["label"], []).extend(r.get("cpu", []))
    if base and any(len([r for r in ok if r["label"] == k]) > 1 for k in by):
        cbase = statistics.median(cpu["numpy"]) if cpu.get("numpy") else None
        out += ["", "| configuration | median of all runs (s) | numpy / this | process CPU "
                "time, median (s) | numpy / this, CPU time |", "|---|---|---|---|---|"]
        for k, v in by.items():
            c = statistics.median(cpu[k]) if cpu.get(k) else None
            out.append(f"| {k} | {statistics.median(v):.2f} | {base / statistics.median(v):.2f}x"
                       + (f" | {c:.2f} | {cbase / c:.2f}x |" if c and cbase else " | - | - |"))
    nps = [statistics.median(r["times"]) for r in ok if r["label"] == "numpy"]
    if len(nps) >= 2:
        out.append(f"\nA/A: numpy process 2 / process 1 = {nps[1] / nps[0]:.3f}")
    if res.get("probe"):
        out += ["", res["probe"]]
    return "\n".join(out)


def plot(out: Path, name: str) -> Path:
    """``<name>.png``: median time and peak RSS (against allowed_mem) per configuration."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    res = json.loads((out / f"{name}.json").read_text())
    rows = [r for r in res["rows"] if "times" in r]
    fig, axes = plt.subplots(1, 2, figsize=(11, 0.5 * len(rows) + 2), sharey=True)
    ys = list(range(len(rows)))
    axes[0].barh(ys, [statistics.median(r["times"]) for r in rows])
    axes[0].set_yticks(ys, [f"{r['label']} ({r['workers']} thr)" for r in rows])
    axes[0].invert_yaxis()
    axes[0].set_xlabel("median wall time (s)")
    axes[1].barh(ys, [r["peak_rss"] / 1e9 for r in rows], label="peak RSS")
    axes[1].barh(ys, [r["rss_before"] / 1e9 for r in rows], label="RSS before the run")
    allowed = _parse_mem(res["allowed_mem"]) / 1e9
    axes[1].axvline(allowed, color="red", label="allowed_mem")
    axes[1].set_xlabel("GB")
    axes[1].legend(fontsize=8)
    fig.suptitle(f"cubed, {res['workload']}: N={res['n']:.2g} float32, "
                 f"allowed_mem {res['allowed_mem']} ({res['host']})", fontsize=9)
    fig.tight_layout()
    dest = out / f"{name}.png"
    fig.savefig(dest, dpi=110)
    plt.close(fig)
    return dest


def _host() -> str:
    import platform

    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} CPUs"


def parent(args: argparse.Namespace) -> dict:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    name = args.name or args.workload
    data_dir = tempfile.mkdtemp(prefix="cubed-wl-data-", dir=args.work_dir)
    res: dict = dict(workload=args.workload, n=int(float(args.n)), allowed_mem=args.allowed_mem,
                     chunk=args.chunk, host=_host(), rows=[],
                     compressor=args.compressor if args.workload == "meanstd" else None,
                     fuse=args.fuse, intermediates=args.intermediates,
                     dedupe_reads=args.dedupe_reads)
    try:
        if args.workload == "meanstd":  # written once, by cubed on NumPy
            args.data = str(Path(data_dir) / "x.zarr")
            t0 = time.perf_counter()
            cmd = [sys.executable, "-m", "benchmarks.cubed_profile", "--make-input",
                   "--n", str(args.n), "--chunk", str(args.chunk), "--allowed-mem",
                   args.allowed_mem, "--data", args.data, "--compressor", args.compressor]
            if args.work_dir:
                cmd += ["--work-dir", args.work_dir]
            subprocess.run(cmd, env=_env("numpy", None), check=True, timeout=args.timeout)
            print(f"input written in {time.perf_counter() - t0:.1f} s", flush=True)
        if args.probe:
            try:
                res["probe"] = probe()
            except Exception as exc:  # noqa: BLE001 - needs dpctl; reported
                res["probe"] = f"probe failed: {type(exc).__name__}: {exc}"
        for label in [c for _ in range(args.rounds) for c in args.configs]:
            backend, device, on_device = CONFIGS[label]
            workers = args.device_workers if on_device else args.workers
            cmd = [sys.executable, "-m", "benchmarks.cubed_workloads", "--child",
                   "--workload", args.workload, "--n", str(args.n), "--chunk", str(args.chunk),
                   "--allowed-mem", args.allowed_mem, "--reserved-mem", str(args.reserved_mem),
                   "--repeats", str(args.repeats), "--workers", str(workers),
                   "--fuse", args.fuse, "--intermediates", args.intermediates,
                   *(["--dedupe-reads"] if args.dedupe_reads else [])]
            if args.data:
                cmd += ["--data", args.data]
            if args.work_dir:
                cmd += ["--work-dir", args.work_dir]
            row: dict = dict(label=label, workers=workers)
            try:
                p = subprocess.run(cmd, env=_env(backend, device), capture_output=True,
                                   text=True, timeout=args.timeout)
                if p.returncode != 0:
                    tail = (p.stderr.strip().splitlines() or ["(no output)"])[-1]
                    row["error"] = f"exit {p.returncode}: {tail}"
                    print(p.stderr[-3000:], flush=True)
                else:
                    row.update(json.loads(p.stdout.strip().splitlines()[-1]))
            except subprocess.TimeoutExpired:
                row["error"] = f"timed out after {args.timeout} s"
            except Exception as exc:  # noqa: BLE001 - one configuration, reported
                row["error"] = f"{type(exc).__name__}: {exc}"
            print(label, row.get("error") or [round(t, 2) for t in row["times"]], flush=True)
            res["rows"].append(row)
            (out / f"{name}.json").write_text(json.dumps(res, indent=1))
        md = table(res)
        (out / f"{name}.md").write_text(md + "\n")
        print(md, flush=True)
        if not args.no_plot and any("times" in r for r in res["rows"]):
            try:
                plot(out, name)
            except Exception as exc:  # noqa: BLE001 - the table is written already
                print(f"plot failed: {exc}", flush=True)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workload", choices=("chain", "chain-blocks", "meanstd"), default="chain")
    ap.add_argument("--n", default="2e8")
    ap.add_argument("--allowed-mem", default="200MB")
    ap.add_argument("--reserved-mem", type=int, default=0)
    ap.add_argument("--chunk", default="5e6")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="threads of cubed's executor for numpy and usmarray numpy")
    ap.add_argument("--device-workers", type=int, default=2,
                    help="threads of cubed's executor for the usmarray device configurations")
    ap.add_argument("--repeats", type=int, default=2, help="timed runs after the first")
    ap.add_argument("--rounds", type=int, default=1, help="processes per configuration")
    ap.add_argument("--configs", nargs="*", default=list(CONFIGS)[:3], choices=list(CONFIGS))
    ap.add_argument("--work-dir", default=None)
    ap.add_argument("--compressor", default="default", choices=("default", "none"),
                    help="meanstd: the input Zarr array's compressor, cubed's default or none")
    ap.add_argument("--fuse", default="cubed", choices=("cubed", "wide"),
                    help="cubed's graph optimizer: its default, or wide fusion "
                         "(optimize_function's docstring)")
    ap.add_argument("--intermediates", default="default", choices=("default", "none"),
                    help="the compressor of cubed's intermediate Zarr arrays "
                         "(Spec's zarr_compressor): cubed's default or none")
    ap.add_argument("--dedupe-reads", action="store_true",
                    help="experiment: patch cubed so that a task reads each chunk once "
                         "(dedupe_chunk_reads)")
    ap.add_argument("--data", default=None)
    ap.add_argument("--out", default=str(run_dir("cubed-workloads")))
    ap.add_argument("--name", default=None, help="file stem of the results (default: workload)")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per configuration")
    ap.add_argument("--no-plot", action="store_true")
    ap.add_argument("--probe", action="store_true",
                    help="also time one SYCL CPU kernel into fresh and touched outputs")
    ap.add_argument("--render", action="store_true",
                    help="only rewrite the table and figure from --out's JSON")
    ap.add_argument("--child", action="store_true")
    args = ap.parse_args()
    if args.repeats < 1:
        ap.error("--repeats must be at least 1 (the first run is reported apart)")
    if args.render:
        name = args.name or args.workload
        md = table(json.loads((Path(args.out) / f"{name}.json").read_text()))
        (Path(args.out) / f"{name}.md").write_text(md + "\n")
        print(md, plot(Path(args.out), name), sep="\n")
    elif args.child:
        print(json.dumps(child(args)))
    else:
        parent(args)


if __name__ == "__main__":
    main()
