"""Validation shared by every namespace module: array checks, devices, dtype categories.

Each check raises the standard's error type with a message that names the
function, what was wrong and what would be right.  Nothing here allocates; the last
section converts failed allocations into MemoryError naming the size.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _dtypes as dt
from ._array import usm_ndarray
from ._device import placement_error
from ._params import integer


def check_array(x: Any, fname: str, argname: str = "x") -> usm_ndarray:
    if type(x) is not usm_ndarray:
        raise TypeError(
            f"{fname}: {argname} must be a usmarray.usm_ndarray, got {type(x).__name__}; "
            "convert it with usmarray.asarray()"
        )
    return x


def check_arrays(arrays: Any, fname: str) -> list[usm_ndarray]:
    """A non-empty sequence (tuple or list) of arrays on one device."""
    if not isinstance(arrays, (tuple, list)):
        raise TypeError(f"{fname}: expected a tuple or list of arrays, got {type(arrays).__name__}")
    if not arrays:
        raise ValueError(f"{fname}: needs at least one array")
    for i, a in enumerate(arrays):
        check_array(a, fname, f"arrays[{i}]")
    same_device(fname, *arrays)
    return list(arrays)


def same_device(fname: str, *arrays: usm_ndarray) -> None:
    """Compute follows data: every array on one backend and one (equivalent) queue."""
    first = arrays[0]
    be = first._be
    q = be.queue_of(first._arr)
    for other in arrays[1:]:
        if other._be is not be or be.queue_of(other._arr) != q:
            raise placement_error(fname, first.device, other.device)


def check_category(x: usm_ndarray, category: frozenset, catname: str, fname: str) -> np.dtype:
    d = x._arr.dtype
    if d not in category:
        raise TypeError(
            f"{fname} is defined for {catname} dtypes only, got an array of dtype {d}"
        )
    return d


def check_dtype_in(dtype: Any, category: frozenset, catname: str, fname: str) -> np.dtype:
    d = dt.check_dtype(dtype)
    if d not in category:
        raise TypeError(f"{fname}: dtype={d} is not a {catname} dtype")
    return d


def normalize_axis(axis: Any, ndim: int, fname: str) -> int:
    """``axis`` (an integer as ``_params.integer`` takes it) as an axis in ``range(ndim)``;
    IndexError naming the allowed range where it is not in ``-ndim .. ndim - 1``."""
    if type(axis) is not int:
        axis = integer(axis, fname, "axis")
    if not -ndim <= axis < ndim:
        raise IndexError(
            f"{fname}: axis {axis} is out of range for an array of {ndim} dimensions "
            f"(allowed: {-ndim} .. {ndim - 1})"
        )
    return axis % ndim if ndim else 0


def refuse_axis_list(axis: Any, fname: str) -> None:
    """TypeError for a list where an int, a tuple of ints or None is asked (as
    array-api-strict and the standard's signatures), naming the tuple to write."""
    if type(axis) is list:
        raise TypeError(f"{fname}: axis must be an int, a tuple of ints or None, got list; "
                        f"write axis={tuple(axis)!r}")


def normalize_axes(axis: Any, ndim: int, fname: str) -> tuple[int, ...]:
    """``None`` -> all axes; an int or a tuple of ints -> sorted unique normalized axes."""
    if axis is None:
        return tuple(range(ndim))
    refuse_axis_list(axis, fname)
    if isinstance(axis, tuple):
        axes = tuple(normalize_axis(a, max(ndim, 1) if ndim == 0 else ndim, fname) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError(f"{fname}: repeated axis in {axis}")
        return axes
    return (normalize_axis(axis, max(ndim, 1) if ndim == 0 else ndim, fname),)


_COMPLEX_OF = {dt.float32: dt.complex64, dt.float64: dt.complex128}


def broadcast_shape(fname: str, *shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The broadcast of ``shapes`` by the standard's rule; ValueError naming ``fname``,
    every shape and the first dimension that disagrees when they are incompatible."""
    if len(shapes) == 2 and shapes[0] == shapes[1] and type(shapes[0]) is tuple:
        return shapes[0]  # the common case, 1 us cheaper than the loop
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for s in shapes:
        for i, n in enumerate(s, start=ndim - len(s)):
            m = out[i]
            if n == m or n == 1:
                continue
            if m != 1:
                raise ValueError(
                    f"{fname}: shapes {' and '.join(map(str, shapes))} cannot be broadcast "
                    f"together: dimension {i - ndim} is {m} in one and {n} in another (each "
                    "dimension must be equal or 1)"
                )
            out[i] = n
    return tuple(out)


_OPERAND = "a usm_ndarray or a Python bool, int, float or complex"


def not_an_operand(fname: str, value: Any, what: str = "an operand",
                   allowed: str = _OPERAND) -> TypeError:
    """The TypeError for ``value`` given as ``what`` where ``allowed`` goes (a usm_ndarray
    or a Python scalar): what it is (a NumPy array, a list, another library's array),
    and for those the conversion to write."""
    t = type(value)
    if isinstance(value, np.ndarray):
        kind = f"a NumPy array (numpy.{t.__name__})"
    elif t is list or t is tuple:
        kind = f"a Python {t.__name__}"
    elif not isinstance(value, np.generic) and (
            hasattr(value, "__dlpack__") or hasattr(value, "__array_namespace__")):
        kind = f"an array of another library ({t.__module__}.{t.__qualname__})"
    else:
        shown = (f"a NumPy scalar of dtype {value.dtype}, not a standard dtype"
                 if isinstance(value, np.generic) else f"of type {t.__name__}")
        return TypeError(f"{fname}: {what} is {shown}; it must be {allowed}")
    return TypeError(f"{fname}: {what} is {kind}, not {allowed}; convert it first: "
                     "usmarray.asarray(a, device=x.device)")


def check_scalar(dtype: np.dtype, value: Any, fname: str) -> None:
    """The standard's Python-scalar rule for ``value`` meeting an array of ``dtype``
    where the result keeps ``dtype`` (assignment, fill values, bounds); anything but a
    Python scalar is :func:`not_an_operand`."""
    if type(value) not in (bool, int, float, complex):
        raise not_an_operand(fname, value)
    if not dt.scalar_allowed(dtype, value):
        raise TypeError(
            f"{fname}: a Python {type(value).__name__} cannot be combined with an array "
            f"of dtype {dtype} (allowed: bool with bool; int with integer or floating; "
            "float with floating; complex with complex floating)"
        )
    if type(value) is int and dtype in dt.INTEGER:
        dt.check_integer_fits(dtype, value, fname)


def scalar_operand_dtype(dtype: np.dtype, value: Any, fname: str) -> np.dtype:
    """The result dtype of an operator between an array of ``dtype`` and a Python scalar:
    ``dtype`` itself, or (2024.12) the complex dtype of the same precision for a
    complex scalar with a real floating array.  Errors as :func:`check_scalar`."""
    if type(value) is complex and dtype in dt.REAL_FLOATING:
        return _COMPLEX_OF[dtype]
    check_scalar(dtype, value, fname)
    return dtype


def fill_scalar(value: Any, dtype: np.dtype, fname: str) -> Any:
    """The Python scalar ``value`` ready to fill an array of ``dtype`` (``full``,
    ``asarray`` of a scalar), by one rule on every backend: a
    complex value into a real dtype is a TypeError (its imaginary part would be
    dropped); a float into an integer dtype is truncated toward zero as NumPy does, and
    is an OverflowError when the result does not fit (ValueError for NaN) instead of
    wrapping or a provider error."""
    t = type(value)
    if t is complex and dtype not in dt.COMPLEX_FLOATING:
        raise TypeError(
            f"{fname}: a complex fill value {value!r} cannot fill an array of real dtype "
            f"{dtype} (its imaginary part would be lost); use a complex dtype or pass "
            "value.real"
        )
    if t is float and dtype in dt.INTEGER:
        if value != value:
            raise ValueError(f"{fname}: NaN cannot fill an array of integer dtype {dtype}")
        if value in (float("inf"), float("-inf")) or not dt.integer_fits(dtype, int(value)):
            info = np.iinfo(dtype)
            raise OverflowError(
                f"{fname}: {value!r} does not fit integer dtype {dtype} "
                f"(range {info.min} .. {info.max})"
            )
        return int(value)
    return value


# ---- results that do not fit: the backend layer's rules, used by every namespace module
from ._backend._errors import MAX_NBYTES, alloc_failed, check_nbytes  # noqa: E402

__all__ = [
    "refuse_axis_list",
    "broadcast_shape",
    "MAX_NBYTES", "alloc_failed", "check_array", "check_arrays",
    "check_category",
    "check_dtype_in", "check_nbytes", "check_scalar", "fill_scalar", "normalize_axes", "normalize_axis",
    "not_an_operand",
    "same_device", "scalar_operand_dtype",
]
