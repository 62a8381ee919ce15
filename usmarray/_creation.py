"""Creation functions (array API 2025.12) with ``device=``, ``usm_type=`` and the SYCL
backend's ``sycl_queue=``."""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from . import _dtypes as dt
from ._array import usm_ndarray, wrap_with
from ._device import Device, default_device
from ._helpers import MAX_NBYTES, alloc_failed, check_array, check_scalar, fill_scalar, same_device
from ._migration import asarray, from_dlpack, to_device
from ._placement import (
    check_device_dtype,
    default_complex,
    default_float,
    optional_dtype,
    placement,
    scalar_default_dtype,
)
from ._scalars import py_scalar

__all__ = [
    "arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full", "full_like",
    "linspace", "meshgrid", "ones", "ones_like", "tril", "triu", "zeros", "zeros_like",
]

_SCALARS = (bool, int, float, complex)


def _shape(shape: Any, fname: str) -> tuple[int, ...]:
    if type(shape) is int and shape >= 0:  # the commonest case
        return (shape,)
    if type(shape) is tuple and len(shape) <= 64:  # the common case, checked cheaply
        for n in shape:
            if type(n) is not int or n < 0:
                break
        else:
            return shape
    if isinstance(shape, int) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"{fname}: shape must be an int or a tuple of ints, got {type(shape).__name__}")
    try:
        out = tuple(operator.index(n) for n in shape)
    except TypeError:
        raise TypeError(f"{fname}: shape must contain ints only, got {shape!r}") from None
    if any(n < 0 for n in out):
        raise ValueError(f"{fname}: negative dimensions are not allowed, got {out}")
    if len(out) > 64:  # NumPy's limit, the same on every backend
        raise ValueError(f"{fname}: an array has at most 64 dimensions, got {len(out)}")
    return out


#: queue -> the bytes its device holds (None where the backend does not say)
_MEMORY: dict[Any, int | None] = {}


def _device_memory(q: Any) -> int | None:
    try:
        return _MEMORY[q]
    except KeyError:
        pass
    except TypeError:  # a queue that cannot be hashed
        return getattr(getattr(q, "sycl_device", None), "global_mem_size", None)
    if len(_MEMORY) >= 64:  # queues of short-lived streams: hold few of them
        _MEMORY.clear()
    limit = _MEMORY[q] = getattr(getattr(q, "sycl_device", None), "global_mem_size", None)
    return limit


def _cap(q: Any) -> int:
    """The most bytes one new array on queue ``q`` may take: ``MAX_NBYTES``, or less
    where the device holds less."""
    limit = _device_memory(q)
    return MAX_NBYTES if limit is None else min(MAX_NBYTES, limit)


def _alloc_n(be: Any, q: Any, ut: str, d: np.dtype, count: int, fn: Any, *args: Any,
             **extra: Any) -> Any:
    """``fn(*args, dtype=d, usm_type=ut, queue=q, **extra)`` for a new array of ``count``
    elements of ``d``: more than the device holds, or a failed allocation, is a
    MemoryError naming the size."""
    nbytes = count * d.itemsize
    if nbytes > _cap(q):
        raise be.memory_error(nbytes, q)
    try:
        return fn(*args, dtype=d, usm_type=ut, queue=q, **extra)
    except getattr(be, "alloc_errors", ()) as exc:
        raise be.memory_error(nbytes, q) from exc


def _alloc(be: Any, q: Any, ut: str, d: np.dtype, cap: int, fn: Any, shape: tuple, *fill: Any
           ) -> Any:
    """``fn(shape, *fill, dtype=d, usm_type=ut, queue=q)`` for a new array of ``d``:
    more than ``cap`` bytes (``_cap``), or a failed allocation, is a MemoryError naming
    the size.  Positional, so the keywords are built once (issue 31: passing
    ``**kwargs`` on cost 0.2-0.5 us of ``empty``)."""
    nbytes = math.prod(shape) * d.itemsize
    if nbytes > cap:
        raise be.memory_error(nbytes, q)
    try:
        return fn(shape, *fill, dtype=d, usm_type=ut, queue=q)
    except getattr(be, "alloc_errors", ()) as exc:
        raise be.memory_error(nbytes, q) from exc


#: (ids of a backend, its queue and a dtype argument, usm_type) -> ((backend, queue,
#: usm_type, dtype, byte cap), the dtype argument): what the placement keywords and the
#: dtype check made of them for a creation call whose default dtype is the device's
#: default float (issue 31: asking again cost 0.7 us of a 3.7 us ``empty`` on the NumPy
#: backend).  Keyed by the queue, not the Device: ``device=x.device`` is a new Device
#: each time.  Each entry holds the objects of its ids, so that their ids stay theirs.
_PLANS: dict[tuple[int, int, int, Any], tuple[tuple[Any, Any, str, np.dtype, int], Any]] = {}


def _plan(device: Any, dtype: Any, usm_type: Any, sycl_queue: Any, fname: str
          ) -> tuple[Any, Any, str, np.dtype, int]:
    """(backend, queue, usm_type, dtype, byte cap) of a creation call whose dtype
    defaults to the device's default float: ``placement`` and ``_dtype_or``, with their
    errors, answered from ``_PLANS`` for a device given as a Device, a filter string or
    None (the default device) and a usm_type given as None or a str."""
    key = None
    if sycl_queue is None and (usm_type is None or type(usm_type) is str):
        t = type(device)
        dev = device if t is Device else default_device() if device is None else (
            Device.create_device(device) if t is str else None)
        if dev is not None:
            key = (id(dev._be), id(dev._q), id(dtype), usm_type)
            hit = _PLANS.get(key)
            if hit is not None:
                return hit[0]
    be, q, ut = placement(device, usm_type, sycl_queue, fname)
    d = _dtype_or(dtype, default_float(q), q, fname)
    plan = (be, q, ut, d, _cap(q))
    if key is not None:
        if len(_PLANS) >= 64:  # queues of short-lived streams: hold few of them
            _PLANS.clear()
        _PLANS[key] = (plan, dtype)
    return plan


def _dtype_or(dtype: Any, default: np.dtype, q: Any, fname: str) -> np.dtype:
    d = optional_dtype(dtype, fname)
    d = default if d is None else d
    check_device_dtype(d, q, fname)
    return d


def _filled(fname: str, shape: Any, value: Any, dtype: Any, device: Any, usm_type: Any, sycl_queue: Any) -> usm_ndarray:
    be, q, ut, d, cap = _plan(device, dtype, usm_type, sycl_queue, fname)
    return wrap_with(be, _alloc(be, q, ut, d, cap, be.full, _shape(shape, fname), value))


def empty(shape: Any, *, dtype: Any = None, device: Any = None, usm_type: Any = None, sycl_queue: Any = None) -> usm_ndarray:
    be, q, ut, d, cap = _plan(device, dtype, usm_type, sycl_queue, "empty")
    return wrap_with(be, _alloc(be, q, ut, d, cap, be.empty, _shape(shape, "empty")))


def zeros(shape: Any, *, dtype: Any = None, device: Any = None, usm_type: Any = None, sycl_queue: Any = None) -> usm_ndarray:
    """A new array of +0 (False for bool) made by the backend's own ``zeros``: on the
    NumPy backend that is ``np.zeros``, whose pages the OS zeroes on first touch, where a
    fill writes every byte first (issue 31: 0.56x NumPy at 2^21 float32)."""
    be, q, ut, d, cap = _plan(device, dtype, usm_type, sycl_queue, "zeros")
    return wrap_with(be, _alloc(be, q, ut, d, cap, be.zeros, _shape(shape, "zeros")))


def ones(shape: Any, *, dtype: Any = None, device: Any = None, usm_type: Any = None, sycl_queue: Any = None) -> usm_ndarray:
    return _filled("ones", shape, 1, dtype, device, usm_type, sycl_queue)


def full(
    shape: Any,
    fill_value: bool | int | float | complex | usm_ndarray,
    *,
    dtype: Any = None,
    device: Any = None,
    usm_type: Any = None,
    sycl_queue: Any = None,
) -> usm_ndarray:
    """A new array filled with ``fill_value``; a 0-D array fill value with no placement
    keywords places the result on that array's device with its usm_type."""
    if type(fill_value) is usm_ndarray:
        fv = fill_value._arr
        if fv.ndim != 0:
            raise ValueError(f"full: an array fill_value must be 0-D, got shape {fv.shape}")
        if device is None and sycl_queue is None:
            device = fill_value.device
            usm_type = usm_type or fill_value.usm_type
        be, q, ut = placement(device, usm_type, sycl_queue, "full")
        d = _dtype_or(dtype, fv.dtype, q, "full")
        src = to_device(fill_value, Device._make(be, q))._arr
        out = _alloc(be, q, ut, d, _cap(q), be.empty, _shape(shape, "full"))
        be.setitem(out, Ellipsis, be.astype(src, d))
        return wrap_with(be, out)
    be, q, ut = placement(device, usm_type, sycl_queue, "full")
    fill_value = py_scalar(fill_value)
    if type(fill_value) not in _SCALARS:
        raise TypeError(
            "full: fill_value must be a bool, int, float, complex or 0-D array, got "
            f"{type(fill_value).__name__}"
        )
    d = _dtype_or(dtype, scalar_default_dtype(fill_value, q), q, "full")
    if type(fill_value) is int and d in dt.INTEGER:
        dt.check_integer_fits(d, fill_value, "full: fill_value")
    fill_value = fill_scalar(fill_value, d, "full")
    return wrap_with(be, _alloc(be, q, ut, d, _cap(q), be.full, _shape(shape, "full"), fill_value))


def _like(fname: str, x: usm_ndarray, dtype: Any, device: Any, usm_type: Any, sycl_queue: Any) -> tuple[Any, Any, str, np.dtype]:
    check_array(x, fname)
    a = x._arr
    if device is None and sycl_queue is None:
        device = x.device
        usm_type = usm_type or x.usm_type
    be, q, ut = placement(device, usm_type, sycl_queue, fname)
    d = optional_dtype(dtype, fname) or a.dtype
    check_device_dtype(d, q, fname)
    return be, q, ut, d


def empty_like(x: usm_ndarray, /, *, dtype: Any = None, device: Any = None, usm_type: Any = None, sycl_queue: Any = None) -> usm_ndarray:
    be, q, ut, d = _like("empty_like", x, dtype, device, usm_type, sycl_queue)
    return wrap_with(be, _alloc(be, q, ut, d, _cap(q), be.empty, x._arr.shape))


def zeros_like(x: usm_ndarray, /, *, dtype: Any = None, device: Any = None, usm_type: Any = None, sycl_queue: Any = None) -> usm_ndarray:
    be, q, ut, d = _like("zeros_like", x, dtype, device, usm_type, sycl_queue)
    return wrap_with(be, _alloc(be, q, ut, d, _cap(q), be.full, x._arr.shape, 0))


def ones_like(x: usm_ndarray, /, *, dtype: Any = None, device: Any = None, usm_type: Any = None, sycl_queue: Any = None) -> usm_ndarray:
    be, q, ut, d = _like("ones_like", x, dtype, device, usm_type, sycl_queue)
    return wrap_with(be, _alloc(be, q, ut, d, _cap(q), be.full, x._arr.shape, 1))


def full_like(
    x: usm_ndarray,
    /,
    fill_value: bool | int | float | complex,
    *,
    dtype: Any = None,
    device: Any = None,
    usm_type: Any = None,
    sycl_queue: Any = None,
) -> usm_ndarray:
    be, q, ut, d = _like("full_like", x, dtype, device, usm_type, sycl_queue)
    fill_value = py_scalar(fill_value)
    if type(fill_value) not in _SCALARS:
        raise TypeError(f"full_like: fill_value must be a Python scalar, got {type(fill_value).__name__}")
    check_scalar(d, fill_value, "full_like")
    return wrap_with(be, _alloc(be, q, ut, d, _cap(q), be.full, x._arr.shape, fill_value))


def _python_scalar(v: Any, complex_ok: bool = False) -> Any:
    """A 0-D real (with ``complex_ok``, also complex) array as its Python number, as
    array-api-strict accepts it where the standard says a Python scalar; else ``v``."""
    if type(v) is usm_ndarray and v._arr.ndim == 0:
        d = v._arr.dtype
        if d in dt.REAL_NUMERIC:
            return int(v) if d in dt.INTEGER else float(v)
        if complex_ok and d in dt.COMPLEX_FLOATING:
            return complex(v)
    return v


def arange(
    start: int | float,
    /,
    stop: int | float | None = None,
    step: int | float = 1,
    *,
    dtype: Any = None,
    device: Any = None,
    usm_type: Any = None,
    sycl_queue: Any = None,
) -> usm_ndarray:
    be, q, ut = placement(device, usm_type, sycl_queue, "arange")
    # 0-D real arrays stand for their value, as in array-api-strict (SciPy relies on it)
    start, stop, step = (_python_scalar(v) for v in (start, stop, step))
    for name, v in (("start", start), ("stop", stop), ("step", step)):
        if v is not None and type(v) not in (int, float):
            raise TypeError(f"arange: {name} must be an int or float, got {type(v).__name__}")
    if step == 0:
        raise ValueError("arange: step must not be zero")
    if stop is None:
        start, stop = 0, start
    is_float = any(type(v) is float for v in (start, stop, step))
    d = _dtype_or(dtype, default_float(q) if is_float else dt.int64, q, "arange")
    if d not in dt.REAL_NUMERIC:
        raise TypeError(f"arange: dtype must be a real numeric dtype, got {d}")
    if is_float and d in dt.INTEGER:
        raise TypeError(f"arange: float arguments with integer dtype {d}")
    n = max(0, math.ceil((stop - start) / step))
    raw = _alloc_n(be, q, ut, d, n, be.arange, start, stop, step)
    if raw.shape[0] != n:  # the provider rounds differently: make the standard's length
        raw = be.arange(0, n, 1, dtype=d, usm_type=ut, queue=q) * step + start if n else raw[:0]
    return wrap_with(be, raw)


def linspace(
    start: int | float | complex,
    stop: int | float | complex,
    /,
    num: int,
    *,
    dtype: Any = None,
    device: Any = None,
    endpoint: bool = True,
    usm_type: Any = None,
    sycl_queue: Any = None,
) -> usm_ndarray:
    be, q, ut = placement(device, usm_type, sycl_queue, "linspace")
    if type(num) is not int or num < 0:
        raise ValueError(f"linspace: num must be a non-negative int, got {num!r}")
    start, stop = _python_scalar(start, True), _python_scalar(stop, True)
    for name, v in (("start", start), ("stop", stop)):
        if type(v) not in (int, float, complex):
            raise TypeError(f"linspace: {name} must be an int, float or complex, got {type(v).__name__}")
    is_complex = type(start) is complex or type(stop) is complex
    d = _dtype_or(dtype, default_complex(q) if is_complex else default_float(q), q, "linspace")
    if d not in dt.FLOATING:
        raise TypeError(f"linspace: dtype must be floating-point, got {d}")
    if is_complex and d not in dt.COMPLEX_FLOATING:
        raise TypeError(f"linspace: complex start/stop need a complex dtype, got {d}")
    return wrap_with(be, _alloc_n(be, q, ut, d, num, be.linspace, start, stop, num, endpoint=endpoint))


def eye(
    n_rows: int,
    n_cols: int | None = None,
    /,
    *,
    k: int = 0,
    dtype: Any = None,
    device: Any = None,
    usm_type: Any = None,
    sycl_queue: Any = None,
) -> usm_ndarray:
    be, q, ut = placement(device, usm_type, sycl_queue, "eye")
    if type(n_rows) is not int or type(k) is not int or (n_cols is not None and type(n_cols) is not int):
        for name, v in (("n_rows", n_rows), ("n_cols", n_cols), ("k", k)):
            if v is not None and (type(v) is not int):
                raise TypeError(f"eye: {name} must be an int, got {type(v).__name__}")
    d = _dtype_or(dtype, default_float(q), q, "eye")
    return wrap_with(be, _alloc_n(be, q, ut, d, n_rows * (n_rows if n_cols is None else n_cols), be.eye, n_rows, n_cols, k=k))


def meshgrid(*arrays: usm_ndarray, indexing: str = "xy") -> tuple[usm_ndarray, ...]:
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    for i, a in enumerate(arrays):
        check_array(a, "meshgrid", f"arrays[{i}]")
        if a._arr.ndim != 1:
            raise ValueError(f"meshgrid: every array must be 1-D, arrays[{i}] has shape {a._arr.shape}")
    if not arrays:
        return ()
    same_device("meshgrid", *arrays)
    dtypes = {a._arr.dtype for a in arrays}
    if len(dtypes) > 1:
        raise TypeError(f"meshgrid: arrays must share one dtype, got {sorted(map(str, dtypes))}")
    be = arrays[0]._be
    return tuple(wrap_with(be, r) for r in be.meshgrid(*(a._arr for a in arrays), indexing=indexing))


def _tri(fname: str, x: usm_ndarray, k: int) -> usm_ndarray:
    check_array(x, fname)
    if type(k) is not int:
        raise TypeError(f"{fname}: k must be an int, got {type(k).__name__}")
    a = x._arr
    if a.ndim < 2:
        raise ValueError(f"{fname}: x must have at least 2 dimensions, got shape {a.shape}")
    try:
        return wrap_with(x._be, getattr(x._be, fname)(a, k=k))
    except Exception as exc:
        alloc_failed(exc, x._be, a, a.size * a.itemsize, fname)


def tril(x: usm_ndarray, /, *, k: int = 0) -> usm_ndarray:
    return _tri("tril", x, k)


def triu(x: usm_ndarray, /, *, k: int = 0) -> usm_ndarray:
    return _tri("triu", x, k)
