"""Statistical functions (array API 2025.12): reductions and cumulative reductions.

The namespace decides every result dtype (the standard's ``dtype=None`` rules for
sum, prod and the cumulative functions) and passes it to the provider explicitly.
"""

from __future__ import annotations

import math
from typing import Any

from . import _dtypes as dt
from . import _trace
from ._array import usm_ndarray, wrap_with
from ._helpers import alloc_failed, normalize_axis, refuse_axis_list
from ._params import flag, real

__all__ = [
    "cumulative_prod", "cumulative_sum", "max", "mean", "min", "prod", "std", "sum", "var",
]

#: dtype=None result of sum/prod/cumulative_*: small integers widen to the default
#: integer (signed) or its unsigned counterpart; every other dtype is kept
_ACCUMULATE_DEFAULT = {
    dt.int8: dt.int64, dt.int16: dt.int64, dt.int32: dt.int64, dt.int64: dt.int64,
    dt.uint8: dt.uint64, dt.uint16: dt.uint64, dt.uint32: dt.uint64, dt.uint64: dt.uint64,
    dt.float32: dt.float32, dt.float64: dt.float64,
    dt.complex64: dt.complex64, dt.complex128: dt.complex128,
}


# ---- shared validation (also used by searching and utility functions) ---------------------
def check_x(x: Any, fname: str, category: frozenset, catname: str) -> Any:
    if type(x) is not usm_ndarray:
        raise TypeError(
            f"{fname}: x must be a usmarray.usm_ndarray, got {type(x).__name__}; "
            "convert it with usmarray.asarray()"
        )
    a = x._arr
    if a.dtype not in category:
        raise TypeError(f"{fname} is defined for {catname} dtypes only, got dtype {a.dtype}")
    return a


def check_bool(value: Any, fname: str, argname: str) -> bool:
    """``value`` as True or False (``np.True_`` too: ``_params.flag``); else TypeError."""
    return value if value is True or value is False else flag(value, fname, argname)


def reduction_axes(axis: Any, ndim: int, fname: str) -> tuple[int, ...] | None:
    """None (all axes), an int or a tuple of ints -> None or normalized unique axes."""
    if axis is None:
        return None
    if type(axis) is tuple:
        axes = tuple([normalize_axis(ax, ndim, fname) for ax in axis])
        if len(set(axes)) != len(axes):
            raise ValueError(f"{fname}: repeated axis in axis={axis}")
        return axes
    refuse_axis_list(axis, fname)  # only past the common cases
    return (normalize_axis(axis, ndim, fname),)


def reduced_size(a: Any, axes: tuple[int, ...] | None) -> int:
    if axes is None:
        return a.size
    shape = a.shape
    n = 1
    for ax in axes:
        n *= shape[ax]
    return n


def kept_size(a: Any, axes: tuple[int, ...] | None) -> int:
    """The number of elements a reduction of ``a`` over ``axes`` returns."""
    if axes is None:
        return 1
    return math.prod([n for i, n in enumerate(a.shape) if i not in axes])


def _sum_dtype(a: Any, dtype: Any, fname: str) -> Any:
    if dtype is None:
        return _ACCUMULATE_DEFAULT[a.dtype]
    d = dt.check_dtype(dtype)
    if d not in dt.NUMERIC:
        raise TypeError(f"{fname}: dtype={d} is not a numeric dtype")
    if a.dtype in dt.COMPLEX_FLOATING and d not in dt.COMPLEX_FLOATING:
        raise TypeError(
            f"{fname}: dtype={d} would discard the imaginary part of a {a.dtype} array; "
            "use a complex dtype"
        )
    return d


# ---- sum / prod -------------------------------------------------------------------------------
def _sum_prod(fname: str, x: Any, axis: Any, dtype: Any, keepdims: Any) -> usm_ndarray:
    a = check_x(x, fname, dt.NUMERIC, "numeric")
    keepdims = check_bool(keepdims, fname, "keepdims")
    axes = reduction_axes(axis, a.ndim, fname)
    d = _sum_dtype(a, dtype, fname)
    be = x._be
    try:
        if axes == ():
            return wrap_with(be, be.astype(a, d, copy=True))
        return wrap_with(be, getattr(be, fname)(a, axis=axes, dtype=d, keepdims=keepdims))
    except Exception as exc:
        alloc_failed(exc, be, a, kept_size(a, axes) * d.itemsize, fname)


def sum(  # noqa: A001 - the standard's name
    x: usm_ndarray,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    dtype: Any = None,
    keepdims: bool = False,
) -> usm_ndarray:
    """Sum of the elements of ``x`` over ``axis``.

    Parameters
    ----------
    x : usm_ndarray
        Array of a numeric dtype (not bool).
    axis : int or tuple of int, optional
        The axes to reduce (negative counts from the end); None: every axis; ``()``: no
        axis (each element is its own sum).
    dtype : DType, optional
        The accumulation and result dtype, numeric; None: ``x``'s dtype, except that
        signed integers accumulate in int64 and unsigned ones in uint64.
    keepdims : bool, optional
        Keep the reduced axes as axes of size one.

    Returns
    -------
    usm_ndarray
        The sums (0 for an empty reduction), on ``x``'s device with its usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; a bool dtype; a ``dtype`` that is not numeric or
        that would drop a complex ``x``'s imaginary part; ``axis`` is a list (write a
        tuple); ``keepdims`` not True or False.
    ValueError
        A repeated axis.
    IndexError
        An axis out of range.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Unlike NumPy, usmarray refuses bool arrays (cast them first, or use
    ``count_nonzero``), lists of axes and ``out=``, ``initial=`` and ``where=``.

    See Also
    --------
    [array_api.sum](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.sum.html): the standard's specification.
    """
    res = _sum_prod("sum", x, axis, dtype, keepdims)
    if _trace.ACTIVE:
        _trace.note("sum", (x,), res, axis, dtype, keepdims)
    return res


def prod(
    x: usm_ndarray,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    dtype: Any = None,
    keepdims: bool = False,
) -> usm_ndarray:
    """Product of the elements of ``x`` over ``axis``.

    Parameters
    ----------
    x : usm_ndarray
        Array of a numeric dtype (not bool).
    axis : int or tuple of int, optional
        The axes to reduce (negative counts from the end); None: every axis; ``()``: no
        axis.
    dtype : DType, optional
        The accumulation and result dtype, numeric; None: ``x``'s dtype, except that
        signed integers accumulate in int64 and unsigned ones in uint64.
    keepdims : bool, optional
        Keep the reduced axes as axes of size one.

    Returns
    -------
    usm_ndarray
        The products (1 for an empty reduction), on ``x``'s device with its usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; a bool dtype; a ``dtype`` that is not numeric or
        that would drop a complex ``x``'s imaginary part; ``axis`` is a list;
        ``keepdims`` not True or False.
    ValueError
        A repeated axis.
    IndexError
        An axis out of range.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Unlike NumPy, usmarray refuses bool arrays, lists of axes and ``out=``,
    ``initial=`` and ``where=``.

    See Also
    --------
    [array_api.prod](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.prod.html): the standard's specification.
    """
    res = _sum_prod("prod", x, axis, dtype, keepdims)
    if _trace.ACTIVE:
        _trace.note("prod", (x,), res, axis, dtype, keepdims)
    return res


# ---- max / min ----------------------------------------------------------------------------------
def _extremum(fname: str, x: Any, axis: Any, keepdims: Any) -> usm_ndarray:
    a = check_x(x, fname, dt.REAL_NUMERIC, "real numeric")
    keepdims = check_bool(keepdims, fname, "keepdims")
    axes = reduction_axes(axis, a.ndim, fname)
    if reduced_size(a, axes) == 0:
        raise ValueError(
            f"{fname}: the reduction runs over zero elements (shape {a.shape}, "
            f"axis={axis}) and has no identity"
        )
    be = x._be
    try:
        if axes == ():
            return wrap_with(be, be.copy(a))
        return wrap_with(be, getattr(be, fname)(a, axis=axes, keepdims=keepdims))
    except Exception as exc:
        alloc_failed(exc, be, a, kept_size(a, axes) * a.itemsize, fname)


def max(  # noqa: A001 - the standard's name
    x: usm_ndarray, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False
) -> usm_ndarray:
    """Largest element of ``x`` over ``axis``; NaN where a NaN is among them.

    Parameters
    ----------
    x : usm_ndarray
        Array of a real numeric dtype (an integer or real floating dtype).
    axis : int or tuple of int, optional
        The axes to reduce (negative counts from the end); None: every axis.
    keepdims : bool, optional
        Keep the reduced axes as axes of size one.

    Returns
    -------
    usm_ndarray
        The maxima, of ``x``'s dtype, on ``x``'s device with its usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; a bool or complex dtype; ``axis`` is a list;
        ``keepdims`` not True or False.
    ValueError
        A reduction over zero elements (there is no identity); a repeated axis.
    IndexError
        An axis out of range.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Unlike NumPy, usmarray refuses bool and complex arrays and ``out=``, ``initial=`` and
    ``where=``.

    See Also
    --------
    [array_api.max](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.max.html): the standard's specification.
    """
    res = _extremum("max", x, axis, keepdims)
    if _trace.ACTIVE:
        _trace.note("max", (x,), res, axis, keepdims)
    return res


def min(  # noqa: A001 - the standard's name
    x: usm_ndarray, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False
) -> usm_ndarray:
    """Smallest element of ``x`` over ``axis``; NaN where a NaN is among them.

    Parameters
    ----------
    x : usm_ndarray
        Array of a real numeric dtype (an integer or real floating dtype).
    axis : int or tuple of int, optional
        The axes to reduce (negative counts from the end); None: every axis.
    keepdims : bool, optional
        Keep the reduced axes as axes of size one.

    Returns
    -------
    usm_ndarray
        The minima, of ``x``'s dtype, on ``x``'s device with its usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; a bool or complex dtype; ``axis`` is a list;
        ``keepdims`` not True or False.
    ValueError
        A reduction over zero elements (there is no identity); a repeated axis.
    IndexError
        An axis out of range.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Unlike NumPy, usmarray refuses bool and complex arrays and ``out=``, ``initial=`` and
    ``where=``.

    See Also
    --------
    [array_api.min](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.min.html): the standard's specification.
    """
    res = _extremum("min", x, axis, keepdims)
    if _trace.ACTIVE:
        _trace.note("min", (x,), res, axis, keepdims)
    return res


# ---- mean / var / std ----------------------------------------------------------------------------
def mean(
    x: usm_ndarray, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False
) -> usm_ndarray:
    """Arithmetic mean of the elements of ``x`` over ``axis``.

    Parameters
    ----------
    x : usm_ndarray
        Array of a floating-point dtype (float32, float64, complex64 or complex128).
    axis : int or tuple of int, optional
        The axes to reduce (negative counts from the end); None: every axis.
    keepdims : bool, optional
        Keep the reduced axes as axes of size one.

    Returns
    -------
    usm_ndarray
        The means, of ``x``'s dtype (NaN for an empty reduction), on ``x``'s device with
        its usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; an integer or bool dtype; ``axis`` is a list;
        ``keepdims`` not True or False.
    ValueError
        A repeated axis.
    IndexError
        An axis out of range.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Unlike NumPy, usmarray refuses integer and bool arrays (NumPy averages them in
    float64; cast first with ``usmarray.astype``) and ``dtype=``, ``out=`` and ``where=``.

    See Also
    --------
    [array_api.mean](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.mean.html): the standard's specification.
    """
    a = check_x(x, "mean", dt.FLOATING, "floating-point")
    keepdims = check_bool(keepdims, "mean", "keepdims")
    axes = reduction_axes(axis, a.ndim, "mean")
    be = x._be
    try:
        if axes == ():
            return wrap_with(be, be.copy(a))
        res = wrap_with(be, be.mean(a, axis=axes, keepdims=keepdims))
    except Exception as exc:
        alloc_failed(exc, be, a, kept_size(a, axes) * a.itemsize, "mean")
    if _trace.ACTIVE:
        _trace.note("mean", (x,), res, axis, keepdims)
    return res


def _moment(fname: str, x: Any, axis: Any, correction: Any, keepdims: Any) -> usm_ndarray:
    a = check_x(x, fname, dt.REAL_FLOATING, "real floating-point")
    keepdims = check_bool(keepdims, fname, "keepdims")
    correction = real(correction, fname, "correction")
    axes = reduction_axes(axis, a.ndim, fname)
    be = x._be
    try:
        if axes == ():
            # a reduction over no axes: every group holds one element, so M - correction
            # is 1 - correction and each deviation is x - x (NaN for NaN or infinite x)
            nan = float("nan")
            if 1 - correction <= 0:
                out = be.full(a.shape, nan, dtype=a.dtype, usm_type=be.usm_type_of(a),
                              queue=be.queue_of(a))
            else:
                out = be.subtract(a, a)  # 0, or NaN where x is NaN or infinite
            return wrap_with(be, out)
        return wrap_with(
            be, getattr(be, fname)(a, axis=axes, correction=float(correction), keepdims=keepdims)
        )
    except Exception as exc:
        alloc_failed(exc, be, a, kept_size(a, axes) * a.itemsize, fname)


def var(
    x: usm_ndarray,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    correction: int | float = 0.0,
    keepdims: bool = False,
) -> usm_ndarray:
    """Variance of the elements of ``x`` over ``axis``: the summed squared deviations from
    the mean, divided by ``N - correction``.

    Parameters
    ----------
    x : usm_ndarray
        Array of a real floating-point dtype (float32 or float64).
    axis : int or tuple of int, optional
        The axes to reduce (negative counts from the end); None: every axis.
    correction : int or float, optional
        Subtracted from the number of elements ``N`` in the divisor: 0 (default) for the
        population variance, 1 for the sample variance.  NaN where ``N - correction`` is
        not positive.
    keepdims : bool, optional
        Keep the reduced axes as axes of size one.

    Returns
    -------
    usm_ndarray
        The variances, of ``x``'s dtype, on ``x``'s device with its usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; an integer, bool or complex dtype;
        ``correction`` not an int or float; ``axis`` is a list; ``keepdims`` not True or
        False.
    ValueError
        A repeated axis.
    IndexError
        An axis out of range.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Unlike NumPy, usmarray refuses integer, bool and complex arrays, ``ddof=`` (write
    ``correction=``) and ``dtype=``, ``out=``, ``mean=`` and ``where=``.

    See Also
    --------
    [array_api.var](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.var.html): the standard's specification.
    """
    return _moment("var", x, axis, correction, keepdims)


def std(
    x: usm_ndarray,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    correction: int | float = 0.0,
    keepdims: bool = False,
) -> usm_ndarray:
    """Standard deviation of the elements of ``x`` over ``axis``: the square root of ``var``
    with the same ``correction``.

    Parameters
    ----------
    x : usm_ndarray
        Array of a real floating-point dtype (float32 or float64).
    axis : int or tuple of int, optional
        The axes to reduce (negative counts from the end); None: every axis.
    correction : int or float, optional
        Subtracted from the number of elements ``N`` in the divisor: 0 (default) for the
        population value, 1 for the sample value.  NaN where ``N - correction`` is not
        positive.
    keepdims : bool, optional
        Keep the reduced axes as axes of size one.

    Returns
    -------
    usm_ndarray
        The standard deviations, of ``x``'s dtype, on ``x``'s device with its usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; an integer, bool or complex dtype;
        ``correction`` not an int or float; ``axis`` is a list; ``keepdims`` not True or
        False.
    ValueError
        A repeated axis.
    IndexError
        An axis out of range.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Unlike NumPy, usmarray refuses integer, bool and complex arrays, ``ddof=`` (write
    ``correction=``) and ``dtype=``, ``out=``, ``mean=`` and ``where=``.

    See Also
    --------
    [array_api.std](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.std.html): the standard's specification.
    """
    return _moment("std", x, axis, correction, keepdims)


# ---- cumulative ------------------------------------------------------------------------------------
def _cumulative(fname: str, x: Any, axis: Any, dtype: Any, include_initial: Any) -> usm_ndarray:
    a = check_x(x, fname, dt.NUMERIC, "numeric")
    include_initial = check_bool(include_initial, fname, "include_initial")
    nd = a.ndim
    if nd == 0:
        raise ValueError(f"{fname}: x must have at least one dimension, got a 0-D array")
    if axis is None:
        if nd > 1:
            raise ValueError(
                f"{fname}: axis is required for an array of {nd} dimensions "
                "(it may be omitted for 1-D arrays only)"
            )
        ax = 0
    else:
        ax = normalize_axis(axis, nd, fname)
    d = _sum_dtype(a, dtype, fname)
    be = x._be
    try:
        return wrap_with(
            be, getattr(be, fname)(a, axis=ax, dtype=d, include_initial=include_initial)
        )
    except Exception as exc:
        count = kept_size(a, (ax,)) * (a.shape[ax] + include_initial)
        alloc_failed(exc, be, a, count * d.itemsize, fname)


def cumulative_sum(
    x: usm_ndarray,
    /,
    *,
    axis: int | None = None,
    dtype: Any = None,
    include_initial: bool = False,
) -> usm_ndarray:
    """Running sums of ``x`` along ``axis``: element ``i`` is the sum of elements ``0..i``.

    Parameters
    ----------
    x : usm_ndarray
        Array of a numeric dtype (not bool), of at least one dimension.
    axis : int, optional
        The axis to accumulate along (negative counts from the end); may be omitted for
        a 1-D ``x`` only.
    dtype : DType, optional
        The accumulation and result dtype, numeric; None: ``x``'s dtype, except that
        signed integers accumulate in int64 and unsigned ones in uint64.
    include_initial : bool, optional
        Start with the sum of no element, 0: the result is one longer along ``axis``.

    Returns
    -------
    usm_ndarray
        The running sums, on ``x``'s device with its usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; a bool dtype; a ``dtype`` that is not numeric or
        that would drop a complex ``x``'s imaginary part; ``include_initial`` not True or
        False.
    ValueError
        A 0-D ``x``; no ``axis`` for an ``x`` of more than one dimension.
    IndexError
        ``axis`` out of range.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Unlike NumPy's ``cumsum``, usmarray never flattens an array of several dimensions
    unasked, and refuses bool arrays and ``out=``.

    See Also
    --------
    [array_api.cumulative_sum](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.cumulative_sum.html): the standard's specification.
    """
    return _cumulative("cumulative_sum", x, axis, dtype, include_initial)


def cumulative_prod(
    x: usm_ndarray,
    /,
    *,
    axis: int | None = None,
    dtype: Any = None,
    include_initial: bool = False,
) -> usm_ndarray:
    """Running products of ``x`` along ``axis``: element ``i`` is the product of elements
    ``0..i``.

    Parameters
    ----------
    x : usm_ndarray
        Array of a numeric dtype (not bool), of at least one dimension.
    axis : int, optional
        The axis to accumulate along (negative counts from the end); may be omitted for
        a 1-D ``x`` only.
    dtype : DType, optional
        The accumulation and result dtype, numeric; None: ``x``'s dtype, except that
        signed integers accumulate in int64 and unsigned ones in uint64.
    include_initial : bool, optional
        Start with the product of no element, 1: the result is one longer along
        ``axis``.

    Returns
    -------
    usm_ndarray
        The running products, on ``x``'s device with its usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; a bool dtype; a ``dtype`` that is not numeric or
        that would drop a complex ``x``'s imaginary part; ``include_initial`` not True or
        False.
    ValueError
        A 0-D ``x``; no ``axis`` for an ``x`` of more than one dimension.
    IndexError
        ``axis`` out of range.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Unlike NumPy's ``cumprod``, usmarray never flattens an array of several dimensions
    unasked, and refuses bool arrays and ``out=``.

    See Also
    --------
    [array_api.cumulative_prod](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.cumulative_prod.html): the standard's specification.
    """
    return _cumulative("cumulative_prod", x, axis, dtype, include_initial)
