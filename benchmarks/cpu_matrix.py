"""CPU ops matrix: every op family of the GPU matrix on the host, each of
usmarray's CPU backends against the library it wraps.

``python -m benchmarks.cpu_matrix [--quick] [--backend sycl|numpy|both] [--only SUBSTRINGS]
[--skip SUBSTRINGS] [--small-only | --large-only] [--time-limit S] [--out DIR]``

* **sycl**: usmarray on the SYCL CPU device (``Device.create_device("cpu")``) against
  its provider ``dpnp.tensor`` called directly, its arrays made on the *same*
  ``sycl_queue``.  Every call, of either library, is followed by ``queue.wait()``, so
  a call's time includes its kernels.  Ops the provider lacks (``linalg.*`` beyond
  matmul/tensordot/vecdot, ``fft.*``) are not timed; their row says why.
* **numpy**: usmarray on ``device="numpy"`` against NumPy through
  ``array_api_compat.numpy`` (NumPy itself, with the standard's function names).

Both setups time four entries interleaved in one process, the order rotating from
trial to trial: usmarray, the provider, the provider again ("prov A/A") and usmarray
again ("A/A"); the two A/A ratios show the noise of this machine.  Ratios are provider
time / usmarray time (> 1: usmarray faster); the summary lists every op under 0.95.

The op table, trials, rows and outputs are those of ``benchmarks.gpu_matrix``
(``table``, ``run_matrix``, ``write_outputs``), with two CPU ops added
(``add x+y`` and ``matmul X.T @ X``).  Sizes: *large* caps every operand at
20000 x 128 = 2,560,000 elements (``fit_shape`` halves the longest axes; a 2^24 vector
becomes 2^21, a 4096x4096 matrix 1024x1024), ``matmul`` and ``linalg`` at 2^18 so
the provider's own matmul kernel and the O(n^3) decompositions fit a 2-core machine;
*small* is the GPU matrix's (about 100 elements).  Large trials are wall-clock time of
back-to-back calls (each with its wait) after a warm-up; small ones are host time per
call.  ``--quick`` (3 trials, 1/16 of the elements, short trials) runs both backends
in about two minutes; ``--time-limit`` bounds the whole run (shared by the backends;
ops past it are skipped rows).

Writes ``cpu_matrix_<backend>.json``, ``.txt`` and ``.png`` per backend into ``--out``
(default ``build/benchmarks/<date>-cpu-matrix``).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib
import os
import platform
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from . import gpu_matrix as gm
from ._jobs import with_sync

BELOW = 0.95  # the aim: every large op at or above 0.95x its provider
LARGE_MAX = 20000 * 128  # elements per operand at the large size
HEAVY_MAX = 1 << 18  # matmul and linalg families (512 x 512)
HEAVY = ("matmul", "linalg")
BACKENDS = ("sycl", "numpy")
CONTROLS = {"A/A": ("usm A/A", "usm"), "prov A/A": ("prov A/A", "prov")}  # ratio: (again, entry)


def build_gram(k: gm.Kit, s: tuple[int, ...]) -> gm.Fn:
    """``matmul(X.T, X)`` for X of shape ``s`` (the transposed view made outside the call)."""
    x, ns = k.data("randn", s), k.ns
    xt, f = ns.permute_dims(x, (1, 0)), k.fn("matmul")
    return lambda: f(xt, x)


def table() -> list[gm.Op]:
    """The GPU matrix's ops (``matmul``/``linalg`` capped at ``HEAVY_MAX`` elements) and
    the two calls of the CPU table it lacks."""
    ops = [replace(op, large=gm.fit_shape(op.large, HEAVY_MAX)) if op.family in HEAVY else op
           for op in gm.table()]
    return [*ops,
            gm.Op("add x+y", "elementwise", gm.call("add", gm.arr(), gm.arr(tag=1)),
                  gm.N24, gm.S1),
            gm.Op("matmul X.T @ X", "matmul", build_gram, (20000, 128), (16, 8))]


def config(quick: bool, smoke: bool, time_limit_s: float) -> gm.Config:
    """Full (8 trials, so each of the 4 entries is twice in each place of the rotation;
    2 s an op), ``--quick`` (3 trials, 1/16 of the elements, short trials) or smoke
    (tiny sizes: a test of the machinery)."""
    c = gm.Config(trials=8, small_trials=8, op_budget_s=2.0, max_elements=LARGE_MAX,
                  time_limit_s=time_limit_s)
    if quick or smoke:
        c = replace(c, trials=3, small_trials=3, max_elements=LARGE_MAX // 16,
                    target_trial_s=0.005, max_trial_s=0.1, op_budget_s=0.3,
                    small_target_s=0.001, small_max_s=0.01)
    if smoke:
        c = replace(c, max_elements=4096, target_trial_s=0.001, op_budget_s=0.05,
                    small_target_s=0.0002, small_max_s=0.002)
    return c


def _back_to_back(fn: gm.Fn, reps: int) -> float:
    """Seconds per call of ``reps`` back-to-back calls (``fn`` includes its own wait)."""
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - t0) / reps


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _machine() -> dict[str, Any]:
    cores = os.cpu_count()
    name = f"{_cpu_name()}, {cores} logical cores"
    return {"machine": name, "cpu_count": cores,
            "machine_line": f"CPU: {name} (shared CI machine: trials interleaved, A/A shown)"}


def _entries(usm: tuple[Any, Any], prov: tuple[Any, Any], sync: gm.Fn | None
             ) -> list[gm.Lib]:
    """usm, prov, prov A/A, usm A/A as columns (namespace, device each), every built
    callable followed by ``sync`` where given."""
    nop: gm.Fn = lambda: None  # noqa: E731
    wait = (lambda fn: with_sync(fn, sync)) if sync is not None else None
    return [gm.Lib(key, ns, dev, _back_to_back, sync or nop, peer=key == "prov", per_call=wait)
            for key, (ns, dev) in (("usm", usm), ("prov", prov), ("prov A/A", prov),
                                   ("usm A/A", usm))]


def sycl_setup() -> gm.Setup:
    """usmarray on the SYCL CPU device against dpnp.tensor on the same queue."""
    import usmarray as xp

    pt = importlib.import_module(str(xp.provider))
    udev = xp.Device.create_device("cpu")
    q = xp.asarray(0.0, device=udev).sycl_queue
    dev = q.sycl_device
    meta = {**_machine(), "title": "CPU ops matrix, SYCL: usmarray vs dpnp.tensor (same queue)",
            "usmarray_device": f"{udev} ({dev.name}, {dev.driver_version})",
            "provider": xp.provider,
            "versions": gm._versions(usmarray=xp, dpnp=__import__("dpnp"))}
    return gm.Setup(_entries((xp, udev), (pt, q), q.wait), meta, gm.collect,
                    "wall clock, queue.wait() after every call", q.wait,
                    lambda: xp.using_device(udev), controls=CONTROLS, require_peer=True)


def numpy_setup() -> gm.Setup:
    """usmarray on its NumPy device against NumPy (``array_api_compat.numpy``)."""
    import array_api_compat
    import numpy as np

    import usmarray as xp

    udev = xp.asarray(0.0, device="numpy").device
    nps = array_api_compat.array_namespace(np.empty(1))
    meta = {**_machine(), "title": "CPU ops matrix, NumPy backend: usmarray vs NumPy",
            "usmarray_device": str(udev), "provider": "numpy (array_api_compat.numpy)",
            "versions": gm._versions(usmarray=xp)}
    return gm.Setup(_entries((xp, udev), (nps, "cpu"), None), meta, gm.collect, "wall clock",
                    lambda: None, lambda: xp.using_device(udev), controls=CONTROLS,
                    require_peer=True)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.cpu_matrix",
                                description="CPU ops matrix: usmarray's SYCL CPU device vs "
                                            "dpnp.tensor, its NumPy backend vs NumPy.")
    p.add_argument("--quick", action="store_true",
                   help="3 trials, 1/16 of the elements (about 2 minutes for both backends)")
    p.add_argument("--backend", choices=(*BACKENDS, "both"), default="both")
    gm.add_selection_args(p)
    p.add_argument("--out", type=Path, default=None,
                   help="folder for cpu_matrix_<backend>.json/.txt/.png "
                        "(default build/benchmarks/<date>-cpu-matrix)")
    p.add_argument("--time-limit", type=float, default=None,
                   help="seconds for the whole run, shared by the backends; ops past a "
                        "backend's share are skipped (default 660, --quick 110)")
    p.add_argument("--trials", type=int, default=None,
                   help="trials per op (default 8; more for a re-run of noisy rows: the "
                        "entry order rotates every trial, so position effects cancel)")
    p.add_argument("--op-budget", type=float, default=None,
                   help="seconds of timing per op (default 2; trials shrink to fit it)")
    p.add_argument("--no-plot", action="store_true", help="skip the PNGs")
    p.add_argument("--smoke", action="store_true", help=argparse.SUPPRESS)
    return p.parse_args(argv)


def run_backend(backend: str, args: argparse.Namespace, cfg: gm.Config, out: Path,
                mode: str) -> list[dict[str, Any]]:
    """One backend's matrix, written to ``out/cpu_matrix_<backend>.*``; its rows."""
    setup = sycl_setup() if backend == "sycl" else numpy_setup()
    ops = gm.select(table(), args.only, args.skip)
    sizes = gm.sizes_of(args)
    meta = {**setup.meta, "backend": backend, "mode": mode, "timing": setup.timing,
            "argv": list(sys.argv[1:] if args.argv is None else args.argv),
            "date": _dt.datetime.now().isoformat(timespec="seconds"), "config": cfg.__dict__}
    keys = [lib.key for lib in setup.libs]
    stem = f"cpu_matrix_{backend}"
    print(gm.header_text(meta), flush=True)
    print(f"{len(ops)} ops x {len(sizes)} size class(es); time limit {cfg.time_limit_s:.0f} s; "
          f"writing into {out}/{stem}.*", flush=True)

    def checkpoint(rows: list[dict[str, Any]]) -> None:
        gm.write_outputs(out, {**meta, "partial": True}, rows, keys, ["prov"], with_plot=False,
                         stem=stem, below_at=BELOW)

    t0 = time.perf_counter()
    with setup.context():
        rows = gm.run_matrix(setup, cfg, ops, sizes, t0, checkpoint)
    meta["elapsed_s"] = round(time.perf_counter() - t0, 1)
    paths = gm.write_outputs(out, meta, rows, keys, ["prov"], with_plot=not args.no_plot,
                             stem=stem, below_at=BELOW)
    print(gm.report_text(meta, rows, keys, ["prov"], BELOW), flush=True)
    print(f"\nwrote {', '.join(map(str, paths))} in {meta['elapsed_s']} s", flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    args.argv = argv
    t_start = time.perf_counter()
    limit = args.time_limit or (110.0 if args.quick or args.smoke else 660.0)
    mode = "smoke" if args.smoke else "quick" if args.quick else "default"
    out = args.out or gm._default_out(args.smoke, "cpu")
    backends = list(BACKENDS) if args.backend == "both" else [args.backend]
    summaries = []
    for i, backend in enumerate(backends):
        left = limit - (time.perf_counter() - t_start)
        cfg = config(args.quick, args.smoke, max(0.0, left / (len(backends) - i)))
        if args.trials is not None:
            cfg = replace(cfg, trials=args.trials, small_trials=args.trials)
        if args.op_budget is not None:
            cfg = replace(cfg, op_budget_s=args.op_budget)
        rows = run_backend(backend, args, cfg, out, mode)
        summaries += [f"[{backend}] " + gm.summary_text(rows, s, BELOW) for s in ("large", "small")]
    print("\n== both backends ==\n" + "\n".join(summaries))
    print(f"total {time.perf_counter() - t_start:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
