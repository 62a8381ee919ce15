"""``log`` and ``sin``/``cos`` for the normal and exponential transforms, from operations
that every backend rounds the same way.

The math libraries differ: on the SYCL OpenCL CPU device ``cos`` and ``sin`` of
float64 are up to 3.2 ulp from exact where NumPy's are within 0.52 ulp, so
Box-Muller normals built on them differed by up to 4 ulp.  These two functions use
only integer arithmetic, exact conversions and scalings (a float64's exponent and
mantissa read from its bits, a multiplication by a power of two) and IEEE additions,
multiplications and one division, each rounded once (no fused multiply-add:
``_kernels.py`` switches contraction off), in the same order on every target: the
results are bit-identical on the NumPy backend, SYCL devices and CUDA devices.
Accuracy: within 2 ulp of the exact function (``tests/test_random.py`` measures it
against extended precision).

Both take the random bits as integers, so the reduction is exact:

- ``log(M * 2**-B)`` for an integer ``1 <= M <= 2**53``: ``M = 2**e * f`` with ``f`` in
  [sqrt(1/2), sqrt(2)), ``log f = 2 atanh(s)``, ``s = (f - 1) / (f + 1)``, a series in
  ``s**2`` to ``s**20`` (the next term is below 2**-58 of the sum), then
  ``(e - B) * log 2`` in two parts.
- ``sin`` and ``cos`` of ``2 pi m 2**-B`` for an integer ``0 <= m < 2**B`` (``m`` steps of
  ``2**-B``): the nearest quarter circle ``q`` and the rest ``d`` (``|d| <= 2**(B-3)``) are
  integer operations, ``x = 2 pi d 2**-B`` is in [-pi/4, pi/4], where Taylor series to
  ``x**19`` and ``x**18`` are exact to 2**-60, and the quadrant swaps and negates.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np

SQRT2 = math.sqrt(2.0)
TWO_PI = 6.283185307179586
#: log 2 split so that ``k * LN2_HI`` is exact for ``|k| < 2**12``: 40 bits, then the rest
LN2_HI = math.ldexp(math.floor(math.ldexp(math.log(2.0), 40)), -40)
with localcontext() as _ctx:
    _ctx.prec = 60
    LN2_LO = float(Decimal(2).ln() - Decimal(LN2_HI))
#: 1/3, 1/5, ..., 1/21: log f = 2s (1 + s**2/3 + s**4/5 + ...)
LOG_SERIES = tuple(1.0 / k for k in range(3, 23, 2))
#: -1/3!, 1/5!, ..., -1/19!: sin x = x + x**3 (-1/3! + x**2/5! - ...)
SIN_SERIES = tuple(float(Fraction((-1) ** k, math.factorial(2 * k + 1))) for k in range(1, 10))
#: 1/4!, -1/6!, ..., 1/18!: cos x = 1 - x**2/2 + x**4 (1/4! - x**2/6! + ...)
COS_SERIES = tuple(float(Fraction((-1) ** k, math.factorial(2 * k))) for k in range(2, 10))
#: terms of each series for float32 results: the first omitted term is below 1e-11 of
#: the sum (log: s**14/15, sin: x**13/13!, cos: x**14/14!), so the float64 value is
#: within 1e-11 of exact and rounds to float32 as the exact value does, but where that
#: lies within 1e-11 of a rounding boundary
SHORT = {"log": 6, "sin": 5, "cos": 5}


# ---- NumPy ----------------------------------------------------------------------------------
def _horner(coeffs: tuple[float, ...], z: np.ndarray) -> np.ndarray:
    p = np.full_like(z, coeffs[-1])
    for c in reversed(coeffs[:-1]):
        p *= z
        p += c
    return p


def _series(name: str, short: bool) -> tuple[float, ...]:
    full = {"log": LOG_SERIES, "sin": SIN_SERIES, "cos": COS_SERIES}[name]
    return full[:SHORT[name]] if short else full


def np_log_scaled(m: np.ndarray, bits: int, short: bool = False) -> np.ndarray:
    """``log(m * 2**-bits)`` (float64) for uint64 ``m`` in [1, 2**53]; ``short``: the
    series of :data:`SHORT` (for a float32 result)."""
    mant, ex = np.frexp(m.view(np.int64).astype(np.float64))  # m = mant 2**ex, mant in [0.5, 1)
    f = mant + mant
    big = f > SQRT2
    f = np.where(big, mant, f)  # in [sqrt(1/2), sqrt(2)): m = f 2**(ex - 1 + big)
    s = f - 1.0
    f += 1.0
    s /= f
    z = s * s
    p = _horner(_series("log", short), z)
    s += s
    lf = s * z
    lf *= p
    lf += s
    k = (ex + big).astype(np.float64)
    k -= bits + 1
    lo = k * LN2_LO
    lo += lf
    k *= LN2_HI
    k += lo
    return k


def np_sincos_turns(m: np.ndarray, bits: int, short: bool = False
                    ) -> tuple[np.ndarray, np.ndarray]:
    """``(sin, cos)`` of ``2 pi m 2**-bits`` (float64) for uint64 ``m`` in [0, 2**bits);
    ``short`` as for :func:`np_log_scaled`."""
    shift = np.uint64(bits - 2)
    q4 = (m + np.uint64(1 << (bits - 3))) >> shift
    d = m.view(np.int64) - (q4 << shift).view(np.int64)
    x = d.astype(np.float64)
    x *= 2.0**-bits
    x *= TWO_PI
    z = x * x
    sn = x * z
    sn *= _horner(_series("sin", short), z)
    sn += x
    cs = z * z
    cs *= _horner(_series("cos", short), z)
    z *= -0.5
    z += 1.0
    cs += z
    odd = (q4 & np.uint64(1)) != 0
    sa = np.where(odd, cs, sn)
    ca = np.where(odd, sn, cs)
    # negation is a flip of the sign bit: quadrants 2 and 3 for the sine, 1 and 2 for
    # the cosine (bit 1 of q4, of q4 + 1, moved to bit 63)
    sign = np.uint64(62)
    sa.view(np.uint64)[...] ^= (q4 & np.uint64(2)) << sign
    q4 += np.uint64(1)
    ca.view(np.uint64)[...] ^= (q4 & np.uint64(2)) << sign
    return sa, ca


# ---- C (the kernel body's language) --------------------------------------------------------
def c_log_scaled(lang: object, m: str, bits: int, out: str, short: bool = False) -> list[str]:
    """C statements declaring ``float64 {out} = log({m} * 2**-bits)`` (``m`` a uint64
    expression in [1, 2**53]); ``lang`` gives the rounding operations (``_kernels._Lang``);
    ``short`` as for :func:`np_log_scaled`."""
    series = _series("log", short)
    mul, add, sub, div = lang.mul, lang.add, lang.sub, lang.div  # type: ignore[attr-defined]
    to_bits, to_double = lang.bits, lang.double  # type: ignore[attr-defined]
    t = out
    lines = [
        # m = 2**e f, f in [1, 2), from the bits of m as a float64 (m >= 1 is normal):
        # exact, and without the math library's branches for zeros and subnormals
        f"float64 {t}_m = (float64)({m});",
        f"uint64 {t}_b = {to_bits(f'{t}_m')};",
        f"int {t}_e = (int)({t}_b >> 52) - 1023;",
        f"float64 {t}_f = {to_double(f'({t}_b & 0xFFFFFFFFFFFFFUL) | 0x3FF0000000000000UL')};",
        f"if ({t}_f > {SQRT2!r}) {{ {t}_f = {mul(f'{t}_f', '0.5')}; {t}_e = {t}_e + 1; }}",
        f"float64 {t}_s = {div(sub(f'{t}_f', '1.0'), add(f'{t}_f', '1.0'))};",
        f"float64 {t}_z = {mul(f'{t}_s', f'{t}_s')};",
        f"float64 {t}_p = {series[-1]!r};",
    ]
    lines += [f"{t}_p = {add(mul(f'{t}_p', f'{t}_z'), repr(c))};" for c in reversed(series[:-1])]
    lines += [
        f"float64 {t}_s2 = {add(f'{t}_s', f'{t}_s')};",
        f"float64 {t}_lf = {add(mul(mul(f'{t}_s2', f'{t}_z'), f'{t}_p'), f'{t}_s2')};",
        f"float64 {t}_k = (float64)({t}_e - {bits});",
        f"float64 {out} = {add(mul(f'{t}_k', repr(LN2_HI)), add(mul(f'{t}_k', repr(LN2_LO)), f'{t}_lf'))};",
    ]
    return lines


def c_sincos_turns(lang: object, m: str, bits: int, sin: str, cos: str,
                   short: bool = False) -> list[str]:
    """C statements declaring ``float64 {sin}, {cos}`` of ``2 pi {m} 2**-bits`` (``m`` a
    uint64 expression in [0, 2**bits)); ``short`` as for :func:`np_log_scaled`."""
    ss, cc = _series("sin", short), _series("cos", short)
    mul, add, sub = lang.mul, lang.add, lang.sub  # type: ignore[attr-defined]
    t = sin
    lines = [
        f"uint64 {t}_m = {m};",
        f"uint64 {t}_q4 = ({t}_m + {1 << (bits - 3)}UL) >> {bits - 2};",
        f"int64 {t}_d = (int64){t}_m - (int64)({t}_q4 << {bits - 2});",
        f"float64 {t}_x = {mul(mul(f'(float64){t}_d', repr(2.0**-bits)), repr(TWO_PI))};",
        f"float64 {t}_z = {mul(f'{t}_x', f'{t}_x')};",
        f"float64 {t}_ps = {ss[-1]!r};",
    ]
    lines += [f"{t}_ps = {add(mul(f'{t}_ps', f'{t}_z'), repr(c))};" for c in reversed(ss[:-1])]
    lines.append(f"float64 {t}_pc = {cc[-1]!r};")
    lines += [f"{t}_pc = {add(mul(f'{t}_pc', f'{t}_z'), repr(c))};" for c in reversed(cc[:-1])]
    lines += [
        f"float64 {t}_sn = {add(mul(mul(f'{t}_x', f'{t}_z'), f'{t}_ps'), f'{t}_x')};",
        f"float64 {t}_cs = {add(mul(mul(f'{t}_z', f'{t}_z'), f'{t}_pc'), sub('1.0', mul('0.5', f'{t}_z')))};",
        f"float64 {t}_sa = ({t}_q4 & 1) ? {t}_cs : {t}_sn;",
        f"float64 {t}_ca = ({t}_q4 & 1) ? {t}_sn : {t}_cs;",
        f"float64 {sin} = ({t}_q4 & 2) ? -{t}_sa : {t}_sa;",
        f"float64 {cos} = (({t}_q4 + 1) & 2) ? -{t}_ca : {t}_ca;",
    ]
    return lines
