"""Sorting functions against array-api-strict (values, dtype, shape, errors)."""

from __future__ import annotations

import array_api_strict as xs
import numpy as np
import pytest
from _compare import both, to_u, xps
from hypothesis import given, settings
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


@settings(max_examples=60, deadline=None)
@given(data=st.data(), dtype=st.sampled_from(["float32", "float64"]), descending=st.booleans())
def test_numpy_backend_sort_is_the_stable_sort_bit_for_bit(data, dtype, descending):
    """The NumPy backend sorts values with NumPy's default sort and rewrites the zero run
    and the NaN tail in input order: the bits of the stable sort, -0.0/+0.0 order and NaN
    payloads included."""
    shape = data.draw(st.lists(st.integers(1, 7), min_size=1, max_size=3).map(tuple))
    specials = np.array([0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1.5], dtype=dtype)
    payload = np.array([0x7FC00123], dtype="u4").view("f4").astype(dtype)  # a quiet NaN
    pool = np.concatenate([specials, payload])
    a = np.asarray(data.draw(st.lists(st.sampled_from(list(range(pool.size))) | st.just(-1),
                                      min_size=int(np.prod(shape)),
                                      max_size=int(np.prod(shape)))))
    rng = np.random.default_rng(int(a.sum()) & 0xFFFF)
    vals = np.where(a >= 0, pool[np.clip(a, 0, None)], rng.standard_normal(a.size).astype(dtype))
    host = vals.astype(dtype).reshape(shape)
    axis = data.draw(st.integers(0, len(shape) - 1))
    x = xu.asarray(host, device="numpy")
    got = xu.asnumpy(xu.sort(x, axis=axis, descending=descending))
    if descending:
        want = np.flip(np.sort(np.flip(host, axis=axis), axis=axis, kind="stable"), axis=axis)
    else:
        want = np.sort(host, axis=axis, kind="stable")
    assert got.tobytes() == want.tobytes()
