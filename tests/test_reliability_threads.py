"""Threads: 8 threads running a mixed workload give the serial results, without deadlock.

Each thread runs ``thread_work`` on its own in-order queue
(``dpctl.SyclQueue(dev, property="in_order")``), on usmarray's default queue (shared
by all threads, out-of-order), on a sub-device queue (another context) shared by all
threads, and on the NumPy backend: creation, elementwise chains, reductions, sort,
matmul, integer-array and mask indexing, assignments, ``to_device`` within and across
contexts and backends, DLPack to the device and to the host.  All threads also write
their own rows of one array on the shared queue and read a common input array.

The same function runs first serially (the reference), then in 8 threads started
together by a barrier, for ``ROUNDS`` rounds; every thread's results must equal the
serial ones (integers exactly, floats to 1e-12), and every thread must finish within
``JOIN_TIMEOUT`` seconds (``join(timeout=...)``; a thread still alive is a deadlock).
The whole check runs in a child interpreter, which pytest kills if it hangs.

Two runtime deadlocks lie under this test (diagnosed from native stacks of hung runs):

* the GIL cycle: a thread holding the GIL submits work and waits for the SYCL
  scheduler's write lock, while another thread waits on an event under its read lock
  and that event needs a provider host task, which needs the GIL.  usmarray breaks it
  by serializing its calls (``usmarray/_serial.py``); under load every run hung before.
* the OpenCL CPU runtime hang (IntelPython/dpctl#1954, open): a SYCL host-task thread
  in ``clWaitForEvents`` on an out-of-order queue runs another queue's executor task
  nested inside TBB and never wakes.  It needs several distinct out-of-order queues
  waited on at once, so the threads' own queues are in-order here; the out-of-order
  variant is a non-strict xfail below.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
from test_reliability_common import DLPackProducer, assert_child_ok, begin, child_main, needs_sycl

MOD = "test_reliability_threads"
THREADS = 8
ROUNDS = 6
JOIN_TIMEOUT = 60.0



def thread_work(xp, t: int, own_q, shared_q, sub_q, common, rows) -> dict:
    """The per-thread workload; returns NumPy results."""
    out = {}
    a = xp.arange(1000 + 37 * t, dtype=xp.int64, sycl_queue=own_q)
    b = xp.asarray(np.linspace(0.0, 1.0, 4096) * (t + 1), sycl_queue=own_q)
    out["sum"] = int(xp.sum(a * 3 + t))
    out["chain"] = xp.asnumpy(xp.sqrt(xp.abs(xp.sin(b) * 10.0 - t)) + xp.exp(-b))
    out["mean"] = float(xp.mean(b))
    out["sort"] = xp.asnumpy(xp.sort(xp.flip(a) % 97))
    out["argsort"] = xp.asnumpy(xp.argsort(xp.flip(a) % 89, stable=True))
    m = xp.reshape(b[:256], (16, 16))
    out["matmul"] = xp.asnumpy(xp.matmul(m, m.mT))
    out["take"] = xp.asnumpy(a[xp.asarray([0, 5, t, -1], sycl_queue=own_q)])
    out["mask"] = xp.asnumpy(a[a % 7 == t % 7])
    c = xp.zeros(100, dtype=xp.int64, sycl_queue=own_q)
    c[::3] = t
    c[xp.asarray([1, 2, 98], sycl_queue=own_q)] = 5
    c[c == 0] = -1
    out["setitem"] = xp.asnumpy(c)
    # a common input array (on the shared queue), read by every thread at once
    cm = common.to_device(own_q)  # same context: a view
    out["common"] = xp.asnumpy(cm[t::THREADS] * 2 + t)
    # work on the shared queue and on a shared sub-device queue (another context)
    d = b.to_device(shared_q)
    out["shared"] = xp.asnumpy(xp.cumulative_sum(d * 2.0 + 1.0))
    e = d.to_device(sub_q)
    out["sub"] = xp.asnumpy(xp.max(e, axis=0) + xp.min(e * e))
    out["numpy"] = xp.asnumpy(xp.sum(xp.reshape(b.to_device("numpy"), (64, 64)), axis=1))
    # DLPack
    out["dl_device"] = xp.asnumpy(xp.from_dlpack(DLPackProducer(a)) + 1)
    out["dl_host"] = np.from_dlpack(DLPackProducer(b[::-5], host=True)).copy()
    # this thread's own rows of an array shared by all threads
    rows[t] = xp.asarray(np.arange(16) + 100 * t, dtype=xp.int64, sycl_queue=shared_q)
    return out


def _compare(got: dict, want: dict, who: str) -> list[str]:
    bad = []
    for k, w in want.items():
        g = got.get(k)
        if isinstance(w, (int, np.integer)) or (isinstance(w, np.ndarray) and w.dtype.kind in "iub"):
            ok = np.array_equal(g, w)
        else:
            ok = g is not None and np.allclose(g, w, rtol=1e-12, atol=0)
        if not ok:
            bad.append(f"{who}: {k} differs")
    return bad


def _threads_match_serial(threads, rounds, join_timeout, own_queue="in_order"):
    import dpctl

    import usmarray as xp

    dev = dpctl.SyclDevice()

    def own():
        return dpctl.SyclQueue(dev, property="in_order") if own_queue == "in_order" else dpctl.SyclQueue(dev)

    shared_q = xp.asarray(0).sycl_queue  # usmarray's default queue
    sub_q = dpctl.SyclQueue(dev.create_sub_devices(partition=1)[0])
    common = xp.asarray(np.arange(4096, dtype=np.float64) ** 0.5, sycl_queue=shared_q)

    def fresh_rows():
        return xp.full((threads, 16), -1, dtype=xp.int64, sycl_queue=shared_q)

    begin("serial reference")
    ref_rows = fresh_rows()
    reference = [thread_work(xp, t, own(), shared_q, sub_q, common, ref_rows)
                 for t in range(threads)]
    ref_rows_np = xp.asnumpy(ref_rows)
    problems = []
    for r in range(rounds):
        begin(f"pass {r}: {threads} threads")
        rows = fresh_rows()
        results: list = [None] * threads
        barrier = threading.Barrier(threads)

        def run(t, rows=rows, results=results, barrier=barrier):
            try:
                q = own()  # the thread's own queue
                barrier.wait(timeout=join_timeout)
                results[t] = thread_work(xp, t, q, shared_q, sub_q, common, rows)
            except BaseException as exc:  # noqa: BLE001 - reported below
                results[t] = exc

        ths = [threading.Thread(target=run, args=(t,), daemon=True) for t in range(threads)]
        for th in ths:
            th.start()
        for th in ths:
            th.join(timeout=join_timeout)
        alive = [i for i, th in enumerate(ths) if th.is_alive()]
        assert not alive, f"pass {r}: threads {alive} still running after {join_timeout} s (deadlock)"
        for t, res in enumerate(results):
            if isinstance(res, BaseException):
                problems.append(f"pass {r} thread {t}: {type(res).__name__}: {res}")
            else:
                problems += _compare(res, reference[t], f"pass {r} thread {t}")
        if not np.array_equal(xp.asnumpy(rows), ref_rows_np):
            problems.append(f"pass {r}: shared rows {xp.asnumpy(rows)} != {ref_rows_np}")
    assert not problems, "\n".join(problems)


@needs_sycl
def test_eight_threads_match_the_serial_run_without_deadlock():
    assert_child_ok(MOD, "_threads_match_serial", THREADS, ROUNDS, JOIN_TIMEOUT, timeout=170)


@pytest.mark.xfail(strict=False, reason=(
    "Intel OpenCL CPU runtime hang (IntelPython/dpctl#1954): a SYCL host-task thread in "
    "clWaitForEvents on an out-of-order queue runs another queue's executor task nested in "
    "TBB and never wakes; 2 runs in 150 under load here (none in 22 with in-order own "
    "queues). Below usmarray; use in-order queues for per-thread queues on this runtime"))
def test_eight_threads_on_out_of_order_own_queues():
    assert_child_ok(MOD, "_threads_match_serial", THREADS, ROUNDS, 30.0, "out_of_order", timeout=120)


if __name__ == "__main__":
    child_main(globals())
