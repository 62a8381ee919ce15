"""The CUDA backend's own kernels beyond reductions (clip with scalar bounds, creation by
memset and fill, joins in one launch) against NumPy, with the namespace's special values.

Runs on a GPU machine: ``USMARRAY_DEFAULT_DEVICE=cuda:0 python -m pytest -m gpu
tests/test_cuda_kernels_other.py``; skips without CuPy or a GPU.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

cupy = pytest.importorskip("cupy", reason="the CUDA backend needs CuPy")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import usmarray as xp  # noqa: E402
from usmarray import _backend  # noqa: E402

be = _backend.cuda
pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(be is None, reason="CuPy is installed but no CUDA GPU is usable"),
]

REAL = ["int8", "uint8", "int16", "int32", "int64", "uint64", "float32", "float64"]
SIZES = [1, 3, 4, 5, 100, 4099]


def _data(n, dtype, rng):
    d = np.dtype(dtype)
    if d.kind == "f":
        a = rng.standard_normal(n).astype(d) * 3
        a[rng.integers(0, n, size=max(1, n // 20))] = np.nan
        return a
    info = np.iinfo(d)
    return rng.integers(max(info.min, -50), min(info.max, 50), n).astype(d)


@settings(max_examples=40, deadline=None)
@given(dtype=st.sampled_from(REAL), n=st.sampled_from(SIZES), seed=st.integers(0, 2**16),
       lo=st.one_of(st.none(), st.integers(-60, 10)), hi=st.one_of(st.none(), st.integers(-10, 60)),
       as_float=st.booleans())
def test_clip_scalar_bounds_match_numpy(dtype, n, seed, lo, hi, as_float):
    a = _data(n, dtype, np.random.default_rng(seed))
    if np.dtype(dtype).kind in "iu":  # the namespace clamps int bounds to the dtype's range
        info = np.iinfo(dtype)
        lo = None if lo is None else min(max(lo, int(info.min)), int(info.max))
        hi = None if hi is None else min(max(hi, int(info.min)), int(info.max))
    if np.dtype(dtype).kind == "f" and as_float:
        lo = None if lo is None else lo + 0.25
        hi = None if hi is None else hi - 0.25
    x = xp.asarray(a, device="cuda:0")
    got = xp.clip(x, lo, hi)
    assert got.dtype == x.dtype
    want = a if lo is None else np.maximum(a, np.asarray(lo, dtype=dtype))
    want = want if hi is None else np.minimum(want, np.asarray(hi, dtype=dtype))
    np.testing.assert_array_equal(xp.asnumpy(got), want)


def test_clip_nan_bound_and_reversed_bounds_as_numpy():
    a = np.array([-2.0, 0.5, np.nan, 3.0], dtype=np.float32)
    x = xp.asarray(a, device="cuda:0")
    np.testing.assert_array_equal(xp.asnumpy(xp.clip(x, 1.0, -1.0)),
                                  np.minimum(np.maximum(a, 1.0), -1.0))
    np.testing.assert_array_equal(xp.asnumpy(xp.clip(x, math.nan, 1.0)),
                                  np.minimum(np.maximum(a, np.nan), 1.0))
    np.testing.assert_array_equal(xp.asnumpy(xp.clip(x[::2], -1.0, 1.0)),
                                  np.clip(a[::2], -1.0, 1.0))


@pytest.mark.parametrize("dtype", [*REAL, "bool", "complex64", "complex128"])
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 5), (1025, 3)])
def test_zeros_ones_full_values_and_bits(dtype, shape):
    d = np.dtype(dtype)
    xd = getattr(xp, dtype)
    for fn, want in ((xp.zeros, np.zeros), (xp.ones, np.ones)):
        got = xp.asnumpy(fn(shape, dtype=xd, device="cuda:0"))
        assert got.dtype == d and got.shape == shape
        np.testing.assert_array_equal(got, want(shape, dtype=d))
    values = {"b": [True, False], "i": [-7, 0, 5], "u": [0, int(np.iinfo(d).max) if d.kind == "u" else 0],
              "f": [-0.0, 0.0, 1.5, math.inf, math.nan], "c": [0j, 1.5 - 2j, complex(-0.0, 0.0)]}[d.kind]
    for v in values:
        got = xp.asnumpy(xp.full(shape, v, dtype=xd, device="cuda:0"))
        want = np.full(shape, v, dtype=d)
        assert got.tobytes() == want.tobytes(), (v, got, want)  # -0.0 keeps its sign bit


def test_uint64_max_fill_is_exact():
    m = 2**64 - 1
    got = xp.asnumpy(xp.full((9,), m, dtype=xp.uint64, device="cuda:0"))
    assert got.tolist() == [m] * 9


@settings(max_examples=30, deadline=None)
@given(dtype=st.sampled_from([*REAL, "bool", "complex64"]), k=st.integers(1, 6),
       nd=st.integers(1, 3), seed=st.integers(0, 2**16), data=st.data())
def test_concat_and_stack_match_numpy(dtype, k, nd, seed, data):
    rng = np.random.default_rng(seed)
    ax = data.draw(st.integers(-nd, nd - 1))
    base = [int(n) for n in rng.integers(0, 6, nd)]
    parts = []
    for _ in range(k):
        s = list(base)
        s[ax] = int(rng.integers(0, 7))
        parts.append(rng.integers(-9, 9, s).astype(dtype))
    xs = [xp.asarray(p, device="cuda:0") for p in parts]
    np.testing.assert_array_equal(xp.asnumpy(xp.concat(xs, axis=ax)), np.concatenate(parts, axis=ax))
    np.testing.assert_array_equal(xp.asnumpy(xp.concat(xs, axis=None)),
                                  np.concatenate([p.reshape(-1) for p in parts]))
    same = [rng.integers(-9, 9, base).astype(dtype) for _ in range(k)]
    sax = data.draw(st.integers(-nd - 1, nd))
    ys = [xp.asarray(p, device="cuda:0") for p in same]
    np.testing.assert_array_equal(xp.asnumpy(xp.stack(ys, axis=sax)), np.stack(same, axis=sax))


def test_concat_of_views_and_many_arrays():
    rng = np.random.default_rng(5)
    big = rng.standard_normal((40, 40)).astype(np.float32)
    x = xp.asarray(big, device="cuda:0")
    views = [x[::2], x[1::2, ::-1], xp.permute_dims(x, (1, 0))[:20]]
    want = np.concatenate([big[::2], big[1::2, ::-1], big.T[:20]], axis=0)
    np.testing.assert_array_equal(xp.asnumpy(xp.concat(views, axis=0)), want)
    many = [rng.standard_normal((3, i % 5)).astype(np.float64) for i in range(40)]
    got = xp.concat([xp.asarray(m, device="cuda:0") for m in many], axis=1)
    np.testing.assert_array_equal(xp.asnumpy(got), np.concatenate(many, axis=1))


UNARY_FLOAT = ["sin", "cos", "tan", "sinh", "cosh", "tanh", "exp", "expm1", "log", "log1p",
               "log2", "log10", "sqrt", "asinh", "atan", "abs", "negative", "square"]


@pytest.mark.parametrize("name", UNARY_FLOAT)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_engine_unary_bit_identical_to_cupys_kernels(name, dtype):
    """The engine calls the CUDA math functions CuPy's kernels call: the same bits,
    special values included (the namespace's fix-ups apply after either), but for
    float32 subnormals, which CuPy's kernels flush to zero and the engine keeps (there
    the result is NumPy's, to float32's rounding)."""
    rng = np.random.default_rng(7)
    a = (rng.standard_normal(4099) * 4).astype(dtype)
    a[:8] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e-310, 88.8]
    x = xp.asarray(a, device="cuda:0")
    with np.errstate(all="ignore"):
        got = xp.asnumpy(getattr(xp, name)(x))
        want = cupy.asnumpy(getattr(cupy, name)(cupy.asarray(a)))
        ref = getattr(np, name)(a)
    sub = (a != 0) & (np.abs(a) < np.finfo(a.dtype).tiny) if dtype == "float32" else a != a
    assert got[~sub].tobytes() == want[~sub].tobytes()
    np.testing.assert_allclose(got[sub], ref[sub], rtol=4 * np.finfo(a.dtype).eps)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64"])
def test_fast_integer_abs_negative_square_wrap_as_numpy(dtype):
    info = np.iinfo(dtype)
    a = np.array([info.min, info.min + 1, -5, 0, 7, info.max] * 3, dtype=dtype)
    x = xp.asarray(a, device="cuda:0")
    with np.errstate(all="ignore"):
        for name in ("abs", "negative", "square"):
            np.testing.assert_array_equal(xp.asnumpy(getattr(xp, name)(x)), getattr(np, name)(a))


def test_fast_logical_functions_on_bools():
    rng = np.random.default_rng(8)
    a, b = rng.random(4099) < 0.5, rng.random(4099) < 0.3
    x, y = xp.asarray(a, device="cuda:0"), xp.asarray(b, device="cuda:0")
    for name in ("logical_and", "logical_or", "logical_xor"):
        np.testing.assert_array_equal(xp.asnumpy(getattr(xp, name)(x, y)), getattr(np, name)(a, b))
    np.testing.assert_array_equal(xp.asnumpy(xp.logical_not(x)), np.logical_not(a))


@pytest.mark.parametrize("n", [1, 15, 16, 17, 4096, 4113, 70_001])
@pytest.mark.parametrize("start", [0, 3, 16])
def test_one_byte_elementwise_sixteen_a_thread(n, start):
    # kernels whose arrays all have one-byte elements run 16 elements a thread: every
    # tail length, and views off (and on) a 16-byte boundary (those go the general way)
    rng = np.random.default_rng(n + start)
    a, b = rng.random(n + start) < 0.5, rng.random(n + start) < 0.3
    i = rng.integers(-128, 128, n + start).astype(np.int8)
    u = rng.integers(0, 256, n + start).astype(np.uint8)
    x, y = xp.asarray(a, device="cuda:0")[start:], xp.asarray(b, device="cuda:0")[start:]
    xi, xu = xp.asarray(i, device="cuda:0")[start:], xp.asarray(u, device="cuda:0")[start:]
    a, b, i, u = a[start:], b[start:], i[start:], u[start:]
    for name in ("logical_and", "logical_or", "logical_xor"):
        np.testing.assert_array_equal(xp.asnumpy(getattr(xp, name)(x, y)), getattr(np, name)(a, b))
    np.testing.assert_array_equal(xp.asnumpy(xp.logical_not(x)), np.logical_not(a))
    np.testing.assert_array_equal(xp.asnumpy(xp.where(x, y, ~y)), np.where(a, b, ~b))
    np.testing.assert_array_equal(xp.asnumpy(xp.where(x, xi, xi + 1)), np.where(a, i, i + np.int8(1)))
    np.testing.assert_array_equal(xp.asnumpy(xp.astype(xi, xp.bool)), i.astype(bool))
    np.testing.assert_array_equal(xp.asnumpy(xp.astype(xu, xp.int8)), u.astype(np.int8))
    np.testing.assert_array_equal(xp.asnumpy(xp.asarray(x, copy=True)), a)
    np.testing.assert_array_equal(xp.asnumpy(xu * xu + xu), u * u + u)
    np.testing.assert_array_equal(xp.asnumpy(xp.clip(xi, -5, 9)), np.clip(i, -5, 9))
    np.testing.assert_array_equal(xp.asnumpy(xp.full(n, True, device="cuda:0")), np.ones(n, bool))
    np.testing.assert_array_equal(xp.asnumpy(xp.full(n, 7, dtype=xp.int8, device="cuda:0")),
                                  np.full(n, 7, np.int8))


def test_copy_of_a_transposed_matrix_keeps_values():
    rng = np.random.default_rng(9)
    a = rng.standard_normal((37, 64)).astype(np.float32)
    x = xp.asarray(a, device="cuda:0")
    t = xp.asarray(xp.permute_dims(x, (1, 0)), copy=True)
    np.testing.assert_array_equal(xp.asnumpy(t), a.T)
    t[0, 0] = 5.0  # a copy: the source is untouched
    assert xp.asnumpy(x)[0, 0] == a[0, 0]
    np.testing.assert_array_equal(xp.asnumpy(xp.reshape(t, (-1,)))[1:], a.T.reshape(-1)[1:])


@settings(max_examples=30, deadline=None)
@given(dtype=st.sampled_from(["int8", "int32", "int64", "uint32", "float32", "float64"]),
       shape=st.sampled_from([(1,), (5,), (1023,), (1025,), (8192,), (8193,), (70_001,),
                              (3, 5000), (2, 40_000), (300, 7), (600, 1500), (2, 3, 1100)]),
       include_initial=st.booleans(), name=st.sampled_from(["cumulative_sum", "cumulative_prod"]),
       seed=st.integers(0, 2**16))
def test_cumulative_along_the_last_axis_match_numpy(dtype, shape, include_initial, name, seed):
    rng = np.random.default_rng(seed)
    if name == "cumulative_prod":
        a = (1 + 1e-4 * rng.standard_normal(shape)).astype(dtype) if dtype.startswith("float") else \
            np.where(rng.random(shape) < 0.01, 3, 1).astype(dtype)
    else:
        a = rng.standard_normal(shape).astype(dtype) if dtype.startswith("float") else \
            rng.integers(0, 100, shape).astype(dtype)
    x = xp.asarray(a, device="cuda:0")
    got = getattr(xp, name)(x, axis=-1, include_initial=include_initial)
    fn = np.cumsum if name == "cumulative_sum" else np.cumprod
    want = fn(a.astype(np.float64) if a.dtype.kind == "f" else a, axis=-1, dtype=None
              if a.dtype.kind == "f" else np.dtype(xp.asnumpy(got).dtype))
    if include_initial:
        first = np.zeros if name == "cumulative_sum" else np.ones
        want = np.concatenate([first(shape[:-1] + (1,), dtype=want.dtype), want], axis=-1)
    g = xp.asnumpy(got)
    assert g.shape == want.shape
    if a.dtype.kind == "f":
        # rounding grows with the running sums' magnitudes, not with the values'
        n = shape[-1]
        scale = np.max(np.abs(want)) + 1.0
        np.testing.assert_allclose(g, want, rtol=4 * np.sqrt(n) * np.finfo(a.dtype).eps,
                                   atol=8 * np.sqrt(n) * np.finfo(a.dtype).eps * scale)
    else:
        np.testing.assert_array_equal(g, want)


@pytest.mark.parametrize("shape", [(2**22 + 5,), (2**24,), (3, 300_001), (200, 9000)])
@pytest.mark.parametrize("include_initial", [False, True])
def test_long_scans_in_one_pass_are_exact_in_integers(shape, include_initial):
    # many tiles a row (the single-pass look-back), int64 sums checked exactly, and a
    # float64 scan of the same integers (exact below 2**53)
    rng = np.random.default_rng(shape[-1])
    a = rng.integers(-1000, 1000, shape).astype(np.int32)
    x = xp.asarray(a, device="cuda:0")
    want = np.cumsum(a, axis=-1, dtype=np.int64)
    if include_initial:
        want = np.concatenate([np.zeros(shape[:-1] + (1,), np.int64), want], axis=-1)
    for _ in range(3):  # launches in a row reuse the pool's memory for the tiles' states
        got = xp.cumulative_sum(x, axis=-1, dtype=xp.int64, include_initial=include_initial)
        np.testing.assert_array_equal(xp.asnumpy(got), want)
    f = xp.cumulative_sum(xp.astype(x, xp.float64), axis=-1, include_initial=include_initial)
    np.testing.assert_array_equal(xp.asnumpy(f), want.astype(np.float64))


@settings(max_examples=40, deadline=None)
@given(dtype=st.sampled_from(["int8", "int32", "int64", "uint64", "float32", "float64"]),
       shapes=st.sampled_from([((5, 4), (4,)), ((3, 5, 4), (5, 4)), ((3, 5, 4), (1, 4)),
                               ((7, 3), (3,)), ((2, 1031), (1031,)), ((4096, 6), (1, 1, 6)),
                               ((9, 2, 8), (8,)), ((5, 4), (5, 1)), ((3, 5, 9), (3, 5, 1)),
                               ((6, 1031), (6, 1))]),
       name=st.sampled_from(["add", "subtract", "multiply", "divide"]), swap=st.booleans(),
       seed=st.integers(0, 2**16))
def test_row_broadcast_binary_matches_numpy(dtype, shapes, name, swap, seed):
    if name == "divide" and not dtype.startswith("float"):
        return
    rng = np.random.default_rng(seed)
    big, small = shapes
    mk = (lambda s: rng.standard_normal(s).astype(dtype)) if dtype.startswith("float") else \
        (lambda s: rng.integers(1, 50, s).astype(dtype))
    a, b = mk(big), mk(small)
    if swap:
        a, b = b, a
    x, y = xp.asarray(a, device="cuda:0"), xp.asarray(b, device="cuda:0")
    got = xp.asnumpy(getattr(xp, name)(x, y))
    with np.errstate(all="ignore"):
        want = getattr(np, name)(a, b)
    np.testing.assert_array_equal(got, want)


def test_row_broadcast_logical_and_standardization():
    rng = np.random.default_rng(11)
    X = rng.standard_normal((1000, 37)).astype(np.float32)
    x = xp.asarray(X, device="cuda:0")
    z = (x - xp.mean(x, axis=0)) / xp.std(x, axis=0)
    np.testing.assert_allclose(xp.asnumpy(z), (X - X.mean(axis=0)) / X.std(axis=0), rtol=1e-4, atol=1e-5)
    m, r = rng.random((50, 8)) < 0.5, rng.random(8) < 0.5
    np.testing.assert_array_equal(
        xp.asnumpy(xp.logical_xor(xp.asarray(r, device="cuda:0"), xp.asarray(m, device="cuda:0"))),
        np.logical_xor(r, m))


@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "float32", "float64", "complex128"])
def test_broadcast_copies_tile_and_repeat_match_numpy(dtype):
    rng = np.random.default_rng(12)
    v = rng.integers(0, 9, (5, 7)).astype(dtype)
    x = xp.asarray(v, device="cuda:0")
    for shape in [(3, 5, 7), (4, 1, 5, 7), (2, 3, 5, 7)]:
        b = xp.broadcast_to(x, shape)
        np.testing.assert_array_equal(xp.asnumpy(xp.asarray(b, copy=True)),
                                      np.broadcast_to(v, shape))
    row = xp.broadcast_to(xp.expand_dims(x[0], axis=0), (6, 7))
    np.testing.assert_array_equal(xp.asnumpy(xp.asarray(row, copy=True)),
                                  np.broadcast_to(v[0], (6, 7)))
    col = xp.broadcast_to(x[:, :1], (5, 7))  # stride 0 on the last axis: the fallback
    np.testing.assert_array_equal(xp.asnumpy(xp.asarray(col, copy=True)),
                                  np.broadcast_to(v[:, :1], (5, 7)))
    for reps in [(3,), (3, 1), (1, 3), (2, 1, 1), (2, 3), (4, 1, 1, 1), (0, 1)]:
        np.testing.assert_array_equal(xp.asnumpy(xp.tile(x, reps)), np.tile(v, reps))
    for r, axis in [(3, None), (1, None), (2, 0), (4, 1), (0, 1), (3, -1)]:
        np.testing.assert_array_equal(xp.asnumpy(xp.repeat(x, r, axis=axis)),
                                      np.repeat(v, r, axis=axis))
    np.testing.assert_array_equal(xp.asnumpy(xp.repeat(x[:, ::2], 2, axis=1)),
                                  np.repeat(v[:, ::2], 2, axis=1))


@settings(max_examples=30, deadline=None)
@given(dtype=st.sampled_from(["bool", "int8", "int16", "float32", "float64", "uint64"]),
       shape=st.sampled_from([(7,), (5, 6), (3, 4, 5), (1000,)]), data=st.data(),
       idx_dtype=st.sampled_from(["int8", "int32", "int64", "uint8"]), seed=st.integers(0, 2**16))
def test_take_with_the_check_in_the_gather(dtype, shape, data, idx_dtype, seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 100, shape).astype(dtype)
    ax = data.draw(st.integers(0, len(shape) - 1))
    n = shape[ax]
    lo = 0 if idx_dtype == "uint8" else -n
    hi = min(n, 127)
    idx = rng.integers(max(lo, -128), hi, data.draw(st.integers(0, 40))).astype(idx_dtype)
    x = xp.asarray(a, device="cuda:0")
    got = xp.take(x, xp.asarray(idx, device="cuda:0"), axis=ax)
    np.testing.assert_array_equal(xp.asnumpy(got), np.take(a, idx.astype(np.int64), axis=ax))


def test_take_out_of_bounds_names_the_index_a_prior_check_names():
    x = xp.asarray(np.arange(10.0), device="cuda:0")
    for idx, bad in (([0, 12, 3, 15, -2], 15), ([1, -11, -30, 2], -30), ([-12, 40], 40)):
        with pytest.raises(IndexError, match=rf"take: index {bad} is out of bounds for axis 0 with size 10"):
            xp.take(x, xp.asarray(np.array(idx, dtype=np.int64), device="cuda:0"))
    # the next call on the same stream starts from a clean report
    np.testing.assert_array_equal(
        xp.asnumpy(xp.take(x, xp.asarray(np.array([9, -10], dtype=np.int64), device="cuda:0"))),
        [9.0, 0.0])


def test_a_large_take_checks_the_range_of_the_indices_a_kernel_just_wrote():
    n = (1 << 20) + 3
    rng = np.random.default_rng(5)
    a = rng.standard_normal(n)
    idx = rng.integers(-n, n, n)
    x, i = xp.asarray(a, device="cuda:0"), xp.asarray(idx, device="cuda:0")
    np.testing.assert_array_equal(xp.asnumpy(xp.take(x, i)), a[idx])
    # an index array at an odd offset: the range pass reads it one index at a time
    np.testing.assert_array_equal(xp.asnumpy(xp.take(x, i[1:])), a[idx[1:]])
    bad = idx.copy()
    bad[n // 2], bad[7] = n + 7, -n - 9
    with pytest.raises(IndexError, match=rf"take: index {n + 7} is out of bounds"):
        xp.take(x, xp.asarray(bad, device="cuda:0"))
    # indices written by the kernel just before the take
    late = xp.zeros(n, dtype=xp.int64, device="cuda:0") - (n + 1)
    with pytest.raises(IndexError, match=rf"take: index {-(n + 1)} is out of bounds"):
        xp.take(x, late)
    np.testing.assert_array_equal(xp.asnumpy(xp.take(x, i)), a[idx])


def test_short_takes_and_scatters_of_one_axis_checked_in_their_own_launch():
    """A take or a scatter of a 1-D array at or below the limits of the calls checked in
    their own launch, and just above them (a range pass, then the gather or scatter):
    NumPy's values, an IndexError naming the index, nothing written by a refused scatter,
    and a clean report for the next call on the stream."""
    from usmarray._backend._cuda.kernels.gather import CHECKED_PUT_MAX, CHECKED_TAKE_MAX

    rng = np.random.default_rng(11)
    for n, k in ((10, 1), (10, 7), (5000, CHECKED_PUT_MAX), (5000, CHECKED_PUT_MAX + 1),
                 (1 << 19, CHECKED_TAKE_MAX), (1 << 19, CHECKED_TAKE_MAX + 1)):
        a = rng.standard_normal(n).astype(np.float32)
        x = xp.asarray(a, device="cuda:0")
        idx = rng.integers(-n, n, k)
        np.testing.assert_array_equal(xp.asnumpy(xp.take(x, xp.asarray(idx, device="cuda:0"))),
                                      a[idx])
        for bad in (n, -n - 1):
            j = idx.copy()
            j[k // 2] = bad
            with pytest.raises(IndexError, match=rf"take: index {bad} is out of bounds"):
                xp.take(x, xp.asarray(j, device="cuda:0"))
        # distinct indices: with repeats the order of the writes is unspecified
        m = min(k, n)
        u = rng.permutation(n)[:m] - n * rng.integers(0, 2, m)
        vals = rng.standard_normal(m).astype(np.float32)
        y, ui = xp.asarray(a, device="cuda:0"), xp.asarray(u, device="cuda:0")
        want = a.copy()
        y[ui] = xp.asarray(vals, device="cuda:0")
        want[u] = vals
        np.testing.assert_array_equal(xp.asnumpy(y), want)
        y[ui] = 2.5
        want[u] = 2.5
        np.testing.assert_array_equal(xp.asnumpy(y), want)
        for bad in (n + 3, -n - 2):
            ub = u.copy()
            ub[m // 2] = bad
            with pytest.raises(IndexError, match=rf"index {bad} is out of bounds"):
                y[xp.asarray(ub, device="cuda:0")] = 9.0
            np.testing.assert_array_equal(xp.asnumpy(y), want)
        np.testing.assert_array_equal(xp.asnumpy(xp.take(y, ui)), want[u])


@settings(max_examples=40, deadline=None)
@given(dtype=st.sampled_from(["bool", "int8", "int32", "uint64", "float32", "float64"]),
       shape=st.sampled_from([(7,), (5, 6), (3, 4, 5), (1000,), (2, 300, 3)]), data=st.data(),
       idx_dtype=st.sampled_from(["int8", "int32", "int64"]),
       value=st.sampled_from(["scalar", "0-D", "full", "row", "promoted", "strided"]),
       seed=st.integers(0, 2**16))
def test_integer_array_setitem_scatters_on_the_device(dtype, shape, data, idx_dtype, value,
                                                      seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 100, shape).astype(dtype)
    ax = data.draw(st.integers(0, len(shape) - 1))
    n = shape[ax]
    k = data.draw(st.integers(1, min(n, 40)))
    idx = rng.permutation(n)[:k] - rng.integers(0, 2, k) * n  # distinct positions, some < 0
    idx = idx.astype(idx_dtype) if n <= 128 else idx.astype(np.int32 if idx_dtype == "int8"
                                                             else idx_dtype)
    sel = shape[:ax] + (k,) + shape[ax + 1:]
    full = rng.integers(0, 100, sel).astype(dtype)
    if value == "scalar":
        v = w = bool(full.flat[0]) if dtype == "bool" else full.flat[0].item()
    elif value == "0-D":
        w = full.reshape(-1)[:1].reshape(())
        v = xp.asarray(w, device="cuda:0")
    elif value == "full":
        w, v = full, xp.asarray(full, device="cuda:0")
    elif value == "row":
        w = full[(0,) * (len(sel) - 1)][None] if len(sel) > 1 else full[:1]
        w = w.reshape(w.shape[-1:])
        v = xp.asarray(w, device="cuda:0")
    elif value == "promoted":
        small = {"bool": "bool", "int8": "int8", "int32": "int16", "uint64": "uint8",
                 "float32": "float32", "float64": "float32"}[dtype]
        w = full.astype(small)
        v = xp.asarray(w, device="cuda:0")
    else:  # a reversed, strided view of a larger array
        big = rng.integers(0, 100, sel[:-1] + (2 * sel[-1],)).astype(dtype)
        w = big[..., ::-2]
        v = xp.asarray(big, device="cuda:0")[..., ::-2]
    x = xp.asarray(a, device="cuda:0")
    key = (slice(None),) * ax + (xp.asarray(idx, device="cuda:0"),)
    if ax < len(shape) - 1 and data.draw(st.booleans()):
        key += (slice(None),)  # trailing full slices, as x[i, :] writes them
    x[key if len(key) > 1 else key[0]] = v
    want = a.copy()
    want[(slice(None),) * ax + (idx.astype(np.int64),)] = w
    np.testing.assert_array_equal(xp.asnumpy(x), want)


def test_integer_array_setitem_out_of_bounds_writes_nothing():
    a = np.arange(12.0).reshape(3, 4)
    x = xp.asarray(a, device="cuda:0")
    for key, bad in ((([0, 5, -1, 7],), 7), ((slice(None), [1, -9, 2]), -9)):
        idx = xp.asarray(np.array(key[-1], dtype=np.int64), device="cuda:0")
        k = key[:-1] + (idx,)
        with pytest.raises(IndexError, match=rf"index {bad} is out of bounds"):
            x[k if len(k) > 1 else k[0]] = -1.0
        with pytest.raises(IndexError, match=rf"index {bad} is out of bounds"):
            x[k if len(k) > 1 else k[0]] = xp.zeros(3, dtype=xp.float64, device="cuda:0")
        np.testing.assert_array_equal(xp.asnumpy(x), a)
    # the next scatter on the same stream starts from a clean report
    x[xp.asarray(np.array([2, -3]), device="cuda:0")] = 0.5
    want = a.copy()
    want[[2, 0]] = 0.5
    np.testing.assert_array_equal(xp.asnumpy(x), want)
    # the kernel wrote it: no CuPy scatter ran
    assert be.scatter_checked(x._arr, xp.asarray(np.array([1]), device="cuda:0")._arr, 2.0)
    assert be.scatter_checked(x._arr, xp.asarray(np.array([3]), device="cuda:0")._arr,
                              2.0) is False


@settings(max_examples=30, deadline=None)
@given(shape=st.sampled_from([(1,), (7,), (8192,), (8193,), (30_000,), (3, 5), (70, 300),
                              (2, 3, 4), (4, 1, 2049)]),
       dtype=st.sampled_from(["bool", "int8", "int64", "float32", "float64"]),
       density=st.sampled_from([0.0, 0.01, 0.5, 1.0]), seed=st.integers(0, 2**16))
def test_nonzero_and_boolean_masks_match_numpy(shape, dtype, density, seed):
    rng = np.random.default_rng(seed)
    flags = rng.random(shape) < density
    a = (flags * rng.integers(1, 9, shape)).astype(dtype)
    x = xp.asarray(a, device="cuda:0")
    got = xp.nonzero(x)
    want = np.nonzero(a)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(xp.asnumpy(g), w)
    v = rng.standard_normal(shape).astype(np.float32)
    y = xp.asarray(v, device="cuda:0")
    m = xp.asarray(flags, device="cuda:0")
    np.testing.assert_array_equal(xp.asnumpy(y[m]), v[flags])
    np.testing.assert_array_equal(xp.asnumpy(x[m]), a[flags])


@pytest.mark.parametrize("start", [0, 1, 7, 15])
@pytest.mark.parametrize("n", [4095, 4097, 12_289, 70_000])
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8"])
def test_one_byte_flags_at_any_alignment(start, n, dtype):
    # the wide kernels of one-byte flags: views that start off a 16-byte boundary read
    # their flags one at a time; a byte whose only set bit is the high one is nonzero
    rng = np.random.default_rng(n + start)
    flags = rng.random(n + start) < 0.3
    high = {"bool": 1, "int8": -128, "uint8": 128}[dtype]
    a = np.where(flags, high, 0).astype(dtype)
    base = xp.asarray(a, device="cuda:0")
    x = base[start:]
    want = np.nonzero(a[start:])[0]
    np.testing.assert_array_equal(xp.asnumpy(xp.nonzero(x)[0]), want)
    v = np.arange(n, dtype=np.float64)
    if dtype == "bool":
        np.testing.assert_array_equal(xp.asnumpy(xp.asarray(v, device="cuda:0")[x]), v[want])
        rows = np.arange(2 * n, dtype=np.int16).reshape(n, 2)
        np.testing.assert_array_equal(xp.asnumpy(xp.asarray(rows, device="cuda:0")[x]),
                                      rows[flags[start:]])


def _with_specials(a, rng):
    if a.dtype.kind == "f" and a.size:
        flat = a.reshape(-1)
        k = rng.integers(0, flat.size, size=max(1, flat.size // 8))
        flat[k] = rng.choice(np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0], dtype=a.dtype),
                             size=k.size)
    return a


@settings(max_examples=40, deadline=None)
@given(dtype=st.sampled_from(["int8", "uint8", "int16", "int32", "uint32", "int64", "uint64",
                              "float32", "float64"]),
       shape=st.sampled_from([(2,), (3,), (17,), (1000,), (4096,), (5, 33), (64, 2048), (2, 3, 9)]),
       descending=st.booleans(), seed=st.integers(0, 2**16))
def test_short_row_sorts_are_the_stable_sorts(dtype, shape, descending, seed):
    rng = np.random.default_rng(seed)
    a = _with_specials(rng.integers(-20, 20, shape).astype(dtype) if dtype[0] in "iu"
                       else rng.standard_normal(shape).astype(dtype), rng)
    x = xp.asarray(a, device="cuda:0")
    # the reference: NumPy's stable sort of the row (NaNs last), descending as the
    # standard has it (ties in their original order, NaNs first)
    if descending:
        order = np.flip(np.argsort(np.flip(a, axis=-1), axis=-1, kind="stable"), axis=-1)
        order = a.shape[-1] - 1 - order
    else:
        order = np.argsort(a, axis=-1, kind="stable")
    got_idx = xp.asnumpy(xp.argsort(x, axis=-1, descending=descending))
    np.testing.assert_array_equal(got_idx, order)
    got = xp.asnumpy(xp.sort(x, axis=-1, descending=descending))
    want = np.take_along_axis(a, order, axis=-1)
    if a.dtype.kind == "f":  # values and signs of zeros; NaNs where NaNs
        assert np.array_equal(np.isnan(got), np.isnan(want))
        ok = ~np.isnan(want)
        assert got[ok].tobytes() == want[ok].tobytes()
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8", "bool", "complex64"])
@pytest.mark.parametrize("n,m,k", [(1, 1, 0), (5, 5, 0), (4, 7, 2), (7, 4, -3), (3, 3, 5),
                                   (3, 3, -5), (600, 300, 1), (0, 3, 0), (70_000, 2, -69_999),
                                   (1, 1, 2**63), (2, 3, -2**63 - 5)])
def test_eye_one_kernel_matches_numpy(dtype, n, m, k):
    """eye by one kernel (complex by CuPy's): NumPy's values, every diagonal
    offset, rows beyond one grid dimension (70000 > 65535)."""
    got = xp.eye(n, m, k=k, dtype=getattr(xp, dtype), device="cuda:0")
    assert got.dtype == getattr(xp, dtype) and got.shape == (n, m)
    np.testing.assert_array_equal(xp.asnumpy(got), np.eye(n, m, k=k, dtype=dtype))


@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64", "complex128"])
def test_concat_moves_wide_words_where_every_run_allows(dtype):
    """Joins whose runs, offsets and pointers all divide 16 bytes move 16-byte words; a
    run or an offset that breaks the alignment falls back to narrower words."""
    rng = np.random.default_rng(11)
    for shapes, ax in [([(16, 64)] * 3, 0), ([(16, 64)] * 3, 1), ([(8, 64), (8, 3), (8, 61)], 1),
                       ([(5, 32), (1, 32), (7, 32)], 0), ([(2, 1, 48)] * 5, 1)]:
        parts = [(rng.standard_normal(s) * 50).astype(dtype) for s in shapes]
        got = xp.concat([xp.asarray(p, device="cuda:0") for p in parts], axis=ax)
        np.testing.assert_array_equal(xp.asnumpy(got), np.concatenate(parts, axis=ax))
    x = xp.asarray(np.arange(1000, dtype=dtype), device="cuda:0")
    got = xp.concat([x[1:513], x[3:67]], axis=0)  # pointers off the 16-byte grid
    np.testing.assert_array_equal(xp.asnumpy(got),
                                  np.concatenate([np.arange(1, 513), np.arange(3, 67)]).astype(dtype))


@pytest.mark.parametrize("name", ["sum", "mean", "max", "min", "prod", "argmax", "argmin", "var"])
def test_one_launch_reductions_repeat_and_run_on_other_streams(name):
    """Whole and per-row reductions long enough that their last block finishes the
    chunks (one launch): repeated calls (the row counters reset themselves), several
    rows, NaNs for argmax/argmin, and calls on two other streams."""
    rng = np.random.default_rng(3)
    cases = [rng.standard_normal(3_000_001).astype(np.float32),
             rng.standard_normal((7, 300_000)).astype(np.float64),
             1 + 1e-7 * rng.standard_normal((3, 200, 999)).astype(np.float64)]
    nan_case = cases[0].copy()
    nan_case[[17, 2_500_000]] = np.nan
    if name in ("argmax", "argmin", "max", "min"):
        cases.append(nan_case)
    for a in cases:
        x = xp.asarray(a, device="cuda:0")
        axis = None if a.ndim == 1 or name in ("argmax", "argmin") else tuple(range(1, a.ndim))
        want = getattr(np, name)(a.astype(np.float64) if name in ("sum", "mean", "var", "prod") else a,
                               axis=axis)
        f = getattr(xp, name)
        for s in (None, cupy.cuda.Stream(non_blocking=True), cupy.cuda.Stream()):
            for _ in range(3):
                if s is None:
                    got = xp.asnumpy(f(x, axis=axis))
                else:
                    with s:
                        got = xp.asnumpy(f(x, axis=axis))
                if name in ("argmax", "argmin"):
                    assert np.array_equal(got, want), (name, a.shape, got, want)
                else:
                    np.testing.assert_allclose(got, want, rtol=2e-5 if a.dtype == np.float32 else 1e-9,
                                               equal_nan=True)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(10_000,), (3, 5000), (1 << 17,)])
@pytest.mark.parametrize("descending", [False, True])
def test_long_row_sorts_canonical_nans_in_one_pass(dtype, shape, descending):
    """Rows too long for the block sorts go to CuPy's radix sort on a one-pass copy whose
    NaNs (either sign, any payload) are the canonical NaN: NumPy's stable order, every
    NaN last (first when descending), and the canonical NaN's bits out."""
    rng = np.random.default_rng(21)
    a = _with_specials(rng.standard_normal(shape).astype(dtype), rng)
    flat = a.reshape(-1)
    flat[::97] = np.array([0x7FC00123], dtype="u4").view("f4").astype(dtype)  # a payload
    flat[::101] = np.copysign(np.nan, -1.0)
    x = xp.asarray(a, device="cuda:0")
    if descending:
        order = a.shape[-1] - 1 - np.flip(np.argsort(np.flip(a, axis=-1), axis=-1, kind="stable"), axis=-1)
    else:
        order = np.argsort(a, axis=-1, kind="stable")
    np.testing.assert_array_equal(xp.asnumpy(xp.argsort(x, axis=-1, descending=descending)), order)
    want = np.take_along_axis(a, order, axis=-1)
    want = np.where(np.isnan(want), np.array(np.nan, dtype=dtype), want)
    got = xp.asnumpy(xp.sort(x, axis=-1, descending=descending))
    assert got.tobytes() == want.tobytes()
    np.testing.assert_array_equal(xp.asnumpy(x), a)  # the input is untouched


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "bool"])
@pytest.mark.parametrize("name", ["tril", "triu"])
def test_tril_triu_one_kernel_match_numpy(dtype, name):
    """tril/triu by one kernel: every diagonal offset, stacks, transposed and flipped
    views, and the operand unchanged."""
    rng = np.random.default_rng(8)
    for shape in [(1, 1), (5, 5), (4, 9), (9, 4), (3, 6, 7), (300, 200)]:
        a = (rng.standard_normal(shape) * 10).astype(dtype)
        x = xp.asarray(a, device="cuda:0")
        views = [(x, a), (xp.matrix_transpose(x), np.swapaxes(a, -1, -2)),
                 (xp.flip(x, axis=-1), np.flip(a, axis=-1))]
        for k in (0, 1, -1, 3, -100, 100):
            for v, h in views:
                got = getattr(xp, name)(v, k=k)
                np.testing.assert_array_equal(xp.asnumpy(got), getattr(np, name)(h, k=k))
        np.testing.assert_array_equal(xp.asnumpy(x), a)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(1, 1), (6, 6), (40, 7), (7, 40), (300, 300)])
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_direct_qr_factors(dtype, shape, mode):
    """geqrf + orgqr: Q with orthonormal columns, R upper-triangular, Q R = A, NumPy's
    shapes, on C-ordered and transposed operands, which stay unchanged."""
    rng = np.random.default_rng(9)
    a = rng.standard_normal(shape).astype(dtype)
    tol = 2e-4 if dtype == "float32" else 1e-10
    for v, h in [(xp.asarray(a, device="cuda:0"), a),
                 (xp.matrix_transpose(xp.asarray(a.T.copy(), device="cuda:0")), a)]:
        q, r = xp.linalg.qr(v, mode=mode)
        qn, rn = np.linalg.qr(h, mode=mode)
        assert q.shape == qn.shape and r.shape == rn.shape
        q, r = xp.asnumpy(q).astype(np.float64), xp.asnumpy(r).astype(np.float64)
        np.testing.assert_array_equal(r, np.triu(r))
        np.testing.assert_allclose(q @ r, h, atol=tol * max(shape) * 4)
        np.testing.assert_allclose(q.T @ q, np.eye(q.shape[1]), atol=tol * max(shape) * 4)
        np.testing.assert_array_equal(xp.asnumpy(v), h)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(2**17, 20), (600000, 4), (4096, 1024)])
@pytest.mark.parametrize("deficient", [False, True])
def test_tall_qr_through_cholesky_qr(dtype, shape, deficient, monkeypatch):
    """The reduced QR of a tall matrix of solver.CHOLQR_MIN_ELEMENTS or more is a checked
    Cholesky QR (Householder where a check fails, as it may for a rank-deficient one):
    Q with orthonormal columns, R upper-triangular with a positive diagonal, Q R = A, on
    C-ordered and transposed operands, which stay unchanged."""
    from usmarray._backend._cuda import solver

    assert shape[0] >= solver.CHOLQR_RATIO * shape[1]
    assert shape[0] * shape[1] >= solver.CHOLQR_MIN_ELEMENTS
    taken = []
    real = solver._cholesky_qr
    monkeypatch.setattr(solver, "_cholesky_qr", lambda a: taken.append(real(a)) or taken[-1])
    rng = np.random.default_rng(11)
    a = rng.standard_normal(shape).astype(dtype)
    if deficient:
        a[:, 1] = a[:, 0] * 2
    tol = 2e-4 if dtype == "float32" else 1e-11
    scale = np.linalg.norm(a.astype(np.float64), axis=0).max()
    for v in (xp.asarray(a, device="cuda:0"),
              xp.matrix_transpose(xp.asarray(a.T.copy(), device="cuda:0"))):
        q, r = xp.linalg.qr(v)
        assert q.shape == shape and r.shape == (shape[1], shape[1])
        q, r = xp.asnumpy(q).astype(np.float64), xp.asnumpy(r).astype(np.float64)
        np.testing.assert_array_equal(r, np.triu(r))
        np.testing.assert_allclose(q @ r, a, atol=tol * scale)
        np.testing.assert_allclose(q.T @ q, np.eye(shape[1]), atol=tol * 10)
        np.testing.assert_array_equal(xp.asnumpy(v), a)
        if taken[-1] is not None:
            assert np.all(np.diag(r) > 0)
    assert len(taken) == 2
    if not deficient:
        assert all(t is not None for t in taken)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 5, 33, 300])
def test_direct_eigh_reads_the_lower_triangle(dtype, n):
    """syevd on the C-order lower triangle (garbage above it is ignored): NumPy's
    ascending eigenvalues, A v = v w for the symmetric matrix, eigvalsh the same."""
    rng = np.random.default_rng(10)
    low = np.tril(rng.standard_normal((n, n)))
    sym = low + np.tril(low, -1).T
    a = (low + np.triu(rng.standard_normal((n, n)) * 100, 1)).astype(dtype)
    x = xp.asarray(a, device="cuda:0")
    tol = 2e-3 if dtype == "float32" else 1e-9
    w, v = xp.linalg.eigh(x)
    want = np.linalg.eigvalsh(sym)
    np.testing.assert_allclose(xp.asnumpy(w), want, atol=tol * max(1.0, np.abs(want).max()))
    vh = xp.asnumpy(v).astype(np.float64)
    np.testing.assert_allclose(sym @ vh, vh * xp.asnumpy(w).astype(np.float64),
                               atol=tol * max(1.0, np.abs(want).max()) * 4)
    np.testing.assert_allclose(xp.asnumpy(xp.linalg.eigvalsh(x)), xp.asnumpy(w),
                               atol=tol * max(1.0, np.abs(want).max()))
    np.testing.assert_array_equal(xp.asnumpy(x), a)


@pytest.mark.parametrize("kind", ["fft", "ifft", "rfft", "irfft"])
@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
@pytest.mark.parametrize("double", [False, True])
def test_direct_fft_on_cached_plans_matches_numpy(kind, norm, double):
    """fft/ifft/rfft/irfft along the last axis on cached cuFFT plans: NumPy's values for
    every norm, batches, odd and even irfft lengths, lengths that go to cupy.fft (n other
    than the axis), more shapes than the plan cache holds, and irfft's input unchanged."""
    rng = np.random.default_rng(12)
    real = kind == "rfft"
    dt = (np.float64 if double else np.float32) if real else (np.complex128 if double else np.complex64)
    tol = 1e-9 if double else 2e-4
    from usmarray._backend._cuda import cufft

    for shape in [(1,), (5,), (100,), (7, 64), (3, 4, 33)] + [(k,) for k in range(2, 2 + cufft.PLANS + 2)]:
        h = rng.standard_normal(shape)
        if not real:
            h = h + 1j * rng.standard_normal(shape)
        h = h.astype(dt)
        x = xp.asarray(h, device="cuda:0")
        ns = [None, shape[-1] + 3]
        if kind == "irfft":  # NumPy refuses the 0 points of a length-1 axis by default
            ns = ([None] if shape[-1] > 1 else []) + [2 * shape[-1] - 1,
                                                      2 * shape[-1] - 2 if shape[-1] > 1 else 1]
        for n in ns:
            got = xp.asnumpy(getattr(xp.fft, kind)(x, n=n, norm=norm))
            want = getattr(np.fft, kind)(h.astype(np.complex128 if not real else np.float64), n=n,
                                         norm=norm)
            assert got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(1.0, np.abs(want).max()))
        np.testing.assert_array_equal(xp.asnumpy(x), h)


@pytest.mark.parametrize("kind", ["fftn", "ifftn"])
@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
@pytest.mark.parametrize("double", [False, True])
def test_direct_fftn_on_cached_plans_matches_numpy(kind, norm, double, monkeypatch):
    """fftn/ifftn over the last two or three axes of a C-ordered array at their own
    lengths run one cached cuFFT plan (a spy counts them); other axes, padded sizes and
    non-contiguous operands go to cupy.fft.  NumPy's values either way, the input
    unchanged."""
    from usmarray._backend._cuda import cufft

    taken = []
    real = cufft.DirectFFT.run_nd
    monkeypatch.setattr(cufft.DirectFFT, "run_nd",
                        lambda self, *a: taken.append(real(self, *a)) or taken[-1])
    rng = np.random.default_rng(14)
    dt = np.complex128 if double else np.complex64
    tol = 1e-9 if double else 2e-4
    cases = [((10, 10), None, None, True), ((4, 5, 5), None, None, True),
             ((3, 6, 8), (1, 2), None, True), ((2, 3, 4, 5), (-3, -2, -1), None, True),
             ((2, 3, 4, 5), None, None, False), ((6, 8), (0,), None, False),
             ((6, 8, 3), (0, 1), None, False), ((6, 8), (0, 1), (6, 9), False),
             ((6, 8), (1, 0), None, False)]
    for shape, axes, s, direct in cases:
        h = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
        x = xp.asarray(h, device="cuda:0")
        taken.clear()
        got = xp.asnumpy(getattr(xp.fft, kind)(x, s=s, axes=axes, norm=norm))
        want = getattr(np.fft, kind)(h.astype(np.complex128), s=s, axes=axes, norm=norm)
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(1.0, np.abs(want).max()))
        assert any(t is not None for t in taken) == direct, (shape, axes, s)
        np.testing.assert_array_equal(xp.asnumpy(x), h)


@pytest.mark.parametrize("dtype", ["float32", "int64", "uint8", "bool", "float64"])
@pytest.mark.parametrize("idt", ["int64", "int32", "int8", "uint16"])
def test_take_along_axis_gathers_and_checks_in_one_launch(dtype, idt):
    """take_along_axis with its bounds check inside the gather: NumPy's values (negative
    indices wrap), every axis of 1-D to 3-D arrays, broadcast and strided operands (the
    old path), and the IndexError the NumPy backend raises, naming the same index."""
    rng = np.random.default_rng(13)
    for shape in [(7,), (4, 9), (3, 5, 6)]:
        a = (rng.standard_normal(shape) * 20).astype(dtype)
        x = xp.asarray(a, device="cuda:0")
        for ax in range(len(shape)):
            n = shape[ax]
            ishape = shape[:ax] + (int(rng.integers(1, 8)),) + shape[ax + 1:]
            lo = 0 if idt[0] == "u" else -n
            ind = rng.integers(lo, n, ishape).astype(idt)
            got = xp.take_along_axis(x, xp.asarray(ind, device="cuda:0"), axis=ax)
            np.testing.assert_array_equal(xp.asnumpy(got), np.take_along_axis(a, ind.astype(np.int64), axis=ax))
            if len(shape) > 1:  # broadcast indices, strided indices
                b = ind[(slice(None),) * ax + (slice(None),) + (slice(0, 1),) * (len(shape) - ax - 1)]
                np.testing.assert_array_equal(
                    xp.asnumpy(xp.take_along_axis(x, xp.asarray(b, device="cuda:0"), axis=ax)),
                    np.take_along_axis(a, np.broadcast_to(b, ishape[:ax + 1] + shape[ax + 1:]).astype(np.int64), axis=ax))
            if idt[0] != "u":
                for bad in (n, -n - 1, n + 40):
                    worse = ind.copy()
                    worse.reshape(-1)[-1] = bad
                    with pytest.raises(IndexError) as gpu_err:
                        xp.take_along_axis(x, xp.asarray(worse, device="cuda:0"), axis=ax)
                    with pytest.raises(IndexError) as host_err:
                        xp.take_along_axis(xp.asarray(a, device="numpy"), xp.asarray(worse, device="numpy"), axis=ax)
                    assert str(gpu_err.value) == str(host_err.value)


@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("n,m", [(1, 1), (7, 20), (1000, 333), (4099, 4096)])
def test_searchsorted_one_kernel_matches_numpy(dtype, side, n, m):
    """The binary-search kernel gives NumPy's positions: NaNs (sorted last, and as
    values), signed zeros, repeated values, a strided x1, a sorter, n-D and 0-D x2."""
    rng = np.random.default_rng(n + m)
    h1 = np.sort(_data(n, dtype, rng))
    h2 = np.concatenate([_data(m, dtype, rng), h1[: min(n, 5)]])
    if np.dtype(dtype).kind == "f":
        h2[:2] = [-0.0, 0.0]
    x1, x2 = xp.asarray(h1, device="cuda:0"), xp.asarray(h2, device="cuda:0")
    got = xp.searchsorted(x1, x2, side=side)
    assert got.dtype == xp.int64
    np.testing.assert_array_equal(xp.asnumpy(got), np.searchsorted(h1, h2, side=side))
    # a strided x1 and an n-D x2
    wide = np.repeat(h1, 2)
    x1s = xp.asarray(wide, device="cuda:0")[::2]
    k = (len(h2) // 2) * 2
    got = xp.searchsorted(x1s, xp.reshape(x2[:k], (2, k // 2)), side=side)
    np.testing.assert_array_equal(xp.asnumpy(got),
                                  np.searchsorted(h1, h2[:k].reshape(2, k // 2), side=side))
    # a sorter over a shuffled x1
    perm = rng.permutation(n)
    shuffled = h1[perm]
    sorter = np.argsort(shuffled, kind="stable")
    got = xp.searchsorted(xp.asarray(shuffled, device="cuda:0"), x2, side=side,
                          sorter=xp.asarray(sorter, device="cuda:0"))
    np.testing.assert_array_equal(xp.asnumpy(got),
                                  np.searchsorted(shuffled, h2, side=side, sorter=sorter))
    got = xp.searchsorted(x1, x2[1], side=side)  # a 0-D value
    assert got.shape == () and int(got) == np.searchsorted(h1, h2[1], side=side)


@pytest.mark.parametrize("dtype", REAL + ["bool"])
def test_one_element_setitem_by_one_store(dtype):
    """x[i, j] = scalar writes that element's bits and nothing else: every dtype,
    negative indices, strided and offset views, a 0-D array, values cast as NumPy
    casts them; an index out of range is the namespace's IndexError, nothing written."""
    d = np.dtype(dtype)
    rng = np.random.default_rng(3)
    h = (rng.integers(0, 2, (6, 9)) if d.kind == "b" else rng.integers(-5, 6, (6, 9))).astype(d)
    x = xp.asarray(h, device="cuda:0")
    values = [True, False] if d.kind == "b" else [7, 0, 1] if d.kind in "iu" else [2.5, -0.0, 7]
    keys = [(0, 0), (5, 8), (-1, -9), (2, -3)]
    for key, v in zip(keys, values * 2, strict=False):
        x[key] = v
        h[key] = v
    v = x[1::2, ::-3]  # a strided view of the same memory
    hv = h[1::2, ::-3]
    v[1, 2] = values[0]
    hv[1, 2] = values[0]
    got = xp.asnumpy(x)
    assert got.tobytes() == h.tobytes(), (got, h)
    z = xp.asarray(h[0, 0], device="cuda:0")
    z[()] = values[-1]
    assert xp.asnumpy(z).tobytes() == np.asarray(values[-1], dtype=d).tobytes()
    with pytest.raises(IndexError):
        x[6, 0] = values[0]
    assert xp.asnumpy(x).tobytes() == h.tobytes()
    # a 0-D array as the value (scikit-learn's _fill_diagonal), of this and a narrower dtype
    narrow = {"int64": "int8", "uint64": "uint8", "int32": "int16", "float64": "float32",
              "int16": "int8"}.get(dtype, dtype)
    for vd in {dtype, narrow}:
        val = xp.asarray(values[0], dtype=getattr(xp, vd), device="cuda:0")
        x[3, 4] = val
        x[-2, -2] = x[3, 4]  # the value a view of the target
        h[3, 4] = h[-2, -2] = np.asarray(values[0], dtype=vd)
        assert xp.asnumpy(x).tobytes() == h.tobytes()


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "int64", "bool"])
@pytest.mark.parametrize("shape,mdim", [((50, 7), 1), ((4099, 3), 1), ((6, 5, 4), 2),
                                        ((6, 5, 4), 1), ((3, 1, 2), 1)])
def test_row_mask_selects_whole_rows(dtype, shape, mdim):
    """x[mask] with a mask of x's leading axes (scikit-learn's X[y == k]): NumPy's rows
    in order, none selected, all selected."""
    rng = np.random.default_rng(shape[0])
    h = (rng.standard_normal(shape) * 5).astype(dtype)
    x = xp.asarray(h, device="cuda:0")
    for m in (rng.random(shape[:mdim]) < 0.4, np.zeros(shape[:mdim], bool),
              np.ones(shape[:mdim], bool)):
        got = x[xp.asarray(m, device="cuda:0")]
        assert got.shape == h[m].shape
        np.testing.assert_array_equal(xp.asnumpy(got), h[m])


_WHERE_SHAPES = [
    ((5, 8), (5, 8), (8,)), ((5, 8), (8,), (5, 8)), ((5, 8), (5, 1), (5, 8)),
    ((8,), (5, 8), (5, 1)), ((5, 8), (), (5, 8)), ((5, 8), (5, 8), ()),
    ((1, 8), (5, 1), (8,)), ((3, 4, 1031), (1031,), (3, 4, 1031)), ((6, 7), (6, 7), (1, 7)),
    ((4099, 3), (4099, 1), (3,)), ((2, 3, 4), (2, 3, 1), (4,)), ((7,), (7,), ()),
    ((5, 1), (5, 6), (5, 6)), ((), (), (9,)), ((2, 1, 4), (2, 3, 4), (4,)),
]


@settings(max_examples=60, deadline=None)
@given(dtype=st.sampled_from(REAL + ["bool"]), shapes=st.sampled_from(_WHERE_SHAPES),
       start=st.sampled_from([0, 1, 3]), seed=st.integers(0, 2**16))
def test_where_with_broadcast_operands_matches_numpy(dtype, shapes, start, seed):
    """where(c, x, y) whose operands are full, row vectors, columns or one element (the
    one-launch kernel) and the shapes it leaves to CuPy: NumPy's values, at aligned and
    unaligned starts (slices of a longer buffer)."""
    rng = np.random.default_rng(seed)
    d = np.dtype(dtype)

    def mk(s, kind):
        n = math.prod(s)
        if kind == "c":
            h = rng.random(n + start) < 0.5
        elif d.kind == "b":
            h = rng.random(n + start) < 0.5
        else:
            h = _data(n + start, d, rng)
        return h, xp.reshape(xp.asarray(h, device="cuda:0")[start:], s), h[start:].reshape(s)

    _, c, hc = mk(shapes[0], "c")
    _, x, hx = mk(shapes[1], "x")
    _, y, hy = mk(shapes[2], "y")
    got = xp.asnumpy(xp.where(c, x, y))
    want = np.where(hc, hx, hy)
    assert got.shape == want.shape
    assert got.tobytes() == want.tobytes()


def test_where_with_a_python_scalar_and_a_broadcast_view():
    """where(mask, X, 0.0) and where with a broadcast_to view as an operand."""
    rng = np.random.default_rng(5)
    H = rng.standard_normal((300, 64)).astype(np.float32)
    X = xp.asarray(H, device="cuda:0")
    np.testing.assert_array_equal(xp.asnumpy(xp.where(X > 0, X, 0.0)), np.where(H > 0, H, 0.0))
    r = xp.broadcast_to(X[0], (300, 64))
    np.testing.assert_array_equal(xp.asnumpy(xp.where(X > 0, r, X)), np.where(H > 0, H[0], H))


def test_may_share_memory_of_contiguous_and_strided_views():
    """The backend's overlap test: overlapping views, neighbours, empty arrays, 0-D
    elements and strided views agree with NumPy's bounds test on the host copy."""
    x = xp.zeros((10, 10), dtype=xp.float32, device="cuda:0")
    h = np.zeros((10, 10), dtype=np.float32)
    pairs = [(lambda a: a[:5], lambda a: a[5:]), (lambda a: a[:5], lambda a: a[4:]),
             (lambda a: a[2, 3, ...], lambda a: a), (lambda a: a[2, 3, ...], lambda a: a[3]),
             (lambda a: a[:0], lambda a: a), (lambda a: a[:, ::2], lambda a: a[0]),
             (lambda a: a[:, 1::2], lambda a: a[9, 9, ...]), (lambda a: a.T, lambda a: a[5:]),
             (lambda a: a[2, 3, ...], lambda a: a[2, 4, ...])]
    for f, g in pairs:
        got = be.may_share_memory(f(x)._arr, g(x)._arr)
        assert got == np.may_share_memory(f(h), g(h)), (f, g)
    assert not be.may_share_memory(x._arr, xp.zeros((10, 10), dtype=xp.float32,
                                                    device="cuda:0")._arr)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64", "uint32",
                                   "uint64"])
@pytest.mark.parametrize("case", ["labels", "negative", "extremes", "wide", "one", "window",
                                  "past"])
def test_unique_values_of_integers_without_a_sort(dtype, case):
    """unique_values, unique_counts, unique_inverse and unique_all of 2**16 or more
    integers: the presence-bitmap path where the values
    fit its window (labels, negative values, near the dtype's extremes, one value, values
    at both edges of the window around the first one) and the sort where one does not
    (wide, one past the window's edge): NumPy's sorted values, of any shape."""
    from usmarray._backend._cuda.kernels.unique import DENSE_MIN, WINDOW

    d = np.dtype(dtype)
    info = np.iinfo(d)
    rng = np.random.default_rng(len(case) + d.itemsize)
    n = DENSE_MIN + 8
    half = WINDOW // 2
    if case == "labels":
        h = rng.integers(0, min(1000, info.max), n, dtype=d)
    elif case == "negative":
        h = rng.integers(max(info.min, -300), 40, n) if d.kind == "i" else rng.integers(0, 9, n)
    elif case == "extremes":  # the top of the range, then the bottom (8 and 16 bits)
        h = rng.integers(info.max - 5000 if d.itemsize > 2 else info.max - 50, info.max, n,
                         dtype=d, endpoint=True)
        if d.itemsize <= 2:
            h[::2] = rng.integers(info.min, info.min + 50, h[::2].size, dtype=d)
    elif case == "wide":
        h = rng.integers(info.min, info.max, n, dtype=d, endpoint=True)
    elif case == "one":
        h = np.full(n, info.min + 3, dtype=d)
    else:  # the first value 0, others at the window's two edges; "past": one beyond
        if d.itemsize < 4:
            pytest.skip("an 8- or 16-bit dtype never leaves the window")
        h = np.zeros(n, dtype=np.int64)
        h[1::3] = half - 1
        h[2::3] = -half if d.kind == "i" else 5
        if case == "past":
            h[-1] = half
    h = np.asarray(h).astype(d)
    want = np.unique(h)
    got = xp.asnumpy(xp.unique_values(xp.asarray(h, device="cuda:0")))
    assert got.dtype == d
    np.testing.assert_array_equal(got, want)
    m = xp.reshape(xp.asarray(h, device="cuda:0"), (8, -1))
    np.testing.assert_array_equal(xp.asnumpy(xp.unique_values(m)), want)
    # the counts, inverse and first indices of the same pass
    v, idx, inv, cnt = np.unique(h.reshape(8, -1), return_index=True, return_inverse=True,
                                 return_counts=True)
    r = xp.unique_all(m)
    for got_part, want_part in zip(r, (v, idx, inv.reshape(8, -1), cnt), strict=True):
        np.testing.assert_array_equal(xp.asnumpy(got_part), want_part)
    r = xp.unique_counts(m)
    np.testing.assert_array_equal(xp.asnumpy(r.values), v)
    np.testing.assert_array_equal(xp.asnumpy(r.counts), cnt)
    r = xp.unique_inverse(m)
    np.testing.assert_array_equal(xp.asnumpy(r.values), v)
    assert r.inverse_indices.shape == (8, n // 8) and r.inverse_indices.dtype == xp.int64
    np.testing.assert_array_equal(xp.asnumpy(r.inverse_indices), inv.reshape(8, -1))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sorts_and_searches_keep_subnormals_in_place(dtype):
    """Rows sorted by the kernels and searchsorted order subnormals between zero and the
    smallest normal number as NumPy does, on a GPU whose float comparisons flush them
    (the keys are made from the bits): -0.0 equal to 0.0, NaN last."""
    fi = np.finfo(dtype)
    tiny = fi.smallest_subnormal
    vals = np.array([3 * tiny, 0.0, -tiny, tiny, -0.0, fi.tiny, np.nan, -fi.tiny, 2 * tiny,
                     -3 * tiny, 1.0], dtype=dtype)
    rng = np.random.default_rng(4)
    for n in (len(vals), 700):  # the bitonic and the radix row kernels
        h = rng.choice(vals, size=(3, n))
        x = xp.asarray(h, device="cuda:0")
        got = xp.asnumpy(xp.sort(x, axis=-1))
        want = np.sort(h, axis=-1)
        np.testing.assert_array_equal(got, want)
        order = xp.asnumpy(xp.argsort(x, axis=-1, stable=True))
        np.testing.assert_array_equal(np.take_along_axis(h, order, axis=-1), want)
    s = np.sort(vals)
    xs = xp.asarray(s, device="cuda:0")
    for side in ("left", "right"):
        got = xp.asnumpy(xp.searchsorted(xs, xp.asarray(vals, device="cuda:0"), side=side))
        np.testing.assert_array_equal(got, np.searchsorted(s, vals, side=side))
        assert int(xp.searchsorted(xs, float(tiny), side=side)) == np.searchsorted(
            s, tiny, side=side)
