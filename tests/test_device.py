"""Devices, compute follows data, migration and usm_type coercion (seeds 002, 003)."""

import numpy as np
import pytest

import usmarray as xp

dpctl = pytest.importorskip("dpctl", reason="SYCL devices, queues and sub-devices")


@pytest.fixture(scope="module")
def other_context_device():
    dev = dpctl.SyclDevice()
    if not dev.is_cpu:
        pytest.skip("sub-device partitioning of a CPU gives the second context")
    sub = dev.create_sub_devices(partition=1)[0]
    return xp.Device.create_device(dpctl.SyclQueue(sub))


def _ptr(x):
    return x.__sycl_usm_array_interface__["data"][0]


def test_create_device_inputs():
    d = xp.Device.create_device("cpu")
    assert d == xp.Device.create_device(d.sycl_queue)
    assert d == xp.Device.create_device(d.sycl_device)
    assert xp.Device.create_device(d) is d
    assert "cpu" in repr(d)
    assert hash(d) == hash(xp.Device.create_device("cpu"))
    with pytest.raises(ValueError):
        xp.Device.create_device("no_such_backend:gpu:7")
    with pytest.raises(TypeError):
        xp.Device.create_device(3.5)
    with pytest.raises(TypeError):
        xp.Device()


def test_device_and_sycl_queue_must_agree():
    q = xp.Device.create_device("cpu").sycl_queue
    other = dpctl.SyclQueue(q.sycl_context, q.sycl_device)
    assert xp.zeros(2, device="cpu", sycl_queue=q).sycl_queue == q
    with pytest.raises(ValueError):
        xp.zeros(2, device="cpu", sycl_queue=other)


def test_to_device_same_context_is_zero_copy():
    x = xp.arange(10)
    q = dpctl.SyclQueue(x.sycl_context, x.sycl_device)
    y = x.to_device(q)
    assert _ptr(y) == _ptr(x)
    assert y.sycl_queue == q and y.sycl_queue != x.sycl_queue


@pytest.mark.parametrize("in_order", [False, True])
def test_to_device_same_context_waits_for_the_source_queues_work(in_order):
    # the view on the new queue shares the memory: a read or a kernel there must see
    # what the source queue's pending kernel writes (a large arange takes long enough
    # that a read on an unordered queue saw unwritten memory about every other time)
    dev = xp.Device.create_device("cpu")
    n = 1 << 22
    props = "in_order" if in_order else None
    for _ in range(6):
        x = xp.arange(n, dtype=xp.int32, device=dev)
        q = (dpctl.SyclQueue(dev.sycl_device, property=props) if props
             else dpctl.SyclQueue(dev.sycl_device))
        y = x.to_device(q)
        assert _ptr(y) == _ptr(x)
        np.testing.assert_array_equal(xp.asnumpy(y), np.arange(n, dtype=np.int32))
        x = xp.arange(n, dtype=xp.int32, device=dev)
        z = x.to_device(q) + 1  # a kernel on the new queue
        np.testing.assert_array_equal(xp.asnumpy(z), np.arange(1, n + 1, dtype=np.int32))
        x = xp.arange(n, dtype=xp.int32, device=dev)
        w = xp.asarray(x, device=xp.Device.create_device(q))  # the same move by asarray
        assert w.sycl_queue == q
        np.testing.assert_array_equal(xp.asnumpy(w), np.arange(n, dtype=np.int32))


def test_to_device_across_contexts_copies(other_context_device):
    x = xp.arange(10.0)
    y = x.to_device(other_context_device)
    assert y.sycl_context != x.sycl_context and _ptr(y) != _ptr(x)
    np.testing.assert_array_equal(xp.asnumpy(y), xp.asnumpy(x))
    back = xp.asarray(y, device=x.device)
    assert bool(xp.all(back == x))


def test_mixing_devices_raises_placement_error():
    x = xp.arange(4)
    q = dpctl.SyclQueue(x.sycl_context, x.sycl_device)
    y = xp.arange(4, sycl_queue=q)
    with pytest.raises(xp.ExecutionPlacementError, match="to_device"):
        x + y
    with pytest.raises(ValueError):
        xp.add(x, y)
    with pytest.raises(xp.ExecutionPlacementError):
        x + y[0]  # 0-D arrays get no exemption


USM = ["device", "shared", "host"]


@pytest.mark.parametrize("u1", USM)
@pytest.mark.parametrize("u2", USM)
def test_usm_type_coercion_table(u1, u2):
    expected = USM[min(USM.index(u1), USM.index(u2))]
    x = xp.ones(3, usm_type=u1)
    y = xp.ones(3, usm_type=u2)
    assert (x + y).usm_type == expected
    assert xp.sin(x).usm_type == u1


def test_asarray_mixed_device_list(other_context_device):
    a = xp.ones(3)
    b = xp.zeros(3, device=other_context_device)
    c = np.full(3, 2.0)
    w = xp.asarray([a, b, c], device=a.device)
    assert w.shape == (3, 3) and w.device == a.device
    np.testing.assert_array_equal(xp.asnumpy(w), [[1, 1, 1], [0, 0, 0], [2, 2, 2]])


def test_asarray_copy_false_refuses_copies():
    with pytest.raises(ValueError):
        xp.asarray(np.ones(3), copy=False)
    x = xp.ones(3)
    assert _ptr(xp.asarray(x, copy=False)) == _ptr(x)
    assert _ptr(xp.asarray(x, copy=True)) != _ptr(x)


def test_full_with_0d_array_follows_its_device():
    pi = xp.asarray(xp.pi, dtype=xp.float32, usm_type="shared")
    x = xp.full((4, 4), pi)
    assert x.device == pi.device and x.dtype == xp.float32 and x.usm_type == "shared"
    assert float(x[1, 1]) == pytest.approx(np.float32(np.pi))


class _HostExport:
    """A consumer-side adapter: asks the producer for a kDLCPU capsule."""

    def __init__(self, x):
        self.x = x

    def __dlpack__(self, **kwargs):
        return self.x.__dlpack__(max_version=kwargs.get("max_version"), dl_device=(1, 0))

    def __dlpack_device__(self):
        return (1, 0)


def test_dlpack_round_trip_with_numpy():
    x = xp.asarray([1.0, 2.0, 3.0])
    assert x.__dlpack_device__()[0] == 14  # kDLOneAPI
    n = np.from_dlpack(_HostExport(x))
    np.testing.assert_array_equal(n, [1.0, 2.0, 3.0])
    y = xp.from_dlpack(np.arange(3.0), device=x.device)
    np.testing.assert_array_equal(xp.asnumpy(y), [0.0, 1.0, 2.0])
