"""Zero-copy exchange with dpnp / dpnp.tensor, NumPy and PyTorch.

"Zero-copy" is checked the only way that cannot lie: the data pointer of the result
equals the data pointer of the source, and a write through one is seen through the
other.  docs/interop.md describes the same rules for readers.
"""

from __future__ import annotations

import numpy as np
import pytest

import usmarray as xp

SYCL = xp.__array_namespace_info__().default_device()
HOST = xp.Device.create_device("numpy")
needs_sycl = pytest.mark.skipif(SYCL.backend != "sycl", reason="no SYCL device in this environment")
KDL_CPU, KDL_ONEAPI = 1, 14

STANDARD_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                   "uint64", "float32", "float64", "complex64", "complex128"]


def usm_ptr(a) -> int:
    """Address of the first element of anything with a SYCL USM array interface."""
    s = a.__sycl_usm_array_interface__
    itemsize = np.dtype(s["typestr"]).itemsize
    return s["data"][0] + s.get("offset", 0) * itemsize


def host_ptr(a) -> int:
    """Address of the first element of a host array (NumPy, torch, or a usmarray array on
    the NumPy device, read through DLPack)."""
    if hasattr(a, "data_ptr"):
        return a.data_ptr()
    if not isinstance(a, np.ndarray):
        a = np.from_dlpack(a)
    return a.__array_interface__["data"][0]


def sample(dtype: str, n: int = 6) -> np.ndarray:
    if dtype == "bool":
        return np.arange(n) % 3 == 0
    return (np.arange(n) * 3 % 7).astype(dtype)


@pytest.fixture(scope="module")
def dpnp():
    return pytest.importorskip("dpnp")


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


# ---- dpnp and dpnp.tensor through __sycl_usm_array_interface__ -------------------------------


@needs_sycl
class TestDpnp:
    def test_usmarray_takes_dpnp_array_zero_copy(self, dpnp):
        d = dpnp.arange(8, dtype="f8")
        u = xp.asarray(d)
        assert type(u) is xp.usm_ndarray
        assert usm_ptr(u) == usm_ptr(d)
        assert u.device == SYCL
        d[2] = -1.0
        assert float(u[2]) == -1.0
        u[3] = 42.0
        assert float(d[3]) == 42.0
        assert usm_ptr(xp.asarray(d, copy=False)) == usm_ptr(d)
        assert usm_ptr(xp.asarray(d, copy=True)) != usm_ptr(d)

    def test_usmarray_takes_dpnp_tensor_zero_copy(self, dpnp):
        dpt = dpnp.tensor
        t = dpt.reshape(dpt.arange(12, dtype="i4"), (3, 4))[:, 1::2]  # a strided view
        u = xp.asarray(t)
        assert usm_ptr(u) == usm_ptr(t)
        assert u.shape == (3, 2) and u.strides == t.strides
        np.testing.assert_array_equal(xp.asnumpy(u), dpt.asnumpy(t))

    def test_dpnp_tensor_takes_usmarray_zero_copy(self, dpnp):
        dpt = dpnp.tensor
        x = xp.reshape(xp.arange(12, dtype=xp.float32), (3, 4))
        t = dpt.asarray(x)
        assert usm_ptr(t) == usm_ptr(x)
        t[0, 0] = 7.0
        assert float(x[0, 0]) == 7.0

    def test_dpnp_takes_usmarray_zero_copy(self, dpnp):
        x = xp.arange(10, dtype=xp.float64)
        d = dpnp.asarray(x)
        assert usm_ptr(d) == usm_ptr(x)

    def test_dpnp_takes_usmarray_values(self, dpnp):
        """Whatever the copy question, dpnp sees the right values on the right device."""
        x = xp.linspace(0.0, 1.0, 9)
        d = dpnp.asarray(x)
        assert d.sycl_device == x.sycl_device
        np.testing.assert_array_equal(dpnp.asnumpy(d), xp.asnumpy(x))

    @pytest.mark.parametrize("usm_type", ["device", "shared", "host"])
    def test_usm_type_survives_the_round_trip(self, dpnp, usm_type):
        x = xp.ones((4,), usm_type=usm_type)
        d = dpnp.asarray(dpnp.tensor.asarray(x))
        assert d.usm_type == usm_type and usm_ptr(d) == usm_ptr(x)
        back = xp.asarray(d)
        assert back.usm_type == usm_type
        np.testing.assert_array_equal(xp.asnumpy(back), np.ones(4))

    @pytest.mark.parametrize("where", ["another-queue", "sub-device", "round-trip"])
    def test_foreign_array_stays_on_its_queue(self, dpnp, where):
        dpctl = pytest.importorskip("dpctl")
        if where == "round-trip":
            d = dpnp.asarray(dpnp.tensor.asarray(xp.ones((4,))))
        elif where == "another-queue":
            d = dpnp.ones(4, sycl_queue=dpctl.SyclQueue(SYCL.sycl_device))
        else:
            try:
                sub = SYCL.sycl_device.create_sub_devices(partition=1)[0]
            except Exception:
                pytest.xfail("this device cannot be partitioned")
            d = dpnp.ones(4, sycl_queue=dpctl.SyclQueue(sub))
        u = xp.asarray(d)
        assert u.sycl_device == d.sycl_device
        assert usm_ptr(u) == usm_ptr(d)

    def test_dlpack_between_sycl_libraries_is_zero_copy(self, dpnp):
        x = xp.arange(5, dtype=xp.int64)
        assert x.__dlpack_device__()[0] == KDL_ONEAPI
        d = dpnp.from_dlpack(x)
        assert usm_ptr(d) == usm_ptr(x)
        u = xp.from_dlpack(dpnp.arange(5))
        assert u.device == SYCL
        t = dpnp.tensor.arange(5)
        assert usm_ptr(xp.from_dlpack(t)) == usm_ptr(t)


# ---- NumPy through DLPack ------------------------------------------------------------------
@needs_sycl
class TestNumpyFromUsmarray:
    def test_default_device_export_is_not_host(self):
        """Without dl_device, an array exports on its own SYCL device, which NumPy cannot use."""
        x = xp.arange(4.0)
        with pytest.raises((RuntimeError, BufferError)):
            np.from_dlpack(x)

    @pytest.mark.parametrize("usm_type", ["device", "shared", "host"])
    def test_host_view_is_zero_copy(self, usm_type):
        x = xp.arange(6.0, usm_type=usm_type)
        n = np.from_dlpack(x, device="cpu")
        assert host_ptr(n) == usm_ptr(x)
        x[1] = -5.0
        assert n[1] == -5.0
        n[2] = 11.0
        assert float(x[2]) == 11.0

    def test_host_view_sees_finished_kernels(self):
        x = xp.zeros((1000,))
        y = x + 3.0  # a kernel the export must wait for
        assert np.all(np.from_dlpack(y, device="cpu") == 3.0)

    @pytest.mark.parametrize("dtype", STANDARD_DTYPES)
    def test_dtypes(self, dtype):
        a = sample(dtype)
        x = xp.asarray(a)
        n = np.from_dlpack(x, device="cpu")
        assert n.dtype == a.dtype
        np.testing.assert_array_equal(n, a)

    def test_views_keep_offset_and_strides(self):
        x = xp.reshape(xp.arange(24.0), (4, 6))
        v = x[1:, ::-2]
        n = np.from_dlpack(v, device="cpu")
        np.testing.assert_array_equal(n, np.arange(24.0).reshape(4, 6)[1:, ::-2])
        assert host_ptr(n) == usm_ptr(v)

    def test_copy_keyword(self):
        x = xp.arange(6.0)
        assert host_ptr(np.from_dlpack(x, device="cpu", copy=False)) == usm_ptr(x)
        c = np.from_dlpack(x, device="cpu", copy=True)
        assert host_ptr(c) != usm_ptr(x)
        c[0] = 99.0
        assert float(x[0]) == 0.0

    def test_explicit_dl_device(self):
        x = xp.arange(3.0)
        x.__dlpack__(dl_device=(KDL_CPU, 0))
        x.__dlpack__(dl_device=x.__dlpack_device__())
        with pytest.raises(BufferError, match="cannot export"):
            x.__dlpack__(dl_device=(2, 0))  # kDLCUDA

    def test_the_host_view_keeps_memory_alive(self):
        n = np.from_dlpack(xp.arange(1000.0) * 2.0, device="cpu")
        import gc

        gc.collect()
        _ = xp.ones((1000,)) * 7.0  # would reuse freed memory
        np.testing.assert_array_equal(n, np.arange(1000.0) * 2.0)


class TestUsmarrayFromNumpy:
    def test_from_dlpack_stays_on_the_host_zero_copy(self):
        a = np.arange(8.0)
        u = xp.from_dlpack(a)
        assert u.device == HOST
        assert host_ptr(u) == host_ptr(a)
        a[0] = 123.0
        assert float(u[0]) == 123.0

    def test_copy_keyword(self):
        a = np.arange(8.0)
        assert host_ptr(xp.from_dlpack(a, copy=False)) == host_ptr(a)
        c = xp.from_dlpack(a, copy=True)
        assert c.device == HOST and host_ptr(c) != host_ptr(a)
        a[0] = -1.0
        assert float(c[0]) == 0.0

    @pytest.mark.parametrize("dtype", STANDARD_DTYPES)
    def test_dtypes(self, dtype):
        a = sample(dtype)
        u = xp.from_dlpack(a)
        assert host_ptr(u) == host_ptr(a)
        np.testing.assert_array_equal(xp.asnumpy(u), a)

    def test_strided(self):
        a = np.arange(20.0).reshape(4, 5)[::2, 1:]
        u = xp.from_dlpack(a)
        np.testing.assert_array_equal(xp.asnumpy(u), a)

    @needs_sycl
    def test_to_a_sycl_device_copies(self):
        a = np.arange(5.0)
        u = xp.from_dlpack(a, device=SYCL)
        assert u.device == SYCL
        np.testing.assert_array_equal(xp.asnumpy(u), a)
        with pytest.raises(BufferError):
            xp.from_dlpack(a, device=SYCL, copy=False)

    def test_numpy_takes_host_device_arrays_zero_copy(self):
        u = xp.asarray([1.0, 2.0, 3.0], device=HOST)
        n = np.from_dlpack(u)
        assert u.__dlpack_device__() == (KDL_CPU, 0)
        assert host_ptr(n) == host_ptr(u)


# ---- PyTorch (CPU) through DLPack --------------------------------------------------------------
class TestTorch:
    def test_torch_to_usmarray_zero_copy_on_host(self, torch):
        t = torch.arange(6, dtype=torch.float32)
        u = xp.from_dlpack(t)
        assert u.device == HOST and u.dtype == xp.float32
        assert host_ptr(u) == t.data_ptr()
        t[0] = 8.0
        assert float(u[0]) == 8.0
        c = xp.from_dlpack(t, copy=True)
        assert host_ptr(c) != t.data_ptr()

    @pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "int32", "int64", "uint8",
                                       "float32", "float64", "complex64", "complex128"])
    def test_dtypes_both_ways(self, torch, dtype):
        t = torch.from_numpy(sample(dtype))
        u = xp.from_dlpack(t)
        np.testing.assert_array_equal(xp.asnumpy(u), t.numpy())
        back = torch.from_dlpack(u)
        assert back.data_ptr() == t.data_ptr()

    def test_torch_takes_host_device_arrays_zero_copy(self, torch):
        u = xp.reshape(xp.arange(6.0, device=HOST), (2, 3))
        t = torch.from_dlpack(u)
        assert t.data_ptr() == host_ptr(u) and tuple(t.shape) == (2, 3)

    @needs_sycl
    def test_torch_takes_sycl_arrays_through_a_host_capsule(self, torch):
        """A CPU build of PyTorch cannot import a kDLOneAPI tensor; hand it the host
        view instead: still zero-copy on a CPU SYCL device."""
        x = xp.arange(6.0)
        with pytest.raises(RuntimeError):
            torch.from_dlpack(x)
        t = torch.from_dlpack(x.__dlpack__(dl_device=(KDL_CPU, 0)))
        assert t.data_ptr() == usm_ptr(x)
        t[1] = 50.0
        assert float(x[1]) == 50.0

    @needs_sycl
    def test_torch_to_sycl_device_by_copy(self, torch):
        t = torch.arange(4, dtype=torch.float64)
        u = xp.asarray(xp.from_dlpack(t), device=SYCL)
        assert u.device == SYCL
        np.testing.assert_array_equal(xp.asnumpy(u), t.numpy())

    @needs_sycl
    def test_from_dlpack_torch_with_sycl_device(self, torch):
        u = xp.from_dlpack(torch.arange(4, dtype=torch.float64), device=SYCL)
        assert u.device == SYCL
