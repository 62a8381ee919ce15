"""The CUDA backend's own bodies for its elementwise engine (``copy``/``astype``
conversions, ``full``'s fill, the canonical NaNs of a sort's keys), checked without a
GPU: run as host C++ (the engine's header typedefs; the device's bit-cast intrinsics by
``memcpy``) against NumPy, and compiled for the GPU in every loop and in C order where
a CUDA compiler is installed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from cuda_compile import assert_sources_compile, run_host

from usmarray._backend._cuda import layout as L

_PRELUDE = """
#include <cstdio>
#include <cstdint>
#include <cstring>
typedef int8_t int8; typedef uint8_t uint8; typedef int16_t int16; typedef uint16_t uint16;
typedef int32_t int32; typedef uint32_t uint32; typedef int64_t int64; typedef uint64_t uint64;
typedef float float32; typedef double float64;
static float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
static double __longlong_as_double(long long i) { double f; std::memcpy(&f, &i, 8); return f; }
"""
_REAL = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
         "float32", "float64"]


def _values(src: np.dtype, dst: np.dtype) -> np.ndarray:
    """Values of ``src`` whose conversion to ``dst`` C defines: every value where ``dst``
    is bool, floating or an integer of ``src``'s kind family (C++ wraps integers), else
    the floats inside ``dst``'s range (C truncates them toward zero)."""
    if src.kind == "b":
        return np.array([False, True])
    if src.kind in "iu":
        info = np.iinfo(src)
        v = {0, 1, 2, 7, 100, 255, 256, 2**24 + 1, 2**53 + 1, info.max, info.max - 1,
             info.min, info.min + 1}
        if src.kind == "i":
            v |= {-1, -2, -129, -(2**24) - 1}
        return np.array(sorted(x for x in v if info.min <= x <= info.max), dtype=src)
    fi = np.finfo(src)
    if dst.kind in "iu":
        lo, hi = (np.iinfo(dst).min, np.iinfo(dst).max)
        v = [0.0, -0.0, 0.5, -0.5, 1.0, 1.75, -1.75, 99.9, -99.9, 127.0, -128.0, 3e4,
             fi.smallest_subnormal]
        return np.array([x for x in v if lo - 1 < x < hi + 1], dtype=src)
    v = [0.0, -0.0, 1.0, -1.5, 0.1, 1e30, -1e30, 3.4e38, 1e300, np.inf, -np.inf, np.nan,
         -np.nan, fi.smallest_subnormal, -fi.smallest_subnormal, fi.tiny, 1e-40, 1e-310]
    with np.errstate(over="ignore"):
        return np.array(v).astype(src)


def _run(tmp_path: Path, funcs: list[tuple[str, np.dtype, np.dtype]],
         inputs: list[np.ndarray]) -> bytes:
    """Run ``z = f(a0)`` of each (body, source dtype, result dtype) over its inputs."""
    src = [_PRELUDE]
    calls = []
    for i, (body, s, o) in enumerate(funcs):
        src.append(f"static {o.name} f{i}({s.name} a0) {{ {o.name} z; {{ {body}; }} return z; }}")
        calls.append(f"  for (long j = 0; j < counts[{i}]; ++j) {{ {s.name} x; "
                     f"fread(&x, sizeof x, 1, stdin); {o.name} r = f{i}(x); "
                     "fwrite(&r, sizeof r, 1, stdout); }")
    src.append(f"static long counts[{len(funcs)}];")
    src.append(f"int main() {{\n  fread(counts, sizeof(long), {len(funcs)}, stdin);\n"
               + "\n".join(calls) + "\n  return 0;\n}")
    blob = np.array([len(x) for x in inputs], dtype=np.int64).tobytes()
    blob += b"".join(x.tobytes() for x in inputs)
    return run_host("\n".join(src), blob, tmp_path)


def test_conversions_give_numpys_astype(tmp_path: Path) -> None:
    """``convert_body`` of every pair of real and bool dtypes gives NumPy's ``astype``,
    bit for bit (a NaN stays a NaN): signed zeros, subnormals, infinities, rounding to
    float32, integer wrap-around, truncation toward zero, nonzero as True."""
    pairs = [(np.dtype(s), np.dtype(d)) for s in _REAL for d in _REAL]
    inputs = [_values(s, d) for s, d in pairs]
    res = _run(tmp_path, [(L.convert_body(s, d), s, d) for s, d in pairs], inputs)
    pos = 0
    for (s, d), x in zip(pairs, inputs, strict=True):
        with np.errstate(all="ignore"):
            want = x.astype(d)
        got = np.frombuffer(res, dtype=d, count=len(x), offset=pos)
        pos += want.nbytes
        if d.kind == "f":
            nan = np.isnan(want)
            assert np.array_equal(np.isnan(got), nan), (s, d, x, got)
            ok = want[~nan].view(f"u{d.itemsize}") == got[~nan].view(f"u{d.itemsize}")
            assert ok.all(), (s, d, x[~nan][~ok], got[~nan][~ok], want[~nan][~ok])
        else:
            np.testing.assert_array_equal(got, want, err_msg=f"{s} -> {d}: {x}")
    assert pos == len(res)


def test_canonical_nans_keep_every_other_bit(tmp_path: Path) -> None:
    """Every NaN (either sign, quiet or signaling, any payload) becomes the quiet NaN
    NumPy makes, sign clear; every other value keeps its bits."""
    funcs, inputs = [], []
    for d, body in L.CANONICAL_NAN_BODIES.items():
        u = np.dtype(f"u{d.itemsize}")
        fi = np.finfo(d)
        exp, quiet = ((1 << fi.nexp) - 1) << fi.nmant, 1 << (fi.nmant - 1)
        sign = 1 << (8 * d.itemsize - 1)
        nans = np.array([exp | quiet, sign | exp | quiet, exp | 1, sign | exp | 0x2345,
                         exp | quiet | 7], dtype=u).view(d)
        other = np.array([0.0, -0.0, 1.0, -np.inf, np.inf, fi.smallest_subnormal, -fi.max],
                         dtype=d)
        funcs.append((body, d, d))
        inputs.append(np.concatenate([nans, other]))
    res = _run(tmp_path, funcs, inputs)
    pos = 0
    for (_, d, _), x in zip(funcs, inputs, strict=True):
        u = f"u{d.itemsize}"
        got = np.frombuffer(res, dtype=d, count=len(x), offset=pos)
        pos += x.nbytes
        nan = np.isnan(x)
        assert (got[nan].view(u) == np.array(np.nan, dtype=d).view(u)).all()
        np.testing.assert_array_equal(got[~nan].view(u), x[~nan].view(u))


def _aligned(n: int, dtype: str) -> np.ndarray:
    d = np.dtype(dtype)
    raw = np.zeros(n * d.itemsize + 256, np.uint8)
    skip = -raw.__array_interface__["data"][0] % 256
    return raw[skip:skip + n * d.itemsize].view(d)


def _op(a: np.ndarray) -> L.Operand:
    return L.Operand(a.shape, a.strides, a.itemsize, a.__array_interface__["data"][0])


def test_fill_and_c_order_plans() -> None:
    """A fill has no operand: one vector loop over the result's elements.  A C-order
    copy of a transposed or stepped view writes C order (no transpose back), where a
    copy in the operand's order writes memory order."""
    for d in ("bool", "int16", "float32", "float64"):
        p = L.plan([], np.dtype(d).itemsize, shape=(3, 0, 5))
        assert p is not None and p.n == 0
        p = L.plan([], np.dtype(d).itemsize, shape=(7, 9))
        assert p is not None
        assert (p.loop, p.n, p.inverse, p.mem_shape) == ("vector", 63, None, (7, 9))
    a = _aligned(64 * 48, "float32").reshape(64, 48)
    k = L.plan([_op(a.T)], 4)
    c = L.plan([_op(a.T)], 4, c_order=True)
    assert k is not None and c is not None
    assert (k.loop, k.inverse) == ("vector", (1, 0))
    assert (c.loop, c.inverse, c.mem_shape) == ("strided", None, (48, 64))
    s = L.plan([_op(a[:, ::2])], 4, c_order=True)
    assert s is not None and s.inverse is None and s.shape == (64 * 24,)


@pytest.mark.parametrize(("base", "view"), [
    ((3, 4), lambda x: np.broadcast_to(x.T[None], (5, 4, 3))),
    ((4,), lambda x: np.broadcast_to(x, (3, 4))),
    ((3, 1), lambda x: np.broadcast_to(x, (3, 4))),
    ((6, 5), lambda x: np.broadcast_to(x[:, None, ::-1], (6, 2, 5))),
    ((4, 5), lambda x: np.broadcast_to(x.T[:, None, :], (5, 3, 4))),
])
def test_broadcast_axes_keep_their_places(base: tuple, view) -> None:
    """The result of a call whose first full-size operand is a broadcast view is laid
    out as NumPy's ufuncs lay it out: the operand's other axes in memory order, the
    broadcast ones where they are (a copy of ``broadcast_to(eye, (n, m, m))`` is C
    order, as scikit-learn's and the namespace's callers take for granted)."""
    x = view(np.arange(int(np.prod(base)), dtype=np.float32).reshape(base))
    p = L.plan([_op(x)], 4)
    assert p is not None
    out = np.empty(p.mem_shape, np.float32)
    got = out if p.inverse is None else out.transpose(p.inverse)
    assert got.strides == np.negative(x).strides, (x.strides, got.strides)


def _sources() -> list[str]:
    x = _aligned(64 * 48, "float64").reshape(64, 48)
    views = [x, x[:, 1:], x.T, x[::2, ::-3], np.broadcast_to(x[0], (5, 48))]
    out = []
    pairs = [("float32", "float64"), ("float64", "int32"), ("int64", "float32"),
             ("float32", "bool"), ("bool", "int8"), ("uint8", "uint8"), ("float64", "float64")]
    for i, (s, d) in enumerate(pairs):
        sd, dd = np.dtype(s), np.dtype(d)
        v = views[i % len(views)]
        op = L.Operand(v.shape, tuple(st // 8 * sd.itemsize for st in v.strides), sd.itemsize,
                       v.__array_interface__["data"][0])
        for c_order in (False, True):
            p = L.plan([op], dd.itemsize, c_order=c_order)
            assert p is not None
            out.append(L.kernel_source(L.convert_body(sd, dd), ["a0"], [sd], [], dd, p))
    for d in ("bool", "int8", "uint16", "int64", "float32", "float64"):
        dd = np.dtype(d)
        p = L.plan([], dd.itemsize, shape=(33, 17))
        assert p is not None
        out.append(L.kernel_source(L.FILL_BODY, [], [], [dd], dd, p))
    for d, body in L.CANONICAL_NAN_BODIES.items():
        for v in (x.astype(d), x.astype(d)[::-1]):
            p = L.plan([_op(v)], d.itemsize)
            assert p is not None
            out.append(L.kernel_source(body, ["a0"], [d], [], d, p))
    return out


def test_sources_compile(tmp_path: Path) -> None:
    assert_sources_compile(_sources(), tmp_path)
