"""Sorting functions (array API 2025.12): argsort, sort.

Ascending order puts NaN last, descending order puts it first; ``stable=True``
keeps equal elements in their original relative order in both directions.
"""

from __future__ import annotations

from typing import Any

from . import _dtypes as dt
from ._array import usm_ndarray, wrap_with
from ._helpers import alloc_failed, normalize_axis
from ._statistical import check_bool, check_x

__all__ = ["argsort", "sort"]

_INDEX = dt.int64


def _prepare(fname: str, x: Any, axis: Any, descending: Any,
             stable: Any) -> tuple[Any, int, bool, bool]:
    a = check_x(x, fname, dt.REAL_NUMERIC, "real numeric")
    descending = check_bool(descending, fname, "descending")
    stable = check_bool(stable, fname, "stable")
    return a, normalize_axis(axis, a.ndim, fname), descending, stable


def argsort(
    x: usm_ndarray, /, *, axis: int = -1, descending: bool = False, stable: bool = True
) -> usm_ndarray:
    """Indices that sort ``x`` along ``axis``.

    Parameters
    ----------
    x : usm_ndarray
        Array of a real numeric dtype (an integer or real floating dtype).
    axis : int, optional
        The axis to sort along (negative counts from the end).  Default -1.
    descending : bool, optional
        Sort in descending order.
    stable : bool, optional
        Keep equal elements in their original relative order (default True); False
        allows any order among them.

    Returns
    -------
    usm_ndarray
        int64 indices of ``x``'s shape, on ``x``'s device with its usm_type.  NaN sorts
        last in ascending order, first in descending order.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; a bool or complex dtype; ``descending`` or
        ``stable`` not True or False.
    IndexError
        ``axis`` out of range (a 0-D ``x`` has no axis).
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Unlike NumPy, usmarray refuses ``kind=`` and ``order=`` (write ``stable=True``), bool
    and complex arrays, and ``axis=None``.

    See Also
    --------
    [array_api.argsort](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.argsort.html): the standard's specification.
    """
    a, ax, descending, stable = _prepare("argsort", x, axis, descending, stable)
    be = x._be
    try:
        out = be.argsort(a, axis=ax, descending=descending, stable=stable)
        if out.dtype is not _INDEX:
            out = be.astype(out, _INDEX)
    except Exception as exc:
        alloc_failed(exc, be, a, a.size * 8, "argsort")
    return wrap_with(be, out)


def sort(
    x: usm_ndarray, /, *, axis: int = -1, descending: bool = False, stable: bool = True
) -> usm_ndarray:
    """A sorted copy of ``x`` along ``axis``.

    Parameters
    ----------
    x : usm_ndarray
        Array of a real numeric dtype (an integer or real floating dtype).
    axis : int, optional
        The axis to sort along (negative counts from the end).  Default -1.
    descending : bool, optional
        Sort in descending order.
    stable : bool, optional
        Keep equal elements in their original relative order (default True); False
        allows any order among them.

    Returns
    -------
    usm_ndarray
        A new array of ``x``'s shape and dtype, on ``x``'s device with its usm_type.
        NaN sorts last in ascending order, first in descending order.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; a bool or complex dtype; ``descending`` or
        ``stable`` not True or False.
    IndexError
        ``axis`` out of range (a 0-D ``x`` has no axis).
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Unlike NumPy, usmarray refuses ``kind=`` and ``order=`` (write ``stable=True``), bool
    and complex arrays, and ``axis=None``.

    See Also
    --------
    [array_api.sort](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.sort.html): the standard's specification.
    """
    a, ax, descending, stable = _prepare("sort", x, axis, descending, stable)
    be = x._be
    try:
        return wrap_with(be, be.sort(a, axis=ax, descending=descending, stable=stable))
    except Exception as exc:
        alloc_failed(exc, be, a, a.size * a.itemsize, "sort")
