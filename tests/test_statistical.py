"""Statistical functions against array-api-strict (values, dtype, shape, errors)."""

from __future__ import annotations

import math

import array_api_strict as xs
import numpy as np
import pytest
from _compare import both, moderate_arrays, to_u, xps
from hypothesis import given
from hypothesis import strategies as st

import usmarray as xu

# NumPy (inside array-api-strict) warns on empty means and non-positive divisors
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

shapes = xps.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)


def reduce_axes(ndim: int) -> st.SearchStrategy:
    one = st.integers(-ndim, ndim - 1) if ndim else st.nothing()
    return st.none() | one | st.lists(one, max_size=ndim, unique_by=lambda i: i % ndim).map(tuple)


def numeric(dtypes=None):
    return moderate_arrays(xps.numeric_dtypes() if dtypes is None else dtypes, shapes)


@given(x=numeric(), data=st.data())
def test_sum_prod(x, data):
    axis = data.draw(reduce_axes(x.ndim))
    keepdims = data.draw(st.booleans())
    both("sum", x, axis=axis, keepdims=keepdims, close=True)
    # prod over few elements only, so that integers do not overflow
    if math.prod(x.shape) <= 4:
        both("prod", x, axis=axis, keepdims=keepdims, close=True)


@given(x=numeric(), data=st.data())
def test_sum_dtype(x, data):
    to = data.draw(xps.numeric_dtypes())
    if x.dtype in (xs.complex64, xs.complex128) and to not in (xs.complex64, xs.complex128):
        with pytest.raises(TypeError):
            xu.sum(to_u(x), dtype=to_u(to))
        return
    if xs.isdtype(x.dtype, "real floating") and xs.isdtype(to, "integral"):
        return  # float -> int casts of out-of-range values are implementation-defined
    both("sum", x, dtype=to, close=True)


@given(x=numeric(xps.real_dtypes()), data=st.data())
def test_max_min(x, data):
    axis = data.draw(reduce_axes(x.ndim))
    keepdims = data.draw(st.booleans())
    both("max", x, axis=axis, keepdims=keepdims)
    both("min", x, axis=axis, keepdims=keepdims)


def test_max_nan_and_errors():
    x = xs.asarray([1.0, float("nan"), 3.0])
    both("max", x)
    both("min", x)
    with pytest.raises(ValueError):
        xu.max(xu.asarray([], dtype=xu.float32))
    with pytest.raises(TypeError):
        xu.max(xu.asarray([1 + 1j]))
    with pytest.raises(TypeError):
        xu.min(xu.asarray([True]))


@given(
    x=numeric(xps.floating_dtypes() | xps.complex_dtypes()),
    data=st.data(),
)
def test_mean(x, data):
    axis = data.draw(reduce_axes(x.ndim))
    both("mean", x, axis=axis, keepdims=data.draw(st.booleans()), close=True)


@given(x=numeric(xps.floating_dtypes()), data=st.data())
def test_var_std(x, data):
    axis = data.draw(reduce_axes(x.ndim))
    correction = data.draw(st.sampled_from([0, 1, 0.5, 2.0, 5]))
    keepdims = data.draw(st.booleans())
    # strict (NumPy) gives inf or a negative divisor where M - correction <= 0;
    # the standard says NaN, so compare only where the divisor is positive
    n = math.prod(x.shape) if axis is None else math.prod(
        x.shape[a] for a in ((axis,) if isinstance(axis, int) else axis)
    )
    if n - correction > 0:
        both("var", x, axis=axis, correction=correction, keepdims=keepdims, close=True)
        both("std", x, axis=axis, correction=correction, keepdims=keepdims, close=True)
    else:
        for f in (xu.var, xu.std):
            out = xu.asnumpy(f(to_u(x), axis=axis, correction=correction, keepdims=keepdims))
            assert np.all(np.isnan(out))


def test_statistical_dtype_errors():
    i = xs.asarray([1, 2, 3])
    for name in ("mean", "var", "std"):
        both(name, i)
    both("var", xs.asarray([1j]))
    both("sum", xs.asarray([True]))
    both("cumulative_sum", xs.asarray([True]))
    with pytest.raises(TypeError):
        xu.var(to_u(xs.asarray([1.0])), correction=True)


@given(x=numeric(), data=st.data())
def test_cumulative(x, data):
    if x.ndim == 0:
        with pytest.raises(ValueError):
            xu.cumulative_sum(to_u(x))
        return
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1) | st.none())
    include_initial = data.draw(st.booleans())
    both("cumulative_sum", x, axis=axis, include_initial=include_initial, close=True,
         also=(ValueError,))
    if x.shape and x.shape[-1] <= 4:
        both("cumulative_prod", x, axis=axis, include_initial=include_initial, close=True,
             also=(ValueError,))


@given(x=numeric(), data=st.data())
def test_cumulative_dtype(x, data):
    if x.ndim != 1:
        return
    to = data.draw(xps.numeric_dtypes())
    if x.dtype in (xs.complex64, xs.complex128) and to not in (xs.complex64, xs.complex128):
        return
    if xs.isdtype(x.dtype, "real floating") and xs.isdtype(to, "integral"):
        return
    both("cumulative_sum", x, dtype=to, close=True)
