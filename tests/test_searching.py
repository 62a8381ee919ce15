"""Searching functions against array-api-strict (values, dtype, shape, errors)."""

from __future__ import annotations

import array_api_strict as xs
import numpy as np
import pytest
from _compare import both, moderate_arrays, to_u, xps
from hypothesis import given
from hypothesis import strategies as st

import usmarray as xu

shapes = xps.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)
nonempty = xps.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4)


@given(x=xps.arrays(xps.real_dtypes(), nonempty), data=st.data())
def test_argmax_argmin(x, data):
    axis = data.draw(st.none() | st.integers(-x.ndim - 1, x.ndim))
    keepdims = data.draw(st.booleans())
    if x.ndim == 0 and axis is not None:
        # no axis is valid for a 0-D array ([-N, N) is empty); NumPy accepts 0 and -1
        with pytest.raises(IndexError):
            xu.argmax(to_u(x), axis=axis)
        return
    # NaN is the extremum: both give the index of its first occurrence
    both("argmax", x, axis=axis, keepdims=keepdims, also=(IndexError,))
    both("argmin", x, axis=axis, keepdims=keepdims, also=(IndexError,))


def test_argmax_errors():
    both("argmax", xs.asarray([1j]))
    with pytest.raises(ValueError):
        xu.argmax(xu.asarray([], dtype=xu.float32))
    nans = xs.asarray([1.0, float("nan"), 2.0, float("nan")] * 300)
    both("argmax", nans)
    both("argmin", nans)


@given(x=xps.arrays(xps.scalar_dtypes(), shapes), data=st.data())
def test_count_nonzero_nonzero(x, data):
    one = st.integers(-x.ndim, x.ndim - 1) if x.ndim else st.nothing()
    axis = data.draw(st.none() | one | st.lists(one, max_size=x.ndim,
                                                unique_by=lambda i: i % x.ndim).map(tuple))
    both("count_nonzero", x, axis=axis, keepdims=data.draw(st.booleans()))
    if x.ndim:
        both("nonzero", x)
    else:
        with pytest.raises(ValueError):
            xu.nonzero(to_u(x))


@given(data=st.data())
def test_searchsorted(data):
    d = data.draw(xps.real_dtypes())
    x1 = xs.sort(data.draw(xps.arrays(d, st.integers(0, 8), elements={"allow_nan": False})))
    x2 = data.draw(xps.arrays(d, st.sampled_from([(), (3,), (2, 2)]),
                              elements={"allow_nan": False}))
    side = data.draw(st.sampled_from(["left", "right"]))
    both("searchsorted", x1, x2, side=side)
    # a Python scalar x2 (2025.12)
    v = data.draw(st.integers(-5, 5) | st.floats(-5, 5))
    both("searchsorted", x1, v, side=side)
    # sorter: indices that sort an unsorted x1
    u = data.draw(xps.arrays(d, st.integers(0, 8), elements={"allow_nan": False}))
    both("searchsorted", u, x2, side=side, sorter=xs.argsort(u))


def test_searchsorted_errors():
    x1 = xs.asarray([1, 2, 3])
    with pytest.raises(ValueError):
        xu.searchsorted(to_u(x1), to_u(x1), side="middle")
    with pytest.raises(ValueError):
        xu.searchsorted(xu.asarray([[1, 2]]), 1)
    with pytest.raises(TypeError):
        xu.searchsorted(to_u(x1), 1.5)  # float with an integer array
    with pytest.raises(TypeError):
        xu.searchsorted(to_u(x1), to_u(xs.asarray([1.0])))  # mixed kinds
    out = xu.searchsorted(to_u(xs.asarray([1.0, 2.0, 3.0])), 2)
    assert out.shape == () and out.dtype == xu.int64 and int(out) == 1


@given(data=st.data())
def test_where(data):
    bshapes = data.draw(xps.mutually_broadcastable_shapes(3, max_dims=3, max_side=3))
    c = data.draw(xps.arrays(xs.bool, bshapes.input_shapes[0]))
    d1 = data.draw(xps.scalar_dtypes())
    d2 = data.draw(xps.scalar_dtypes())
    x1 = data.draw(moderate_arrays(st.just(d1), bshapes.input_shapes[1]))
    x2 = data.draw(moderate_arrays(st.just(d2), bshapes.input_shapes[2]))
    both("where", c, x1, x2)
    s = data.draw(st.booleans() | st.integers(-100, 100) | st.floats(-1e3, 1e3) |
                  st.complex_numbers(max_magnitude=1e3))
    both("where", c, x1, s)
    both("where", c, s, x2)


def test_where_errors():
    c = xs.asarray([True, False])
    both("where", c, xs.asarray([1, 2], dtype=xs.int8), 300)  # int out of range
    both("where", c, xs.asarray([1, 2]), xs.asarray([1.0, 2.0]))  # mixed kinds
    both("where", xs.asarray([1, 0]), xs.asarray([1, 2]), 0)  # non-bool condition
    with pytest.raises(TypeError):
        xu.where(to_u(c), 1, 2)
    with pytest.raises(ValueError):
        xu.where(to_u(c), to_u(xs.asarray([1, 2, 3])), 0)
    out = xu.where(to_u(c), to_u(xs.asarray([1.0, 2.0], dtype=xs.float32)), 1j)
    assert out.dtype == xu.complex64
    np.testing.assert_array_equal(xu.asnumpy(out), [1, 1j])
