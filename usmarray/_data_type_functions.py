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
from ._helpers import alloc_failed, not_an_operand
from ._migration import to_device
from ._params import flag
from ._placement import has_fp64
from ._scalars import py_scalar
from .kernels import _direct

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
        raise not_an_operand(fname, value)
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
    """``x`` converted to ``dtype``, as a new array unless ``copy=False`` allows ``x`` itself.

    Parameters
    ----------
    x : usm_ndarray
        The array to convert.
    dtype : DType
        One of usmarray's dtypes.  Every conversion between the standard's dtypes is
        allowed except complex to a real numeric dtype (complex to bool is allowed:
        nonzero is True).
    copy : bool, optional
        True (default): always a new array.  False: ``x`` itself where ``dtype`` is
        ``x``'s and no move is asked for.
    device : Device, str or a backend's device or queue, optional
        Where the result lives; None: ``x``'s device.  Another device gets a copy (the
        conversion runs on ``x``'s device first).

    Returns
    -------
    usm_ndarray
        The converted array, of ``x``'s shape; on ``x``'s device with its usm_type unless
        ``device`` names another.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; ``dtype`` is not one of usmarray's dtypes (NumPy
        dtypes and strings are not); a complex ``x`` to a real numeric dtype (cast
        ``real(x)`` or ``imag(x)``); ``copy`` not True or False.
    ValueError
        float64 or complex128 for a device without double precision; an unknown device.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Unlike NumPy, usmarray refuses complex to real casts (NumPy discards the imaginary
    part with a warning) and ``casting=``, ``order=`` and ``subok=`` (TypeError).  Casts
    of out-of-range values (a float to a too-narrow integer) are left undefined by the
    standard.

    See Also
    --------
    [array_api.astype](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.astype.html): the standard's specification.
    """
    if type(x) is not usm_ndarray:
        raise TypeError(
            f"astype: x must be a usmarray.usm_ndarray, got {type(x).__name__}; "
            "convert it with usmarray.asarray()"
        )
    d = dt.check_dtype(dtype)
    if copy is not True and copy is not False:
        copy = flag(copy, "astype", "copy")
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
        out = None if src is d else _direct.astype(be, a, d)
        if out is None:
            out = be.copy(a) if src is d else be.astype(a, d)
        res = wrap_with(be, out)
    except Exception as exc:
        alloc_failed(exc, be, a, a.size * d.itemsize, "astype")
    if _trace.ACTIVE:
        _trace.note("astype", (x,), res)
    return res


# ---- can_cast / result_type -------------------------------------------------------------
def can_cast(from_: Any, to: Any, /) -> bool:
    """Whether ``from_`` promotes to ``to`` by the standard's type promotion table.

    Parameters
    ----------
    from_ : DType or usm_ndarray
        The source dtype, or an array whose dtype it is.
    to : DType
        The target dtype.

    Returns
    -------
    bool
        True where the promotion table takes ``from_`` to ``to`` (so every cast across
        kinds, such as int32 to float64, is False).  For an array on a device without
        double precision, casts to float64 and complex128 are False.

    Raises
    ------
    TypeError
        ``from_`` is neither one of usmarray's dtypes nor a ``usm_ndarray``; ``to`` is
        not one of usmarray's dtypes.

    Notes
    -----
    Unlike NumPy, usmarray answers by the standard's promotion table only, without
    ``casting=`` rules: ``can_cast(int32, float64)`` is False here and True in NumPy.

    See Also
    --------
    [array_api.can_cast](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.can_cast.html): the standard's specification.
    """
    src = _dtype_of(from_, "can_cast", "from_")
    to_d = dt.check_dtype(to, "to")
    if type(from_) is usm_ndarray and (to_d is dt.float64 or to_d is dt.complex128):
        if not has_fp64(from_._be.queue_of(from_._arr)):
            return False
    return _PROMOTION.get((src, to_d)) is to_d


def result_type(*arrays_and_dtypes: Any) -> dt.DType:
    """The dtype the standard's promotion rules give for arrays, dtypes and Python scalars
    together.

    Parameters
    ----------
    *arrays_and_dtypes : usm_ndarray, DType, bool, int, float or complex
        At least one array or dtype; Python scalars (NumPy scalars count as Python
        scalars) then meet the promoted dtype of the others by the standard's scalar
        rule.

    Returns
    -------
    DType
        The promoted dtype.  Where an array lives on a device without double precision,
        float64 and complex128 become float32 and complex64.

    Raises
    ------
    TypeError
        Dtypes the standard does not promote (int64 with float64, uint64 with a signed
        integer, bool with numbers); a scalar the dtype does not take (a float with an
        integer dtype); an argument that is neither an array, a dtype nor a Python
        scalar.
    OverflowError
        A Python int outside the range of the promoted integer dtype.
    ValueError
        Only Python scalars, or no argument.

    Notes
    -----
    Unlike NumPy, usmarray has no mixed-kind promotion and gives Python scalars no dtype
    of their own.

    See Also
    --------
    [array_api.result_type](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.result_type.html): the standard's specification.
    """
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
    """Machine limits of a floating-point dtype: ``bits``, ``eps``, ``max``, ``min``,
    ``smallest_normal`` and ``dtype``.

    Parameters
    ----------
    type : DType or usm_ndarray
        A floating-point dtype, or an array of one.  For complex dtypes the limits are
        those of the real component (float32 for complex64).

    Returns
    -------
    finfo_object
        The limits, as Python floats and ints; ``dtype`` is the real floating dtype.

    Raises
    ------
    TypeError
        An integer or bool dtype (use ``iinfo``); an argument that is neither one of
        usmarray's dtypes nor a ``usm_ndarray``.

    Notes
    -----
    Unlike NumPy, usmarray refuses NumPy dtypes, dtype strings and Python types
    (``float``).

    See Also
    --------
    [array_api.finfo](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.finfo.html): the standard's specification.
    """
    d = _dtype_of(type, "finfo", "type")
    try:
        return _FINFO[d]
    except KeyError:
        raise TypeError(
            f"finfo: needs a floating-point dtype (float32, float64, complex64, "
            f"complex128), got {d}; use iinfo() for integer dtypes"
        ) from None


def iinfo(type: Any, /) -> iinfo_object:  # noqa: A002 - the standard's name
    """Machine limits of an integer dtype: ``bits``, ``max``, ``min`` and ``dtype``.

    Parameters
    ----------
    type : DType or usm_ndarray
        An integer dtype, or an array of one.

    Returns
    -------
    iinfo_object
        The limits, as Python ints.

    Raises
    ------
    TypeError
        A floating-point or bool dtype (use ``finfo``); an argument that is neither one
        of usmarray's dtypes nor a ``usm_ndarray``.

    Notes
    -----
    Unlike NumPy, usmarray refuses NumPy dtypes, dtype strings and Python types (``int``).

    See Also
    --------
    [array_api.iinfo](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.iinfo.html): the standard's specification.
    """
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
    if isinstance(kind, str):  # a NumPy string scalar (np.str_) too
        try:
            return d in _KINDS[str(kind)]
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
    """Whether ``dtype`` is ``kind`` (a dtype), of ``kind`` (a kind name), or either for some
    entry of a tuple of them.

    Parameters
    ----------
    dtype : DType
        The dtype to test.
    kind : DType, str or tuple
        A dtype; a kind name: ``"bool"``, ``"signed integer"``, ``"unsigned integer"``,
        ``"integral"``, ``"real floating"``, ``"complex floating"``, ``"numeric"``; or a
        tuple of those (every entry is checked).

    Returns
    -------
    bool
        Whether ``dtype`` matches.

    Raises
    ------
    TypeError
        ``dtype`` is not one of usmarray's dtypes; a ``kind`` entry that is neither a
        dtype nor a kind name.
    ValueError
        An unknown kind name.

    Notes
    -----
    Unlike NumPy's ``isdtype``, usmarray refuses NumPy dtypes and validates every entry of
    a tuple, not only those before the first match.

    See Also
    --------
    [array_api.isdtype](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.isdtype.html): the standard's specification.
    """
    d = dt.check_dtype(dtype)
    if type(kind) is tuple:
        result = False
        for k in kind:  # validate every entry, not only up to the first match
            if _isdtype_one(d, k):
                result = True
        return result
    return _isdtype_one(d, kind)
