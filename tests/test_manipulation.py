"""Manipulation functions against array-api-strict (values, dtype, shape, errors)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _compare import both, to_u, xps
from hypothesis import given
from hypothesis import strategies as st

import usmarray as xu
from usmarray import _backend

shapes = xps.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4)
any_arrays = xps.arrays(xps.scalar_dtypes(), shapes)


def axis_for(ndim: int) -> st.SearchStrategy:
    return st.integers(-ndim - 1, ndim)  # one invalid value on each side


@given(data=st.data(), n=st.integers(1, 3))
def test_broadcast_arrays_and_shapes(data, n):
    bshapes = data.draw(xps.mutually_broadcastable_shapes(n, max_dims=4, max_side=3))
    arrays = [data.draw(xps.arrays(xps.scalar_dtypes(), s)) for s in bshapes.input_shapes]
    out = both("broadcast_arrays", *arrays)
    assert isinstance(out, tuple)
    both("broadcast_shapes", *bshapes.input_shapes)
    both("broadcast_to", arrays[0], bshapes.result_shape)


def test_broadcast_errors():
    both("broadcast_shapes", (2, 3), (4,))
    assert xu.broadcast_shapes() == ()
    both("broadcast_to", xps_array((2, 3)), (3, 3))
    both("broadcast_to", xps_array((2, 3)), (3,))


def xps_array(shape, dtype=None):
    import array_api_strict as xs

    return xs.reshape(xs.arange(math.prod(shape), dtype=dtype or xs.int64), shape)


@given(data=st.data())
def test_concat_stack(data):
    shape = data.draw(xps.array_shapes(min_dims=1, max_dims=3, max_side=3))
    dtypes = data.draw(st.lists(xps.scalar_dtypes(), min_size=1, max_size=3))
    axis = data.draw(axis_for(len(shape)))
    arrays = []
    for d in dtypes:
        s = list(shape)
        if 0 <= axis < len(shape) or -len(shape) <= axis < 0:
            s[axis] = data.draw(st.integers(0, 3))
        arrays.append(data.draw(xps.arrays(d, tuple(s))))
    both("concat", arrays, axis=axis)
    both("concat", tuple(arrays), axis=None)
    same = [data.draw(xps.arrays(d, shape)) for d in dtypes]
    both("stack", same, axis=data.draw(st.integers(-len(shape) - 2, len(shape) + 1)))


def test_concat_stack_errors():
    a, b = xps_array((2, 3)), xps_array((3, 2))
    both("concat", [a, b], axis=0)
    both("stack", [a, b])
    with pytest.raises(ValueError):
        xu.concat([], axis=0)
    with pytest.raises(ValueError):
        xu.concat([to_u(xps_array(()))], axis=0)


@given(x=any_arrays, data=st.data())
def test_expand_dims(x, data):
    both("expand_dims", x, axis=data.draw(st.integers(-x.ndim - 2, x.ndim + 1)))
    axes = data.draw(
        st.lists(st.integers(-x.ndim - 3, x.ndim + 2), max_size=3).map(tuple)
    )
    both("expand_dims", x, axis=axes)


@given(x=any_arrays, data=st.data())
def test_flip_squeeze_unstack(x, data):
    axes = st.integers(-x.ndim, x.ndim - 1) if x.ndim else st.nothing()
    ax = data.draw(st.none() | axes | st.lists(axes, unique_by=lambda i: i % max(x.ndim, 1)).map(tuple))
    both("flip", x, axis=ax)
    sq = data.draw(axes | st.lists(axes, unique_by=lambda i: i % max(x.ndim, 1)).map(tuple)) if x.ndim else ()
    both("squeeze", x, axis=sq)
    if x.ndim:
        # strict raises ValueError for a bad axis, usmarray IndexError (as everywhere)
        both("unstack", x, axis=data.draw(axis_for(x.ndim)), also=(IndexError,))


@given(x=xps.arrays(xps.scalar_dtypes(), xps.array_shapes(min_dims=1, max_dims=4)), data=st.data())
def test_permute_moveaxis(x, data):
    perm = data.draw(st.permutations(range(x.ndim)))
    perm = tuple(p - x.ndim if data.draw(st.booleans()) else p for p in perm)
    both("permute_dims", x, perm)
    src = data.draw(st.lists(st.integers(-x.ndim, x.ndim - 1), max_size=x.ndim,
                             unique_by=lambda i: i % x.ndim))
    dst = data.draw(st.lists(st.integers(-x.ndim, x.ndim - 1), min_size=len(src),
                             max_size=len(src), unique_by=lambda i: i % x.ndim))
    both("moveaxis", x, tuple(src), tuple(dst))
    both("moveaxis", x, data.draw(axis_for(x.ndim)), data.draw(axis_for(x.ndim)))


def test_permute_errors():
    x = xps_array((2, 3))
    both("permute_dims", x, (0, 0))
    both("permute_dims", x, (0,))
    both("permute_dims", x, (0, 2))


@given(x=any_arrays, data=st.data())
def test_reshape(x, data):
    size = math.prod(x.shape)
    divisors = [d for d in range(1, size + 1) if size % d == 0] or [0]
    d = data.draw(st.sampled_from(divisors))
    shape = data.draw(st.sampled_from([(size,), (d, size // d if d else 0), (-1, d) if d else (0,),
                                       (d, -1) if d else (-1,), (size + 1,)]))
    both("reshape", x, shape)
    ux = to_u(x)
    out = xu.reshape(ux, (size,), copy=True)
    assert out.shape == (size,)
    if size > 1 and x.ndim == 2 and x.shape[0] > 1 and x.shape[1] > 1:
        with pytest.raises(ValueError):
            xu.reshape(ux.mT, (size,), copy=False)


@given(x=any_arrays, data=st.data())
def test_roll(x, data):
    shift = data.draw(st.integers(-5, 5))
    both("roll", x, shift)
    if x.ndim:
        axes = data.draw(st.lists(st.integers(-x.ndim, x.ndim - 1), min_size=1, max_size=3).map(tuple))
        both("roll", x, shift, axis=axes)
        shifts = data.draw(st.lists(st.integers(-5, 5), min_size=len(axes), max_size=len(axes)).map(tuple))
        both("roll", x, shifts, axis=axes)


@given(x=any_arrays, data=st.data())
def test_repeat(x, data):
    both("repeat", x, data.draw(st.integers(0, 3)))
    if x.ndim:
        ax = data.draw(st.integers(-x.ndim, x.ndim - 1))
        n = x.shape[ax]
        reps = data.draw(xps.arrays(xps.integer_dtypes() | xps.unsigned_integer_dtypes(),
                                    st.sampled_from([(1,), (n,)]),
                                    elements={"min_value": 0, "max_value": 3}))
        both("repeat", x, reps, axis=ax)


def test_repeat_errors():
    x = xps_array((2, 3))
    with pytest.raises(ValueError):
        xu.repeat(to_u(x), -1)
    with pytest.raises(TypeError):
        xu.repeat(to_u(x), 1.5)
    with pytest.raises(ValueError):
        xu.repeat(to_u(x), xu.asarray([1, 2, 3]), axis=0)


@given(x=any_arrays, reps=st.lists(st.integers(0, 3), max_size=4).map(tuple))
def test_tile(x, reps):
    both("tile", x, reps)


def test_views_share_memory():
    x = xu.asarray(np.arange(6, dtype=np.int64).reshape(2, 3))
    v = xu.expand_dims(x, axis=(0, -1))
    assert v.shape == (1, 2, 3, 1)
    f = xu.flip(x, axis=1)
    x[0, 0] = 100  # a write through x shows in the view: one memory
    assert int(f[0, 2]) == 100 and int(v[0, 0, 0, 0]) == 100


@pytest.mark.skipif(_backend.sycl is None, reason="the SYCL backend's reshape fast path")
@pytest.mark.parametrize("case", [
    ("arange", (24,), (2, 3, 4)), ("slice", (20,), (4, 5)), ("2d", (4, 6), (6, 4)),
    ("2d", (4, 6), (24,)), ("0-d", (), (1, 1)), ("empty", (0, 3), (3, 0, 2)),
    ("readonly", (6,), (2, 3)), ("other queue", (12,), (3, 4)), ("shared", (8,), (2, 2, 2)),
])
def test_sycl_reshape_fast_path_matches_the_provider(case):
    import dpctl

    be = _backend.sycl
    pt = be.provider
    kind, src_shape, shape = case
    n = math.prod(src_shape)
    base = pt.reshape(pt.arange(n + 5, dtype="f4", usm_type="shared" if kind == "shared" else "device"), (-1,))
    a = base[5:] if kind == "slice" else base[:n]
    a = pt.reshape(a, src_shape)
    if kind == "readonly":
        a.flags.writable = False
    if kind == "other queue":
        a = a.to_device(dpctl.SyclQueue(a.sycl_context, a.sycl_device))
        a.sycl_queue.wait()  # the copy to the new (out-of-order) queue, done before reads
    got, want = be.reshape(a, shape), pt.reshape(a, shape)
    assert got.shape == want.shape
    if got.size:  # strides matter only along dimensions longer than 1 (C strides, as NumPy)
        assert [s for s, k in zip(got.strides, shape, strict=True) if k > 1] == \
            [s for s, k in zip(want.strides, shape, strict=True) if k > 1]
    assert got.sycl_queue == a.sycl_queue and got.usm_type == a.usm_type
    assert got.flags.writable == want.flags.writable == a.flags.writable
    assert got._pointer == want._pointer  # a view, not a copy
    np.testing.assert_array_equal(pt.asnumpy(got), pt.asnumpy(want))
