"""The ``usm_ndarray(shape, dtype, buffer, strides, offset, ...)`` constructor (seed 000).

Validates every argument before the provider sees it, so a crafted view can only
be accepted when each element it addresses lies inside the buffer.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from ... import _dtypes as dt
from .._layout import INDEX_LIMIT, check_layout_flags

_ALLOC_KINDS = ("device", "shared", "host")
_MAX_ALIGNMENT = 2**30  # far beyond any page or cache line; larger ones waste the space


def _as_shape(shape: Any, what: str) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    try:
        out = tuple(operator.index(n) for n in shape)
    except TypeError:
        raise TypeError(f"usm_ndarray: {what} must be an int or a tuple of ints, got {shape!r}") from None
    return out


def _as_dtype(dtype: Any, q: Any) -> np.dtype:
    if dtype is None:
        return dt.float64 if q.sycl_device.has_aspect_fp64 else dt.float32
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


def construct(
    _sycl: Any,
    shape: Any,
    dtype: Any,
    buffer: Any,
    strides: Any,
    offset: Any,
    order: str,
    buffer_ctor_kwargs: dict | None,
) -> Any:
    pt = _sycl.provider
    shape = _as_shape(shape, "shape")
    if any(n < 0 for n in shape):
        raise ValueError(f"usm_ndarray: shape {shape} has a negative extent")
    if order not in ("C", "F"):
        raise ValueError(f"usm_ndarray: order must be 'C' or 'F', got {order!r}")
    kwargs = dict(buffer_ctor_kwargs or {})
    unknown = set(kwargs) - {"queue", "alignment", "copy"}
    if unknown:
        raise TypeError(
            f"usm_ndarray: buffer_ctor_kwargs accepts 'queue', 'alignment', 'copy'; got {sorted(unknown)}"
        )
    if isinstance(buffer, str):
        if buffer not in _ALLOC_KINDS:
            raise ValueError(f"usm_ndarray: buffer={buffer!r}; use 'device', 'shared' or 'host'")
        q = kwargs.get("queue")
        if q is None:
            q = _sycl.default_queue()
        elif not isinstance(q, type(_sycl.default_queue())):
            raise TypeError(
                f"usm_ndarray: buffer_ctor_kwargs['queue'] must be a dpctl.SyclQueue, got "
                f"{type(q).__name__}"
            )
        alignment = kwargs.get("alignment", 0)
        if (type(alignment) is not int or alignment < 0 or alignment & (alignment - 1)
                or alignment > _MAX_ALIGNMENT):
            raise ValueError(
                f"usm_ndarray: buffer_ctor_kwargs['alignment'] must be 0 or a power of two "
                f"up to {_MAX_ALIGNMENT}, "
                f"got {alignment!r}"
            )
        capacity = None
    elif isinstance(buffer, pt.usm_ndarray) or _sycl.memory_object(buffer):
        from .suai import check_memory  # dpctl: only a SYCL backend constructs

        if isinstance(buffer, pt.usm_ndarray):
            buffer = buffer.usm_data
        q = buffer.sycl_queue
        capacity = check_memory(buffer, "usm_ndarray: the buffer's memory object")
    else:
        raise TypeError(
            "usm_ndarray: buffer must be 'device', 'shared', 'host', a dpctl.memory.MemoryUSM* "
            f"object or a usm_ndarray, got {type(buffer).__name__}"
        )
    d = _as_dtype(dtype, q)
    if strides is not None:
        strides = _as_shape(strides, "strides")
        if len(strides) != len(shape):
            raise ValueError(
                f"usm_ndarray: strides {strides} and shape {shape} differ in length"
            )
    offset = operator.index(offset)
    if strides is not None and 0 not in shape:
        lo = sum(s * (n - 1) for s, n in zip(strides, shape, strict=False) if s < 0)
        hi = sum(s * (n - 1) for s, n in zip(strides, shape, strict=False) if s > 0)
        if offset == 0 and lo < 0:
            offset = -lo  # the lowest addressed element sits at the buffer's start
        span = offset + hi + 1
        if offset + lo < 0 or (capacity is not None and span * d.itemsize > capacity):
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
    if capacity is None:
        _check_allocation(_sycl, shape, strides, offset, d, q)
    for name, values in (("shape", shape), ("strides", strides or ()), ("offset", (offset,))):
        if any(not -INDEX_LIMIT <= v < INDEX_LIMIT for v in values):
            raise ValueError(f"usm_ndarray: {name} {values} exceeds the 64-bit index range")
    try:
        raw = pt.usm_ndarray(
            shape, dtype=d, strides=strides, buffer=buffer, offset=offset, order=order,
            buffer_ctor_kwargs=kwargs,
        )
    except _sycl.alloc_errors as exc:
        raise _sycl.memory_error(math.prod(shape) * d.itemsize, q) from exc
    check_layout_flags(raw)
    return raw



def _check_allocation(
    _sycl: Any, shape: tuple, strides: Any, offset: int, d: np.dtype, q: Any
) -> None:
    """A new allocation must be representable and fit the device, before the provider's
    64-bit size arithmetic sees it (it wraps around silently)."""
    if 0 in shape:
        return
    if strides is None:
        elements = math.prod(shape) + offset
    else:
        elements = offset + sum(abs(s) * (n - 1) for s, n in zip(strides, shape, strict=True)) + 1
    nbytes = elements * d.itemsize
    limit = q.sycl_device.global_mem_size
    if nbytes >= INDEX_LIMIT or nbytes > limit:
        raise _sycl.memory_error(nbytes, q)
