"""Reproduce the runtime deadlocks of docs/guarantees.md with the provider alone.

``python scripts/repro_threads.py [--threads 8] [--rounds 20] [--in-order]`` runs a
mixed dpnp.tensor (or dpctl.tensor) workload in several threads, each on a queue of
its own, with no usmarray call at all, and exits 1 if a round does not finish within
``--timeout`` seconds (the deadlock), after printing every thread's Python stack
(faulthandler's watchdog: in the deadlock the GIL holder is blocked, so no Python
code runs).
For an upstream report: run it with a CPU-bound process beside it (the hang then
shows in most runs here); attach ``gdb -p PID -batch -ex "thread apply all bt"``.
"""

from __future__ import annotations

import argparse
import faulthandler
import os
import sys
import threading

import numpy as np


def _provider():
    from usmarray._env import configure_opencl_icd  # only the ICD path, no usmarray calls

    configure_opencl_icd()
    try:
        import dpnp.tensor as pt
    except ImportError:
        import dpctl.tensor as pt
    return pt


def work(pt, q, t: int) -> float:
    a = pt.arange(1000 + 37 * t, dtype="i8", sycl_queue=q)
    b = pt.asarray(np.linspace(0.0, 1.0, 4096) * (t + 1), sycl_queue=q)
    s = float(pt.sum(a * 3 + t))
    s += float(pt.asnumpy(pt.sqrt(pt.abs(pt.sin(b) * 10.0 - t)) + pt.exp(-b))[7])
    s += float(pt.asnumpy(pt.sort(pt.flip(a) % 97))[-1])
    c = pt.zeros(100, dtype="i8", sycl_queue=q)
    c[c == 0] = -1
    s += float(pt.asnumpy(a[a % 7 == t % 7])[0]) + float(pt.asnumpy(c)[0])
    return s


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--in-order", action="store_true", help="in-order queues per thread")
    args = ap.parse_args(argv)
    pt = _provider()
    import dpctl

    dev = dpctl.SyclDevice()
    prop = "in_order" if args.in_order else "default"
    for r in range(args.rounds):
        barrier = threading.Barrier(args.threads)

        def run(t: int, barrier: threading.Barrier = barrier) -> None:
            q = dpctl.SyclQueue(dev, property=prop)
            barrier.wait()
            work(pt, q, t)

        ths = [threading.Thread(target=run, args=(t,), daemon=True) for t in range(args.threads)]
        # a watchdog outside the GIL: in the deadlock no Python code runs any more
        print(f"round {r} (pid {os.getpid()}); on a deadlock the stacks follow", flush=True)
        faulthandler.dump_traceback_later(args.timeout, exit=True)
        for th in ths:
            th.start()
        for th in ths:
            th.join()
        faulthandler.cancel_dump_traceback_later()
    print(f"{args.rounds} rounds of {args.threads} threads finished", flush=True)
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
