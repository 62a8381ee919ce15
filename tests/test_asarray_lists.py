"""``asarray`` of Python lists: short lists of floats (the short path) and every other
list give NumPy's values and the namespace's dtypes and errors on every backend."""

from __future__ import annotations

import numpy as np
import pytest

import usmarray as xp
from tests.test_backends import ToyBackend
from tests.test_reliability_common import device_params
from usmarray import _backend

DEVICES = device_params("numpy", "cpu", "cuda:0")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("values", ([1.0, 2.5, -3.0], [], [float("nan"), 1e308] * 8,
                                    [0.5] * 17, [1.0, 2], [True, 1.0], [[1.0], [2.0]]))
def test_list_values_and_dtype_as_numpy(device, values):
    dev = xp.asarray([0.0], device=device).device
    want = np.asarray(values, dtype=np.float64)
    for _ in range(2):
        x = xp.asarray(values, device=dev)
        assert x.dtype == xp.float64 and x.device == dev
        np.testing.assert_array_equal(xp.asnumpy(x), want)


@pytest.mark.parametrize("device", DEVICES)
def test_list_ints_keep_their_range_check(device):
    with pytest.raises(OverflowError, match="does not fit the default integer dtype int64"):
        xp.asarray([1.0, 2**63], device=device)
    assert xp.asarray([1, 2], device=device).dtype == xp.int64


def test_list_of_floats_on_a_device_without_double_precision_is_float32(monkeypatch):
    class _NoFp64(ToyBackend):
        def capabilities(self, q):
            return _backend.Capabilities(fp64=False)

    be = _NoFp64()
    xp.register_backend("toy32", be)
    dev = xp.asarray(np.zeros(1, np.float32), device="toy32").device
    for device in (dev, None):
        with xp.using_device(dev):
            x = xp.asarray([1.0, 2.0], device=device)
        assert x.dtype == xp.float32 and x.device == dev
        np.testing.assert_array_equal(xp.asnumpy(x), np.float32([1.0, 2.0]))


@pytest.mark.parametrize("device", DEVICES)
def test_list_of_floats_goes_to_the_default_device(device):
    dev = xp.asarray([0.0], device=device).device
    with xp.using_device(dev):
        assert xp.asarray([1.0, 2.0]).device == dev
