"""usmarray's performance suite: ``python -m benchmarks [--quick]``.

usmarray, the raw provider (dpnp.tensor) on the same queue, NumPy and
array-api-strict are timed side by side in one process, interleaved, and
reported as medians and ratios.  See docs/benchmarks.md.
"""
