"""Searching functions (array API 2025.12): argmax, argmin, count_nonzero, nonzero,
searchsorted, where."""

from __future__ import annotations

import math
from typing import Any

from . import _dtypes as dt
from . import _index_rules as rules
from . import _trace
from ._array import new_array, usm_ndarray, wrap_with
from ._data_type_functions import scalar_result_dtype
from ._device import placement_error
from ._helpers import (
    alloc_failed,
    broadcast_shape,
    check_array,
    normalize_axis,
    same_device,
)
from ._scalars import py_scalar
from ._statistical import check_bool, check_x, kept_size, reduction_axes
from .kernels import _direct

_new = new_array

__all__ = ["argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where"]

_PROMOTION = dt.PROMOTION_TABLE
_INDEX = dt.int64
_SCALARS = (bool, int, float, complex)


def _has_nan(be: Any, a: Any, ax: int | None, out: Any) -> bool:
    """Whether the floating ``a`` holds a NaN (along ``ax``) where ``argmax``/``argmin``
    of it gave ``out``.  A backend whose kernels pick some NaN wherever one is present
    (``nan_argmax``) is asked about the elements at ``out`` only: one element for
    ``axis=None``, one per result otherwise (the backend's ``nan_at`` kernel, else a
    gather); else one ``max`` reduction of ``a``."""
    if not a.size:
        return False
    if not be.nan_argmax:
        return math.isnan(be.to_host(be.max(a))[()])
    if ax is None:
        flat, at = int(be.to_host(out).reshape(-1)[0]), []
        for n in reversed(a.shape):
            flat, k = divmod(flat, n)
            at.append(k)
        return math.isnan(be.to_host(be.getitem(a, tuple(reversed(at))))[()])
    found = be.nan_at(a, ax, out)
    if found is not None:
        return found
    idx = out if out.ndim == a.ndim else be.expand_dims(out, axis=ax)
    picked = be.take_along_axis(a, idx, axis=ax)
    return bool(be.to_host(be.any(be.isnan(picked))))


# ---- argmax / argmin ----------------------------------------------------------------------
def _arg_extremum(fname: str, x: Any, axis: Any, keepdims: Any) -> usm_ndarray:
    a = check_x(x, fname, dt.REAL_NUMERIC, "real numeric")
    keepdims = check_bool(keepdims, fname, "keepdims")
    if axis is None:
        if a.size == 0:
            raise ValueError(f"{fname}: x is empty (shape {a.shape}); there is no extremum")
        ax = None
    else:
        ax = normalize_axis(axis, a.ndim, fname)
        if a.shape[ax] == 0:
            raise ValueError(
                f"{fname}: axis {ax} of x (shape {a.shape}) is empty; there is no extremum"
            )
    be = x._be
    try:
        out = getattr(be, fname)(a, axis=ax, keepdims=keepdims)
    except Exception as exc:
        alloc_failed(exc, be, a, kept_size(a, None if ax is None else (ax,)) * 8, fname)
    if not be.first_nan_argmax and a.dtype in dt.REAL_FLOATING and _has_nan(be, a, ax, out):
        # NaN is the extremum and its first occurrence is the answer; the provider may
        # pick a later NaN, so take the first NaN explicitly where there is one; a
        # backend whose kernels return the first NaN says so (``first_nan_argmax``)
        nans = be.isnan(a)
        first_nan = be.argmax(nans, axis=ax, keepdims=keepdims)
        out = be.where(be.any(nans, axis=ax, keepdims=keepdims), first_nan, out)
    if out.dtype is not _INDEX:
        out = be.astype(out, _INDEX)
    return wrap_with(be, out)


def argmax(x: usm_ndarray, /, *, axis: int | None = None, keepdims: bool = False) -> usm_ndarray:
    """Index of the first maximum of ``x`` along ``axis``.

    Parameters
    ----------
    x : usm_ndarray
        Array of a real numeric dtype (an integer or real floating dtype).
    axis : int, optional
        The axis to search (negative counts from the end); None: the flattened array.
    keepdims : bool, optional
        Keep ``axis`` as an axis of size one (every axis, for None).

    Returns
    -------
    usm_ndarray
        int64 indices: a 0-D array for ``axis=None``, else ``x``'s shape without
        ``axis``; on ``x``'s device with its usm_type.  A NaN counts as the maximum: the
        index of the first NaN where there is one.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; a bool or complex dtype; ``keepdims`` not True or
        False.
    ValueError
        An empty ``x`` or ``axis``: there is no maximum.
    IndexError
        ``axis`` out of range.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Unlike NumPy, usmarray refuses bool and complex arrays and ``out=``.

    See Also
    --------
    [array_api.argmax](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.argmax.html): the standard's specification.
    """
    return _arg_extremum("argmax", x, axis, keepdims)


def argmin(x: usm_ndarray, /, *, axis: int | None = None, keepdims: bool = False) -> usm_ndarray:
    """Index of the first minimum of ``x`` along ``axis``.

    Parameters
    ----------
    x : usm_ndarray
        Array of a real numeric dtype (an integer or real floating dtype).
    axis : int, optional
        The axis to search (negative counts from the end); None: the flattened array.
    keepdims : bool, optional
        Keep ``axis`` as an axis of size one (every axis, for None).

    Returns
    -------
    usm_ndarray
        int64 indices: a 0-D array for ``axis=None``, else ``x``'s shape without
        ``axis``; on ``x``'s device with its usm_type.  A NaN counts as the minimum: the
        index of the first NaN where there is one.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; a bool or complex dtype; ``keepdims`` not True or
        False.
    ValueError
        An empty ``x`` or ``axis``: there is no minimum.
    IndexError
        ``axis`` out of range.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Unlike NumPy, usmarray refuses bool and complex arrays and ``out=``.

    See Also
    --------
    [array_api.argmin](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.argmin.html): the standard's specification.
    """
    return _arg_extremum("argmin", x, axis, keepdims)


# ---- count_nonzero / nonzero -------------------------------------------------------------------
def count_nonzero(
    x: usm_ndarray, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False
) -> usm_ndarray:
    """Number of nonzero elements of ``x`` over ``axis``.

    Parameters
    ----------
    x : usm_ndarray
        Array of any dtype (a complex element is nonzero when either part is; NaN is
        nonzero).
    axis : int or tuple of int, optional
        The axes to count over (negative counts from the end); None: every axis.
    keepdims : bool, optional
        Keep the counted axes as axes of size one.

    Returns
    -------
    usm_ndarray
        int64 counts, on ``x``'s device with its usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; ``axis`` is a list (write a tuple);
        ``keepdims`` not True or False.
    ValueError
        A repeated axis.
    IndexError
        An axis out of range.
    MemoryError
        The device cannot hold the result.

    See Also
    --------
    [array_api.count_nonzero](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.count_nonzero.html): the standard's specification.
    """
    a = check_x(x, "count_nonzero", dt.ANY, "any")
    keepdims = check_bool(keepdims, "count_nonzero", "keepdims")
    axes = reduction_axes(axis, a.ndim, "count_nonzero")
    be = x._be
    try:
        if axes == ():
            out = be.astype(be.astype(a, dt.bool), _INDEX)
        else:
            out = be.count_nonzero(a, axis=axes, keepdims=keepdims)
            if out.dtype is not _INDEX:
                out = be.astype(out, _INDEX)
    except Exception as exc:  # the provider first casts x to bool
        cast = 0 if a.dtype is dt.bool else a.size
        alloc_failed(exc, be, a, max(cast, kept_size(a, axes) * 8), "count_nonzero")
    return wrap_with(be, out)


def nonzero(x: usm_ndarray, /) -> tuple[usm_ndarray, ...]:
    """Indices of the nonzero elements of ``x``, one index array per axis, in row-major
    order.

    Parameters
    ----------
    x : usm_ndarray
        Array of any dtype, of at least one dimension.

    Returns
    -------
    tuple of usm_ndarray
        ``x.ndim`` 1-D int64 arrays of equal length, on ``x``'s device with its
        usm_type.  Their length depends on the data, so the call waits for the device.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``.
    ValueError
        A 0-D ``x``.
    MemoryError
        The device cannot hold the result.

    See Also
    --------
    [array_api.nonzero](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.nonzero.html): the standard's specification.
    """
    a = check_x(x, "nonzero", dt.ANY, "any")
    if a.ndim == 0:
        raise ValueError(
            "nonzero: x must have at least one dimension; 0-D arrays are not allowed"
        )
    be = x._be
    try:
        out = be.nonzero(a)
    except Exception as exc:  # the provider first counts into one index per element
        alloc_failed(exc, be, a, a.size * 8, "nonzero")
    return tuple(
        wrap_with(be, r if r.dtype is _INDEX else be.astype(r, _INDEX)) for r in out
    )


# ---- searchsorted -----------------------------------------------------------------------------------
def searchsorted(
    x1: usm_ndarray,
    x2: usm_ndarray | int | float,
    /,
    *,
    side: str = "left",
    sorter: usm_ndarray | None = None,
) -> usm_ndarray:
    """Indices where ``x2``'s elements would be inserted into the ascending 1-D ``x1`` to
    keep it sorted.

    Parameters
    ----------
    x1 : usm_ndarray
        1-D array of a real numeric dtype, sorted ascending (or ascending through
        ``sorter``).
    x2 : usm_ndarray, int or float
        The values to place: an array of a real numeric dtype on ``x1``'s device, or a
        Python int or float (version 2025.12 of the standard), which takes ``x1``'s
        dtype by the standard's scalar rule.
    side : {"left", "right"}, optional
        For values equal to elements of ``x1``: the index of the first (``"left"``,
        default) or past the last (``"right"``).
    sorter : usm_ndarray, optional
        Integer indices that sort ``x1`` ascending, of ``x1``'s shape, on its device.

    Returns
    -------
    usm_ndarray
        int64 indices of ``x2``'s shape, on ``x1``'s device.

    Raises
    ------
    TypeError
        An array that is not a ``usm_ndarray``; a bool or complex dtype or scalar;
        dtypes the standard does not promote; a non-integer ``sorter``.
    ValueError
        ``x1`` not 1-D; ``side`` not ``"left"`` or ``"right"``; a ``sorter`` of another
        shape, or with an index out of range.
    ExecutionPlacementError
        ``x2`` or ``sorter`` on another device than ``x1`` (a subclass of ValueError).
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Unlike NumPy, usmarray refuses lists and NumPy arrays as ``x2`` and mixed-kind
    promotion between ``x1`` and ``x2``.

    See Also
    --------
    [array_api.searchsorted](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.searchsorted.html): the standard's specification.
    """
    a = check_x(x1, "searchsorted", dt.REAL_NUMERIC, "real numeric")
    if a.ndim != 1:
        raise ValueError(f"searchsorted: x1 must be 1-D, got shape {a.shape}")
    if side != "left" and side != "right":
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    be = x1._be
    d1 = a.dtype
    if type(x2) is usm_ndarray:
        same_device("searchsorted", x1, x2)
        v = x2._arr
        d2 = v.dtype
        if d2 not in dt.REAL_NUMERIC:
            raise TypeError(
                f"searchsorted is defined for real numeric dtypes only, got x2 of dtype {d2}"
            )
        d = _PROMOTION.get((d1, d2))
        if d is None:
            dt.promote(d1, d2, "searchsorted")
        if d2 is not d:
            v = be.astype(v, d)
    elif type(x2) in _SCALARS:
        if type(x2) is bool or type(x2) is complex:
            raise TypeError(
                f"searchsorted: x2 must be an array, int or float, got {type(x2).__name__}"
            )
        d = scalar_result_dtype(d1, x2, "searchsorted")
        v = be.full((), x2, dtype=d, usm_type=be.usm_type_of(a), queue=be.queue_of(a))
    else:
        raise TypeError(
            f"searchsorted: x2 must be a usmarray.usm_ndarray, int or float, got "
            f"{type(x2).__name__}"
        )
    s = None
    if sorter is not None:
        check_array(sorter, "searchsorted", "sorter")
        same_device("searchsorted", x1, sorter)
        s = sorter._arr
        if s.dtype not in dt.INTEGER:
            raise TypeError(f"searchsorted: sorter must have an integer dtype, got {s.dtype}")
        if s.shape != a.shape:
            raise ValueError(
                f"searchsorted: sorter has shape {s.shape}; it must match x1's shape {a.shape}"
            )
        rules.check_sorter(be, s, a.shape[0], "searchsorted")
        if s.dtype is not _INDEX:  # every value lies in [0, n): the cast keeps it
            s = be.astype(s, _INDEX)
    try:
        if d1 is not d:
            a = be.astype(a, d)
        out = be.searchsorted(a, v, side=side, sorter=s)
        if out.dtype is not _INDEX:
            out = be.astype(out, _INDEX)
    except Exception as exc:
        alloc_failed(exc, be, a, v.size * 8, "searchsorted")
    return wrap_with(be, out)


# ---- where ------------------------------------------------------------------------------------------
def where(
    condition: usm_ndarray,
    x1: usm_ndarray | bool | int | float | complex,
    x2: usm_ndarray | bool | int | float | complex,
    /,
) -> usm_ndarray:
    """Elements of ``x1`` where ``condition`` is True, of ``x2`` elsewhere.

    Parameters
    ----------
    condition : usm_ndarray
        A bool array.
    x1 : usm_ndarray, bool, int, float or complex
        Values where ``condition`` is True.
    x2 : usm_ndarray, bool, int, float or complex
        Values elsewhere.  One of ``x1`` and ``x2`` may be a Python scalar (NumPy
        scalars count as Python scalars), which takes the other's dtype by the
        standard's scalar rule.

    Returns
    -------
    usm_ndarray
        An array of the broadcast shape of the three, of the promoted dtype of ``x1``
        and ``x2``, on their device; its usm_type is the most device-like of the arrays'
        (docs/usm-types.md).

    Raises
    ------
    TypeError
        ``condition`` is not a bool ``usm_ndarray``; two Python scalars; dtypes the
        standard does not promote (float64 with int64); a scalar the array's dtype does
        not take.
    OverflowError
        A Python int outside the range of the integer array's dtype.
    ValueError
        Shapes that do not broadcast.
    ExecutionPlacementError
        Arrays on different devices (a subclass of ValueError).
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Unlike NumPy, usmarray refuses a non-bool ``condition`` (NumPy reads truthiness),
    the one-argument ``where(condition)`` (use ``nonzero``), two scalars and mixed-kind
    promotion.

    See Also
    --------
    [array_api.where](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.where.html): the standard's specification.
    """
    c = check_x(condition, "where", dt.BOOLEAN, "boolean (condition)")
    be = condition._be
    mq = be.multi_queue  # one queue per backend: the backend check is the device check
    q = be.queue_of(c) if mq else None
    if type(x1) is not usm_ndarray:
        x1 = py_scalar(x1)
    if type(x2) is not usm_ndarray:
        x2 = py_scalar(x2)
    t1, t2 = type(x1), type(x2)
    if type(x1) is usm_ndarray:
        a1 = x1._arr
        if x1._be is not be or (mq and be.queue_of(a1) != q):
            raise placement_error("where", condition.device, x1.device)
        if type(x2) is usm_ndarray:
            a2 = x2._arr
            if x2._be is not be or (mq and be.queue_of(a2) != q):
                raise placement_error("where", condition.device, x2.device)
            d1, d2 = a1.dtype, a2.dtype
            d: Any = _PROMOTION.get((d1, d2))
            if d is None:
                dt.promote(d1, d2, "where")
            if not c.shape == a1.shape == a2.shape:
                broadcast_shape("where", *(c.shape, a1.shape, a2.shape))
        else:
            d = scalar_result_dtype(a1.dtype, x2, "where")
            broadcast_shape("where", *(c.shape, a1.shape))
            a2 = x2  # a kernel argument of the engine, else a 0-D array (below)
    elif type(x2) is usm_ndarray:
        a2 = x2._arr
        if x2._be is not be or (mq and be.queue_of(a2) != q):
            raise placement_error("where", condition.device, x2.device)
        d = scalar_result_dtype(a2.dtype, x1, "where")
        broadcast_shape("where", *(c.shape, a2.shape))
        a1 = x1
    else:
        raise TypeError(
            "where: at least one of x1 and x2 must be a usmarray.usm_ndarray; got "
            f"{t1.__name__} and {t2.__name__}"
        )
    try:
        out = _direct.where(be, c, a1, a2) if be.elementwise_engine else None
        if out is None:
            # a Python scalar as a 0-D array of d, of the other operand's usm_type
            if type(x1) is not usm_ndarray:
                a1 = be.full((), x1, dtype=d, usm_type=be.usm_type_of(a2), queue=be.queue_of(c))
            elif type(x2) is not usm_ndarray:
                a2 = be.full((), x2, dtype=d, usm_type=be.usm_type_of(a1), queue=be.queue_of(c))
            if a1.dtype is not d:
                a1 = be.astype(a1, d)
            if a2.dtype is not d:
                a2 = be.astype(a2, d)
            out = be.where(c, a1, a2)
        res = _new(usm_ndarray)
        res._arr = out
        res._be = be
    except Exception as exc:
        shape = broadcast_shape("where", c.shape, *(getattr(a, "shape", ()) for a in (a1, a2)))
        alloc_failed(exc, be, c, math.prod(shape) * d.itemsize, "where")
    if _trace.ACTIVE:
        _trace.note("where", (condition, x1, x2), res)
    return res
