"""Moving data: ``to_device``, ``asarray``, ``asnumpy`` and ``from_dlpack``."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from . import _backend, _form, _trace
from . import _dtypes as dt
from ._array import new_array, usm_ndarray, wrap_with
from ._backend import _dlpack_import as _dl
from ._backend import _host_memory
from ._backend._protocol import BackendBase
from ._device import Device, default_device, made_from, resolve
from ._helpers import fill_scalar
from ._placement import (
    USM_TYPES,
    check_device_dtype,
    default_float,
    has_fp64,
    optional_dtype,
    scalar_default_dtype,
)
from ._serial import locked, locks_itself

_SCALARS = (bool, int, float, complex)
_new = new_array


def to_device(x: usm_ndarray, device: Any, /, *, stream: Any = None) -> usm_ndarray:
    """Same context and device: a zero-copy view on the new queue (ordered after the
    source queue's pending work where the backend needs that); another context or
    device of the same backend: the backend's copy; another backend: a copy through
    host memory."""
    be = x._be
    target = device if type(device) is Device else Device.create_device(device)
    if stream is not None:
        stream = target._be.native_stream(stream)
    if target._be is be:
        return wrap_with(be, be.to_queue(x._arr, target._q, stream))
    tb = target._be
    usm_type = tb.usm_types[0] if be.usm_type_of(x._arr) not in tb.usm_types else be.usm_type_of(x._arr)
    return wrap_with(tb, tb.from_host(be.to_host(x._arr), usm_type, target._q))


def asnumpy(x: usm_ndarray, /) -> np.ndarray:
    """A host NumPy array with ``x``'s values: always a copy, from any device and memory kind.

    Parameters
    ----------
    x : usm_ndarray
        The array to copy.

    Returns
    -------
    numpy.ndarray
        A new NumPy array of ``x``'s shape and dtype, in host memory.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``.

    Notes
    -----
    Not a function of the standard: its portable spelling is
    ``numpy.from_dlpack(x, device="cpu")``, zero-copy where the memory is host-accessible.
    ``numpy.asarray(x)`` refuses ``"device"`` memory of a non-CPU device, where an
    implicit transfer would hide a copy; ``asnumpy`` is the explicit one
    (docs/usm-types.md).
    """
    if type(x) is not usm_ndarray:
        raise TypeError(f"asnumpy: expected a usm_ndarray, got {type(x).__name__}")
    if _trace.ACTIVE:
        _trace.impure("asnumpy")
    return x._be.to_host(x._arr)


def _check_int_range(obj: Any, d: np.dtype) -> None:
    if type(obj) is int and d in dt.INTEGER:
        dt.check_integer_fits(d, obj, "asarray")


def _foreign(obj: Any) -> tuple[Any, Any, Any] | None:
    """(backend, raw view, its queue) for a foreign array some backend imports
    zero-copy (a SYCL USM or CUDA array interface, a dpnp or CuPy array), else None."""
    for be in _backend.backends().values():
        got = be.foreign(obj)
        if got is not None:
            return be, got[0], got[1]
    return None


#: an array has at most 64 dimensions, so a deeper sequence (or one that contains
#: itself) cannot describe one
_MAX_DEPTH = 64


def _nested(be: Any, obj: Any, depth: int = 0) -> Any:
    """A nested sequence with our arrays as ``be``'s raw arrays (other backends' as host
    copies); ValueError for a sequence nested deeper than 64 levels or containing
    itself (not a RecursionError)."""
    if type(obj) is usm_ndarray:
        return obj._arr if obj._be is be else obj._be.to_host(obj._arr)
    if isinstance(obj, (list, tuple)):
        if depth >= _MAX_DEPTH:
            raise ValueError(
                f"asarray: the sequence is nested deeper than {_MAX_DEPTH} levels (or "
                "contains itself); an array has at most 64 dimensions"
            )
        return [_nested(be, o, depth + 1) for o in obj]
    got = _foreign(obj)
    if got is not None:
        src_be, raw, _ = got
        return raw if src_be is be else src_be.to_host(raw)
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
        # NumPy converts Python ints beyond int64 into uint64 or float64; the default
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


#: lists up to this length are scanned in Python for ints (the array test that
#: :func:`_host_sequence` makes instead costs as much as scanning about 30 floats)
_SHORT_LIST = 16
_F64 = np.dtype(np.float64)


#: the queue of the last ``_float_list`` call, whether it has double precision and
#: whether its backend's arrays are NumPy's
_LIST_LAST: list[tuple[Any, bool, bool]] = [(None, False, False)]


def _float_list(obj: list, device: Any) -> usm_ndarray | None:
    """``asarray(obj, device=device)`` for a short flat list of Python floats on a
    device with double precision given as a Device or None, as the general path makes
    it (float64, no int to range-check); None for any other list."""
    dev = (device if type(device) is Device else default_device() if device is None
           else made_from(device))
    if dev is None:
        return None
    for v in obj:
        if type(v) is not float:
            return None
    q = dev._q
    last = _LIST_LAST[0]
    if last[0] is not q:
        last = _LIST_LAST[0] = (q, has_fp64(q), dev._be.array_type is np.ndarray)
    if not last[1]:
        return None
    host = np.asarray(obj)  # float64: every element is a Python float
    be = dev._be
    if last[2]:
        raw = host  # a backend of NumPy arrays: its asarray would hand this one back
    else:
        try:
            with locked(be):
                raw = be.asarray(host, dtype=None, copy=None, usm_type=None, queue=q)
        except be.alloc_errors as exc:
            raise be.memory_error(host.nbytes, q) from exc
    out = _new(usm_ndarray)
    out._arr = raw
    out._be = be
    return out


#: id of a queue -> (the backend's ``full`` creator for it, the default float dtype, the
#: queue): what ``asarray`` of a Python float decides once per queue (the general path's
#: checks cost 1.2 us of its 1.9)
_SCALAR_PLANS: dict[int, tuple[Any, np.dtype, Any]] = {}


def _float_scalar(obj: float, device: Any) -> usm_ndarray | None:
    """``asarray(obj, device=device)`` for a Python float on a Device (or the default
    device) of a lock-free one-queue backend, as the general path makes it (a 0-D array
    of the device's default float, the backend's first usm_type); None elsewhere."""
    dev = (device if type(device) is Device else default_device() if device is None
           else made_from(device))
    if dev is None:
        return None
    be, q = dev._be, dev._q
    if be.lock is not None or be.multi_queue:
        return None
    plan = _SCALAR_PLANS.get(id(q))
    if plan is None or plan[2] is not q:
        creator = getattr(be, "creator", None)  # a backend may implement the protocol bare
        ut = be.usm_types[0]
        make = (creator("full", q, ut) if creator is not None
                else BackendBase.creator(be, "full", q, ut))
        if len(_SCALAR_PLANS) >= 64:  # queues of short-lived streams: hold few of them
            _SCALAR_PLANS.clear()
        plan = _SCALAR_PLANS[id(q)] = (make, default_float(q), q)
    make, d = plan[0], plan[1]
    try:
        raw = make((), obj, d)
    except be.alloc_errors as exc:
        raise be.memory_error(d.itemsize, q) from exc
    out = _new(usm_ndarray)
    out._arr = raw
    out._be = be
    return out


def _check_usm_type(be: Any, usm_type: Any) -> None:
    if usm_type is not None and usm_type not in be.usm_types:
        if usm_type not in USM_TYPES:
            raise ValueError(f"asarray: usm_type={usm_type!r}; use 'device', 'shared' or 'host'")
        raise ValueError(f"asarray: usm_type={usm_type!r} is not available on the {be.name!r} backend")


@locks_itself
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
    """An array from ``obj``: an array of any backend or library, a buffer, a Python scalar
    or a nested sequence.

    ``obj`` may be a ``usm_ndarray``; a foreign device array (dpnp and dpctl arrays, any
    ``__sycl_usm_array_interface__``; CuPy, PyTorch or any ``__cuda_array_interface__``
    on CUDA devices); an object with ``__dlpack__``; a NumPy array or buffer-protocol
    object; a Python scalar; or a nested list or tuple of these, which may mix arrays of
    several devices (all are copied to the target).  The producer's own code (its
    interface properties) runs before, never under, the backend's lock.

    Parameters
    ----------
    obj : object
        The data.
    dtype : DType, optional
        One of usmarray's dtypes, to convert to; None: ``obj``'s own dtype, or for Python
        scalars and sequences bool, int64 or the device's default floating dtype.
    device : Device, str or a backend's device or queue, optional
        Where the array lives; None: an array stays where it lives (a foreign device
        array on its device), other data goes to the default device.
    copy : bool, optional
        True: always copy.  False: never copy, ValueError where a copy is needed (a
        Python scalar or sequence, another backend, another usm_type, a dtype
        conversion).  None (default): copy only where needed.
    usm_type : {"device", "shared", "host"}, optional
        Kind of memory; None: the source's kind where it stays, else the device's
        default kind.
    sycl_queue : dpctl.SyclQueue, optional
        The SYCL queue to place the array on; with ``device`` both must name the same
        queue.

    Returns
    -------
    usm_ndarray
        The array, on the device asked for (a view of ``obj`` where no copy was needed).

    Raises
    ------
    TypeError
        A dtype outside the standard's (a float16 NumPy array, strings, objects); a
        ``dtype`` that is not one of usmarray's dtypes.
    OverflowError
        A Python int outside the range of the dtype (int64 by default).
    ValueError
        ``copy=False`` where a copy is needed; a ragged sequence; ``copy`` not True,
        False or None; an unknown device or ``usm_type``; float64 or complex128 on a
        device without double precision.
    MemoryError
        The array needs more memory than the device holds.

    Notes
    -----
    Compute follows data: ``asarray(x, device=d)`` is, with ``x.to_device(d)``, the way to
    move an array between devices and backends; no operation moves data implicitly.

    Unlike NumPy, usmarray refuses non-standard dtypes (float16, strings, objects) and
    ``order=``, ``like=`` and ``ndmin=``; NumPy dtypes and dtype strings as ``dtype``
    (TypeError).

    See Also
    --------
    [array_api.asarray](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.asarray.html): the standard's specification.
    """
    t = type(obj)
    if (t is usm_ndarray and dtype is None and device is None and usm_type is None
            and sycl_queue is None and copy is True):
        # the commonest copy, asarray(x, copy=True): the backend's compact copy on x's
        # queue and memory kind, as the general path below would make it
        be0, src0 = obj._be, obj._arr
        try:
            with locked(be0):
                return wrap_with(be0, be0.copy(src0))
        except be0.alloc_errors as exc:
            raise be0.memory_error(src0.nbytes, be0.queue_of(src0)) from exc
    if (t is float and dtype is None and copy is None and usm_type is None
            and sycl_queue is None):
        made = _float_scalar(obj, device)
        if made is not None:
            return made
    if (t is list and dtype is None and copy is None and usm_type is None
            and sycl_queue is None and len(obj) <= _SHORT_LIST):
        made = _float_list(obj, device)
        if made is not None:
            return made
    d = optional_dtype(dtype, "asarray")
    if copy not in (None, True, False):
        raise ValueError(f"asarray: copy must be True, False or None, got {copy!r}")
    if t is usm_ndarray:
        got: tuple[Any, Any, Any] | None = (obj._be, obj._arr, obj._be.queue_of(obj._arr))
    else:
        got = None if t in _SCALARS or t is list or t is tuple else _foreign(obj)
    if got is not None:
        src_be, src, src_q = got
        if device is None and sycl_queue is None:
            be, q = src_be, src_q
        else:
            be, q = resolve(device, sycl_queue)
        _check_usm_type(be, usm_type)
        if src_be is not be:
            if copy is False:
                raise ValueError(
                    f"asarray: copy=False, but moving an array from the {src_be.name!r} to the "
                    f"{be.name!r} backend needs a copy"
                )
            with locked(src_be):
                src, copy = src_be.to_host(src), None
        elif copy is False and usm_type is not None and be.usm_type_of(src) != usm_type:
            raise ValueError(
                f"asarray: copy=False but the array's usm_type is {be.usm_type_of(src)!r}, "
                f"not {usm_type!r}"
            )
    else:
        be, q = resolve(device, sycl_queue)
        _check_usm_type(be, usm_type)
        if t in _SCALARS:
            target = d if d is not None else scalar_default_dtype(obj, q)
            _check_int_range(obj, target)
            obj = fill_scalar(obj, target, "asarray")
            if copy is False:
                raise ValueError(
                    "asarray: copy=False needs an existing array; a Python scalar must be copied"
                )
            check_device_dtype(target, q, "asarray")
            with locked(be):
                raw = be.full((), obj, dtype=target, usm_type=usm_type or be.usm_types[0],
                              queue=q)
            return wrap_with(be, raw)
        if t is list or t is tuple:
            if copy is False:
                raise ValueError(
                    "asarray: copy=False needs an existing array; a sequence must be copied"
                )
            host, d = _host_sequence(obj, d, q)
            src = _nested(be, obj) if host is None else host
        else:
            if not isinstance(obj, (np.ndarray, np.generic)):
                iface = getattr(obj, "__array_interface__", None)
                if iface is not None:  # a foreign pointer: readable before NumPy reads it
                    _host_memory.check_array_interface(iface, "asarray")
            src = obj
    try:
        with locked(be):
            raw = be.asarray(src, dtype=d, copy=copy, usm_type=usm_type, queue=q)
    except be.alloc_errors as exc:
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


if _form.core is not None:
    # the compiled core's lean asarray (usmarray/_core.pyx) of a Python float or a short
    # list of floats, by the plans above; the namespace puts it before its wrapper
    _form.core.bind_asarray(_LIST_LAST, _SCALAR_PLANS, _SHORT_LIST)
    asarray._usmarray_front = functools.partial(  # type: ignore[attr-defined]
        _form.core.install_front, "asarray")


@locks_itself
def from_dlpack(x: Any, /, *, device: Any = None, copy: bool | None = None) -> usm_ndarray:
    """An array from any object with ``__dlpack__`` (NumPy, PyTorch, CuPy, JAX, dpnp, a
    ``usm_ndarray``).

    Foreign capsules are read and validated by the importing backend before any of their
    memory is touched.

    Parameters
    ----------
    x : object
        The producer: an object with ``__dlpack__`` and ``__dlpack_device__``.
    device : Device, str or a backend's device or queue, optional
        Where the result lives; None: the producer's device, as the standard says (SYCL
        for kDLOneAPI, CUDA for kDLCUDA, kDLCUDAHost and kDLCUDAManaged, the NumPy device
        for kDLCPU), zero-copy where the producer allows.
    copy : bool, optional
        True: always copy.  False: never copy (BufferError where a copy is needed).
        None (default): copy only where needed.

    Returns
    -------
    usm_ndarray
        The array; a view of the producer's memory unless a copy was asked for or
        needed.

    Raises
    ------
    TypeError
        ``x`` lacks ``__dlpack__`` or ``__dlpack_device__``; its dtype is not one of the
        standard's.
    BufferError
        ``copy=False`` where the data cannot reach ``device`` without a copy; a producer
        that refuses the export.
    ValueError
        ``copy`` is not True, False or None; a DLPack device type no backend imports.

    Notes
    -----
    Compute follows data: with ``device=None`` the result stays on the producer's
    device; pass ``device=`` to place it elsewhere, a copy through the host between
    backends.

    See Also
    --------
    [array_api.from_dlpack](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.from_dlpack.html): the standard's specification.
    """
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
    dev = (1, 0) if type(x) is np.ndarray else _dl.dlpack_device(x)
    home = _backend.for_dlpack_device(dev[0])
    if home is None:
        _dl.refuse_device(dev)
    if target is None or target._be is home:
        raw = home.from_dlpack(x, dev, None if target is None else target._q, copy)
        if not dt.is_np_standard(raw.dtype):
            raise TypeError(f"from_dlpack: dtype {raw.dtype} is not one of the standard's dtypes")
        return wrap_with(home, raw)
    # another backend: through the host (a host producer's memory cannot become device
    # memory without a copy)
    if copy is False:
        raise BufferError(
            f"from_dlpack: copy=False, but the producer's data ({home.name} device {dev}) "
            f"cannot become memory of {target!r} without a copy; pass copy=None or a "
            f"device of the {home.name!r} backend"
        )
    raw = home.from_dlpack(x, dev, None, None)
    be = target._be
    with locked(home):
        host = raw if type(raw) is np.ndarray else home.to_host(raw)
    with locked(be):
        return wrap_with(be, be.from_host(host, be.usm_types[0], target._q))
