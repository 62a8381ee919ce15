"""``stack`` of arrays of one shape and dtype (the short path of lock-free one-queue
backends) and of every other sequence: NumPy's values, the standard's promotion and the
namespace's errors on every backend."""

from __future__ import annotations

import numpy as np
import pytest

import usmarray as xp
from tests.test_reliability_common import device_params

DEVICES = device_params("numpy", "cpu", "cuda:0")


@pytest.mark.parametrize("device", DEVICES)
def test_same_shape_and_dtype_stacks_as_numpy(device):
    a = np.arange(6.0).reshape(2, 3)
    xa, xb = xp.asarray(a, device=device), xp.asarray(-a, device=device)
    for seq in ([xa, xb], (xa, xb, xa), [xa[:, ::2], xb[:, ::2]], [xa.mT, xb.mT]):
        host = [np.asarray(xp.asnumpy(s)) for s in seq]
        for axis in (0, 1, 2, -1, -2, -3):
            for _ in range(2):
                got = xp.stack(seq, axis=axis)
                assert got.dtype == xp.float64 and got.device == xa.device
                np.testing.assert_array_equal(xp.asnumpy(got), np.stack(host, axis=axis))
    s = xp.asarray(np.float64(2.0), device=device)
    np.testing.assert_array_equal(xp.asnumpy(xp.stack([s, s])), [2.0, 2.0])
    got = xp.stack([xa, xb])
    xa[0, 0] = xp.asarray(np.float64(100.0), device=device)  # a copy, not a view
    assert float(got[0, 0, 0]) == 0.0


@pytest.mark.parametrize("device", DEVICES)
def test_other_sequences_promote_and_name_their_errors(device):
    i32 = xp.asarray(np.arange(3, dtype=np.int32), device=device)
    i64 = xp.asarray(np.arange(3), device=device)
    f32 = xp.asarray(np.ones(3, np.float32), device=device)
    assert xp.stack([i32, i64]).dtype == xp.int64
    np.testing.assert_array_equal(xp.asnumpy(xp.stack([i32])), [[0, 1, 2]])
    with pytest.raises(TypeError):
        xp.stack([i32, f32])
    with pytest.raises(ValueError, match=r"stack: arrays\[1\] has shape \(2,\), arrays\[0\] "
                                         r"has shape \(3,\); all arrays must have the same "
                                         "shape"):
        xp.stack([i64, i64[:2]])
    for axis in (2, -3):
        with pytest.raises((ValueError, IndexError), match="stack"):
            xp.stack([i64, i64], axis=axis)
    with pytest.raises(TypeError, match=r"stack: arrays\[1\] must be a usmarray.usm_ndarray"):
        xp.stack([i64, np.zeros(3)])
    if device != "numpy":
        with pytest.raises(xp.ExecutionPlacementError):
            xp.stack([i64, xp.asarray(np.zeros(3, np.int64), device="numpy")])
