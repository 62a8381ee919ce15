"""Reductions over any axes of C-contiguous CUDA arrays: sum, prod, max, min, mean,
var, std, the 2-norm, any, all, count_nonzero, argmax and argmin.

Layout.  The reduced axes of a C-contiguous array, after dropping length-1 axes and
merging neighbours of the same kind, alternate with kept ones.  One *pass* reduces
the innermost reduced group of a (O, R, I) view (O outer kept elements, R reduced,
I inner kept):

* I == 1, a *row* pass: a group of ``tpr`` threads (a warp or less, or a whole block
  of 256 for long rows) takes one row; consecutive lanes read consecutive elements;
* I > 1, a *column* pass: a block of (bx, by) threads, bx consecutive columns by by
  rows, so each warp reads bx consecutive elements of one row (coalesced), then the
  by partial results of a column meet in shared memory.

Where those blocks would not fill the GPU, R is split into chunks (a second grid
dimension) that write partial accumulators, and a second pass over the (O, splits, I)
partials finishes.  Several reduced groups take one pass each, the later ones over
the earlier ones' accumulators, so every operation (the variance too) stays exact in
form.  Each thread keeps four independent loads in flight.

The operations and their sources are in :mod:`.reduce_source`.  Any layout, queue
and memory kind of argmax/argmin takes these kernels too (:meth:`Reductions.wrap_arg`):
a C-order copy by the elementwise engine first where the array is not C-contiguous.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import cupy
import numpy as np

from ..spare import plain_out
from ._launch import Family, launch, sm_count
from ._launch import stream_ptr as _stream_ptr
from .reduce_source import BLOCK as _BLOCK
from .reduce_source import INPUTS, NAMESPACE_OPS, OPS, Elem, accum_dtype, accum_size, kernel_source

_nd = cupy.ndarray
_F32, _I64, _U64, _BOOL = (np.dtype(t) for t in (np.float32, np.int64, np.uint64, np.bool_))
_REAL: frozenset[np.dtype] = frozenset(np.dtype(c) for c in "bBhHiIqQfd")
#: blocks a split reduction aims at per multiprocessor: more left a partial second wave
#: (4 to 64 measured; figures in docs/performance.md)
BLOCKS_PER_SM = 6
#: larger arrays go to the fallback: a pass launches at most size / 4 blocks (a column
#: pass over 2 x 2 tiles), which stays under the grid's 2**31 - 1 below this
_MAX_SIZE = 2**33
#: the reductions :meth:`Reductions.run_fused` runs after an elementwise prologue
_FUSABLE = frozenset({"sum", "prod", "max", "min", "mean"})


def _pow2(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def _groups(shape: tuple[int, ...], axes: tuple[int, ...]) -> list[list[Any]]:
    """[size, reduced] runs of a C-contiguous shape: length-1 axes dropped, neighbours
    of the same kind merged."""
    red = set(axes)
    out: list[list[Any]] = []
    for i, n in enumerate(shape):
        if n == 1:
            continue
        r = i in red
        if out and out[-1][1] == r:
            out[-1][0] *= n
        else:
            out.append([n, r])
    return out


@dataclass(frozen=True)
class _Step:
    """One launch of a plan: ``f`` over ``grid``/``block`` with the source and
    destination pointers, then ``args`` (packed as ``fmt``); the destination is the
    plan's result where ``nbytes`` is 0, else scratch memory of ``nbytes``."""

    f: Any
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    fmt: str
    args: tuple
    nbytes: int
    fused: int = 0  # rows whose chunks this launch finishes itself (0: none)


@dataclass(frozen=True)
class _Plan:
    """The launches of one reduction of one (shape, dtype, axes) and its result."""

    steps: tuple[_Step, ...]
    shape: tuple[int, ...]
    dtype: np.dtype
    size: int


class _Scratch(threading.local):
    """Per-thread partial-result memory, two buffers a stream (one step reads what the
    step before wrote): launches on one stream run in order, so the next call's first
    step writes a buffer only after this call's last step has read it."""

    def __init__(self) -> None:
        self.bufs: dict[tuple[int, int, int], Any] = {}

    def get(self, device: int, stream: int, slot: int, nbytes: int) -> Any:
        """``nbytes`` in buffer ``slot`` of the stream, or in a new allocation beyond
        :data:`_SCRATCH_MAX` (which the caller keeps alive until the launches that read
        it are queued)."""
        if nbytes > _SCRATCH_MAX:
            return _device_bytes(nbytes)
        key = (device, stream, slot)
        b = self.bufs.get(key)
        if b is None or b.size < nbytes:
            b = self.bufs[key] = _device_bytes(max(nbytes, 1 << 16))
        return b

    def counters(self, device: int, stream: int, rows: int) -> Any:
        """Zeroed uint32 row counters of the fused passes on ``stream`` (each pass's
        finishing block sets its row's counter back to zero)."""
        key = (device, stream, -1)
        b = self.bufs.get(key)
        if b is None or b.size < rows:
            b = _device_bytes(4 * max(rows, 1024))
            b.data.memset_async(0, b.nbytes)
            b = self.bufs[key] = b.view(np.uint32)
        return b


def _device_bytes(n: int) -> Any:
    """``n`` bytes of device memory from CuPy's pool on the current device and stream,
    whatever allocator the caller's placement set (scratch outlives the call)."""
    return _nd((n,), np.uint8, cupy.get_default_memory_pool().malloc(n))


#: scratch buffers grow to this size at most; a larger partial result is allocated
_SCRATCH_MAX = 64 << 20


class Reductions(Family):
    """The reduction kernels of one backend; :meth:`wrap` makes a namespace kernel.

    A call looks up the plan of its (operation, shape, dtype, axes, keepdims, result
    dtype, alignment): the launches, their grids and arguments, built once; then it
    allocates the result (``new_out``: a spare output where one is free) and launches.
    """

    def __init__(self, is_fast: Callable[[Any], bool], single_gpu: bool,
                 new_out: Callable[[tuple, np.dtype, int, int], Any]) -> None:
        super().__init__(is_fast, single_gpu)
        self._scratch = _Scratch()
        self._fused: dict[tuple, _Plan | None] = {}
        self._new_out = new_out
        self.enabled = True

    def _function(self, key: tuple) -> Any:
        return self._cached(key, lambda: kernel_source(*key))

    def _step(self, name: str, in_acc: bool, dts: tuple, outer: int, R: int, inner: int,
              final: bool, n: int, corr: float, aligned: bool,
              elem: Elem | None = None) -> tuple[_Step, int]:
        """The launch reducing the (O, R, I) view of the previous step's output (of
        elements, or accumulators where ``in_acc``) over R, and its number of splits
        (a later step finishes the splits where it is above 1)."""
        t, s, o = dts
        target = BLOCKS_PER_SM * sm_count()
        vec = 1
        if inner == 1:
            tpr = 256 if R >= 4096 else min(32, _pow2(R))
            if not in_acc and aligned and 16 % t.itemsize == 0:
                v = 16 // t.itemsize
                if R % v == 0 and R // v >= min(tpr, 8):
                    vec = v
            blocks = -(-outer // (_BLOCK // tpr))
            kind, width, along = "row", tpr, tpr
        else:
            bx = min(32, _pow2(inner))
            nbx = -(-inner // bx)
            blocks = nbx * outer
            kind, width, along = "col", bx, _BLOCK // bx
        splits = 1
        # too few blocks (of a row pass: whole blocks a row): R in chunks, 16 steps or more
        if blocks < target and (kind == "col" or width == _BLOCK):
            splits = max(1, min(-(-target // blocks), R // (along * 16), 65535))
        chunk = -(-R // splits)
        chunk = -(-chunk // vec) * vec
        splits = -(-R // chunk)
        last = final and splits == 1
        # a final row pass of whole blocks finishes its chunks in its last block: one
        # launch instead of two (the second launch's latency is a tenth of a 100 MB sum)
        fused = final and splits > 1 and kind == "row" and width == _BLOCK
        f = self._function((name, t, s, o, in_acc, last, kind, width, vec, fused, elem))
        src = "Q" if elem is None else "Q" * (len(elem.inputs) + len(elem.consts))
        size = outer * splits * inner
        nbytes = 0 if last else size * accum_size(name, s)
        if kind == "row":
            step = _Step(f, (blocks, splits, 1), (_BLOCK, 1, 1),
                         src + ("QqqqqdQQ" if fused else "Qqqqqd"),
                         (outer, R, chunk, n, corr), nbytes, outer if fused else 0)
            if fused:
                return step, 1
        else:
            step = _Step(f, (blocks, splits, 1), (width, _BLOCK // width, 1), src + "Qqqqqqd",
                         (inner, R, chunk, nbx, n, corr), nbytes)
        return step, splits

    def plan(self, name: str, shape: tuple[int, ...], dtype: np.dtype,
             axes: tuple[int, ...], out_dtype: np.dtype, keepdims: bool, corr: float,
             aligned: bool, elem: Elem | None = None) -> _Plan | None:
        """The launches of ``name`` over ``axes`` (normalized) of a C-contiguous array
        of ``shape`` and ``dtype``; None where no axis of length above 1 is reduced.
        With ``elem`` the first launch computes the elements instead of reading them
        (its source arguments: the inputs' pointers, then the constants' bits)."""
        groups = _groups(shape, axes)
        if not any(r for _, r in groups):
            return None
        n = math.prod(shape[ax] for ax in axes)
        dts = (dtype, accum_dtype(name, dtype, out_dtype), out_dtype)
        steps: list[_Step] = []
        in_acc = False
        while True:
            ri = max(i for i, (_, r) in enumerate(groups) if r)
            outer = math.prod(g[0] for g in groups[:ri])
            inner = math.prod(g[0] for g in groups[ri + 1:])
            final = not any(r for _, r in groups[:ri])
            R = groups[ri][0]
            while True:
                step, splits = self._step(name, in_acc, dts, outer, R, inner, final, n,
                                          corr, aligned and not steps,
                                          None if steps else elem)
                steps.append(step)
                in_acc = True
                if splits == 1:
                    break
                R = splits
            if final:
                break
            del groups[ri]
            if 0 < ri < len(groups) and groups[ri - 1][1] == groups[ri][1]:
                groups[ri - 1][0] *= groups[ri][0]
                del groups[ri]
        red = set(axes)
        out_shape = (tuple(1 if i in red else m for i, m in enumerate(shape)) if keepdims
                     else tuple(m for i, m in enumerate(shape) if i not in red))
        return _Plan(tuple(steps), out_shape, out_dtype, math.prod(out_shape))

    def execute(self, plan: _Plan, a: Any, srcs: tuple = (), alloc: Any = None) -> Any:
        """Run ``plan`` on ``a`` on CuPy's current stream; the result array (from
        ``alloc``, by default a spare output).  ``srcs``: a fused plan's first source
        arguments instead of ``a``'s pointer (``a`` then tells the device only)."""
        stream = _stream_ptr()
        dev = a.data.device_id if self._multi else 0
        src: Any = srcs or (a.data.ptr,)
        last = len(plan.steps) - 1
        keep = []
        out = (alloc or self._new_out)(plan.shape, plan.dtype, plan.size, stream)
        for i, st in enumerate(plan.steps):
            if i == last and not st.fused:
                launch(st.f, st.grid, st.block, st.fmt, *src, out.data.ptr, *st.args,
                       stream=stream)
                return out
            part = self._scratch.get(dev, stream, i & 1, st.nbytes)
            keep.append(part)
            fused: tuple = ()
            if i == last:  # a fused pass: partials to scratch, its rows' results to out
                fused = (out.data.ptr, self._scratch.counters(dev, stream, st.fused).data.ptr)
            launch(st.f, st.grid, st.block, st.fmt, *src, part.data.ptr, *st.args, *fused,
                   stream=stream)
            src = (part.data.ptr,)
        return out

    def run_fused(self, name: str, body: str, inputs: list[tuple[int, Any]],
                  consts: list[tuple[Any, np.dtype]], t: np.dtype, axes: tuple[int, ...],
                  out_dtype: np.dtype, keepdims: bool) -> Any:
        """``name`` over ``axes`` (normalized) of the elements ``body`` computes from
        ``inputs`` ((position, array): C-contiguous arrays of one shape) and ``consts``
        ((value, dtype)), as :class:`Elem` says, in one plan whose first launch computes
        the elements: the result :meth:`run` gives for the array of those elements (of
        dtype ``t``, freshly allocated), or None where the kernels do not take it."""
        if (not self.enabled or name not in _FUSABLE or t not in INPUTS[name]
                or (name in ("sum", "prod") and out_dtype not in _REAL)
                or (name not in ("sum", "prod") and out_dtype != t)
                or len(inputs) + len(consts) > 8):
            return None
        a0 = inputs[0][1]
        shape = a0.shape
        if not 0 < a0.size < _MAX_SIZE or not all(
                a.__class__ is _nd and a.shape == shape and a._c_contiguous and self._is_fast(a)
                for _, a in inputs):
            return None
        elem = Elem(body, tuple((p, a.dtype, not a.data.ptr & 15) for p, a in inputs),
                    tuple(d for _, d in consts))
        key = (name, elem, shape, t, axes, out_dtype, keepdims,
               cupy.cuda.runtime.getDevice() if self._multi else 0)
        try:
            plan = self._fused[key]
        except KeyError:
            if len(self._fused) >= 256:
                self._fused.clear()
            plan = self._fused[key] = self.plan(name, shape, t, axes, out_dtype, keepdims,
                                                0.0, True, elem)
        if plan is None:
            return None
        srcs = tuple(a.data.ptr for _, a in inputs) + tuple(
            int.from_bytes(np.asarray(v, dtype=d).tobytes().ljust(8, b"\0"), "little")
            for v, d in consts)
        return self.execute(plan, a0, srcs)

    def takes(self, a: Any, name: str) -> bool:
        """Whether ``a`` can take the kernels: a non-empty C-contiguous array of plain
        device memory on the default stream, of a dtype ``name`` handles."""
        return (a.__class__ is _nd and self.enabled and a.dtype in INPUTS[name]
                and 0 < a.size < _MAX_SIZE and a._c_contiguous and self._is_fast(a))

    def wrap(self, name: str, fallback: Any) -> Any:
        """The namespace kernel ``name`` (one of ``NAMESPACE_OPS``) on these kernels where
        :meth:`takes`, else ``fallback`` (also for reductions over only length-1 axes).

        The plan is looked up by the call's own arguments first (shape, dtype, axis,
        keepdims, dtype or correction, alignment), so a repeated call costs a dict
        lookup, an allocation and the launches."""
        plans: dict[tuple, _Plan | None] = {}
        takes = self.takes
        execute = self.execute
        multi = self._multi
        get_device = cupy.cuda.runtime.getDevice
        o_fixed = {"any": _BOOL, "all": _BOOL, "count_nonzero": _I64}.get(name)

        def axes_of(nd: int, axis: Any) -> tuple[int, ...]:
            if axis is None:
                return tuple(range(nd))
            if axis.__class__ is tuple:
                return tuple(sorted({ax % nd for ax in axis}))
            return (axis % nd,)

        def out_dtype(a: Any, extra: Any) -> np.dtype | None:
            """The result dtype, or None where the kernels do not produce it."""
            if name in ("sum", "prod"):
                o = np.dtype(extra) if extra is not None else _sum_dtype(a.dtype)
                return o if o in _REAL else None
            if name == "reduce_hypot":
                o = np.dtype(extra) if extra is not None else a.dtype
                return o if o.kind == "f" else None
            return o_fixed or a.dtype

        def build(key: tuple, a: Any, axis: Any, keepdims: bool, extra: Any,
                  corr: float) -> _Plan | None:
            p = None
            if takes(a, name) and a.ndim:
                o = out_dtype(a, extra)
                if o is not None:
                    op = "hypot32" if name == "reduce_hypot" and a.dtype == _F32 else name
                    p = self.plan(op, a.shape, a.dtype, axes_of(a.ndim, axis), o, keepdims,
                                  corr, key[-1])
            plans[key] = p
            return p

        def run(a: Any, axis: Any, keepdims: bool, extra: Any, corr: float, **kw: Any) -> Any:
            """``a`` reduced by its plan where the kernels take it, else by ``fallback``
            (``kw``: the fallback's other arguments)."""
            if a.__class__ is _nd and self.enabled and a._c_contiguous:
                key = (a.shape, a.dtype, axis, keepdims, extra, corr,
                       get_device() if multi else 0, not a.data.ptr & 15)
                try:
                    p = plans[key]
                except KeyError:
                    p = build(key, a, axis, keepdims, extra, corr)
                except TypeError:  # an unhashable axis: the fallback's error
                    p = None
                if p is not None and self._is_fast(a):
                    return execute(p, a)
            return fallback(a, axis=axis, keepdims=keepdims, **kw)

        if name in ("sum", "prod"):
            def kernel(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
                return run(a, axis, keepdims, dtype, 0.0, dtype=dtype)
        elif name in ("var", "std"):
            def kernel(a: Any, axis: Any = None, correction: float = 0.0,  # type: ignore[misc]
                       keepdims: bool = False) -> Any:
                return run(a, axis, keepdims, None, float(correction), correction=correction)
        elif name == "reduce_hypot":
            def kernel(a: Any, axis: Any = None, keepdims: bool = False,  # type: ignore[misc]
                       dtype: Any = None) -> Any:
                return run(a, axis, keepdims, dtype, 0.0, dtype=dtype)
        else:
            def kernel(a: Any, axis: Any = None, keepdims: bool = False) -> Any:  # type: ignore[misc]
                return run(a, axis, keepdims, None, 0.0)

        kernel.__name__ = name
        return kernel

    def wrap_arg(self, name: str, contiguous: Callable[[Any], Any], fallback: Any) -> Any:
        """``argmax``/``argmin`` of arrays of any layout, queue and memory kind on these
        kernels, on the current stream with results from the current allocator (the
        caller's placement): a C-order copy first (``contiguous(a)``, None where it
        cannot make one) where ``a`` is not C-contiguous; ``fallback`` for dtypes
        and sizes the kernels do not take.  Reducing only axes of length 1 gives
        index 0 without a launch."""
        plans: dict[tuple, tuple[_Plan | None, tuple[int, ...]]] = {}
        get_device = cupy.cuda.runtime.getDevice

        def kernel(a: Any, axis: Any = None, keepdims: bool = False) -> Any:
            if (a.__class__ is _nd and self.enabled and a.dtype in INPUTS[name]
                    and 0 < a.size < _MAX_SIZE and (a.ndim or axis is None)):
                c = a if a._c_contiguous else contiguous(a)
                if c is not None:
                    aligned = not c.data.ptr & 15
                    key = (a.shape, a.dtype, axis, keepdims, aligned,
                           get_device() if self._multi else 0)
                    got = plans.get(key)
                    if got is None:
                        if len(plans) >= 256:
                            plans.clear()
                        got = plans[key] = self._arg_plan(name, a, axis, keepdims, aligned)
                    p, shape = got
                    alloc = self._new_out if self._is_fast(c) else plain_out
                    if p is not None:
                        return self.execute(p, c, alloc=alloc)
                    out = alloc(shape, _I64, math.prod(shape), _stream_ptr())
                    out.data.memset_async(0, out.nbytes)
                    return out
            return fallback(a, axis=axis, keepdims=keepdims)

        kernel.__name__ = name
        return kernel

    def _arg_plan(self, name: str, a: Any, axis: Any, keepdims: bool,
                  aligned: bool) -> tuple[_Plan | None, tuple[int, ...]]:
        """The plan of ``name`` over ``axis`` (None: the flattened array) of a C-order
        array of ``a``'s shape and dtype, and the result's shape."""
        nd = a.ndim
        if axis is None:
            shape: tuple[int, ...] = (1,) * nd if keepdims else ()
            p = self.plan(name, (a.size,), a.dtype, (0,), _I64, False, 0.0, aligned)
        else:
            ax = axis % nd
            shape = a.shape[:ax] + ((1,) if keepdims else ()) + a.shape[ax + 1:]
            p = self.plan(name, a.shape, a.dtype, (ax,), _I64, keepdims, 0.0, aligned)
        return (None if p is None else _Plan(p.steps, shape, p.dtype, p.size)), shape


def _sum_dtype(d: np.dtype) -> np.dtype:
    """NumPy's (and CuPy's) default result dtype of a sum or product."""
    if d.kind == "b" or (d.kind == "i" and d.itemsize < 8):
        return _I64
    if d.kind == "u" and d.itemsize < 8:
        return _U64
    return d


__all__ = ["INPUTS", "NAMESPACE_OPS", "OPS", "Elem", "Reductions"]
