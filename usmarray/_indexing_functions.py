"""Indexing functions (array API 2025.12): take, take_along_axis.

Negative indices count from the end.  An index outside ``[-n, n)`` raises IndexError
on every backend, as NumPy (the standard leaves them unspecified; the SYCL provider
would clip them silently: issue 14 family 5).
"""

from __future__ import annotations

import math
from typing import Any

from . import _dtypes as dt
from ._array import usm_ndarray, wrap_with
from ._helpers import (
    alloc_failed,
    bounds_error,
    check_array,
    check_bounds,
    normalize_axis,
    same_device,
)

__all__ = ["take", "take_along_axis"]

_INDEX = dt.int64


def _indices(x: usm_ndarray, indices: Any, fname: str) -> Any:
    check_array(x, fname)
    check_array(indices, fname, "indices")
    same_device(fname, x, indices)
    i = indices._arr
    if i.dtype not in dt.INTEGER:
        raise TypeError(f"{fname}: indices must have an integer dtype, got {i.dtype}")
    if i.dtype in dt.UNSIGNED:
        i = x._be.astype(i, _INDEX)  # the provider's wrap mode needs signed indices
    return i



def take(x: usm_ndarray, indices: usm_ndarray, /, *, axis: int | None = None) -> usm_ndarray:
    """Elements of ``x`` at the 1-D integer ``indices`` along ``axis`` (optional for
    1-D x only)."""
    i = _indices(x, indices, "take")
    a = x._arr
    if i.ndim != 1:
        raise ValueError(f"take: indices must be 1-D, got shape {i.shape}")
    if axis is None:
        if a.ndim != 1:
            raise ValueError(
                f"take: axis is required for an array of {a.ndim} dimensions "
                "(it may be omitted for 1-D arrays only)"
            )
        ax = 0
    else:
        ax = normalize_axis(axis, a.ndim, "take")
    be = x._be
    if a.shape[ax] == 0 and i.shape[0]:
        raise IndexError(f"take: cannot take from the empty axis {ax} of shape {a.shape}")
    try:
        checked = be.take_checked(a, i, ax)
        if checked is None:
            check_bounds(be, i, a.shape[ax], ax, "take")
            return wrap_with(be, be.take(a, i, axis=ax))
    except IndexError:
        raise
    except Exception as exc:
        count = math.prod(a.shape[:ax] + a.shape[ax + 1:]) * i.shape[0]
        alloc_failed(exc, be, a, count * a.itemsize, "take")
    out, bad = checked
    if bad is not None:
        raise bounds_error("take", bad, ax, a.shape[ax])
    return wrap_with(be, out)


def take_along_axis(x: usm_ndarray, indices: usm_ndarray, /, *, axis: int = -1) -> usm_ndarray:
    """Elements of ``x`` at ``indices`` along ``axis``; the other axes of ``x`` and
    ``indices`` broadcast against each other."""
    i = _indices(x, indices, "take_along_axis")
    a = x._arr
    ax = normalize_axis(axis, a.ndim, "take_along_axis")
    if i.ndim != a.ndim:
        raise ValueError(
            f"take_along_axis: indices must have as many dimensions as x ({a.ndim}), "
            f"got shape {i.shape}"
        )
    xs, js = a.shape, i.shape
    for k in range(a.ndim):
        if k != ax and xs[k] != js[k] and xs[k] != 1 and js[k] != 1:
            raise ValueError(
                f"take_along_axis: x of shape {xs} and indices of shape {js} are not "
                f"broadcast-compatible outside axis {ax}"
            )
    be = x._be
    if xs[ax] == 0 and js[ax]:
        raise IndexError(
            f"take_along_axis: cannot take from the empty axis {ax} of shape {xs}"
        )
    try:
        checked = be.take_along_axis_checked(a, i, ax)
    except Exception as exc:
        alloc_failed(exc, be, a, i.size * a.itemsize, "take_along_axis")
    if checked is not None:
        out, bad = checked
        if bad is not None:
            raise bounds_error("take_along_axis", bad, ax, xs[ax])
        return wrap_with(be, out)
    if not be.checks_indices:
        check_bounds(be, i, xs[ax], ax, "take_along_axis")
    try:
        return wrap_with(be, be.take_along_axis(a, i, axis=ax))
    except Exception as exc:
        if be.checks_indices:  # its gather refused: the check names the index as before
            check_bounds(be, i, xs[ax], ax, "take_along_axis")
        shape = [n if m == 1 and k != ax else m for k, (n, m) in enumerate(zip(xs, js, strict=True))]
        alloc_failed(exc, be, a, math.prod(shape) * a.itemsize, "take_along_axis")
