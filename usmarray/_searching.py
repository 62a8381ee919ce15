"""Searching functions (array API 2025.12): argmax, argmin, count_nonzero, nonzero,
searchsorted, where."""

from __future__ import annotations

import math
from typing import Any

from . import _dtypes as dt
from . import _trace
from ._array import usm_ndarray, wrap_with
from ._data_type_functions import scalar_result_dtype
from ._device import placement_error
from ._helpers import (
    alloc_failed,
    broadcast_shape,
    check_array,
    check_bounds,
    normalize_axis,
    same_device,
)
from ._scalars import py_scalar
from ._statistical import check_bool, check_x, kept_size, reduction_axes

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
    check_bool(keepdims, fname, "keepdims")
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
    """Index of the first maximum along ``axis`` (of the flattened array when None)."""
    return _arg_extremum("argmax", x, axis, keepdims)


def argmin(x: usm_ndarray, /, *, axis: int | None = None, keepdims: bool = False) -> usm_ndarray:
    """Index of the first minimum along ``axis`` (of the flattened array when None)."""
    return _arg_extremum("argmin", x, axis, keepdims)


# ---- count_nonzero / nonzero -------------------------------------------------------------------
def count_nonzero(
    x: usm_ndarray, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False
) -> usm_ndarray:
    """Number of non-zero elements over ``axis`` (default index dtype)."""
    a = check_x(x, "count_nonzero", dt.ANY, "any")
    check_bool(keepdims, "count_nonzero", "keepdims")
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
    """Indices of the non-zero elements, one index array per axis, in row-major order."""
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
    """Insertion indices of ``x2`` into the 1-D ascending ``x1`` (sorted by ``sorter``
    when given).  ``x2`` may be a Python int or float (2025.12)."""
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
        if s.dtype is not _INDEX:
            s = be.astype(s, _INDEX)
        check_bounds(be, s, a.shape[0], 0, "searchsorted (sorter)", ValueError)
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
    """Elements of ``x1`` where ``condition`` is True, of ``x2`` elsewhere; x1/x2 may
    be Python scalars (not both), following the standard's scalar rules."""
    c = check_x(condition, "where", dt.BOOLEAN, "boolean (condition)")
    be = condition._be
    q = be.queue_of(c)
    x1, x2 = py_scalar(x1), py_scalar(x2)
    t1, t2 = type(x1), type(x2)
    if type(x1) is usm_ndarray:
        a1 = x1._arr
        if x1._be is not be or be.queue_of(a1) != q:
            raise placement_error("where", condition.device, x1.device)
        if type(x2) is usm_ndarray:
            a2 = x2._arr
            if x2._be is not be or be.queue_of(a2) != q:
                raise placement_error("where", condition.device, x2.device)
            d1, d2 = a1.dtype, a2.dtype
            d: Any = _PROMOTION.get((d1, d2))
            if d is None:
                dt.promote(d1, d2, "where")
            broadcast_shape("where", *(c.shape, a1.shape, a2.shape))
        else:
            d = scalar_result_dtype(a1.dtype, x2, "where")
            broadcast_shape("where", *(c.shape, a1.shape))
            a2 = be.full((), x2, dtype=d, usm_type=be.usm_type_of(a1), queue=q)
    elif type(x2) is usm_ndarray:
        a2 = x2._arr
        if x2._be is not be or be.queue_of(a2) != q:
            raise placement_error("where", condition.device, x2.device)
        d = scalar_result_dtype(a2.dtype, x1, "where")
        broadcast_shape("where", *(c.shape, a2.shape))
        a1 = be.full((), x1, dtype=d, usm_type=be.usm_type_of(a2), queue=q)
    else:
        raise TypeError(
            "where: at least one of x1 and x2 must be a usmarray.usm_ndarray; got "
            f"{t1.__name__} and {t2.__name__}"
        )
    try:
        if a1.dtype is not d:
            a1 = be.astype(a1, d)
        if a2.dtype is not d:
            a2 = be.astype(a2, d)
        res = wrap_with(be, be.where(c, a1, a2))
    except Exception as exc:
        shape = broadcast_shape("where", *(c.shape, a1.shape, a2.shape))
        alloc_failed(exc, be, c, math.prod(shape) * d.itemsize, "where")
    if _trace.ACTIVE:
        _trace.note("where", (condition, x1, x2), res)
    return res
