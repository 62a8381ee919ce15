"""``python -m benchmarks``: run the sections, print the tables and targets, write JSON and PNGs."""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib
import inspect
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import migration, scaling, small, throughput
from ._context import make_context
from ._jobs import Job
from ._paths import run_dir
from ._report import (
    enrich,
    jsonable,
    migration_table,
    scaling_table,
    small_table,
    targets,
    targets_text,
    throughput_table,
)
from ._timing import Stats, describe_error

SECTIONS = ("small", "throughput", "migration", "scaling", "linalg", "gpu", "gpu_matrix",
            "cpu_matrix")
# cpu_matrix is opt-in (--only cpu_matrix): its --quick run alone takes about two
# minutes on 2 cores, more than the rest of the quick suite
DEFAULT_SECTIONS = tuple(s for s in SECTIONS if s != "cpu_matrix")


@dataclass
class Config:
    quick: bool
    small_budget_s: float
    small_min_rounds: int
    large_max_elements: int
    large_budget_s: float
    large_min_rounds: int
    migration_max_bytes: int
    migration_budget_s: float
    migration_min_rounds: int
    scaling_max_elements: int
    scaling_budget_s: float
    scaling_min_rounds: int


def config(quick: bool, budget_scale: float = 1.0) -> Config:
    if quick:  # about a minute on 2 cores (CI)
        c = Config(True, 1.0, 15, 10**6, 0.3, 5, 64 * migration.MB, 0.3, 3, 10**6, 0.15, 5)
    else:  # about 10-15 minutes
        c = Config(False, 3.0, 40, 10**8, 1.5, 5, migration.GB, 1.5, 5, 10**7, 0.8, 10)
    c.small_budget_s *= budget_scale
    c.large_budget_s *= budget_scale
    c.migration_budget_s *= budget_scale
    c.scaling_budget_s *= budget_scale
    return c


def _parse_size(text: str) -> int:
    t = text.strip().upper().replace("_", "")
    mult = {"K": 1024, "M": 1024**2, "G": 1024**3}
    for suf in ("KB", "MB", "GB", "K", "M", "G"):
        if t.endswith(suf):
            return int(float(t[: -len(suf)]) * mult[suf[0]])
    return int(float(t))


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="usmarray against dpnp.tensor (same queue), NumPy and array-api-strict, "
        "timed interleaved in one process.",
    )
    p.add_argument("--quick", action="store_true", help="small caps and budgets (< 2 min; CI)")
    p.add_argument("--out", type=Path, default=None,
                   help="output directory (default build/benchmarks/<date>-bench/)")
    p.add_argument("--only", default=",".join(DEFAULT_SECTIONS),
                   help=f"comma-separated sections to run, from {','.join(SECTIONS)} "
                        f"(default: all but cpu_matrix)")
    p.add_argument("--max-elements", type=lambda s: int(float(s)), default=None,
                   help="cap on array elements for throughput and scaling (e.g. 1e6)")
    p.add_argument("--max-bytes", type=_parse_size, default=None,
                   help="cap on copy sizes in the migration section (e.g. 64MB)")
    p.add_argument("--budget-scale", type=float, default=1.0,
                   help="multiply every per-case time budget (more rounds, steadier medians)")
    p.add_argument("--progress", dest="progress", action="store_true", default=None,
                   help="show a progress bar (default: on in full mode)")
    p.add_argument("--no-progress", dest="progress", action="store_false")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    p.add_argument("--no-strict", action="store_true", help="leave array-api-strict out")
    p.add_argument("--seed", type=int, default=1234)
    args = p.parse_args(argv)
    unknown = set(args.only.split(",")) - set(SECTIONS)
    if unknown:
        p.error(f"unknown section(s) {sorted(unknown)}; choose from {SECTIONS}")
    return args


class Progress:
    """tqdm when installed, else a one-line text bar on stderr."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total, self.done, self.enabled = total, 0, enabled
        self._bar = None
        self._t0 = time.perf_counter()
        if enabled:
            try:
                from tqdm import tqdm

                self._bar = tqdm(total=total, unit="case", dynamic_ncols=True, file=sys.stderr)
            except ImportError:
                self._bar = None

    def step(self, label: str) -> None:
        self.done += 1
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.set_description_str(label[:48])
            self._bar.update(1)
            return
        width = 30
        fill = int(width * self.done / max(1, self.total))
        el = time.perf_counter() - self._t0
        sys.stderr.write(
            f"\r[{'#' * fill}{'.' * (width - fill)}] {self.done}/{self.total} {el:5.0f}s "
            f"{label[:40]:<40}"
        )
        sys.stderr.flush()

    def close(self) -> None:
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.close()
        else:
            sys.stderr.write("\n")


def run_linalg(quick: bool) -> dict[str, Any]:
    """Run ``benchmarks/bench_linalg.py`` (owned by the linalg engineer) when it exposes
    ``run``/``bench``/``main``; its return value goes into the JSON record as it is."""
    try:
        mod = importlib.import_module("benchmarks.bench_linalg")
    except ModuleNotFoundError as exc:
        if exc.name == "benchmarks.bench_linalg":
            return {"status": "n/a (missing)"}
        return {"status": describe_error(exc)}
    except Exception as exc:
        return {"status": describe_error(exc)}
    for name in ("run", "bench", "main"):
        fn = getattr(mod, name, None)
        if callable(fn):
            break
    else:
        return {"status": "n/a (bench_linalg exposes no run(), bench() or main())"}
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        params = {}
    kwargs: dict[str, Any] = {}
    if "quick" in params:
        kwargs["quick"] = quick
    elif "argv" in params:  # a command-line main(): hand it its own arguments
        kwargs["argv"] = ["--quick"] if quick else []
    elif quick:
        return {"status": f"skipped in quick mode ({name}() takes no quick= argument)"}
    required = [p for p in params.values() if p.default is p.empty and p.name not in kwargs
                and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    if required:
        return {"status": f"n/a ({name}() needs arguments {[p.name for p in required]})"}
    try:
        res = fn(**kwargs)
    except SystemExit as exc:
        return {"status": f"n/a ({name}() exited with {exc.code})"}
    except Exception as exc:
        return {"status": describe_error(exc)}
    return {"status": "ok", "function": name, "result": jsonable(res)}


def run_gpu(quick: bool, outdir: Path, section: str = "gpu") -> dict[str, Any]:
    """A GPU section, written to ``<outdir>/<section>``: ``gpu`` (``benchmarks/gpu.py``:
    bandwidth and small calls of the fast paths) or ``gpu_matrix`` (``benchmarks/
    gpu_matrix.py``: every op family), usmarray's CUDA backend against CuPy and PyTorch
    on one GPU; skipped, with the reason, where CuPy or a usable GPU is missing."""
    try:
        import cupy  # noqa: F401
    except Exception as exc:  # noqa: BLE001 - ImportError, or a CUDA library failing to load
        return {"status": f"skipped (CuPy is not importable: {describe_error(exc)})"}
    import usmarray as xp
    from usmarray import _backend

    if getattr(_backend, "cuda", None) is None:
        return {"status": "skipped (CuPy imports but no usable CUDA GPU)"}
    from . import gpu, gpu_matrix

    main = {"gpu": gpu.main, "gpu_matrix": gpu_matrix.main}[section]
    argv = (["--quick"] if quick else []) + ["--out", str(outdir / section)]
    try:
        with xp.using_device("cuda:0"):
            rc = main(argv)
    except Exception as exc:
        return {"status": describe_error(exc)}
    return {"status": "ok" if rc == 0 else f"exit {rc}", "out": str(outdir / section)}


def run_cpu_matrix(quick: bool, outdir: Path, plots: bool = True) -> dict[str, Any]:
    """The CPU ops matrix (``benchmarks/cpu_matrix.py``: both CPU backends against their
    providers), written to ``<outdir>/cpu_matrix`` (its PNGs only with ``plots``)."""
    from . import cpu_matrix

    argv = ((["--quick"] if quick else []) + ([] if plots else ["--no-plot"])
            + ["--out", str(outdir / "cpu_matrix")])
    try:
        rc = cpu_matrix.main(argv)
    except Exception as exc:
        return {"status": describe_error(exc)}
    return {"status": "ok" if rc == 0 else f"exit {rc}", "out": str(outdir / "cpu_matrix")}


def _error_row(job: Job, exc: BaseException) -> dict[str, Any]:
    return {"op": job.label, "test": job.label, "kind": "error", "n": 0, "dtype": "-",
            "bytes": 0, "size": "-", "stats": {"usm": Stats(error=describe_error(exc))}}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    t_start = time.perf_counter()
    cfg = config(args.quick, args.budget_scale)
    if args.max_elements is not None:
        cfg.large_max_elements = min(cfg.large_max_elements, args.max_elements)
        cfg.scaling_max_elements = min(cfg.scaling_max_elements, args.max_elements)
    if args.max_bytes is not None:
        cfg.migration_max_bytes = min(cfg.migration_max_bytes, args.max_bytes)
    only = args.only.split(",")
    mode = "quick" if args.quick else "full"
    outdir = args.out or run_dir("bench")

    ctx = make_context(seed=args.seed, with_strict=not args.no_strict)
    keys = ctx.keys
    env = ctx.environment()
    print(f"usmarray benchmarks ({mode} mode): {env['device']}; provider {env['provider']}; "
          f"numpy {env['numpy']}; array-api-strict {env.get('array_api_strict')}; "
          f"usmarray NumPy backend: {'yes' if ctx.usm_np_device else 'no'}")
    if "small" in only and not small.host_values_match(ctx):
        print("WARNING: usmarray and numpy disagree on sum(x); the timings compare different work")

    jobs: list[Job] = []
    if "small" in only:
        jobs += small.jobs(ctx, budget_s=cfg.small_budget_s, min_rounds=cfg.small_min_rounds)
    if "throughput" in only:
        jobs += throughput.jobs(ctx, quick=cfg.quick, max_elements=cfg.large_max_elements,
                                budget_s=cfg.large_budget_s, min_rounds=cfg.large_min_rounds)
    if "migration" in only:
        jobs += migration.jobs(ctx, quick=cfg.quick, max_bytes=cfg.migration_max_bytes,
                               budget_s=cfg.migration_budget_s,
                               min_rounds=cfg.migration_min_rounds)
    if "scaling" in only:
        jobs += scaling.jobs(ctx, max_elements=cfg.scaling_max_elements,
                             budget_s=cfg.scaling_budget_s, min_rounds=cfg.scaling_min_rounds)

    results: dict[str, Any] = {s: [] for s in ("small", "throughput", "migration", "scaling")
                               if s in only}
    show = args.progress if args.progress is not None else not args.quick
    gpu_sections = [s for s in ("gpu", "gpu_matrix") if s in only]
    bar = Progress(len(jobs) + ("linalg" in only) + len(gpu_sections)
                   + ("cpu_matrix" in only), show)
    try:
        for job in jobs:
            try:
                row = job.run()
            except MemoryError as exc:
                row = _error_row(job, exc)
            except Exception as exc:  # one broken case must not stop the suite
                row = _error_row(job, exc)
            results[job.section].append(row)
            bar.step(job.label)
        if "linalg" in only:
            results["linalg"] = run_linalg(args.quick)
            bar.step("linalg")
        for section in gpu_sections:
            results[section] = run_gpu(args.quick, outdir, section)
            bar.step(section)
        if "cpu_matrix" in only:
            results["cpu_matrix"] = run_cpu_matrix(args.quick, outdir, not args.no_plots)
            bar.step("cpu_matrix")
    finally:
        bar.close()
    enrich(results)
    elapsed = time.perf_counter() - t_start

    print()
    print("Medians of per-call times, all columns timed interleaved in this process; "
          "usm/raw = median(usmarray) / median(dpnp.tensor) on the same queue and memory.")
    if results.get("small"):
        print("\n== Per-call cost, 100 float64 elements (kernel ops include queue.wait()) ==")
        print(small_table([r for r in results["small"] if r["kind"] != "error"], keys))
    if results.get("throughput"):
        print("\n== Throughput (GB/s from the bytes each op must move; matmul in GFLOP/s) ==")
        print(throughput_table([r for r in results["throughput"] if r["kind"] != "error"]))
    if results.get("migration"):
        print("\n== Migration ==")
        print(migration_table([r for r in results["migration"] if r.get("kind") != "error"]))
    if results.get("scaling"):
        print("\n== Scaling: fit t(n) = t0 + bytes/bw over 10 .. "
              f"{cfg.scaling_max_elements:.0e} elements ==")
        print(scaling_table(results["scaling_fit"]))
    if "linalg" in results:
        print(f"\n== linalg (benchmarks/bench_linalg.py) == {results['linalg']['status']}")
    for section in ("gpu", "gpu_matrix"):
        if section in results:
            print(f"\n== GPU (benchmarks/{section}.py) == {results[section]['status']}")
    if "cpu_matrix" in results:
        print(f"\n== CPU ops matrix (benchmarks/cpu_matrix.py) == {results['cpu_matrix']['status']}")
    errors = [r for sec in ("small", "throughput", "migration", "scaling")
              for r in results.get(sec, []) if r.get("kind") == "error"]
    for r in errors:
        print(f"case failed: {r['op']}: {r['stats']['usm'].error}")

    tg = targets(results, keys)
    print("\n== Targets (printed, not asserted) ==")
    print(targets_text(tg) if tg else "(none for the sections run)")

    record = {
        "mode": mode,
        "date": _dt.datetime.now().isoformat(timespec="seconds"),
        "argv": sys.argv[1:] if argv is None else argv,
        "environment": env,
        "config": cfg.__dict__,
        "elapsed_s": elapsed,
        "columns": {k: k for k in keys},
        "targets": [{"name": n, "pass": ok, "detail": d} for n, ok, d in tg],
        **results,
    }
    outdir.mkdir(parents=True, exist_ok=True)
    jpath = outdir / f"bench-{mode}.json"
    jpath.write_text(json.dumps(jsonable(record), indent=1))
    written = [jpath]
    if not args.no_plots:
        try:
            from ._plots import write_all

            written += write_all(results, outdir, mode)
        except ImportError as exc:
            print(f"plots skipped: {exc} (pip install matplotlib)")
    print(f"\nwrote {', '.join(str(p) for p in written)}")
    print(f"total {time.perf_counter() - t_start:.1f} s")
    return 0
