"""Sorting functions against array-api-strict (values, dtype, shape, errors)."""

from __future__ import annotations

import array_api_strict as xs
import numpy as np
import pytest
from _compare import both, to_u, xps
from hypothesis import given
from hypothesis import strategies as st

import usmarray as xu

shapes = xps.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=6)


@given(data=st.data())
def test_sort_argsort(data):
    d = data.draw(xps.real_dtypes())
    # few distinct values, so that stability matters
    elements = st.sampled_from([0, 1, 2, 3]) if "bool" not in str(d) else None
    x = data.draw(xps.arrays(d, shapes, elements=elements))
    axis = data.draw(st.integers(-x.ndim - 1, x.ndim))
    kw = {"axis": axis, "descending": data.draw(st.booleans())}
    both("sort", x, **kw, also=(IndexError,))
    both("argsort", x, **kw, also=(IndexError,))  # stable by default


@given(x=xps.arrays(xps.floating_dtypes(), shapes), desc=st.booleans())
def test_sort_nan(x, desc):
    # NaN sorts last ascending and first descending, as in strict
    both("sort", x, descending=desc)


def test_sort_errors():
    both("sort", xs.asarray([1j, 2j]))
    both("argsort", xs.asarray([True, False]))
    with pytest.raises(IndexError):
        xu.sort(xu.asarray(1.0))
    with pytest.raises(TypeError):
        xu.sort(to_u(xs.asarray([1, 2])), descending=1)


@pytest.mark.parametrize("desc", [False, True])
def test_sort_puts_nans_of_either_sign_last(desc):
    # a NaN with its sign bit set sorts like any NaN (CuPy's radix sort put it first)
    a = np.array([np.nan, 0.0, -np.nan, -1.0], dtype=np.float32)
    a[2] = np.copysign(np.nan, -1.0)
    x = xu.asarray(a)
    want = [-1.0, 0.0, np.nan, np.nan]
    got = xu.asnumpy(xu.sort(x, descending=desc))
    np.testing.assert_array_equal(got, want[::-1] if desc else want)
    idx = xu.asnumpy(xu.argsort(x, descending=desc))
    assert sorted(idx[2:] if not desc else idx[:2]) == [0, 2]
