"""One element written by one launch: ``x[i, j, ...] = scalar``.

CuPy's ``__setitem__`` with a scalar value makes a view and fills it through an
elementwise kernel, about 14 us of host time per call; loops that write one element
at a time (scikit-learn's ``_fill_diagonal`` for namespaces other than NumPy writes
each of the n diagonal elements so) pay that n times.  Here the element's address is
computed on the host and a kernel of one thread stores the value's bits there
(``include/usmarray/element.cuh``).
"""

from __future__ import annotations

import struct
from typing import Any

import cupy
import numpy as np

from ._launch import SLOTS, WORDS, Family, driver_launch, stream_ptr
from .c_types import CTYPES
from .headers import header

_nd = cupy.ndarray
#: the entry points of the stores in ``include/usmarray/element.cuh``
_STORE = """typedef %s T;
extern "C" __global__ void k(T* p, const unsigned long long bits) { usm_store_bits(p, bits); }
"""
_COPY = """typedef %s T; typedef %s S;
extern "C" __global__ void k(T* p, const S* q) { usm_store_cast(p, q); }
"""
_SCALARS = (bool, int, float)
_PACK_QQ = struct.Struct("<QQ").pack_into


class ElementStore(Family):
    """``store(raw, key, value)``: True where it wrote ``raw[key] = value`` (a key of
    in-range Python ints, one per axis; a bool, int or float value; a real or bool
    dtype; plain device memory), else False and nothing is written (the caller then
    lets CuPy do it, with its errors).  ``kernels``: the compiled one-thread stores, by
    element size for a Python scalar and by (target dtype, value dtype) for a 0-D
    array's element."""

    @property
    def kernels(self) -> dict:
        return self._fns

    def store(self, raw: Any, key: Any, value: Any) -> bool:
        """See the class; ``value`` may also be a 0-D array of plain device memory of a
        real or bool dtype (scikit-learn's ``_fill_diagonal`` writes ``xp.asarray``
        of its value)."""
        if raw.__class__ is not _nd:
            return False
        d = raw.dtype
        if d.kind not in "biuf":
            return False
        keys = key if key.__class__ is tuple else (key,)
        shape = raw.shape
        if len(keys) != len(shape):
            return False
        off = raw.data.ptr
        for k, n, s in zip(keys, shape, raw.strides, strict=True):
            if k.__class__ is not int:
                return False
            if k < 0:
                k += n
            if not 0 <= k < n:
                return False
            off += k * s
        is_fast = self._is_fast
        if not is_fast(raw):
            return False
        vc = value.__class__
        if vc is _nd:
            sd = value.dtype
            if value.ndim or sd.kind not in "biuf" or not is_fast(value):
                return False
            fk: Any = (d, sd)
            arg = value.data.ptr
        elif vc in _SCALARS:
            fk = d.itemsize
            arg = int.from_bytes(np.asarray(value, dtype=d).tobytes(), "little")
        else:
            return False
        f = None if self._multi else self._fns.get(fk)
        if f is None:
            f = self._cached(fk, lambda: header("element.cuh") + (
                _COPY % (CTYPES[d], CTYPES[fk[1]]) if vc is _nd else _STORE % WORDS[fk]))
        slots, pp = SLOTS.t
        _PACK_QQ(slots, 0, off, arg)
        driver_launch(f.ptr, 1, 1, 1, 1, 1, 1, 0, stream_ptr(), pp, 0)
        return True


__all__ = ["ElementStore"]
