"""The usm_ndarray container: the constructor's examples, metadata, protocols."""

import numpy as np
import pytest

import usmarray as xp
from usmarray import usm_ndarray

dpm = pytest.importorskip("dpctl.memory", reason="the usm_ndarray constructor's buffers are SYCL USM memory")


def test_c_contiguous_device_allocation():
    a = usm_ndarray((2, 3), dtype="u2", buffer="device")
    assert a.shape == (2, 3) and a.strides == (3, 1) and a.dtype == xp.uint16
    assert a.usm_type == "device" and a.usm_data.nbytes == 12
    assert a.flags.c_contiguous


def test_strided_shared_allocation():
    a = usm_ndarray((2, 3), dtype="i8", buffer="shared", strides=(6, 1))
    assert a.strides == (6, 1) and a.usm_type == "shared"
    assert a.usm_data.nbytes == 9 * 8


def test_negative_strides_offset_is_computed():
    a = usm_ndarray((2, 2), dtype="u1", buffer="host", strides=(2, -1))
    assert a.__sycl_usm_array_interface__["offset"] == 1
    assert a.usm_data.nbytes == 4


def test_memory_object_buffer_with_offset():
    mem = dpm.MemoryUSMShared(64)
    a = usm_ndarray((4,), dtype="f8", buffer=mem, strides=(-2,), offset=7)
    a[...] = xp.asarray([0.0, 1.0, 2.0, 3.0])
    a.sycl_queue.wait()  # raw memory reads bypass the provider's event tracking
    host = np.frombuffer(bytes(mem.copy_to_host()), dtype="f8")
    np.testing.assert_array_equal(host[[7, 5, 3, 1]], [0.0, 1.0, 2.0, 3.0])


def test_interface_round_trip_shares_memory():
    w = usm_ndarray((4, 2), dtype="i4", buffer="device", strides=(-5, -2))
    w[...] = xp.reshape(xp.arange(8, dtype=xp.int32), (4, 2))
    wi = w.__sycl_usm_array_interface__
    w2 = usm_ndarray(
        wi["shape"], dtype=wi["typestr"], buffer=w, strides=wi["strides"], offset=wi["offset"]
    )
    w2i = w2.__sycl_usm_array_interface__
    assert w2i["data"][0] == wi["data"][0] and w2i["offset"] == wi["offset"]
    np.testing.assert_array_equal(xp.asnumpy(w2), np.arange(8).reshape(4, 2))


@pytest.mark.parametrize(
    "shape, strides, offset",
    [((4,), (3,), 0), ((4,), (-2,), 5), ((2, 2), (1, 1), 7), ((3,), (1,), -1), ((9,), None, 0)],
)
def test_out_of_bounds_views_are_refused(shape, strides, offset):
    mem = dpm.MemoryUSMShared(64)  # 8 float64 elements
    with pytest.raises(ValueError, match="buffer"):
        usm_ndarray(shape, dtype="f8", buffer=mem, strides=strides, offset=offset)


def test_bad_constructor_arguments():
    with pytest.raises(TypeError):
        usm_ndarray((2,), dtype="f2")  # not a standard dtype
    with pytest.raises(ValueError):
        usm_ndarray((2,), buffer="pinned")
    with pytest.raises(ValueError):
        usm_ndarray((-1,))
    with pytest.raises(TypeError):
        usm_ndarray((2,), buffer=object())
    with pytest.raises(ValueError):
        usm_ndarray((2, 2), strides=(1,))


def test_scalar_conversions_need_0d():
    x = xp.asarray([1.0, 2.0])
    with pytest.raises(TypeError):
        bool(x)
    assert float(x[1]) == 2.0 and int(xp.asarray(3)) == 3
    assert complex(xp.asarray(1 + 2j)) == 1 + 2j
    with pytest.raises(TypeError):
        xp.asarray(1.5).__index__()
    with pytest.raises(OverflowError):
        int(xp.asarray(xp.inf))
    with pytest.raises(ValueError):
        int(xp.asarray(xp.nan))


def test_len_iter_repr():
    x = xp.asarray([1.0, 2.0], dtype=xp.float32)
    assert len(x) == 2
    assert [float(v) for v in x] == [1.0, 2.0]
    assert repr(x) == "usm_ndarray([1., 2.], dtype=float32)"
    with pytest.raises(TypeError):
        len(xp.asarray(1))


def test_array_namespace_versions():
    x = xp.asarray(1)
    assert x.__array_namespace__() is xp
    assert x.__array_namespace__(api_version="2025.12") is xp
    with pytest.raises(ValueError):
        x.__array_namespace__(api_version="2099.01")


def test_numpy_conversion_on_cpu_device():
    x = xp.asarray([1, 2, 3])
    np.testing.assert_array_equal(np.asarray(x), [1, 2, 3])
    np.testing.assert_array_equal(xp.asnumpy(x), [1, 2, 3])


def test_views_keep_memory_alive():
    import gc

    x = xp.arange(10)
    v = x[2:5]
    del x
    gc.collect()
    np.testing.assert_array_equal(xp.asnumpy(v), [2, 3, 4])


def test_in_place_operators_keep_dtype_and_shape():
    x = xp.asarray([1, 2, 3], dtype=xp.int32)
    x += 1
    np.testing.assert_array_equal(xp.asnumpy(x), [2, 3, 4])
    with pytest.raises(TypeError):
        x /= 2  # int32 / int -> float: dtype would change
    y = xp.zeros((3,))
    with pytest.raises(ValueError):
        y += xp.ones((2, 3))


def test_setitem_promotion_rule():
    x = xp.zeros(3, dtype=xp.float32)
    x[0] = xp.asarray(1.0, dtype=xp.float32)
    with pytest.raises(TypeError):
        x[0] = xp.asarray(1.0, dtype=xp.float64)
    with pytest.raises(TypeError):
        x[0] = xp.asarray(1, dtype=xp.int32)
    with pytest.raises(OverflowError):
        xp.zeros(2, dtype=xp.int8)[0] = 300


def test_indexing_refuses_non_standard_keys():
    x = xp.arange(6)
    with pytest.raises(IndexError):
        x[[0, 1]]
    with pytest.raises(IndexError):
        x[1.0]
    with pytest.raises(IndexError):
        x[6]
    with pytest.raises(IndexError):
        x[..., ...]
    with pytest.raises(IndexError):
        x[0, 0]
    with pytest.raises(IndexError):
        x[xp.asarray([0.5])]


def test_integer_and_boolean_array_indexing():
    x = xp.reshape(xp.arange(12), (3, 4))
    idx = xp.asarray([2, 0])
    np.testing.assert_array_equal(xp.asnumpy(x[idx, idx]), [10, 0])
    np.testing.assert_array_equal(xp.asnumpy(x[x > 9]), [10, 11])
    x[x > 9] = 0
    assert int(xp.sum(x)) == sum(range(10))
