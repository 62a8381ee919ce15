"""matmul and svd: usmarray (oneMKL on the SYCL CPU device) against NumPy on the host.

Run as ``python benchmarks/bench_linalg.py [--quick] [--repeats N]``.  For every case
the two variants are timed alternately, one sample each per round (the order rotates
every round, so machine drift touches both alike); a sample is a batch of calls lasting
about 50 ms, each usmarray call waiting for the device queue, so it includes the kernel;
before each sample the process sleeps 20 ms so that the other variant's worker threads
(which spin for a while after their work) do not compete with it.  The table shows per-call medians and the
ratio usmarray / NumPy (below 1: usmarray is faster).  Operands are float64 and
created once, outside the timing, on the default (CPU) device and in NumPy.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import usmarray as xp  # noqa: E402
from usmarray._backend._sycl import onemkl as _onemkl  # noqa: E402


def _inner(f: Callable[[], object], target_s: float) -> int:
    """Calls per sample so that a sample lasts about ``target_s`` (at least one)."""
    t0 = time.perf_counter()
    f()
    one = time.perf_counter() - t0
    return max(1, min(1000, int(target_s / max(one, 1e-7))))


def interleaved(variants: dict[str, Callable[[], object]], repeats: int,
                budget_s: float, settle_s: float = 0.02,
                sample_s: float = 0.05) -> dict[str, float]:
    """Median seconds per call of each variant, timed alternately.  A sample is a batch
    of calls lasting about ``sample_s`` (so thread wake-up latency is amortized)."""
    names = list(variants)
    for f in variants.values():  # warm-up: JIT compilation, allocator, caches
        f()
    inner = {k: _inner(f, sample_s) for k, f in variants.items()}
    samples: dict[str, list[float]] = {k: [] for k in names}
    start = time.perf_counter()
    r = 0
    while True:
        order = names[r % len(names):] + names[: r % len(names)]
        for k in order:
            # let the other variant's worker threads (OpenCL CPU runtime / OpenBLAS)
            # go idle first: on a shared CPU their spinning would bill this sample
            time.sleep(settle_s)
            f, n = variants[k], inner[k]
            t0 = time.perf_counter()
            for _ in range(n):
                f()
            samples[k].append((time.perf_counter() - t0) / n)
        r += 1
        if r >= repeats and (time.perf_counter() - start > budget_s or r >= 5 * repeats):
            break
    return {k: statistics.median(v) for k, v in samples.items()}


def cases(quick: bool) -> list[tuple[str, tuple[int, ...], Callable, Callable]]:
    rng = np.random.default_rng(0)
    out = []
    mm_sizes = [128, 512] if quick else [128, 512, 1024, 2048]
    for n in mm_sizes:
        a, b = rng.standard_normal((n, n)), rng.standard_normal((n, n))
        ua, ub = xp.asarray(a), xp.asarray(b)
        q = ua.sycl_queue

        def dev(ua=ua, ub=ub, q=q):
            r = ua @ ub
            q.wait()
            return r

        out.append(("matmul", (n, n), dev, lambda a=a, b=b: a @ b))
    batch = rng.standard_normal((64, 32, 32))
    ubatch = xp.asarray(batch)

    def dev_batch(u=ubatch, q=ubatch.sycl_queue):
        r = u @ u
        q.wait()
        return r

    out.append(("matmul", batch.shape, dev_batch, lambda: batch @ batch))
    svd_shapes = [(100, 100), (500, 200)] if quick else [(100, 100), (500, 200), (1000, 500),
                                                         (2000, 500)]
    for shape in svd_shapes:
        a = rng.standard_normal(shape)
        ua = xp.asarray(a)

        def dev_svd(ua=ua, q=ua.sycl_queue):
            r = xp.linalg.svd(ua, full_matrices=False)
            q.wait()
            return r

        out.append(("svd (reduced)", shape, dev_svd,
                    lambda a=a: np.linalg.svd(a, full_matrices=False)))

        def dev_vals(ua=ua, q=ua.sycl_queue):
            r = xp.linalg.svdvals(ua)
            q.wait()
            return r

        out.append(("svdvals", shape, dev_vals, lambda a=a: np.linalg.svd(a, compute_uv=False)))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="small sizes only")
    p.add_argument("--repeats", type=int, default=9, help="rounds per case (default 9)")
    p.add_argument("--budget", type=float, default=2.0, help="seconds per case (soft)")
    args = p.parse_args(argv)

    dev = xp.__array_namespace_info__().default_device()
    print(f"usmarray {xp.__version__} on {dev.sycl_device.name} ({dev!r}); "
          f"linalg kernels: {_onemkl.kernels().name}")
    print(f"NumPy {np.__version__}; medians of >= {args.repeats} interleaved rounds, "
          "float64\n")
    header = f"{'operation':<15}{'shape':<16}{'usmarray ms':>13}{'NumPy ms':>11}{'ratio':>8}"
    print(header)
    print("-" * len(header))
    for name, shape, dev_f, np_f in cases(args.quick):
        med = interleaved({"usm": dev_f, "np": np_f}, args.repeats, args.budget)
        ratio = med["usm"] / med["np"]
        print(f"{name:<15}{'x'.join(map(str, shape)):<16}{med['usm'] * 1e3:>13.3f}"
              f"{med['np'] * 1e3:>11.3f}{ratio:>8.2f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
