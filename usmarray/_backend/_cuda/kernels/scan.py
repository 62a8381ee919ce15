"""Cumulative sums and products along the last axis of C-contiguous CUDA arrays.

The array is viewed as (rows, R), the scan running along R.  Many rows, or rows of at
most :data:`TILE` elements: one block a row scans 1024 elements at a time (four
consecutive elements a thread, a warp scan by shuffles, then a scan of the eight warp
totals) and carries the running total on.  Few long rows: the chained scan, one pass
in tiles of :data:`CHAINED_TILE` elements a block, each tile's prefix found by
decoupled look-back over its predecessors' published totals (CUB's block primitives
and tile status, compiled by NVRTC from the CCCL headers CuPy ships; without them,
the fallback), after a launch that marks every tile unpublished.

``include_initial`` writes the identity first and the scan after it, in the same
launches.  The result dtype is the one the namespace asks for (at least 4 bytes here;
smaller ones go to the fallback), accumulation is in that dtype, and floats are summed
in a tree order within a block (as CuPy's and PyTorch's scans, not NumPy's
left-to-right order).  The device code is ``include/usmarray/scan.cuh`` and
``scan_chained.cuh``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cupy
import numpy as np

from ._launch import Family, compiled, cub_options, launch, sm_count, stream_ptr
from .c_types import CTYPES
from .headers import header

_nd = cupy.ndarray
TILE = 8192
#: result dtypes the kernels produce (a shuffle moves 4 or 8 bytes)
_OUT: frozenset[np.dtype] = frozenset(np.dtype(c) for c in "iIqQfd")
_IN: frozenset[np.dtype] = frozenset(d for d in CTYPES)
#: the operation of each function (scan.cuh's)
_OPS = {"cumulative_sum": "usm_sum", "cumulative_prod": "usm_prod"}

#: the one-block-a-row kernel, after scan.cuh and the typedefs of T, O and Op
_ROWS = r"""
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ x, O* __restrict__ y,
    const long long rows, const long long R, const long long yR, const long long off) {
  __shared__ O wt[8];
  usm_scan_rows<Op>(x, y, rows, R, yR, off, wt);
}
"""
#: CUB's headers the chained scan starts with (after scan.cuh)
_CUB = ("#include <cub/block/block_load.cuh>\n#include <cub/block/block_scan.cuh>\n"
        "#include <cub/block/block_store.cuh>\n"
        "#include <cub/agent/single_pass_scan_operators.cuh>\n")
_CHAINED = r"""typedef usm_scan_chained<Op, %d, %d, T, O> C;
extern "C" __global__ void __launch_bounds__(%d) k(const T* __restrict__ x, O* __restrict__ y,
    void* state, const long long R, const long long yR, const long long off,
    const long long stride) {
  __shared__ typename C::Storage tmp;
  C::run(x, y, state, R, yR, off, stride, tmp);
}
extern "C" __global__ void __launch_bounds__(256) init(void* state, const int ntiles,
    const long long stride) {
  usm_scan_chained_init<O>(state, ntiles, stride);
}
"""
#: (threads, elements a thread) of a chained tile, by the result's element size: the
#: fastest of the shapes measured at 2**24 elements (docs/performance.md)
CHAINED_TILE = {4: (256, 16), 8: (128, 16)}


def source(t: np.dtype, o: np.dtype, op: str = "usm_sum", chained: tuple[int, int] = (0, 0)
           ) -> str:
    """The one-block-a-row scan (``k``) over elements of ``t`` into ``o`` with ``op``
    (``usm_sum`` or ``usm_prod``); with ``chained`` (threads, elements a thread), the
    chained scan (``k``) and its status initialization (``init``)."""
    types = f"typedef {CTYPES[t]} T; typedef {CTYPES[o]} O; typedef {op}<O> Op;\n"
    if not chained[0]:
        return header("scan.cuh") + types + _ROWS
    bt, ipt = chained
    return header("scan.cuh") + _CUB + header("scan_chained.cuh") + types + _CHAINED % (
        bt, ipt, bt)


class Scans(Family):
    """``cumulative_sum``/``cumulative_prod`` along the last axis of a C-contiguous
    array of plain device memory (other layouts, axes and dtypes: the fallback)."""

    def __init__(self, is_fast: Callable[[Any], bool], single_gpu: bool) -> None:
        super().__init__(is_fast, single_gpu)
        #: CUB's include options (None: no chained scan)
        self.cub = cub_options()

    def chained(self, name: str, a: Any, out: Any, off: int) -> None:
        """The chained scan of ``a``'s rows into ``out`` from column ``off``, in tiles of
        :data:`CHAINED_TILE`'s shape."""
        o = out.dtype
        bt, ipt = CHAINED_TILE[o.itemsize]
        R = a.shape[-1]
        rows = a.size // R
        ntiles = -(-R // (bt * ipt))
        # a row's tile status: a padding of 32 status words and one a tile, each a
        # (status, value) pair of two result elements (CUB's ScanTileState<O, true>)
        stride = -(-(ntiles + 32) * 2 * o.itemsize // 256) * 256
        state = _nd((rows * stride,), np.uint8)
        src = source(a.dtype, o, _OPS[name], (bt, ipt))
        f = self._cached(("chained", name, a.dtype, o, bt, ipt), lambda: src, self.cub or ())
        init = compiled(src, "init", self._multi, self.cub or ())
        s = stream_ptr()
        launch(init, (-(-ntiles // 256), rows, 1), (256, 1, 1), "Qqq", state.data.ptr, ntiles,
               stride, stream=s)
        launch(f, (ntiles, rows, 1), (bt, 1, 1), "QQQqqqq", a.data.ptr, out.data.ptr,
               state.data.ptr, R, out.shape[-1], off, stride, stream=s)

    def _many(self) -> int:
        return 2 * sm_count()

    def scan(self, name: str, a: Any, o: np.dtype, include_initial: bool) -> Any:
        """``name`` of ``a`` along its last axis into a new array of dtype ``o``."""
        R = a.shape[-1]
        rows = a.size // R
        off = 1 if include_initial else 0
        yR = R + off
        out = _nd(a.shape[:-1] + (yR,), o)
        s = stream_ptr()
        t = a.dtype
        if rows >= self._many() or R <= TILE:
            f = self._cached((name, t, o), lambda: source(t, o, _OPS[name]))
            launch(f, (min(rows, 1 << 20), 1, 1), (256, 1, 1), "QQqqqq", a.data.ptr,
                   out.data.ptr, rows, R, yR, off, stream=s)
        else:
            self.chained(name, a, out, off)
        return out

    def wrap(self, name: str, fallback: Any) -> Any:
        is_fast = self._is_fast

        def kernel(a: Any, axis: Any = None, dtype: Any = None, include_initial: bool = False) -> Any:
            if (a.__class__ is _nd and dtype is not None and a.ndim
                    and a._c_contiguous and a.size and a.dtype in _IN
                    and (axis is None or axis % a.ndim == a.ndim - 1) and is_fast(a)
                    and a.size < 2**62 // 8 and (self.cub or a.shape[-1] <= TILE
                                                  or a.size // a.shape[-1] >= self._many())):
                o = np.dtype(dtype)
                if o in _OUT:
                    return self.scan(name, a, o, bool(include_initial))
            return fallback(a, axis=axis, dtype=dtype, include_initial=include_initial)

        kernel.__name__ = name
        return kernel


__all__ = ["CHAINED_TILE", "TILE", "Scans", "source"]
