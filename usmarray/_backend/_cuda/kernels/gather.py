"""``take``, ``take_along_axis`` and ``x[idx] = v`` with the bounds check on the device.

The source is viewed as (outer, n, inner) around the axis, the result as (outer, k,
inner) for ``k`` indices; ``take`` reads index ``j`` for every (o, j, i),
``take_along_axis`` the index at the result's own position, and the scatter writes
the value of (o, j, i) at (o, idx[j], i); an index ``t`` in ``[-n, n)`` means ``t``
(``t + n`` when negative).

A call first runs a range pass over the indices: it reads each index once and writes
only where one lies outside ``[-n, n)``, a flag into mapped host memory and the call's
number into a per-thread, per-stream word on the device, so no zeroing pass and no copy
back are queued, and the caller waits for an event after the pass alone.  The gather or
scatter is queued before that wait, so the GPU stays busy across back-to-back calls.  A
scatter reads the device word and writes nothing where an index is out of range (the
target is left as it was); a gather writes zero for such an index.  Only after a pass
has found one does an exact pass find the index to name (the largest ``>= n``, else the
smallest ``< -n``).  The device code is ``include/usmarray/gather.cuh``, its entry points
:mod:`.gather_source`.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from typing import Any

import cupy
import numpy as np

from ..layout import Operand, broadcast_strides, merge_axes
from ._launch import Family, grid_1d, launch, stream_ptr
from .c_types import CTYPES
from .gather_source import (
    in_range_source,
    put_source,
    range_source,
    take4_source,
    take_source,
)

_nd = cupy.ndarray
_rt: Any = cupy.cuda.runtime

_SIGNED: frozenset[np.dtype] = frozenset(np.dtype(c) for c in "bhiq")
_SCALARS = (bool, int, float)
_ALL = slice(None)
_MAPPED = 3  # cudaHostAllocPortable | cudaHostAllocMapped


class _Report:
    """One thread's range report on one stream: the mapped host word the range pass
    flags (``host``), the device word it writes the call's number into (``flag``), the
    number of the last call (``gen``) and the event after the pass."""

    def __init__(self) -> None:
        self.mem = cupy.cuda.PinnedMemoryPointer(cupy.cuda.PinnedMemory(8, _MAPPED), 0)
        self.host = np.frombuffer(self.mem, np.int64, 1)
        self.flag = cupy.zeros((1,), np.int64)
        self.gen = 0
        self.event = cupy.cuda.Event(disable_timing=True)


def _block_stride(shape: tuple[int, ...], strides: list[int]) -> int | None:
    """The element stride of one step of the index that merges ``shape``'s axes in C
    order, for a view with these element ``strides``; None where they do not merge."""
    merged, (st,) = merge_axes(list(shape), [strides])
    return None if len(merged) > 1 else st[0] if merged else 0


class Gathers(Family):
    """``take``, ``take_along_axis`` and ``x[idx] = v`` with the bounds check on the
    device (see the module docstring)."""

    def __init__(self, is_fast: Callable[[Any], bool], single_gpu: bool) -> None:
        super().__init__(is_fast, single_gpu)
        #: per thread: (device, stream) -> its _Report
        self._reports = threading.local()

    def _range(self, i: Any, n: int) -> tuple[_Report, int]:
        """Queue the range pass of ``i`` against ``[-n, n)`` on the current stream, and
        the event after it: this thread's report for ``i``'s device and that stream, and
        the stream."""
        s = stream_ptr()
        key = (i.data.device_id if self._multi else 0, s)
        reports = vars(self._reports).setdefault("reports", {})
        rep = reports.get(key)
        if rep is None:
            with cupy.cuda.Device(i.data.device_id):
                rep = reports[key] = _Report()
        rep.host[0] = 0
        rep.gen += 1
        aligned = i.data.ptr % (4 * i.itemsize) == 0
        f = self._cached(("in range", i.dtype, aligned),
                         lambda: in_range_source(CTYPES[i.dtype], aligned))
        total = i.size
        launch(f, grid_1d(-(-total // 4)), (256, 1, 1), "QqqqQQ", i.data.ptr, total, n,
               rep.gen, rep.flag.data.ptr, rep.mem.ptr, stream=s)
        _rt.eventRecord(rep.event.ptr, s)
        return rep, s

    def _bad(self, rep: _Report, i: Any, n: int, s: int) -> int | None:
        """After the event of ``rep``: None where every index was in range, else the
        largest index ``>= n``, else the smallest below ``-n`` (an exact pass on stream
        ``s`` finds it)."""
        _rt.eventSynchronize(rep.event.ptr)
        if not rep.host[0]:
            return None
        report = cupy.zeros((3,), np.int64)
        f = self._cached(("range", i.dtype),
                         lambda: range_source(CTYPES[i.dtype]))
        launch(f, grid_1d(i.size), (256, 1, 1), "QQqq", i.data.ptr, report.data.ptr, i.size,
               n, stream=s)
        flag, hi, lo = (int(v) for v in report.get())
        if not flag:
            return None
        return hi if hi >= n else lo

    def gather(self, a: Any, i: Any, axis: int, along: bool) -> tuple[Any, int | None] | None:
        """``take`` (``i`` 1-D), or ``take_along_axis`` where ``along`` (``i`` of ``a``'s
        shape but along ``axis``, no broadcasting): ``(result, None)``, or ``(result,
        bad)`` with ``bad`` an index out of ``[-n, n)`` (the largest such, else the
        smallest); None where the kernel does not take the operands (the caller checks
        and gathers the old way)."""
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
        total = out.size
        rep, s = self._range(i, n)
        if outer == 1 and inner == 1 and not along:  # four elements a thread
            aligned = i.data.ptr % (4 * i.itemsize) == 0
            f = self._cached(("take4", a.dtype, i.dtype, aligned),
                             lambda: take4_source(CTYPES[a.dtype], CTYPES[i.dtype], aligned))
            launch(f, grid_1d(-(-total // 4)), (256, 1, 1), "QQQqq",
                   a.data.ptr, i.data.ptr, out.data.ptr, total, n, stream=s)
        else:
            f = self._cached((a.dtype, i.dtype, along),
                             lambda: take_source(CTYPES[a.dtype], CTYPES[i.dtype], along))
            launch(f, grid_1d(total), (256, 1, 1), "QQQqqqqq",
                   a.data.ptr, i.data.ptr, out.data.ptr, total, outer, n, k, inner, stream=s)
        return out, self._bad(rep, i, n, s)

    def out_of_range(self, i: Any, n: int) -> bool | None:
        """Whether an element of the C-contiguous signed integer array ``i`` lies outside
        ``[-n, n)`` (one pass, one small read); None where the kernel does not take it."""
        if not (i.__class__ is _nd and i.size and i._c_contiguous
                and i.dtype in _SIGNED and self._is_fast(i)):
            return None
        rep, s = self._range(i, n)
        return self._bad(rep, i, n, s) is not None

    def scatter(self, x: Any, key: Any, value: Any) -> bool | None:
        """``x[key] = value`` for a key of one 1-D signed integer array (alone, or among
        full slices), into a C-contiguous real or bool ``x``, of a Python scalar or an
        array that broadcasts to the selection: True when written, False when an index
        lies outside the axis (nothing is written), None where the kernel does not take
        the operands."""
        keys = key if key.__class__ is tuple else (key,)
        arrays = [p for p, k in enumerate(keys) if k.__class__ is _nd]
        if len(arrays) != 1 or len(keys) > x.ndim or any(
                k.__class__ is not slice or k != _ALL for k in keys if k.__class__ is not _nd):
            return None
        axis = arrays[0]
        i = keys[axis]
        if not (x.__class__ is _nd and axis < x.ndim and x._c_contiguous and x.dtype in CTYPES
                and i.ndim == 1 and i.size and i._c_contiguous and i.dtype in _SIGNED
                and self._is_fast(x) and self._is_fast(i)):
            return None
        sh = x.shape
        n, k = sh[axis], i.shape[0]
        outer, inner = math.prod(sh[:axis]), math.prod(sh[axis + 1:])
        total = outer * k * inner
        if not total:
            return None
        d = x.dtype
        if value.__class__ in _SCALARS:
            vd, vptr, vs = d, 0, (0, 0, 0)
            bits = int.from_bytes(np.asarray(value, d).tobytes(), "little")
        elif (value.__class__ is _nd and value.dtype in CTYPES and value.ndim <= x.ndim
              and self._is_fast(value)):
            vd, vptr, bits = value.dtype, value.data.ptr, 0
            target = sh[:axis] + (k,) + sh[axis + 1:]
            lead = x.ndim - value.ndim
            if any(m != t and m != 1 for m, t in zip(value.shape, target[lead:], strict=True)):
                return None  # not broadcastable: the provider names the shapes
            st = broadcast_strides(Operand(value.shape, value.strides, value.itemsize, 0), target)
            if st is None:
                return None
            vo = _block_stride(target[:axis], st[:axis])
            vi = _block_stride(target[axis + 1:], st[axis + 1:])
            if vo is None or vi is None:
                return None
            vs = (vo, st[axis], vi)
        else:
            return None
        rep, s = self._range(i, n)
        scalar = vptr == 0
        f = self._cached(("put", scalar, d, vd, i.dtype),
                         lambda: put_source(scalar, CTYPES[d], CTYPES[vd], CTYPES[i.dtype]))
        launch(f, grid_1d(total), (256, 1, 1), "QQQQQqqqqqqqqq",
               x.data.ptr, i.data.ptr, vptr, bits, rep.flag.data.ptr, rep.gen, total, outer, n,
               k, inner, *vs, stream=s)
        return self._bad(rep, i, n, s) is None


__all__ = ["Gathers"]
