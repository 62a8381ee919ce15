"""``sort`` and ``argsort`` along the last axis of C-contiguous CUDA arrays whose rows
fit a block's shared memory: one block a row, a bitonic sort of (key, position) pairs
for rows of up to :data:`BITONIC_MAX` elements, CUB's block radix sort (``BlockRadixSort``,
compiled by NVRTC from the CCCL headers CuPy ships) for longer ones, where it is about
three times faster (docs/performance.md).

Each element becomes an unsigned key whose order is the namespace's order: integers
with the sign bit flipped, floats by their bits (negative ones inverted) with -0.0 the
key of +0.0 and every NaN the largest key (NaNs last); descending sorts invert the key
(NaNs first).  The position breaks ties, so the sort is stable whatever
``stable`` asks, and the result is the stable sort's, as the fallback gives: NaNs
come out as the canonical NaN (what the fallback's sort keys make of them).

Rows of up to :data:`MAX_ROW` elements take the kernels (of 8-byte elements: half that
where CUB is missing); longer rows, other axes and layouts go to the fallback (CuPy's
sorts).  The radix sort is stable and orders the same keys, so both kernels give the
same results.  The device code is ``include/usmarray/sort.cuh``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cupy
import numpy as np

from ._launch import Family, cub_options, launch, stream_ptr
from .c_types import CTYPES
from .headers import header
from .keys import key_source

_nd = cupy.ndarray
MAX_ROW = 4096
#: the longest rows the bitonic kernel takes where the radix kernel is there
BITONIC_MAX = 512
#: (threads, items per thread) of the radix kernel by the longest row it takes
_RADIX_SHAPES = ((1024, (256, 4)), (2048, (256, 8)), (4096, (512, 8)))
_I64 = np.dtype(np.int64)

#: CUB's header, which the radix sort's source starts with
_CUB = "#include <cub/block/block_radix_sort.cuh>\n"
#: the kernels' entry points, after keys.py's key_source and sort.cuh
_BITONIC = r"""
extern "C" __global__ void __launch_bounds__(1024) k(const T* __restrict__ x,
    {out_t}* __restrict__ y, const long long rows, const long long R, const int P,
    const int descending) {{
  usm_sort_bitonic<{arg}>(x, y, rows, R, P, descending);
}}
"""
_RADIX = r"""
extern "C" __global__ void __launch_bounds__({bt}) k(const T* __restrict__ x,
    {out_t}* __restrict__ y, const long long rows, const long long R, const int descending) {{
  typedef cub::BlockRadixSort<K, {bt}, {ipt}, int> Sort;
  __shared__ typename Sort::TempStorage tmp;
  usm_sort_radix<{arg}, {bt}, {ipt}, Sort>(x, y, rows, R, descending, tmp);
}}
"""


def _source(d: np.dtype, arg: bool, entry: str, **shape: int) -> str:
    """``entry`` (with the block ``shape`` of a radix sort) after the keys of ``d`` and
    sort.cuh: a sort of rows of ``d`` writing their positions (``arg``) or values."""
    return key_source(d) + header("sort.cuh") + entry.format(
        out_t="long long" if arg else "T", arg=str(arg).lower(), **shape)


class Sorts(Family):
    """``sort``/``argsort`` of short rows (see the module docstring)."""

    def __init__(self, is_fast: Callable[[Any], bool], single_gpu: bool) -> None:
        super().__init__(is_fast, single_gpu)
        #: CUB's include options (None: the radix kernel is not available)
        self.cub = cub_options()

    def _takes(self, a: Any, axis: int) -> bool:
        if not (a.__class__ is _nd and a.ndim and a.size
                and a.dtype in CTYPES and a._c_contiguous and self._is_fast(a)):
            return False
        R = a.shape[-1]
        limit = MAX_ROW if a.dtype.itemsize <= 4 or self.cub else MAX_ROW // 2
        return axis % a.ndim == a.ndim - 1 and 1 < R <= limit

    def run(self, a: Any, descending: bool, arg: bool) -> Any:
        d = a.dtype
        R = a.shape[-1]
        rows = a.size // R
        out = _nd(a.shape, _I64 if arg else d)
        if self.cub and R > BITONIC_MAX:
            bt, ipt = next(shape for top, shape in _RADIX_SHAPES if R <= top)
            radix = self._cached(("radix", d, arg, bt, ipt), lambda: _CUB + _source(
                d, arg, _RADIX, bt=bt, ipt=ipt), self.cub)
            launch(radix, (min(rows, 1 << 20), 1, 1), (bt, 1, 1), "QQqqq", a.data.ptr,
                   out.data.ptr, rows, R, int(descending), stream=stream_ptr())
            return out
        P = 1 << (R - 1).bit_length()
        shared = (P * d.itemsize + 7) // 8 * 8 + 4 * P
        block = max(32, min(1024, P // 2))
        bitonic = self._cached((d, arg), lambda: _source(d, arg, _BITONIC))
        launch(bitonic, (min(rows, 1 << 20), 1, 1), (block, 1, 1),
               "QQqqqq", a.data.ptr, out.data.ptr, rows, R, P, int(descending),
               shared=shared, stream=stream_ptr())
        return out

    def wrap(self, name: str, fallback: Any) -> Any:
        arg = name == "argsort"

        def kernel(a: Any, axis: int = -1, descending: bool = False, stable: bool = True) -> Any:
            if self._takes(a, axis):
                return self.run(a, bool(descending), arg)
            return fallback(a, axis=axis, descending=descending, stable=stable)

        kernel.__name__ = name
        return kernel


__all__ = ["BITONIC_MAX", "MAX_ROW", "Sorts"]
