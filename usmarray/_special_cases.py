"""Corrections for the standard's special cases that a kernel provider gets wrong.

Each entry: name -> (dtypes it applies to, fix(backend, inputs..., out) -> out).
A fix runs only for the listed dtypes, so other calls pay nothing for it.
"""

from __future__ import annotations

import math
from typing import Any, Callable

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


UNARY_FIXUPS: dict[str, tuple[frozenset, Callable[..., Any]]] = {
    "acosh": (dt.COMPLEX_FLOATING, _acosh_complex),
    "expm1": (dt.COMPLEX_FLOATING, _expm1_complex),
}

BINARY_FIXUPS: dict[str, tuple[frozenset, Callable[..., Any]]] = {}
