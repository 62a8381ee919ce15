"""Per-call cost of the steps of a few short usmarray calls, against the provider's call
(the measured reason of the CPU-matrix rows that stay under 0.95 of their provider).

``python -m benchmarks.percall_steps [--device numpy|cpu] [--rounds 31]``

For ``empty``, ``reshape``, ``flip``, ``vecdot`` and ``asarray`` of a list, at the
CPU matrix's large shapes, the public function, the same function without the
serialization wrapper (the module's own function), its steps called alone (the
placement and dtype plan, the shape check, the allocation with its size check, the
backend's kernel, the wrapping of the result) and the provider's own call are timed in
interleaved rounds, in one process; each line is the median microseconds per call and
the fastest round.  On the SYCL device every timed call of a kernel is followed by a
queue wait, as in the matrix, so that the allocations of successive calls do not pile
up.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

Fn = Callable[[], Any]


def _per_call_us(f: Fn, n: int) -> float:
    t = time.perf_counter()
    for _ in range(n):
        f()
    return (time.perf_counter() - t) / n * 1e6


def run(title: str, cases: dict[str, Fn], rounds: int, target_s: float = 0.004) -> None:
    """Print the median and fastest round (us per call) of each case, interleaved."""
    reps = {}
    for k, f in cases.items():
        f()
        t = time.perf_counter()
        f()
        reps[k] = max(1, int(target_s / max(time.perf_counter() - t, 1e-7)))
    got: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(rounds):
        for k, f in cases.items():
            got[k].append(_per_call_us(f, reps[k]))
    print(f"== {title}")
    for k, v in got.items():
        print(f"   {k:52s} {statistics.median(v):9.3f} us   (fastest {min(v):.3f})")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.percall_steps", description=__doc__)
    p.add_argument("--device", default="numpy", help="numpy (default) or a SYCL filter string")
    p.add_argument("--rounds", type=int, default=31)
    args = p.parse_args(argv)

    import usmarray as xp
    from usmarray import _array, _creation, _linalg_main, _manipulation, _migration

    dev = xp.Device.create_device(args.device)
    be, q = dev._be, dev._q
    numpy = be.name == "numpy"
    prov: Any = np if numpy else importlib.import_module(str(xp.provider))
    wait: Callable[[Any], None] = (lambda r: None) if numpy else (lambda r: q.wait())
    pq = {} if numpy else {"sycl_queue": q}
    f32, d = xp.float32, np.dtype(np.float32)
    rng = np.random.default_rng(0)

    s = (2**21,)
    plan = _creation._plan(dev, f32, None, None, "empty")
    raw = be.empty(s, dtype=d, usm_type=plan[2], queue=q)
    run("empty((2**21,), dtype=float32, device=d)", {
        "provider empty": lambda: wait(prov.empty(s, dtype=d, **pq)),
        "usmarray.empty": lambda: wait(xp.empty(s, dtype=f32, device=dev)),
        "  without the serialization wrapper": lambda: wait(_creation.empty(s, dtype=f32, device=dev)),
        "  step: placement and dtype (_plan)": lambda: _creation._plan(dev, f32, None, None, "empty"),
        "  step: shape check (_shape)": lambda: _creation._shape(s, "empty"),
        "  step: size check and kernel (_alloc)": lambda: wait(_creation._alloc(*plan, be.empty, s)),
        "  step: the backend's kernel alone": lambda: wait(be.empty(s, dtype=d, usm_type=plan[2], queue=q)),
        "  step: wrapping the result (wrap_with)": lambda: _array.wrap_with(be, raw),
    }, args.rounds)

    h = rng.standard_normal((1024, 1024)).astype(np.float32)
    m = xp.asarray(h, device=dev)
    pm = h if numpy else prov.asarray(h, **pq)
    shape = (-1,)
    run("reshape(x, (-1,)) of a (1024, 1024) float32 array (a view)", {
        "provider reshape": lambda: wait(prov.reshape(pm, shape)),
        "usmarray.reshape": lambda: wait(xp.reshape(m, shape)),
        "  without the serialization wrapper": lambda: wait(_manipulation.reshape(m, shape)),
        "  step: the backend's kernel alone": lambda: wait(be.reshape(m._arr, shape)),
        "  step: wrapping the result (wrap_with)": lambda: _array.wrap_with(be, raw),
    }, args.rounds)

    x = xp.asarray(h.reshape(-1)[: 2**21], device=dev)
    px = h.reshape(-1)[: 2**21] if numpy else prov.asarray(h.reshape(-1)[: 2**21], **pq)
    rev = (slice(None, None, -1),)
    run("flip(x) of 2**21 float32 (a view)", {
        "provider flip": lambda: wait(prov.flip(px)),
        "usmarray.flip (no wrapper: a view-only function)": lambda: wait(xp.flip(x)),
        "  step: the raw array's reversing slice": lambda: wait(x._arr[rev]),
        "  step: wrapping the result (wrap_with)": lambda: _array.wrap_with(be, raw),
    }, args.rounds)

    a = rng.standard_normal((1562, 128)).astype(np.float32)
    b = rng.standard_normal((1562, 128)).astype(np.float32)
    ua, ub = xp.asarray(a, device=dev), xp.asarray(b, device=dev)
    pa, pb = (a, b) if numpy else (prov.asarray(a, **pq), prov.asarray(b, **pq))
    run("vecdot of two (1562, 128) float32 arrays", {
        "provider vecdot": lambda: wait(prov.vecdot(pa, pb)),
        "usmarray.vecdot": lambda: wait(xp.vecdot(ua, ub)),
        "  without the serialization wrapper": lambda: wait(_linalg_main.vecdot(ua, ub)),
        "  step: operand checks (binary_numeric)": lambda: _linalg_main.binary_numeric("vecdot", ua, ub),
        "  step: the backend's kernel alone": lambda: wait(be.vecdot(ua._arr, ub._arr, axis=-1)),
    }, args.rounds)

    floats = rng.standard_normal(1000).tolist()
    run("asarray(list of 1000 Python floats, dtype=float32)", {
        "provider asarray": lambda: wait(prov.asarray(floats, dtype=d, **pq)),
        "usmarray.asarray (takes its lock itself)": lambda: wait(xp.asarray(floats, dtype=f32, device=dev)),
        "  step: the list as one host array (_host_sequence)": lambda: _migration._host_sequence(floats, d, q),
    }, args.rounds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
