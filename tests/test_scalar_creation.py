"""``full`` and ``asarray`` of a Python float (the lean path of lock-free one-queue
backends, the general path elsewhere) and ``reshape``: NumPy's values, the namespace's
dtypes, devices and errors, on every backend."""

from __future__ import annotations

import numpy as np
import pytest

import usmarray as xp
from tests.test_backends import ToyBackend
from tests.test_reliability_common import device_params
from usmarray import _backend

DEVICES = device_params("numpy", "cpu", "cuda:0")


def _device(name):
    return xp.asarray([0.0], device=name).device


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("value", (2.5, -0.0, float("nan"), float("inf"), 1e308, 3.4e38))
@pytest.mark.parametrize("dtype", (None, "float32", "float64", "complex64", "complex128"))
def test_full_of_a_float_is_numpys(device, value, dtype):
    dev = _device(device)
    d = None if dtype is None else getattr(xp, dtype)
    for shape in (5, (2, 3), (), 0):
        x = xp.full(shape, value, dtype=d, device=dev)
        want = np.full(shape, value, np.dtype(dtype or "float64"))
        assert x.dtype == (d or xp.float64) and x.device == dev and x.shape == want.shape
        np.testing.assert_array_equal(xp.asnumpy(x), want)


@pytest.mark.parametrize("device", DEVICES)
def test_full_of_a_float_into_ints_and_bool_keeps_the_general_rules(device):
    dev = _device(device)
    np.testing.assert_array_equal(xp.asnumpy(xp.full(3, 2.7, dtype=xp.int32, device=dev)),
                                  np.full(3, 2, np.int32))
    np.testing.assert_array_equal(xp.asnumpy(xp.full(2, 0.5, dtype=xp.bool, device=dev)),
                                  np.full(2, True))
    with pytest.raises(ValueError, match="NaN cannot fill an array of integer dtype"):
        xp.full(3, float("nan"), dtype=xp.int64, device=dev)
    with pytest.raises(OverflowError, match="does not fit integer dtype int8"):
        xp.full(3, 300.0, dtype=xp.int8, device=dev)


@pytest.mark.parametrize("device", DEVICES)
def test_full_of_a_float_checks_dtype_then_shape(device):
    dev = _device(device)
    for _ in range(2):  # the second from a cached plan
        with pytest.raises(TypeError, match="is not a dtype of the array API standard"):
            xp.full(3, 1.0, dtype=np.float64, device=dev)
    with pytest.raises(ValueError, match="negative"):
        xp.full(-1, 1.0, device=dev)
    with pytest.raises(TypeError, match="full: shape must be an int"):
        xp.full(3.0, 1.0, device=dev)
    with pytest.raises(MemoryError):
        xp.full(2**62, 1.0, device=dev)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("value", (1.5, -0.0, float("nan"), 1e308))
def test_asarray_of_a_float_is_a_0d_default_float(device, value):
    dev = _device(device)
    for d in (dev, None):
        with xp.using_device(dev):
            x = xp.asarray(value, device=d)
        assert x.shape == () and x.dtype == xp.float64 and x.device == dev
        np.testing.assert_array_equal(xp.asnumpy(x), np.asarray(value))
    with pytest.raises(ValueError, match="copy=False needs an existing array"):
        xp.asarray(value, device=dev, copy=False)


def test_float_creation_on_a_device_without_double_precision_is_float32():
    class _NoFp64(ToyBackend):
        def capabilities(self, q):
            return _backend.Capabilities(fp64=False)

    xp.register_backend("toy32s", _NoFp64())
    dev = xp.asarray(np.zeros(1, np.float32), device="toy32s").device
    for _ in range(2):
        a = xp.asarray(2.5, device=dev)
        f = xp.full(3, 2.5, device=dev)
        assert a.dtype == f.dtype == xp.float32 and a.device == f.device == dev
        np.testing.assert_array_equal(xp.asnumpy(f), np.float32([2.5] * 3))
        with pytest.raises(ValueError, match="float64"):
            xp.full(3, 2.5, dtype=xp.float64, device=dev)


@pytest.mark.parametrize("device", DEVICES)
def test_reshape_values_and_errors(device):
    a = np.arange(12.0)
    x = xp.asarray(a, device=device)
    for shape in ((3, 4), (-1, 6), (12,), (2, 2, 3)):
        np.testing.assert_array_equal(xp.asnumpy(xp.reshape(x, shape)), a.reshape(shape))
    np.testing.assert_array_equal(xp.asnumpy(xp.reshape(xp.reshape(x, (3, 4)).mT, (12,))),
                                  a.reshape(3, 4).T.reshape(12))
    with pytest.raises(ValueError, match="cannot be reshaped"):
        xp.reshape(x, (5, 5))
    with pytest.raises(TypeError, match="reshape: x must be a usmarray.usm_ndarray"):
        xp.reshape(a, (3, 4))


def test_creation_plans_follow_the_device_and_dtype_of_each_call():
    class _NoFp64(ToyBackend):
        def capabilities(self, q):
            return _backend.Capabilities(fp64=False)

    xp.register_backend("toy32p", _NoFp64())
    toy = xp.asarray(np.zeros(1, np.float32), device="toy32p").device
    host = _device("numpy")
    for dev, dtype, want in ((host, None, xp.float64), (toy, None, xp.float32),
                             (host, None, xp.float64), (host, xp.float32, xp.float32),
                             (toy, xp.complex64, xp.complex64), (host, None, xp.float64)):
        for make in (lambda s, **k: xp.zeros(s, **k), lambda s, **k: xp.empty(s, **k),
                     lambda s, **k: xp.full(s, 1.5, **k)):
            x = make(3, dtype=dtype, device=dev)
            assert x.device == dev and x.dtype == want and x.shape == (3,)
