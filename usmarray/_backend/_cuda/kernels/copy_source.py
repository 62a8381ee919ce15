"""The sources of the row copies, ``repeat`` and ``roll`` (:mod:`.broadcast`), no CuPy
needed, so that tests compile them, and run their logic as host C++, without a GPU:
``include/usmarray/copy.cuh`` and one ``extern "C"`` entry point ``k`` each."""

from __future__ import annotations

from .headers import header

#: the entry points of ``include/usmarray/copy.cuh``'s copies (T: the word that moves an
#: element, :data:`._launch.WORDS`)
ROWS_OF = """typedef %s T;
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ src,
    T* __restrict__ out, const long long rows, const long long m) {
  usm_rows_of(src, out, rows, m);
}
"""
REPEAT = """typedef %s T;
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ src,
    T* __restrict__ out, const long long total, const long long inner, const long long reps) {
  usm_repeat(src, out, total, inner, reps);
}
"""
ROLL = """typedef %s T;
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ src,
    T* __restrict__ out, const long long total, const long long n, const long long inner,
    const long long s) {
  usm_roll(src, out, total, n, inner, s);
}
"""


def source(entry: str, word: str) -> str:
    """The kernel ``entry`` (:data:`ROWS_OF`, :data:`REPEAT` or :data:`ROLL`) moving
    elements as words of C type ``word``."""
    return header("copy.cuh") + entry % word


__all__ = ["REPEAT", "ROLL", "ROWS_OF", "source"]
