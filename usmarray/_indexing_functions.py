"""Indexing functions (array API 2025.12): take, take_along_axis.

Negative indices count from the end.  An index outside ``[-n, n)`` raises IndexError
on every backend, as NumPy (the standard leaves them unspecified; the SYCL provider
would clip them silently); an unsigned index is its value, never
read as negative (``_index_rules``).
"""

from __future__ import annotations

import math
from typing import Any

from . import _dtypes as dt
from . import _index_rules as rules
from ._array import usm_ndarray, wrap_with
from ._helpers import alloc_failed, check_array, normalize_axis, same_device

__all__ = ["take", "take_along_axis"]


def _indices(x: usm_ndarray, indices: Any, fname: str) -> Any:
    check_array(x, fname)
    check_array(indices, fname, "indices")
    same_device(fname, x, indices)
    i = indices._arr
    if i.dtype not in dt.INTEGER:
        raise TypeError(f"{fname}: indices must have an integer dtype, got {i.dtype}")
    return i


def _refused(be: Any, i: Any, bad: int, n: int, axis: int, fname: str) -> IndexError:
    """The error for a gather that refused ``i`` (an index of which, ``bad`` as the
    gather read it, lies outside ``[-n, n)``), naming the index as ``i`` holds it."""
    named = rules.bad_index(be, i, n) if i.dtype in dt.UNSIGNED else bad
    return rules.bounds_error(fname, bad if named is None else named, axis, n)


def take(x: usm_ndarray, indices: usm_ndarray, /, *, axis: int | None = None) -> usm_ndarray:
    """Elements of ``x`` at the positions ``indices`` along ``axis``.

    Parameters
    ----------
    x : usm_ndarray
        The array to take from.
    indices : usm_ndarray
        A 1-D integer array on ``x``'s device; negative indices count from the end.
    axis : int, optional
        The axis to take along (negative counts from the end); may be omitted for a 1-D
        ``x`` only.

    Returns
    -------
    usm_ndarray
        A new array of ``x``'s dtype, ``x``'s shape with ``axis`` of ``indices``'s
        length; on ``x``'s device with its usm_type.

    Raises
    ------
    TypeError
        ``x`` or ``indices`` is not a ``usm_ndarray`` (a list, a NumPy array); a
        non-integer ``indices``.
    ValueError
        ``indices`` not 1-D; no ``axis`` for an ``x`` of more than one dimension.
    IndexError
        An index outside ``[-n, n)`` for an axis of length ``n`` (on every backend;
        the standard leaves it undefined); ``axis`` out of range.
    ExecutionPlacementError
        ``indices`` on another device (a subclass of ValueError).
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Unlike NumPy, usmarray refuses lists and NumPy arrays of indices, indices of more
    than one dimension, and ``mode=`` and ``out=``.

    See Also
    --------
    [array_api.take](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.take.html): the standard's specification.
    """
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
        s = rules.signed_indices(be, i)
        checked = be.take_checked(a, s, ax)
        if checked is None:
            rules.check_positions(be, i, a.shape[ax], ax, "take")
            return wrap_with(be, be.take(a, s, axis=ax))
    except IndexError:
        raise
    except Exception as exc:
        count = math.prod(a.shape[:ax] + a.shape[ax + 1:]) * i.shape[0]
        alloc_failed(exc, be, a, count * a.itemsize, "take")
    out, bad = checked
    if bad is not None:
        raise _refused(be, i, bad, a.shape[ax], ax, "take")
    return wrap_with(be, out)


def take_along_axis(x: usm_ndarray, indices: usm_ndarray, /, *, axis: int = -1) -> usm_ndarray:
    """Elements of ``x`` at ``indices`` along ``axis``, matched position by position on the
    other axes.

    Parameters
    ----------
    x : usm_ndarray
        The array to take from.
    indices : usm_ndarray
        An integer array of ``x``'s number of dimensions, on ``x``'s device; off
        ``axis`` its shape and ``x``'s broadcast.  Negative indices count from the end.
    axis : int, optional
        The axis to take along (negative counts from the end).  Default -1.

    Returns
    -------
    usm_ndarray
        A new array of ``x``'s dtype and the broadcast shape (``indices``'s length along
        ``axis``), on ``x``'s device with its usm_type.

    Raises
    ------
    TypeError
        ``x`` or ``indices`` is not a ``usm_ndarray``; a non-integer ``indices``.
    ValueError
        ``indices`` of another number of dimensions; shapes that do not broadcast off
        ``axis``.
    IndexError
        An index outside ``[-n, n)`` for an axis of length ``n``; ``axis`` out of range.
    ExecutionPlacementError
        ``indices`` on another device (a subclass of ValueError).
    MemoryError
        The device cannot hold the result.

    See Also
    --------
    [array_api.take_along_axis](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.take_along_axis.html): the standard's specification.
    """
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
        s = rules.signed_indices(be, i)
        checked = be.take_along_axis_checked(a, s, ax)
    except Exception as exc:
        alloc_failed(exc, be, a, i.size * a.itemsize, "take_along_axis")
    if checked is not None:
        out, bad = checked
        if bad is not None:
            raise _refused(be, i, bad, xs[ax], ax, "take_along_axis")
        return wrap_with(be, out)
    if not be.checks_indices:
        rules.check_positions(be, i, xs[ax], ax, "take_along_axis")
    try:
        return wrap_with(be, be.take_along_axis(a, s, axis=ax))
    except Exception as exc:
        if be.checks_indices:  # its gather refused: the check names the index as before
            rules.check_positions(be, i, xs[ax], ax, "take_along_axis")
        shape = [n if m == 1 and k != ax else m for k, (n, m) in enumerate(zip(xs, js, strict=True))]
        alloc_failed(exc, be, a, math.prod(shape) * a.itemsize, "take_along_axis")
