"""The source of concat and stack's copy (:mod:`.join`), no CuPy needed, so that tests
compile it, and run its logic as host C++, without a GPU: ``include/usmarray/join.cuh``
and the ``extern "C"`` entry point ``k``."""

from __future__ import annotations

from .headers import header

#: the most inputs one launch takes (the table travels by value in one kernel parameter)
MAX_INPUTS = 64

#: the entry point of ``include/usmarray/join.cuh``'s copy (T: the word that moves an
#: element or several, :data:`._launch.WORDS`; the table of at most :data:`MAX_INPUTS`
#: inputs)
ENTRY = """typedef %s T;
extern "C" __global__ void __launch_bounds__(256) k(const usm_join_tab<T, %d> tab,
    T* __restrict__ out, const long long outer, const long long total) {
  usm_join(tab, out, outer, total);
}
"""


def source(word: str) -> str:
    """The kernel ``k`` that moves words of C type ``word``."""
    return header("join.cuh") + ENTRY % (word, MAX_INPUTS)


__all__ = ["ENTRY", "MAX_INPUTS", "source"]
