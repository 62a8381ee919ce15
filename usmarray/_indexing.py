"""``x[key]`` and ``x[key] = value``: the standard's indexing rules over raw arrays.

Allowed keys: ints, slices, ``...``, ``None``, integer arrays (several axes at
once, 2024.12) and a boolean array.  Python lists, floats and NumPy arrays are
refused with IndexError, out-of-range integers too.
"""

from __future__ import annotations

from typing import Any

from . import _dtypes as dt
from ._device import placement_error

_SIMPLE = (int, slice, type(None), type(Ellipsis), bool)


def _bad_key(key: Any) -> IndexError:
    return IndexError(
        f"index {key!r} of type {type(key).__name__} is not allowed by the array API "
        "standard; use ints, slices, ..., None, an integer array or a boolean array"
    )


def _check_int(raw: Any, k: int, axis: int) -> None:
    n = raw.shape[axis] if axis < raw.ndim else 0
    if not -n <= k < n:
        raise IndexError(f"index {k} is out of bounds for axis {axis} with size {n}")


def raw_key(raw: Any, key: Any) -> Any:
    """Validate ``key`` for ``raw`` and return it with usm_ndarrays unwrapped."""
    from ._array import usm_ndarray

    t = type(key)
    if t is slice or t is type(Ellipsis) or t is type(None):
        return key
    if t is int:
        if raw.ndim == 0:
            raise IndexError("a 0-D array cannot be indexed with an int; use x[()] or x[...]")
        _check_int(raw, key, 0)
        return key
    if t is usm_ndarray:
        return _array_key(raw, key)
    if t is not tuple:
        if t is bool:
            return key
        raise _bad_key(key)
    # tuple keys: count the axes the key consumes, check ints against their axes
    out = list(key)
    n_ellipsis = 0
    axis = 0
    for i, k in enumerate(key):
        tk = type(k)
        if tk is int:
            _check_int(raw, k, axis) if n_ellipsis == 0 else None
            axis += 1
        elif tk is slice:
            axis += 1
        elif tk is type(Ellipsis):
            n_ellipsis += 1
            if n_ellipsis > 1:
                raise IndexError("an index may contain at most one ellipsis (...)")
        elif tk is type(None) or tk is bool:
            pass
        elif tk is usm_ndarray:
            out[i] = _array_key(raw, k)
            axis += 1 if k._arr.dtype is not dt.bool else k._arr.ndim
        else:
            raise _bad_key(k)
    if axis > raw.ndim:
        raise IndexError(
            f"too many indices: the key indexes {axis} axes of a {raw.ndim}-D array"
        )
    return tuple(out)


def _array_key(raw: Any, k: Any) -> Any:
    a = k._arr
    d = a.dtype
    if d not in dt.INTEGER_OR_BOOLEAN:
        raise IndexError(f"array indices must have an integer or boolean dtype, got {d}")
    if a.sycl_queue != raw.sycl_queue:
        raise placement_error("indexing", k.device, raw.sycl_queue)
    return a


def setitem(x: Any, key: Any, value: Any) -> None:
    """``x[key] = value`` with the 2025.12 rule: value's dtype must promote to x's."""
    from ._array import usm_ndarray

    raw = x._arr
    rk = raw_key(raw, key)
    d = raw.dtype
    if type(value) is usm_ndarray:
        v = value._arr
        if value._be is not x._be or v.sycl_queue != raw.sycl_queue:
            raise placement_error("__setitem__", value.device, x.device)
        if dt.PROMOTION_TABLE.get((d, v.dtype)) != d:
            raise TypeError(
                f"__setitem__: cannot assign an array of dtype {v.dtype} into an array of "
                f"dtype {d}; the value's dtype must promote to the target's"
            )
        raw[rk] = v
        return
    if type(value) in (bool, int, float, complex):
        from ._helpers import check_scalar

        check_scalar(d, value, "__setitem__")
        raw[rk] = value
        return
    raise TypeError(
        f"__setitem__: value must be a usm_ndarray or a Python scalar, got {type(value).__name__}"
    )
