"""Soak test: the mixed workload of tests/test_reliability_leaks.py for many iterations.

Prints, every ``--every`` iterations, the iteration, elapsed seconds, RSS (from
/proc/self/statm), RSS growth since the end of the warm-up, the growth per iteration
over the last interval, and the number of live USM allocations (``dpctl.memory``
objects found by the garbage collector).  Ends with a least-squares slope of RSS over
the iterations after warm-up, and exits with status 1 if that slope exceeds
``--max-slope`` bytes per iteration or the live USM allocation count changed.

Not run in CI (10^5 iterations take about 15 minutes on a 2-core machine).

    python scripts/soak.py                      # 10^5 iterations
    python scripts/soak.py -n 20000 --every 1000
    python scripts/soak.py --wait               # queue.wait() after every iteration
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))

from test_reliability_common import live_usm_memory, rss_bytes  # noqa: E402
from test_reliability_leaks import make_context, workload  # noqa: E402

import usmarray as xp  # noqa: E402


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-n", "--iterations", type=int, default=100_000)
    p.add_argument("--warmup", type=int, default=500)
    p.add_argument("--every", type=int, default=5000)
    p.add_argument("--max-slope", type=float, default=256.0,
                   help="bytes of RSS growth per iteration tolerated (default 256)")
    p.add_argument("--wait", action="store_true",
                   help="wait for every queue after each iteration")
    args = p.parse_args(argv)

    ctx = make_context()
    t0 = time.monotonic()
    base = None
    points = []
    last = None
    print(f"{'iter':>8} {'sec':>7} {'RSS MiB':>8} {'grown MiB':>9} {'B/iter':>8} {'USM allocs':>10}")
    for i in range(1, args.iterations + 1):
        workload(xp, i, ctx)
        if args.wait:
            for q in ctx.values():
                q.wait()
        if i == args.warmup or i % args.every == 0 or i == args.iterations:
            gc.collect()
            rss, usm = rss_bytes(), live_usm_memory()
            if i >= args.warmup:
                if base is None:
                    base = (i, rss, usm)
                points.append((i, rss))
            rate = (rss - last[1]) / (i - last[0]) if last else 0.0
            grown = (rss - base[1]) / 2**20 if base else 0.0
            print(f"{i:>8} {time.monotonic() - t0:>7.1f} {rss / 2**20:>8.1f} {grown:>9.2f} "
                  f"{rate:>8.1f} {usm:>10}", flush=True)
            last = (i, rss)
    if len(points) < 2:
        print("too few samples after warm-up for a slope")
        return 0
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    slope = sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x, _ in points)
    usm_end = live_usm_memory()
    print(f"RSS slope after warm-up: {slope:.1f} B/iteration (limit {args.max_slope}); "
          f"live USM allocations {base[2]} -> {usm_end}")
    return 0 if slope <= args.max_slope and usm_end == base[2] else 1


if __name__ == "__main__":
    sys.exit(main())
