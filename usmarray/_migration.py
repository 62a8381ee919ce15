"""Moving data: ``to_device``, ``asarray``, ``asnumpy`` and ``from_dlpack``."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _backend, _serial, _suai
from . import _dlpack_import as _dl
from . import _dtypes as dt
from ._array import usm_ndarray, wrap_with
from ._device import Device, resolve
from ._placement import (
    USM_TYPES,
    check_device_dtype,
    default_float,
    optional_dtype,
    scalar_default_dtype,
)

_sycl = _backend.sycl
_QUEUE_TYPE = type(_sycl.default_queue()) if _sycl is not None else type(None)
_SCALARS = (bool, int, float, complex)


def to_device(x: usm_ndarray, device: Any, /, *, stream: Any = None) -> usm_ndarray:
    """Same SYCL context and device: a zero-copy view on the new queue; another
    context: a copy; another backend: a copy through host memory."""
    be = x._be
    target = device if type(device) is Device else Device.create_device(device)
    if stream is not None and (_sycl is None or not isinstance(stream, _QUEUE_TYPE)):
        raise TypeError(
            f"to_device: stream must be None or a dpctl.SyclQueue, got {type(stream).__name__}"
        )
    if target._be is be:
        return wrap_with(be, be.to_queue(x._arr, target._q, stream))
    tb = target._be
    usm_type = tb.usm_types[0] if be.usm_type_of(x._arr) not in tb.usm_types else be.usm_type_of(x._arr)
    return wrap_with(tb, tb.from_host(be.to_host(x._arr), usm_type, target._q))


def from_pickle(host: np.ndarray, usm_type: str) -> usm_ndarray:
    """Unpickle: ``host`` onto the default device of this process, with ``usm_type`` when
    that device's backend has it, else the backend's default kind.  A pickle carries data,
    not placement: the queue it came from does not exist in another process."""
    d = Device.create_device(None)
    be = d._be
    ut = usm_type if usm_type in be.usm_types else be.usm_types[0]
    with _serial.LOCK:
        return wrap_with(be, be.from_host(np.asarray(host, order="C"), ut, d._q))


def asnumpy(x: usm_ndarray, /) -> np.ndarray:
    """Copy ``x`` to a host NumPy array (always allowed)."""
    if type(x) is not usm_ndarray:
        raise TypeError(f"asnumpy: expected a usm_ndarray, got {type(x).__name__}")
    return x._be.to_host(x._arr)


def _check_int_range(obj: Any, d: np.dtype) -> None:
    if type(obj) is int and d in dt.INTEGER and not dt.integer_fits(d, obj):
        raise OverflowError(f"asarray: Python int {obj} does not fit dtype {d}")


def _nested(be: Any, obj: Any) -> Any:
    """A nested sequence with our arrays as ``be``'s raw arrays (other backends' as host
    copies)."""
    if type(obj) is usm_ndarray:
        return obj._arr if obj._be is be else obj._be.to_host(obj._arr)
    if isinstance(obj, (list, tuple)):
        return [_nested(be, o) for o in obj]
    iface = _suai.foreign_interface(obj)
    if iface is not None:
        raw = _suai.import_view(obj, iface)
        return raw if be is _sycl else _sycl.to_host(raw)
    return obj


def _flat(obj: Any) -> Any:
    for o in obj:
        if isinstance(o, (list, tuple)):
            yield from _flat(o)
        else:
            yield o


def _host_sequence(obj: Any, d: np.dtype | None, q: Any) -> tuple[Any, np.dtype | None]:
    """A sequence of Python scalars as one NumPy array (one C pass) and the dtype to
    ask for; (None, d) when the sequence holds arrays or objects NumPy cannot type.
    Python ints outside the target integer range raise OverflowError."""
    try:
        host = np.asarray(obj) if d is None else np.asarray(obj, dtype=d)
    except OverflowError as exc:
        raise OverflowError(f"asarray: {exc}") from None
    except (TypeError, ValueError):
        return None, d
    kind = host.dtype.kind
    if kind == "O":
        for v in _flat(obj):
            if type(v) is int and not -(2**63) <= v < 2**64:
                raise OverflowError(f"asarray: Python int {v} does not fit a 64-bit integer")
        return None, d
    if d is not None:
        return host, d
    if kind in "uf" and host.size and (kind == "u" or np.abs(host).max() >= 2.0**63):
        # NumPy turns Python ints beyond int64 into uint64 or float64; the default
        # integer dtype is int64
        for v in _flat(obj):
            if type(v) is int and not -(2**63) <= v < 2**63:
                raise OverflowError(
                    f"asarray: Python int {v} does not fit the default integer dtype int64; "
                    "pass dtype=uint64 or a floating dtype"
                )
    if kind == "f" and host.dtype != np.float64 or kind == "c" and host.dtype != np.complex128:
        return None, d  # a sequence of NumPy scalars: let the provider decide
    if kind == "f" and default_float(q) is dt.float32:
        d = dt.float32
    elif kind == "c" and default_float(q) is dt.float32:
        d = dt.complex64
    elif not dt.is_np_standard(host.dtype):
        raise TypeError(f"asarray: the sequence gives dtype {host.dtype}, not a standard dtype")
    return host, d


def _check_usm_type(be: Any, usm_type: Any) -> None:
    if usm_type is not None and usm_type not in be.usm_types:
        if usm_type not in USM_TYPES:
            raise ValueError(f"asarray: usm_type={usm_type!r}; use 'device', 'shared' or 'host'")
        raise ValueError(f"asarray: usm_type={usm_type!r} is not available on the {be.name!r} backend")


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
    t = type(obj)
    placed = False
    if t is usm_ndarray:
        src_be = obj._be
        if device is None and sycl_queue is None:
            be, q = src_be, src_be.queue_of(obj._arr)
        else:
            be, q = resolve(device, sycl_queue)
        _check_usm_type(be, usm_type)
        src = obj._arr
        if src_be is not be:
            if copy is False:
                raise ValueError(
                    f"asarray: copy=False, but moving an array from the {src_be.name!r} to the "
                    f"{be.name!r} backend needs a copy"
                )
            src = src_be.to_host(src)
        elif copy is False and usm_type is not None and be.usm_type_of(src) != usm_type:
            raise ValueError(
                f"asarray: copy=False but the array's usm_type is {be.usm_type_of(src)!r}, "
                f"not {usm_type!r}"
            )
    else:
        iface = None if t in _SCALARS or t is list or t is tuple else _suai.foreign_interface(obj)
        if iface is not None:
            # a view of exactly the memory the interface names, on its own queue
            obj = _suai.import_view(obj, iface)
            if device is None and sycl_queue is None:
                device = Device._make(_sycl, obj.sycl_queue)
        elif device is None and sycl_queue is None and _sycl is not None:
            # a foreign SYCL array (dpnp, dpctl) stays where it lives
            src_q = getattr(obj, "sycl_queue", None)
            if isinstance(src_q, _QUEUE_TYPE):
                device = Device._make(_sycl, src_q)
        be, q = resolve(device, sycl_queue)
        _check_usm_type(be, usm_type)
        if t in _SCALARS:
            target = d if d is not None else scalar_default_dtype(obj, q)
            _check_int_range(obj, target)
            if copy is False:
                raise ValueError("asarray: copy=False needs an existing array; a Python scalar must be copied")
            check_device_dtype(target, q, "asarray")
            return wrap_with(be, be.full((), obj, dtype=target, usm_type=usm_type or be.usm_types[0], sycl_queue=q))
        if t is list or t is tuple:
            if copy is False:
                raise ValueError("asarray: copy=False needs an existing array; a sequence must be copied")
            host, d = _host_sequence(obj, d, q)
            src = _nested(be, obj) if host is None else host
        elif iface is not None:
            src, copy = _suai.place(obj, be, q, copy)
            # the view's queue equals q but is another object: naming q makes the provider copy
            placed = be is _sycl
        else:
            src = obj
    try:
        raw = be.provider.asarray(
            src, dtype=d, copy=copy, usm_type=usm_type, sycl_queue=None if placed else q
        )
    except getattr(be, "alloc_errors", ()) as exc:
        raise be.memory_error(getattr(src, "nbytes", 0), q) from exc
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


def from_dlpack(x: Any, /, *, device: Any = None, copy: bool | None = None) -> usm_ndarray:
    """An array from any object with ``__dlpack__`` (NumPy, PyTorch, usm_ndarray, dpnp).

    With ``device=None`` the result stays on the producer's device, as the standard
    says: a SYCL device for SYCL producers, the NumPy host device ("numpy") for host
    producers such as NumPy or CPU PyTorch (zero-copy where the producer allows).
    Pass ``device=`` to place it elsewhere (a copy where needed; ``copy=False`` then
    raises BufferError).  Foreign capsules are read and validated by
    usmarray/_dlpack_import.py before any of their memory is touched."""
    if copy not in (None, True, False):
        raise ValueError(f"from_dlpack: copy must be True, False or None, got {copy!r}")
    if type(x) is usm_ndarray:
        return asarray(x, device=device, copy=copy)
    if not hasattr(x, "__dlpack__") or not hasattr(x, "__dlpack_device__"):
        raise TypeError(
            f"from_dlpack: {type(x).__name__} does not implement __dlpack__ and __dlpack_device__"
        )
    target = None
    if device is not None:
        target = device if type(device) is Device else Device.create_device(device)
    if type(x) is np.ndarray and (target is None or target._be is _backend.numpy):
        raw = np.from_dlpack(x, copy=copy)  # NumPy's own exporter: trusted, and 30x faster
        if not dt.is_np_standard(raw.dtype):
            raise TypeError(f"from_dlpack: dtype {raw.dtype} is not one of the standard's dtypes")
        return wrap_with(_backend.numpy, raw)
    dev = _dl.dlpack_device(x)
    if dev[0] == _dl.KDL_CPU:
        if target is None or target._be is _backend.numpy:
            return wrap_with(_backend.numpy, _dl.import_dlpack(x, dev=dev, copy=copy))
        # a host producer (NumPy, CPU PyTorch) onto another device: USM memory cannot
        # alias the producer's buffer, so import on the host and copy
        if copy is False and target._be is _sycl:
            raise BufferError(
                "from_dlpack: copy=False, but host memory cannot become SYCL USM memory "
                "without a copy; pass copy=None or device='numpy'"
            )
        be = target._be
        return wrap_with(be, be.from_host(_dl.import_dlpack(x, dev=dev), be.usm_types[0], target._q))
    # a kDLOneAPI producer
    if target is not None and target._be is not _sycl:
        if copy is False:
            raise BufferError("from_dlpack: copy=False cannot move device data to the host")
        host = _sycl.to_host(_dl.import_dlpack(x, dev=dev))
        be = target._be
        return wrap_with(be, host if be is _backend.numpy else be.from_host(host, be.usm_types[0], target._q))
    if target is None:
        return wrap_with(_sycl, _dl.import_dlpack(x, dev=dev, copy=copy))
    q = target._q
    home = _dl.import_queue(dev[1])
    if q is home or q.sycl_device == home.sycl_device and q.sycl_context == home.sycl_context:
        return wrap_with(_sycl, _dl.import_dlpack(x, dev=dev, copy=copy, stream=q).to_device(q))
    if copy is False:
        raise BufferError(
            f"from_dlpack: copy=False, but the producer's data lives on {home.sycl_device.filter_string} "
            f"(default context), not on the target {_sycl.describe(q)}"
        )
    raw = _dl.import_dlpack(x, dev=dev)
    if q.sycl_device == home.sycl_device:
        return wrap_with(_sycl, _sycl.to_queue(raw, q))
    return wrap_with(_sycl, _sycl.from_host(_sycl.to_host(raw), raw.usm_type, q))
