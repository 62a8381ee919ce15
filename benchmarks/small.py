"""Per-call cost on small arrays (100 float64 elements).

Each case is one line of array code written once against a namespace ``ns``
(usmarray, dpnp.tensor, numpy, array_api_strict): the same expression runs in
every column.  Kernel ops are followed by the queue's ``wait()`` in the SYCL
columns, so a call is the latency a user sees; metadata-only ops (views) launch no
kernel and are timed without it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ._context import Context
from ._jobs import Job, has_all, with_sync
from ._timing import measure

N = 100

# name, kind, functions it needs from the namespace, builder(ns, arrays) -> call
Case = tuple[str, str, tuple[str, ...], Callable[[Any, dict[str, Any]], Callable[[], Any]]]

CASES: list[Case] = [
    ("add", "kernel", ("add",), lambda ns, d: lambda: ns.add(d["x"], d["y"])),
    ("x*y+z", "kernel", (), lambda ns, d: lambda: d["x"] * d["y"] + d["z"]),
    ("sin", "kernel", ("sin",), lambda ns, d: lambda: ns.sin(d["x"])),
    ("sum", "kernel", ("sum",), lambda ns, d: lambda: ns.sum(d["x"])),
    ("mean", "kernel", ("mean",), lambda ns, d: lambda: ns.mean(d["x"])),
    ("slice x[10:60]", "metadata", (), lambda ns, d: lambda: d["x"][10:60]),
    ("reshape (10,10)", "metadata", ("reshape",), lambda ns, d: lambda: ns.reshape(d["x"], (10, 10))),
    ("permute_dims", "metadata", ("permute_dims",), lambda ns, d: lambda: ns.permute_dims(d["x2"], (1, 0))),
    ("bool mask x[m]", "kernel", (), lambda ns, d: lambda: d["x"][d["m"]]),
    ("concat", "kernel", ("concat",), lambda ns, d: lambda: ns.concat([d["x"], d["y"]])),
    ("argsort", "kernel", ("argsort",), lambda ns, d: lambda: ns.argsort(d["x"])),
    ("astype f32", "kernel", ("astype", "float32"), lambda ns, d: lambda: ns.astype(d["x"], ns.float32)),
    ("asarray(list)", "kernel", ("asarray",), lambda ns, d: lambda: ns.asarray(d["lst"])),
]


def _inputs(ctx: Context) -> dict[str, dict[str, Any]]:
    rng = ctx.rng()
    x = rng.random(N)
    arrays = ctx.place_all(
        ctx.keys,
        x=x,
        y=rng.random(N),
        z=rng.random(N),
        m=x > 0.5,
        x2=rng.random((10, 10)),
    )
    for k in arrays:
        arrays[k]["lst"] = x.tolist()
    return arrays


def jobs(ctx: Context, *, budget_s: float, min_rounds: int) -> list[Job]:
    state: dict[str, Any] = {}

    def arrays() -> dict[str, dict[str, Any]]:
        if "arrays" not in state:
            state["arrays"] = _inputs(ctx)
        return state["arrays"]

    def make(case: Case) -> Job:
        name, kind, needs, build = case

        def run() -> dict[str, Any]:
            arr = arrays()
            fns: dict[str, Callable[[], Any] | None] = {}
            for key, ns in ctx.namespaces().items():
                if not has_all(ns, needs):
                    fns[key] = None
                    continue
                sync = ctx.sync_for(key) if kind == "kernel" else None
                fns[key] = with_sync(build(ns, arr[key]), sync)
            if fns.get("raw") is not None:  # A/A control: the raw call a second time
                fns["raw_aa"] = with_sync(build(ctx.pt, arr["raw"]), ctx.sync_for("raw") if kind == "kernel" else None)
            stats = measure(fns, budget_s=budget_s, min_rounds=min_rounds)
            return {"op": name, "kind": kind, "n": N, "dtype": "float64", "stats": stats}

        return Job("small", f"small: {name}", run)

    return [make(c) for c in CASES]


def host_values_match(ctx: Context) -> bool:
    """A sanity check that the columns compute the same thing (sum of x)."""
    arr = _inputs(ctx)
    ref = float(np.sum(arr["numpy"]["x"]))
    got = float(ctx.xp.sum(arr["usm"]["x"]))
    return abs(ref - got) <= 1e-9 * max(1.0, abs(ref))
