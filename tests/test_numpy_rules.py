"""The generator's C for the operations it writes as NumPy's rules
(``usmarray.kernels._numpy_rules``: floor division and remainder, shifts, integer
powers, logaddexp, nextafter, the sign of a float), checked without a GPU.

The body the CUDA engine compiles for each signature is compiled here as host C++ (the
engine's header typedefs; CUDA's round-to-nearest intrinsics as plain IEEE operations,
which they are) and run over every pair of special values of its dtypes: signed zeros,
infinities, NaNs, the integer extremes, divisors of 0 and -1, shift counts around the
width.  Its results must be NumPy's, bit for bit (NaN payloads aside; the standard's
values where a floating ``floor_divide`` has an infinite operand), and within a few
ulp for logaddexp, whose ``exp`` and ``log1p`` are the C library's."""

from __future__ import annotations

import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

from usmarray.kernels import _numpy_rules
from usmarray.kernels._direct import _engine_body

CXX = shutil.which("g++") or shutil.which("c++") or shutil.which("clang++")
pytestmark = pytest.mark.skipif(CXX is None, reason="no C++ compiler here")

#: the C library's functions only, declared as C declares them: a float argument to a
#: function without an ``f`` form converts to double, as it can on CUDA, so a body
#: that calls the double form for float32 shows here as rounding differently
_PRELUDE = """
#include <cstdio>
#include <cstdint>
extern "C" {
double fmod(double, double); float fmodf(float, float);
double floor(double); float floorf(float);
double copysign(double, double); float copysignf(float, float);
double log1p(double); float log1pf(float);
double exp(double); float expf(float);
double fmax(double, double); float fmaxf(float, float);
double fabs(double); float fabsf(float);
double nextafter(double, double); float nextafterf(float, float);
}
static inline bool isinf(double x) { return __builtin_isinf(x); }
static inline bool isinf(float x) { return __builtin_isinf(x); }
typedef int8_t int8; typedef uint8_t uint8; typedef int16_t int16; typedef uint16_t uint16;
typedef int32_t int32; typedef uint32_t uint32; typedef int64_t int64; typedef uint64_t uint64;
typedef float float32; typedef double float64;
"""
_INTRINSICS = "".join(
    f"static inline {t} __{p}{op}_rn({t} a, {t} b) {{ return a {sym} b; }}\n"
    for p, t in (("f", "float"), ("d", "double"))
    for op, sym in (("add", "+"), ("sub", "-"), ("mul", "*"), ("div", "/")))

_INTS = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")
_FLOATS = ("float32", "float64")
_NP = {"floor_divide": np.floor_divide, "remainder": np.remainder,
       "bitwise_left_shift": np.left_shift, "bitwise_right_shift": np.right_shift,
       "pow": np.power, "logaddexp": np.logaddexp, "nextafter": np.nextafter}


def _values(d: np.dtype) -> np.ndarray:
    if d.kind in "iu":
        info = np.iinfo(d)
        bits = 8 * d.itemsize
        v = {0, 1, 2, 3, 5, 7, bits - 1, bits, bits + 1, info.max, info.max - 1, info.min,
             info.min + 1}
        if d.kind == "i":
            v |= {-1, -2, -3, -7, -bits}
        return np.array(sorted(v), dtype=d)
    fi = np.finfo(d)
    v = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 3.0, -7.0, 0.1, -0.03, 1e10, -1e-10,
         np.inf, -np.inf, np.nan, fi.max, -fi.max, fi.smallest_subnormal, fi.tiny]
    with np.errstate(over="ignore"):
        return np.array(v).astype(d)


def cases() -> list[tuple[str, np.dtype]]:
    """Every (operation, dtype) the rules take."""
    out = []
    for op, kinds in _numpy_rules.BINARY.items():
        for name in _INTS + _FLOATS:
            d = np.dtype(name)
            if d.kind in kinds:
                out.append((op, d))
    return out + [("sign", np.dtype(f)) for f in _FLOATS]


def _program(every: list[tuple[str, np.dtype]]) -> str:
    src = [_PRELUDE, _INTRINSICS]
    calls = []
    for i, (op, d) in enumerate(every):
        key = (op, d.char, "cuda") if op == "sign" else (op, d.char, d.char, "cuda")
        got = _engine_body(key, "cuda")
        assert got is not False, (op, d)
        body, names, _cdts, out = got
        args = ", ".join(f"{d.name} {n}" for n in names)
        src.append(f"static {out.name} f{i}({args}) {{ {out.name} z; {{ {body}; }} return z; }}")
        t, o = d.name, out.name
        n_args = len(names)
        reads = " ".join(f"{t} x{k}; fread(&x{k}, sizeof x{k}, 1, stdin);"
                         for k in range(n_args))
        calls.append(
            f"  for (long j = 0; j < counts[{i}]; ++j) {{ {reads} "
            f"{o} r = f{i}({', '.join(f'x{k}' for k in range(n_args))}); "
            "fwrite(&r, sizeof r, 1, stdout); }")
    src.append(f"static long counts[{len(every)}];")
    src.append("int main() {\n  fread(counts, sizeof(long), "
               f"{len(every)}, stdin);\n" + "\n".join(calls) + "\n  return 0;\n}")
    return "\n".join(src)


def inputs_of(op: str, d: np.dtype) -> list[np.ndarray]:
    """Every pair of special values of ``d`` (every value, for ``sign``)."""
    v = _values(d)
    if op == "sign":
        return [v]
    a, b = np.repeat(v, len(v)), np.tile(v, len(v))
    if op == "pow":  # the namespace refuses negative exponents before a kernel runs
        keep = b >= 0
        a, b = a[keep], b[keep]
    return [a, b]


def test_rules_give_numpys_values(tmp_path: Path) -> None:
    every = cases()
    src = tmp_path / "rules.cpp"
    src.write_text(_program(every))
    exe = tmp_path / "rules"
    # no contraction into FMA, as the generated CUDA (round-to-nearest intrinsics)
    subprocess.run([CXX, "-O1", "-ffp-contract=off", "-fno-builtin", "-o", str(exe), str(src),
                    "-lm"], check=True)
    inputs = [inputs_of(op, d) for op, d in every]
    blob = np.array([len(x[0]) for x in inputs], dtype=np.int64).tobytes()
    blob += b"".join(np.stack(x, axis=-1).tobytes() for x in inputs)
    res = subprocess.run([str(exe)], input=blob, capture_output=True, check=True).stdout
    pos = 0
    for (op, _d), x in zip(every, inputs, strict=True):
        want = expected(op, x)
        got = np.frombuffer(res, dtype=want.dtype, count=len(want), offset=pos)
        pos += want.nbytes
        assert_matches(op, x, got, want)
    assert pos == len(res)


def expected(op: str, x: list[np.ndarray]) -> np.ndarray:
    """NumPy's result of ``op`` on the operands ``x``."""
    d = x[0].dtype
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        want = np.sign(x[0]) if op == "sign" else _NP[op](x[0], x[1])
    if op in ("bitwise_left_shift", "bitwise_right_shift"):
        # NumPy's rule for counts past the width, which its own loop follows only where
        # the count is not negative: the standard leaves negative counts open
        b = x[1].astype(np.int64) if d.kind == "i" else x[1].astype(np.uint64)
        past = (b < 0) | (b >= 8 * d.itemsize)
        fill = np.where((x[0] < 0) & (op == "bitwise_right_shift"), -1, 0)
        want = np.where(past, fill.astype(d), want)
    if op == "floor_divide" and d.kind == "f":
        # the standard's special cases where an operand is infinite: the quotient's
        # sign and magnitude, +-inf or +-0 (NumPy: NaN for inf // 2, -1 for -1 // inf)
        with np.errstate(all="ignore"):
            want = np.where(np.isinf(x[0]) | np.isinf(x[1]), x[0] / x[1], want)
    return want


def assert_matches(op: str, x: list[np.ndarray], got: np.ndarray, want: np.ndarray) -> None:
    """``got`` is NumPy's ``want``: bit for bit with the sign of zeros (any NaN for a
    NaN), within 4 ulp for logaddexp."""
    d = want.dtype
    where = f"{op} {x[0].dtype}"
    assert got.dtype == d and got.shape == want.shape, where
    if op == "logaddexp":
        np.testing.assert_allclose(got, want, rtol=4 * np.finfo(d).eps, err_msg=where)
        return
    if d.kind == "f":
        same = (got == want) & (np.signbit(got) == np.signbit(want))
        bad = ~(same | (np.isnan(got) & np.isnan(want)))
    else:
        bad = got != want
    assert not bad.any(), (where, x[0][bad][:5], x[1][bad][:5] if len(x) > 1 else None,
                           got[bad][:5], want[bad][:5])
