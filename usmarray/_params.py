"""Parameters that are not arrays: integers, tuples of integers, flags and real numbers,
checked one way by every function of the namespace, ``linalg`` and ``fft``.

The rule is "as strict as array-api-strict, no stricter".  Where the standard types a
parameter ``int``, a client's integer is whatever ``operator.index`` accepts: a Python
int, a NumPy integer (``np.int64(1)`` from ``x.shape`` arithmetic on NumPy values), a
0-D integer array (read on the host).  A bool is not an integer here (``axis=True``
is a mistake more often than a 1).  A flag is True or False, NumPy's ``np.True_``
included.  A real number is a Python int or float, a NumPy integer or floating scalar,
or a 0-D real array, as its Python value.  Each check raises TypeError naming the
function, the parameter, what it got and what it takes; range checks stay with the
functions.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ._array import usm_ndarray

_INTEGER = "an int (a Python int, a NumPy integer or a 0-D integer array)"


def _got(value: Any) -> str:
    t = type(value)
    if t is usm_ndarray:
        return f"a usm_ndarray of dtype {value.dtype} and shape {value.shape}"
    if isinstance(value, np.ndarray):
        return f"a NumPy array of dtype {value.dtype} and shape {value.shape}"
    if isinstance(value, np.generic):
        return f"numpy.{t.__name__}"
    return t.__name__


def integer(value: Any, fname: str, name: str) -> int:
    """``value`` as a Python int: a Python int, a NumPy integer or a 0-D integer array
    (anything ``operator.index`` takes but a bool); else TypeError."""
    if type(value) is int:
        return value
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{fname}: {name} must be {_INTEGER}, got a bool; "
                        f"write {int(value)} if that is meant")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{fname}: {name} must be {_INTEGER}, got {_got(value)}") from None


def integers(value: Any, fname: str, name: str, *, lists: bool = False) -> tuple[int, ...]:
    """A tuple of integers (each as ``integer`` takes it) as a tuple of Python ints; a
    list too where ``lists`` (where array-api-strict takes one)."""
    if type(value) is tuple or lists and type(value) is list:
        return tuple([integer(v, fname, f"each entry of {name}") for v in value])
    takes = "a tuple or list of ints" if lists else "a tuple of ints"
    hint = f"; write {name}={tuple(value)!r}" if type(value) is list else ""
    raise TypeError(f"{fname}: {name} must be {takes}, got {_got(value)}{hint}")


def int_or_ints(value: Any, fname: str, name: str, *,
                lists: bool = False) -> int | tuple[int, ...]:
    """An integer, or a tuple (a list where ``lists``) of integers."""
    if type(value) is tuple or type(value) is list:
        return integers(value, fname, name, lists=lists)
    try:
        return integer(value, fname, name)
    except TypeError:
        if isinstance(value, (bool, np.bool_)):
            raise
        takes = "a tuple or list" if lists else "a tuple"
        raise TypeError(f"{fname}: {name} must be {_INTEGER} or {takes} of ints, got "
                        f"{_got(value)}") from None


def flag(value: Any, fname: str, name: str) -> bool:
    """True or False (NumPy's ``np.True_`` and ``np.False_`` too); else TypeError."""
    if value is True or value is False:
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    raise TypeError(f"{fname}: {name} must be True or False, got {value!r}")


def real(value: Any, fname: str, name: str) -> int | float:
    """A Python int or float: ``value`` itself, or the value of a NumPy integer or
    floating scalar or a 0-D integer or real floating array; else TypeError (a bool
    included)."""
    t = type(value)
    if t is int or t is float:
        return value
    if isinstance(value, np.generic) and value.dtype.kind in "iuf":
        return value.item()  # type: ignore[no-any-return]
    if t is usm_ndarray and value.ndim == 0:
        kind = value.dtype.kind
        if kind in "iu":
            return int(value)
        if kind == "f":
            return float(value)
    raise TypeError(f"{fname}: {name} must be an int or a float, got {_got(value)}")


__all__ = ["flag", "int_or_ints", "integer", "integers", "real"]
