"""scikit-learn on GPU arrays: the estimator part of the GPU ops matrix.

``python -m benchmarks.gpu_sklearn [--quick] [--only SUBSTRING] [--out DIR]``
(``python -m benchmarks.gpu_matrix --merge`` adds its ``gpu_sklearn.json`` to a matrix)

With ``sklearn.config_context(array_api_dispatch=True)`` (and ``SCIPY_ARRAY_API=1`` set
before scipy is imported), each estimator is fitted on usmarray, CuPy and PyTorch
arrays on one GPU: the same random float32 data (200000 x 128; a y of 4 classes for
LDA, a float y for Ridge; 4000 x 128 for pairwise_distances), handed straight to
scikit-learn, which finds the namespace itself (array_api_compat).  A figure is the
wall time of one call followed by a device synchronization, median of 5 after a
warm-up call (3 with ``--quick``), the libraries interleaved; usmarray is timed twice
(A/A).  An estimator whose ``array_api_support`` tag is False (KMeans in
scikit-learn 1.9) is reported as skipped; a call that raises records its error.

Writes ``gpu_sklearn.json`` and ``gpu_sklearn.txt`` into ``--out``.
"""

from __future__ import annotations

import os

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # scipy reads it when it is first imported

import argparse  # noqa: E402
import datetime as _dt  # noqa: E402
import math  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from . import gpu_matrix as gm  # noqa: E402


@dataclass(frozen=True)
class Case:
    """One estimator call: ``run(data)`` on one library's arrays (keys ``X``, ``y4``,
    ``yf``, ``Xp``); ``gate()`` names the estimator whose array API tag must be True,
    or returns None to run unconditionally."""

    name: str
    run: Callable[[dict[str, Any]], Any]
    gate: Callable[[], Any] | None = None


def cases() -> list[Case]:
    """The estimators of the brief (imports scikit-learn)."""
    from sklearn.cluster import KMeans
    from sklearn.decomposition import PCA
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.linear_model import Ridge
    from sklearn.metrics import pairwise_distances
    from sklearn.preprocessing import MinMaxScaler, StandardScaler

    return [
        Case("StandardScaler().fit_transform", lambda d: StandardScaler().fit_transform(d["X"])),
        Case("MinMaxScaler().fit_transform", lambda d: MinMaxScaler().fit_transform(d["X"])),
        Case("LDA(solver='svd').fit",
             lambda d: LinearDiscriminantAnalysis(solver="svd").fit(d["X"], d["y4"])),
        Case("PCA(svd_solver='full').fit", lambda d: PCA(svd_solver="full").fit(d["X"])),
        Case("PCA(randomized, 10).fit",
             lambda d: PCA(svd_solver="randomized", n_components=10, random_state=0).fit(d["X"])),
        Case("Ridge(solver='svd').fit", lambda d: Ridge(solver="svd").fit(d["X"], d["yf"])),
        Case("pairwise_distances 4000x128", lambda d: pairwise_distances(d["Xp"])),
        Case("KMeans(8, n_init=1).fit",
             lambda d: KMeans(n_clusters=8, n_init=1, random_state=0).fit(d["X"]),
             gate=lambda: KMeans()),
    ]


def gate_reason(case: Case) -> str | None:
    """Why ``case`` is skipped (its estimator has no array API support), else None."""
    if case.gate is None:
        return None
    import sklearn

    est = case.gate()
    try:
        ok = bool(est.__sklearn_tags__().array_api_support)
    except Exception:  # noqa: BLE001 - no tag API (older scikit-learn): try the call
        return None
    if ok:
        return None
    return (f"skipped ({type(est).__name__} has no array API support in "
            f"scikit-learn {sklearn.__version__})")


def data_shapes(quick: bool, smoke: bool) -> tuple[tuple[int, int], tuple[int, int]]:
    """(X shape, pairwise X shape) of a run."""
    if smoke:
        return (2000, 16), (200, 16)
    return ((50_000, 128) if quick else (200_000, 128)), (4000, 128)


def make_data(lib: gm.Lib, host: gm.HostData, shape: tuple[int, int],
              pshape: tuple[int, int]) -> dict[str, Any]:
    """The inputs of every case as arrays of ``lib`` (same values for every library)."""
    k = gm.Kit(lib.ns, lib.device, host)
    return {"X": k.data("randn", shape), "y4": k.data("ints", (shape[0],), "int64", hi=4),
            "yf": k.data("randn", (shape[0],), tag=1), "Xp": k.data("randn", pshape, tag=2)}


def _timed(fn: Callable[[], Any], sync: Callable[[], None]) -> float:
    t0 = time.perf_counter()
    fn()
    sync()
    return time.perf_counter() - t0


def time_case(case: Case, data: dict[str, dict[str, Any]], setup: gm.Setup, reps: int,
              errors: dict[str, str]) -> dict[str, float]:
    """Median wall seconds of ``case`` per library (warm-up first, then ``reps`` rounds
    in rotating order, each call followed by a sync); rounds shrink so that a case
    takes about a minute at most."""
    fns = {key: (lambda d=d: case.run(d)) for key, d in data.items()}
    warm: dict[str, float] = {}
    for key in list(fns):
        try:
            warm[key] = _timed(fns[key], setup.sync_all)
        except Exception as exc:  # noqa: BLE001
            errors[key] = gm.error_text(exc)
            del fns[key]
    if not fns:
        return {}
    reps = max(1, min(reps, int(60 / max(sum(warm.values()), 1e-3))))
    samples: dict[str, list[float]] = {k: [] for k in fns}
    for order in gm._rotations(list(fns), reps):
        for key in order:
            if key not in fns:
                continue
            try:
                samples[key].append(_timed(fns[key], setup.sync_all))
            except Exception as exc:  # noqa: BLE001
                errors[key] = gm.error_text(exc)
                del fns[key]
    return {k: statistics.median(v) for k, v in samples.items() if v and k in fns}


def _row(case: Case, shape: tuple[int, ...], times: dict[str, float], errors: dict[str, str],
         peers: list[str], reps: int) -> dict[str, Any]:
    return {"op": case.name, "family": "sklearn", "size": "sklearn", "shape": list(shape),
            "timing": "wall time with a sync per call", "reps": reps, "times_s": times,
            "errors": errors, "ratios": gm.ratios(times, peers)}


def run(setup: gm.Setup, quick: bool = False, smoke: bool = False, only: str | None = None,
        deadline: float = math.inf) -> list[dict[str, Any]]:
    """One row per estimator case (size class "sklearn"); after ``deadline``
    (``time.perf_counter()`` seconds) the remaining cases are skipped."""
    try:
        import sklearn

        all_cases = cases()
    except Exception as exc:  # noqa: BLE001 - scikit-learn or scipy missing or broken
        return [{"op": "scikit-learn", "family": "sklearn", "size": "sklearn", "shape": [],
                 "times_s": {}, "errors": {"all": "skipped: " + gm.error_text(exc)},
                 "ratios": {"best": math.nan, "A/A": math.nan}}]
    o = (only or "").lower()
    chosen = [c for c in all_cases if not o or o in c.name.lower() or o in "sklearn"]
    shape, pshape = data_shapes(quick, smoke)
    reps = 3 if quick or smoke else 5
    peers = [lib.key for lib in setup.libs if lib.peer]
    host = gm.HostData(seed=1)
    rows = []
    with sklearn.config_context(array_api_dispatch=True):
        data, build_errors = _all_data(setup, host, shape, pshape)
        for case in chosen:
            errors = dict(build_errors)
            why = "skipped (time limit)" if time.perf_counter() > deadline else gate_reason(case)
            times = {} if why else time_case(case, data, setup, reps, errors)
            if why:
                errors["all"] = why
            rows.append(_row(case, pshape if "pairwise" in case.name else shape, times, errors,
                             peers, reps))
            print(f"sklearn {case.name}: " + ", ".join(
                f"{k} {gm.fmt_time(v)}" for k, v in times.items()) + (f" {why}" if why else ""),
                file=sys.stderr, flush=True)
    data.clear()
    setup.cleanup()
    return rows


def _all_data(setup: gm.Setup, host: gm.HostData, shape: tuple[int, int],
              pshape: tuple[int, int]) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    data, errors = {}, {}
    for lib in setup.libs:
        try:
            data[lib.key] = make_data(lib, host, shape, pshape)
        except Exception as exc:  # noqa: BLE001
            errors[lib.key] = "data: " + gm.error_text(exc)
    return data, errors


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.gpu_sklearn", description=__doc__)
    p.add_argument("--quick", action="store_true", help="50000 x 128 and 3 repetitions")
    p.add_argument("--only", default=None, help="cases whose name contains SUBSTRING")
    p.add_argument("--out", type=Path, default=None, help="folder for gpu_sklearn.json/.txt")
    p.add_argument("--cpu-smoke", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    setup = gm.cpu_setup() if args.cpu_smoke else gm.gpu_setup()
    mode = "cpu-smoke" if args.cpu_smoke else "quick" if args.quick else "default"
    meta = {**setup.meta, "mode": mode, "timing": setup.timing,
            "argv": list(argv if argv is not None else sys.argv[1:]),
            "date": _dt.datetime.now().isoformat(timespec="seconds")}
    with setup.context():
        rows = run(setup, args.quick, args.cpu_smoke, args.only)
    meta["elapsed_s"] = round(time.perf_counter() - t0, 1)
    keys = [lib.key for lib in setup.libs]
    peers = [lib.key for lib in setup.libs if lib.peer]
    print(gm.report_text(meta, rows, keys, peers), flush=True)
    if args.out or args.cpu_smoke:
        out = args.out or gm._default_out(True)
        paths = gm.write_outputs(out, meta, rows, keys, peers, with_plot=False,
                                 stem="gpu_sklearn")
        print(f"\nwrote {', '.join(map(str, paths))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
