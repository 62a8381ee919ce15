"""The main namespace's linear algebra: matmul, matrix_transpose, tensordot, vecdot."""

from __future__ import annotations

from typing import Any

from . import _dtypes as dt
from ._array import usm_ndarray, wrap_with
from ._helpers import check_array, check_category, same_device


def _pair(fname: str, x1: Any, x2: Any) -> Any:
    check_array(x1, fname, "x1")
    check_array(x2, fname, "x2")
    same_device(fname, x1, x2)
    rd = dt.promote(x1._arr.dtype, x2._arr.dtype, fname)
    if rd not in dt.NUMERIC:
        raise TypeError(f"{fname} is defined for numeric dtypes only, got {rd}")
    return x1._be


def matmul(x1: usm_ndarray, x2: usm_ndarray, /) -> usm_ndarray:
    be = _pair("matmul", x1, x2)
    a1, a2 = x1._arr, x2._arr
    if a1.ndim == 0 or a2.ndim == 0:
        raise ValueError("matmul: 0-D arrays are not allowed; use multiply()")
    k1 = a1.shape[-1]
    k2 = a2.shape[-2] if a2.ndim > 1 else a2.shape[0]
    if k1 != k2:
        raise ValueError(
            f"matmul: contracted dimensions differ: x1 shape {a1.shape}, x2 shape {a2.shape}"
        )
    return wrap_with(be, be.matmul(a1, a2))


def matrix_transpose(x: usm_ndarray, /) -> usm_ndarray:
    check_array(x, "matrix_transpose")
    if x._arr.ndim < 2:
        raise ValueError(f"matrix_transpose: x must be at least 2-D, got shape {x._arr.shape}")
    return wrap_with(x._be, x._arr.mT)


def tensordot(
    x1: usm_ndarray, x2: usm_ndarray, /, *, axes: int | tuple[Any, Any] = 2
) -> usm_ndarray:
    be = _pair("tensordot", x1, x2)
    return wrap_with(be, be.tensordot(x1._arr, x2._arr, axes=axes))


def vecdot(x1: usm_ndarray, x2: usm_ndarray, /, *, axis: int = -1) -> usm_ndarray:
    be = _pair("vecdot", x1, x2)
    check_category(x1, dt.NUMERIC, "numeric", "vecdot")
    return wrap_with(be, be.vecdot(x1._arr, x2._arr, axis=axis))
