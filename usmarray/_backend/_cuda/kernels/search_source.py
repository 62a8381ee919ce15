"""The source of ``searchsorted``'s kernel (:mod:`.search`), no CuPy needed, so that
tests compile it, and run its logic as host C++, without a GPU: keys.py's order key of
the dtype, ``include/usmarray/search.cuh`` and the ``extern "C"`` entry point ``k``."""

from __future__ import annotations

import numpy as np

from .headers import header
from .keys import key_source

#: the kernel's entry point, after keys.py's key_source and search.cuh
ENTRY = r"""
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ x,
    const long long* __restrict__ sorter, const T* __restrict__ v,
    long long* __restrict__ out, const long long n, const long long m,
    const long long xs, const long long right) {
  usm_search(x, sorter, v, out, n, m, xs, right);
}
"""


def source(d: np.dtype) -> str:
    """The kernel ``k`` of ``searchsorted`` for elements of dtype ``d``."""
    return key_source(d) + header("search.cuh") + ENTRY


__all__ = ["ENTRY", "source"]
