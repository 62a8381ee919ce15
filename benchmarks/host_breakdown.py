"""Where the host time of a small call goes (issue 25, item 4): the measured reason of
each small-size miss of the GPU ops matrix.

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
    import numpy as np

    spin = cupy.RawKernel(r'''extern "C" __global__ void k(long long n) {
      const long long t = clock64(); while (clock64() - t < n) {} }''', "k")
    rate = cupy.cuda.runtime.getDeviceProperties(0)["clockRate"] * 1e3  # Hz

    def sync() -> None:
        cupy.cuda.runtime.deviceSynchronize()

    def waits(fn: gm.Fn) -> bool:
        sync()
        spin((1,), (1,), (np.int64(int(3e-3 * rate)),))
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


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.host_breakdown",
                                description="host time of small usmarray calls by layer")
    p.add_argument("--device", default="cuda:0")
    p.add_argument("--only", default=None, help="comma-separated op name substrings")
    p.add_argument("--matrix", type=Path, default=None, help="a gpu_matrix.json to join")
    p.add_argument("--top", type=int, default=0,
                   help="also list each op's N functions of largest self time")
    p.add_argument("--out", type=Path, default=run_dir("host-breakdown"))
    args = p.parse_args(argv)
    import usmarray

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
