"""``zeros`` through each backend's own ``zeros``: the same values, bits,
dtypes, placements and errors as before, when it was a fill of 0 like ``ones``."""

import numpy as np
import pytest

import usmarray as xp
from usmarray import _backend

DTYPES = ["bool", "int8", "uint16", "int64", "float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("device", [None, "numpy"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 5), 4])
def test_zeros_values_bits_and_dtype(device, dtype, shape):
    got = xp.zeros(shape, dtype=getattr(xp, dtype), device=device)
    want = np.zeros(shape, dtype=dtype)
    host = xp.asnumpy(got)
    assert got.dtype == getattr(xp, dtype) and host.shape == want.shape
    assert host.tobytes() == want.tobytes()  # +0.0, not -0.0


@pytest.mark.parametrize("device", [None, "numpy"])
def test_zeros_default_dtype_and_device_as_ones(device):
    z, o = xp.zeros((2, 3), device=device), xp.ones((2, 3), device=device)
    assert z.dtype == o.dtype and z.device == o.device
    assert z.usm_type == o.usm_type


@pytest.mark.skipif(_backend.sycl is None, reason="needs a SYCL device")
@pytest.mark.parametrize("usm_type", ["device", "shared", "host"])
def test_zeros_usm_type_on_the_sycl_device(usm_type):
    z = xp.zeros((5,), dtype=xp.float32, usm_type=usm_type, device="cpu")
    assert z.usm_type == usm_type
    assert xp.asnumpy(z).tolist() == [0.0] * 5


@pytest.mark.parametrize("device", [None, "numpy"])
@pytest.mark.parametrize("shape", [(-1,), (2, -3), 2.5, "3"])
def test_zeros_refuses_what_ones_refuses(device, shape):
    with pytest.raises(Exception) as ones_err:
        xp.ones(shape, device=device)
    with pytest.raises(type(ones_err.value)) as zeros_err:
        xp.zeros(shape, device=device)
    assert str(zeros_err.value) == str(ones_err.value).replace("ones", "zeros")


@pytest.mark.parametrize("device", [None, "numpy"])
@pytest.mark.parametrize("fn", [xp.zeros, xp.ones, xp.empty])
def test_creation_larger_than_any_memory_is_a_memory_error(device, fn):
    with pytest.raises(MemoryError, match="36893488147419103232"):  # 2**62 * 8 bytes
        fn((1 << 62,), dtype=xp.float64, device=device)


@pytest.mark.parametrize("dtype", [None, "float32", "int16"])
def test_a_filter_string_takes_the_planned_path_with_the_same_result(dtype):
    """A device given as a filter string, called again, takes the plans a Device takes
    (the string's Device looked up, not made again): the same device, dtype, usm_type
    and values as with the Device, for every creation call with a fast path."""
    d = None if dtype is None else getattr(xp, dtype)
    dev = xp.Device.create_device("numpy")
    calls = {
        "zeros": lambda device: xp.zeros((2, 3), dtype=d, device=device),
        "empty": lambda device: xp.empty(4, dtype=d, device=device),
        "full": lambda device: xp.full(3, 2.5 if d is None or d == xp.float32 else 7,
                                       dtype=d, device=device),
        "asarray list": lambda device: xp.asarray([1.0, 2.0], device=device),
        "asarray float": lambda device: xp.asarray(1.5, device=device),
    }
    for name, f in calls.items():
        for _ in range(3):  # the first call makes the plans, the later ones use them
            got, want = f("numpy"), f(dev)
            assert got.device == dev, name
            assert (got.dtype, got.shape, got.usm_type) == (want.dtype, want.shape, want.usm_type)
            if name != "empty":
                np.testing.assert_array_equal(xp.asnumpy(got), xp.asnumpy(want))
    with pytest.raises(ValueError):
        xp.zeros(3, device="no-such-backend")
