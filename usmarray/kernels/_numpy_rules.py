"""Elementwise operations whose C the generator writes as NumPy's own rules, for the
targets that take them (:data:`FAMILIES`).

Each function returns the C expression of the result and appends the statements it
needs through ``stmt`` (one C statement per call).  Variables are named by ``fresh``
(unique within a body).  The rules are NumPy's, case by case, so that a built-in call,
a fused chain and NumPy agree bit for bit:

* ``floor_divide`` and ``remainder``: Python's signs.  Integers: a zero divisor gives
  0, ``MIN // -1`` wraps to ``MIN``.  Floating point: NumPy's ``divmod`` (``fmod``, then
  the quotient snapped to an integer and both corrected to the divisor's sign; a zero
  divisor gives ``a / b`` and ``fmod(a, b)``).  An infinite operand of
  ``floor_divide`` gives ``a / b``, the standard's special cases (NumPy gives NaN for
  ``inf // 2`` and -1 for ``-1 // inf``; the NumPy backend corrects its own alike).
* ``bitwise_left_shift``/``bitwise_right_shift``: a count at or past the width (or
  negative, which the standard leaves undefined) gives 0, or -1 for a right shift of a
  negative value.
* ``pow`` of integers: square-and-multiply with wrap-around (the namespace refuses
  negative exponents before a kernel runs).
* ``logaddexp``: ``max + log1p(exp(-|x1 - x2|))``, equal operands (infinities
  included) giving ``x + log(2)``.
* ``nextafter``: C's ``nextafter``; ``sign`` of a float: -1, 0 or 1, a NaN itself.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: kernel families whose generated code uses these rules (the SYCL backend's provider
#: has rules of its own for some of them; its kernels run there)
FAMILIES = frozenset({"cuda"})
#: binary operations written here, per kind of operand dtype
BINARY = {
    "floor_divide": "iuf", "remainder": "iuf", "bitwise_left_shift": "iu",
    "bitwise_right_shift": "iu", "pow": "iu", "logaddexp": "f", "nextafter": "f",
}
#: ln 2 to more digits than float64 holds (NumPy's NPY_LOGE2)
_LN2 = "0.693147180559945309417232121458176568"

Stmt = Callable[[str], None]


def _t(d: np.dtype) -> str:
    return d.name


def _f(name: str, d: np.dtype) -> str:
    """C's function ``name`` for floating dtype ``d`` (its ``f`` form for float32: CUDA's
    C++ overloads do not cover every function, and a double call rounds differently)."""
    return name + "f" if d.itemsize == 4 else name


def _wide(d: np.dtype) -> str:
    """The unsigned type integer arithmetic of ``d`` wraps in (C's promotions apply)."""
    return "uint32" if d.itemsize <= 4 else "uint64"


def binary(op: str, a: str, b: str, d: np.dtype, stmt: Stmt, fresh: Callable[[], str]) -> str:
    """The C expression of ``op(a, b)`` for operands and result of dtype ``d``; ``a``
    and ``b`` are names (of variables or scalar arguments), evaluated once each."""
    t = _t(d)
    if op in ("floor_divide", "remainder"):
        if d.kind == "f":
            return _float_divmod(op, a, b, d, stmt, fresh)
        sym = "/" if op == "floor_divide" else "%"
        if d.kind == "u":
            return f"({b} == 0 ? ({t})0 : ({t})({a} {sym} {b}))"
        if op == "floor_divide":
            neg = f"(({t})(({_wide(d)})0 - ({_wide(d)})({a})))"
            return (f"({b} == 0 ? ({t})0 : {b} == -1 ? {neg} : ({t})({a} / {b} - "
                    f"(({a} % {b} != 0) && (({a} < 0) != ({b} < 0)))))")
        r = fresh()
        stmt(f"{t} {r} = ({b} == 0 || {b} == -1) ? ({t})0 : ({t})({a} % {b});")
        return f"(({r} != 0 && (({r} < 0) != ({b} < 0))) ? ({t})({r} + {b}) : {r})"
    if op in ("bitwise_left_shift", "bitwise_right_shift"):
        inside = f"((uint64)({b}) < {8 * d.itemsize}ul)"
        if op == "bitwise_left_shift":
            return f"({inside} ? ({t})(({_wide(d)})({a}) << {b}) : ({t})0)"
        past = f"({a} < 0 ? ({t})-1 : ({t})0)" if d.kind == "i" else f"({t})0"
        return f"({inside} ? ({t})({a} >> {b}) : {past})"
    if op == "pow":
        u = _wide(d)
        base, e, r = fresh(), fresh(), fresh()
        stmt(f"{u} {base} = ({u})({a}); {u} {e} = ({u})({b}); {u} {r} = 1;")
        stmt(f"while ({e} != 0) {{ if ({e} & 1) {r} *= {base}; {base} *= {base}; "
             f"{e} >>= 1; }}")
        return f"(({t}){r})"
    if op == "logaddexp":
        # the larger operand plus log1p(exp(-|x1 - x2|)), without branches: NumPy's
        # case split gives the same values (a NaN operand gives a NaN either way)
        log1p, exp = _f("log1p", d), _f("exp", d)
        fmax, fabs = _f("fmax", d), _f("fabs", d)
        rest = f"{log1p}({exp}(-{fabs}({a} - {b})))"
        return f"({a} == {b} ? {a} + ({t}){_LN2} : {fmax}({a}, {b}) + {rest})"
    if op == "nextafter":
        return f"{_f('nextafter', d)}({a}, {b})"
    raise ValueError(op)  # pragma: no cover - the caller checks BINARY


def _float_divmod(op: str, a: str, b: str, d: np.dtype, stmt: Stmt,
                  fresh: Callable[[], str]) -> str:
    t, copysign = _t(d), _f("copysign", d)
    m, q = fresh(), fresh()
    stmt(f"{t} {m} = {_f('fmod', d)}({a}, {b});")
    if op == "remainder":
        stmt(f"if ({b} != 0) {{ if ({m} != 0) {{ if (({b} < 0) != ({m} < 0)) {m} += {b}; }} "
             f"else {{ {m} = {copysign}(({t})0, {b}); }} }}")
        return m
    f = fresh()
    stmt(f"{t} {q} = ({a} - {m}) / {b};")
    stmt(f"if ({m} != 0 && (({b} < 0) != ({m} < 0))) {q} -= 1;")
    stmt(f"{t} {f} = {_f('floor', d)}({q});")
    stmt(f"if ({q} - {f} > ({t})0.5) {f} += 1;")
    return (f"(({b} == 0 || isinf({a}) || isinf({b})) ? {a} / {b} : "
            f"{q} != 0 ? {f} : {copysign}(({t})0, {a} / {b}))")


def sign(x: str, d: np.dtype) -> str:
    """``sign`` of a floating ``x``: NaN gives itself, either zero +0."""
    t = _t(d)
    return f"({x} > 0 ? ({t})1 : {x} < 0 ? ({t})-1 : {x} == 0 ? ({t})0 : {x})"


__all__ = ["BINARY", "FAMILIES", "binary", "sign"]
