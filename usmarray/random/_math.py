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

import functools
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

# ---- float32: the float32 normals and exponentials, in float32 arithmetic ------------------
#: (log1p(s) - s) / s**2 for s in [-0.293, 0.415], by powers of s: a least-squares fit on
#: Chebyshev nodes, rounded to float32 (the fit's error is below 2**-26 of log1p)
LOG1P_R32 = (-0.5, 0.3333333432674408, -0.24999970197677612, 0.20000021159648895,
             -0.16669045388698578, 0.14287005364894867, -0.12432552874088287,
             0.11017615348100662, -0.10749136656522751, 0.1068897470831871,
             -0.06176917999982834)
#: sin(2 pi y) / y and (cos(2 pi y) - 1) / y**2 for |y| <= 1/8 turn, by powers of w = y**2
#: (fitted as LOG1P_R32)
SIN_TURNS32 = (6.2831854820251465, -41.34170150756836, 81.6052474975586, -76.7058334350586,
               42.055572509765625, -14.916669845581055)
COS_TURNS32 = (-19.739208221435547, 64.93939208984375, -85.45681762695312, 60.244625091552734,
               -26.424640655517578, 7.818610668182373)
#: log 2 split for float32: ``k * LN2_HI32`` is exact for ``|k| <= 32`` (16 bits)
LN2_HI32 = math.ldexp(math.floor(math.ldexp(math.log(2.0), 16)), -16)
LN2_LO32 = float(np.float32(math.log(2.0) - LN2_HI32))
SQRT2_32 = float(np.float32(SQRT2))
#: ``2**32 - m <= NEAR_ONE``: ``m 2**-32 >= 1/sqrt(2)``, whose log is ``log1p(-t 2**-32)``
#: directly (no cancellation against ``k log 2``)
NEAR_ONE = 2**32 - math.ceil(2**32 / SQRT2)


# ---- NumPy ----------------------------------------------------------------------------------
# The host evaluates the kernels' operations in NumPy passes over a chunk of elements,
# each into a work array of a Scratch (``out=``), so that a chunk allocates nothing and
# its intermediates stay in the CPU's cache.  Selections and sign changes are integer
# operations on the floats' bits (a mask from the bits' arithmetic, then XOR): NumPy's
# ``where`` and masked ufuncs branch per element, several times slower on random bits.
_U64, _U32 = np.uint64, np.uint32
_SIGN64, _SIGN32 = _U64(1 << 63), _U32(1 << 31)
_MANT64, _ONE64 = _U64((1 << 52) - 1), _U64(0x3FF0 << 48)
_SQRT2_BITS = _U64(np.float64(SQRT2).view(np.uint64))
#: ``bits(2**52 + j) = _MAGIC52 + j`` for an integer ``0 <= j < 2**52``: a small integer
#: made a float64 by integer addition and one exact subtraction (cheaper than a conversion)
_MAGIC52 = _U64(np.float64(2.0**52).view(np.uint64))
_MANT32, _ONE32 = _U32((1 << 23) - 1), _U32(0x3F800000)
_SQRT2_32_BITS = _U32(np.float32(SQRT2_32).view(np.uint32))


class Scratch:
    """Work arrays by name, reused from one chunk to the next (views of the first
    ``n`` elements of arrays that grow as needed)."""

    __slots__ = ("_bufs",)

    def __init__(self) -> None:
        self._bufs: dict[tuple[str, int], np.ndarray] = {}

    def __call__(self, name: str, dtype: type, n: int, rows: int = 0) -> np.ndarray:
        b = self._bufs.get((name, rows))
        if b is None or b.shape[-1] < n or b.dtype != dtype:
            b = self._bufs[name, rows] = np.empty((rows, n) if rows else n, dtype=dtype)
        if b.shape[-1] == n:
            return b
        return b[:, :n] if rows else b[:n]


def _horner_into(p: np.ndarray, coeffs: tuple, z: np.ndarray) -> np.ndarray:
    """``p = (...(c[-1] z + c[-2]) z + ...) z + c[0]``, each step rounded as the kernels do
    (``c[-1] z`` as ``z c[-1]``: a product is the same either way)."""
    np.multiply(z, coeffs[-1], out=p)
    p += coeffs[-2]
    for c in reversed(coeffs[:-2]):
        p *= z
        p += c
    return p


@functools.cache
def _columns(first: tuple, second: tuple, dtype: np.dtype) -> np.ndarray:
    """``(first[i], second[i])`` as (2, 1) columns of ``dtype``, one per ``i``."""
    return np.array([first, second], dtype=dtype).T[:, :, None].copy()


def _horner_rows_into(sc: np.ndarray, first: tuple, second: tuple, z: np.ndarray) -> None:
    """:func:`_horner_into` of ``first`` into ``sc[0]`` and of ``second`` (no longer than
    ``first``) into ``sc[1]``, the same operations in the same order per element; the
    steps the two share run as one pass over both rows."""
    a, b = sc
    np.multiply(z, first[-1], out=a)
    np.multiply(z, second[-1], out=b)
    extra = len(first) - len(second)
    for c in first[-2:-2 - extra:-1]:  # the longer row's own first steps
        a += c
        a *= z
    for i, col in enumerate(_columns(first[-2 - extra::-1], second[-2::-1], sc.dtype)):
        if i:
            sc *= z
        sc += col


def _select_mask(dst: np.ndarray, bit: np.ndarray, width: type) -> np.ndarray:
    """``dst`` = all ones where the integer ``bit`` (0 or 1) is 1, else 0."""
    np.negative(bit.view(width), out=dst.view(width))
    return dst


def _swap_where(a: np.ndarray, b: np.ndarray, mask: np.ndarray, tmp: np.ndarray) -> None:
    """Swap the elements of the equal-sized floats ``a`` and ``b`` where ``mask`` (their
    unsigned bits) is all ones, in place."""
    ut = mask.dtype
    au, bu, t = a.view(ut), b.view(ut), tmp.view(ut)
    np.bitwise_xor(au, bu, out=t)
    t &= mask
    au ^= t
    bu ^= t


def _quadrant_into(q4: np.ndarray, sc: np.ndarray, ws: Scratch, sign: np.unsignedinteger
                   ) -> None:
    """``sc = (sin, cos)`` of ``x`` becomes those of ``x + q4 pi/2``, in place: swapped on odd
    quadrants, then negated (a flip of the sign bit) in quadrants 2 and 3 for the sine, 1
    and 2 for the cosine (bit 1 of ``q4``, of ``q4 + 1``)."""
    ut, n = q4.dtype, q4.shape[0]
    one = ut.type(1)
    mask = ws("mask", ut.type, n)
    np.bitwise_and(q4, one, out=mask)
    _select_mask(mask, mask, ut.type)
    _swap_where(sc[0], sc[1], mask, ws("swap", ut.type, n))
    flips = ws("flips", ut.type, n, 2)
    shift = ut.type(ut.itemsize * 8 - 2)  # bit 1 to the sign bit
    np.left_shift(q4, shift, out=flips[0])
    np.add(flips[0], ut.type(1 << int(shift)), out=flips[1])  # (q4 + 1) << shift
    flips &= sign
    scu = sc.view(ut)
    scu ^= flips


def np_log_scaled(m: np.ndarray, bits: int, ws: Scratch | None = None) -> np.ndarray:
    """``log(m * 2**-bits)`` (float64) for uint64 ``m`` in [1, 2**53] (``m`` is left as it
    is; with ``ws``, the result is one of its work arrays)."""
    ws = Scratch() if ws is None else ws
    n = m.shape[0]
    f = ws("log_f", np.float64, n)
    np.copyto(f, m.view(np.int64), casting="unsafe")  # exact: m = 2**e f, f in [1, 2)
    b = f.view(_U64)
    e = ws("log_e", _U64, n)
    np.right_shift(b, _U64(52), out=e)  # e + 1023
    b &= _MANT64
    b |= _ONE64
    big = ws("log_big", _U64, n)  # 1 where f > sqrt(2) (bits of positive floats order)
    np.subtract(_SQRT2_BITS, b, out=big)
    big >>= _U64(63)
    e += big
    big <<= _U64(52)
    b -= big  # f * 0.5 where big, exactly: f in [sqrt(1/2), sqrt(2))
    s = ws("log_s", np.float64, n)
    np.subtract(f, 1.0, out=s)
    f += 1.0
    s /= f
    z = ws("log_z", np.float64, n)
    np.multiply(s, s, out=z)
    p = _horner_into(ws("log_p", np.float64, n), LOG_SERIES, z)
    s += s
    lf = f
    np.multiply(s, z, out=lf)
    lf *= p
    lf += s
    e += _MAGIC52  # (e - bits) as a float64, exactly: 2**52 + e, less 2**52 + 1023 + bits
    k = e.view(np.float64)
    k -= 2.0**52 + 1023 + bits
    lo = p
    np.multiply(k, LN2_LO, out=lo)
    lo += lf
    k *= LN2_HI
    k += lo
    return k


def np_sincos_turns(m: np.ndarray, bits: int, ws: Scratch | None = None) -> np.ndarray:
    """``(sin, cos)`` of ``2 pi m 2**-bits`` (float64) for uint64 ``m`` in [0, 2**bits), as
    the rows of a (2, n) array (with ``ws``, one of its work arrays; ``m`` is left as it is)."""
    ws = Scratch() if ws is None else ws
    n = m.shape[0]
    shift = _U64(bits - 2)
    q4 = ws("sc_q4", _U64, n)
    np.add(m, _U64(1 << (bits - 3)), out=q4)
    q4 >>= shift
    d = ws("sc_d", np.int64, n)
    np.left_shift(q4, shift, out=d.view(_U64))
    np.subtract(m.view(np.int64), d, out=d)
    x = ws("sc_x", np.float64, n)
    # (d 2**-bits) 2 pi: the scaling is exact, so one product by 2 pi 2**-bits rounds alike
    np.multiply(d, TWO_PI * 2.0**-bits, out=x)
    z = ws("sc_z", np.float64, n)
    np.multiply(x, x, out=z)
    sc = ws("sc", np.float64, n, 2)
    sn, cs = sc
    _horner_rows_into(sc, SIN_SERIES, COS_SERIES, z)
    t = d.view(np.float64)
    np.multiply(x, z, out=t)
    sn *= t
    sn += x
    np.multiply(z, z, out=t)
    cs *= t
    z *= -0.5
    z += 1.0
    cs += z
    _quadrant_into(q4, sc, ws, _SIGN64)
    return sc


def np_log32(t: np.ndarray, ws: Scratch | None = None) -> np.ndarray:
    """``log(m * 2**-32)`` in float32 arithmetic for ``m = 2**32 - t``, uint32 ``t``: ``s =
    -t 2**-32`` near 1, else ``m = 2**k (1 + s)`` (``m`` rounded to float32, ``1 + s`` in
    [sqrt(1/2), sqrt(2))); then ``k log 2 + s + s**2 R(s)`` (``t`` is left as it is)."""
    ws = Scratch() if ws is None else ws
    n = t.shape[0]
    f32 = np.float32
    sn = ws("l32_sn", f32, n)
    # t rounded, where it is used (t <= NEAR_ONE < 2**31: as an int32, a faster conversion)
    np.multiply(t.view(np.int32), f32(-(2.0**-32)), out=sn, dtype=f32, casting="unsafe")
    mu = ws("l32_m", _U32, n)
    np.subtract(_U32(0), t, out=mu)  # m (0 for m = 2**32, a near one)
    f = ws("l32_f", f32, n)
    np.copyto(f, mu, casting="unsafe")  # rounded to nearest
    b = f.view(_U32)
    k = ws("l32_k", _U32, n)
    np.right_shift(b, _U32(23), out=k)
    b &= _MANT32
    b |= _ONE32
    big = mu  # 1 where f > sqrt(2): f *= 0.5 and k += 1, on the bits
    np.subtract(_SQRT2_32_BITS, b, out=big)
    big >>= _U32(31)
    k += big
    big <<= _U32(23)
    b -= big
    f -= f32(1.0)
    # far: all ones where t > NEAR_ONE, 0 where s = sn and k = 0: the sign bit of
    # (NEAR_ONE - t) | t (NEAR_ONE < 2**31), copied to every bit
    far = big
    np.subtract(_U32(NEAR_ONE), t, out=far)
    far |= t
    np.right_shift(far.view(np.int32), np.int32(31), out=far.view(np.int32))
    s, fu, snu = f, f.view(_U32), sn.view(_U32)  # s = f where far, else sn
    fu ^= snu
    fu &= far
    fu ^= snu
    k -= _U32(127 + 32)
    k &= far
    kf = sn
    np.copyto(kf, k.view(np.int32), casting="unsafe")
    z = ws("l32_z", f32, n)
    np.multiply(s, s, out=z)
    lo = _horner_into(ws("l32_p", f32, n), LOG1P_R32_F, s)  # R(s), then the low part
    z *= lo
    z += s
    np.multiply(kf, f32(LN2_LO32), out=lo)
    lo += z
    kf *= f32(LN2_HI32)
    kf += lo
    return kf


def np_sincos_turns32(a: np.ndarray, ws: Scratch | None = None) -> np.ndarray:
    """``(sin, cos)`` of ``2 pi a 2**-24`` in float32 arithmetic for uint32 ``a`` in
    [0, 2**24), as the rows of a (2, n) array: the nearest quarter turn ``q4`` and the rest
    ``y`` (``|y| <= 1/8`` turn, exact), then ``y S(y**2)`` and ``1 + y**2 C(y**2)``."""
    ws = Scratch() if ws is None else ws
    n = a.shape[0]
    f32 = np.float32
    q4 = ws("s32_q4", _U32, n)
    np.add(a, _U32(1 << 21), out=q4)
    q4 >>= _U32(22)
    d = ws("s32_d", np.int32, n)
    np.left_shift(q4, _U32(22), out=d.view(_U32))
    np.subtract(a.view(np.int32), d, out=d)
    y = ws("s32_y", f32, n)
    np.multiply(d, f32(2.0**-24), out=y, dtype=f32, casting="unsafe")
    w = ws("s32_w", f32, n)
    np.multiply(y, y, out=w)
    sc = ws("sc32", f32, n, 2)
    sn, cs = sc
    _horner_rows_into(sc, SIN_TURNS32_F, COS_TURNS32_F, w)
    sn *= y
    cs *= w
    cs += f32(1.0)
    _quadrant_into(q4, sc, ws, _SIGN32)
    return sc


#: the float32 coefficients as NumPy float32 scalars (a Python float would make the
#: operations float64)
LOG1P_R32_F = tuple(np.float32(c) for c in LOG1P_R32)
SIN_TURNS32_F = tuple(np.float32(c) for c in SIN_TURNS32)
COS_TURNS32_F = tuple(np.float32(c) for c in COS_TURNS32)


# ---- C (the kernel body's language) --------------------------------------------------------
def c_log_scaled(lang: object, m: str, bits: int, out: str) -> list[str]:
    """C statements declaring ``float64 {out} = log({m} * 2**-bits)`` (``m`` a uint64
    expression in [1, 2**53]); ``lang`` gives the rounding operations (``_kernels._Lang``)."""
    series = LOG_SERIES
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


def c_sincos_turns(lang: object, m: str, bits: int, sin: str, cos: str) -> list[str]:
    """C statements declaring ``float64 {sin}, {cos}`` of ``2 pi {m} 2**-bits`` (``m`` a
    uint64 expression in [0, 2**bits))."""
    ss, cc = SIN_SERIES, COS_SERIES
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


def _c_horner32(lang: object, coeffs: tuple[float, ...], z: str, p: str) -> list[str]:
    mul, add = lang.mul, lang.add  # type: ignore[attr-defined]
    lines = [f"float32 {p} = {coeffs[-1]!r}f;"]
    return lines + [f"{p} = {add(mul(p, z, 'float32'), repr(c) + 'f', 'float32')};"
                    for c in reversed(coeffs[:-1])]


def c_log32(lang: object, m: str, out: str) -> list[str]:
    """C statements declaring ``float32 {out}``: :func:`np_log32` of the uint64
    expression ``m`` (in [1, 2**32]), operation for operation."""
    mul, add, sub = lang.mul, lang.add, lang.sub  # type: ignore[attr-defined]
    to_f32, bits32, from_bits32 = lang.f32, lang.bits32, lang.from_bits32  # type: ignore[attr-defined]
    t = out
    lines = [
        f"uint64 {t}_m = {m};",
        f"uint64 {t}_t = 4294967296UL - {t}_m;",
        f"float32 {t}_sn = {mul(to_f32(f'{t}_t'), repr(-(2.0**-32)) + 'f', 'float32')};",
        f"uint32 {t}_b = {bits32(to_f32(f'{t}_m'))};",
        f"int32 {t}_k = (int32)({t}_b >> 23);",
        f"float32 {t}_f = {from_bits32(f'({t}_b & 0x7FFFFFU) | 0x3F800000U')};",
        f"if ({t}_f > {SQRT2_32!r}f) {{ {t}_f = {mul(f'{t}_f', '0.5f', 'float32')}; "
        f"{t}_k = {t}_k + 1; }}",
        f"const int {t}_near = {t}_t <= {NEAR_ONE}UL;",
        f"float32 {t}_s = {t}_near ? {t}_sn : {sub(f'{t}_f', '1.0f', 'float32')};",
        f"float32 {t}_kf = {t}_near ? 0.0f : (float32)({t}_k - {127 + 32});",
    ]
    lines += _c_horner32(lang, LOG1P_R32, f"{t}_s", f"{t}_p")
    z = mul(f"{t}_s", f"{t}_s", "float32")
    lines += [
        f"float32 {t}_l = {add(mul(z, f'{t}_p', 'float32'), f'{t}_s', 'float32')};",
        f"float32 {t}_lo = {add(mul(f'{t}_kf', repr(LN2_LO32) + 'f', 'float32'), f'{t}_l', 'float32')};",
        f"float32 {out} = {add(mul(f'{t}_kf', repr(LN2_HI32) + 'f', 'float32'), f'{t}_lo', 'float32')};",
    ]
    return lines


def c_sincos_turns32(lang: object, a: str, sin: str, cos: str) -> list[str]:
    """C statements declaring ``float32 {sin}, {cos}``: :func:`np_sincos_turns32` of the
    uint32 expression ``a`` (in [0, 2**24)), operation for operation."""
    mul, add = lang.mul, lang.add  # type: ignore[attr-defined]
    t = sin
    lines = [
        f"uint32 {t}_a = {a};",
        f"uint32 {t}_q4 = ({t}_a + {1 << 21}U) >> 22;",
        f"float32 {t}_y = {mul(f'(float32)((int32){t}_a - (int32)({t}_q4 << 22))', repr(2.0**-24) + 'f', 'float32')};",
        f"float32 {t}_w = {mul(f'{t}_y', f'{t}_y', 'float32')};",
    ]
    lines += _c_horner32(lang, SIN_TURNS32, f"{t}_w", f"{t}_ps")
    lines += _c_horner32(lang, COS_TURNS32, f"{t}_w", f"{t}_pc")
    lines += [
        f"float32 {t}_sn = {mul(f'{t}_ps', f'{t}_y', 'float32')};",
        f"float32 {t}_cs = {add(mul(f'{t}_pc', f'{t}_w', 'float32'), '1.0f', 'float32')};",
        f"float32 {t}_sa = ({t}_q4 & 1) ? {t}_cs : {t}_sn;",
        f"float32 {t}_ca = ({t}_q4 & 1) ? {t}_sn : {t}_cs;",
        f"float32 {sin} = ({t}_q4 & 2) ? -{t}_sa : {t}_sa;",
        f"float32 {cos} = (({t}_q4 + 1) & 2) ? -{t}_ca : {t}_ca;",
    ]
    return lines
