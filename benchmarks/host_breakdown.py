"""Where the host time of a small call goes: each op's time split by layer (the
namespace, the backend, the provider, Python's own), the measured reason of each
small-size miss of the GPU ops matrix, and on the host, each op family against the
floor of NumPy's own call.

``python -m benchmarks.host_breakdown [--device cuda:0] [--only SUBSTRINGS]
[--matrix gpu_matrix.json] [--out DIR]``

For every op of the GPU matrix's table (``benchmarks.gpu_matrix.table``) at its small
shape, on usmarray's ``--device``:

* **host us/call**: the fastest of five bursts of calls with no synchronization (the
  matrix's small-size measure);
* **waits**: whether one call waits for the device (on a CUDA device a 3 ms spin
  kernel is queued first: a call that returns after more than 1.5 ms has synchronized);
* **layers**: the call's profile (``cProfile``, self time of every function) summed by
  layer and scaled to the unprofiled time: usmarray's namespace (``usmarray/*.py``),
  its backend (``usmarray/_backend/``), the provider (CuPy or NumPy, the driver launch
  included) and Python's own (builtins, ``contextlib``).  A profiler slows small Python
  functions more than C calls, so the shares lean towards the Python layers: read them
  as where to look, not as exact microseconds.

With ``--matrix`` (a ``gpu_matrix.json`` of the same kind of GPU) each row also shows
the best peer's host time and the ratio, and the report lists the ops under 0.92.
Writes ``host_breakdown.json`` and ``host_breakdown.md`` into ``--out``.

``python -m benchmarks.host_breakdown --families [--device numpy|cpu] [--rev REV]
[--only SUBSTRINGS] [--out DIR]`` times one call of each op family (:func:`families`:
elementwise, ``where``, reductions, indexing, creation, manipulation, small linalg) on
100 float64 elements against NumPy's own call on the same data, the floor of the NumPy
backend: CPU thread time per call, medians of interleaved rounds, the ratio of the
medians, and the A/A ratio (usmarray's call timed twice as two variants).  ``--rev``
adds usmarray at that git revision (extracted as ``benchmarks.ab`` does) to the same
rounds; an extraction has no compiled core, so it runs the pure-Python form
(``usmarray/_form.py``), and ``--rev HEAD`` in the compiled form compares the two forms
of the same code.  The report names the form each side runs.  On a SYCL device every call waits for its queue, as ``benchmarks.ab``'s do.
Writes ``host_families.json`` and ``host_families.txt`` into ``--out``.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as _dt
import json
import pstats
import time
from pathlib import Path
from typing import Any

from . import gpu_matrix as gm
from ._paths import run_dir

LAYERS = ("namespace", "backend", "provider", "python")
_BURST = 200


def layer_of(func: tuple[str, int, str]) -> str:
    """The layer of one profiled function ``(file, line, name)``."""
    path, _, name = func
    path = path.replace("\\", "/")
    if "/usmarray/_backend/" in path:
        return "backend"
    if "/usmarray/" in path:
        return "namespace"
    if any(p in path or p in name for p in ("cupy", "numpy", "dpctl", "dpnp")):
        return "provider"
    return "python"


def layer_shares(stats: dict[Any, tuple]) -> dict[str, float]:
    """Each layer's share of the summed self time of a ``pstats`` table."""
    tot = dict.fromkeys(LAYERS, 0.0)
    for func, (_, _, tt, _, _) in stats.items():
        tot[layer_of(func)] += tt
    s = sum(tot.values()) or 1.0
    return {k: v / s for k, v in tot.items()}


def host_us(fn: gm.Fn, sync: Any, n: int = _BURST) -> float:
    """Microseconds per call: the fastest of five bursts of ``n`` calls."""
    best = float("inf")
    for _ in range(5):
        sync()
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, time.perf_counter() - t0)
        sync()
    return best / n * 1e6


def _cuda_tools() -> tuple[Any, Any]:
    """(sync, waits) on a CUDA device: ``waits(fn)`` queues a 3 ms spin kernel and tells
    whether ``fn`` returned only after it."""
    import cupy

    from ._timing import cuda_spinner

    spin = cuda_spinner()

    def sync() -> None:
        cupy.cuda.runtime.deviceSynchronize()

    def waits(fn: gm.Fn) -> bool:
        sync()
        spin(3e-3)
        t0 = time.perf_counter()
        fn()
        el = time.perf_counter() - t0
        sync()
        return el > 1.5e-3

    return sync, waits


def top_functions(stats: dict[Any, tuple], total_us: float, n: int) -> list[list[Any]]:
    """The ``n`` functions of largest self time: [``file:line(name)``, us per call
    scaled like the layers, calls per call]."""
    tot = sum(tt for (_, _, tt, _, _) in stats.values()) or 1.0
    out = []
    for func, (cc, _, tt, _, _) in sorted(stats.items(), key=lambda kv: -kv[1][2])[:n]:
        path, line, name = func
        short = "/".join(path.replace("\\", "/").split("/")[-2:]) if path != "~" else ""
        out.append([f"{short}:{line}({name})", round(tt / tot * total_us, 2),
                    round(cc / _BURST, 2)])
    return out


def breakdown(device: str, only: str | None, top: int = 0) -> list[dict[str, Any]]:
    """One row per op of the table (``only``: see ``gpu_matrix.select``); ``top``: also
    the largest self times (:func:`top_functions`)."""
    import usmarray as xp

    if device.startswith("cuda"):
        sync, waits = _cuda_tools()
    else:
        def sync() -> None:
            return None

        def waits(fn: gm.Fn) -> bool | None:
            return None

    host = gm.HostData()
    rows: list[dict[str, Any]] = []
    for op in gm.select(gm.table(), only):
        row: dict[str, Any] = {"op": op.name, "family": op.family, "shape": list(op.small)}
        try:
            fn = op.build(gm.Kit(xp, device, host), op.small)
            for _ in range(3):
                fn()
            row["host_us"] = host_us(fn, sync)
            row["waits"] = waits(fn)
            pr = cProfile.Profile()
            pr.enable()
            for _ in range(_BURST):
                fn()
            pr.disable()
            sync()
            stats = pstats.Stats(pr).stats  # type: ignore[attr-defined]
            shares = layer_shares(stats)
            row["layers_us"] = {k: round(v * row["host_us"], 2) for k, v in shares.items()}
            if top:
                row["top"] = top_functions(stats, row["host_us"], top)
        except Exception as exc:  # noqa: BLE001 - the row records it, the run goes on
            row["error"] = gm.error_text(exc)
        rows.append(row)
        host.trim()
    return rows


def join_matrix(rows: list[dict[str, Any]], matrix: Path) -> None:
    """Add the best peer's small-size host time and the ratio from a matrix run."""
    m = json.loads(matrix.read_text())
    peers = m.get("peers", [])
    small = {(r["family"], r["op"]): r for r in m["rows"] if r.get("size") == "small"}
    for row in rows:
        r = small.get((row["family"], row["op"]))
        if r is None:
            continue
        ts = r.get("times_s", {})
        times = [ts[p] for p in peers if isinstance(ts.get(p), (int, float))]
        if times and "host_us" in row:
            row["best_peer_us"] = round(min(times) * 1e6, 2)
            row["ratio"] = round(row["best_peer_us"] / row["host_us"], 3)


def report(rows: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    lines = [f"# Host time of small calls by layer ({meta['device']}, {meta['date']})", "",
             meta["versions"], "",
             "Microseconds per call (no synchronization); layers from cProfile self time "
             "scaled to the unprofiled time (see `benchmarks/host_breakdown.py`).", "",
             "| op | host us | best peer us | ratio | waits | namespace | backend | provider "
             "| python |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['family']}/{r['op']} | {r['error']} |||||||| ")
            continue
        ly = r["layers_us"]
        lines.append(
            f"| {r['family']}/{r['op']} | {r['host_us']:.1f} | {r.get('best_peer_us', '')} | "
            f"{r.get('ratio', '')} | {'yes' if r['waits'] else 'no' if r['waits'] is False else ''}"
            f" | {ly['namespace']:.1f} | {ly['backend']:.1f} | {ly['provider']:.1f} | "
            f"{ly['python']:.1f} |")
    below = [r for r in rows if r.get("ratio", 1.0) < gm.BELOW]
    if below:
        lines += ["", f"Below {gm.BELOW}: {len(below)} op(s)."]
    tops = [r for r in rows if r.get("top")]
    if tops:
        lines += ["", "## Largest self times (us per call, scaled; calls per call)", ""]
        for r in tops:
            lines.append(f"- {r['family']}/{r['op']}: " + "; ".join(
                f"`{f}` {us} ({c})" for f, us, c in r["top"]))
    return "\n".join(lines) + "\n"


#: elements of the host table's arrays (matrices: 8x8, 4x4 for solve and cholesky)
FAMILY_N = 100
#: the host table's rows, in order
FAMILIES = ("x + y", "x + 1.0", "x < y", "sin(x)", "where", "sum", "mean", "x[2:50]",
            "x[int array]", "x[bool mask]", "x[2:50] = v", "zeros", "empty", "full",
            "asarray(list)", "asarray(scalar)", "reshape", "concat", "stack", "permute_dims",
            "matmul 8x8", "solve 4x4", "cholesky 4x4")


def _waiting(f: gm.Fn) -> gm.Fn:
    """``f`` followed by a wait for its result's queue."""
    def call() -> Any:
        r = f()
        r.device.wait()
        return r
    return call


def families(xp: Any, device: Any, wait: bool) -> dict[str, gm.Fn]:
    """One small call per op family on ``xp`` (usmarray, or NumPy with ``device`` None),
    on the same values; with ``wait`` each call waits for its result's queue."""
    import numpy as np

    def on(a: Any) -> Any:
        return xp.asarray(a) if device is None else xp.asarray(a, device=device)

    x, y = on(np.linspace(0, 1, FAMILY_N)), on(np.linspace(1, 2, FAMILY_N))
    mask, idx = x > 0.5, on(np.arange(0, FAMILY_N, 7))
    m = xp.reshape(x[:64], (8, 8))
    spd = on(np.eye(4) * 4 + 1)
    w, v = on(np.zeros(FAMILY_N)), on(np.ones(48))
    floats, dev = [1.0, 2.0, 3.0], device
    f64 = xp.float64

    def setitem() -> Any:
        w[2:50] = v
        return w

    sum_ = np.add.reduce if xp is np else xp.sum  # np.sum's Python wrapper doubles it
    # the placement keyword as a caller writes it (through ``**kw`` it cost 0.2 us)
    computed: dict[str, gm.Fn] = {
        "x + y": lambda: x + y,
        "x + 1.0": lambda: x + 1.0,
        "x < y": lambda: x < y,
        "sin(x)": lambda: xp.sin(x),
        "where": lambda: xp.where(mask, x, y),
        "sum": lambda: sum_(x),
        "mean": lambda: xp.mean(x),
        "x[int array]": lambda: x[idx],
        "x[bool mask]": lambda: x[mask],
        "x[2:50] = v": setitem,
        "zeros": lambda: xp.zeros(FAMILY_N, dtype=f64, device=dev),
        "full": lambda: xp.full(FAMILY_N, 2.0, dtype=f64, device=dev),
        "asarray(list)": lambda: xp.asarray(floats, device=dev),
        "asarray(scalar)": lambda: xp.asarray(1.0, device=dev),
        "concat": lambda: xp.concat([x, y]),
        "stack": lambda: xp.stack([x, y]),
        "matmul 8x8": lambda: m @ m,
        "solve 4x4": lambda: xp.linalg.solve(spd, spd),
        "cholesky 4x4": lambda: xp.linalg.cholesky(spd),
    }
    if xp is np:  # the floor: NumPy's fastest spelling of the same call
        computed.update({
            "zeros": lambda: np.zeros(FAMILY_N, f64), "full": lambda: np.full(FAMILY_N, 2.0, f64),
            "asarray(list)": lambda: np.asarray(floats), "asarray(scalar)": lambda: np.asarray(1.0),
            "concat": lambda: np.concatenate((x, y)),
        })
    if wait:  # each computing call waits for its result's queue
        computed = {k: _waiting(f) for k, f in computed.items()}
    # views and allocations without a fill: nothing to wait for
    calls: dict[str, gm.Fn] = {
        "x[2:50]": lambda: x[2:50],
        "empty": (lambda: np.empty(FAMILY_N, f64)) if xp is np else (
            lambda: xp.empty(FAMILY_N, dtype=f64, device=dev)),
        "reshape": (lambda: x.reshape(10, 10)) if xp is np else lambda: xp.reshape(x, (10, 10)),
        "permute_dims": (lambda: m.transpose(1, 0)) if xp is np else (
            lambda: xp.permute_dims(m, (1, 0))),
    }
    calls.update(computed)
    return {k: calls[k] for k in FAMILIES}
    return calls


def _load_rev(rev: str) -> Any:
    """usmarray at git revision ``rev``, imported as ``usmarray_at_rev``."""
    import importlib
    import sys
    import tempfile

    from .ab import _extract

    tmp = tempfile.mkdtemp(prefix="usmarray-rev-")
    _extract(rev, Path(tmp))
    sys.path.insert(0, tmp)
    return importlib.import_module("usmarray_at_rev")


def forms(rev: str | None) -> str:
    """Which form of the array core each side of the host table runs."""
    from usmarray import _form

    text = f"usmarray {_form.FORM} ({_form.REASON})"
    return text + (f"; at {rev}: pure-Python (an extraction has no compiled core)"
                   if rev else "")


def family_rows(device: str, only: str | None, rev: str | None = None,
                budget_s: float = 1.5) -> list[dict[str, Any]]:
    """One row per family (``only``: comma-separated substrings of their names): the
    median CPU thread time per call of NumPy, usmarray, usmarray again (A/A) and, with
    ``rev``, usmarray at that revision, timed in interleaved rounds; and usmarray's
    time split by layer (:func:`layer_shares`, scaled to its median)."""
    import numpy as np

    import usmarray as xp

    from ._timing import measure

    probe = xp.asarray([0.0], device=device)
    dev, wait = probe.device, probe._be.name != "numpy"
    sides = {"numpy": families(np, None, False), "usmarray": families(xp, dev, wait),
             "A/A": families(xp, dev, wait)}
    if rev:
        old = _load_rev(rev)
        sides[f"at {rev}"] = families(old, old.asarray([0.0], device=device).device, wait)
    keys = [k for k in sides["usmarray"]
            if not only or any(o.strip() in k for o in only.split(","))]
    rows = []
    for key in keys:
        st = measure({side: calls[key] for side, calls in sides.items()}, budget_s=budget_s,
                     min_rounds=9, clock=time.thread_time)
        row: dict[str, Any] = {"op": key}
        for side, s in st.items():
            row[side] = round(s.median * 1e6, 3) if s.ok else s.error
        fn = sides["usmarray"][key]
        pr = cProfile.Profile()
        pr.enable()
        for _ in range(_BURST):
            fn()
        pr.disable()
        shares = layer_shares(pstats.Stats(pr).stats)  # type: ignore[attr-defined]
        if isinstance(row["usmarray"], float):
            row["layers_us"] = {k: round(v * row["usmarray"], 3) for k, v in shares.items()}
        rows.append(row)
    return rows


def family_report(rows: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    """The host table: us per call, the ratios of medians, the layers."""
    rev = next((k for k in rows[0] if k.startswith("at ")), None) if rows else None
    head = (f"{'op':16s} {'NumPy':>7s} {'usmarray':>9s} {'ratio':>6s} {'A/A':>6s}"
            + (f" {rev[:12]:>12s} {'now/rev':>8s}" if rev else "")
            + f" | {'namespace':>9s} {'backend':>8s} {'provider':>8s} {'python':>7s}")
    lines = [f"Host time per call on {meta['device']}, {FAMILY_N} float64 elements",
             meta["versions"], f"array core: {meta.get('form', 'not recorded')}",
             "CPU thread time, median us per call over interleaved rounds; ratio: "
             "usmarray / NumPy;", "A/A: usmarray timed twice; layers: cProfile self "
             "time scaled to the median", "", head]
    def num(r: dict[str, Any], k: str) -> float | None:
        v = r.get(k)
        return v if isinstance(v, float) else None

    for r in rows:
        u, n, a = num(r, "usmarray"), num(r, "numpy"), num(r, "A/A")
        if u is None or n is None or a is None:
            lines.append(f"{r['op']:16s} {r.get('usmarray')}")
            continue
        line = f"{r['op']:16s} {n:7.2f} {u:9.2f} {u / n:6.2f} {a / u:6.3f}"
        if rev:
            o = num(r, rev)
            line += f" {o:12.2f} {u / o:8.3f}" if o else f" {r.get(rev)!s:>21s}"
        ly = r["layers_us"]
        line += (f" | {ly['namespace']:9.2f} {ly['backend']:8.2f} {ly['provider']:8.2f} "
                 f"{ly['python']:7.2f}")
        lines.append(line)
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.host_breakdown",
                                description="host time of small usmarray calls by layer")
    p.add_argument("--device", default="cuda:0")
    p.add_argument("--only", default=None, help="comma-separated op name substrings")
    p.add_argument("--matrix", type=Path, default=None, help="a gpu_matrix.json to join")
    p.add_argument("--top", type=int, default=0,
                   help="also list each op's N functions of largest self time")
    p.add_argument("--out", type=Path, default=run_dir("host-breakdown"))
    p.add_argument("--families", action="store_true",
                   help="the host table: one call per op family against NumPy's")
    p.add_argument("--rev", default=None,
                   help="with --families: also usmarray at this git revision")
    args = p.parse_args(argv)
    import usmarray

    if args.families:
        device = "numpy" if args.device.startswith("cuda") else args.device
        rows = family_rows(device, args.only, args.rev)
        meta = {"device": str(usmarray.asarray([0.0], device=device).device),
                "date": str(_dt.date.today()),
                "versions": ", ".join(f"{k} {v}" for k, v in gm._versions(
                    usmarray=usmarray).items()),
                "form": forms(args.rev)}
        args.out.mkdir(parents=True, exist_ok=True)
        text = family_report(rows, meta)
        (args.out / "host_families.json").write_text(json.dumps({**meta, "rows": rows},
                                                                indent=1))
        (args.out / "host_families.txt").write_text(text)
        print(text)
        return

    rows = breakdown(args.device, args.only, args.top)
    if args.matrix is not None:
        join_matrix(rows, args.matrix)
    meta = {"device": str(usmarray.asarray([0.0], device=args.device).device),
            "date": str(_dt.date.today()),
            "versions": ", ".join(f"{k} {v}" for k, v in gm._versions(
                usmarray=usmarray).items())}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "host_breakdown.json").write_text(json.dumps({**meta, "rows": rows}, indent=1))
    (args.out / "host_breakdown.md").write_text(report(rows, meta))
    print(report(rows, meta))


if __name__ == "__main__":
    main()
