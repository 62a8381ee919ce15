"""The source of ``tril``/``triu``'s kernel (:mod:`.triangle`), no CuPy needed, so that
tests compile it, and run its logic as host C++, without a GPU:
``include/usmarray/triangle.cuh`` and the ``extern "C"`` entry point ``k``."""

from __future__ import annotations

from .headers import header

#: the entry point of ``include/usmarray/triangle.cuh``'s kernel
ENTRY = """typedef %s T;
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ src,
    T* __restrict__ dst, const long long total, const long long rows, const long long cols,
    const long long sb, const long long si, const long long sj, const long long diag,
    const long long lower) {
  usm_triangle(src, dst, total, rows, cols, sb, si, sj, diag, lower);
}
"""


def source(t: str) -> str:
    """The kernel ``k`` of ``tril``/``triu`` for elements of C type ``t``."""
    return header("triangle.cuh") + ENTRY % t


__all__ = ["ENTRY", "source"]
