"""Data type functions (array API 2025.12): astype, can_cast, finfo, iinfo, isdtype,
result_type.

Also home of the Python-scalar promotion rule shared by ``where`` and
``searchsorted`` (:func:`scalar_result_dtype`).
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from . import _dtypes as dt
from . import _trace
from ._array import usm_ndarray, wrap_with
from ._device import Device
from ._helpers import alloc_failed
from ._migration import to_device
from ._placement import has_fp64
from ._scalars import py_scalar

__all__ = ["astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type"]

_PROMOTION = dt.PROMOTION_TABLE
_COMPLEX_OF = {dt.float32: dt.complex64, dt.float64: dt.complex128}
_SINGLE = {dt.float64: dt.float32, dt.complex128: dt.complex64}


def scalar_result_dtype(d: np.dtype, value: Any, fname: str) -> np.dtype:
    """The dtype of ``value`` (a Python scalar) meeting an array of dtype ``d``, by the
    standard's rules: bool with bool; int with integer (in range) or floating; float
    with floating; complex with complex floating, or with real floating, promoting
    to the complex dtype of the same precision.  Anything else raises TypeError."""
    t = type(value)
    if t is builtins.bool:
        if d is dt.bool:
            return d
    elif t is int:
        if d in dt.INTEGER:
            dt.check_integer_fits(d, value, fname)
            return d
        if d in dt.FLOATING:
            return d
    elif t is float:
        if d in dt.FLOATING:
            return d
    elif t is complex:
        if d in dt.COMPLEX_FLOATING:
            return d
        if d in dt.REAL_FLOATING:
            return _COMPLEX_OF[d]
    else:
        raise TypeError(
            f"{fname}: expected a usmarray.usm_ndarray or a Python bool, int, float or "
            f"complex, got {t.__name__}"
        )
    raise TypeError(
        f"{fname}: a Python {t.__name__} cannot be combined with an array of dtype {d} "
        "(allowed: bool with bool; int with integer or floating; float with floating; "
        "complex with floating)"
    )


def _dtype_of(obj: Any, fname: str, argname: str) -> np.dtype:
    if type(obj) is usm_ndarray:
        return obj._arr.dtype
    if dt.is_dtype(obj):
        return obj.np
    raise TypeError(
        f"{fname}: {argname} must be a usmarray dtype or a usm_ndarray, got {obj!r}"
    )


# ---- astype ---------------------------------------------------------------------------
def astype(x: usm_ndarray, dtype: Any, /, *, copy: bool = True, device: Any = None) -> usm_ndarray:
    """Cast ``x`` to ``dtype`` (any standard dtype, except complex -> real numeric, which
    the standard says should not be permitted; complex -> bool is allowed).

    ``copy=False`` returns ``x`` itself when no cast and no move are needed.
    ``device=`` places the result on that device.
    """
    if type(x) is not usm_ndarray:
        raise TypeError(
            f"astype: x must be a usmarray.usm_ndarray, got {type(x).__name__}; "
            "convert it with usmarray.asarray()"
        )
    d = dt.check_dtype(dtype)
    if copy is not True and copy is not False:
        raise TypeError(f"astype: copy must be True or False, got {copy!r}")
    a = x._arr
    src = a.dtype
    if src in dt.COMPLEX_FLOATING and d not in dt.COMPLEX_FLOATING and d is not dt.bool:
        raise TypeError(
            f"astype: casting complex {src} to real dtype {d} is not permitted by the "
            "array API standard; cast real(x) or imag(x) explicitly"
        )
    be = x._be
    if device is not None:
        target = Device.create_device(device)
        q = target._q
        if target._be is not be or q != be.queue_of(a):
            if (d is dt.float64 or d is dt.complex128) and not has_fp64(q):
                raise ValueError(
                    f"astype: dtype {d} needs double precision, which device "
                    f"{target._be.describe(q)} does not support"
                )
            try:
                if src is not d:
                    a = be.astype(a, d)
            except Exception as exc:
                alloc_failed(exc, be, a, a.size * d.itemsize, "astype")
            return to_device(wrap_with(be, a), target)
    if src is d and not copy:
        return x
    try:
        res = wrap_with(be, be.copy(a) if src is d else be.astype(a, d))
    except Exception as exc:
        alloc_failed(exc, be, a, a.size * d.itemsize, "astype")
    if _trace.ACTIVE:
        _trace.note("astype", (x,), res)
    return res


# ---- can_cast / result_type -------------------------------------------------------------
def can_cast(from_: Any, to: Any, /) -> bool:
    """True when ``from_`` (a dtype or an array) promotes to ``to`` by the standard's
    type promotion table (cross-kind casts are False)."""
    src = _dtype_of(from_, "can_cast", "from_")
    to_d = dt.check_dtype(to, "to")
    if type(from_) is usm_ndarray and (to_d is dt.float64 or to_d is dt.complex128):
        if not has_fp64(from_._be.queue_of(from_._arr)):
            return False
    return _PROMOTION.get((src, to_d)) is to_d


def result_type(*arrays_and_dtypes: Any) -> dt.DType:
    """The dtype the standard's promotion rules give for arrays, dtypes and Python
    scalars together; at least one array or dtype is needed.  Scalars follow the
    scalar rule against the promoted dtype of the arrays and dtypes."""
    res = None
    scalars = None
    no_fp64 = False
    for obj in arrays_and_dtypes:
        obj = py_scalar(obj)
        if type(obj) is usm_ndarray:
            d = obj._arr.dtype
            if not no_fp64 and not has_fp64(obj._be.queue_of(obj._arr)):
                no_fp64 = True
        elif dt.is_dtype(obj):
            d = obj.np
        elif type(obj) in (builtins.bool, int, float, complex):
            if scalars is None:
                scalars = []
            scalars.append(obj)
            continue
        else:
            raise TypeError(
                "result_type: arguments must be usmarray arrays, usmarray dtypes or "
                f"Python bool/int/float/complex scalars, got {obj!r}"
            )
        if res is None:
            res = d
        else:
            r = _PROMOTION.get((res, d))
            if r is None:
                dt.promote(res, d, "result_type")
            res = r
    if res is None:
        raise ValueError(
            "result_type: needs at least one array or dtype (Python scalars alone have "
            "no dtype under the array API standard)"
        )
    if scalars is not None:
        for s in scalars:
            res = scalar_result_dtype(res, s, "result_type")
    if no_fp64:
        res = _SINGLE.get(res, res)
    return dt.public(res)


# ---- finfo / iinfo ------------------------------------------------------------------------
class finfo_object:  # noqa: N801 - the standard's name
    """Machine limits of a floating-point dtype (the component dtype for complex)."""

    __slots__ = ("bits", "eps", "max", "min", "smallest_normal", "dtype")

    def __init__(self, d: np.dtype) -> None:
        info = np.finfo(d)
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.smallest_normal = float(info.smallest_normal)
        self.dtype = dt.public(d)

    def __repr__(self) -> str:
        return (
            f"finfo(bits={self.bits}, eps={self.eps}, max={self.max}, min={self.min}, "
            f"smallest_normal={self.smallest_normal}, dtype={self.dtype})"
        )


class iinfo_object:  # noqa: N801 - the standard's name
    """Machine limits of an integer dtype."""

    __slots__ = ("bits", "max", "min", "dtype")

    def __init__(self, d: np.dtype) -> None:
        info = np.iinfo(d)
        self.bits = int(info.bits)
        self.max = int(info.max)
        self.min = int(info.min)
        self.dtype = dt.public(d)

    def __repr__(self) -> str:
        return f"iinfo(bits={self.bits}, max={self.max}, min={self.min}, dtype={self.dtype})"


_REAL_OF = {
    dt.float32: dt.float32, dt.float64: dt.float64,
    dt.complex64: dt.float32, dt.complex128: dt.float64,
}
_FINFO = {d: finfo_object(r) for d, r in _REAL_OF.items()}
_IINFO = {d: iinfo_object(d) for d in dt.INTEGER}


def finfo(type: Any, /) -> finfo_object:  # noqa: A002 - the standard's name
    """Limits of a floating-point dtype or of an array's floating-point dtype."""
    d = _dtype_of(type, "finfo", "type")
    try:
        return _FINFO[d]
    except KeyError:
        raise TypeError(
            f"finfo: needs a floating-point dtype (float32, float64, complex64, "
            f"complex128), got {d}; use iinfo() for integer dtypes"
        ) from None


def iinfo(type: Any, /) -> iinfo_object:  # noqa: A002 - the standard's name
    """Limits of an integer dtype or of an array's integer dtype."""
    d = _dtype_of(type, "iinfo", "type")
    try:
        return _IINFO[d]
    except KeyError:
        raise TypeError(
            f"iinfo: needs an integer dtype (int8 .. int64, uint8 .. uint64), got {d}; "
            "use finfo() for floating-point dtypes"
        ) from None


# ---- isdtype ----------------------------------------------------------------------------------
_KINDS = dt.KINDS


def _isdtype_one(d: np.dtype, kind: Any) -> bool:
    if type(kind) is str:
        try:
            return d in _KINDS[kind]
        except KeyError:
            raise ValueError(
                f"isdtype: unknown kind {kind!r}; use a dtype or one of {sorted(_KINDS)}"
            ) from None
    if dt.is_dtype(kind):
        return d is kind.np
    raise TypeError(
        f"isdtype: kind must be a dtype, a kind name or a tuple of them, got {kind!r}"
    )


def isdtype(dtype: Any, kind: Any) -> bool:
    """Whether ``dtype`` is ``kind`` (a dtype), of ``kind`` (a kind name), or either
    for some entry of a tuple of them."""
    d = dt.check_dtype(dtype)
    if type(kind) is tuple:
        result = False
        for k in kind:  # validate every entry, not only up to the first match
            if _isdtype_one(d, k):
                result = True
        return result
    return _isdtype_one(d, kind)
