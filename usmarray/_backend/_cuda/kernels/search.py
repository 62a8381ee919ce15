"""``searchsorted`` by one launch: a binary search per value of ``x2`` in the 1-D
ascending ``x1`` (read through ``sorter`` where given).

Order: NumPy's, NaN after every number (``x1`` sorted by the standard's ``sort`` keeps
NaNs at the end), compared as the sort kernels' unsigned keys, made from the bits alone
(a subnormal above zero, -0.0 equal to 0.0: the lent GPUs flush subnormals in float
comparisons); ``side="left"`` gives the first position whose element is not below
the value, ``"right"`` the first whose element is above it.  Both run the same loop of
``ceil(log2(n + 1))`` steps per value.  CuPy's own ``searchsorted`` costs about 16 us of
host time per call (its kernel, a ``digitize`` implementation, is built per call).
The device code is ``include/usmarray/search.cuh``, the kernel's source
:mod:`.search_source`.
"""

from __future__ import annotations

from typing import Any

import cupy
import numpy as np

from ._launch import Family, grid_1d, launch, stream_ptr
from .search_source import source

_nd = cupy.ndarray
_I64 = np.dtype(np.int64)
_REAL: frozenset[np.dtype] = frozenset(np.dtype(c) for c in "bBhHiIqQfd")


class Searches(Family):
    """``searchsorted`` where ``x1`` is a 1-D array and ``x2`` a C-contiguous one of the
    same real dtype, both plain device memory, and ``sorter`` (if any) a C-contiguous
    int64 array: the result is a new int64 array of ``x2``'s shape.  Anything else
    goes to the fallback."""

    def _takes(self, x1: Any, x2: Any, sorter: Any) -> bool:
        is_fast = self._is_fast
        return (x1.__class__ is _nd and x2.__class__ is _nd
                and x1.ndim == 1 and x1.dtype in _REAL and x2.dtype == x1.dtype
                and x2._c_contiguous and is_fast(x1) and is_fast(x2)
                and x1.strides[0] % x1.itemsize == 0
                and (sorter is None or (sorter.__class__ is _nd and sorter.dtype == _I64
                                        and sorter._c_contiguous and is_fast(sorter))))

    def search(self, x1: Any, x2: Any, right: bool, sorter: Any) -> Any:
        out = _nd(x2.shape, _I64)
        m = out.size
        if m:
            d = x1.dtype
            launch(self._cached(d, lambda: source(d)), grid_1d(m), (256, 1, 1), "QQQQqqqq",
                   x1.data.ptr, 0 if sorter is None else sorter.data.ptr, x2.data.ptr,
                   out.data.ptr, x1.shape[0], m, x1.strides[0] // x1.itemsize, int(right),
                   stream=stream_ptr())
        return out

    def wrap(self, fallback: Any) -> Any:
        def searchsorted(x1: Any, x2: Any, side: str = "left", sorter: Any = None) -> Any:
            if self._takes(x1, x2, sorter):
                return self.search(x1, x2, side == "right", sorter)
            return fallback(x1, x2, side=side, sorter=sorter)

        return searchsorted


__all__ = ["Searches"]
