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
smallest ``< -n``).

A call short enough that its host time exceeds its GPU time (a take of one axis of at
most :data:`CHECKED_TAKE_MAX` indices, a scatter of one axis of at most
:data:`CHECKED_PUT_MAX`) checks its indices in its own launch instead, and the caller
polls a mapped word that the launch's last block writes: one launch, and no event.  The
device code is ``include/usmarray/gather.cuh``, its entry points :mod:`.gather_source`.
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
from .gather_source import in_range_source, put_source, range_source, take4_source, take_source

_nd = cupy.ndarray
_rt: Any = cupy.cuda.runtime

_SIGNED: frozenset[np.dtype] = frozenset(np.dtype(c) for c in "bhiq")
_SCALARS = (bool, int, float)
_ALL = slice(None)
_MAPPED = 3  # cudaHostAllocPortable | cudaHostAllocMapped
#: the most indices a take of one axis checks in its own launch: up to here the call's
#: host time exceeds the gather's GPU time (docs/performance.md, "Measured choices")
CHECKED_TAKE_MAX = 1 << 18
#: the most indices a scatter of one axis checks and writes in one block (a block reads
#: them all before it writes: at this size a few microseconds)
CHECKED_PUT_MAX = 1 << 12
#: polls of the done word before the caller blocks on the stream instead (about a
#: millisecond: a call queued behind longer work stops spinning)
SPIN_POLLS = 10_000


class _Report:
    """One thread's range report on one stream: two mapped host words (``host``), the
    one the range pass flags and the one a call checked in its own launch writes its
    number into when done, the device word the pass writes the call's number into
    (``flag``), the block counter of a call checked in its own launch (``counter``), the
    number of the last call (``gen``) and the event after the pass."""

    def __init__(self) -> None:
        self.mem = cupy.cuda.PinnedMemoryPointer(cupy.cuda.PinnedMemory(16, _MAPPED), 0)
        self.host = np.frombuffer(self.mem, np.int64, 2)
        self.flag = cupy.zeros((1,), np.int64)
        self.counter = cupy.zeros((1,), np.uint32)
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

    def _report(self, i: Any) -> tuple[_Report, int]:
        """This thread's report for ``i``'s device and the current stream, ready for a
        new call (the flag word zeroed, the call's number advanced), and the stream."""
        s = stream_ptr()
        key = (i.data.device_id if self._multi else 0, s)
        reports = vars(self._reports).setdefault("reports", {})
        rep = reports.get(key)
        if rep is None:
            with cupy.cuda.Device(i.data.device_id):
                rep = reports[key] = _Report()
        rep.host[0] = 0
        rep.gen += 1
        return rep, s

    def _range(self, i: Any, n: int) -> tuple[_Report, int]:
        """Queue the range pass of ``i`` against ``[-n, n)`` on the current stream, and
        the event after it: this thread's report for ``i``'s device and that stream, and
        the stream."""
        rep, s = self._report(i)
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
        return self._name_bad(i, n, s) if rep.host[0] else None

    def _done(self, rep: _Report, s: int) -> bool:
        """After a call checked in its own launch on stream ``s``: wait until its last
        block has written its number (polling, then blocking on the stream), and say
        whether an index was out of range."""
        h, g = rep.host, rep.gen
        for _ in range(SPIN_POLLS):
            if h[1] == g:
                break
        else:
            _rt.streamSynchronize(s)
            if h[1] != g:
                raise RuntimeError("the range check of an indexing call did not report "
                                   "its end; the device may be in an error state")
        return bool(h[0])

    def _name_bad(self, i: Any, n: int, s: int) -> int | None:
        """The largest index of ``i`` ``>= n``, else the smallest below ``-n`` (an
        exact pass on stream ``s``); None where every index is in range."""
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
        one_axis = outer == 1 and inner == 1 and not along  # four elements a thread
        aligned = i.data.ptr % (4 * i.itemsize) == 0
        if one_axis and total <= CHECKED_TAKE_MAX:
            rep, s = self._report(i)
            f = self._cached(("take4 checked", a.dtype, i.dtype, aligned),
                             lambda: take4_source(CTYPES[a.dtype], CTYPES[i.dtype], aligned,
                                                  checked=True))
            launch(f, grid_1d(-(-total // 4)), (256, 1, 1), "QQQqqqQQ",
                   a.data.ptr, i.data.ptr, out.data.ptr, total, n, rep.gen, rep.mem.ptr,
                   rep.counter.data.ptr, stream=s)
            return out, self._name_bad(i, n, s) if self._done(rep, s) else None
        rep, s = self._range(i, n)
        if one_axis:
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
        scalar = vptr == 0
        if outer == 1 and inner == 1 and k <= CHECKED_PUT_MAX:
            rep, s = self._report(i)
            f = self._cached(("put checked", scalar, d, vd, i.dtype),
                             lambda: put_source(scalar, CTYPES[d], CTYPES[vd],
                                                CTYPES[i.dtype], checked=True))
            launch(f, (1, 1, 1), (256, 1, 1), "QQQQqqqqQQ", x.data.ptr, i.data.ptr, vptr,
                   bits, k, n, vs[1], rep.gen, rep.mem.ptr, rep.counter.data.ptr, stream=s)
            return not self._done(rep, s)
        rep, s = self._range(i, n)
        f = self._cached(("put", scalar, d, vd, i.dtype),
                         lambda: put_source(scalar, CTYPES[d], CTYPES[vd], CTYPES[i.dtype]))
        launch(f, grid_1d(total), (256, 1, 1), "QQQQQqqqqqqqqq",
               x.data.ptr, i.data.ptr, vptr, bits, rep.flag.data.ptr, rep.gen, total, outer, n,
               k, inner, *vs, stream=s)
        return self._bad(rep, i, n, s) is None


__all__ = ["Gathers"]
