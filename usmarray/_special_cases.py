"""Corrections for the standard's special cases that a backend's kernels get wrong.

``FIXUPS[backend name] = (unary, binary)``; each table maps a function name to
(dtypes it applies to, fix(backend, inputs..., out) -> out).  A fix runs only on
its backend and for the listed dtypes, so other calls pay nothing for it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from . import _dtypes as dt


def _const_like(be: Any, out: Any, value: complex) -> Any:
    return be.full_like(out, value)


def _acosh_complex(be: Any, a: Any, out: Any) -> Any:
    # acosh(+0 + NaN j) = NaN + pi/2 j
    re, im = be.real(a), be.imag(a)
    mask = be.logical_and(
        be.logical_and(be.equal(re, 0), be.logical_not(be.signbit(re))), be.isnan(im)
    )
    return be.where(mask, _const_like(be, out, complex(math.nan, math.pi / 2)), out)


def _expm1_complex(be: Any, a: Any, out: Any) -> Any:
    # expm1(+-0 + 0j) = 0 + 0j
    re, im = be.real(a), be.imag(a)
    mask = be.logical_and(
        be.logical_and(be.equal(re, 0), be.equal(im, 0)), be.logical_not(be.signbit(im))
    )
    return be.where(mask, _const_like(be, out, 0j), out)


# ---- complex inverse trigonometric functions -----------------------------------------
# The provider loses all accuracy for large |z| (acos(-0.5+8e8j) has the wrong real
# part, asin(1e4+1e4j) in complex64 gives inf).  For finite z we use Kahan's
# formulas ("Branch cuts for complex elementary functions", 1987), built from the
# complex square root and real atan2/asinh, which are accurate across the plane; the
# provider's result is kept for non-finite inputs, where its special cases hold.


def _complex(be: Any, like: Any, re: Any, im: Any) -> Any:
    out = be.empty_like(like)
    out.real[...] = re
    out.imag[...] = im
    return out


def _finite_or(be: Any, a: Any, value: Any, out: Any) -> Any:
    return be.where(be.isfinite(a), value, out)


def _csqrt(be: Any, a: Any) -> Any:
    """Complex square root without the polar form's rounding: sqrt(-1 + 0j) is exactly 1j.

    t = sqrt((|x| + |z|) / 2); x >= 0: (t, y / 2t); x < 0: (|y| / 2t, copysign(t, y)).
    Exact zeros and non-finite values keep the provider's result (its special cases).
    """
    x, y = be.real(a), be.imag(a)
    t = be.sqrt(be.multiply(be.add(be.abs(x), be.hypot(x, y)), 0.5))
    half = be.divide(y, be.multiply(t, 2))
    neg = be.signbit(x)
    re = be.where(neg, be.abs(half), t)
    im = be.where(neg, be.copysign(t, y), half)
    keep = be.logical_and(be.isfinite(a), be.not_equal(t, 0))
    return be.where(keep, _complex(be, a, re, im), be.sqrt(a))


def _sqrt_complex(be: Any, a: Any, out: Any) -> Any:
    return _csqrt(be, a)


def _one_minus_plus(be: Any, a: Any) -> tuple[Any, Any]:
    """sqrt(1 - z), sqrt(1 + z), with 1 - z = (1 - x) - iy keeping the sign of a zero y."""
    re, im = be.real(a), be.imag(a)
    return (
        _csqrt(be, _complex(be, a, be.subtract(1, re), be.negative(im))),
        _csqrt(be, _complex(be, a, be.add(re, 1), im)),
    )


def _kahan_acos(be: Any, a: Any) -> Any:
    s1m, s1p = _one_minus_plus(be, a)
    xi = be.multiply(be.atan2(be.real(s1m), be.real(s1p)), 2)
    eta = be.asinh(be.imag(be.multiply(be.conj(s1p), s1m)))
    return _complex(be, a, xi, eta)


def _kahan_asin(be: Any, a: Any) -> Any:
    s1m, s1p = _one_minus_plus(be, a)
    xi = be.atan2(be.real(a), be.real(be.multiply(s1m, s1p)))
    eta = be.asinh(be.imag(be.multiply(be.conj(s1m), s1p)))
    return _complex(be, a, xi, eta)


def _kahan_acosh(be: Any, a: Any) -> Any:
    re, im = be.real(a), be.imag(a)
    szm = _csqrt(be, _complex(be, a, be.subtract(re, 1), im))
    szp = _csqrt(be, _complex(be, a, be.add(re, 1), im))
    xi = be.asinh(be.real(be.multiply(be.conj(szm), szp)))
    eta = be.multiply(be.atan2(be.imag(szm), be.real(szp)), 2)
    return _complex(be, a, xi, eta)


def _times_i(be: Any, a: Any) -> Any:
    return _complex(be, a, be.negative(be.imag(a)), be.real(a))


def _times_minus_i(be: Any, a: Any) -> Any:
    return _complex(be, a, be.imag(a), be.negative(be.real(a)))


def _acos_complex(be: Any, a: Any, out: Any) -> Any:
    return _finite_or(be, a, _kahan_acos(be, a), out)


def _asin_complex(be: Any, a: Any, out: Any) -> Any:
    return _finite_or(be, a, _kahan_asin(be, a), out)


def _acosh_kahan_complex(be: Any, a: Any, out: Any) -> Any:
    return _acosh_complex(be, a, _finite_or(be, a, _kahan_acosh(be, a), out))


def _asinh_complex(be: Any, a: Any, out: Any) -> Any:
    # asinh(z) = -i asin(i z)
    return _finite_or(be, a, _times_minus_i(be, _kahan_asin(be, _times_i(be, a))), out)


def _tanh_complex(be: Any, a: Any, out: Any) -> Any:
    # tanh(+-inf + yj) = +-1 + copysign(0, y) j for finite y (the provider follows the
    # sign of sin(2y) in the zero)
    re, im = be.real(a), be.imag(a)
    mask = be.logical_and(be.isinf(re), be.isfinite(im))
    fixed = _complex(be, a, be.copysign(be.ones_like(re), re), be.copysign(be.zeros_like(im), im))
    return be.where(mask, fixed, out)


Fixups = dict[str, tuple[frozenset, Callable[..., Any]]]

SYCL_UNARY: Fixups = {
    "acos": (dt.COMPLEX_FLOATING, _acos_complex),
    "asin": (dt.COMPLEX_FLOATING, _asin_complex),
    "acosh": (dt.COMPLEX_FLOATING, _acosh_kahan_complex),
    "asinh": (dt.COMPLEX_FLOATING, _asinh_complex),
    "expm1": (dt.COMPLEX_FLOATING, _expm1_complex),
    "sqrt": (dt.COMPLEX_FLOATING, _sqrt_complex),
    "tanh": (dt.COMPLEX_FLOATING, _tanh_complex),
}

# ---- NumPy -------------------------------------------------------------------------------
def _np_expm1_complex(be: Any, a: Any, out: Any) -> Any:
    # NumPy's complex expm1 returns NaN + NaN j for every non-finite input; exp(z) - 1
    # gives the standard's values there; and expm1(-0 + 0j) is +0 + 0j
    with np.errstate(invalid="ignore", over="ignore"):
        out = np.where(np.isfinite(a), out, np.exp(a) - 1)
    return np.where((a == 0) & ~np.signbit(a.imag), np.zeros_like(out), out)


def _np_floor_divide(be: Any, x1: Any, x2: Any, out: Any) -> Any:
    # floor_divide(+-inf, finite nonzero) = +-inf; floor_divide(finite, -+inf) with
    # opposite signs = -0 (NumPy gives NaN and -1)
    with np.errstate(invalid="ignore", over="ignore"):
        inf_num = np.isinf(x1) & np.isfinite(x2) & (x2 != 0)
        opposite = np.isfinite(x1) & np.isinf(x2) & (x1 != 0) & (np.signbit(x1) != np.signbit(x2))
        out = np.where(inf_num, np.multiply(x1, x2), out)
        return np.asarray(np.where(opposite, -0.0, out), dtype=out.dtype)


def _pow_complex_zero_exponent(be: Any, x1: Any, x2: Any, out: Any) -> Any:
    # pow(x1, +-0) = 1 + 0j for every x1; the provider gives NaN + NaN j for x1 = 0j
    out = _pow_complex64_widened(be, x1, x2, out)
    if not hasattr(x2, "shape"):
        return be.full_like(out, 1 + 0j) if x2 == 0 else out
    return be.where(be.equal(x2, 0), _const_like(be, out, 1 + 0j), out)


def _pow_complex64_widened(be: Any, x1: Any, x2: Any, out: Any) -> Any:
    # complex64: the provider's |x1|**x2 overflows before the angle scales it, so a part
    # that fits float32 came back infinite (pow(2.5, 97+2j): -inf+inf j; NumPy
    # -1.03e38+inf j); complex128, rounded once to complex64, is NumPy's result.  Where
    # the device has no double precision the provider's result stands
    if out.dtype != np.complex64 or not be.capabilities(be.queue_of(out)).fp64:
        return out
    c128 = np.dtype(np.complex128)
    a = be.astype(x1, c128) if hasattr(x1, "shape") else x1
    b = be.astype(x2, c128) if hasattr(x2, "shape") else x2
    return be.astype(be.pow(a, b), out.dtype)


def _floor_divide_exact(be: Any, x1: Any, x2: Any, out: Any) -> Any:
    # floor(a / b) of the exact quotient, as NumPy computes it: the provider floors the
    # rounded quotient (3.1 // 0.1 gave 31.0; NumPy 30.0).  (a - remainder(a, b)) / b is
    # within half an ulp of an integer; round it where a, b and the result are finite,
    # b != 0 and the quotient is not zero (the provider's special cases hold there)
    a = x1 if hasattr(x1, "shape") else be.full_like(out, x1)
    b = x2 if hasattr(x2, "shape") else be.full_like(out, x2)
    div = be.divide(be.subtract(a, be.remainder(a, b)), b)
    fl = be.floor(div)
    fl = be.where(be.greater(be.subtract(div, fl), 0.5), be.add(fl, 1.0), fl)
    ok = be.logical_and(
        be.logical_and(be.isfinite(a), be.isfinite(b)),
        be.logical_and(be.logical_and(be.not_equal(b, 0), be.isfinite(fl)), be.not_equal(div, 0)),
    )
    return be.where(ok, be.astype(fl, out.dtype), out)


# ---- CUDA (CuPy) ------------------------------------------------------------------------
def _cuda_log_complex(be: Any, a: Any, out: Any) -> Any:
    # log(+-inf + NaN j) = log(NaN + inf j) = +inf + NaN j (log1p alike); CuPy: NaN + NaN j
    re, im = be.real(a), be.imag(a)
    mask = be.logical_or(be.logical_and(be.isinf(re), be.isnan(im)),
                         be.logical_and(be.isnan(re), be.isinf(im)))
    return be.where(mask, _const_like(be, out, complex(math.inf, math.nan)), out)


def _cuda_tanh_complex(be: Any, a: Any, out: Any) -> Any:
    # tanh(+0 + inf j) = tanh(+0 + NaN j) = +0 + NaN j; CuPy: NaN + NaN j
    re, im = be.real(a), be.imag(a)
    mask = be.logical_and(
        be.logical_and(be.equal(re, 0), be.logical_not(be.signbit(re))),
        be.logical_not(be.isfinite(im)))
    return be.where(mask, _const_like(be, out, complex(0.0, math.nan)), out)


def _cuda_remainder(be: Any, x1: Any, x2: Any, out: Any) -> Any:
    # the result takes x2's sign: remainder(+-0, x2) = copysign(0, x2) for x2 != 0;
    # remainder(finite x1 != 0, +-inf) = x1 when the signs agree, else x2 (CuPy: NaN)
    x1 = x1 if hasattr(x1, "shape") else be.full_like(out, x1)
    x2 = x2 if hasattr(x2, "shape") else be.full_like(out, x2)
    zero = be.equal(x1, 0)
    signed_zero = be.logical_and(zero, be.logical_and(be.not_equal(x2, 0),
                                                      be.logical_not(be.isnan(x2))))
    out = be.where(signed_zero, be.copysign(be.zeros_like(out), x2), out)
    # a nonzero result must take x2's sign too; CuPy returns fmod's tiny positive rest
    # for x1 just above a multiple of a negative x2 (2.8e-17 for -0.03; NumPy: -0.03 + it)
    wrong_sign = be.logical_and(
        be.logical_and(be.not_equal(out, 0), be.isfinite(x2)),
        be.not_equal(be.signbit(out), be.signbit(x2)))
    out = be.where(be.logical_and(wrong_sign, be.isfinite(out)), be.add(out, x2), out)
    finite_inf = be.logical_and(be.logical_and(be.isfinite(x1), be.logical_not(zero)),
                                be.isinf(x2))
    same = be.equal(be.signbit(x1), be.signbit(x2))
    return be.where(finite_inf, be.where(same, x1, x2), out)


def _cuda_tanh_all(be: Any, a: Any, out: Any) -> Any:
    return _cuda_tanh_complex(be, a, _tanh_complex(be, a, out))


# CuPy's complex inverse trigonometric functions and square root lose accuracy as the
# provider's did: the same Kahan formulas (SYCL_UNARY) fix them
CUDA_UNARY: Fixups = {
    **SYCL_UNARY,
    "log": (dt.COMPLEX_FLOATING, _cuda_log_complex),
    "log1p": (dt.COMPLEX_FLOATING, _cuda_log_complex),
    "tanh": (dt.COMPLEX_FLOATING, _cuda_tanh_all),
}

FIXUPS: dict[str, tuple[Fixups, Fixups]] = {
    "cuda": (CUDA_UNARY, {"remainder": (dt.REAL_FLOATING, _cuda_remainder),
                          "pow": (dt.COMPLEX_FLOATING, _pow_complex64_widened)}),
    "sycl": (SYCL_UNARY, {"pow": (dt.COMPLEX_FLOATING, _pow_complex_zero_exponent),
                          "floor_divide": (dt.REAL_FLOATING, _floor_divide_exact)}),
    "numpy": (
        {
            "expm1": (dt.COMPLEX_FLOATING, _np_expm1_complex),
            "tanh": (dt.COMPLEX_FLOATING, _tanh_complex),
        },
        {"floor_divide": (dt.REAL_FLOATING, _np_floor_divide)},
    ),
}
