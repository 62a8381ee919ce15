"""Throughput on large arrays: GB/s from the bytes each op must move, GFLOP/s for matmul.

Sizes go by decades from 10**4 elements up to a cap per op (sort and matmul are
slow on a CPU SYCL device, so they stop earlier).  Every SYCL call ends with the
queue's ``wait()``.  array-api-strict is timed up to 10**6 elements only: above
that it is NumPy plus a constant and only costs time.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._context import Context
from ._jobs import Job, has_all, with_sync
from ._timing import measure

STRICT_MAX_ELEMENTS = 10**6


@dataclass(frozen=True)
class Op:
    name: str
    kind: str
    needs: tuple[str, ...]
    build: Callable[[Any, dict[str, Any]], Callable[[], Any]]
    bytes_moved: Callable[[int, int], int]  # (elements of one input, itemsize) -> bytes
    full_cap: int
    quick_cap: int
    flops: Callable[[int], float] | None = None  # (elements of one input) -> flop


def _matmul_dim(n: int) -> int:
    return max(1, round(math.sqrt(n)))


OPS: list[Op] = [
    Op("sqrt", "unary", ("sqrt",), lambda ns, d: lambda: ns.sqrt(d["x"]),
       lambda n, i: 2 * n * i, 10**8, 10**6),
    Op("sin", "unary", ("sin",), lambda ns, d: lambda: ns.sin(d["x"]),
       lambda n, i: 2 * n * i, 10**8, 10**6),
    Op("add", "binary", ("add",), lambda ns, d: lambda: ns.add(d["x"], d["y"]),
       lambda n, i: 3 * n * i, 10**8, 10**6),
    Op("sum", "reduction", ("sum",), lambda ns, d: lambda: ns.sum(d["x"]),
       lambda n, i: n * i, 10**8, 10**6),
    Op("max", "reduction", ("max",), lambda ns, d: lambda: ns.max(d["x"]),
       lambda n, i: n * i, 10**8, 10**6),
    Op("cumulative_sum", "scan", ("cumulative_sum",),
       lambda ns, d: lambda: ns.cumulative_sum(d["x"]),
       lambda n, i: 2 * n * i, 10**8, 10**6),
    Op("sort", "sort", ("sort",), lambda ns, d: lambda: ns.sort(d["x"]),
       lambda n, i: 2 * n * i, 10**7, 10**5),
    Op("matmul", "matmul", ("matmul",), lambda ns, d: lambda: ns.matmul(d["A"], d["B"]),
       lambda n, i: 3 * n * i, 10**6, 10**5,
       flops=lambda n: 2.0 * _matmul_dim(n) ** 3),
]

DTYPES = ("float32", "float64")


def sizes(max_elements: int, low: int = 10**4) -> list[int]:
    out = []
    n = low
    while n <= max_elements:
        out.append(n)
        n *= 10
    return out


def jobs(
    ctx: Context,
    *,
    quick: bool,
    max_elements: int,
    budget_s: float,
    min_rounds: int,
    ops: list[str] | None = None,
) -> list[Job]:
    selected = [op for op in OPS if ops is None or op.name in ops]
    cache: dict[str, Any] = {}

    def inputs(n: int, dtype: str, matrix: bool) -> dict[str, dict[str, Any]]:
        key = (n, dtype, matrix)
        if cache.get("key") != key:
            cache.clear()  # free the previous size before allocating the next
            rng = ctx.rng()
            keys = [k for k in ctx.keys if k != "strict" or n <= STRICT_MAX_ELEMENTS]
            if matrix:
                m = _matmul_dim(n)
                hosts = {
                    "A": rng.random((m, m), dtype=np.dtype(dtype).type),
                    "B": rng.random((m, m), dtype=np.dtype(dtype).type),
                }
            else:
                hosts = {
                    "x": rng.random(n, dtype=np.dtype(dtype).type),
                    "y": rng.random(n, dtype=np.dtype(dtype).type),
                }
            cache["arrays"] = ctx.place_all(keys, **hosts)
            cache["key"] = key
        return cache["arrays"]

    def make(op: Op, n: int, dtype: str) -> Job:
        def run() -> dict[str, Any]:
            matrix = op.kind == "matmul"
            arr = inputs(n, dtype, matrix)
            elements = _matmul_dim(n) ** 2 if matrix else n
            fns: dict[str, Callable[[], Any] | None] = {}
            for key, ns in ctx.namespaces().items():
                if key not in arr:
                    continue
                if not has_all(ns, op.needs):
                    fns[key] = None
                    continue
                fns[key] = with_sync(op.build(ns, arr[key]), ctx.sync_for(key))
            if fns.get("raw") is not None:  # A/A control: the raw call a second time
                fns["raw_aa"] = with_sync(op.build(ctx.pt, arr["raw"]), ctx.sync_for("raw"))
            stats = measure(
                fns,
                budget_s=budget_s,
                min_rounds=min_rounds,
                max_rounds=200,
                target_sample_s=5e-3,
                warmup=1,
            )
            itemsize = np.dtype(dtype).itemsize
            return {
                "op": op.name,
                "kind": op.kind,
                "n": elements,
                "dtype": dtype,
                "bytes": op.bytes_moved(elements, itemsize),
                "flops": op.flops(elements) if op.flops else None,
                "stats": stats,
            }

        return Job("throughput", f"throughput: {op.name} {dtype} n={n:.0e}", run)

    out = []
    for n in sizes(max_elements):
        for dtype in DTYPES:
            for op in selected:
                cap = op.quick_cap if quick else op.full_cap
                if n <= min(cap, max_elements):
                    out.append(make(op, n, dtype))
    return out  # ordered by (size, dtype): each input set is allocated once
