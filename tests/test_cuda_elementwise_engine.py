"""The CUDA elementwise engine: every function it takes, over the layouts user code makes
(offsets, steps, reversals, F order, transposes, broadcasts, 0-D, scalars, mixed dtypes,
empty arrays), gives NumPy's values (CuPy's bits for the math functions, which both
paths call), and runs through the engine rather than CuPy's kernels."""

from __future__ import annotations

import numpy as np
import pytest
from cuda_gpu import cupy_and_marks
from test_numpy_rules import assert_matches, cases, expected, inputs_of

import usmarray as xp
from usmarray.kernels import _direct

cupy, _ngpu, pytestmark = cupy_and_marks()

DEV = "cuda:0"
rng = np.random.default_rng(7)

#: (function, operand dtypes) taken exactly (integer and comparison results, IEEE
#: arithmetic with correctly rounded division)
EXACT_BINARY = {
    "add": ["float32", "float64", "int32", "int64", "uint8", "int8"],
    "subtract": ["float32", "int64", "uint16"],
    "multiply": ["float32", "float64", "int32", "uint64"],
    "divide": ["float32", "float64"],
    "equal": ["float32", "int32", "bool"],
    "not_equal": ["float64", "int8"],
    "less": ["float32", "int64", "uint32"],
    "less_equal": ["float64", "int16"],
    "greater": ["float32", "uint8"],
    "greater_equal": ["float64", "int32"],
    "maximum": ["float32", "float64", "int32"],
    "minimum": ["float32", "int64"],
    "logical_and": ["bool"], "logical_or": ["bool"], "logical_xor": ["bool"],
    "bitwise_and": ["int32", "uint8", "bool"], "bitwise_or": ["int64", "bool"],
    "bitwise_xor": ["uint16", "bool"],
}
EXACT_UNARY = {
    "negative": ["float32", "int32", "int8"], "positive": ["float64", "uint8"],
    "abs": ["float32", "int64"], "square": ["float32", "int32"],
    "isnan": ["float32", "float64", "int32"], "isinf": ["float32"],
    "isfinite": ["float64"], "signbit": ["float32"], "logical_not": ["bool"],
    "bitwise_invert": ["int32", "uint8", "bool"], "floor": ["float32"], "ceil": ["float64"],
    "trunc": ["float32"],
}
MATH_UNARY = ["sin", "cos", "exp", "log", "sqrt", "tanh", "log1p", "expm1", "atan"]


def _data(dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    d = np.dtype(dtype)
    if d.kind == "b":
        return rng.random(shape) < 0.5
    if d.kind in "iu":
        info = np.iinfo(d)
        return rng.integers(max(info.min, -1000), min(info.max, 1000), shape, dtype=d,
                            endpoint=True)
    a = rng.standard_normal(shape).astype(d) * 4
    flat = a.reshape(-1)
    if flat.size >= 8:
        flat[:8] = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, -1.0, np.nan]
    return a


#: layouts: a function of a base array (NumPy or usmarray, same indexing) -> a view
LAYOUTS = {
    "C": (lambda a: a, (37, 29)),
    "offset": (lambda a: a[1:], (1001,)),
    "step": (lambda a: a[::3], (1000,)),
    "reversed": (lambda a: a[::-1], (999,)),
    "transposed": (lambda a: a.T, (31, 45)),
    "F-order-3d": (lambda a: xp.permute_dims(a, (2, 1, 0)) if isinstance(a, xp.usm_ndarray)
                   else np.transpose(a, (2, 1, 0)), (5, 6, 7)),
    "sliced-2d": (lambda a: a[1:, ::2], (33, 40)),
    "0-D": (lambda a: a, ()),
    "empty": (lambda a: a, (0, 3)),
}


def _pair(dtype: str, layout: str) -> tuple[np.ndarray, xp.usm_ndarray]:
    view, shape = LAYOUTS[layout]
    h = _data(dtype, shape)
    return view(h), view(xp.asarray(h, device=DEV))


def _check(got: xp.usm_ndarray, want: np.ndarray) -> None:
    g = np.asarray(cupy.asnumpy(cupy.from_dlpack(got)))
    assert g.dtype == want.dtype, (g.dtype, want.dtype)
    assert g.shape == want.shape
    np.testing.assert_array_equal(g, want)
    if want.dtype.kind == "f":
        ok = ~np.isnan(want)
        assert np.array_equal(np.signbit(g[ok]), np.signbit(want[ok]))


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("name", list(EXACT_BINARY))
def test_binary_layouts(name: str, layout: str) -> None:
    for dtype in EXACT_BINARY[name]:
        h1, u1 = _pair(dtype, layout)
        h2, u2 = _pair(dtype, layout)
        before = _direct.stats["launched"]
        got = getattr(xp, name)(u1, u2)
        with np.errstate(all="ignore"):
            want = getattr(np, name)(h1, h2)
        _check(got, want)
        assert _direct.stats["launched"] == before + 1, "the call did not run on the engine"


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("name", list(EXACT_UNARY))
def test_unary_layouts(name: str, layout: str) -> None:
    np_name = {"bitwise_invert": "invert"}.get(name, name)
    for dtype in EXACT_UNARY[name]:
        h, u = _pair(dtype, layout)
        got = getattr(xp, name)(u)
        with np.errstate(all="ignore"):
            want = getattr(np, np_name)(h)
        _check(got, want)


@pytest.mark.parametrize("layout", ["C", "offset", "reversed", "transposed", "0-D"])
@pytest.mark.parametrize("name", MATH_UNARY)
def test_math_is_cupys(name: str, layout: str) -> None:
    """The engine's math functions are the CUDA math library's, bit for bit what CuPy's
    kernels give for the same elements."""
    for dtype in ("float32", "float64"):
        h, u = _pair(dtype, layout)
        got = getattr(xp, name)(u)
        want = cupy.asnumpy(getattr(cupy, name)(cupy.asarray(np.array(h, order="C"))))
        _check(got, want)


@pytest.mark.parametrize("case", ["row", "column", "0-D", "outer", "scalar-left",
                                  "scalar-right"])
def test_broadcasts_and_scalars(case: str) -> None:
    a = _data("float32", (64, 48))
    b = {"row": _data("float32", (48,)), "column": _data("float32", (64, 1)),
         "0-D": _data("float32", ()), "outer": _data("float32", (1, 48))}
    ua = xp.asarray(a, device=DEV)
    if case == "scalar-left":
        _check(2.5 - ua, (np.float32(2.5) - a))
        _check(3 > ua, np.float32(3) > a)
        return
    if case == "scalar-right":
        _check(ua * 0.5, a * np.float32(0.5))
        _check(ua <= 0, a <= 0)
        return
    if case == "outer":
        col = _data("float32", (64, 1))
        _check(xp.asarray(col, device=DEV) + xp.asarray(b["outer"], device=DEV),
               col + b["outer"])
        return
    ub = xp.asarray(b[case], device=DEV)
    _check(ua + ub, a + b[case])
    _check(ub - ua, b[case] - a)
    _check(ua > ub, a > b[case])


@pytest.mark.parametrize(("d1", "d2"), [("float32", "float64"), ("int32", "int64"),
                                        ("uint8", "int16"), ("int8", "uint32"),
                                        ("uint32", "int32")])
def test_mixed_dtypes(d1: str, d2: str) -> None:
    h1, h2 = _data(d1, (100, 7)), _data(d2, (7,))
    u1, u2 = xp.asarray(h1, device=DEV), xp.asarray(h2, device=DEV)
    _check(u1 + u2, h1 + h2)
    _check(u1 == u2, h1 == h2)
    _check(xp.maximum(u1[::-1], u2), np.maximum(h1[::-1], h2))


def test_integer_scalars_at_extremes() -> None:
    for dtype in ("int8", "uint8", "int64", "uint64"):
        info = np.iinfo(dtype)
        h = np.array([info.min, 0, 1, info.max], dtype=dtype)
        u = xp.asarray(h, device=DEV)
        _check(u + int(info.max), h + np.array(info.max, dtype=dtype))
        _check(u == int(info.min), h == info.min)
        _check(u < int(info.max), h < info.max)


def test_large_index_arithmetic() -> None:
    """Past 2**31 elements the loops index in 64 bits (a bool array: 2 GiB)."""
    n = 2**31 + 5
    try:
        u = xp.zeros(n, dtype=xp.bool, device=DEV)
    except MemoryError:
        pytest.skip("not enough device memory")
    r = xp.logical_not(u[1:])
    assert bool(xp.all(r)) and r.shape == (n - 1,)
    del r
    r = u[::-1] == u
    assert bool(xp.all(r))


def test_other_stream_takes_the_engine() -> None:
    """An array on a non-default stream runs on the engine on its own queue."""
    s = cupy.cuda.Stream(non_blocking=True)
    h = _data("float32", (1000,))
    with s:
        c = cupy.asarray(h)
    u = xp.from_dlpack(c) if hasattr(xp, "from_dlpack") else None
    if u is None:
        pytest.skip("no from_dlpack")
    before = _direct.stats["launched"]
    r = u[1:] - u[:-1]
    assert _direct.stats["launched"] == before + 1
    _check(r, h[1:] - h[:-1])


@pytest.mark.parametrize("layout", ["C", "offset", "reversed", "transposed", "0-D", "empty"])
def test_where_layouts_and_scalars(layout: str) -> None:
    hx, ux = _pair("float32", layout)
    hc, uc = hx > 0, ux > 0
    hy, uy = _pair("float64", layout)
    before = _direct.stats["launched"]
    _check(xp.where(uc, ux, 0.0), np.where(hc, hx, np.float32(0.0)))
    _check(xp.where(uc, ux, uy), np.where(hc, hx, hy))
    _check(xp.where(uc, -1.5, ux), np.where(hc, np.float32(-1.5), hx))
    hi, ui = _pair("int16", layout)
    _check(xp.where(uc, ui, -7), np.where(hc, hi, np.int16(-7)))
    _check(xp.where(uc, 300, ui), np.where(hc, np.int16(300), hi))
    _check(xp.where(uc, True, ui > 0), np.where(hc, True, hi > 0))
    assert _direct.stats["launched"] >= before + 3


def test_where_broadcasts_condition() -> None:
    h = _data("int64", (50, 30))
    row = rng.random(30) < 0.5
    u = xp.asarray(h, device=DEV)
    _check(xp.where(xp.asarray(row, device=DEV), u, u[:, :1]),
           np.where(row, h, h[:, :1]))


@pytest.mark.parametrize("layout", ["C", "offset", "reversed", "transposed", "0-D", "empty"])
@pytest.mark.parametrize(("src", "dst"), [("float32", "float64"), ("float64", "int32"),
                                          ("int64", "float32"), ("float32", "bool"),
                                          ("bool", "int8"), ("uint8", "int64")])
def test_astype_layouts(src: str, dst: str, layout: str) -> None:
    h, u = _pair(src, layout)
    if h.dtype.kind == "f" and np.dtype(dst).kind in "iu":
        h = np.nan_to_num(h, posinf=7, neginf=-7)  # C leaves these conversions undefined
        u = xp.asarray(h, device=DEV)
    before = _direct.stats["launched"]
    got = xp.astype(u, getattr(xp, dst))
    _check(got, h.astype(dst))
    if h.size:
        assert _direct.stats["launched"] == before + 1


@pytest.mark.parametrize("layout", ["C", "offset", "reversed", "transposed", "0-D"])
def test_clip_layouts_and_bounds(layout: str) -> None:
    h, u = _pair("float32", layout)
    _check(xp.clip(u, -1.0, 1.0), np.clip(h, np.float32(-1.0), np.float32(1.0)))
    _check(xp.clip(u, None, 0.5), np.minimum(h, np.float32(0.5)))
    _check(xp.clip(u, float("nan"), 1.0), np.clip(h, np.float32(np.nan), np.float32(1)))
    hi, ui = _pair("int16", layout)
    _check(xp.clip(ui, -5, 7), np.clip(hi, -5, 7).astype(np.int16))
    # array bounds: maximum then minimum, as the CUDA backend computes them (fmax/fmin,
    # NaN propagated; the sign of a zero picked between +0 and -0 is the library's)
    lo = _data("float32", h.shape)
    want = cupy.minimum(cupy.maximum(cupy.asarray(np.array(h)), cupy.asarray(lo)),
                        np.float32(2.0))
    _check(xp.clip(u, xp.asarray(lo, device=DEV), 2.0), cupy.asnumpy(want))


_NP_NAMES = {"bitwise_invert": "invert", "acos": "arccos", "acosh": "arccosh",
             "asin": "arcsin", "asinh": "arcsinh", "atan": "arctan", "atanh": "arctanh",
             "atan2": "arctan2", "pow": "power"}


def test_every_taken_signature_runs_on_the_engine() -> None:
    """Every function and real or bool dtype the generator takes runs on the engine
    (no CuPy kernel) and gives CuPy's own kernel's values, bit for bit."""
    from usmarray._elementwise import BINARY, UNARY
    from usmarray.kernels._direct import _ENGINE_FUNCTIONS, _engine_body

    for name, (cat, _) in {**UNARY, **BINARY}.items():
        for d in map(np.dtype, cat):
            if d.kind == "c" or name not in _ENGINE_FUNCTIONS or (name, d) in RULES:
                continue
            key = (name, d.char, "cuda") if name in UNARY else (name, d.char, d.char, "cuda")
            if _engine_body(key, "cuda") is False:
                continue
            h = _data(d.name, (67,))
            if d.kind in "iu":
                h = np.abs(h) % 7 + 1 if name == "pow" else h
            args = [h] if name in UNARY else [h, h[::-1].copy()]
            before = _direct.stats["launched"]
            got = getattr(xp, name)(*[xp.asarray(a, device=DEV) for a in args])
            assert _direct.stats["launched"] == before + 1, (name, d)
            with np.errstate(all="ignore"):
                want = getattr(cupy, _NP_NAMES.get(name, name))(*map(cupy.asarray, args))
            g = cupy.asnumpy(cupy.from_dlpack(got))
            w = cupy.asnumpy(want)
            if name in ("floor", "ceil", "trunc") and d.kind in "iu":
                w = w.astype(d)  # CuPy computes these in floating point; the standard keeps ints
            assert g.dtype == w.dtype, (name, d)
            if w.dtype.kind == "f":
                assert np.array_equal(g, w, equal_nan=True), (name, d)
            else:
                np.testing.assert_array_equal(g, w, err_msg=f"{name} {d}")


#: (function, dtype) written as NumPy's rules (their values are NumPy's, not CuPy's)
RULES = set(cases())


@pytest.mark.parametrize(("name", "dtype"), sorted(RULES, key=str))
@pytest.mark.parametrize("layout", ["C", "reversed", "step"])
def test_numpy_rules_on_the_device(name: str, dtype: np.dtype, layout: str) -> None:
    """floor division, remainder, shifts, integer powers, logaddexp, nextafter and the
    sign of a float give NumPy's values on every pair of special values, in views."""
    x = inputs_of(name, dtype)
    views = {"C": lambda a: a, "reversed": lambda a: a[::-1], "step": lambda a: a[::2]}
    view = views[layout]
    us = [view(xp.asarray(np.repeat(a, 2) if layout == "step" else a, device=DEV))
          for a in x]
    hs = [view(np.repeat(a, 2) if layout == "step" else a) for a in x]
    before = _direct.stats["launched"]
    got = getattr(xp, name)(*us)
    assert _direct.stats["launched"] == before + 1
    assert_matches(name, hs, cupy.asnumpy(cupy.from_dlpack(got)), expected(name, hs))


def test_float32_subnormals_are_kept() -> None:
    """float32 subnormals survive arithmetic and comparisons as in NumPy (CuPy's compile
    path would flush them: it appends -ftz=true after the caller's options)."""
    h = np.array([1e-45, -1e-45, 1e-40, 0.0], dtype=np.float32)
    u = xp.asarray(h, device=DEV)
    got = cupy.asnumpy(cupy.from_dlpack(xp.greater(u, 0.0)))
    np.testing.assert_array_equal(got, h > 0)
    got = cupy.asnumpy(cupy.from_dlpack(xp.add(u, u)))
    np.testing.assert_array_equal(got, h + h)


def test_no_cupy_elementwise_kernel() -> None:
    """Every elementwise function of the table, on every real and bool dtype it takes,
    with arrays in views, with Python scalars, and ``where``/``clip``/``astype``, launches
    no CuPy kernel: the kernels the GPU ran (CUPTI, through PyTorch's profiler) are the
    engine's."""
    torch = pytest.importorskip("torch")
    from torch.profiler import ProfilerActivity, profile

    from usmarray._elementwise import BINARY, UNARY

    calls = []
    for name, (cat, _) in {**UNARY, **BINARY}.items():
        for d in map(np.dtype, cat):
            if d.kind == "c":
                continue
            h = _data(d.name, (2, 301))
            u = xp.asarray(h, device=DEV)[:, 1::2]
            fn = getattr(xp, name)
            if name in UNARY:
                calls.append((fn, (u,)))
                continue
            s = {"b": True, "f": 0.5}.get(d.kind, 3)
            other = u[::-1]
            if name == "pow" and d.kind == "i":
                # the namespace reads a signed exponent back to refuse negative ones: a
                # contiguous one, whose read-back is a plain copy
                other = xp.asarray(_data(d.name, (2, 150)) % 5, device=DEV)
            calls += [(fn, (u, other)), (fn, (u, s))]
    f = xp.asarray(_data("float32", (2, 301)), device=DEV)[:, ::3]
    calls += [(xp.where, (f > 0, f, 0.0)), (xp.clip, (f, -1.0, 1.0)),
              (xp.astype, (f, xp.int16)), (xp.astype, (f, xp.float64))]
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for fn, args in calls:
            fn(*args)
        torch.cuda.synchronize()
    names = [e.name for e in prof.events() if e.device_type.name == "CUDA"]
    kernels = [n for n in names if not n.lower().startswith(("memcpy", "memset"))]
    assert len(kernels) >= len(calls)
    assert not [n for n in kernels if "cupy" in n.lower()], sorted(set(kernels))


# ---- the backend's own copy, astype, full and sort keys on the engine ---------------------
_BE = xp.asarray(0.0, device=DEV)._be if _ngpu else None


def _host(raw) -> np.ndarray:
    return _BE.to_host(raw)


def _pair_of(base: np.ndarray, layout: str) -> tuple[np.ndarray, xp.usm_ndarray]:
    view = LAYOUTS[layout][0]
    return view(base), view(xp.asarray(base, device=DEV))


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "uint16", "int64", "bool"])
def test_backend_copy_and_astype_of_every_layout(dtype: str, layout: str) -> None:
    """The backend's ``copy`` and ``astype`` (what ``asarray(copy=True)``, ``to_device``
    and the namespace's own conversions call) give NumPy's values in every layout, the
    copy in the source's memory order."""
    base = _data(dtype, LAYOUTS[layout][1])
    h, u = _pair_of(base, layout)
    c = _BE.copy(u._arr)
    _check_host(_host(c), h)
    if layout == "transposed":
        assert c.flags.f_contiguous  # a transposed array keeps its layout
    # float to integer only for values C defines (finite, in range)
    tame = np.clip(np.nan_to_num(base), 0, 100).astype(base.dtype)
    for dst in ("float64", "float32", "int32", "uint8", "bool"):
        hs, us = (h, u) if dst in ("float64", "float32", "bool") else _pair_of(tame, layout)
        _check_host(_host(_BE.astype(us._arr, np.dtype(dst))), hs.astype(dst))


def _check_host(g: np.ndarray, want: np.ndarray) -> None:
    assert g.dtype == want.dtype and g.shape == want.shape
    np.testing.assert_array_equal(g, want)
    if want.dtype.kind == "f":
        ok = ~np.isnan(want)
        assert np.array_equal(np.signbit(g[ok]), np.signbit(want[ok]))


def test_copies_of_broadcast_views_are_c_order() -> None:
    """A copy of ``broadcast_to(eye(3), (5, 3, 3))`` (a stride-0 leading axis over a
    C-contiguous matrix) and of a column broadcast is C order, as NumPy's ufuncs lay out
    such results."""
    e = xp.eye(3, dtype=xp.float32, device=DEV)
    b = xp.broadcast_to(e, (5, 3, 3))
    c = _BE.copy(b._arr)
    assert c.flags.c_contiguous
    np.testing.assert_array_equal(_host(c), np.broadcast_to(np.eye(3, dtype=np.float32), (5, 3, 3)))
    col = xp.asarray(np.arange(4.0), device=DEV)[:, None]
    c = _BE.copy(xp.broadcast_to(col, (4, 6))._arr)
    assert c.flags.c_contiguous
    np.testing.assert_array_equal(_host(c), np.broadcast_to(np.arange(4.0)[:, None], (4, 6)))
    t = xp.broadcast_to(xp.permute_dims(e, (1, 0))[None], (4, 3, 3))
    np.testing.assert_array_equal(_host(_BE.copy(t._arr)),
                                  np.broadcast_to(np.eye(3, dtype=np.float32).T, (4, 3, 3)))


@pytest.mark.parametrize(("dtype", "value"), [
    ("float32", 3.5), ("float32", -0.0), ("float32", 1e-45), ("float64", float("nan")),
    ("float64", -float("inf")), ("int8", -128), ("uint8", 255), ("int64", -(2**63)),
    ("uint64", 2**64 - 1), ("int16", 7), ("bool", True)])
def test_full_on_the_engine(dtype: str, value) -> None:
    """``full`` of a Python scalar stores the value's bits in every element (NumPy's
    ``full``), at sizes below, at and past a vector."""
    d = np.dtype(dtype)
    for shape in ((1,), (3, 5), (1000, 33), (0, 4)):
        got = xp.asnumpy(xp.full(shape, value, dtype=getattr(xp, dtype), device=DEV))
        want = np.full(shape, value, dtype=d)
        assert got.dtype == d and got.shape == want.shape
        np.testing.assert_array_equal(got.view(f"u{d.itemsize}"), want.view(f"u{d.itemsize}"))


@pytest.mark.parametrize("layout", ["C", "reversed", "step", "transposed"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sort_puts_nans_of_either_sign_last(dtype: str, layout: str) -> None:
    """Sort keys with every NaN made the canonical one (the engine's body): NaNs of
    either sign sort last, as in NumPy, in views too."""
    base = _data(dtype, LAYOUTS[layout][1])
    base.reshape(-1)[::5] = -np.nan
    h, u = _pair_of(base, layout)
    np.testing.assert_array_equal(xp.asnumpy(xp.sort(u, axis=-1)), np.sort(h, axis=-1))
    np.testing.assert_array_equal(xp.asnumpy(xp.argsort(u, axis=-1, stable=True)),
                                  np.argsort(h, axis=-1, kind="stable"))


def test_copy_astype_full_launch_only_usmarrays_kernels() -> None:
    """copy and astype of strided, reversed, transposed and broadcast arrays, and full,
    launch only usmarray's own kernels (all named ``k``), memsets and the driver's copies
    (a copy of a C- or F-contiguous array)."""
    torch = pytest.importorskip("torch")
    from torch.profiler import ProfilerActivity, profile

    raws = []
    for dtype in ("float32", "int16", "bool"):
        for layout in ("C", "offset", "step", "reversed", "transposed", "F-order-3d",
                       "sliced-2d"):
            raws.append(_pair(dtype, layout)[1]._arr)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for r in raws:
            _BE.copy(r)
            _BE.astype(r, np.dtype("float64"))
            _BE.astype(r, np.dtype("bool"))
        xp.full((100, 7), 2.5, dtype=xp.float32, device=DEV)
        xp.full((100, 7), -1, dtype=xp.int8, device=DEV)
        torch.cuda.synchronize()
    names = [e.name for e in prof.events() if e.device_type.name == "CUDA"]
    kernels = [n for n in names if not n.lower().startswith(("memcpy", "memset"))]
    copies = [n for n in names if n.lower().startswith("memcpy")]
    assert len(kernels) + len(copies) >= 3 * len(raws)
    assert set(kernels) == {"k"}, sorted(set(kernels))


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor", "bitwise_and",
                                  "bitwise_or", "bitwise_xor"])
def test_bool_words_with_scalars_and_broadcasts(name: str) -> None:
    """The bool functions that run on words of four bools: every lane, the tail past the
    last whole vector, Python bools on either side and a broadcast 0-D operand."""
    h = _data("bool", (4099,))
    u = xp.asarray(h, device=DEV)
    f, g = getattr(xp, name), getattr(np, name)
    for s in (True, False):
        _check(f(u, s), g(h, s))
        _check(f(s, u), g(s, h))
        _check(f(u, xp.asarray(s, device=DEV)), g(h, np.asarray(s)))
    h2 = _data("bool", (4099,))
    _check(f(u, xp.asarray(h2, device=DEV)), g(h, h2))
    _check(xp.logical_not(u), np.logical_not(h))
    _check(xp.bitwise_invert(u), np.invert(h))


def test_calls_the_engine_refuses_run_on_the_backends_kernels() -> None:
    """Complex operands and scalars (not in the generator) and a layout of more merged
    axes than the strided loop takes run on CuPy's kernels, small or large, through the
    compiled core's operators and the functions alike."""
    h = (rng.standard_normal(10) + 1j * rng.standard_normal(10)).astype(np.complex64)
    u = xp.asarray(h, device=DEV)
    _check(u + 1j, h + np.complex64(1j))
    _check(2.0 * u, np.complex64(2.0) * h)
    _check(xp.multiply(u, u), h * h)
    base = _data("float32", (3,) * 9)
    view = (slice(None, None, 2),) * 9  # nine axes no merge reduces
    hb, ub = base[view], xp.asarray(base, device=DEV)[view]
    before = _direct.stats["launched"]
    _check(ub + ub, hb + hb)
    _check(ub * 2.0, hb * np.float32(2.0))
    _check(xp.sin(ub), np.asarray(cupy.asnumpy(cupy.sin(cupy.asarray(hb)))))
    assert _direct.stats["launched"] == before
