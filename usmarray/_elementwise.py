"""Elementwise functions, generated from one table: name -> dtype category.

Each generated function checks its arguments (array type, device, dtype category,
promotion, Python-scalar rule) and calls the backend kernel of the same name.
Where a provider kernel misses one of the standard's special cases, a fix-up in
``_special_cases`` corrects the result, for the affected dtypes only.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NoReturn

import numpy as np

from . import _docstrings, _trace
from . import _dtypes as dt
from ._array import new_array, usm_ndarray, wrap_with
from ._device import placement_error
from ._helpers import (
    alloc_failed,
    broadcast_shape,
    check_nbytes,
    check_scalar,
    not_an_operand,
    scalar_operand_dtype,
)
from ._indexing import scatter
from ._placement import default_float
from ._scalars import py_scalar
from ._serial import locked, locks_itself, serialized
from ._special_cases import FIXUPS
from .kernels import _direct

_PROMOTION = dt.PROMOTION_TABLE
_new = new_array

# (category, name used in messages)
_NUMERIC = (dt.NUMERIC, "numeric")
_REAL_NUMERIC = (dt.REAL_NUMERIC, "real numeric")
_FLOATING = (dt.FLOATING, "floating-point")
_COMPLEX = (dt.COMPLEX_FLOATING, "complex floating-point")
_REAL_FLOATING = (dt.REAL_FLOATING, "real floating-point")
_INT_OR_BOOL = (dt.INTEGER_OR_BOOLEAN, "integer or boolean")
_INTEGER = (dt.INTEGER, "integer")
_BOOLEAN = (dt.BOOLEAN, "boolean")
_ANY = (dt.ANY, "any")

UNARY: dict[str, tuple[frozenset, str]] = {
    "abs": _NUMERIC, "acos": _FLOATING, "acosh": _FLOATING, "asin": _FLOATING,
    "asinh": _FLOATING, "atan": _FLOATING, "atanh": _FLOATING,
    "bitwise_invert": _INT_OR_BOOL, "ceil": _REAL_NUMERIC, "conj": _NUMERIC,
    "cos": _FLOATING, "cosh": _FLOATING, "exp": _FLOATING, "expm1": _FLOATING,
    "floor": _REAL_NUMERIC, "imag": _COMPLEX, "isfinite": _NUMERIC, "isinf": _NUMERIC,
    "isnan": _NUMERIC, "log": _FLOATING, "log1p": _FLOATING, "log2": _FLOATING,
    "log10": _FLOATING, "logical_not": _BOOLEAN, "negative": _NUMERIC,
    "positive": _NUMERIC, "real": _NUMERIC, "reciprocal": _FLOATING,
    "round": _NUMERIC, "sign": _NUMERIC, "signbit": _REAL_FLOATING, "sin": _FLOATING,
    "sinh": _FLOATING, "square": _NUMERIC, "sqrt": _FLOATING, "tan": _FLOATING,
    "tanh": _FLOATING, "trunc": _REAL_NUMERIC,
}

BINARY: dict[str, tuple[frozenset, str]] = {
    "add": _NUMERIC, "atan2": _REAL_FLOATING, "bitwise_and": _INT_OR_BOOL,
    "bitwise_left_shift": _INTEGER, "bitwise_or": _INT_OR_BOOL,
    "bitwise_right_shift": _INTEGER, "bitwise_xor": _INT_OR_BOOL,
    "copysign": _REAL_FLOATING, "divide": _FLOATING, "equal": _ANY,
    "floor_divide": _REAL_NUMERIC, "greater": _REAL_NUMERIC,
    "greater_equal": _REAL_NUMERIC, "hypot": _REAL_FLOATING, "less": _REAL_NUMERIC,
    "less_equal": _REAL_NUMERIC, "logaddexp": _REAL_FLOATING,
    "logical_and": _BOOLEAN, "logical_or": _BOOLEAN, "logical_xor": _BOOLEAN,
    "maximum": _REAL_NUMERIC, "minimum": _REAL_NUMERIC, "multiply": _NUMERIC,
    "nextafter": _REAL_FLOATING, "not_equal": _ANY, "pow": _NUMERIC,
    "remainder": _REAL_NUMERIC, "subtract": _NUMERIC,
}

def _type_error(fname: str, obj: Any) -> TypeError:
    return TypeError(
        f"{fname}: expected a usmarray.usm_ndarray, got {type(obj).__name__}; "
        "convert it with usmarray.asarray()"
    )


def _category_error(fname: str, catname: str, dtype: Any) -> TypeError:
    return TypeError(f"{fname} is defined for {catname} dtypes only, got dtype {dtype}")


#: functions whose result is boolean whatever the operands' dtype
_PREDICATES = frozenset({
    "equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "isfinite",
    "isinf", "isnan", "signbit", "logical_and", "logical_or", "logical_xor", "logical_not",
})


# results of at most this many elements (16 bytes each at most) cannot pass 2**63 bytes
_SAFE_SIZE = 2**58


def _result_nbytes(name: str, a1: Any, a2: Any) -> tuple[Any, int]:
    arrays = [a for a in (a1, a2) if hasattr(a, "shape")]
    shape = broadcast_shape(name, *(a.shape for a in arrays))
    itemsize = 1 if name in _PREDICATES else max(a.itemsize for a in arrays)
    if name in ("abs", "real", "imag") and arrays[0].dtype in dt.COMPLEX_FLOATING:
        itemsize //= 2
    return arrays[0], math.prod(shape) * itemsize


def _check_result(be: Any, name: str, a1: Any, a2: Any) -> None:
    """MemoryError before the kernel runs for a result past 2**63 bytes, whose byte
    count the provider would wrap (dpctl 0.21 then writes out of bounds)."""
    where, nbytes = _result_nbytes(name, a1, a2)
    check_nbytes(be, where, nbytes, name)


def _out_of_memory(exc: Exception, be: Any, name: str, a1: Any, a2: Any) -> NoReturn:
    """Raise for ``exc`` from kernel ``name``: a MemoryError naming the result's size
    when it could not be allocated (see ``alloc_failed``)."""
    where, nbytes = _result_nbytes(name, a1, a2)
    alloc_failed(exc, be, where, nbytes, name)


def _direct_limits(name: str) -> dict[str, int]:
    """Per backend name, the largest result of ``name`` that runs as a kernel of the
    factory instead of the backend's (``kernels._direct``; empty: never)."""
    return {bn: t[name] for bn, t in _direct.LIMITS.items() if name in t}


#: a backend's plan for one elementwise function: (lock, kernel, factory limit or None,
#: fix-up or None, small kernel, size below which the small kernel runs, the small
#: kernel's provider function for operands not all 0-D, or None)
Plan = tuple[Any, Any, Any, Any, Any, int, Any]


def _plans(name: str, table: int) -> tuple[dict[Any, Plan], Callable[[Any], Plan]]:
    """For elementwise function ``name`` (``table``: 0 unary, 1 binary): the plans by
    backend, and the function that works out a backend's plan on its first call (the
    attribute and table reads it saves cost a fifth of a small call)."""
    fixups = {bn: t[table][name] for bn, t in FIXUPS.items() if name in t[table]}
    direct = _direct_limits(name)
    plans: dict[Any, Plan] = {}

    def plan(be: Any) -> Plan:
        lim, fx = direct.get(be.name), fixups.get(be.kernel_family)
        small, n = be.small_kernel(name)
        if lim is not None and fx is None and be.lock is None and be.elementwise_engine:
            # the engine takes every call; the compiled core hands it the small ones
            small, n = _direct.engine_kernel(be, name, getattr(be, name), table == 1), \
                _direct.ENGINE_SMALL
        elif lim is not None or fx is not None or be.lock is not None:
            n = 0  # the factory, the fix-ups and the lock see every call
        # the compiled core calls the provider's function itself where the result
        # cannot be 0-D (a NumPy ufunc returns a scalar only for 0-D operands)
        p = plans[be] = (be.lock, getattr(be, name), lim, fx, small, n,
                         getattr(small, "provider_function", None))
        return p

    return plans, plan


def _make_unary(name: str) -> Callable[..., usm_ndarray]:
    category, catname = UNARY[name]
    plans, plan = _plans(name, 0)

    def func(x: usm_ndarray, /) -> usm_ndarray:
        if type(x) is not usm_ndarray:
            raise _type_error(name, x)
        a = x._arr
        d = a.dtype
        if d not in category:
            raise _category_error(name, catname, d)
        be = x._be
        size = a.size
        if size > _SAFE_SIZE:
            _check_result(be, name, a, a)
        p = plans.get(be)
        lk, kernel, lim, fx, small, n, _ = plan(be) if p is None else p
        if size < n:
            res = _new(usm_ndarray)
            try:
                res._arr = small(a)
            except Exception as exc:
                _out_of_memory(exc, be, name, a, a)
            res._be = be
            if _trace.ACTIVE:
                _trace.note(name, (x,), res)
            return res
        if lk is not None:
            lk.acquire()
        try:
            out = None
            if lim is not None:
                out = _direct.unary(be, name, lim, a, d)
            if out is None:
                out = kernel(a)
                # a fix-up mends the provider's kernel; the generator's code needs none
                if fx is not None and d in fx[0]:
                    out = fx[1](be, a, out)
        except Exception as exc:
            _out_of_memory(exc, be, name, a, a)
        finally:
            if lk is not None:
                lk.release()
        res = _new(usm_ndarray)
        res._arr = out
        res._be = be
        if _trace.ACTIVE:
            _trace.note(name, (x,), res)
        return res

    func.__name__ = func.__qualname__ = name
    func.__doc__ = _docstrings.elementwise(name, catname, unary=True)
    func._lean = (plans, category)  # type: ignore[attr-defined]
    return locks_itself(func)


def _same_queue(be: Any, a1: Any, a2: Any) -> bool:
    """Whether raw arrays ``a1`` and ``a2`` of ``be`` sit on equal queues (identity
    first: a backend hands out one object per default queue)."""
    q1 = be.queue_of(a1)
    if a1 is a2:
        return True
    q2 = be.queue_of(a2)
    return q1 is q2 or q1 == q2


def binary_operands(
    x1: Any, x2: Any, fname: str, category: frozenset = dt.ANY
) -> tuple[Any, Any, Any, Any]:
    """Validate a binary call; return (backend, raw1 or scalar, raw2 or scalar, result dtype).

    Exactly one operand may be a Python scalar; it takes the array's dtype, after the
    standard's scalar rule and an overflow check for integers.
    """
    if type(x1) is usm_ndarray:
        a1 = x1._arr
        if type(x2) is usm_ndarray:
            a2 = x2._arr
            be = x1._be
            if be is not x2._be or (be.multi_queue and not _same_queue(be, a1, a2)):
                raise placement_error(fname, x1.device, x2.device)
            d1, d2 = a1.dtype, a2.dtype
            rd = _PROMOTION.get((d1, d2))
            if rd is None:
                dt.promote(d1, d2, fname)
            return be, a1, a2, rd
        d = a1.dtype
        x2 = py_scalar(x2)
        # a dtype outside the function's category is the error to report first
        return x1._be, a1, x2, scalar_operand_dtype(d, x2, fname) if d in category else d
    if type(x2) is usm_ndarray:
        a2 = x2._arr
        d = a2.dtype
        x1 = py_scalar(x1)
        return x2._be, x1, a2, scalar_operand_dtype(d, x1, fname) if d in category else d
    raise TypeError(
        f"{fname}: at least one argument must be a usmarray.usm_ndarray; got "
        f"{type(x1).__name__} and {type(x2).__name__}"
    )


_PY_SCALARS = (bool, int, float, complex)


def _make_binary(name: str) -> Callable[..., usm_ndarray]:
    plans = _plans(name, 1)
    func = _binary_function(name, plans, None)
    func._operator = lambda opname: _binary_function(  # type: ignore[attr-defined]
        name, plans, opname)
    func._lean = _lean_table(plans[0], BINARY[name][0])  # type: ignore[attr-defined]
    return func


def _lean_table(plans: dict[Any, Plan], dtypes: frozenset) -> tuple[Any, frozenset, frozenset]:
    """The compiled core's table for a binary function (``usmarray/_core.pyx``):
    its plans, the dtypes of two array operands that its small kernel computes as the
    function does (one dtype for both), and the array dtypes that take a Python float
    or int operand there (floating dtypes: no range check, no other result dtype)."""
    scalars = frozenset(d for d in dtypes if d in dt.FLOATING and dt.scalar_allowed(d, 0)
                        and dt.scalar_allowed(d, 0.0))
    return plans, dtypes, scalars


def _binary_function(name: str, plans_plan: tuple[dict[Any, Plan], Callable[[Any], Plan]],
                     opname: str | None) -> Callable[..., usm_ndarray]:
    """Elementwise function ``name`` of two operands; with ``opname``, its operator form
    (``x1`` is the array the operator belongs to), which returns NotImplemented for a
    foreign operand as :func:`make_operator` says."""
    category, catname = BINARY[name]
    plans, plan = plans_plan
    same = {d: d for d in category}

    def func(x1: Any, x2: Any, /) -> usm_ndarray:
        # two arrays: binary_operands inlined (the per-call cost of every small op)
        if type(x2) is usm_ndarray and type(x1) is usm_ndarray:
            a1 = x1._arr
            a2 = x2._arr
            be = x1._be
            if be is not x2._be or (be.multi_queue and not _same_queue(be, a1, a2)):
                raise placement_error(name, x1.device, x2.device)
            d1 = a1.dtype
            d2 = a2.dtype
            # one dtype of the category (the common case): one hash instead of three
            rd = same.get(d1) if d1 is d2 else None
            if rd is None:
                rd = _PROMOTION.get((d1, d2))
                if rd is None:
                    dt.promote(d1, d2, name)
                if rd not in category:
                    raise _category_error(name, catname, rd)
            n1 = a1.size
            n2 = a2.size
            if n1 * n2 > _SAFE_SIZE:
                _check_result(be, name, a1, a2)
        else:
            if opname is not None and type(x2) not in _PY_SCALARS:
                x2 = py_scalar(x2)
                if type(x2) not in _PY_SCALARS:
                    return _not_implemented(x2, opname)  # type: ignore[no-any-return]
            be, a1, a2, rd = binary_operands(x1, x2, name, category)
            # the array operand's dtype (a Python scalar has none)
            d1 = rd if type(x1) is usm_ndarray else None
            d2 = rd if d1 is None else None
            if rd not in category:
                raise _category_error(name, catname, rd)
            n1 = getattr(a1, "size", 1)
            n2 = getattr(a2, "size", 1)
            if n1 * n2 > _SAFE_SIZE:
                _check_result(be, name, a1, a2)
        p = plans.get(be)
        lk, kernel, lim, fx, small, n, _ = plan(be) if p is None else p
        if n1 < n and n2 < n:
            res = _new(usm_ndarray)
            try:
                res._arr = small(a1, a2)
            except Exception as exc:
                _out_of_memory(exc, be, name, a1, a2)
            res._be = be
            if _trace.ACTIVE:
                _trace.note(name, (x1, x2), res)
            return res
        if lk is not None:
            lk.acquire()
        try:
            out = None
            if lim is not None:
                out = _direct.binary(be, name, lim, a1, a2, d1, d2)
            if out is None:
                out = kernel(a1, a2)
                if fx is not None and rd in fx[0]:
                    out = fx[1](be, a1, a2, out)
        except Exception as exc:
            _out_of_memory(exc, be, name, a1, a2)
        finally:
            if lk is not None:
                lk.release()
        res = _new(usm_ndarray)
        res._arr = out
        res._be = be
        if _trace.ACTIVE:
            _trace.note(name, (x1, x2), res)
        return res

    func.__name__ = func.__qualname__ = opname or name
    if opname is None:
        func.__doc__ = _docstrings.elementwise(name, catname, unary=False)
    return locks_itself(func)


# one generated function per table entry, bound by name for readers and type checkers
abs = _make_unary("abs")
acos = _make_unary("acos")
acosh = _make_unary("acosh")
asin = _make_unary("asin")
asinh = _make_unary("asinh")
atan = _make_unary("atan")
atanh = _make_unary("atanh")
bitwise_invert = _make_unary("bitwise_invert")
ceil = _make_unary("ceil")
conj = _make_unary("conj")
cos = _make_unary("cos")
cosh = _make_unary("cosh")
exp = _make_unary("exp")
expm1 = _make_unary("expm1")
floor = _make_unary("floor")
imag = _make_unary("imag")
isfinite = _make_unary("isfinite")
isinf = _make_unary("isinf")
isnan = _make_unary("isnan")
log = _make_unary("log")
log1p = _make_unary("log1p")
log2 = _make_unary("log2")
log10 = _make_unary("log10")
logical_not = _make_unary("logical_not")
negative = _make_unary("negative")
positive = _make_unary("positive")
real = _make_unary("real")
reciprocal = _make_unary("reciprocal")
round = _make_unary("round")
sign = _make_unary("sign")
signbit = _make_unary("signbit")
sin = _make_unary("sin")
sinh = _make_unary("sinh")
square = _make_unary("square")
sqrt = _make_unary("sqrt")
tan = _make_unary("tan")
tanh = _make_unary("tanh")
trunc = _make_unary("trunc")
add = _make_binary("add")
atan2 = _make_binary("atan2")
bitwise_and = _make_binary("bitwise_and")
bitwise_left_shift = _make_binary("bitwise_left_shift")
bitwise_or = _make_binary("bitwise_or")
bitwise_right_shift = _make_binary("bitwise_right_shift")
bitwise_xor = _make_binary("bitwise_xor")
copysign = _make_binary("copysign")
_float_divide = _make_binary("divide")


@locks_itself
def divide(x1: Any, x2: Any, /) -> usm_ndarray:
    """True quotient ``x1_i / x2_i`` of each pair of elements (the ``/`` operator).

    Floating operands divide as the standard says.  Integer operands, whose result the
    standard leaves implementation-defined, divide as NumPy, CuPy and PyTorch divide
    them: after the integer promotion (and the Python-scalar rule) each is converted to
    the device's default real floating dtype (float64, or float32 on a device without
    double precision), and the result has that dtype (docs/compatibility.md).

    Parameters
    ----------
    x1 : usm_ndarray or Python scalar (int, float, complex)
        Dividend, of a floating-point or integer dtype.
    x2 : usm_ndarray or Python scalar (int, float, complex)
        Divisor, of a floating-point or integer dtype; broadcast against ``x1``.  One
        of the two may be a Python scalar (NumPy scalars count as Python scalars); it
        takes the array's dtype where the standard's rule allows: int with integer or
        floating arrays, float with floating arrays, complex with floating arrays.

    Returns
    -------
    usm_ndarray
        An array of the broadcast shape: of the promoted floating dtype for floating
        operands (with a complex scalar and a real floating array, the complex dtype of
        its precision), of the device's default real floating dtype for integer ones.

    Raises
    ------
    TypeError
        A bool operand; an integer array with a floating array (the standard defines
        no such promotion), or another pair of dtypes it does not promote; a float
        scalar with an integer array; an operand that is neither a ``usm_ndarray`` nor
        a Python scalar; two Python scalars.
    OverflowError
        A Python int outside the range of the integer array's dtype.
    ValueError
        The shapes do not broadcast.
    ExecutionPlacementError
        The arrays live on different devices (or on SYCL queues that are not
        equivalent); a subclass of ValueError.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Compute follows data: the kernel runs on the operands' device and the result lives
    there; arrays of different devices are refused, never copied.  The result's
    usm_type is the most device-like of the array operands': ``"device"`` over
    ``"shared"`` over ``"host"`` (docs/usm-types.md).

    Unlike NumPy, usmarray refuses NumPy arrays, lists and other sequences as operands
    (convert them with ``usmarray.asarray``), NumPy's keywords ``out=``, ``where=``,
    ``dtype=``, ``casting=``, ``order=`` and ``subok=``, and mixed integer/floating
    operands (TypeError).

    Special cases (NaN, signed zeros, infinities) follow the table on the standard's
    page for ``divide``, on every backend.

    See Also
    --------
    [array_api.divide](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.divide.html): the standard's specification.
    """
    t1, t2 = type(x1), type(x2)
    if (t1 is not usm_ndarray or x1._arr.dtype not in dt.INTEGER) and t1 is not int:
        return _float_divide(x1, x2)
    if (t2 is not usm_ndarray or x2._arr.dtype not in dt.INTEGER) and t2 is not int:
        return _float_divide(x1, x2)
    be, a1, a2, _ = binary_operands(x1, x2, "divide", dt.INTEGER)
    f = default_float(be.queue_of(a1 if t1 is usm_ndarray else a2))
    lk = be.lock
    if lk is not None:
        lk.acquire()
    try:
        o1 = wrap_with(be, be.astype(a1, f)) if t1 is usm_ndarray else float(a1)
        o2 = wrap_with(be, be.astype(a2, f)) if t2 is usm_ndarray else float(a2)
    except Exception as exc:
        _out_of_memory(exc, be, "divide", a1, a2)
    finally:
        if lk is not None:
            lk.release()
    res = _float_divide(o1, o2)
    if _trace.ACTIVE:
        _trace.note("divide", (x1, x2), res)
    return res


divide._lean = _float_divide._lean  # type: ignore[attr-defined]  # floating: the same
equal = _make_binary("equal")
floor_divide = _make_binary("floor_divide")
greater = _make_binary("greater")
greater_equal = _make_binary("greater_equal")
hypot = _make_binary("hypot")
less = _make_binary("less")
less_equal = _make_binary("less_equal")
logaddexp = _make_binary("logaddexp")
logical_and = _make_binary("logical_and")
logical_or = _make_binary("logical_or")
logical_xor = _make_binary("logical_xor")
maximum = _make_binary("maximum")
minimum = _make_binary("minimum")
multiply = _make_binary("multiply")
nextafter = _make_binary("nextafter")
not_equal = _make_binary("not_equal")
_pow = _make_binary("pow")

#: integer exponent arrays of at most this many elements are copied to the host whole to
#: find their lowest value (one small copy costs less than a reduction and its read-back)
_EXPONENT_HOST_MAX = 1 << 14


def _refuse_negative_powers(x1: Any, x2: Any) -> None:
    """ValueError where ``pow`` of integer operands meets a negative exponent, as NumPy
    and array-api-strict raise it (the standard leaves the result unspecified; CuPy and
    the SYCL provider each make up an integer).  A Python int exponent is checked for
    free; an array exponent of a signed dtype by its lowest element, which costs one
    reduction and a read-back, a wait for the device (docs/guarantees.md)."""
    be, a1, a2, rd = binary_operands(x1, x2, "pow", dt.NUMERIC)
    if rd not in dt.INTEGER:
        return
    if type(a2) is int:
        low = a2
    else:
        if hasattr(a1, "shape"):
            broadcast_shape("pow", a1.shape, a2.shape)  # a shape error comes first
        if not a2.size:
            return
        with locked(be):
            if a2.size <= _EXPONENT_HOST_MAX:
                low = int(be.to_host(a2).min())
            else:
                low = int(be.scalar(be.min(a2)))
    if low < 0:
        raise ValueError(
            f"pow: integers to negative integer powers are not allowed (exponent {low}): "
            "the result is not an integer; convert the base to a floating dtype "
            "(astype(x1, float64)) for 1 / x1**n"
        )


@locks_itself
def pow(x1: Any, x2: Any, /) -> usm_ndarray:
    t1, t2 = type(x1), type(x2)
    if (t2 is usm_ndarray and x2._arr.dtype in dt.SIGNED) or (
            t1 is usm_ndarray and t2 is not usm_ndarray and x1._arr.dtype in dt.INTEGER):
        _refuse_negative_powers(x1, x2)
    return _pow(x1, x2)


pow.__doc__ = _pow.__doc__
# floating operands: _pow itself (the check above is for integer ones)
pow._lean = _lean_table(_pow._lean[0], dt.FLOATING)  # type: ignore[attr-defined]
remainder = _make_binary("remainder")
subtract = _make_binary("subtract")
assert set(UNARY) | set(BINARY) <= set(globals()), "a table entry has no function"


def clip(
    x: usm_ndarray,
    /,
    min: int | float | usm_ndarray | None = None,  # noqa: A002 - the standard's name
    max: int | float | usm_ndarray | None = None,  # noqa: A002
) -> usm_ndarray:
    """Each element clamped to the interval ``[min, max]``: ``minimum(maximum(x_i, min_i),
    max_i)``.

    Parameters
    ----------
    x : usm_ndarray
        Input array, of a real numeric dtype (an integer or real floating dtype).
    min : usm_ndarray, int, float or None
        Lower bound; None: no lower bound.  An array bound broadcasts against ``x``
        and must have a real numeric dtype that promotes with ``x``'s to ``x``'s own.
        A Python int bound beyond an integer dtype's range is clamped to that range.
    max : usm_ndarray, int, float or None
        Upper bound, as ``min``.

    Returns
    -------
    usm_ndarray
        A new array of ``x``'s dtype and of the broadcast shape of ``x`` and the array
        bounds (a copy of ``x`` when both bounds are None).  Where ``min_i > max_i`` the
        standard leaves the result unspecified.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray`` or its dtype is not real numeric; a bound that is
        not an array, int, float or None (a bool, a complex, a NumPy array); an array
        bound whose dtype is not real numeric, does not promote with ``x``'s, or would
        change the result's dtype; a float bound with an integer ``x``.
    ValueError
        An array bound whose shape does not broadcast with ``x``'s.
    ExecutionPlacementError
        An array bound on another device than ``x`` (a subclass of ValueError).
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Compute follows data: the kernel runs on ``x``'s device and the result lives there,
    with ``x``'s usm_type.

    Unlike NumPy, usmarray refuses bounds that would change the result's dtype (NumPy
    promotes), NumPy arrays and lists as bounds, and the keywords ``out=``, ``a_min=``
    and ``a_max=``.

    Special cases: a NaN in ``x`` or in a bound gives NaN, as the standard's page for
    ``clip`` says.

    See Also
    --------
    [array_api.clip](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.clip.html): the standard's specification.
    """
    if type(x) is not usm_ndarray:
        raise _type_error("clip", x)
    a = x._arr
    d = a.dtype
    if d not in dt.REAL_NUMERIC:
        raise _category_error("clip", "real numeric", d)
    be = x._be
    bounds: list[Any] = []
    floating = d.kind == "f"
    for bname, b in (("min", min), ("max", max)):
        if b is None or (floating and type(b) is float):  # nothing to check or convert
            bounds.append(b)
        elif type(b) is usm_ndarray:
            binary_operands(x, b, "clip")
            if b._arr.dtype not in dt.REAL_NUMERIC:
                raise _category_error("clip", "real numeric", b._arr.dtype)
            if dt.PROMOTION_TABLE[(d, b._arr.dtype)] != d:
                raise TypeError(
                    f"clip: {bname} of dtype {b._arr.dtype} would change the result dtype "
                    f"from {d}; pass a bound of dtype {d}"
                )
            bounds.append(b._arr)
        else:
            b = py_scalar(b)
            if type(b) not in (bool, int, float, complex):
                raise not_an_operand("clip", b, bname, "a usm_ndarray, an int, a float or None")
            if type(b) is bool or type(b) not in (int, float):
                raise TypeError(f"clip: {bname} must be an array, int, float or None")
            if type(b) is int and d in dt.INTEGER:
                info = np.iinfo(d)
                b = info.min if b < info.min else info.max if b > info.max else b
            else:
                check_scalar(d, b, "clip")
            bounds.append(b)
    lo, hi = bounds
    try:
        if lo is None and hi is None:
            return wrap_with(be, be.astype(a, d, copy=True))
        out = _direct.clip(be, a, lo, hi)
        if out is None:
            out = be.clip(a, lo, hi)
        if out.dtype != d:
            out = be.astype(out, d)
    except Exception as exc:
        shape = broadcast_shape("clip", *(b.shape for b in (a, lo, hi) if hasattr(b, "shape")))
        alloc_failed(exc, be, a, math.prod(shape) * d.itemsize, "clip")
    res = wrap_with(be, out)
    if _trace.ACTIVE:
        # the bounds as the kernel used them: arrays, or scalars after the clamping above
        _trace.note("clip", (x, min if type(min) is usm_ndarray else lo,
                             max if type(max) is usm_ndarray else hi), res)
    return res


# ---- operator forms -------------------------------------------------------------------
def _not_implemented(other: Any, opname: str) -> Any:
    """NotImplemented for a foreign operand, so its own reflected operator may run;
    TypeError for a NumPy array or scalar, whose reflected operator would compute the
    result in NumPy (host memory, NumPy's rules) instead of refusing."""
    if isinstance(other, (np.ndarray, np.generic)):
        raise TypeError(
            f"{opname}: unsupported operand of type numpy.{type(other).__name__}; operators "
            "take usm_ndarray arrays and Python (or NumPy bool/int/float/complex) scalars: "
            "convert NumPy arrays with usmarray.asarray()"
        )
    return NotImplemented


def make_operator(fn: Callable[..., usm_ndarray], opname: str) -> Callable[..., Any]:
    """The operator ``opname`` of ``self`` and ``other`` computing ``fn(self, other)``;
    NotImplemented for an operand that is neither an array nor a Python scalar."""
    inline = getattr(fn, "_operator", None)
    if inline is not None:  # a generated function's own operator form: one call fewer
        return _lock_like(fn, inline(opname))

    def op(self: usm_ndarray, other: Any, /) -> Any:
        if type(other) is not usm_ndarray and type(other) not in (bool, int, float, complex):
            other = py_scalar(other)
            if type(other) not in (bool, int, float, complex):
                return _not_implemented(other, opname)
        return fn(self, other)

    op.__name__ = opname
    return _lock_like(fn, op)


def make_reflected(fn: Callable[..., usm_ndarray], opname: str) -> Callable[..., Any]:
    def op(self: usm_ndarray, other: Any, /) -> Any:
        if type(other) not in (bool, int, float, complex):
            other = py_scalar(other)
            if type(other) not in (bool, int, float, complex):
                return _not_implemented(other, opname)
        return fn(other, self)

    op.__name__ = opname
    return _lock_like(fn, op)


def make_unary_operator(fn: Callable[..., usm_ndarray], opname: str) -> Callable[..., Any]:
    def op(self: usm_ndarray) -> Any:
        return fn(self)

    op.__name__ = opname
    return _lock_like(fn, op)


def _lock_like(fn: Callable[..., Any], op: Callable[..., Any]) -> Callable[..., Any]:
    """``op``, which only forwards to ``fn``, locks as ``fn`` does."""
    return locks_itself(op) if getattr(fn, "_usmarray_lock", None) == "self" else serialized(op)


def make_inplace(fn: Callable[..., usm_ndarray], opname: str) -> Callable[..., Any]:
    """``x op= y``: the result must keep x's dtype and shape, and is written into x."""

    def op(self: usm_ndarray, other: Any, /) -> Any:
        if type(other) is not usm_ndarray and type(other) not in (bool, int, float, complex):
            other = py_scalar(other)
            if type(other) not in (bool, int, float, complex):
                return _not_implemented(other, opname)
        if _trace.ACTIVE:
            _trace.impure(f"{opname} (an in-place operator)")
        res = fn(self, other)
        a = self._arr
        r = res._arr
        if r.dtype != a.dtype:
            raise TypeError(
                f"{opname}: the result dtype {r.dtype} differs from the left operand's "
                f"{a.dtype}; in-place operators cannot change an array's dtype"
            )
        if r.shape != a.shape:
            raise ValueError(
                f"{opname}: the result shape {r.shape} differs from the left operand's "
                f"{a.shape}; in-place operators cannot change an array's shape"
            )
        scatter(self._be, a, ..., r)  # read-only targets get the read-only message
        return self

    op.__name__ = opname
    return op
