"""``linspace`` gives NumPy's values bit for bit on every backend, computing in the
dtype NumPy computes in: float64 for Python numbers, float32 where the bounds are
float32 NumPy scalars or 0-D arrays (NEP 50), the complex ones likewise."""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_reliability_common import device_params

import usmarray as xp

DEVICES = device_params("numpy", "cpu", "cuda:0")

#: how a bound is passed: a Python number, a NumPy scalar, or a 0-D array of a dtype
REAL_KINDS = ("int", "float", "np.float32", "np.float64", "0d float32", "0d float64")
COMPLEX_KINDS = ("complex", "np.complex64", "0d complex64")


@st.composite
def _bound(draw, kind, finite=False):
    """(the bound usmarray gets, the bound NumPy gets); a 0-D array is made on the
    device later, from ("array", dtype, value)."""
    if kind == "int":
        v = draw(st.integers(-2**70, 2**70))
        return v, float(v)  # NumPy refuses ints past int64; within it they are these
    lim = {"min_value": -2.0**100, "max_value": 2.0**100} if finite else {}
    if kind == "float":
        v = draw(st.floats(**lim))
        return v, v
    if kind == "complex":
        v = complex(draw(st.floats(**lim)), draw(st.floats(**lim)))
        return v, v
    name = kind.split()[-1].removeprefix("np.")
    d = np.dtype(name)
    width = 8 * d.itemsize // (2 if d.kind == "c" else 1)
    part = st.floats(width=width, **lim)
    v = draw(st.builds(complex, part, part) if d.kind == "c" else part)
    if kind.startswith("0d"):
        return ("array", d, v), np.asarray(v, d)
    return d.type(v), d.type(v)


def _on(dev, b):
    if type(b) is tuple:
        return xp.asarray(b[2], dtype=getattr(xp, b[1].name), device=dev)
    return b


def _same(got, want):
    """Equal bits, NaNs equal to NaNs (their payloads are the hardware's)."""
    assert got.dtype == want.dtype and got.shape == want.shape
    for g, w in ((got.real, want.real), (got.imag, want.imag)) if want.dtype.kind == "c" \
            else ((got, want),):
        nan = np.isnan(w)
        assert np.array_equal(np.isnan(g), nan), (g, w)
        assert np.array_equal(g[~nan].view(np.uint8), w[~nan].view(np.uint8)), (g, w)


def _check(dev, start, stop, num, endpoint, dtype):
    (s, s_np), (e, e_np) = start, stop
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = np.linspace(s_np, e_np, num, endpoint=endpoint, dtype=dtype)
        got = xp.linspace(_on(dev, s), _on(dev, e), num, endpoint=endpoint,
                          dtype=getattr(xp, dtype), device=dev)
    _same(xp.asnumpy(got), want)


_SETTINGS = settings(max_examples=300, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("dev", DEVICES)
@_SETTINGS
@given(data=st.data(), num=st.integers(0, 50), endpoint=st.booleans(),
       dtype=st.sampled_from(["float32", "float64", "complex64", "complex128"]),
       kinds=st.tuples(st.sampled_from(REAL_KINDS), st.sampled_from(REAL_KINDS)))
def test_real_bounds_give_numpys_bits(dev, data, num, endpoint, dtype, kinds):
    start, stop = (data.draw(_bound(k)) for k in kinds)
    _check(dev, start, stop, num, endpoint, dtype)


@pytest.mark.parametrize("dev", DEVICES)
@_SETTINGS
@given(data=st.data(), num=st.integers(0, 50), endpoint=st.booleans(),
       dtype=st.sampled_from(["complex64", "complex128"]),
       kinds=st.tuples(st.sampled_from(REAL_KINDS + COMPLEX_KINDS),
                       st.sampled_from(COMPLEX_KINDS)))
def test_complex_bounds_give_numpys_bits(dev, data, num, endpoint, dtype, kinds):
    """Finite products only: with infinities the providers' complex multiplication
    follows C99's Annex G where NumPy's does not."""
    start, stop = (data.draw(_bound(k, finite=True)) for k in kinds)
    _check(dev, start, stop, num, endpoint, dtype)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float32_bounds_compute_in_float32(dev, dtype):
    """scipy.stats' bin edges: float32 scalar bounds, NumPy's float32 arithmetic."""
    rng = np.random.default_rng(7)
    for _ in range(200):
        lo, hi = np.sort(rng.normal(size=2).astype(np.float32) * 10)
        num = int(rng.integers(2, 21))
        _check(dev, (lo, lo), (hi, hi), num, True, dtype)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("bounds", [(np.float32(0.1), np.float32(0.7)), (0.1, 0.7)])
def test_past_float32_integers(dev, bounds):
    """Past 2**24 the index itself rounds in float32, as NumPy's arange does."""
    num = 2**24 + 5
    s, e = bounds
    _check(dev, (s, s), (e, e), num, True, "float32")
