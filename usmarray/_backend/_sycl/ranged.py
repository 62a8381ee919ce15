"""Kernels past the provider's work-item range, run in pieces.

The SYCL provider compiles its kernels with 32-bit work-item ids: a launch over more
than 2**31 - 1 work-items raises RuntimeError, or aborts the process when other work
is queued.  How many elements one work-item takes depends on the
kernel and the layout (a full ``sum`` fails from 2**34 elements, ``argmax`` from
2**32, a strided ``logical_not`` from 2**32), so every elementwise and reduction
kernel whose operands or result reach ``LIMIT`` elements goes through here instead:

* the array is split along its outermost axes into pieces of at most ``PIECE``
  elements, in C order (``pieces``); each piece is one ordinary launch;
* an elementwise kernel writes each piece of its result in place (``out=``);
* a reduction reduces each piece with ``keepdims=True`` and combines the partial
  results of pieces that share an output region with the reduction's own combining
  operation (``add`` for ``sum``, ``maximum`` for ``max``, first-wins index selection
  for ``argmax``, a second pass about the mean for ``var``/``std``).

Below ``LIMIT`` the provider's function is called directly after one size test.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Iterator
from typing import Any

from .._layout import broadcast_shape

#: operands or results of this many elements (or more) are run in pieces
LIMIT = 2**31
#: elements per piece: a 2 GiB float64 temporary at most, and few launches
PIECE = 2**28
#: more pieces than this (a reduction over more than 2**48 elements) is refused
MAX_PIECES = 2**20

Key = tuple[slice, ...]


def pieces(shape: tuple[int, ...], piece: int | None = None) -> Iterator[tuple[Key, int]]:
    """``(key, flat_start)`` for pieces of at most ``piece`` elements covering
    ``shape`` in C order: the axes before a split axis ``s`` one index at a time, axis
    ``s`` in runs, the axes after it whole; ``flat_start`` is the C-order index of the
    piece's first element.  Each piece is a contiguous range of C-order indices."""
    piece = PIECE if piece is None else piece
    nd = len(shape)
    inner = [math.prod(shape[k + 1:]) for k in range(nd)]
    s = next(k for k in range(nd) if inner[k] <= piece)
    run = max(1, piece // inner[s])
    count = math.prod(shape[:s]) * -(-shape[s] // run)
    if count > MAX_PIECES:
        raise ValueError(
            f"an operand of shape {shape} would take {count} kernel launches of at most "
            f"{piece} elements each (the device's kernels address fewer than {LIMIT} "
            "work-items per launch); reduce the array's size"
        )
    rest = (slice(None),) * (nd - s - 1)
    for prefix in itertools.product(*(range(n) for n in shape[:s])):
        head = sum(i * inner[k] for k, i in enumerate(prefix))
        for j in range(0, shape[s], run):
            key = tuple(slice(i, i + 1) for i in prefix) + (slice(j, min(j + run, shape[s])),)
            yield key + rest, head + j * inner[s]


def elementwise(fn: Callable[..., Any], pt: Any) -> Callable[..., Any]:
    """The provider's elementwise ``fn`` (arrays and scalars in, one array out, ``out=``
    accepted), run in pieces where the result reaches ``LIMIT`` elements."""
    at = pt.usm_ndarray

    @functools.wraps(fn)
    def kernel(*args: Any, **kwargs: Any) -> Any:
        total = 1
        for a in args:
            if type(a) is at:
                total *= a.size
        if total < LIMIT:  # the result has at most the product of the operands' sizes
            return fn(*args, **kwargs)
        arrays = [a for a in args if type(a) is at]
        shape = broadcast_shape(*[a.shape for a in arrays])
        if shape is None or math.prod(shape) < LIMIT:  # None: the provider's error
            return fn(*args, **kwargs)
        if kwargs.get("out") is None and _too_big(shape, arrays[0]):
            return fn(*args, **kwargs)  # its allocation of the result fails first: MemoryError
        out = kwargs.pop("out", None)
        ops = [pt.broadcast_to(a, shape) if type(a) is at else a for a in args]
        if out is None:
            probe = fn(*[a[(slice(0, 1),) * len(shape)] if type(a) is at else a for a in ops],
                       **kwargs)
            out = pt.empty(shape, dtype=probe.dtype, usm_type=probe.usm_type,
                           sycl_queue=probe.sycl_queue)
        for key, _ in pieces(shape):
            fn(*[a[key] if type(a) is at else a for a in ops], out=out[key], **kwargs)
        return out

    return kernel


def _too_big(shape: tuple[int, ...], like: Any) -> bool:
    """Whether a result of ``shape`` (of ``like``'s item size at least) cannot fit the
    device's memory, so that the provider's own allocation refuses it before any launch."""
    return math.prod(shape) * like.itemsize > like.sycl_device.global_mem_size


def _axes(axis: Any, nd: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(nd))
    if isinstance(axis, int):
        axis = (axis,)
    return tuple(sorted(a % nd for a in axis))


def _bounds(key: Key, axes: tuple[int, ...], shape: tuple[int, ...]) -> tuple:
    """Where a piece's partial result lands in the kept-dims result, as hashable
    (start, stop) pairs (``_slices`` makes the key)."""
    return tuple((0, 1) if k in axes else (s.start or 0, n if s.stop is None else s.stop)
                 for k, (s, n) in enumerate(zip(key, shape, strict=True)))


def _slices(bounds: tuple) -> Key:
    return tuple(slice(a, b) for a, b in bounds)


def _kept(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(1 if k in axes else n for k, n in enumerate(shape))


def _partials(x: Any, axes: tuple[int, ...], leaf: Callable[[Any, Key, int], Any],
              combine: Callable[[Any, Any], Any]) -> dict[tuple, Any]:
    """``leaf(piece, key, flat_start)`` per piece (kept dims), combined in C order where
    pieces share a region of the result: {region bounds: partial}."""
    parts: dict[tuple, Any] = {}
    for key, flat in pieces(x.shape):
        region = _bounds(key, axes, x.shape)
        part = leaf(x[key], key, flat)
        parts[region] = part if region not in parts else combine(parts[region], part)
    return parts


def _assemble(pt: Any, parts: dict[tuple, Any], shape: tuple[int, ...]) -> Any:
    """The kept-dims result of ``shape`` from its regions' partial results."""
    first = next(iter(parts.values()))
    if len(parts) == 1:
        return first
    out = pt.empty(shape, dtype=first.dtype, usm_type=first.usm_type,
                   sycl_queue=first.sycl_queue)
    for region, part in parts.items():
        out[_slices(region)] = part
    return out


def _finish(pt: Any, out: Any, axes: tuple[int, ...], keepdims: bool) -> Any:
    return out if keepdims or not axes else pt.squeeze(out, axis=axes)


def _reduce_pieces(pt: Any, x: Any, axes: tuple[int, ...],
                   leaf: Callable[[Any, Key, int], Any],
                   combine: Callable[[Any, Any], Any]) -> Any:
    return _assemble(pt, _partials(x, axes, leaf, combine), _kept(x.shape, axes))


#: reductions whose pieces combine with one elementwise function of the provider
COMBINE = {"sum": "add", "prod": "multiply", "max": "maximum", "min": "minimum",
           "any": "logical_or", "all": "logical_and", "count_nonzero": "add",
           "reduce_hypot": "hypot"}


def reduction(name: str, fn: Callable[..., Any], pt: Any) -> Callable[..., Any]:
    """The provider's reduction ``fn(x, axis=..., keepdims=..., **kw)`` run in pieces
    where ``x`` reaches ``LIMIT`` elements."""
    at = pt.usm_ndarray

    @functools.wraps(fn)
    def kernel(x: Any, *args: Any, **kwargs: Any) -> Any:
        if type(x) is not at or x.size < LIMIT or args:
            return fn(x, *args, **kwargs)
        axes = _axes(kwargs.get("axis"), x.ndim)
        if _too_big(_kept(x.shape, axes), x):
            return fn(x, **kwargs)  # its allocation of the result fails first: MemoryError
        axis = kwargs.pop("axis", None)
        keepdims = bool(kwargs.pop("keepdims", False))
        if name in IDEMPOTENT and any(n > 1 and st == 0 for n, st in zip(x.shape, x.strides,
                                                                        strict=True)):
            return _finish(pt, _idempotent(pt, name, fn, x, axes, kwargs), axes, keepdims)
        if name in COMBINE:
            join = getattr(pt, COMBINE[name])
            out = _reduce_pieces(pt, x, axes,
                                 lambda p, *_: fn(p, axis=axes, keepdims=True, **kwargs), join)
        elif name == "mean":
            out = _mean(pt, x, axes)
        elif name in ("var", "std"):
            out = _var(pt, x, axes, float(kwargs.get("correction", 0.0)))
            if name == "std":
                out = pt.sqrt(out)
        elif name in ("argmax", "argmin"):
            out = _arg(pt, fn, name, x, axis)
            if axis is None:
                return pt.reshape(out, (1,) * x.ndim) if keepdims else out
        else:  # pragma: no cover - every wrapped name is handled above
            raise AssertionError(name)
        return _finish(pt, out, axes, keepdims)

    return kernel


#: reductions that a repeated element does not change: over a broadcast axis (stride 0)
#: they reduce one copy.  The provider's float max/min run 7-14 times slower per
#: element than its sum on the OpenCL CPU device (NaN-propagating comparisons, measured
#: on 2**24 contiguous float32: 5 ms sum, 68-96 ms max/min), so over 2**34 broadcast
#: elements max took 59 s where sum took 7.3 s; reducing one copy takes milliseconds.
IDEMPOTENT = frozenset({"max", "min", "any", "all"})


def _idempotent(pt: Any, name: str, fn: Callable[..., Any], x: Any, axes: tuple[int, ...],
                kw: dict) -> Any:
    """``fn`` (the ``IDEMPOTENT`` reduction ``name``) of ``x`` over ``axes``, kept dims, computed
    on one copy of each broadcast axis: a reduced one contributes its one value, a kept
    one gets the result repeated (written out: a result owns its elements)."""
    key = tuple(slice(0, 1) if n > 1 and st == 0 else slice(None)
                for n, st in zip(x.shape, x.strides, strict=True))
    one = x[key]
    part = (fn(one, axis=axes, keepdims=True, **kw) if one.size < LIMIT else
            _reduce_pieces(pt, one, axes,
                           lambda p, *_: fn(p, axis=axes, keepdims=True, **kw),
                           getattr(pt, COMBINE[name])))
    shape = _kept(x.shape, axes)
    if part.shape == shape:
        return part
    out = pt.empty(shape, dtype=part.dtype, usm_type=part.usm_type,
                   sycl_queue=part.sycl_queue)
    out[...] = part
    return out


def _mean(pt: Any, x: Any, axes: tuple[int, ...]) -> Any:
    total = _reduce_pieces(pt, x, axes, lambda p, *_: pt.sum(p, axis=axes, keepdims=True),
                           pt.add)
    return pt.divide(total, math.prod(x.shape[k] for k in axes))


def _var(pt: Any, x: Any, axes: tuple[int, ...], correction: float) -> Any:
    """Sum of squared deviations from the mean, per piece, over N - correction."""
    m = _mean(pt, x, axes)

    def leaf(p: Any, key: Key, _: int) -> Any:
        d = pt.subtract(p, m[_slices(_bounds(key, axes, x.shape))])
        return pt.sum(pt.square(d), axis=axes, keepdims=True)

    ss = _reduce_pieces(pt, x, axes, leaf, pt.add)
    n = math.prod(x.shape[k] for k in axes) - correction
    return pt.divide(ss, n) if n > 0 else pt.full_like(ss, math.nan)


def _arg(pt: Any, fn: Callable[..., Any], name: str, x: Any, axis: Any) -> Any:
    """First index of the extremum: per piece the index (plus the piece's offset) and the
    value; a later piece wins only with a strictly better value, so the first occurrence
    stays.  ``axis=None`` counts C-order flat indices (each piece is a contiguous range
    of them), else indices along ``axis``.  Returns kept dims for an axis, 0-D for None."""
    better = pt.greater if name == "argmax" else pt.less
    extremum = pt.max if name == "argmax" else pt.min
    axes = _axes(axis, x.ndim)

    def leaf(p: Any, key: Key, flat: int) -> tuple[Any, Any]:
        if axis is None:
            return pt.add(fn(p), flat), extremum(p)
        k = axes[0]
        return (pt.add(fn(p, axis=k, keepdims=True), key[k].start or 0),
                extremum(p, axis=k, keepdims=True))

    def pick(best: tuple[Any, Any], new: tuple[Any, Any]) -> tuple[Any, Any]:
        (best_idx, best_val), (idx, val) = best, new
        win = better(val, best_val)
        if val.dtype.kind in "fc":  # a NaN beats a number, the first NaN stays
            win = pt.logical_or(win, pt.logical_and(pt.isnan(val),
                                                    pt.logical_not(pt.isnan(best_val))))
        return pt.where(win, idx, best_idx), pt.where(win, val, best_val)

    parts = _partials(x, axes, leaf, pick)
    if axis is None:
        return next(iter(parts.values()))[0]
    return _assemble(pt, {r: v[0] for r, v in parts.items()}, _kept(x.shape, axes))
