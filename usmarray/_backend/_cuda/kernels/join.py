"""concat and stack of C-contiguous CUDA arrays in one launch.

The inputs of a join along axis ``ax`` are, viewed as 2-D, (outer, inner_i) blocks with
``inner_i = shape_i[ax] * prod(shape[ax + 1:])``; the output is (outer, total) with
input ``i`` at column offset ``off_i``.  One launch copies them all: grid row ``y``
is input ``i``, and the pointers, widths and offsets travel by value in one kernel
parameter (a table of at most :data:`MAX_INPUTS` entries).  Where outer is 1 (a join
along the first axis) each input is one contiguous run, copied by a grid-stride loop;
otherwise blocks take rows and threads stride along them (``include/usmarray/join.cuh``;
the kernel's source is :mod:`.join_source`).
"""

from __future__ import annotations

import ctypes
import itertools
import math
import struct
import threading
from collections.abc import Callable
from typing import Any

import cupy

from ._launch import WORDS, Family, driver_launch, sm_count, stream_ptr
from .join_source import MAX_INPUTS, source

_nd = cupy.ndarray


class _Params(threading.local):
    """Per-thread kernel parameters: the table and three 8-byte slots, and the array
    of their four addresses."""

    def __init__(self) -> None:
        self.tab = (ctypes.c_uint64 * (3 * MAX_INPUTS))()
        self.slots = (ctypes.c_uint64 * 3)()
        base = ctypes.addressof(self.slots)
        self.params = (ctypes.c_void_p * 4)(ctypes.addressof(self.tab), base, base + 8, base + 16)
        self.pp = ctypes.addressof(self.params)


_PARAMS = _Params()


class Joins(Family):
    """concat and stack through one launch where every input is a non-empty or empty
    C-contiguous array of plain device memory of one dtype (the namespace casts them
    first); anything else goes to the fallback."""

    def __init__(self, is_fast: Callable[[Any], bool], single_gpu: bool,
                 new_out: Callable[[tuple, Any, int, int], Any]) -> None:
        super().__init__(is_fast, single_gpu)
        self._new_out = new_out
        #: per input count: packers of the pointer, length and offset columns
        self._packs: dict[int, Any] = {}

    def _function(self, size: int) -> Any:
        return self._cached(size, lambda: source(WORDS[size]))

    def _takes(self, arrays: Any) -> bool:
        if not 1 < len(arrays) <= MAX_INPUTS:
            return False
        a0 = arrays[0]
        if a0.__class__ is not _nd or not a0.ndim or a0.dtype.itemsize not in WORDS:
            return False
        d, nd = a0.dtype, a0.ndim
        return all(a.__class__ is _nd and a.dtype == d and a.ndim == nd and a._c_contiguous
                   and self._is_fast(a) for a in arrays)

    def join(self, arrays: list[Any], ax: int) -> Any:
        """The concatenation of ``arrays`` (C-contiguous, one dtype, shapes agreeing
        but on axis ``ax``) along ``ax``: a new C-contiguous array."""
        a0 = arrays[0]
        s0 = a0.shape
        rest = math.prod(s0[ax + 1:])
        return self._run(arrays, [a.shape[ax] * rest for a in arrays],
                         s0[:ax] + (sum([a.shape[ax] for a in arrays]),) + s0[ax + 1:],
                         math.prod(s0[:ax]))

    def _run(self, arrays: list[Any], inners: list[int], shape: tuple, outer: int) -> Any:
        """Input ``i`` is ``outer`` runs of ``inners[i]`` elements; the result, of
        ``shape``, holds them side by side in each of its ``outer`` rows."""
        a0 = arrays[0]
        d = a0.dtype
        total = sum(inners)
        n = outer * total
        stream = stream_ptr()
        out = self._new_out(shape, d, n, stream)
        if not n:
            return out
        size = d.itemsize
        ptrs = [a.data.ptr for a in arrays]
        offs = list(itertools.accumulate(inners[:-1], initial=0))
        if 0 in inners:  # empty inputs take no grid row
            keep = [i for i, inner in enumerate(inners) if inner]
            ptrs = [ptrs[i] for i in keep]
            offs = [offs[i] for i in keep]
            inners = [inners[i] for i in keep]
        # the widest word (up to 16 bytes) that divides every pointer, run and offset
        bits = out.data.ptr | total * size
        for v in [*ptrs, *(x * size for x in inners + offs)]:
            bits |= v
        word = min(bits & -bits, 16)
        f = word // size if word > size else 1
        if f > 1:
            inners = [v // f for v in inners]
            offs = [v // f for v in offs]
        k = len(ptrs)
        pack = self._packs.get(k)
        if pack is None:
            pack = self._packs[k] = struct.Struct("<" + "Q" * k).pack_into
        p = _PARAMS
        tab = p.tab
        pack(tab, 0, *ptrs)
        pack(tab, 8 * MAX_INPUTS, *inners)
        pack(tab, 16 * MAX_INPUTS, *offs)
        slots = p.slots
        slots[0] = out.data.ptr
        slots[1] = outer
        slots[2] = total // f
        most = max(inners)
        gx = min(outer, 4096) if outer > 1 else max(1, min(-(-most // 1024),
                                                          max(1, 8 * sm_count() // k)))
        driver_launch(self._function(size * f).ptr, gx, k, 1, 256, 1, 1, 0, stream, p.pp, 0)
        return out

    def wrap_concat(self, fallback: Any) -> Any:
        def concat(arrays: Any, axis: Any = 0) -> Any:
            if axis is not None and self._takes(arrays):
                return self.join(list(arrays), axis % arrays[0].ndim)
            return fallback(arrays, axis=axis)

        return concat

    def wrap_stack(self, fallback: Any) -> Any:
        def stack(arrays: Any, axis: int = 0) -> Any:
            if self._takes(arrays):
                s = arrays[0].shape
                ax = axis % (len(s) + 1)
                inner = math.prod(s[ax:])
                return self._run(list(arrays), [inner] * len(arrays),
                                 s[:ax] + (len(arrays),) + s[ax:], math.prod(s[:ax]))
            return fallback(arrays, axis=axis)

        return stack


__all__ = ["MAX_INPUTS", "Joins"]
