"""Set functions against array-api-strict (values, dtype, shape) and the standard's
NaN rules (every NaN distinct, each with its own inverse entry)."""

from __future__ import annotations

import array_api_strict as xs
import numpy as np
import pytest
from _compare import both, dtype_name, to_u, xps
from hypothesis import given
from hypothesis import strategies as st

import usmarray as xu

shapes = xps.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)


def _check_unique_all(x, out) -> None:
    a = np.asarray(x).reshape(-1)
    v = xu.asnumpy(out.values)
    idx = xu.asnumpy(out.indices)
    inv = xu.asnumpy(out.inverse_indices)
    cnt = xu.asnumpy(out.counts)
    assert out.inverse_indices.shape == tuple(x.shape)
    assert out.values.dtype.name == np.asarray(x).dtype.name
    for d in (out.indices, out.inverse_indices, out.counts):
        assert d.dtype == xu.int64
    np.testing.assert_array_equal(v[inv.reshape(-1)], a)  # inverse rebuilds x
    np.testing.assert_array_equal(a[idx], v)  # indices point at the values
    assert int(cnt.sum()) == a.size
    nan = np.isnan(a) if a.dtype.kind in "fc" else np.zeros(a.shape, bool)
    # each NaN of x is its own value, with count 1 and its own inverse entry
    assert int(np.isnan(v).sum() if v.dtype.kind in "fc" else 0) == int(nan.sum())
    assert len(set(inv.reshape(-1)[nan].tolist())) == int(nan.sum())
    for k in np.flatnonzero(nan):
        assert idx[inv.reshape(-1)[k]] == k
    # non-NaN values: first occurrences and counts
    for j, val in enumerate(v):
        if isinstance(val, (float, complex, np.floating, np.complexfloating)) and np.isnan(val):
            assert cnt[j] == 1
            continue
        eq = np.flatnonzero(a == val)
        assert idx[j] == eq[0] and cnt[j] == eq.size


@given(x=xps.arrays(xps.scalar_dtypes(), shapes))
def test_unique(x):
    out = xu.unique_all(to_u(x))
    _check_unique_all(x, out)
    # without NaN the order agrees with strict (sorted); values/counts compare directly
    if not bool(np.isnan(np.asarray(x)).any() if np.asarray(x).dtype.kind in "fc" else False):
        both("unique_values", x)
        both("unique_counts", x)
        both("unique_inverse", x)
    assert out._fields == ("values", "indices", "inverse_indices", "counts")
    assert xu.unique_counts(to_u(x))._fields == ("values", "counts")
    assert xu.unique_inverse(to_u(x))._fields == ("values", "inverse_indices")


def test_unique_nan_and_zeros():
    nan = float("nan")
    x = xs.asarray([[3.0, nan], [3.0, -0.0], [0.0, nan]])
    _check_unique_all(x, xu.unique_all(to_u(x)))
    r = xu.unique_inverse(to_u(x))
    inv = xu.asnumpy(r.inverse_indices)
    assert inv[0, 1] != inv[2, 1]
    c = xs.asarray([complex(nan, 1), complex(1, nan), 1 + 0j, complex(nan, 1)])
    _check_unique_all(c, xu.unique_all(to_u(c)))
    assert xu.unique_values(to_u(c)).shape == (4,)


@given(data=st.data())
def test_isin(data):
    d1 = data.draw(xps.integer_dtypes() | xps.unsigned_integer_dtypes())
    d2 = data.draw(xps.integer_dtypes() | xps.unsigned_integer_dtypes())
    x1 = data.draw(xps.arrays(d1, shapes, elements={"min_value": 0, "max_value": 5}))
    x2 = data.draw(xps.arrays(d2, shapes, elements={"min_value": 0, "max_value": 5}))
    both("isin", x1, x2)
    if {dtype_name(d1), dtype_name(d2)} & {"uint64"} and dtype_name(d1)[0] != dtype_name(d2)[0]:
        return  # int with uint64: no promotion, both raise (checked above)
    s = data.draw(st.integers(0, 5))
    both("isin", x1, s)
    both("isin", s, x2)
    # array-api-strict 2.6 ignores invert=; check it against the plain result
    plain = xu.asnumpy(xu.isin(to_u(x1), to_u(x2)))
    np.testing.assert_array_equal(xu.asnumpy(xu.isin(to_u(x1), to_u(x2), invert=True)), ~plain)


def test_isin_errors():
    f = xs.asarray([1.0])
    i = xs.asarray([1])
    both("isin", f, i)
    both("isin", i, xs.asarray([1], dtype=xs.uint64))
    with pytest.raises(TypeError):
        xu.isin(1, 2)
    with pytest.raises(TypeError):
        xu.isin(to_u(i), 1.0)
