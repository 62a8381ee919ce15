"""Creation functions (array API 2025.12) with ``device=``, ``usm_type=`` and the SYCL
backend's ``sycl_queue=``."""

from __future__ import annotations

import functools
import math
from typing import Any, cast

import numpy as np

from . import _device, _form
from . import _dtypes as dt
from ._array import new_array, usm_ndarray, wrap_with
from ._backend._protocol import BackendBase
from ._device import Device, default_device, made_from
from ._helpers import MAX_NBYTES, alloc_failed, check_array, check_scalar, fill_scalar, same_device
from ._migration import asarray, from_dlpack, to_device
from ._params import flag, int_or_ints, integer, real
from ._placement import (
    check_device_dtype,
    default_complex,
    default_float,
    optional_dtype,
    placement,
    scalar_default_dtype,
)
from ._scalars import py_scalar
from ._serial import LOCK, locks_itself

_new = new_array

__all__ = [
    "arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full", "full_like",
    "linspace", "meshgrid", "ones", "ones_like", "tril", "triu", "zeros", "zeros_like",
]

_SCALARS = (bool, int, float, complex)
#: the real dtype of each complex one (a complex ``arange`` is the real one, as complex)
_REAL_PART = {dt.complex64: dt.float32, dt.complex128: dt.float64}


def _shape(shape: Any, fname: str) -> tuple[int, ...]:
    if type(shape) is int and shape >= 0:  # the commonest case
        return (shape,)
    if type(shape) is tuple and len(shape) <= 64:  # the common case, checked cheaply
        for n in shape:
            if type(n) is not int or n < 0:
                break
        else:
            return shape
    given = int_or_ints(shape, fname, "shape", lists=True)
    out = given if isinstance(given, tuple) else (given,)
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
    the size.  Positional, so the keywords are built once (passing
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
#: default float (asking again cost 0.7 us of a 3.7 us ``empty`` on the NumPy
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


#: (kernel name, ids of a queue and a dtype argument, usm_type) -> (backend, queue,
#: dtype, byte cap, the backend's allocator for them, the queue and dtype argument):
#: a creation call's whole plan, one lookup (``_plan`` and the keyword calls
#: of the kernel cost 0.9 us of a 1.1 us ``zeros`` on the NumPy backend)
_MADE: dict[tuple[str, int, int, Any], tuple[Any, Any, np.dtype, int, Any, Any, Any]] = {}


#: kernel name -> (queue, dtype argument, plan) of its last call by a Device or None with
#: no usm_type or sycl_queue: two identity tests where the ``_MADE`` lookup builds and
#: hashes a key (0.13 us of a 0.74 us ``zeros`` on the NumPy backend)
_LAST: dict[str, tuple[Any, Any, Any]] = dict.fromkeys(("zeros", "empty", "full", "ones"),
                                                        (object(), None, None))


def _made(fname: str, device: Any, dtype: Any, usm_type: Any, sycl_queue: Any,
          kernel: str | None = None) -> tuple[Any, Any, np.dtype, int, Any, Any, Any]:
    """The plan of ``zeros``/``empty``/``full``/``ones`` (``fname``) for these keywords,
    from ``_MADE`` where the device is a Device or None and usm_type None or a str; else
    made by ``_plan``, with its errors.  The allocator (``creator`` of the backend
    protocol, for ``kernel``, default ``fname``) takes NumPy's positional arguments:
    ``(shape, dtype)``, for ``full`` ``(shape, fill_value, dtype)``."""
    dev = (device if type(device) is Device else default_device() if device is None
           else made_from(device))
    key = None
    if dev is not None and sycl_queue is None and (usm_type is None or type(usm_type) is str):
        key = (fname, id(dev._q), id(dtype), usm_type)
        hit = _MADE.get(key)
        if hit is not None:
            return hit
    be, q, ut, d, cap = _plan(device, dtype, usm_type, sycl_queue, fname)
    creator = getattr(be, "creator", None)  # a backend may implement the protocol bare
    kernel = kernel or fname
    make = (creator(kernel, q, ut) if creator is not None
            else BackendBase.creator(be, kernel, q, ut))
    plan = (be, q, d, cap, make, dev, dtype)
    if key is not None:
        if len(_MADE) >= 64:  # queues of short-lived streams: hold few of them
            _MADE.clear()
        _MADE[key] = plan
    return plan


def _make(fname: str, shape: Any, dtype: Any, device: Any, usm_type: Any, sycl_queue: Any
          ) -> usm_ndarray:
    """``zeros`` or ``empty`` (``fname``) by its plan (:func:`_made`), under the
    backend's lock: ``shape`` checked after the keywords, more than the plan's byte cap
    or a failed allocation a MemoryError naming the size."""
    dev = (device if type(device) is Device else default_device() if device is None
           else made_from(device))
    plan = None
    if dev is not None and sycl_queue is None and usm_type is None:  # the commonest case
        q = dev._q
        last = _LAST[fname]
        if last[0] is q and last[1] is dtype:
            plan = last[2]
        else:
            plan = _MADE.get((fname, id(q), id(dtype), None))
            if plan is not None:
                _LAST[fname] = (q, dtype, plan)
    if plan is None:
        plan = _made(fname, device, dtype, usm_type, sycl_queue)
    be, q, d, cap, make = plan[:5]
    if type(shape) is int and shape >= 0:  # the commonest case
        shape = (shape,)
        nbytes = shape[0] * d.itemsize
    else:
        shape = _shape(shape, fname)
        nbytes = math.prod(shape) * d.itemsize
    if nbytes > cap:
        raise be.memory_error(nbytes, q)
    try:
        if be.lock is None:
            raw = make(shape, d)
        else:
            with be.lock:
                raw = make(shape, d)
    except be.alloc_errors as exc:
        raise be.memory_error(nbytes, q) from exc
    out = _new(usm_ndarray)
    out._arr = raw
    out._be = be
    return out


def _dtype_or(dtype: Any, default: np.dtype, q: Any, fname: str) -> np.dtype:
    d = optional_dtype(dtype, fname)
    d = default if d is None else d
    check_device_dtype(d, q, fname)
    return d


def _filled(fname: str, shape: Any, value: Any, dtype: Any, device: Any, usm_type: Any, sycl_queue: Any) -> usm_ndarray:
    be, q, ut, d, cap = _plan(device, dtype, usm_type, sycl_queue, fname)
    return wrap_with(be, _alloc(be, q, ut, d, cap, be.full, _shape(shape, fname), value))


@locks_itself
def empty(shape: Any, *, dtype: Any = None, device: Any = None, usm_type: Any = None, sycl_queue: Any = None) -> usm_ndarray:
    """A new array of ``shape`` whose elements are not initialized.

    Parameters
    ----------
    shape : int or tuple of int
        Shape of the array; non-negative, at most 64 dimensions.
    dtype : DType, optional
        One of usmarray's dtypes (``usmarray.float32``, ...); None: the device's default
        real floating dtype (float64, or float32 on a device without double precision).
    device : Device, str or a backend's device or queue, optional
        Where the array lives: a ``usmarray.Device``, a filter string (``"cpu"``,
        ``"gpu"``, ``"cuda:0"``, ``"numpy"``), a ``dpctl.SyclDevice`` or ``SyclQueue``, a
        ``cupy.cuda.Device`` or ``Stream``; None: the default device.
    usm_type : {"device", "shared", "host"}, optional
        Kind of memory; None: the device's default kind (``"device"``; the NumPy device
        has ``"host"`` only).
    sycl_queue : dpctl.SyclQueue, optional
        The SYCL queue to allocate on (dpctl.tensor's keyword); with ``device`` both must
        name the same queue.

    Returns
    -------
    usm_ndarray
        The new array, on the device and in the memory kind asked for.

    Raises
    ------
    TypeError
        ``dtype`` is not one of usmarray's dtypes (NumPy dtypes and strings such as
        ``"float32"`` are not); ``shape`` is not an int or a tuple of ints.
    ValueError
        A negative dimension, or more than 64; a device no backend knows; a ``usm_type``
        the device does not have; ``device`` and ``sycl_queue`` naming different queues;
        float64 or complex128 on a device without double precision.
    MemoryError
        The array needs more memory than the device holds, or the allocation fails.

    Notes
    -----
    Unlike NumPy, usmarray refuses ``order=`` and ``like=`` (TypeError): arrays are
    created in row-major order, on the device the placement keywords name.

    See Also
    --------
    [array_api.empty](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.empty.html): the standard's specification.
    """
    return _make("empty", shape, dtype, device, usm_type, sycl_queue)


@locks_itself
def zeros(shape: Any, *, dtype: Any = None, device: Any = None, usm_type: Any = None, sycl_queue: Any = None) -> usm_ndarray:
    """A new array of ``shape`` filled with zeros (``+0``; False for bool).

    On the NumPy device the memory comes from ``numpy.zeros``, whose pages the operating
    system zeroes on first touch, rather than from a fill.

    Parameters
    ----------
    shape : int or tuple of int
        Shape of the array; non-negative, at most 64 dimensions.
    dtype : DType, optional
        One of usmarray's dtypes; None: the device's default real floating dtype (float64,
        or float32 on a device without double precision).
    device : Device, str or a backend's device or queue, optional
        Where the array lives (a ``usmarray.Device``, a filter string such as ``"cpu"``,
        ``"cuda:0"`` or ``"numpy"``, a backend's device or queue object); None: the
        default device.
    usm_type : {"device", "shared", "host"}, optional
        Kind of memory; None: the device's default kind.
    sycl_queue : dpctl.SyclQueue, optional
        The SYCL queue to allocate on; with ``device`` both must name the same queue.

    Returns
    -------
    usm_ndarray
        The new array, on the device and in the memory kind asked for.

    Raises
    ------
    TypeError
        ``dtype`` is not one of usmarray's dtypes; ``shape`` is not an int or a tuple of
        ints.
    ValueError
        A negative dimension, or more than 64; an unknown device; a ``usm_type`` the
        device does not have; ``device`` and ``sycl_queue`` naming different queues;
        float64 or complex128 on a device without double precision.
    MemoryError
        The array needs more memory than the device holds, or the allocation fails.

    Notes
    -----
    Unlike NumPy, usmarray refuses ``order=`` and ``like=`` (TypeError) and NumPy dtypes
    or dtype strings (use ``usmarray.float32``, not ``numpy.float32`` or ``"float32"``).

    See Also
    --------
    [array_api.zeros](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.zeros.html): the standard's specification.
    """
    return _make("zeros", shape, dtype, device, usm_type, sycl_queue)


def ones(shape: Any, *, dtype: Any = None, device: Any = None, usm_type: Any = None, sycl_queue: Any = None) -> usm_ndarray:
    """A new array of ``shape`` filled with ones (True for bool).

    Parameters
    ----------
    shape : int or tuple of int
        Shape of the array; non-negative, at most 64 dimensions.
    dtype : DType, optional
        One of usmarray's dtypes; None: the device's default real floating dtype (float64,
        or float32 on a device without double precision).
    device : Device, str or a backend's device or queue, optional
        Where the array lives (a ``usmarray.Device``, a filter string such as ``"cpu"``,
        ``"cuda:0"`` or ``"numpy"``, a backend's device or queue object); None: the
        default device.
    usm_type : {"device", "shared", "host"}, optional
        Kind of memory; None: the device's default kind.
    sycl_queue : dpctl.SyclQueue, optional
        The SYCL queue to allocate on; with ``device`` both must name the same queue.

    Returns
    -------
    usm_ndarray
        The new array, on the device and in the memory kind asked for.

    Raises
    ------
    TypeError
        ``dtype`` is not one of usmarray's dtypes; ``shape`` is not an int or a tuple of
        ints.
    ValueError
        A negative dimension, or more than 64; an unknown device; a ``usm_type`` the
        device does not have; ``device`` and ``sycl_queue`` naming different queues;
        float64 or complex128 on a device without double precision.
    MemoryError
        The array needs more memory than the device holds, or the allocation fails.

    Notes
    -----
    Unlike NumPy, usmarray refuses ``order=`` and ``like=`` (TypeError) and NumPy dtypes
    or dtype strings.

    See Also
    --------
    [array_api.ones](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.ones.html): the standard's specification.
    """
    if usm_type is None and sycl_queue is None:
        made = _full_float(shape, 1.0, dtype, device, "ones")
        if made is not None:
            return made
    return _filled("ones", shape, 1, dtype, device, usm_type, sycl_queue)


@locks_itself
def full(
    shape: Any,
    fill_value: bool | int | float | complex | usm_ndarray,
    *,
    dtype: Any = None,
    device: Any = None,
    usm_type: Any = None,
    sycl_queue: Any = None,
) -> usm_ndarray:
    """A new array of ``shape`` with every element ``fill_value``.

    Parameters
    ----------
    shape : int or tuple of int
        Shape of the array; non-negative, at most 64 dimensions.
    fill_value : bool, int, float, complex or usm_ndarray
        The value: a Python scalar (NumPy scalars count as Python scalars) or a 0-D
        array.
    dtype : DType, optional
        One of usmarray's dtypes; None: from ``fill_value``: bool, int64, the device's
        default real or complex floating dtype for a Python scalar, the array's dtype for
        a 0-D array.
    device : Device, str or a backend's device or queue, optional
        Where the array lives; None: the default device, or for a 0-D array
        ``fill_value`` (with no ``sycl_queue``) that array's device.
    usm_type : {"device", "shared", "host"}, optional
        Kind of memory; None: the device's default kind, or a 0-D array
        ``fill_value``'s kind when the array's device is used.
    sycl_queue : dpctl.SyclQueue, optional
        The SYCL queue to allocate on; with ``device`` both must name the same queue.

    Returns
    -------
    usm_ndarray
        The new array; a 0-D array ``fill_value`` on another device is copied there.

    Raises
    ------
    TypeError
        ``fill_value`` is neither a Python scalar nor a 0-D array (a NumPy array, a
        list); ``dtype`` is not one of usmarray's dtypes; ``shape`` is not an int or a
        tuple of ints.
    OverflowError
        A Python int ``fill_value`` outside the range of an integer ``dtype``, or past
        the float64 range for a floating one.
    ValueError
        An array ``fill_value`` that is not 0-D; a negative dimension, or more than 64;
        an unknown device or ``usm_type``; float64 or complex128 on a device without
        double precision.
    MemoryError
        The array needs more memory than the device holds, or the allocation fails.

    Notes
    -----
    Unlike NumPy, usmarray refuses ``order=`` and ``like=``, NumPy arrays and lists as
    ``fill_value``, and NumPy dtypes or dtype strings (TypeError).

    See Also
    --------
    [array_api.full](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.full.html): the standard's specification.
    """
    if type(fill_value) is float and usm_type is None and sycl_queue is None:
        made = _full_float(shape, fill_value, dtype, device)
        if made is not None:
            return made
    if LOCK is None:
        return _full(shape, fill_value, dtype, device, usm_type, sycl_queue)
    with LOCK:  # as every call whose placement is not known before it runs
        return _full(shape, fill_value, dtype, device, usm_type, sycl_queue)


def _full_float(shape: Any, fill_value: float, dtype: Any, device: Any, fname: str = "full"
                ) -> usm_ndarray | None:
    """``full`` of a Python float on a Device (or the default device) of a lock-free
    backend, by its plan (:func:`_made`: the Device's queue), where the dtype is
    floating (no integer conversion to check); None elsewhere: the general path decides.
    The checks in the general path's order: device and dtype (the plan), then shape.
    ``fname``: the function whose plan and messages these are (``ones`` fills 1.0)."""
    dev = (device if type(device) is Device else default_device() if device is None
           else made_from(device))
    if dev is None or dev._be.lock is not None:
        return None
    q = dev._q
    last = _LAST[fname]
    if last[0] is q and last[1] is dtype:
        plan = last[2]
    else:
        plan = (_MADE.get((fname, id(q), id(dtype), None))
                or _made(fname, dev, dtype, None, None, "full"))
        _LAST[fname] = (q, dtype, plan)
    be, q, d, cap, make = plan[:5]
    if d.kind not in "fc":
        return None
    if type(shape) is int and shape >= 0:
        shape = (shape,)
        nbytes = shape[0] * d.itemsize
    else:
        shape = _shape(shape, fname)
        nbytes = math.prod(shape) * d.itemsize
    if nbytes > cap:
        raise be.memory_error(nbytes, q)
    try:
        raw = make(shape, fill_value, d)
    except be.alloc_errors as exc:
        raise be.memory_error(nbytes, q) from exc
    out = _new(usm_ndarray)
    out._arr = raw
    out._be = be
    return out


if _form.core is not None:
    # the compiled core's lean zeros, empty, full of a Python float and ones
    # (usmarray/_core.pyx): the namespace puts them before its wrappers of these
    # functions, which they call for what they leave out; they read _MADE's plans (those
    # of _make and _full_float)
    _form.core.bind_creation(_MADE, _device)
    for _f in (zeros, empty, full, ones):
        _f._usmarray_front = functools.partial(  # type: ignore[attr-defined, union-attr]
            _form.core.install_front, _f.__name__)
    del _f


def _full(shape: Any, fill_value: Any, dtype: Any, device: Any, usm_type: Any, sycl_queue: Any
          ) -> usm_ndarray:
    """``full`` by the general path: any fill value, device and keyword."""
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
    elif type(fill_value) is int and d in dt.FLOATING:
        fill_value = _float_arg(fill_value, d, "full", "fill_value")
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
    """A new array of ``x``'s shape whose elements are not initialized.

    Parameters
    ----------
    x : usm_ndarray
        The array whose shape (and, by default, dtype, device and usm_type) to take.
    dtype : DType, optional
        One of usmarray's dtypes; None: ``x``'s dtype.
    device : Device, str or a backend's device or queue, optional
        Where the array lives; None (with no ``sycl_queue``): ``x``'s device.
    usm_type : {"device", "shared", "host"}, optional
        Kind of memory; None: ``x``'s kind on ``x``'s device, else the device's default.
    sycl_queue : dpctl.SyclQueue, optional
        The SYCL queue to allocate on; with ``device`` both must name the same queue.

    Returns
    -------
    usm_ndarray
        The new array.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray`` (a NumPy array: convert it with
        ``usmarray.asarray``); ``dtype`` is not one of usmarray's dtypes.
    ValueError
        An unknown device; a ``usm_type`` the device does not have; float64 or
        complex128 on a device without double precision.
    MemoryError
        The array needs more memory than the device holds, or the allocation fails.

    Notes
    -----
    Unlike NumPy, usmarray refuses ``order=``, ``subok=`` and ``shape=`` (TypeError).

    See Also
    --------
    [array_api.empty_like](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.empty_like.html): the standard's specification.
    """
    be, q, ut, d = _like("empty_like", x, dtype, device, usm_type, sycl_queue)
    return wrap_with(be, _alloc(be, q, ut, d, _cap(q), be.empty, x._arr.shape))


def zeros_like(x: usm_ndarray, /, *, dtype: Any = None, device: Any = None, usm_type: Any = None, sycl_queue: Any = None) -> usm_ndarray:
    """A new array of ``x``'s shape filled with zeros (False for bool).

    Parameters
    ----------
    x : usm_ndarray
        The array whose shape (and, by default, dtype, device and usm_type) to take.
    dtype : DType, optional
        One of usmarray's dtypes; None: ``x``'s dtype.
    device : Device, str or a backend's device or queue, optional
        Where the array lives; None (with no ``sycl_queue``): ``x``'s device.
    usm_type : {"device", "shared", "host"}, optional
        Kind of memory; None: ``x``'s kind on ``x``'s device, else the device's default.
    sycl_queue : dpctl.SyclQueue, optional
        The SYCL queue to allocate on; with ``device`` both must name the same queue.

    Returns
    -------
    usm_ndarray
        The new array.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; ``dtype`` is not one of usmarray's dtypes.
    ValueError
        An unknown device; a ``usm_type`` the device does not have; float64 or
        complex128 on a device without double precision.
    MemoryError
        The array needs more memory than the device holds, or the allocation fails.

    Notes
    -----
    Unlike NumPy, usmarray refuses NumPy arrays as ``x`` and ``order=``, ``subok=``,
    ``shape=`` (TypeError).

    See Also
    --------
    [array_api.zeros_like](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.zeros_like.html): the standard's specification.
    """
    be, q, ut, d = _like("zeros_like", x, dtype, device, usm_type, sycl_queue)
    return wrap_with(be, _alloc(be, q, ut, d, _cap(q), be.full, x._arr.shape, 0))


def ones_like(x: usm_ndarray, /, *, dtype: Any = None, device: Any = None, usm_type: Any = None, sycl_queue: Any = None) -> usm_ndarray:
    """A new array of ``x``'s shape filled with ones (True for bool).

    Parameters
    ----------
    x : usm_ndarray
        The array whose shape (and, by default, dtype, device and usm_type) to take.
    dtype : DType, optional
        One of usmarray's dtypes; None: ``x``'s dtype.
    device : Device, str or a backend's device or queue, optional
        Where the array lives; None (with no ``sycl_queue``): ``x``'s device.
    usm_type : {"device", "shared", "host"}, optional
        Kind of memory; None: ``x``'s kind on ``x``'s device, else the device's default.
    sycl_queue : dpctl.SyclQueue, optional
        The SYCL queue to allocate on; with ``device`` both must name the same queue.

    Returns
    -------
    usm_ndarray
        The new array.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; ``dtype`` is not one of usmarray's dtypes.
    ValueError
        An unknown device; a ``usm_type`` the device does not have; float64 or
        complex128 on a device without double precision.
    MemoryError
        The array needs more memory than the device holds, or the allocation fails.

    Notes
    -----
    Unlike NumPy, usmarray refuses NumPy arrays as ``x`` and ``order=``, ``subok=``,
    ``shape=`` (TypeError).

    See Also
    --------
    [array_api.ones_like](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.ones_like.html): the standard's specification.
    """
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
    """A new array of ``x``'s shape with every element ``fill_value``.

    Parameters
    ----------
    x : usm_ndarray
        The array whose shape (and, by default, dtype, device and usm_type) to take.
    fill_value : bool, int, float or complex
        The value, a Python scalar (NumPy scalars count as Python scalars) the result's
        dtype takes by the standard's rule.
    dtype : DType, optional
        One of usmarray's dtypes; None: ``x``'s dtype.
    device : Device, str or a backend's device or queue, optional
        Where the array lives; None (with no ``sycl_queue``): ``x``'s device.
    usm_type : {"device", "shared", "host"}, optional
        Kind of memory; None: ``x``'s kind on ``x``'s device, else the device's default.
    sycl_queue : dpctl.SyclQueue, optional
        The SYCL queue to allocate on; with ``device`` both must name the same queue.

    Returns
    -------
    usm_ndarray
        The new array.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; ``fill_value`` is not a Python scalar, or one the
        dtype does not take (a float for an integer dtype, a bool for a numeric one);
        ``dtype`` is not one of usmarray's dtypes.
    OverflowError
        A Python int outside the range of an integer dtype, or past the float64 range
        for a floating one.
    ValueError
        An unknown device; a ``usm_type`` the device does not have; float64 or
        complex128 on a device without double precision.
    MemoryError
        The array needs more memory than the device holds, or the allocation fails.

    Notes
    -----
    Unlike NumPy, which casts, usmarray refuses a ``fill_value`` of another kind than the
    dtype; it also refuses ``order=``, ``subok=`` and ``shape=`` (TypeError).

    See Also
    --------
    [array_api.full_like](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.full_like.html): the standard's specification.
    """
    be, q, ut, d = _like("full_like", x, dtype, device, usm_type, sycl_queue)
    fill_value = py_scalar(fill_value)
    if type(fill_value) not in _SCALARS:
        raise TypeError(f"full_like: fill_value must be a Python scalar, got {type(fill_value).__name__}")
    check_scalar(d, fill_value, "full_like")
    if type(fill_value) is int and d in dt.FLOATING:
        fill_value = _float_arg(fill_value, d, "full_like", "fill_value")
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


def _float_arg(v: Any, d: np.dtype, fname: str, name: str) -> float:
    """A Python int argument of a floating result as the float it stands for (one rule on
    every backend: OverflowError past the float64 range, not a provider's own error)."""
    if type(v) is float:
        return v
    try:
        return float(v)
    except OverflowError:
        raise OverflowError(
            f"{fname}: {name} (a Python int of {v.bit_length()} bits) does not fit {d}: it "
            "passes the largest float64 (about 1.8e308); pass a value within that range"
        ) from None


def _int_length(start: Any, stop: Any, step: Any) -> int:
    """``ceil((stop - start) / step)`` of Python ints, exactly, or 0."""
    return max(0, -((start - stop) // step))


def _arange_length(start: Any, stop: Any, step: Any, d: np.dtype) -> int:
    """The length of ``arange(start, stop, step)`` of Python ints, exactly the standard's
    ``ceil((stop - start) / step)`` (a float division misses it past 2**53), after checking
    that every value of the result fits the integer dtype ``d``.

    The values run from ``start`` to ``start + (n - 1) * step``, so those two decide.
    ``stop`` (excluded) and ``step`` are not values of the result and need not fit:
    ``arange(0, 256, dtype=uint8)`` and ``arange(255, -1, -1, dtype=uint8)`` are
    accepted.  A value past the dtype's range is an OverflowError, also where NumPy and
    array-api-strict wrap it around silently (``arange(0, 3_800_000_010, 100_000_000,
    dtype=int32)``), as every out-of-range Python int is here."""
    n = _int_length(start, stop, step)
    if n:
        last = start + (n - 1) * step
        for what, v in (("start", start), (f"the last value (start + {n - 1} * step)", last)):
            if not dt.integer_fits(d, v):
                info = np.iinfo(d)
                hint = ("; pass dtype=uint64" if d == dt.int64 and 0 <= min(start, last)
                        and max(start, last) < 2**64 else "; pass a wider dtype")
                raise OverflowError(
                    f"arange: {what} {v} does not fit {d} (range {info.min} .. "
                    f"{info.max}): every value of the result must fit its dtype{hint}"
                )
    return n


#: the longest ``arange(n)`` of a floating dtype whose length the providers compute
#: exactly from float arguments (past 2**53 a float misses integers)
_EXACT_FLOAT_COUNT = 2**53

#: itemsize -> the bound of the steps the providers take for integers of that width: they
#: compute the step in its signed type, so |step| must lie below it
_STEP_BOUND = {n: 1 << (8 * n - 1) for n in (1, 2, 4, 8)}


def _integer_ramp(be: Any, start: Any, step: Any, n: int, *, dtype: np.dtype, usm_type: str,
                  queue: Any) -> Any:
    """``start + i * step`` for ``i < n`` in integer dtype ``dtype``, computed in the
    unsigned dtype of its width: that wrap-around arithmetic is exact modulo 2**bits, and
    every value fits ``dtype`` (checked before), so the cast back gives it."""
    d = dtype
    u = np.dtype(f"uint{8 * d.itemsize}")
    m = 1 << (8 * d.itemsize)
    r = be.arange(0, n, 1, dtype=u, usm_type=usm_type, queue=queue)
    if step % m != 1:
        r = be.multiply(r, step % m)
    if start % m:
        r = be.add(r, start % m)
    return be.astype(r, d)


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
    """Evenly spaced values ``start, start + step, ...`` in the half-open interval
    ``[start, stop)``.

    Parameters
    ----------
    start : int or float
        First value; with ``stop`` None, the end of the interval (which then starts at
        0).  A NumPy integer or floating scalar or a 0-D real array stands for its value.
    stop : int or float, optional
        End of the interval, not included.
    step : int or float, optional
        Spacing; not zero.  Default 1.
    dtype : DType, optional
        A numeric dtype (a complex one gives the real values as complex); None: int64
        when every argument is an int, else the device's default real floating dtype.
    device : Device, str or a backend's device or queue, optional
        Where the array lives; None: the default device.
    usm_type : {"device", "shared", "host"}, optional
        Kind of memory; None: the device's default kind.
    sycl_queue : dpctl.SyclQueue, optional
        The SYCL queue to allocate on; with ``device`` both must name the same queue.

    Returns
    -------
    usm_ndarray
        A 1-D array of ``ceil((stop - start) / step)`` elements (none where that is
        negative).

    Raises
    ------
    TypeError
        An argument that is not an int or float (a bool included); a dtype that is not
        numeric, or an integer dtype with a float argument.
    OverflowError
        With an integer dtype, a value of the result (``start + i * step``) outside it,
        where NumPy wraps around; ``stop`` and ``step`` need not fit
        (``arange(255, -1, -1, dtype=uint8)``).  With a floating dtype, a Python int past
        the float64 range.
    ValueError
        ``step`` is zero; an unknown device or ``usm_type``; float64 on a device without
        double precision.
    MemoryError
        The array needs more memory than the device holds.

    Notes
    -----
    Unlike NumPy, usmarray refuses float arguments with an integer dtype, and ``like=``.

    See Also
    --------
    [array_api.arange](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.arange.html): the standard's specification.
    """
    be, q, ut = placement(device, usm_type, sycl_queue, "arange")
    if type(start) is int and stop is None and step == 1 and type(step) is int and start > 0:
        # arange(n), the commonest call: the general path's checks reduce to these
        nd = _dtype_or(dtype, dt.int64, q, "arange")
        if nd in dt.REAL_FLOATING and start <= _EXACT_FLOAT_COUNT:
            return wrap_with(be, _alloc_n(be, q, ut, nd, start, be.arange, 0.0, float(start), 1.0))
        if nd in dt.INTEGER and start <= dt.INTEGER_RANGE[nd][1] + 1:
            return wrap_with(be, _alloc_n(be, q, ut, nd, start, be.arange, 0, start, 1))
    # NumPy scalars and 0-D real arrays stand for their value, as in array-api-strict
    start, step = real(start, "arange", "start"), real(step, "arange", "step")
    stop = None if stop is None else real(stop, "arange", "stop")
    d = optional_dtype(dtype, "arange")
    if d in dt.COMPLEX_FLOATING:  # NumPy's values (as array-api-strict): the real ones
        r = arange(start, stop, step, dtype=dt.public(_REAL_PART[d]), device=Device._make(be, q),
                   usm_type=ut)
        return wrap_with(r._be, r._be.astype(r._arr, d))
    if step == 0:
        raise ValueError("arange: step must not be zero")
    if stop is None:
        start, stop = 0, start
    is_float = any(type(v) is float for v in (start, stop, step))
    d = _dtype_or(dtype, default_float(q) if is_float else dt.int64, q, "arange")
    if d not in dt.REAL_NUMERIC:
        raise TypeError(f"arange: dtype must be a numeric dtype, got {d}")
    if is_float and d in dt.INTEGER:
        raise TypeError(f"arange: float arguments with integer dtype {d}")
    if d in dt.INTEGER:
        n = _arange_length(start, stop, step, d)
    else:
        # the exact length for ints (a float division misses it past 2**53), NumPy's
        # rounded one where an argument is a float
        exact = None if is_float else _int_length(start, stop, step)
        start, stop, step = (_float_arg(v, d, "arange", name) for v, name in
                             ((start, "start"), (stop, "stop"), (step, "step")))
        n = max(0, math.ceil((stop - start) / step)) if exact is None else exact
    if not n:  # nothing to compute: no argument reaches the provider
        return wrap_with(be, _alloc_n(be, q, ut, d, 0, be.empty, (0,)))
    if d in dt.INTEGER and n > 1 and not -_STEP_BOUND[d.itemsize] < step < _STEP_BOUND[d.itemsize]:
        # a step past the signed range of the dtype's width overflows the providers'
        # own step arithmetic (they wrap with a warning, or refuse it)
        raw = _alloc_n(be, q, ut, d, n, _integer_ramp, be, start, step, n)
    else:
        raw = _alloc_n(be, q, ut, d, n, be.arange, start, stop, step)
    if raw.shape[0] != n:  # the provider rounds differently: make the standard's length
        if d in dt.INTEGER:
            raw = _integer_ramp(be, start, step, n, dtype=d, usm_type=ut, queue=q)
        else:
            raw = be.arange(0, n, 1, dtype=d, usm_type=ut, queue=q) * step + start
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
    """``num`` evenly spaced values from ``start`` to ``stop``.

    Parameters
    ----------
    start : int, float or complex
        First value (a 0-D array stands for its value).
    stop : int, float or complex
        Last value, included when ``endpoint`` is True.
    num : int
        Number of values; non-negative (a NumPy integer or 0-D integer array too).
    dtype : DType, optional
        A floating-point dtype; None: the device's default real floating dtype, or its
        default complex one when ``start`` or ``stop`` is complex.  An integer or bool
        dtype (the standard says the dtype should be floating) gives NumPy's values:
        the floating ones rounded down (nonzero for bool).
    device : Device, str or a backend's device or queue, optional
        Where the array lives; None: the default device.
    endpoint : bool, optional
        Whether ``stop`` is the last value (default) or the interval is half-open.
    usm_type : {"device", "shared", "host"}, optional
        Kind of memory; None: the device's default kind.
    sycl_queue : dpctl.SyclQueue, optional
        The SYCL queue to allocate on; with ``device`` both must name the same queue.

    Returns
    -------
    usm_ndarray
        A 1-D array of ``num`` elements.

    Raises
    ------
    TypeError
        ``start`` or ``stop`` is not a number (a bool included); ``num`` is not an
        integer; a dtype that is not complex with a complex ``start`` or ``stop``.
    OverflowError
        A Python int ``start`` or ``stop`` past the float64 range; with an integer dtype,
        a value outside it (NumPy wraps around).
    ValueError
        ``num`` is negative; an unknown device or ``usm_type``; a double-precision dtype
        on a device without it.
    MemoryError
        The array needs more memory than the device holds.

    Notes
    -----
    Unlike NumPy, usmarray refuses ``retstep=`` (the step is ``(stop - start) / (num -
    1)``) and ``axis=`` (TypeError).

    See Also
    --------
    [array_api.linspace](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linspace.html): the standard's specification.
    """
    be, q, ut = placement(device, usm_type, sycl_queue, "linspace")
    num = integer(num, "linspace", "num")
    if num < 0:
        raise ValueError(f"linspace: num must be non-negative, got {num}")
    endpoint = flag(endpoint, "linspace", "endpoint")
    c = _linspace_compute_dtype(start, stop, q)
    start, stop = _python_scalar(start, True), _python_scalar(stop, True)
    for name, v in (("start", start), ("stop", stop)):
        v = py_scalar(v)
        if type(v) is not complex:
            v = real(v, "linspace", name)
        if name == "start":
            start = v
        else:
            stop = v
    is_complex = type(start) is complex or type(stop) is complex
    d = _dtype_or(dtype, default_complex(q) if is_complex else default_float(q), q, "linspace")
    if is_complex and d not in dt.COMPLEX_FLOATING:
        raise TypeError(f"linspace: complex start/stop need a complex dtype, got {d}")
    if type(start) is int:
        start = _float_arg(start, d, "linspace", "start")
    if type(stop) is int:
        stop = _float_arg(stop, d, "linspace", "stop")
    if d not in dt.FLOATING:  # start and stop are real: complex ones need a complex dtype
        return _linspace_cast(be, q, ut, d, cast(float, start), cast(float, stop), num,
                              endpoint, c)
    return wrap_with(be, _alloc_n(be, q, ut, d, num, be.linspace, start, stop, num,
                                  endpoint=endpoint, compute_dtype=c))


_REAL_PY = (int, float)


def _linspace_compute_dtype(start: Any, stop: Any, q: Any) -> np.dtype:
    """The dtype ``linspace`` computes its values in, as NumPy's (NEP 50): Python numbers
    are weak, a NumPy scalar or 0-D array counts with its dtype, and the result is
    floating; float64 (complex128 with a complex bound) on a device without double
    precision is its single-precision counterpart."""
    if type(start) in _REAL_PY and type(stop) in _REAL_PY:  # the common case: float64
        return default_float(q)
    kinds = []
    for v in (start, stop):
        if type(v) is usm_ndarray and v._arr.ndim == 0:
            kinds.append(v._arr.dtype)
        elif isinstance(v, np.generic) and v.dtype.kind in "biufc":
            kinds.append(v.dtype)
        else:  # a Python number (one of another type is refused after this)
            kinds.append(type(v)() if type(v) in (int, float, complex) else 0.0)
    c = np.result_type(*kinds, 1.0)
    if c not in dt.FLOATING:  # float16, longdouble: the namespace has no such dtype
        c = np.dtype(np.float64)
    if c.itemsize > default_float(q).itemsize * (2 if c.kind == "c" else 1):
        c = np.dtype(np.complex64 if c.kind == "c" else np.float32)
    return c


def _linspace_cast(be: Any, q: Any, ut: str, d: np.dtype, start: float, stop: float, num: int,
                   endpoint: bool, c: np.dtype) -> usm_ndarray:
    """``linspace`` with an integer or bool dtype, which the standard says should be
    floating: NumPy's (and array-api-strict's) values, the floating ones of the
    computation dtype ``c`` rounded down for an integer dtype (nonzero for bool), with
    OverflowError where one leaves the integer dtype (NumPy wraps it around)."""
    from ._elementwise import floor

    if d in dt.INTEGER and num:
        div = num - 1 if endpoint else num
        last = stop if endpoint and num > 1 else start + (num - 1) * ((stop - start) / div)
        for v in (start, last):
            if not math.isfinite(v):
                raise OverflowError(f"linspace: {v} has no value in integer dtype {d}")
            dt.check_integer_fits(d, math.floor(v), "linspace")
    x = wrap_with(be, _alloc_n(be, q, ut, c, num, be.linspace, start, stop, num,
                               endpoint=endpoint, compute_dtype=c))
    if d in dt.INTEGER:
        x = floor(x)
    return wrap_with(be, be.astype(x._arr, d))


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
    """A 2-D array with ones on the ``k``-th diagonal and zeros elsewhere.

    Parameters
    ----------
    n_rows : int
        Number of rows; non-negative.
    n_cols : int, optional
        Number of columns; None: ``n_rows``.
    k : int, optional
        The diagonal: 0 the main one, positive above it, negative below.
    dtype : DType, optional
        One of usmarray's dtypes; None: the device's default real floating dtype.
    device : Device, str or a backend's device or queue, optional
        Where the array lives; None: the default device.
    usm_type : {"device", "shared", "host"}, optional
        Kind of memory; None: the device's default kind.
    sycl_queue : dpctl.SyclQueue, optional
        The SYCL queue to allocate on; with ``device`` both must name the same queue.

    Returns
    -------
    usm_ndarray
        An array of shape ``(n_rows, n_cols)``.

    Raises
    ------
    TypeError
        ``n_rows``, ``n_cols`` or ``k`` is not an int; ``dtype`` is not one of
        usmarray's dtypes.
    ValueError
        A negative size; an unknown device or ``usm_type``; a double-precision dtype on
        a device without it.
    MemoryError
        The array needs more memory than the device holds.

    Notes
    -----
    Unlike NumPy, usmarray refuses ``order=`` and ``like=`` (TypeError).

    See Also
    --------
    [array_api.eye](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.eye.html): the standard's specification.
    """
    be, q, ut = placement(device, usm_type, sycl_queue, "eye")
    if type(n_rows) is not int or type(k) is not int or (n_cols is not None and type(n_cols) is not int):
        n_rows, k = integer(n_rows, "eye", "n_rows"), integer(k, "eye", "k")
        n_cols = None if n_cols is None else integer(n_cols, "eye", "n_cols")
    m = n_rows if n_cols is None else n_cols
    if n_rows < 0 or m < 0:
        raise ValueError(f"eye: n_rows and n_cols must be non-negative, got {n_rows} and {m}")
    d = _dtype_or(dtype, default_float(q), q, "eye")
    k = max(-n_rows, min(k, m))  # a diagonal outside the matrix (any int k): all zeros
    return wrap_with(be, _alloc_n(be, q, ut, d, n_rows * m, be.eye, n_rows, n_cols, k=k))


def meshgrid(*arrays: usm_ndarray, indexing: str = "xy") -> tuple[usm_ndarray, ...]:
    """Coordinate matrices from 1-D coordinate vectors.

    Parameters
    ----------
    *arrays : usm_ndarray
        1-D arrays of one dtype, on one device.
    indexing : {"xy", "ij"}, optional
        ``"xy"`` (default): Cartesian, the first two output axes swapped; ``"ij"``:
        matrix indexing.

    Returns
    -------
    tuple of usm_ndarray
        One array per input, each of the shape the inputs' lengths make; an empty tuple
        for no input.  The arrays live on the inputs' device with their usm_type.  (A
        list before version 2025.12 of the standard.)

    Raises
    ------
    TypeError
        An argument that is not a ``usm_ndarray``; arrays of different dtypes.
    ValueError
        An array that is not 1-D; ``indexing`` not ``"xy"`` or ``"ij"``.
    ExecutionPlacementError
        Arrays on different devices (a subclass of ValueError).

    Notes
    -----
    Unlike NumPy, usmarray refuses mixed dtypes (NumPy promotes) and ``sparse=`` and
    ``copy=`` (TypeError).

    See Also
    --------
    [array_api.meshgrid](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.meshgrid.html): the standard's specification.
    """
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
    k = integer(k, fname, "k")
    a = x._arr
    if a.ndim < 2:
        raise ValueError(f"{fname}: x must have at least 2 dimensions, got shape {a.shape}")
    # a k past the last diagonal keeps or clears every element, as that diagonal does
    # (any Python int k, on every backend)
    k = max(-a.shape[-2], min(k, a.shape[-1]))
    try:
        return wrap_with(x._be, getattr(x._be, fname)(a, k=k))
    except Exception as exc:
        alloc_failed(exc, x._be, a, a.size * a.itemsize, fname)


def tril(x: usm_ndarray, /, *, k: int = 0) -> usm_ndarray:
    """The lower triangle of each matrix of ``x``: elements above the ``k``-th diagonal set
    to zero.

    Parameters
    ----------
    x : usm_ndarray
        Array of at least 2 dimensions, of any dtype; the last two are the matrices'.
    k : int, optional
        The diagonal: 0 the main one, positive above it, negative below.

    Returns
    -------
    usm_ndarray
        A new array of ``x``'s shape and dtype, on ``x``'s device with its usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; ``k`` is not an int.
    ValueError
        ``x`` has fewer than 2 dimensions.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Unlike NumPy, usmarray refuses 1-D input (NumPy broadcasts it to a square matrix) and
    passes ``k`` by keyword only.

    See Also
    --------
    [array_api.tril](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.tril.html): the standard's specification.
    """
    return _tri("tril", x, k)


def triu(x: usm_ndarray, /, *, k: int = 0) -> usm_ndarray:
    """The upper triangle of each matrix of ``x``: elements below the ``k``-th diagonal set
    to zero.

    Parameters
    ----------
    x : usm_ndarray
        Array of at least 2 dimensions, of any dtype; the last two are the matrices'.
    k : int, optional
        The diagonal: 0 the main one, positive above it, negative below.

    Returns
    -------
    usm_ndarray
        A new array of ``x``'s shape and dtype, on ``x``'s device with its usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; ``k`` is not an int.
    ValueError
        ``x`` has fewer than 2 dimensions.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Unlike NumPy, usmarray refuses 1-D input (NumPy broadcasts it to a square matrix) and
    passes ``k`` by keyword only.

    See Also
    --------
    [array_api.triu](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.triu.html): the standard's specification.
    """
    return _tri("triu", x, k)
