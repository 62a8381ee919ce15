"""array-api-compat takes usmarray arrays as they are: no wrapper, no special case.

array-api-compat recognises an array API object by ``__array_namespace__`` and then
asks the array itself (``x.device``, ``x.to_device``, ``x.shape``); these tests check
that each helper gives the answer usmarray's own attributes give, on the default
SYCL device and on the NumPy host device.
"""

from __future__ import annotations

import numpy as np
import pytest

import usmarray as xp

compat = pytest.importorskip("array_api_compat")

SYCL = xp.__array_namespace_info__().default_device()
HOST = xp.Device.create_device("numpy")
needs_sycl = pytest.mark.skipif(SYCL.backend != "sycl", reason="no SYCL device in this environment")


@pytest.fixture(params=["sycl", "numpy"])
def dev(request):
    if request.param == "sycl" and SYCL.backend != "sycl":
        pytest.skip("no SYCL device in this environment")
    return SYCL if request.param == "sycl" else HOST


def test_array_namespace_is_usmarray(dev):
    x = xp.asarray([[1.0, 2.0], [3.0, 4.0]], device=dev)
    assert compat.array_namespace(x) is xp
    assert compat.get_namespace(x) is xp
    # Python scalars and None are ignored, as for any other library
    assert compat.array_namespace(x, 2.0, None) is xp
    # api_version is forwarded to usmarray's own __array_namespace__, which answers with
    # the namespace of that version (lists where 2024.12 has them, no later functions)
    assert compat.array_namespace(x, api_version="2025.12") is xp
    old = compat.array_namespace(x, api_version="2024.12")
    assert old.__array_api_version__ == "2024.12" and not hasattr(old, "isin")
    assert type(old.meshgrid(old.asarray([1.0], device=dev))) is list
    assert old is compat.array_namespace(x, api_version="2024.12")
    with pytest.raises(ValueError, match="not supported"):
        compat.array_namespace(x, api_version="2099.01")
    # use_compat=False asks for the library's own namespace; there is no wrapper
    assert compat.array_namespace(x, use_compat=False) is xp
    with pytest.raises(ValueError):
        compat.array_namespace(x, use_compat=True)


@needs_sycl
def test_arrays_of_two_devices_share_one_namespace():
    a = xp.asarray([1.0], device=SYCL)
    b = xp.asarray([1.0], device=HOST)
    assert compat.array_namespace(a, b) is xp


def test_mixing_with_numpy_is_refused(dev):
    x = xp.asarray([1.0], device=dev)
    with pytest.raises(TypeError, match="Multiple namespaces"):
        compat.array_namespace(x, np.asarray([1.0]))


def test_predicates(dev):
    x = xp.ones((2, 3), device=dev)
    assert compat.is_array_api_obj(x)
    assert compat.is_writeable_array(x)
    assert not compat.is_lazy_array(x)
    for name in ("numpy", "cupy", "torch", "dask", "jax", "pydata_sparse", "ndonnx", "dpnp"):
        assert not getattr(compat, f"is_{name}_array")(x), name
        assert not getattr(compat, f"is_{name}_namespace")(xp), name
    assert not compat.is_array_api_strict_namespace(xp)


def test_device_and_size(dev):
    x = xp.reshape(xp.arange(12, dtype=xp.float32, device=dev), (3, 4))
    assert compat.device(x) == x.device == dev
    assert compat.size(x) == 12 == x.size
    assert compat.size(x[:0]) == 0
    assert compat.size(xp.asarray(1.5, device=dev)) == 1


@pytest.mark.parametrize("target", ["numpy", "sycl"])
def test_to_device(dev, target):
    if target == "sycl" and SYCL.backend != "sycl":
        pytest.skip("no SYCL device in this environment")
    tgt = HOST if target == "numpy" else SYCL
    x = xp.linspace(0.0, 1.0, 7, device=dev)
    y = compat.to_device(x, tgt)
    assert type(y) is xp.usm_ndarray
    assert y.device == tgt
    np.testing.assert_array_equal(xp.asnumpy(y), xp.asnumpy(x))
    # the Device returned by compat.device() is accepted back by to_device
    assert compat.to_device(y, compat.device(x)).device == dev


@needs_sycl
def test_to_device_with_native_sycl_objects():
    dpctl = pytest.importorskip("dpctl")
    x = xp.arange(5, dtype=xp.int32)
    q = dpctl.SyclQueue(SYCL.sycl_device)
    y = compat.to_device(x, q)
    assert y.sycl_queue == q
    np.testing.assert_array_equal(xp.asnumpy(y), np.arange(5))
    # stream= is passed through to usm_ndarray.to_device
    z = compat.to_device(x, SYCL, stream=q)
    assert z.device == SYCL
    with pytest.raises(TypeError, match="stream"):
        compat.to_device(x, SYCL, stream=object())


def test_generic_code_through_compat(dev):
    """What a library does with array-api-compat: get the namespace, compute, move."""

    def standardise(a):
        ns = compat.array_namespace(a)
        mu = ns.mean(a, axis=0, keepdims=True)
        sd = ns.std(a, axis=0, keepdims=True)
        return (a - mu) / sd

    data = np.random.default_rng(0).standard_normal((50, 4))
    got = standardise(xp.asarray(data, device=dev))
    assert got.device == dev
    want = (data - data.mean(0)) / data.std(0)
    np.testing.assert_allclose(xp.asnumpy(got), want, rtol=1e-12, atol=1e-12)
