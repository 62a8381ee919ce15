"""``take`` and ``take_along_axis`` with the bounds check inside the gather: one launch
and one small read-back instead of a check (reductions or a host copy of the indices,
read back) and then the gather.

The source is viewed as (outer, n, inner) around the axis, the result as (outer, k,
inner) for ``k`` indices; ``take`` reads index ``j`` for every (o, j, i),
``take_along_axis`` the index at the result's own position.  An index ``t`` in
``[-n, n)`` reads ``t`` (``t + n`` when negative); any other index writes zero and is
recorded in a per-thread, per-stream report of three int64: a flag, the largest index
``>= n`` and the smallest ``< -n`` (``atomicMax``/``atomicMin`` from zero), so the caller
names the same index that a check before the gather would have named (the largest,
else the smallest).  The device code is ``include/usmarray/gather.cuh``.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from typing import Any

import cupy
import numpy as np

from ._launch import Family, grid_1d, launch, stream_ptr
from .c_types import CTYPES
from .headers import header

_nd = cupy.ndarray

#: the entry points of ``include/usmarray/gather.cuh``'s take (its last field: 1 for
#: take_along_axis) and range check
_TAKE = """typedef %s T; typedef %s I;
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ src,
    const I* __restrict__ idx, T* __restrict__ out, long long* __restrict__ report,
    const long long total, const long long outer, const long long n, const long long kk,
    const long long inner) {
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += step)
    usm_take<%d>(src, idx, out, report, e, outer, n, kk, inner);
}
"""
_RANGE = """typedef %s I;
extern "C" __global__ void __launch_bounds__(256) k(const I* __restrict__ idx,
    long long* __restrict__ report, const long long total, const long long n) {
  usm_out_of_range(idx, report, total, n);
}
"""

_SIGNED: frozenset[np.dtype] = frozenset(np.dtype(c) for c in "bhiq")


class _Reports(threading.local):
    def __init__(self) -> None:
        self.bufs: dict[tuple[int, int], Any] = {}


class Gathers(Family):
    """``take`` with the bounds check in the kernel (see the module docstring)."""

    def __init__(self, is_fast: Callable[[Any], bool], single_gpu: bool) -> None:
        super().__init__(is_fast, single_gpu)
        self._reports = _Reports()

    def _report(self, dev: int, stream: int) -> Any:
        key = (dev, stream)
        b = self._reports.bufs.get(key)
        if b is None:
            b = self._reports.bufs[key] = _nd((3,), np.int64)
        return b

    def gather(self, a: Any, i: Any, axis: int, along: bool) -> tuple[Any, int | None] | None:
        """``take`` (``i`` 1-D), or ``take_along_axis`` where ``along`` (``i`` of ``a``'s
        shape but along ``axis``, no broadcasting), by one launch and one read of its
        report: ``(result, None)``, or ``(result, bad)`` with ``bad`` an index out of
        ``[-n, n)`` (the largest such, else the smallest); None where the kernel does not
        take the operands (the caller checks and gathers the old way)."""
        if not (a.__class__ is _nd and i.__class__ is _nd and a.size
                and i.ndim == (a.ndim if along else 1) and a._c_contiguous and i._c_contiguous
                and a.dtype in CTYPES and i.dtype in _SIGNED
                and self._is_fast(a) and self._is_fast(i)):
            return None
        sh, ish = a.shape, i.shape
        if along and (sh[:axis] != ish[:axis] or sh[axis + 1:] != ish[axis + 1:]):
            return None
        n, k = sh[axis], ish[axis] if along else ish[0]
        outer = math.prod(sh[:axis])
        inner = a.size // (outer * n)
        out = _nd(ish if along else sh[:axis] + ish + sh[axis + 1:], a.dtype)
        if not out.size:
            return out, None
        s = stream_ptr()
        rep = self._report(a.data.device_id if self._multi else 0, s)
        rep.data.memset_async(0, 24)
        f = self._cached((a.dtype, i.dtype, along),
                         lambda: header("gather.cuh") + _TAKE % (
                             CTYPES[a.dtype], CTYPES[i.dtype], along))
        total = out.size
        launch(f, grid_1d(total), (256, 1, 1), "QQQQqqqqq",
               a.data.ptr, i.data.ptr, out.data.ptr, rep.data.ptr, total, outer, n, k, inner,
               stream=s)
        flag, hi, lo = (int(v) for v in rep.get())
        if not flag:
            return out, None
        return out, hi if hi >= n else lo

    def out_of_range(self, i: Any, n: int) -> bool | None:
        """Whether an element of the C-contiguous signed integer array ``i`` lies outside
        ``[-n, n)``: one pass and one 8-byte read-back; None where the kernel does not
        take ``i``."""
        if not (i.__class__ is _nd and i.size and i._c_contiguous
                and i.dtype in _SIGNED and self._is_fast(i)):
            return None
        s = stream_ptr()
        rep = self._report(i.data.device_id if self._multi else 0, s)
        rep.data.memset_async(0, 8)
        f = self._cached(("range", i.dtype),
                         lambda: header("gather.cuh") + _RANGE % CTYPES[i.dtype])
        total = i.size
        launch(f, grid_1d(total), (256, 1, 1), "QQqq",
               i.data.ptr, rep.data.ptr, total, n, stream=s)
        return bool(int(rep[0].get()))


__all__ = ["Gathers"]
