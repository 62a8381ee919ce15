"""Asynchrony: every read-back reflects all work submitted before it, from any thread.

Kernels are queued (the default queues are out of order); a result read back to
the host or to another device must nevertheless include every previously submitted
write.  Each check builds a long chain (``CHAIN`` dependent elementwise kernels, each
adding 1, or in-place assignments) on an array of ``N`` float64, then *immediately*
reads the result in one way: ``asnumpy``, ``__bool__`` of a comparison, ``__float__``
/ ``__int__`` of an element and of a reduction, ``np.from_dlpack`` of a host export,
``from_dlpack`` of a device export, ``to_device`` to another context and to the NumPy
backend, ``__array__``, a further kernel then ``asnumpy``.

The chain is submitted either by the reading thread itself or by another thread that
hands the array over the moment the last kernel is queued (``threading.Event``),
so the reader's own bookkeeping knows nothing of that work.  Runs in a child
interpreter (tests/test_reliability_common.py).
"""

from __future__ import annotations

import threading

import numpy as np
from test_reliability_common import DLPackProducer, assert_child_ok, begin, child_main, needs_sycl

MOD = "test_reliability_async"
N = 1 << 19
CHAIN = 40



class _Dev:
    def __init__(self, x):
        self.x = x

    def __dlpack_device__(self):
        return self.x.__dlpack_device__()

    def __dlpack__(self, **kw):
        return self.x.__dlpack__(**kw)


def _readers(xp, sub_queue):
    """name -> read(y) returning what it saw, as (kind, value); y holds base + CHAIN."""
    want = np.arange(N, dtype=np.float64) + CHAIN
    return want, {
        "asnumpy": lambda y: xp.asnumpy(y),
        "__bool__ of all(y == want)": lambda y: bool(xp.all(y == xp.asarray(want, device=y.device))),
        "__float__ of the last element": lambda y: float(y[-1]),
        "__int__ of an element": lambda y: int(xp.astype(y[N // 2], xp.int64)),
        "__float__ of sum(y)": lambda y: float(xp.sum(y)),
        "np.from_dlpack (host export)": lambda y: np.from_dlpack(DLPackProducer(y, host=True)).copy(),
        "from_dlpack (device export)": lambda y: xp.asnumpy(xp.from_dlpack(_Dev(y))),
        "to_device (other context)": lambda y: xp.asnumpy(y.to_device(sub_queue)),
        "to_device('numpy')": lambda y: xp.asnumpy(y.to_device("numpy")),
        "__array__": lambda y: np.asarray(y),
        "kernel then asnumpy": lambda y: xp.asnumpy(y - 1.0) + 1.0,
    }


def _check(name, got, want):
    if name == "__bool__ of all(y == want)":
        return got is True
    if name == "__float__ of the last element":
        return got == want[-1]
    if name == "__int__ of an element":
        return got == int(want[N // 2])
    if name == "__float__ of sum(y)":
        return got == float(want.sum())
    return np.array_equal(got, want)


def _chain(xp, base, mode):
    if mode == "new arrays":
        y = base
        for _ in range(CHAIN):
            y = y + 1.0
        return y
    y = xp.asarray(base, copy=True)  # in place: assignments through the array
    for _ in range(CHAIN):
        y[...] = y + 1.0
    return y


def _reads_see_all_work(rounds):
    import dpctl

    import usmarray as xp

    sub_queue = dpctl.SyclQueue(dpctl.SyclDevice().create_sub_devices(partition=1)[0])
    base = xp.asarray(np.arange(N, dtype=np.float64))
    want, readers = _readers(xp, sub_queue)
    problems = []
    for r in range(rounds):
        for where in ("same thread", "other thread"):
            for mode in ("new arrays", "in place"):
                for name, read in readers.items():
                    begin(f"pass {r}, {where}, {mode}: {name}")
                    if where == "same thread":
                        y = _chain(xp, base, mode)
                    else:
                        box, ready = {}, threading.Event()

                        def submit(box=box, ready=ready, mode=mode):
                            box["y"] = _chain(xp, base, mode)
                            ready.set()  # hand over at once: the kernels are still queued

                        th = threading.Thread(target=submit, daemon=True)
                        th.start()
                        assert ready.wait(60), "the submitting thread did not finish in 60 s"
                        y = box["y"]
                    got = read(y)
                    if not _check(name, got, want):
                        problems.append(f"pass {r}, {where}, {mode}, {name}: stale or wrong read")
                    if where == "other thread":
                        th.join(60)
    assert not problems, "\n".join(problems)


def _writes_from_another_thread():
    """A thread writes into an array the reader already holds; the reader waits on an
    Event, then reads: it must see the writes (no stale host copy, no torn read)."""
    import usmarray as xp

    x = xp.zeros(N, dtype=xp.float64)
    problems = []
    for r in range(6):
        begin(f"pass {r}")
        ready = threading.Event()

        def writer(ready=ready, r=r):
            for k in range(CHAIN):
                x[k % 2::2] = x[k % 2::2] + 1.0
            x[0] = float(r)
            ready.set()

        th = threading.Thread(target=writer, daemon=True)
        th.start()
        assert ready.wait(60)
        got = xp.asnumpy(x)
        want = np.full(N, CHAIN // 2 * (r + 1), dtype=np.float64)
        want[0] = r
        if not np.array_equal(got, want):
            problems.append(f"pass {r}: read {got[:4]}... want {want[:4]}...")
        th.join(60)
    assert not problems, "\n".join(problems)


@needs_sycl
def test_reads_reflect_all_previously_submitted_work():
    assert_child_ok(MOD, "_reads_see_all_work", 1, timeout=170)


def test_reads_reflect_writes_submitted_from_another_thread():
    assert_child_ok(MOD, "_writes_from_another_thread", timeout=120)


if __name__ == "__main__":
    child_main(globals())
