"""``concat`` of arrays of one shape and dtype (the short path) and of every other
sequence: NumPy's values, the standard's promotion and the namespace's errors on every
backend."""

from __future__ import annotations

import numpy as np
import pytest

import usmarray as xp
from tests.test_reliability_common import device_params

DEVICES = device_params("numpy", "cpu", "cuda:0")


@pytest.mark.parametrize("device", DEVICES)
def test_same_shape_and_dtype_joins_as_numpy(device):
    a = np.arange(6.0).reshape(2, 3)
    b = -a
    xa, xb = xp.asarray(a, device=device), xp.asarray(b, device=device)
    for seq in ([xa, xb], (xa, xb, xa)):
        for axis in (0, 1, -1, None):
            for _ in range(2):
                got = xp.concat(seq, axis=axis)
                want = np.concatenate([np.asarray(xp.asnumpy(s)) for s in seq], axis=axis)
                assert got.dtype == xp.float64 and got.device == xa.device
                np.testing.assert_array_equal(xp.asnumpy(got), want)
    got = xp.concat([xa, xb])
    xa[0, 0] = xp.asarray(np.float64(100.0), device=device)  # a copy, not a view
    assert float(got[0, 0]) == 0.0


@pytest.mark.parametrize("device", DEVICES)
def test_other_sequences_promote_and_name_their_errors(device):
    i32 = xp.asarray(np.arange(3, dtype=np.int32), device=device)
    f32 = xp.asarray(np.ones(2, np.float32), device=device)
    got = xp.concat([i32, i32[:2]])
    np.testing.assert_array_equal(xp.asnumpy(got), [0, 1, 2, 0, 1])
    i64 = xp.asarray(np.arange(2), device=device)
    assert xp.concat([i32, i64]).dtype == xp.int64
    with pytest.raises(TypeError):
        xp.concat([i32, f32])
    m = xp.asarray(np.zeros((2, 3)), device=device)
    with pytest.raises(ValueError, match=r"concat: arrays\[1\] has shape \(2, 2\), arrays\[0\] "
                                         r"has shape \(2, 3\); shapes must agree except along "
                                         r"axis 0"):
        xp.concat([m, m[:, :2]])
    with pytest.raises(ValueError, match="0-D arrays cannot be joined"):
        s = xp.asarray(np.float64(1.0), device=device)
        xp.concat([s, s])
    with pytest.raises((ValueError, IndexError)):
        xp.concat([m, m], axis=2)
    with pytest.raises(TypeError, match=r"concat: arrays\[1\] must be a usmarray.usm_ndarray"):
        xp.concat([m, np.zeros((2, 3))])
    if device != "numpy":
        with pytest.raises(xp.ExecutionPlacementError):
            xp.concat([m, xp.asarray(np.zeros((2, 3)), device="numpy")])
