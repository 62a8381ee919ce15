"""Sorting functions against array-api-strict (values, dtype, shape, errors)."""

from __future__ import annotations

import array_api_strict as xs
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
