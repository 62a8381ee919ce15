"""The ``usm_ndarray(shape, dtype, buffer, strides, offset, order, buffer_ctor_kwargs)``
constructor, in terms of no particular backend.

:func:`construct` validates every argument and does the bounds arithmetic once, for
every backend, before a backend sees the call: a view is accepted only when each
element it addresses, ``buf[offset + sum(strides[k] * i[k])]`` (in elements), lies
inside the buffer.  A backend then supplies (see ``docs/backends.md``):

* ``memory_object(obj)``: whether ``obj`` is memory its constructor views (CuPy's
  ``MemoryPointer`` / ``BaseMemory``, dpctl's ``MemoryUSM*``);
* ``buffer_of(raw)``: the memory a ``usm_ndarray(buffer=x)`` of its array ``x`` views;
* ``ctor_memory(obj)``: ``(memory, capacity in bytes, queue)`` of such an object,
  validated (size, readability), or None when ``obj`` is not its memory;
* ``ctor_queue(obj)``: the queue that ``buffer_ctor_kwargs["queue"]`` names;
* ``check_alloc(nbytes, usm_type, q)``: MemoryError for a new allocation that cannot be;
* ``ctor_make(shape, dtype, strides, offset, order, buffer, q, kwargs)``: the raw array.

Backends whose memory is a byte range (NumPy, CUDA) share :func:`make_strided` as their
``ctor_make``: they describe memory as an :class:`Extent` and supply
``alloc_bytes(nbytes, usm_type, q)`` (a new raw array of that many bytes) and
``extent_view(extent, byte0, shape, dtype, byte_strides)`` (a raw array whose element
0 is ``byte0`` bytes into the extent).
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _dtypes as dt
from ._layout import INDEX_LIMIT, check_layout_flags

ALLOC_KINDS = ("device", "shared", "host")
MAX_ALIGNMENT = 2**30  # far beyond any page or cache line; larger ones waste the space
_CTOR_KWARGS = ("queue", "alignment", "copy")


@dataclass(frozen=True)
class Extent:
    """Bytes ``[ptr, ptr + nbytes)`` of one allocation of a backend, on ``queue``, of
    kind ``usm_type``; ``keep`` keeps the memory alive while a view of it lives."""

    ptr: int
    nbytes: int
    queue: Any
    usm_type: str
    keep: Any


def check_usm_type(be: Any, usm_type: Any, what: str) -> str:
    """``usm_type`` where backend ``be`` has that kind of memory; ValueError otherwise,
    naming the kinds (``what`` names the argument, e.g. ``"empty: usm_type"``)."""
    if usm_type not in be.usm_types:
        if usm_type not in ALLOC_KINDS:
            raise ValueError(f"{what}={usm_type!r}; use 'device', 'shared' or 'host'")
        raise ValueError(
            f"{what}={usm_type!r} is not available on the {be.name!r} backend, "
            f"which has {be.usm_types}"
        )
    return usm_type


def _as_shape(shape: Any, what: str) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    try:
        out = tuple(operator.index(n) for n in shape)
    except TypeError:
        raise TypeError(f"usm_ndarray: {what} must be an int or a tuple of ints, got {shape!r}") from None
    return out


def _as_dtype(dtype: Any, be: Any, q: Any) -> np.dtype:
    if dtype is None:
        return dt.float64 if be.capabilities(q).fp64 else dt.float32
    if dt.is_dtype(dtype):
        return dt.check_dtype(dtype)
    try:
        d = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"usm_ndarray: dtype={dtype!r} is not a data type") from None
    if not dt.is_np_standard(d):
        raise TypeError(
            f"usm_ndarray: dtype {d} is not one of the array API standard's dtypes"
        )
    return d


def span(shape: tuple[int, ...], strides: tuple[int, ...]) -> tuple[int, int]:
    """(lowest, highest) element addressed relative to element 0, for a non-empty
    shape (with byte strides: the first bytes of the lowest and highest items)."""
    lo = sum(s * (n - 1) for s, n in zip(strides, shape, strict=False) if s < 0)
    hi = sum(s * (n - 1) for s, n in zip(strides, shape, strict=False) if s > 0)
    return lo, hi


def contiguous_strides(shape: tuple[int, ...], order: str) -> tuple[int, ...]:
    """Element strides of a C- (``order="C"``) or F-contiguous layout of ``shape``."""
    out = [0] * len(shape)
    acc = 1
    for k in (reversed(range(len(shape))) if order == "C" else range(len(shape))):
        out[k] = acc
        acc *= max(shape[k], 1)
    return tuple(out)


def construct(
    be: Any,
    default_q: Any,
    shape: Any,
    dtype: Any,
    buffer: Any,
    strides: Any,
    offset: Any,
    order: str,
    buffer_ctor_kwargs: dict | None,
) -> Any:
    """The raw array of ``usm_ndarray(shape, dtype, buffer, strides, offset, order,
    buffer_ctor_kwargs)`` on backend ``be``.  A new allocation (``buffer`` a kind) goes
    to ``buffer_ctor_kwargs["queue"]``, else to ``default_q`` (the default device's
    queue), else to the backend's default queue; a view goes to its memory's queue.

    Errors: TypeError for arguments of the wrong type; ValueError for a negative
    extent, an unknown order or kind, a kind the backend lacks, strides of another
    length than the shape, and a view that would address an element outside its buffer
    or an int beyond the 64-bit index range; MemoryError naming the size for an
    allocation the device cannot hold."""
    shape = _as_shape(shape, "shape")
    if any(n < 0 for n in shape):
        raise ValueError(f"usm_ndarray: shape {shape} has a negative extent")
    if order not in ("C", "F"):
        raise ValueError(f"usm_ndarray: order must be 'C' or 'F', got {order!r}")
    kwargs = dict(buffer_ctor_kwargs or {})
    unknown = set(kwargs) - set(_CTOR_KWARGS)
    if unknown:
        raise TypeError(
            f"usm_ndarray: buffer_ctor_kwargs accepts 'queue', 'alignment', 'copy'; got {sorted(unknown)}"
        )
    if isinstance(buffer, str):
        kind = check_usm_type(be, buffer, "usm_ndarray: buffer")
        q = kwargs.get("queue")
        q = (default_q or be.default_queue()) if q is None else be.ctor_queue(q)
        alignment = kwargs.get("alignment", 0)
        if (type(alignment) is not int or alignment < 0 or alignment & (alignment - 1)
                or alignment > MAX_ALIGNMENT):
            raise ValueError(
                f"usm_ndarray: buffer_ctor_kwargs['alignment'] must be 0 or a power of two "
                f"up to {MAX_ALIGNMENT}, "
                f"got {alignment!r}"
            )
        capacity = None
    else:
        found = be.ctor_memory(buffer)
        if found is None:
            raise TypeError(
                f"usm_ndarray: buffer must be 'device', 'shared', 'host', a memory object "
                f"of the {be.name!r} backend or a usm_ndarray, got {type(buffer).__name__}"
            )
        buffer, capacity, q = found
    d = _as_dtype(dtype, be, q)
    if strides is not None:
        strides = _as_shape(strides, "strides")
        if len(strides) != len(shape):
            raise ValueError(
                f"usm_ndarray: strides {strides} and shape {shape} differ in length"
            )
    offset = operator.index(offset)
    if strides is not None and 0 not in shape:
        lo, hi = span(shape, strides)
        if offset == 0 and lo < 0:
            offset = -lo  # the lowest addressed element sits at the buffer's start
        end = offset + hi + 1
        if offset + lo < 0 or (capacity is not None and end * d.itemsize > capacity):
            raise ValueError(
                f"usm_ndarray: shape {shape}, strides {strides} and offset {offset} address "
                f"elements {offset + lo} .. {offset + hi} of {d.itemsize}-byte items, outside "
                f"a buffer of {capacity} bytes ({(capacity or 0) // d.itemsize} elements); "
                "every addressed element must lie inside the buffer"
            )
    elif offset < 0:
        raise ValueError(f"usm_ndarray: offset {offset} is negative")
    elif capacity is not None:
        count = math.prod(shape)
        if count and (offset + count) * d.itemsize > capacity:
            raise ValueError(
                f"usm_ndarray: shape {shape} with offset {offset} needs "
                f"{(offset + count) * d.itemsize} bytes, but the buffer holds {capacity}"
            )
    if capacity is None and 0 not in shape:
        if strides is None:
            elements = math.prod(shape) + offset
        else:
            elements = offset + sum(abs(s) * (n - 1) for s, n in zip(strides, shape, strict=True)) + 1
        be.check_alloc(elements * d.itemsize, kind, q)
    for name, values in (("shape", shape), ("strides", strides or ()), ("offset", (offset,))):
        if any(not -INDEX_LIMIT <= v < INDEX_LIMIT for v in values):
            raise ValueError(f"usm_ndarray: {name} {values} exceeds the 64-bit index range")
    try:
        raw = be.ctor_make(shape, d, strides, offset, order, buffer, q, kwargs)
    except be.alloc_errors as exc:
        raise be.memory_error(math.prod(shape) * d.itemsize, q) from exc
    check_layout_flags(raw, be.element_strides(raw))
    return raw


def make_strided(
    be: Any, shape: tuple[int, ...], d: np.dtype, strides: tuple[int, ...] | None,
    offset: int, order: str, buffer: Any, q: Any, kwargs: dict,
) -> Any:
    """``ctor_make`` of a backend whose memory is an :class:`Extent` (arguments already
    validated by :func:`construct`).  A new allocation holds exactly the elements the
    view addresses, its lowest one first (as the SYCL provider allocates; the offset
    then only had to be valid), with element 0 aligned to the itemsize and to
    ``buffer_ctor_kwargs["alignment"]``; a view of an extent starts ``offset`` elements
    into it, which must be a multiple of the itemsize from an aligned address."""
    full = strides if strides is not None else contiguous_strides(shape, order)
    isz = d.itemsize
    empty = 0 in shape
    lo, hi = (0, -1) if empty else span(shape, full)
    if isinstance(buffer, str):
        copy = kwargs.get("copy", False)
        if type(copy) is not bool:
            raise TypeError(f"usm_ndarray: buffer_ctor_kwargs['copy'] must be a bool, got {copy!r}")
        align = max(kwargs.get("alignment") or 1, isz)
        nbytes = (hi - lo + 1) * isz
        ext = be.buffer_of(be.alloc_bytes(nbytes, buffer, q))
        if ext.ptr % align:  # the allocator aligned less: take more, start further in
            big = be.buffer_of(be.alloc_bytes(nbytes + align - 1, buffer, q))
            # the allocation a later view of this one counts offsets from: the aligned
            # bytes (``big`` keeps the memory alive)
            ext = Extent(big.ptr + (-big.ptr) % align, nbytes, big.queue, big.usm_type, big)
        byte0 = -lo * isz
    else:
        ext, byte0 = buffer, offset * isz
        if not empty and (ext.ptr + byte0) % isz:
            raise ValueError(
                f"usm_ndarray: element 0 would sit at address {ext.ptr + byte0:#x}, which is "
                f"not aligned to the {isz}-byte items of {d}; the buffer's memory must start "
                "at an address that is a multiple of the itemsize"
            )
    if empty:
        byte0 = 0  # addresses nothing: the offset need not lie in the buffer
    return be.extent_view(ext, byte0, shape, d, tuple(s * isz for s in full))


__all__ = ["ALLOC_KINDS", "Extent", "check_usm_type", "construct", "contiguous_strides",
           "make_strided", "span"]
