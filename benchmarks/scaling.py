"""Time against size, from 10 elements up: the fixed launch cost and the bandwidth slope.

For each op and column the model ``t(n) = t0 + bytes(n) / bw`` is fitted by least
squares on relative errors (each size weighs the same on a log-log plot):
``t0`` is the fixed cost of one call (launch, wrapper, sync), ``bw`` the rate the
op reaches once the arrays are large.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ._context import Context
from ._jobs import Job, has_all, with_sync
from ._timing import Stats, measure

# name, needs, build, bytes per element moved (in units of itemsize)
OPS: list[tuple[str, tuple[str, ...], Callable[[Any, dict[str, Any]], Callable[[], Any]], int]] = [
    ("add", ("add",), lambda ns, d: lambda: ns.add(d["x"], d["y"]), 3),
    ("sum", ("sum",), lambda ns, d: lambda: ns.sum(d["x"]), 1),
]
KEYS = ("usm", "raw", "numpy")
DTYPE = "float64"


def sizes(max_elements: int) -> list[int]:
    """10, 32, 100, 316, ... (half decades) up to ``max_elements``."""
    out = []
    k = 2  # 10**(k/2)
    while True:
        n = round(10 ** (k / 2))
        if n > max_elements:
            return out
        out.append(n)
        k += 1


def fit(ns: list[int], bytes_per: int, times: list[float]) -> dict[str, float]:
    """Least squares on relative error for t = t0 + bytes/bw; NaN where it fails."""
    pts = [(n * bytes_per, t) for n, t in zip(ns, times, strict=False) if t > 0 and math.isfinite(t)]
    if len(pts) < 3:
        return {"t0_s": math.nan, "bw_Bps": math.nan}
    b = np.array([p[0] for p in pts], dtype=float)
    t = np.array([p[1] for p in pts], dtype=float)
    design = np.stack([1.0 / t, b / t], axis=1)
    (t0, slope), *_ = np.linalg.lstsq(design, np.ones_like(t), rcond=None)
    return {
        "t0_s": float(t0) if t0 > 0 else math.nan,
        "bw_Bps": float(1.0 / slope) if slope > 0 else math.nan,
    }


def jobs(ctx: Context, *, max_elements: int, budget_s: float, min_rounds: int) -> list[Job]:
    out: list[Job] = []
    itemsize = np.dtype(DTYPE).itemsize
    for name, needs, build, per in OPS:
        for n in sizes(max_elements):

            def run(name: str = name, needs: tuple = needs, build: Callable = build,
                    per: int = per, n: int = n) -> dict[str, Any]:
                rng = ctx.rng()
                arr = ctx.place_all(
                    list(KEYS),
                    x=rng.random(n, dtype=np.float64),
                    y=rng.random(n, dtype=np.float64),
                )
                nss = ctx.namespaces()
                fns: dict[str, Callable[[], Any] | None] = {}
                for key in KEYS:
                    ns = nss[key]
                    fns[key] = (
                        with_sync(build(ns, arr[key]), ctx.sync_for(key))
                        if has_all(ns, needs) else None
                    )
                stats = measure(fns, budget_s=budget_s, min_rounds=min_rounds, warmup=2)
                return {"op": name, "n": n, "dtype": DTYPE, "bytes": n * per * itemsize,
                        "stats": stats}

            out.append(Job("scaling", f"scaling: {name} n={n}", run))
    return out


def fits(rows: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, float]]]:
    """``{op: {variant: {t0_s, bw_Bps}}}`` from the scaling rows."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for name, _needs, _build, per in OPS:
        rs = sorted((r for r in rows if r["op"] == name), key=lambda r: r["n"])
        out[name] = {}
        for key in KEYS:
            pairs = [(r["n"], r["stats"].get(key)) for r in rs]
            good = [(n, s.median) for n, s in pairs if isinstance(s, Stats) and s.ok]
            out[name][key] = fit(
                [n for n, _ in good], per * np.dtype(DTYPE).itemsize, [t for _, t in good]
            )
    return out
