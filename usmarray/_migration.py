"""Moving data: ``to_device``, ``asarray``, ``asnumpy`` and ``from_dlpack``."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _backend
from . import _dtypes as dt
from ._array import usm_ndarray, wrap_with
from ._device import Device, resolve_queue
from ._placement import USM_TYPES, check_device_dtype, default_float, optional_dtype

_sycl = _backend.sycl
_QUEUE_TYPE = type(_sycl.default_queue())
_SCALARS = (bool, int, float, complex)


def to_device(x: usm_ndarray, device: Any, /, *, stream: Any = None) -> usm_ndarray:
    """Same context and device: a zero-copy view on the new queue; otherwise a copy."""
    be = x._be
    q = device if type(device) is _QUEUE_TYPE else Device.create_device(device)._q
    if stream is not None and not isinstance(stream, _QUEUE_TYPE):
        raise TypeError(
            f"to_device: stream must be None or a dpctl.SyclQueue, got {type(stream).__name__}"
        )
    return wrap_with(be, be.to_queue(x._arr, q, stream))


def asnumpy(x: usm_ndarray, /) -> np.ndarray:
    """Copy ``x`` to a host NumPy array (always allowed)."""
    if type(x) is not usm_ndarray:
        raise TypeError(f"asnumpy: expected a usm_ndarray, got {type(x).__name__}")
    return x._be.to_host(x._arr)


def _unwrap_nested(obj: Any) -> Any:
    if type(obj) is usm_ndarray:
        return obj._arr
    if isinstance(obj, (list, tuple)):
        return [_unwrap_nested(o) for o in obj]
    return obj


def _scalar_dtype(obj: Any, q: Any) -> np.dtype | None:
    t = type(obj)
    if t is bool:
        return dt.bool
    if t is int:
        return dt.int64
    if t is float:
        return default_float(q)
    if t is complex:
        return dt.complex128 if default_float(q) is dt.float64 else dt.complex64
    return None


def _check_int_range(obj: Any, d: np.dtype) -> None:
    if type(obj) is int and d in dt.INTEGER and not dt.integer_fits(d, obj):
        raise OverflowError(f"asarray: Python int {obj} does not fit dtype {d}")


def asarray(
    obj: Any,
    /,
    *,
    dtype: Any = None,
    device: Any = None,
    copy: bool | None = None,
    usm_type: str | None = None,
    sycl_queue: Any = None,
) -> usm_ndarray:
    """An array from ``obj``: our arrays, dpnp/dpctl arrays, any
    ``__sycl_usm_array_interface__`` or ``__dlpack__`` object, NumPy and buffer-protocol
    objects, Python scalars and nested sequences (which may mix arrays of several
    devices: all are migrated to the target)."""
    d = optional_dtype(dtype, "asarray")
    if copy not in (None, True, False):
        raise ValueError(f"asarray: copy must be True, False or None, got {copy!r}")
    if usm_type is not None and usm_type not in USM_TYPES:
        raise ValueError(f"asarray: usm_type={usm_type!r}; use 'device', 'shared' or 'host'")
    be = _sycl
    pt = be.provider
    if type(obj) is usm_ndarray:
        be = obj._be
        src = obj._arr
        q = (
            src.sycl_queue
            if device is None and sycl_queue is None
            else resolve_queue(be, device, sycl_queue)
        )
    else:
        q = resolve_queue(be, device, sycl_queue)
        if type(obj) in _SCALARS:
            sd = _scalar_dtype(obj, q)
            target = d if d is not None else sd
            _check_int_range(obj, target)
            if copy is False:
                raise ValueError("asarray: copy=False needs an existing array; a Python scalar must be copied")
            check_device_dtype(target, q, "asarray")
            return wrap_with(be, pt.full((), obj, dtype=target, usm_type=usm_type or "device", sycl_queue=q))
        if isinstance(obj, (list, tuple)):
            src = _unwrap_nested(obj)
            if d is None:
                host = np.asarray(_to_host_nested(be, src))
                if host.dtype == np.float64 and default_float(q) is dt.float32:
                    d = dt.float32
                elif host.dtype == np.complex128 and default_float(q) is dt.float32:
                    d = dt.complex64
                if not dt.is_np_standard(host.dtype) and host.dtype.kind not in "O":
                    raise TypeError(f"asarray: sequence gives dtype {host.dtype}, not a standard dtype")
        elif isinstance(obj, pt.usm_ndarray):
            src = obj
        else:
            src = obj
    if copy is False and usm_type is not None and hasattr(src, "usm_type") and src.usm_type != usm_type:
        raise ValueError(
            f"asarray: copy=False but the array's usm_type is {src.usm_type!r}, not {usm_type!r}"
        )
    try:
        raw = pt.asarray(src, dtype=d, copy=copy, usm_type=usm_type, sycl_queue=q)
    except OverflowError:
        raise
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"asarray: {exc}") from None
    if not dt.is_np_standard(raw.dtype):
        raise TypeError(
            f"asarray: input of dtype {raw.dtype} is not one of the standard's dtypes; "
            "convert it first"
        )
    if d is None:
        check_device_dtype(raw.dtype, q, "asarray")
    return wrap_with(be, raw)


def _to_host_nested(be: Any, obj: Any) -> Any:
    if isinstance(obj, list):
        return [_to_host_nested(be, o) for o in obj]
    if isinstance(obj, be.array_type):
        return be.to_host(obj)
    return obj


def from_dlpack(x: Any, /, *, device: Any = None, copy: bool | None = None) -> usm_ndarray:
    """An array from any object with ``__dlpack__`` (NumPy, PyTorch, usm_ndarray...)."""
    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"from_dlpack: {type(x).__name__} does not implement __dlpack__")
    pt = _sycl.provider
    if isinstance(device, Device):
        device = device._q
    elif isinstance(device, str):
        device = Device.create_device(device)._q
    src = x._arr if type(x) is usm_ndarray else x
    raw = pt.from_dlpack(src, device=device, copy=copy)
    if isinstance(raw, np.ndarray):
        raise ValueError(
            "from_dlpack: the data lives on the host (kDLCPU) and the host is not a SYCL "
            "device here; pass device=usmarray.Device.create_device('cpu') or a SYCL device"
        )
    if not dt.is_np_standard(raw.dtype):
        raise TypeError(f"from_dlpack: dtype {raw.dtype} is not one of the standard's dtypes")
    return wrap_with(_sycl, raw)
