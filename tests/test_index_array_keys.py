"""One index array as the whole key, and a basic key with an array value of the target's
dtype: the short paths of ``x[idx]``, ``x[mask]`` and ``x[s] = v`` give NumPy's values
and the namespace's errors on every backend."""

from __future__ import annotations

import numpy as np
import pytest

import usmarray as xp
from tests.test_reliability_common import device_params

DEVICES = device_params("numpy", "cpu", "cuda:0")
SIGNED = ("int8", "int16", "int32", "int64")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", (*SIGNED, "uint8", "uint64"))
def test_integer_array_key_gathers_as_numpy(device, dtype):
    base = np.arange(10.0) * 3
    pos = np.array([0, 9, 3, 3], dtype=dtype)
    keys = [pos] + ([np.array([-1, -10, 2], dtype=dtype)] if dtype in SIGNED else [])
    x = xp.asarray(base, device=device)
    for k in keys:
        for _ in range(2):  # the second call runs the cached backend plan
            got = x[xp.asarray(k, device=device)]
            np.testing.assert_array_equal(xp.asnumpy(got), base[k])
    m = xp.asarray(np.arange(12).reshape(3, 4), device=device)
    k2 = np.array([[2, 0], [1, 1]], dtype=dtype)
    np.testing.assert_array_equal(xp.asnumpy(m[xp.asarray(k2, device=device)]),
                                  np.arange(12).reshape(3, 4)[k2])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("bad", (10, -11, 127))
def test_integer_array_key_out_of_bounds_names_the_index(device, bad):
    x = xp.asarray(np.arange(10.0), device=device)
    idx = xp.asarray(np.array([1, bad], dtype=np.int8), device=device)
    x[xp.asarray(np.array([1], dtype=np.int8), device=device)]  # the plan is cached
    with pytest.raises(IndexError, match=(
            rf"integer array index {bad} is out of bounds for axis 0 with size 10 "
            r"\(an index must lie in \[-10, 10\)\)")):
        x[idx]


@pytest.mark.parametrize("device", DEVICES)
def test_index_array_of_another_dtype_or_device_is_refused(device):
    x = xp.asarray(np.arange(4.0), device=device)
    with pytest.raises(IndexError, match="array indices must have an integer or boolean dtype"):
        x[xp.asarray([1.0], device=device)]
    if device != "numpy":
        with pytest.raises(xp.ExecutionPlacementError):
            x[xp.asarray([1], device="numpy")]


@pytest.mark.parametrize("device", DEVICES)
def test_boolean_mask_key_selects_as_numpy(device):
    base = np.arange(12.0).reshape(3, 4)
    mask = (base % 3) == 1
    x = xp.asarray(base, device=device)
    for _ in range(2):
        got = x[xp.asarray(mask, device=device)]
        np.testing.assert_array_equal(xp.asnumpy(got), base[mask])
    rows = np.array([True, False, True])
    np.testing.assert_array_equal(xp.asnumpy(x[xp.asarray(rows, device=device)]), base[rows])
    with pytest.raises(IndexError, match=r"boolean index of shape \(2,\) does not match"):
        x[xp.asarray([True, False], device=device)]
    z = xp.asarray(np.float64(5.0), device=device)
    t = xp.asarray(np.bool_(True), device=device)
    np.testing.assert_array_equal(xp.asnumpy(z[t]), np.float64(5.0)[np.bool_(True)])


@pytest.mark.parametrize("device", DEVICES)
def test_basic_key_array_value_assigns_as_numpy(device):
    want = np.arange(10.0)
    x = xp.asarray(want, device=device)
    v = np.array([-1.0, -2.0, -3.0])
    for key in (slice(2, 5), slice(-3, None)):
        x[key] = xp.asarray(v, device=device)
        want[key] = v
    x[4] = xp.asarray(np.float64(9.0), device=device)
    want[4] = 9.0
    x[1:6] = x[0:5]  # overlapping source and target
    want[1:6] = want[0:5].copy()
    x[...] = x[::-1]
    want[...] = want[::-1].copy()
    np.testing.assert_array_equal(xp.asnumpy(x), want)
    with pytest.raises(ValueError):
        x[0:3] = xp.asarray(np.ones(2), device=device)
    with pytest.raises(IndexError):
        x[10] = xp.asarray(np.float64(1.0), device=device)
    ro = xp.broadcast_to(xp.asarray(np.zeros(1), device=device), (3,))
    with pytest.raises(ValueError, match="cannot write into this array of shape"):
        ro[0:2] = xp.asarray(np.ones(2), device=device)
    with pytest.raises(TypeError, match="cannot assign an array of dtype float64 into"):
        xp.asarray(np.zeros(3, np.float32), device=device)[0:2] = xp.asarray(
            np.ones(2), device=device)
