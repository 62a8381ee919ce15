"""Elementwise calls over the layouts a user's code produces, on ``cuda:0``, against CuPy
and PyTorch in one process.

``python -m benchmarks.elementwise_layouts [--size N] [--rounds R] [--host] [--functions]
[--queued] [--json PATH]``

Each case is one elementwise call at ``--size`` elements (2**24 by default) in one
layout: C-contiguous, an odd element offset (``x[1:]``), F order, a step
(``x[::2]``), a reversal (``x[::-1]``), a transposed 2-D array, a row, a column and a
0-D array broadcast, a Python scalar, mixed dtypes that promote, and a bool result.
Kernel time is CUDA events around ``--inner`` back-to-back calls (with ``--queued``
queued behind a spin kernel that outlasts their host time, so that a kernel shorter
than a call's host time is timed on the device, not on the host); the variants
(usmarray twice, for the A/A column, CuPy, PyTorch) are interleaved round by round and
the figure is the median over rounds.  ``ratio`` is the best peer's median over
usmarray's (above 1: usmarray is faster); ``A/A`` is usmarray's second copy over its
first.  ``GB/s`` counts the bytes the call must move (every operand read once, the
result written once), to compare with the device's copy rate (``copy`` row: a float4
device-to-device copy of the same bytes by CuPy).  Host time per call at 100 elements
(``--host``) is the median wall time of a call without synchronisation.  ``--functions``
adds every elementwise function of the standard (float32 where it takes floats, else
int32, else bool; operands in [0.5, 1.5) or [1, 8)), C-contiguous and at an odd
element offset, against the same peers.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ._timing import cuda_spinner


def _cases(n: int) -> list[tuple[str, Callable[[Any, Any], Callable[[], Any]], int]]:
    """(name, builder(namespace-like kit, arrays) -> call, bytes moved per call)."""
    side = int(round(n ** 0.5))
    m = side * side

    def c(name: str, build: Callable, nbytes: int) -> tuple:
        return (name, build, nbytes)

    return [
        c("x > 0 (f32 -> bool)", lambda k, a: lambda: k.gt(a["x"], 0.0), n * 5),
        c("x + y (f32, C)", lambda k, a: lambda: k.add(a["x"], a["y"]), n * 12),
        c("x * 2.0 (f32, scalar)", lambda k, a: lambda: k.mul(a["x"], 2.0), n * 8),
        c("x[1:] - x[:-1] (diff)", lambda k, a: lambda: k.sub(a["x"][1:], a["x"][:-1]), n * 12),
        c("x[::2] + y[::2] (step)", lambda k, a: lambda: k.add(a["x"][::2], a["y"][::2]), n * 6),
        c("x[::-1] + 1.0 (reversed)", lambda k, a: lambda: k.add(k.flip(a["x"]), 1.0), n * 8),
        c("A.T + B.T (transposed)", lambda k, a: lambda: k.add(a["A"].T, a["B"].T), m * 12),
        c("A + B.T (mixed order)", lambda k, a: lambda: k.add(a["A"], a["B"].T), m * 12),
        c("A + row", lambda k, a: lambda: k.add(a["A"], a["row"]), m * 8),
        c("A + column", lambda k, a: lambda: k.add(a["A"], a["col"]), m * 8),
        c("x + 0-D", lambda k, a: lambda: k.add(a["x"], a["zero_d"]), n * 8),
        c("x32 + x64 (promotes)", lambda k, a: lambda: k.add(a["x"], a["x64"]), n * 20),
        c("i32 == j32 (int -> bool)", lambda k, a: lambda: k.eq(a["i"], a["j"]), n * 9),
        c("sin(x) (f32)", lambda k, a: lambda: k.sin(a["x"]), n * 8),
        c("sin(x[1:]) (f32, offset)", lambda k, a: lambda: k.sin(a["x"][1:]), n * 8),
        c("isnan(x) (f32 -> bool)", lambda k, a: lambda: k.isnan(a["x"]), n * 5),
        c("maximum(x, y) (f64)", lambda k, a: lambda: k.maximum(a["x64"], a["y64"]), n * 24),
        c("logical_and (bool)", lambda k, a: lambda: k.land(a["p"], a["q"]), n * 3),
        c("where(x > 0, x, 0.0)", lambda k, a: lambda: k.where(a["x"] > 0, a["x"], 0.0), n * 13),
        c("clip(x, -1.0, 1.0)", lambda k, a: lambda: k.clip(a["x"], -1.0, 1.0), n * 8),
        c("astype(A.T, f64)", lambda k, a: lambda: k.astype(a["A"].T, "float64"), m * 12),
        c("copy (float4 ceiling)", lambda k, a: lambda: k.copy(a["x"]), n * 8),
    ]


class _Kit:
    def __init__(self, mod: Any, asarray: Callable[[np.ndarray], Any]) -> None:
        self.asarray = asarray
        self.gt = lambda a, b: a > b
        self.add = lambda a, b: a + b
        self.sub = lambda a, b: a - b
        self.mul = lambda a, b: a * b
        self.eq = lambda a, b: a == b
        self.sin = mod.sin
        self.isnan = mod.isnan
        self.maximum = mod.maximum
        self.land = mod.logical_and
        self.copy = getattr(mod, "copy", None) or (lambda a: a.clone())
        self.where = mod.where
        self.clip = getattr(mod, "clip", None) or getattr(mod, "clamp", None)
        self.astype = lambda a, d: a.astype(d)
        #: a reversed view (PyTorch has no negative steps: its flip copies)
        self.flip = lambda a: a[::-1]


def _arrays(n: int, conv: Callable[[np.ndarray], Any]) -> dict[str, Any]:
    rng = np.random.default_rng(0)
    side = int(round(n ** 0.5))
    x = rng.standard_normal(n, dtype=np.float32)
    return {
        "x": conv(x), "y": conv(rng.standard_normal(n, dtype=np.float32)),
        "x64": conv(x.astype(np.float64)),
        "y64": conv(rng.standard_normal(n)),
        "A": conv(rng.standard_normal((side, side), dtype=np.float32)),
        "B": conv(rng.standard_normal((side, side), dtype=np.float32)),
        "row": conv(rng.standard_normal(side, dtype=np.float32)),
        "col": conv(rng.standard_normal((side, 1), dtype=np.float32)),
        "zero_d": conv(np.asarray(1.5, dtype=np.float32)),
        "i": conv(rng.integers(0, 4, n, dtype=np.int32)),
        "j": conv(rng.integers(0, 4, n, dtype=np.int32)),
        "p": conv(rng.random(n) < 0.5), "q": conv(rng.random(n) < 0.5),
    }


#: NumPy's, CuPy's and PyTorch's names where they differ from the standard's
_CUPY_NAMES = {"acos": "arccos", "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh",
               "atan": "arctan", "atanh": "arctanh", "atan2": "arctan2",
               "bitwise_invert": "invert", "bitwise_left_shift": "left_shift",
               "bitwise_right_shift": "right_shift", "pow": "power"}
_TORCH_NAMES = {"bitwise_invert": "bitwise_not", "equal": "eq"}  # torch.equal: one bool
#: the layouts of the every-function section: a view of a base of 2n elements
_FN_LAYOUTS = {"C": lambda a: a[: a.shape[0] // 2],
               "x[1:]": lambda a: a[1: a.shape[0] // 2 + 1]}


def _function_cases() -> list[tuple[str, str, bool]]:
    """(function, dtype, unary) for every elementwise function of the standard: float32
    where it takes floats, else int32, else bool."""
    from usmarray._elementwise import BINARY, UNARY

    out = []
    for table, unary in ((UNARY, True), (BINARY, False)):
        for name, (cat, _) in table.items():
            names = {np.dtype(d).name for d in cat}
            d = next((x for x in ("float32", "int32", "bool") if x in names), None)
            if d is not None:
                out.append((name, d, unary))
    return out


@functools.cache
def _operand(d: str, n: int, k: int) -> np.ndarray:
    rng = np.random.default_rng(k)
    if d == "bool":
        return rng.random(2 * n) < 0.5
    if d == "int32":
        return rng.integers(1, 8, 2 * n, dtype=np.int32)
    return (rng.random(2 * n, dtype=np.float32) + 0.5).astype(np.float32)


#: seconds of spin queued per call of a round with ``--queued``: longer than the host
#: time of any call of this benchmark (15 to 30 us on the GPU hosts measured)
SPIN_PER_CALL_S = 60e-6


def _medians(calls: dict[str, Callable[[], Any]], rounds: int, inner: int,
             queued: bool = False) -> dict[str, float]:
    """Each call's median time in us (CUDA events around ``inner`` back-to-back calls),
    the calls interleaved round by round, each round starting at the next one.  With
    ``queued`` the calls of a round wait behind a spin kernel that outlasts their host
    time, so the events time the device alone (without it a kernel shorter than a call's
    host time measures the host)."""
    import cupy
    import torch

    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    spin = cuda_spinner() if queued else None
    times: dict[str, list[float]] = {k: [] for k in calls}
    for r in range(rounds):
        order = list(calls)
        for k in order[r % len(order):] + order[:r % len(order)]:
            f = calls[k]
            torch.cuda.synchronize()
            if spin is not None:
                spin(SPIN_PER_CALL_S * inner)
            start.record()
            for _ in range(inner):
                f()
            stop.record()
            stop.synchronize()
            times[k].append(cupy.cuda.get_elapsed_time(start, stop) * 1e3 / inner)
    return {k: statistics.median(v) for k, v in times.items()}


def _address(a: Any) -> int:
    """The device address of a CuPy array's or PyTorch tensor's first element."""
    return a.data_ptr() if hasattr(a, "data_ptr") else a.data.ptr


def run_functions(size: int, rounds: int, inner: int, queued: bool = False
                  ) -> list[dict[str, Any]]:
    """Every elementwise function, C-contiguous and at an odd element offset."""
    import cupy
    import torch

    import usmarray as xp

    convs = {"usmarray": lambda a: xp.asarray(a, device="cuda:0"), "cupy": cupy.asarray,
             "torch": lambda a: torch.from_numpy(a).cuda()}
    mods = {"usmarray": (xp, {}), "cupy": (cupy, _CUPY_NAMES), "torch": (torch, _TORCH_NAMES)}
    rows = []
    device: dict[tuple, Any] = {}
    for name, d, unary in _function_cases():
        keys = [(d, k) for k in range(1 if unary else 2)]
        for lay, view in _FN_LAYOUTS.items():
            calls = {}
            for k, conv in convs.items():
                mod, names = mods[k]
                fn = getattr(mod, names.get(name, name), None)
                if fn is None:
                    continue
                for dk in keys:
                    if (k, dk) not in device:
                        device[(k, dk)] = conv(_operand(dk[0], size, dk[1]))
                args = [view(device[(k, dk)]) for dk in keys]
                try:
                    res = fn(*args)
                except Exception as exc:
                    print(f"  {name} {lay}: {k}: {type(exc).__name__}", file=sys.stderr)
                    continue
                if k != "usmarray" and (not hasattr(res, "shape")
                                        or _address(res) == _address(args[0])):
                    continue  # the peer hands back its input (positive, real): no kernel
                calls[k] = functools.partial(fn, *args)
            if "usmarray" not in calls:
                continue
            calls["usmarray_b"] = calls["usmarray"]
            med = _medians(calls, rounds, inner, queued)
            u = med["usmarray"]
            peers = [med[p] for p in ("cupy", "torch") if p in med]
            row = {"case": f"{name} ({d}, {lay})", "us": {k: round(v, 2) for k, v in med.items()},
                   "ratio_best_peer": round(min(peers) / u, 3) if peers else None,
                   "aa": round(med["usmarray_b"] / u, 3)}
            rows.append(row)
            print(f"{row['case']:36s} usm {u:8.1f} us  cupy {med.get('cupy', float('nan')):8.1f}"
                  f"  torch {med.get('torch', float('nan')):8.1f}  ratio "
                  f"{row['ratio_best_peer']}  A/A {row['aa']}", flush=True)
    return rows


def run(size: int, rounds: int, inner: int, host: bool, queued: bool = False
        ) -> dict[str, Any]:
    import cupy
    import torch

    import usmarray as xp

    dev = cupy.cuda.runtime.getDeviceProperties(0)["name"]
    dev = dev.decode() if isinstance(dev, bytes) else dev
    kits = {
        "usmarray": (_Kit(xp, None), lambda a: xp.asarray(a, device="cuda:0")),
        "cupy": (_Kit(cupy, None), cupy.asarray),
        "torch": (_Kit(torch, None), lambda a: torch.from_numpy(np.ascontiguousarray(a)).cuda()),
    }
    kits["torch"][0].copy = lambda a: a.clone()
    kits["torch"][0].flip = lambda a: torch.flip(a, (0,))
    kits["torch"][0].astype = lambda a, d: a.to(getattr(torch, d))
    kits["usmarray"][0].astype = lambda a, d: xp.astype(a, getattr(xp, d))
    kits["torch"][0].where = lambda c, a, b: torch.where(c, a, b)
    kits["usmarray"][0].copy = lambda a: xp.asarray(a, copy=True)
    data = {k: _arrays(size, conv) for k, (_, conv) in kits.items()}
    rows = []
    for name, build, nbytes in _cases(size):
        calls = {}
        for k, (kit, _) in kits.items():
            try:
                f = build(kit, data[k])
                f()
            except Exception as exc:  # a peer without the call
                print(f"  {name}: {k}: {type(exc).__name__}: {exc}", file=sys.stderr)
            else:
                calls[k] = f
        if "usmarray" in calls:
            calls["usmarray_b"] = calls["usmarray"]
        med = _medians(calls, rounds, inner, queued)
        u = med.get("usmarray", float("nan"))
        peers = [med[p] for p in ("cupy", "torch") if p in med]
        row = {"case": name, "us": {k: round(v, 2) for k, v in med.items()},
               "ratio_best_peer": round(min(peers) / u, 3) if peers else None,
               "aa": round(med["usmarray_b"] / u, 3),
               "gb_s": round(nbytes / (u * 1e-6) / 1e9, 1)}
        rows.append(row)
        print(f"{name:28s} usm {u:8.1f} us  cupy {med.get('cupy', float('nan')):8.1f}  "
              f"torch {med.get('torch', float('nan')):8.1f}  ratio {row['ratio_best_peer']}"
              f"  A/A {row['aa']}  {row['gb_s']} GB/s", flush=True)
    out: dict[str, Any] = {"device": dev, "size": size, "rounds": rounds, "inner": inner,
                           "queued": queued, "rows": rows}
    if host:
        out["host"] = _host(kits)
    ratios = [r["ratio_best_peer"] for r in rows if r["ratio_best_peer"]]
    out["geomean"] = round(float(np.exp(np.mean(np.log(ratios)))), 3)
    print(f"geometric mean over {len(ratios)} cases: {out['geomean']}")
    return out


#: host time: batches of calls per library per round, rounds, and untimed calls first
HOST_BATCH, HOST_ROUNDS, HOST_WARMUP = 200, 30, 100


def _host(kits: dict) -> list[dict[str, Any]]:
    """Host time per call at 100 elements: per library, the median over
    :data:`HOST_ROUNDS` rounds of one batch of :data:`HOST_BATCH` calls, the libraries
    interleaved batch by batch in each round (a drift of the host's speed falls on all
    alike), usmarray timed twice (the A/A column)."""
    import torch

    data = {k: _arrays(100, conv) for k, (_, conv) in kits.items()}
    rows = []
    for name, build, _ in _cases(100):
        calls = {}
        for k, (kit, _) in kits.items():
            try:
                f = build(kit, data[k])
                for _ in range(HOST_WARMUP):
                    f()
            except Exception:
                continue
            calls[k] = f
        order = [*calls, *(["usmarray (A/A)"] if "usmarray" in calls else [])]
        samples: dict[str, list[float]] = {k: [] for k in order}
        for _ in range(HOST_ROUNDS):
            for k in order:
                f = calls[k.split(" ")[0]]
                t0 = time.perf_counter()
                for _ in range(HOST_BATCH):
                    f()
                samples[k].append((time.perf_counter() - t0) / HOST_BATCH * 1e6)
                torch.cuda.synchronize()
        meds = {k: statistics.median(v) for k, v in samples.items()}
        peers = [meds[p] for p in ("cupy", "torch") if p in meds]
        u = meds.get("usmarray", float("nan"))
        aa = meds.get("usmarray (A/A)")
        rows.append({"case": name, "us": {k: round(v, 2) for k, v in meds.items()},
                     "ratio_best_peer": round(min(peers) / u, 3) if peers else None,
                     "aa": round(aa / u, 3) if aa else None})
        print(f"host {name:28s} " + "  ".join(f"{k} {v:6.2f}" for k, v in meds.items()),
              flush=True)
    return rows


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--size", type=int, default=2**24)
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--inner", type=int, default=20)
    p.add_argument("--host", action="store_true")
    p.add_argument("--functions", action="store_true",
                   help="also every elementwise function, C-contiguous and at x[1:]")
    p.add_argument("--queued", action="store_true",
                   help="queue each round's calls behind a spin kernel: device time alone")
    p.add_argument("--json")
    a = p.parse_args(argv)
    res = run(a.size, a.rounds, a.inner, a.host, a.queued)
    if a.functions:
        fr = run_functions(a.size, max(5, a.rounds // 3), a.inner, a.queued)
        res["functions"] = fr
        ratios = [r["ratio_best_peer"] for r in fr if r["ratio_best_peer"]]
        res["functions_geomean"] = round(float(np.exp(np.mean(np.log(ratios)))), 3)
        low = [r["case"] for r in fr if (r["ratio_best_peer"] or 1) < 0.95]
        print(f"every function: geometric mean over {len(ratios)} cases "
              f"{res['functions_geomean']}; below 0.95: {len(low)}")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(res, fh, indent=1)


if __name__ == "__main__":
    main()
