"""The CUDA backend's own reduction kernels (``_backend/_cuda/kernels/reduce.py``) against
NumPy and against CuPy's kernels (the fallback), over random C-contiguous shapes, axis
sets, keepdims and dtypes, including the special values the namespace defines (NaN
first for argmax/argmin, NaN through max/min, inf in norms, var with correction).

Runs on a GPU machine: ``USMARRAY_DEFAULT_DEVICE=cuda:0 python -m pytest -m gpu
tests/test_cuda_kernels_reduce.py``; skips without CuPy or a GPU.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

cupy = pytest.importorskip("cupy", reason="the CUDA backend needs CuPy")

from hypothesis import assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import usmarray as xp  # noqa: E402
from usmarray import _backend  # noqa: E402

be = _backend.cuda
pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(be is None, reason="CuPy is installed but no CUDA GPU is usable"),
]

DTYPES = ["int8", "uint8", "int16", "int32", "int64", "uint32", "uint64", "float32", "float64"]
FLOATS = ["float32", "float64"]


@st.composite
def shapes_and_axes(draw, max_dims=4):
    nd = draw(st.integers(1, max_dims))
    shape = tuple(draw(st.lists(st.sampled_from([1, 2, 3, 5, 31, 32, 33, 64, 257, 1000]),
                                min_size=nd, max_size=nd)))
    if draw(st.booleans()) and nd <= 2:  # long axes: the row and split paths
        i = draw(st.integers(0, nd - 1))
        shape = shape[:i] + (draw(st.sampled_from([4096, 5000, 70_000])),) + shape[i + 1:]
    # up to 2**21 elements: four axes of up to 1000 could ask NumPy for 10**12 normal
    # draws, a test that hung until its timeout
    assume(math.prod(shape) <= 1 << 21)
    axes = draw(st.one_of(st.none(), st.integers(-nd, nd - 1),
                          st.lists(st.integers(0, nd - 1), min_size=1, max_size=nd, unique=True)
                          .map(tuple)))
    return shape, axes, draw(st.booleans())


def _data(shape, dtype, rng, special=False):
    d = np.dtype(dtype)
    if d.kind == "f":
        a = rng.standard_normal(shape).astype(d)
        if special and a.size:
            flat = a.reshape(-1)
            k = rng.integers(0, flat.size, size=max(1, flat.size // 50))
            flat[k] = rng.choice(np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], dtype=d), size=k.size)
        return a
    if d.kind == "u":
        return rng.integers(0, min(np.iinfo(d).max, 200), shape).astype(d)
    return rng.integers(max(np.iinfo(d).min, -100), min(np.iinfo(d).max, 100), shape).astype(d)


def _close(got, want, dtype, n):
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    if np.dtype(dtype).kind == "f" and got.dtype.kind == "f":
        eps = np.finfo(got.dtype).eps
        np.testing.assert_allclose(got, want, rtol=max(64, 4 * np.sqrt(max(n, 1))) * eps,
                                   atol=max(64, 4 * n) * eps, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


def _count(shape, axes):
    if axes is None:
        return int(np.prod(shape))
    axes = axes if isinstance(axes, tuple) else (axes,)
    return int(np.prod([shape[a] for a in axes]))


@settings(max_examples=30, deadline=None)
@given(sa=shapes_and_axes(), dtype=st.sampled_from(DTYPES),
       name=st.sampled_from(["sum", "prod", "max", "min"]), seed=st.integers(0, 2**16))
def test_sum_prod_max_min(sa, dtype, name, seed):
    shape, axes, keep = sa
    rng = np.random.default_rng(seed)
    a = _data(shape, dtype, rng)
    if name == "prod":
        a = (np.ones(shape) + (a % 2 if a.dtype.kind != "f" else 1e-3 * a)).astype(dtype)
    x = xp.asarray(a, device="cuda:0")
    got = xp.asnumpy(getattr(xp, name)(x, axis=axes, keepdims=keep))
    kw = {"dtype": got.dtype} if name in ("sum", "prod") else {}  # the standard's default
    assert got.dtype == (np.dtype(dtype) if not kw or a.dtype.kind == "f"
                         else np.dtype("uint64" if a.dtype.kind == "u" else "int64"))
    want = getattr(np, name)(a, axis=axes, keepdims=keep, **kw)
    _close(got, want, dtype, _count(shape, axes))


@settings(max_examples=20, deadline=None)
@given(sa=shapes_and_axes(), dtype=st.sampled_from(FLOATS), special=st.booleans(),
       name=st.sampled_from(["mean", "max", "min", "var", "std"]), seed=st.integers(0, 2**16),
       correction=st.sampled_from([0.0, 1.0]))
def test_float_statistics_and_special_values(sa, dtype, special, name, seed, correction):
    shape, axes, keep = sa
    rng = np.random.default_rng(seed)
    a = _data(shape, dtype, rng, special=special)
    x = xp.asarray(a, device="cuda:0")
    kw = {"correction": correction} if name in ("var", "std") else {}
    got = xp.asnumpy(getattr(xp, name)(x, axis=axes, keepdims=keep, **kw))
    nkw = {"ddof": correction} if kw else {}
    with np.errstate(all="ignore"):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = getattr(np, name)(a, axis=axes, keepdims=keep, **nkw)
    if name in ("var", "std") and special:
        # NaN where any inf or NaN meets the slice: compare only where finite in both
        want = np.where(np.isfinite(want), want, np.nan)
        got = np.where(np.isfinite(got), got, np.nan)
    _close(got, want, dtype, _count(shape, axes))


@settings(max_examples=20, deadline=None)
@given(sa=shapes_and_axes(max_dims=3), dtype=st.sampled_from(DTYPES + ["float32"]),
       name=st.sampled_from(["argmax", "argmin"]), special=st.booleans(),
       seed=st.integers(0, 2**16))
def test_argmax_argmin_first_nan_then_first_extremum(sa, dtype, name, special, seed):
    shape, axes, keep = sa
    if isinstance(axes, tuple):
        axes = axes[0]
    rng = np.random.default_rng(seed)
    a = _data(shape, dtype, rng, special=special)
    if a.dtype.kind != "f":
        a = (a % 7).astype(dtype)  # many ties: the first index must win
    x = xp.asarray(a, device="cuda:0")
    got = xp.asnumpy(getattr(xp, name)(x, axis=axes, keepdims=keep))
    want = getattr(np, name)(a, axis=axes, keepdims=keep)  # NumPy: first NaN, first extremum
    np.testing.assert_array_equal(got, want)


@settings(max_examples=20, deadline=None)
@given(sa=shapes_and_axes(), dtype=st.sampled_from(DTYPES + ["bool"]), seed=st.integers(0, 2**16),
       name=st.sampled_from(["any", "all", "count_nonzero"]))
def test_any_all_count_nonzero(sa, dtype, seed, name):
    shape, axes, keep = sa
    rng = np.random.default_rng(seed)
    a = rng.random(shape) < 0.9 if dtype == "bool" else (_data(shape, dtype, rng) % 3).astype(dtype)
    x = xp.asarray(a, device="cuda:0")
    got = xp.asnumpy(getattr(xp, name)(x, axis=axes, keepdims=keep))
    want = np.asarray(getattr(np, name)(a, axis=axes, keepdims=keep))
    np.testing.assert_array_equal(got, want.astype(got.dtype))


@settings(max_examples=20, deadline=None)
@given(sa=shapes_and_axes(), dtype=st.sampled_from(FLOATS), special=st.booleans(),
       scale=st.sampled_from([1.0, 1e-30, 1e30]), seed=st.integers(0, 2**16))
def test_vector_norm_scales_without_overflow(sa, dtype, special, scale, seed):
    """The 2-norm as C's hypot defines it: an infinite element gives inf even beside
    a NaN (the namespace's choice on every backend); no overflow or underflow."""
    shape, axes, keep = sa
    rng = np.random.default_rng(seed)
    a = _data(shape, dtype, rng, special=special)
    with np.errstate(all="ignore"):
        a = (a * np.asarray(scale, dtype=dtype)).astype(dtype)
        ref = np.abs(a).astype(np.longdouble)
        want = np.sqrt(np.sum(ref * ref, axis=axes, keepdims=keep))
        want = np.where(np.any(np.isinf(a), axis=axes, keepdims=keep), np.inf, want)
    x = xp.asarray(a, device="cuda:0")
    got = xp.asnumpy(xp.linalg.vector_norm(x, axis=axes, keepdims=keep))
    _close(got, np.asarray(want).astype(dtype), dtype, _count(shape, axes))


def test_kernels_take_the_call_and_agree_with_cupy(monkeypatch):
    """The kernels run (not the fallback) for a C-contiguous device array, and give what
    CuPy's own kernels give on the same data."""
    from usmarray._backend._cuda.kernels import reduce as mod

    rng = np.random.default_rng(1)
    a = rng.standard_normal((300, 7, 129)).astype(np.float32)
    x = xp.asarray(a, device="cuda:0")
    launches = []
    real_launch = mod.launch

    def counting_launch(*args, **kw):
        launches.append(args[0])
        return real_launch(*args, **kw)

    monkeypatch.setattr(mod, "launch", counting_launch)
    r = be.reductions
    results = {}
    try:
        for enabled in (True, False):
            r.enabled = enabled
            results[enabled] = [xp.asnumpy(f(x, axis=ax)) for f in (xp.sum, xp.max, xp.var)
                                for ax in (0, 1, 2, (0, 2), None)]
            if enabled:
                assert len(launches) >= 15  # at least one launch a call
                launches.clear()
    finally:
        r.enabled = True
    assert not launches  # disabled: CuPy's kernels only
    for mine, theirs in zip(results[True], results[False], strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=1e-4, atol=1e-3)


def test_repeated_calls_reuse_scratch_without_mixing_results():
    """Back-to-back calls of split reductions (partials in per-thread scratch memory)
    on different data, read only at the end, each give their own result."""
    rng = np.random.default_rng(3)
    hosts = [rng.standard_normal((1 << 20,)).astype(np.float32) for _ in range(4)]
    xs = [xp.asarray(h, device="cuda:0") for h in hosts]
    outs = [xp.sum(x) for x in xs] + [xp.max(xp.reshape(x, (64, -1)), axis=1) for x in xs]
    for h, o in zip(hosts, outs[:4], strict=True):
        np.testing.assert_allclose(xp.asnumpy(o), h.sum(dtype=np.float64), rtol=1e-5, atol=1e-2)
    for h, o in zip(hosts, outs[4:], strict=True):
        np.testing.assert_array_equal(xp.asnumpy(o), h.reshape(64, -1).max(axis=1))


def test_non_contiguous_and_empty_inputs_fall_back_with_the_same_values():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((64, 100)).astype(np.float32)
    x = xp.asarray(a, device="cuda:0")
    np.testing.assert_allclose(xp.asnumpy(xp.sum(x[:, ::3], axis=0)), a[:, ::3].sum(axis=0), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(xp.asnumpy(xp.max(xp.permute_dims(x, (1, 0)), axis=1)), a.max(axis=0))
    e = xp.zeros((0, 5), dtype=xp.float32, device="cuda:0")
    assert xp.asnumpy(xp.sum(e, axis=0)).tolist() == [0.0] * 5
    assert np.isnan(xp.asnumpy(xp.mean(e, axis=0))).all()
    with pytest.raises(ValueError):
        xp.max(e, axis=0)
