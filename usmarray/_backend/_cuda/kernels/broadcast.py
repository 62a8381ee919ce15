"""Replication of C-contiguous CUDA arrays, one launch each (elementwise calls with
broadcast operands, ``where`` among them, run on the elementwise engine).

* Copies of a broadcast view whose leading axes have stride 0 over a C-contiguous
  tail, and ``tile`` of a C-contiguous array along one axis with only length-1 axes
  before it: both are ``rows`` copies of one block of ``m`` elements.
* ``repeat`` of each element of a C-contiguous array ``r`` times along an axis, as
  (outer, n, inner) -> (outer, n * r, inner).
* ``roll`` of a C-contiguous array, flattened or along one axis.

The device code is ``include/usmarray/copy.cuh``, the kernels' sources
:mod:`.copy_source`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import cupy
import numpy as np

from ._launch import WORDS, Family, grid_1d, launch, stream_ptr
from .copy_source import REPEAT, ROLL, ROWS_OF, source

_nd = cupy.ndarray


def _c_order(shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int) -> bool:
    """Whether ``shape``/``strides`` (bytes) lay elements out in C order, without gaps
    (length-1 axes may have any stride)."""
    want = itemsize
    for n, st in zip(reversed(shape), reversed(strides), strict=True):
        if n != 1 and st != want:
            return False
        want *= n
    return True


class RowBroadcast(Family):
    """Copies, tiles, rolls and repeats of C-contiguous arrays (see the module docstring)."""

    def __init__(self, is_fast: Callable[[Any], bool], single_gpu: bool,
                 readable: Callable[[Any], bool]) -> None:
        super().__init__(is_fast, single_gpu)
        #: what a kernel may read: is_fast, or also read-only views of such memory
        self._readable = readable

    def _kernel(self, entry: str, size: int) -> Any:
        """The kernel ``entry`` moving elements of ``size`` bytes."""
        return self._cached((entry, size), lambda: source(entry, WORDS[size]))

    def _rows_of(self, src_ptr: int, d: np.dtype, out: Any, rows: int, m: int) -> Any:
        """``out`` (C order, ``rows`` rows of ``m`` elements of dtype ``d``) filled with
        ``rows`` copies of the ``m`` elements at ``src_ptr``; moved in the widest words
        (up to 16 bytes) that divide a row and both addresses."""
        if not out.size:
            return out
        width = d.itemsize
        row_bytes = m * width
        for w in (16, 8, 4):
            if w > width and not row_bytes % w and not (src_ptr | out.data.ptr) % w:
                width, m = w, row_bytes // w
                break
        f = self._kernel(ROWS_OF, width)
        gx = max(1, min(-(-m // 256), 1024))
        gy = max(1, min(rows, 65535, -(-4096 // gx)))
        launch(f, (gx, gy, 1), (256, 1, 1), "QQqq", src_ptr, out.data.ptr, rows, m,
               stream=stream_ptr())
        return out

    def _plain(self, a: Any) -> bool:
        return (a.__class__ is _nd and a.size > 0
                and a.dtype.itemsize in WORDS and self._readable(a))

    def copy_rows(self, a: Any) -> Any:
        """A C-order copy of a broadcast view ``a`` whose leading axes have stride 0 over a
        C-contiguous tail, as rows of that tail; None for any other array."""
        if self._plain(a) and not a._c_contiguous:
            st, sh = a.strides, a.shape
            k = 0
            while k < a.ndim and (st[k] == 0 or sh[k] == 1):
                k += 1
            tail = sh[k:]
            if k and _c_order(tail, st[k:], a.dtype.itemsize):
                m = math.prod(tail)
                return self._rows_of(a.data.ptr, a.dtype, _nd(sh, a.dtype), a.size // m, m)
        return None

    def wrap_tile(self, fallback: Any) -> Any:
        """``tile(a, reps)`` of a C-contiguous ``a`` repeated along one axis with only
        length-1 axes before it (after padding shape and reps with leading ones)."""
        def tile(a: Any, reps: Any) -> Any:
            if self._plain(a) and a._c_contiguous:
                reps = tuple(reps)
                nd = max(a.ndim, len(reps))
                r = (1,) * (nd - len(reps)) + reps
                sh = (1,) * (nd - a.ndim) + a.shape
                big = [i for i, x in enumerate(r) if x != 1]
                if len(big) == 1 and all(n == 1 for n in sh[:big[0]]):
                    out_shape = tuple(x * n for x, n in zip(r, sh, strict=True))
                    return self._rows_of(a.data.ptr, a.dtype, _nd(out_shape, a.dtype),
                                         r[big[0]], a.size)
            return fallback(a, reps)

        return tile

    def wrap_roll(self, fallback: Any) -> Any:
        """``roll(a, shift, axis)`` of a C-contiguous ``a`` flattened (``axis=None``) or
        along one axis, as one launch (element ``e`` moves ``shift`` rows of its axis on,
        wrapping); several axes go to ``fallback``."""
        def roll(a: Any, shift: Any, axis: Any = None) -> Any:
            if self._plain(a) and a._c_contiguous:
                if axis is None and shift.__class__ is int:
                    n, inner = a.size, 1
                elif (axis.__class__ is tuple and len(axis) == 1 and shift.__class__ is tuple
                        and len(shift) == 1):
                    ax = axis[0]
                    n, inner, shift = a.shape[ax], math.prod(a.shape[ax + 1:]), shift[0]
                else:
                    return fallback(a, shift, axis=axis)
                out = _nd(a.shape, a.dtype)
                f = self._kernel(ROLL, a.dtype.itemsize)
                total = a.size
                launch(f, grid_1d(total), (256, 1, 1),
                       "QQqqqq", a.data.ptr, out.data.ptr, total, n, inner, shift % n,
                       stream=stream_ptr())
                return out
            return fallback(a, shift, axis=axis)

        return roll

    def wrap_repeat(self, fallback: Any) -> Any:
        """``repeat(a, r, axis)`` for a Python int ``r`` and a C-contiguous ``a``."""
        def repeat(a: Any, repeats: Any, axis: Any = None) -> Any:
            if self._plain(a) and a._c_contiguous and repeats.__class__ is int and repeats > 0:
                ax = 0 if axis is None else axis % a.ndim
                flat = a.reshape(-1) if axis is None else a
                sh = flat.shape
                n, inner = sh[ax], math.prod(sh[ax + 1:])
                out = _nd(sh[:ax] + (n * repeats,) + sh[ax + 1:], a.dtype)
                f = self._kernel(REPEAT, a.dtype.itemsize)
                total = out.size
                launch(f, grid_1d(total), (256, 1, 1), "QQqqq",
                       a.data.ptr, out.data.ptr, total, inner, repeats, stream=stream_ptr())
                return out
            return fallback(a, repeats, axis=axis)

        return repeat


__all__ = ["RowBroadcast"]
