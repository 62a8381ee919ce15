"""Set functions (array API 2025.12): isin, unique_all, unique_counts, unique_inverse,
unique_values.

Uniqueness is value equality: every NaN (and every complex value with a NaN
component) is its own unique value with a count of one; -0 and +0 are one value.
The provider already keeps NaNs distinct in ``values``/``counts`` but maps every NaN
of ``x`` to one NaN entry in ``inverse_indices``; :func:`_distinct_nans` gives each
NaN of ``x`` its own entry (and makes ``indices`` point at it), unless the backend's
own result already does (``unique_nans_apart``).
"""

from __future__ import annotations

from typing import Any, NamedTuple, cast

from . import _dtypes as dt
from ._array import usm_ndarray, wrap_with
from ._data_type_functions import scalar_result_dtype
from ._device import placement_error
from ._helpers import alloc_failed
from ._statistical import check_bool, check_x

__all__ = ["isin", "unique_all", "unique_counts", "unique_inverse", "unique_values"]

_INDEX = dt.int64
_PROMOTION = dt.PROMOTION_TABLE


class UniqueAllResult(NamedTuple):
    values: usm_ndarray
    indices: usm_ndarray
    inverse_indices: usm_ndarray
    counts: usm_ndarray


class UniqueCountsResult(NamedTuple):
    values: usm_ndarray
    counts: usm_ndarray


class UniqueInverseResult(NamedTuple):
    values: usm_ndarray
    inverse_indices: usm_ndarray


def _index(be: Any, r: Any) -> Any:
    return r if r.dtype is _INDEX else be.astype(r, _INDEX)


def _distinct_nans(be: Any, a: Any, values: Any, inverse: Any, indices: Any) -> Any:
    """Point each NaN of ``a`` at its own NaN entry of ``values`` (in place for
    ``values``/``indices``; returns the corrected inverse)."""
    flat = a if a.ndim == 1 else be.reshape(a, (a.size,))
    vmask = be.isnan(values)
    (vpos,) = be.nonzero(vmask)
    n = vpos.shape[0]
    if n == 0:
        return inverse
    (xpos,) = be.nonzero(be.isnan(flat))
    if xpos.shape[0] != n:  # pragma: no cover - the provider keeps NaNs distinct
        return inverse
    xpos = _index(be, xpos)
    vpos = _index(be, vpos)
    values[vpos] = be.take(flat, xpos)
    if indices is not None:
        indices[vpos] = xpos
    inv = be.copy(be.reshape(inverse, (inverse.size,)))
    inv[xpos] = vpos
    return be.reshape(inv, inverse.shape)


def _unique_input(x: Any, fname: str) -> Any:
    return check_x(x, fname, dt.ANY, "any")


def unique_values(x: usm_ndarray, /) -> usm_ndarray:
    """The distinct elements of ``x``, sorted, as a 1-D array.

    Parameters
    ----------
    x : usm_ndarray
        Array of any dtype and shape (it is flattened).

    Returns
    -------
    usm_ndarray
        A 1-D array of ``x``'s dtype, on ``x``'s device with its usm_type.  Every NaN is
        its own distinct value; ``-0.0`` and ``+0.0`` are one value.  Its length depends
        on the data, so the call waits for the device.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Unlike NumPy's ``unique``, usmarray counts every NaN separately (NumPy's
    ``equal_nan=True`` default merges them) and has no ``axis=`` or ``return_*``
    keywords: the standard splits those into ``unique_all``, ``unique_counts`` and
    ``unique_inverse``.

    See Also
    --------
    [array_api.unique_values](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.unique_values.html): the standard's specification.
    """
    a = _unique_input(x, "unique_values")
    be = x._be
    try:
        return wrap_with(be, be.unique_values(a))
    except Exception as exc:
        alloc_failed(exc, be, a, a.size * a.itemsize, "unique_values")


def unique_counts(x: usm_ndarray, /) -> UniqueCountsResult:
    """The distinct elements of ``x`` and how often each occurs.

    Parameters
    ----------
    x : usm_ndarray
        Array of any dtype and shape (it is flattened).

    Returns
    -------
    tuple of (values, counts)
        A named tuple: ``values``, the sorted distinct elements as in ``unique_values``
        (every NaN distinct, with count one; ``-0.0`` and ``+0.0`` one value), and
        ``counts``, int64 counts of the same length; on ``x``'s device with its
        usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``.
    MemoryError
        The device cannot hold the result.

    See Also
    --------
    [array_api.unique_counts](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.unique_counts.html): the standard's specification.
    """
    a = _unique_input(x, "unique_counts")
    be = x._be
    try:
        r = be.unique_counts(a)
        return UniqueCountsResult(wrap_with(be, r.values), wrap_with(be, _index(be, r.counts)))
    except Exception as exc:
        alloc_failed(exc, be, a, a.size * a.itemsize, "unique_counts")


def unique_inverse(x: usm_ndarray, /) -> UniqueInverseResult:
    """The distinct elements of ``x`` and, per element of ``x``, the index of its value
    among them.

    Parameters
    ----------
    x : usm_ndarray
        Array of any dtype and shape.

    Returns
    -------
    tuple of (values, inverse_indices)
        A named tuple: ``values``, as in ``unique_values``, and ``inverse_indices``,
        int64 of ``x``'s shape, such that ``take(values, reshape(inverse_indices,
        (-1,)))`` rebuilds ``x`` (up to the sign of zeros); each NaN of ``x`` points at
        its own NaN of ``values``.  On ``x``'s device with its usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``.
    MemoryError
        The device cannot hold the result.

    See Also
    --------
    [array_api.unique_inverse](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.unique_inverse.html): the standard's specification.
    """
    a = _unique_input(x, "unique_inverse")
    be = x._be
    try:
        r = be.unique_inverse(a)
        values, inverse = r.values, _index(be, r.inverse_indices)
        if a.dtype in dt.FLOATING and a.size and not be.unique_nans_apart(a):
            inverse = _distinct_nans(be, a, values, inverse, None)
    except Exception as exc:
        alloc_failed(exc, be, a, a.size * 8, "unique_inverse")
    if inverse.shape != a.shape:
        inverse = be.reshape(inverse, a.shape)
    return UniqueInverseResult(wrap_with(be, values), wrap_with(be, inverse))


def unique_all(x: usm_ndarray, /) -> UniqueAllResult:
    """The distinct elements of ``x``, the flat index of each one's first occurrence, the
    inverse indices and the counts.

    Parameters
    ----------
    x : usm_ndarray
        Array of any dtype and shape.

    Returns
    -------
    tuple of (values, indices, inverse_indices, counts)
        A named tuple: ``values`` as in ``unique_values``; ``indices``, int64 flat
        indices into ``x`` of each value's first occurrence; ``inverse_indices`` as in
        ``unique_inverse``; ``counts`` as in ``unique_counts``.  On ``x``'s device with
        its usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``.
    MemoryError
        The device cannot hold the result.

    See Also
    --------
    [array_api.unique_all](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.unique_all.html): the standard's specification.
    """
    a = _unique_input(x, "unique_all")
    be = x._be
    try:
        r = be.unique_all(a)
        values = r.values
        indices = _index(be, r.indices)
        inverse = _index(be, r.inverse_indices)
        if a.dtype in dt.FLOATING and a.size and not be.unique_nans_apart(a):
            if indices is r.indices:
                indices = be.copy(indices)
            inverse = _distinct_nans(be, a, values, inverse, indices)
    except Exception as exc:
        alloc_failed(exc, be, a, a.size * 8, "unique_all")
    if inverse.shape != a.shape:
        inverse = be.reshape(inverse, a.shape)
    return UniqueAllResult(
        wrap_with(be, values),
        wrap_with(be, indices),
        wrap_with(be, inverse),
        wrap_with(be, _index(be, r.counts)),
    )


# ---- isin ---------------------------------------------------------------------------------
def _isin_operand(obj: Any, argname: str) -> Any:
    if type(obj) is usm_ndarray:
        d = obj._arr.dtype
        if d not in dt.INTEGER:
            raise TypeError(
                f"isin is defined for integer dtypes only, got {argname} of dtype {d}"
            )
        return obj._arr
    if type(obj) is not int:
        raise TypeError(
            f"isin: {argname} must be a usmarray.usm_ndarray of integer dtype or a Python "
            f"int, got {type(obj).__name__}"
        )
    return None


def isin(x1: usm_ndarray | int, x2: usm_ndarray | int, /, *, invert: bool = False) -> usm_ndarray:
    """For each element of ``x1``, whether it equals some element of ``x2``.

    Parameters
    ----------
    x1 : usm_ndarray or int
        The elements to test: an array of an integer dtype, or a Python int.
    x2 : usm_ndarray or int
        The elements to test against: an array of an integer dtype on ``x1``'s device,
        or a Python int.  At most one of the two may be a Python int; it takes the
        array's dtype (and must fit it).
    invert : bool, optional
        Answer whether each element of ``x1`` equals no element of ``x2`` instead.

    Returns
    -------
    usm_ndarray
        A bool array of ``x1``'s shape, on the arrays' device.

    Raises
    ------
    TypeError
        An array of a non-integer dtype; an operand that is neither a ``usm_ndarray``
        nor a Python int (a list, a NumPy array); two Python ints; integer dtypes the
        standard does not promote (uint64 with a signed integer); ``invert`` not True or
        False.
    OverflowError
        A Python int outside the range of the array's dtype.
    ExecutionPlacementError
        Arrays on different devices (a subclass of ValueError).
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Unlike NumPy, usmarray takes integer dtypes only and refuses lists, NumPy arrays and
    ``assume_unique=`` and ``kind=``.

    See Also
    --------
    [array_api.isin](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.isin.html): the standard's specification.
    """
    invert = check_bool(invert, "isin", "invert")
    a1 = _isin_operand(x1, "x1")
    a2 = _isin_operand(x2, "x2")
    if a1 is not None:
        u1 = cast(usm_ndarray, x1)  # a non-None operand array means an usm_ndarray
        be = u1._be
        if a2 is not None:
            u2 = cast(usm_ndarray, x2)
            if u2._be is not be or be.queue_of(a2) != be.queue_of(a1):
                raise placement_error("isin", u1.device, u2.device)
            d1, d2 = a1.dtype, a2.dtype
            d: Any = _PROMOTION.get((d1, d2))
            if d is None:
                dt.promote(d1, d2, "isin")
        else:
            d = scalar_result_dtype(a1.dtype, x2, "isin")
            a2 = be.full((), x2, dtype=d, usm_type=be.usm_type_of(a1), queue=be.queue_of(a1))
    elif a2 is not None:
        be = cast(usm_ndarray, x2)._be
        d = scalar_result_dtype(a2.dtype, x1, "isin")
        a1 = be.full((), x1, dtype=d, usm_type=be.usm_type_of(a2), queue=be.queue_of(a2))
    else:
        raise TypeError("isin: at least one of x1 and x2 must be a usmarray.usm_ndarray")
    try:
        if a1.dtype is not d:
            a1 = be.astype(a1, d)
        if a2.dtype is not d:
            a2 = be.astype(a2, d)
        return wrap_with(be, be.isin(a1, a2, invert=invert))
    except Exception as exc:
        # the result holds a1.size bools; a failed cast of a1 asked for more
        alloc_failed(exc, be, a1, a1.size * (1 if a1.dtype is d else d.itemsize), "isin")
