"""Bounded-memory workloads of cubed on usmarray, side by side on one host.

- ``chain`` (compute-heavy): ``mean(f(x))`` of an N-element float32 array
  ``x = 20 * i / N - 10`` that exists only chunk by chunk (cubed's virtual ``arange``,
  made on the chunk's device), with ``f`` a chain of transcendental functions written
  operation by operation:
  ``sin(x) cos(x/2) + exp(-|x|) tanh(x) + log1p(x^2) + sqrt(|sin(3x)|) + atan(x)``.
  ``x`` feeds seven operations; cubed's default optimizer stores ``x`` and parts of the
  tree, usmarray's (``--fuse usmarray``, ``usmarray.cubed.optimize``) recomputes ``x``
  in each reader and runs the chain and the mean's first step as one task per chunk.
- ``chain-blocks``: the same ``f`` written as one function applied chunk by chunk
  (``cubed.map_blocks``).
- ``meanstd`` (storage-bound): the mean and the two-pass standard deviation of a float32
  Zarr array on local disk (the plan of ``benchmarks.cubed_profile``, whose input writer
  and plan this reuses).
- ``meanstd-gen``: the mean and two-pass standard deviation, in one plan
  (``cubed.compute(m, s)``, ``s = sqrt(mean(square(x - m)))``), of
  ``x = sin(1e-4 * i)`` made chunk by chunk from ``arange``.

Configurations, each in a fresh process (cubed reads its backend at import), in the
order given, with cubed's threads executor: ``numpy`` (cubed's default backend, NumPy
over ``--workers`` threads, chunks of ``--host-chunk``: the anchor), ``usmarray numpy``
(``usmarray.cubed`` on the NumPy backend), ``usmarray sycl-cpu`` (the SYCL OpenCL CPU
device), ``usmarray cuda:0`` (one GPU), ``usmarray all-cuda`` (every GPU of the host,
``USMARRAY_CUBED_DEVICES=cuda:0,cuda:1,...``); the device configurations run
``--device-workers`` threads per device.  usmarray's configurations keep intermediates
in ``usmarray.cubed.device_store()`` (``--store device``, the recipe of
docs/scale-out.md) or in Zarr in the work directory (``--store zarr``).  Each process
runs the plan once (the first run: kernel compilation or the on-disk kernel cache,
program loads) and then ``--repeats`` timed runs; the best of them is the figure.
Reported: the times, the value (checked against the ``numpy`` configuration), the
process' peak RSS and its RSS before the first run, cubed's projected task memory, the
device store's peak bytes per device, and on CUDA devices the peak of each device's
memory in use (``cudaMemGetInfo``, sampled every 10 ms, with the CUDA context and
CuPy's pool) and of CuPy's pool (``used_bytes``, ``total_bytes``).  A configuration that
fails is reported with its error and the others still run.

    python -m benchmarks.cubed_workloads --workload chain meanstd-gen --n 2e8 \\
        --allowed-mem 200MB --chunk 5e6 --out DIR
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
from typing import Any, NamedTuple

from benchmarks._paths import run_dir
from benchmarks.cubed_bounded import _parse_mem, _peak_rss
from benchmarks.cubed_profile import _env


class Config(NamedTuple):
    """A configuration: cubed's backend, ``USMARRAY_DEFAULT_DEVICE``, whether it runs
    ``--device-workers`` threads per device, and ``USMARRAY_CUBED_DEVICES``
    (``all-cuda``: every GPU of the host)."""

    backend: str
    device: str | None
    on_device: bool
    devices: str | None = None


CONFIGS: dict[str, Config] = {
    "numpy": Config("numpy", None, False),
    "usmarray numpy": Config("usmarray", "numpy", False),
    "usmarray sycl-cpu": Config("usmarray", "cpu", True),
    "usmarray cuda:0": Config("usmarray", "cuda:0", True),
    "usmarray all-cuda": Config("usmarray", "cuda:0", True, "all-cuda"),
}
WORKLOADS = ("chain", "chain-blocks", "meanstd", "meanstd-gen")
#: the larger-than-a-device run (``--beyond-device``): 4e10 float32 (160 GB)
BEYOND_DEVICE_N = "4e10"
#: its chunks: with int64 indices (N > 2**31) and ``allowed_mem`` 2 GB, usmarray's
#: optimizer fuses the chain and the mean's first step up to 4e7 elements a chunk; at
#: 5e7 the fused task's projection passes 2 GB and three 160 GB arrays are stored
BEYOND_DEVICE_CHUNK = "4e7"


def _index_dtype(n: int) -> Any:
    """int32 for the indices of ``arange(n)`` where they fit (as the float32 data is made
    from them), else int64 (the larger-than-a-device run)."""
    import cubed.array_api as cxp

    return cxp.int32 if n <= 2**31 else cxp.int64


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

    i = cxp.arange(n, dtype=_index_dtype(n), chunks=chunk, spec=spec)
    x = cxp.astype(i, cxp.float32) * (20.0 / n) - 10.0
    t = cubed.map_blocks(chain_f, x, dtype=cxp.float32) if blocks else chain_f(x)
    return cxp.mean(t)


def optimize_function(fuse: str) -> object:
    """cubed's graph optimizer for ``--fuse``.

    ``cubed`` is cubed's default (``multiple_inputs_optimize_dag``, given explicitly so
    that a device store's default does not replace it): a fused group reads at most 4
    source arrays and 10 input blocks, so the chain leaves ``x`` and parts of its tree in
    storage.  ``wide`` lets one task read up to 32 source arrays and 64 input blocks: the
    tree and the first reduction step fuse, and only ``x`` (used by seven operations,
    which cubed never recomputes) is stored.  ``usmarray`` is ``usmarray.cubed.optimize``:
    ``x`` is recomputed in each reader, so nothing but the mean's partial results is
    stored."""
    from cubed.core.optimization import multiple_inputs_optimize_dag

    if fuse == "cubed":
        return multiple_inputs_optimize_dag
    if fuse == "usmarray":
        from usmarray.cubed import optimize

        return optimize
    from functools import partial

    return partial(multiple_inputs_optimize_dag, max_total_source_arrays=32,
                   max_total_num_input_blocks=64)


def meanstd_gen_plan(n: int, chunk: int, spec: object) -> tuple[object, object]:
    """The mean and two-pass standard deviation of ``x = sin(1e-4 * i)`` (float32, made
    chunk by chunk from ``arange``), as two cubed arrays of one plan."""
    import cubed.array_api as cxp

    i = cxp.arange(n, dtype=_index_dtype(n), chunks=chunk, spec=spec)
    x = cxp.sin(cxp.astype(i, cxp.float32) * 1e-4)
    m = cxp.mean(x)
    return m, cxp.sqrt(cxp.mean(cxp.square(x - m)))


def meanstd_reference(n: int) -> list[float]:
    """The mean and standard deviation of ``meanstd_gen_plan``'s ``x`` in float64 NumPy."""
    import numpy as np

    x = np.sin(np.arange(n, dtype=np.int32).astype(np.float32) * np.float32(1e-4))
    return [float(np.mean(x, dtype=np.float64)), float(np.std(x, dtype=np.float64))]


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
    """The peaks of CUDA devices' memory in use (total - free, with the CUDA context)
    and of CuPy's pool on them (``used_bytes``, ``total_bytes``), sampled by a thread."""

    def __init__(self, devices: list[int], period: float = 0.01) -> None:
        import cupy

        self._cp = cupy
        self.devices = devices
        self.period = period
        self.before = self.now()
        self.peak = list(self.before)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def now(self) -> list[tuple[int, int, int]]:
        """Per device: (in use, CuPy pool used, CuPy pool total), bytes."""
        cp, pool, out = self._cp, self._cp.get_default_memory_pool(), []
        for d in self.devices:
            with cp.cuda.Device(d):
                free, total = cp.cuda.runtime.memGetInfo()
                out.append((int(total - free), int(pool.used_bytes()), int(pool.total_bytes())))
        return out

    def _record(self) -> None:
        self.peak = [tuple(max(a, b) for a, b in zip(p, n, strict=True))  # type: ignore[misc]
                     for p, n in zip(self.peak, self.now(), strict=True)]

    def _run(self) -> None:
        while not self._stop.wait(self.period):
            self._record()

    def stop(self) -> list[tuple[int, int, int]]:
        self._stop.set()
        self._thread.join()
        self._record()
        return self.peak


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


def _cuda_devices(devices: str | None) -> list[int]:
    """The CUDA device numbers a configuration uses; ``all-cuda`` also sets
    ``USMARRAY_CUBED_DEVICES`` to every GPU of the host."""
    if devices == "all-cuda":
        try:
            import cupy
        except ImportError:
            raise RuntimeError("all-cuda: CuPy is not installed, so there is no GPU to "
                               "list") from None
        ids = list(range(cupy.cuda.runtime.getDeviceCount()))
        os.environ["USMARRAY_CUBED_DEVICES"] = ",".join(f"cuda:{i}" for i in ids)
        return ids
    dev = os.environ.get("USMARRAY_DEFAULT_DEVICE", "")
    if dev.startswith("cuda"):
        return [int(dev.partition(":")[2] or 0)]
    return []


def _run_once(args: argparse.Namespace, n: int, chunk: int, spec: object, ex: object,
              callbacks: list, kw: dict) -> object:
    """One computation of ``args.workload``: its value (a float or a list of floats)."""
    import cubed

    from benchmarks.cubed_profile import _run_plan

    if args.workload in ("chain", "chain-blocks"):
        plan = chain_plan(n, chunk, spec, blocks=args.workload == "chain-blocks")
        return float(plan.compute(executor=ex, callbacks=callbacks, **kw))  # type: ignore[attr-defined]
    if args.workload == "meanstd-gen":
        got = cubed.compute(*meanstd_gen_plan(n, chunk, spec), executor=ex,
                            callbacks=callbacks, **kw)
        return [float(v) for v in got]
    return _run_plan(args.data, spec, ex, callbacks, **kw)


def child(args: argparse.Namespace) -> dict[str, object]:
    import cubed
    from cubed.runtime.create import create_executor

    cuda = _cuda_devices(args.devices)
    store = None
    if os.environ.get("CUBED_BACKEND_ARRAY_API_MODULE"):
        import usmarray

        usmarray.asarray([1.0]) + 1.0  # the device initialised before the baseline
        if args.store == "device":
            import usmarray.cubed as uc

            store = uc.device_store(None if args.store_bytes is None
                                    else int(float(args.store_bytes)))
    workers = args.workers
    if args.per_device:
        from usmarray._cubed_placement import policy

        workers = args.per_device * max(1, len(policy().devices))
    devmem = DeviceMemory(cuda) if cuda else None
    rss_before = _peak_rss()
    n, chunk, allowed = int(float(args.n)), int(float(args.chunk)), _parse_mem(args.allowed_mem)
    work = tempfile.mkdtemp(prefix="cubed-wl-", dir=args.work_dir)
    # cubed's own default is left unset: cubed 0.28 refuses the string "default" it names
    extra: dict[str, Any] = {"zarr_compressor": None} if args.intermediates == "none" else {}
    if store is not None:
        extra["intermediate_store"] = store
    spec = cubed.Spec(work_dir=work, allowed_mem=allowed, reserved_mem=args.reserved_mem,
                      **extra)
    ex = create_executor("threads", dict(max_workers=workers))
    kw = {"optimize_function": optimize_function(args.fuse)}
    if args.dedupe_reads:
        dedupe_chunk_reads()
    proj = _projected()
    warm_n = int(float(args.warmup_n)) if args.warmup_n else n
    times, cpus, values = [], [], []
    try:
        for k in range(args.repeats + 1):
            t0, c0 = time.perf_counter(), time.process_time()
            v = _run_once(args, warm_n if k == 0 else n, min(chunk, warm_n if k == 0 else n),
                          spec, ex, [proj], kw)
            times.append(time.perf_counter() - t0)
            cpus.append(time.process_time() - c0)
            values.append(v)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    out: dict[str, object] = dict(
        first_s=times[0], times=times[1:], best_s=min(times[1:]), cpu=cpus[1:],
        value=values[-1], workers=workers, peak_rss=_peak_rss(),
        projected_mem=proj.projected,  # type: ignore[attr-defined]
        rss_before=rss_before, device_peak=None, device_before=None)
    if store is not None:
        pk = store.peaks()
        out["store_peak"] = max(pk["devices"].values(), default=0)
        out["store_spilled"] = pk["host"] + pk["disk"]
    if devmem is not None:
        before, peak = devmem.before, devmem.stop()
        out.update(device_peak=max(p[0] for p in peak), device_before=max(b[0] for b in before),
                   devices=[dict(device=f"cuda:{d}", in_use_before=b[0], in_use_peak=p[0],
                                 pool_used_peak=p[1], pool_held_peak=p[2])
                            for d, b, p in zip(cuda, before, peak, strict=True)])
    return out


def _close(a: object, b: object, rtol: float) -> bool:
    if isinstance(a, (list, tuple)):
        return all(_close(x, y, rtol) for x, y in zip(a, b, strict=True))  # type: ignore[call-overload]
    return abs(float(a) - float(b)) <= rtol * max(abs(float(b)), 1e-30)  # type: ignore[arg-type]


def _best(r: dict) -> float:
    return float(r.get("best_s") or min(r["times"]))


def _gb(v: object) -> str:
    return "-" if v is None else f"{float(v) / 1e9:.2f}"  # type: ignore[arg-type]


def table(res: dict) -> str:
    """Markdown: one row per process with its best timed run against ``numpy``'s (a
    ratio above 1: faster than cubed on NumPy), then per configuration the median over
    all its timed runs, and the A/A ratio of two ``numpy`` processes where there are two."""
    rows = res["rows"]
    ok = [r for r in rows if "times" in r]
    nps = [_best(r) for r in ok if r["label"] == "numpy"]
    base = min(nps) if nps else None
    ref = next((r["value"] for r in ok if r["label"] == "numpy"), None)
    host_chunk = res.get("host_chunk")
    store = res.get("store")
    out = [f"{res['workload']}: N = {res['n']:.3g} float32 ({4 * res['n'] / 1e9:.2f} GB), "
           f"allowed_mem {res['allowed_mem']}, chunks of {float(res['chunk']):.3g} elements"
           + (f" ({float(host_chunk):.3g} for the host configurations)"
              if host_chunk and float(host_chunk) != float(res["chunk"]) else "")
           + ", threads executor"
           + (f"; input compressor: {res['compressor']}" if res.get("compressor") else "")
           + f"; fusion: {res.get('fuse', 'cubed')}"
           + (f"; usmarray's intermediates: {'device store' if store == 'device' else 'Zarr'}"
              if store else "")
           + f"; Zarr intermediates' compressor: {res.get('intermediates', 'default')}"
           + ("; each chunk read once a task (cubed patched: dedupe_chunk_reads)"
              if res.get("dedupe_reads") else "")
           + f"; {res['host']}", "",
           "| configuration | threads | best (s) | numpy / this | runs (s) | first run (s) | "
           "value agrees | peak RSS (GB) | RSS before (GB) | cubed's projected task (GB) | "
           "device store peak (GB) | peak device mem (GB) | device mem before (GB) | "
           "CuPy pool peak, used / held (GB) |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "times" not in r:
            out.append(f"| {r['label']} | {r.get('workers', '-')} | failed: "
                       f"{r['error'][:300]} |" + " |" * 11)
            continue
        best = _best(r)
        agree = "-" if ref is None else ("yes" if _close(r["value"], ref, 1e-3) else
                                         f"NO: {r['value']} vs {ref}")
        pools = r.get("devices") or []
        pool = (", ".join(f"{_gb(d['pool_used_peak'])} / {_gb(d['pool_held_peak'])}"
                          for d in pools) if pools else "-")
        out.append(
            f"| {r['label']} | {r['workers']} | {best:.2f} | "
            + (f"{base / best:.2f}x" if base else "-") + " | "
            + ", ".join(f"{t:.2f}" for t in r["times"])
            + f" | {r['first_s']:.2f} | {agree} | {_gb(r['peak_rss'])} | "
            f"{_gb(r['rss_before'])} | "
            + (f"{r['projected_mem'] / 1e9:.3f}" if r.get("projected_mem") else "-")
            + f" | {_gb(r.get('store_peak'))}"
            + (f" (+{_gb(r['store_spilled'])} spilled)" if r.get("store_spilled") else "")
            + f" | {_gb(r.get('device_peak'))} | {_gb(r.get('device_before'))} | {pool} |")
    by: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    for r in ok:
        by.setdefault(r["label"], []).extend(r["times"])
        cpu.setdefault(r["label"], []).extend(r.get("cpu", []))
    if base and any(len([r for r in ok if r["label"] == k]) > 1 for k in by):
        mbase = statistics.median(by["numpy"])
        cbase = statistics.median(cpu["numpy"]) if cpu.get("numpy") else None
        out += ["", "| configuration | median of all runs (s) | numpy / this | process CPU "
                "time, median (s) | numpy / this, CPU time |", "|---|---|---|---|---|"]
        for k, v in by.items():
            c = statistics.median(cpu[k]) if cpu.get(k) else None
            out.append(f"| {k} | {statistics.median(v):.2f} | {mbase / statistics.median(v):.2f}x"
                       + (f" | {c:.2f} | {cbase / c:.2f}x |" if c and cbase else " | - | - |"))
    if len(nps) >= 2:
        out.append(f"\nA/A: numpy process 2 / process 1 = {nps[1] / nps[0]:.3f}")
    if res.get("probe"):
        out += ["", res["probe"]]
    return "\n".join(out)


def plot(out: Path, name: str) -> Path:
    """``<name>.png``: best time and peak RSS (against allowed_mem) per configuration."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    res = json.loads((out / f"{name}.json").read_text())
    rows = [r for r in res["rows"] if "times" in r]
    fig, axes = plt.subplots(1, 2, figsize=(11, 0.5 * len(rows) + 2), sharey=True)
    ys = list(range(len(rows)))
    axes[0].barh(ys, [_best(r) for r in rows])
    axes[0].set_yticks(ys, [f"{r['label']} ({r['workers']} thr)" for r in rows])
    axes[0].invert_yaxis()
    axes[0].set_xlabel("best wall time (s)")
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


def _stem(args: argparse.Namespace, workload: str) -> str:
    """The results' file stem: ``--name`` (with the workload after it when there are
    several), else the workload."""
    if not args.name:
        return workload
    return args.name if len(args.workload) == 1 else f"{args.name}_{workload}"


def _child_cmd(args: argparse.Namespace, workload: str, cfg: Config) -> list[str]:
    chunk = args.chunk if cfg.on_device or not args.host_chunk else args.host_chunk
    cmd = [sys.executable, "-m", "benchmarks.cubed_workloads", "--child",
           "--workload", workload, "--n", str(args.n), "--chunk", str(chunk),
           "--allowed-mem", args.allowed_mem, "--reserved-mem", str(args.reserved_mem),
           "--repeats", str(args.repeats), "--fuse", args.fuse,
           "--intermediates", args.intermediates, "--store", args.store]
    cmd += (["--per-device", str(args.device_workers)] if cfg.on_device
            else ["--workers", str(args.workers)])
    for flag, value in (("--devices", cfg.devices), ("--data", args.data),
                        ("--work-dir", args.work_dir), ("--warmup-n", args.warmup_n),
                        ("--store-bytes", args.store_bytes)):
        if value:
            cmd += [flag, str(value)]
    return cmd + (["--dedupe-reads"] if args.dedupe_reads else [])


def _write_input(args: argparse.Namespace, data_dir: str) -> None:
    """meanstd's Zarr input, written once by cubed on NumPy."""
    args.data = str(Path(data_dir) / "x.zarr")
    t0 = time.perf_counter()
    cmd = [sys.executable, "-m", "benchmarks.cubed_profile", "--make-input",
           "--n", str(args.n), "--chunk", str(args.chunk), "--allowed-mem",
           args.allowed_mem, "--data", args.data, "--compressor", args.compressor]
    if args.work_dir:
        cmd += ["--work-dir", args.work_dir]
    subprocess.run(cmd, env=_env("numpy", None), check=True, timeout=args.timeout)
    print(f"input written in {time.perf_counter() - t0:.1f} s", flush=True)


def _run_config(args: argparse.Namespace, workload: str, label: str) -> dict:
    cfg = CONFIGS[label]
    row: dict = dict(label=label, workers=args.workers if not cfg.on_device else "-")
    try:
        p = subprocess.run(_child_cmd(args, workload, cfg), env=_env(cfg.backend, cfg.device),
                           capture_output=True, text=True, timeout=args.timeout)
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
    print(workload, label, row.get("error") or [round(t, 2) for t in row["times"]], flush=True)
    return row


def run_workload(args: argparse.Namespace, workload: str) -> dict:
    """Every configuration of ``args`` on ``workload``; writes ``<stem>.json``, ``.md``
    and ``.png`` into ``--out``."""
    out = Path(args.out)
    name = _stem(args, workload)
    data_dir = tempfile.mkdtemp(prefix="cubed-wl-data-", dir=args.work_dir)
    res: dict = dict(workload=workload, n=int(float(args.n)), allowed_mem=args.allowed_mem,
                     chunk=args.chunk, host_chunk=args.host_chunk, host=_host(), rows=[],
                     compressor=args.compressor if workload == "meanstd" else None,
                     fuse=args.fuse, intermediates=args.intermediates, store=args.store,
                     dedupe_reads=args.dedupe_reads, device_workers=args.device_workers)
    try:
        args.data = None
        if workload == "meanstd":
            _write_input(args, data_dir)
        if args.probe:
            try:
                res["probe"] = probe()
            except Exception as exc:  # noqa: BLE001 - needs dpctl; reported
                res["probe"] = f"probe failed: {type(exc).__name__}: {exc}"
        for label in [c for _ in range(args.rounds) for c in args.configs]:
            res["rows"].append(_run_config(args, workload, label))
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


def parent(args: argparse.Namespace) -> list[dict]:
    Path(args.out).mkdir(parents=True, exist_ok=True)
    return [run_workload(args, w) for w in args.workload]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workload", nargs="+", choices=WORKLOADS, default=["chain"])
    ap.add_argument("--n", default=None, help="elements (default 2e8; 4e10 with --beyond-device)")
    ap.add_argument("--allowed-mem", default="200MB")
    ap.add_argument("--reserved-mem", type=int, default=0)
    ap.add_argument("--chunk", default=None,
                    help=f"chunk elements (default 5e6; {BEYOND_DEVICE_CHUNK} with "
                         "--beyond-device)")
    ap.add_argument("--host-chunk", default=None,
                    help="chunk elements of the host configurations (numpy, usmarray numpy); "
                         "default --chunk")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="threads of cubed's executor for numpy and usmarray numpy")
    ap.add_argument("--device-workers", type=int, default=2,
                    help="threads of cubed's executor per device, for the usmarray device "
                         "configurations")
    ap.add_argument("--per-device", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--devices", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--repeats", type=int, default=2, help="timed runs after the first")
    ap.add_argument("--warmup-n", default=None,
                    help="elements of the first, untimed run (default --n)")
    ap.add_argument("--rounds", type=int, default=1, help="processes per configuration")
    ap.add_argument("--configs", nargs="*", default=None, choices=list(CONFIGS),
                    help="default: numpy, usmarray numpy, usmarray sycl-cpu; with "
                         "--beyond-device: usmarray cuda:0, usmarray all-cuda")
    ap.add_argument("--work-dir", default=None)
    ap.add_argument("--compressor", default="default", choices=("default", "none"),
                    help="meanstd: the input Zarr array's compressor, cubed's default or none")
    ap.add_argument("--fuse", default="usmarray", choices=("cubed", "wide", "usmarray"),
                    help="the graph optimizer (optimize_function's docstring)")
    ap.add_argument("--store", default="device", choices=("device", "zarr"),
                    help="usmarray's intermediates: usmarray.cubed.device_store() or Zarr "
                         "in --work-dir (cubed on NumPy always uses Zarr)")
    ap.add_argument("--store-bytes", default=None,
                    help="the device store's bound per device (default "
                         "USMARRAY_CUBED_STORE_BYTES or its default)")
    ap.add_argument("--intermediates", default="default", choices=("default", "none"),
                    help="the compressor of cubed's intermediate Zarr arrays "
                         "(Spec's zarr_compressor): cubed's default or none")
    ap.add_argument("--dedupe-reads", action="store_true",
                    help="experiment: patch cubed so that a task reads each chunk once "
                         "(dedupe_chunk_reads)")
    ap.add_argument("--beyond-device", action="store_true",
                    help=f"the larger-than-a-device run: N = {BEYOND_DEVICE_N} unless --n, "
                         f"chunks of {BEYOND_DEVICE_CHUNK} unless --chunk, the GPU "
                         "configurations, the warm-up "
                         "at 2e8 elements unless --warmup-n, one timed run unless --repeats, "
                         "results named beyond_*")
    ap.add_argument("--data", default=None)
    ap.add_argument("--out", default=str(run_dir("cubed-workloads")))
    ap.add_argument("--name", default=None,
                    help="file stem of the results (default: the workload; with several "
                         "workloads, NAME_<workload>)")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per configuration")
    ap.add_argument("--no-plot", action="store_true")
    ap.add_argument("--probe", action="store_true",
                    help="also time one SYCL CPU kernel into fresh and touched outputs")
    ap.add_argument("--render", action="store_true",
                    help="only rewrite the tables and figures from --out's JSON")
    ap.add_argument("--child", action="store_true")
    argv = sys.argv[1:]
    args = ap.parse_args(argv)
    if args.beyond_device:
        args.n = args.n or BEYOND_DEVICE_N
        args.chunk = args.chunk or BEYOND_DEVICE_CHUNK
        args.configs = args.configs or ["usmarray cuda:0", "usmarray all-cuda"]
        args.warmup_n = args.warmup_n or "2e8"
        args.name = args.name or "beyond"
        if "--repeats" not in argv:
            args.repeats = 1
    args.n = args.n or "2e8"
    args.chunk = args.chunk or "5e6"
    args.configs = args.configs if args.configs is not None else list(CONFIGS)[:3]
    if args.repeats < 1:
        ap.error("--repeats must be at least 1 (the first run is reported apart)")
    if args.child:
        args.workload = args.workload[0]
        print(json.dumps(child(args)))
    elif args.render:
        for w in args.workload:
            name = _stem(args, w)
            md = table(json.loads((Path(args.out) / f"{name}.json").read_text()))
            (Path(args.out) / f"{name}.md").write_text(md + "\n")
            print(md, plot(Path(args.out), name), sep="\n")
    else:
        parent(args)


if __name__ == "__main__":
    main()
