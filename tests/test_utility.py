"""all, any and diff against array-api-strict."""

from __future__ import annotations

import array_api_strict as xs
import numpy as np
import pytest
from _compare import both, moderate_arrays, to_u, xps
from hypothesis import given
from hypothesis import strategies as st

import usmarray as xu

shapes = xps.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)


@given(x=xps.arrays(xps.scalar_dtypes(), shapes), data=st.data())
def test_all_any(x, data):
    one = st.integers(-x.ndim, x.ndim - 1) if x.ndim else st.nothing()
    axis = data.draw(st.none() | one | st.lists(one, max_size=x.ndim,
                                                unique_by=lambda i: i % x.ndim).map(tuple))
    keepdims = data.draw(st.booleans())
    both("all", x, axis=axis, keepdims=keepdims)
    both("any", x, axis=axis, keepdims=keepdims)


@given(data=st.data())
def test_diff(data):
    shape = data.draw(xps.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=4))
    d = data.draw(xps.numeric_dtypes())
    x = data.draw(moderate_arrays(st.just(d), shape))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = data.draw(st.integers(0, 3))
    both("diff", x, axis=axis, n=n)
    ext = list(shape)
    ext[axis] = data.draw(st.integers(0, 2))
    p = data.draw(moderate_arrays(st.just(d), tuple(ext)))
    a = data.draw(moderate_arrays(st.just(d), tuple(ext)))
    if n:
        both("diff", x, axis=axis, n=n, prepend=p, append=a)
    else:  # NumPy ignores prepend/append for n=0; the standard's size is M + N1 + N2
        out = xu.diff(to_u(x), axis=axis, n=0, prepend=to_u(p), append=to_u(a))
        want = xs.concat([p, x, a], axis=axis)
        assert out.shape == want.shape
        np.testing.assert_array_equal(xu.asnumpy(out), np.asarray(want))


def test_diff_errors():
    both("diff", xs.asarray([True, False]))
    with pytest.raises(ValueError):
        xu.diff(to_u(xs.asarray([1, 2])), n=-1)
    with pytest.raises(ValueError):
        xu.diff(to_u(xs.asarray([[1, 2]])), axis=1, prepend=to_u(xs.asarray([[1], [2]])))
    with pytest.raises(TypeError):
        xu.diff(to_u(xs.asarray([1, 2])), prepend=to_u(xs.asarray([1.0])))
