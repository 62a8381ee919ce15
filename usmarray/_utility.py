"""Utility functions (array API 2025.12): all, any, diff."""

from __future__ import annotations

import builtins
from typing import Any

from . import _dtypes as dt
from ._array import usm_ndarray, wrap_with
from ._helpers import alloc_failed, normalize_axis, same_device
from ._params import integer
from ._statistical import check_bool, check_x, kept_size, reduction_axes

__all__ = ["all", "any", "diff"]

def _truth(fname: str, x: Any, axis: Any, keepdims: Any) -> usm_ndarray:
    a = check_x(x, fname, dt.ANY, "any")
    keepdims = check_bool(keepdims, fname, "keepdims")
    axes = reduction_axes(axis, a.ndim, fname)
    be = x._be
    try:
        if axes == ():
            return wrap_with(be, be.astype(a, dt.bool, copy=True))
        return wrap_with(be, getattr(be, fname)(a, axis=axes, keepdims=keepdims))
    except Exception as exc:
        alloc_failed(exc, be, a, kept_size(a, axes), fname)


def all(  # noqa: A001 - the standard's name
    x: usm_ndarray, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False
) -> usm_ndarray:
    """Whether every element of ``x`` over ``axis`` is True (nonzero).

    Parameters
    ----------
    x : usm_ndarray
        Array of any dtype; nonzero elements count as True, NaN included.
    axis : int or tuple of int, optional
        The axes to reduce (negative counts from the end); None: every axis.
    keepdims : bool, optional
        Keep the reduced axes as axes of size one.

    Returns
    -------
    usm_ndarray
        A bool array (True for an empty reduction), on ``x``'s device with its usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; ``axis`` is a list (write a tuple); ``keepdims``
        not True or False.
    ValueError
        A repeated axis.
    IndexError
        An axis out of range.

    Notes
    -----
    Unlike NumPy, usmarray refuses NumPy arrays and lists and ``out=`` and ``where=``.

    See Also
    --------
    [array_api.all](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.all.html): the standard's specification.
    """
    return _truth("all", x, axis, keepdims)


def any(  # noqa: A001 - the standard's name
    x: usm_ndarray, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False
) -> usm_ndarray:
    """Whether some element of ``x`` over ``axis`` is True (nonzero).

    Parameters
    ----------
    x : usm_ndarray
        Array of any dtype; nonzero elements count as True, NaN included.
    axis : int or tuple of int, optional
        The axes to reduce (negative counts from the end); None: every axis.
    keepdims : bool, optional
        Keep the reduced axes as axes of size one.

    Returns
    -------
    usm_ndarray
        A bool array (False for an empty reduction), on ``x``'s device with its
        usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; ``axis`` is a list (write a tuple); ``keepdims``
        not True or False.
    ValueError
        A repeated axis.
    IndexError
        An axis out of range.

    Notes
    -----
    Unlike NumPy, usmarray refuses NumPy arrays and lists and ``out=`` and ``where=``.

    See Also
    --------
    [array_api.any](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.any.html): the standard's specification.
    """
    return _truth("any", x, axis, keepdims)


def _extra(x: usm_ndarray, v: Any, ax: int, argname: str) -> Any:
    if type(v) is not usm_ndarray:
        raise TypeError(
            f"diff: {argname} must be a usmarray.usm_ndarray or None, got {type(v).__name__}"
        )
    same_device("diff", x, v)
    b = v._arr
    xs, vs = x._arr.shape, b.shape
    if len(vs) != len(xs) or builtins.any(vs[k] != xs[k] for k in range(len(xs)) if k != ax):
        raise ValueError(
            f"diff: {argname} has shape {vs}; it must match x's shape {xs} except along "
            f"axis {ax}"
        )
    if b.dtype not in dt.NUMERIC:
        raise TypeError(f"diff: {argname} must have a numeric dtype, got {b.dtype}")
    return b


def diff(
    x: usm_ndarray,
    /,
    *,
    axis: int = -1,
    n: int = 1,
    prepend: usm_ndarray | None = None,
    append: usm_ndarray | None = None,
) -> usm_ndarray:
    """The ``n``-th forward difference ``out[i] = x[i + 1] - x[i]`` of ``x`` along ``axis``.

    Parameters
    ----------
    x : usm_ndarray
        Array of a numeric dtype (not bool), of at least one dimension.
    axis : int, optional
        The axis to difference along (negative counts from the end).  Default -1.
    n : int, optional
        How many times to difference; non-negative.  Default 1.
    prepend : usm_ndarray, optional
        Values joined before ``x`` along ``axis`` first: an array of a numeric dtype,
        of ``x``'s shape off ``axis``, on ``x``'s device.
    append : usm_ndarray, optional
        Values joined after ``x`` along ``axis`` first, as ``prepend``.

    Returns
    -------
    usm_ndarray
        The differences, shorter by ``n`` along ``axis`` (empty when ``n`` exceeds the
        length), of the promoted dtype of ``x``, ``prepend`` and ``append``; on ``x``'s
        device with its usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; a bool dtype; ``n`` not an int; a ``prepend`` or
        ``append`` that is not an array (a Python scalar, as NumPy takes) or not
        numeric; dtypes the standard does not promote.
    ValueError
        A negative ``n``; a 0-D ``x``; a ``prepend`` or ``append`` of another shape off
        ``axis``.
    IndexError
        ``axis`` out of range.
    ExecutionPlacementError
        ``prepend`` or ``append`` on another device (a subclass of ValueError).
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Unlike NumPy, usmarray refuses bool arrays and scalar ``prepend``/``append``.

    See Also
    --------
    [array_api.diff](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.diff.html): the standard's specification.
    """
    a = check_x(x, "diff", dt.NUMERIC, "numeric")
    n = integer(n, "diff", "n")
    if n < 0:
        raise ValueError(f"diff: n must be non-negative, got {n}")
    if a.ndim == 0:
        raise ValueError("diff: x must have at least one dimension, got a 0-D array")
    ax = normalize_axis(axis, a.ndim, "diff")
    be = x._be
    d = a.dtype
    p = q = None
    if prepend is not None:
        p = _extra(x, prepend, ax, "prepend")
        d = dt.promote(d, p.dtype, "diff")
    if append is not None:
        q = _extra(x, append, ax, "append")
        d = dt.promote(d, q.dtype, "diff")
    try:
        if d is not a.dtype:
            a = be.astype(a, d)
        if p is not None and p.dtype is not d:
            p = be.astype(p, d)
        if q is not None and q.dtype is not d:
            q = be.astype(q, d)
        # each difference shortens the axis by one: past its length the result stays
        # empty, so the provider's loop (one kernel per n) is bounded by the length
        n = min(n, builtins.sum(r.shape[ax] for r in (p, a, q) if r is not None))
        if n == 0:
            parts = [r for r in (p, a, q) if r is not None]
            return wrap_with(be, be.concat(parts, axis=ax) if len(parts) > 1 else be.copy(a))
        return wrap_with(be, be.diff(a, axis=ax, n=n, prepend=p, append=q))
    except Exception as exc:
        length = builtins.sum(r.shape[ax] for r in (p, a, q) if r is not None)
        count = kept_size(a, (ax,)) * builtins.max(length - n, 0)
        alloc_failed(exc, be, a, count * d.itemsize, "diff")
