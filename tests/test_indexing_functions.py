"""take and take_along_axis against array-api-strict."""

from __future__ import annotations

import array_api_strict as xs
import numpy as np
import pytest
from _compare import both, to_u, xps
from hypothesis import given
from hypothesis import strategies as st

import usmarray as xu

shapes = xps.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4)
index_dtypes = xps.integer_dtypes() | xps.unsigned_integer_dtypes()


@given(x=xps.arrays(xps.scalar_dtypes(), shapes), data=st.data())
def test_take(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1) | (st.none() if x.ndim == 1 else st.nothing()))
    n = x.shape[0 if axis is None else axis]
    d = data.draw(index_dtypes)
    lo = 0 if "uint" in str(d) else -n
    idx = data.draw(xps.arrays(d, st.integers(0, 5), elements={"min_value": lo, "max_value": n - 1}))
    both("take", x, idx, axis=axis)


@given(x=xps.arrays(xps.scalar_dtypes(), shapes), data=st.data())
def test_take_along_axis(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    n = x.shape[axis]
    shape = list(x.shape)
    shape[axis] = data.draw(st.integers(0, 5))
    idx = data.draw(xps.arrays(xs.int64, tuple(shape), elements={"min_value": -n, "max_value": n - 1}))
    both("take_along_axis", x, idx, axis=axis)


def test_indexing_errors():
    x = xs.reshape(xs.arange(6), (2, 3))
    both("take", x, xs.asarray([0]))  # axis required for 2-D x
    both("take", x, xs.asarray([0.0]), axis=0)  # float indices
    with pytest.raises(ValueError):
        xu.take(to_u(x), to_u(xs.asarray([[0]])), axis=0)
    with pytest.raises(ValueError):
        xu.take_along_axis(to_u(x), to_u(xs.asarray([0])), axis=0)
    with pytest.raises(TypeError):
        xu.take_along_axis(to_u(x), to_u(xs.asarray([[0.0]])), axis=0)


@pytest.mark.parametrize("device", ["numpy", "cpu"])
def test_take_out_of_bounds_names_the_largest_else_the_smallest_index(device):
    if device == "cpu" and not any(d.backend == "sycl"
                                   for d in xu.__array_namespace_info__().devices()):
        pytest.skip("no SYCL device")
    x = xu.asarray(np.arange(10.0), device=device)
    for idx, bad in (([0, 12, 3, 15, -2], 15), ([1, -11, -30, 2], -30), ([-12, 40], 40)):
        with pytest.raises(IndexError, match=rf"^take: index {bad} is out of bounds for axis 0 "
                                             r"with size 10 \(an index must lie in "
                                             r"\[-10, 10\)\)$"):
            xu.take(x, xu.asarray(np.array(idx, dtype=np.int64), device=device))
    got = xu.take(x, xu.asarray(np.array([9, -10, 0], dtype=np.int64), device=device))
    np.testing.assert_array_equal(xu.asnumpy(got), [9.0, 0.0, 0.0])
