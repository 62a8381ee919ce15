"""What cubed needs of usmarray, without cubed: NumPy-convertible dtypes, pickling, the
``usmarray.cubed`` adapter namespace and its placement policy."""

from __future__ import annotations

import pickle
import threading

import numpy as np
import pytest

import usmarray as xp
import usmarray.cubed as uc
from usmarray import _cubed_placement as pl

HAS_SYCL = xp.provider is not None


# ---- dtypes ----------------------------------------------------------------------
@pytest.mark.parametrize("name", [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex64", "complex128",
])
def test_numpy_converts_our_dtypes_without_loosening_ours(name):
    d = getattr(xp, name)
    assert np.dtype(d) == np.dtype(name)
    assert np.zeros(2, dtype=d).dtype == np.dtype(name)
    # our equality is unchanged: a DType equals only itself
    assert d == d and not (d == np.dtype(name)) and d != np.dtype(name)
    assert not (d == None) and not (d == name)  # noqa: E711
    assert all(not (d == o) for o in (getattr(np, name, None), name))
    assert np.dtype([("n", xp.int64), (name, d)]).fields[name][0] == np.dtype(name)


# ---- pickling (cubed's Dask executor ships in-memory arrays in its tasks) ------------
@pytest.mark.parametrize("shape", [(), (0, 3), (2, 3)])
def test_pickle_round_trip(shape):
    host = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    x = xp.asarray(host)
    y = pickle.loads(pickle.dumps(x))
    assert type(y) is xp.usm_ndarray and y.dtype == xp.float32 and y.shape == shape
    assert y.device == xp.Device.create_device(None)
    np.testing.assert_array_equal(xp.asnumpy(y), host)


def test_pickle_of_a_strided_view_keeps_values_and_usm_type():
    host = np.arange(12.0).reshape(3, 4)
    sycl = xp.Device.create_device(None).backend == "sycl"
    x = xp.asarray(host, usm_type="shared" if sycl else None)[::2, ::-1].T
    y = pickle.loads(pickle.dumps(x))
    np.testing.assert_array_equal(xp.asnumpy(y), host[::2, ::-1].T)
    assert y.usm_type == x.usm_type


def test_unpickled_onto_the_unpicklers_default_device(monkeypatch):
    monkeypatch.setenv("USMARRAY_UNPICKLE_DEVICE", "default")  # as usmarray.cubed sets it
    x = xp.asarray([1, 2, 3])
    with xp.using_device("numpy"):
        y = pickle.loads(pickle.dumps(x))
    assert y.device == xp.Device.create_device("numpy")
    np.testing.assert_array_equal(xp.asnumpy(y), [1, 2, 3])


# ---- matmul of a broadcast view (cubed's virtual full chunks) -------------------------
@pytest.mark.parametrize("bshape", [(), (2,)])
def test_matmul_with_a_broadcast_operand(bshape):
    a_host = np.arange(9.0).reshape(3, 3)[:2, :2]
    b_host = np.broadcast_to(np.arange(1.0, 1.0 + (bshape[0] if bshape else 1)), (2, 2))
    a = xp.asarray(np.arange(9.0).reshape(3, 3))[:2, :2]
    b = xp.broadcast_to(xp.asarray(np.asarray(b_host[0] if bshape else b_host[0, 0])), (2, 2))
    np.testing.assert_allclose(xp.asnumpy(xp.matmul(a, b)), a_host @ b_host)
    np.testing.assert_allclose(xp.asnumpy(xp.matmul(b, a)), b_host @ a_host)
    np.testing.assert_allclose(xp.asnumpy(xp.tensordot(a, b, axes=1)), a_host @ b_host)


# ---- the adapter namespace -------------------------------------------------------------
def test_adapter_speaks_numpy_dtypes_and_makes_strict_chunks():
    assert uc.float32 is np.dtype("float32") and uc.bool is np.dtype("bool")
    x = uc.ones((2, 3), dtype=np.dtype("float32"))
    assert type(x) is xp.usm_ndarray and x.dtype == xp.float32  # chunks stay strict
    assert uc.astype(x, np.int16).dtype == xp.int16
    assert uc.result_type(np.dtype("int8"), np.dtype("int16")) is np.dtype("int16")
    assert uc.isdtype(np.dtype("float32"), "real floating")
    assert uc.iinfo(np.int32).max == 2**31 - 1 and uc.finfo(np.float32).bits == 32
    assert uc.can_cast(np.int8, np.int64)
    info = uc.__array_namespace_info__()
    assert info.default_dtypes()["real floating"] in (np.dtype("float64"), np.dtype("float32"))
    assert set(info.dtypes(kind="bool").values()) == {np.dtype("bool")}
    with pytest.raises(TypeError):  # usmarray's rules still apply to what is not a dtype
        uc.ones(2, dtype="not a dtype")
    with pytest.raises(TypeError):  # ... and to the chunks' operators
        x + uc.ones((2, 3), dtype=np.int64)


def test_adapter_numpy_leniencies_match_numpy():
    t = uc.asarray(np.array([3.0, 6.0]))
    n = uc.asarray(np.array([2, 4]))
    np.testing.assert_allclose(xp.asnumpy(uc.divide(t, n)), [1.5, 1.5])
    assert uc.divide(t, n).dtype == xp.float64
    assert int(uc.prod((2, 3, 4), dtype=np.int64)) == 24
    assert int(uc.sum(uc.asarray(np.array([True, False, True])))) == 2
    assert uc.sum(uc.asarray(np.array([True]))).dtype == xp.int64
    np.testing.assert_allclose(
        float(uc.mean(uc.asarray(np.array([1, 2], dtype=np.float32)), dtype=np.float64)), 1.5
    )


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "int32", "bool"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_nansum_matches_numpy(dtype, axis):
    rng = np.random.default_rng(0)
    host = (rng.standard_normal((4, 5)) * 3).astype(dtype)
    if dtype.startswith(("float", "complex")):
        host[rng.random((4, 5)) < 0.3] = np.nan
    if dtype.startswith("complex"):
        host[1, 1] = complex(1.0, np.nan)
    got = uc.nansum(uc.asarray(host), axis=axis)
    want = np.nansum(host, axis=axis)
    np.testing.assert_allclose(xp.asnumpy(got), want, rtol=1e-5)


# ---- placement policy -------------------------------------------------------------------
def test_parse_devices():
    assert pl.parse_devices("") == [] and pl.parse_devices(" default ") == []
    assert pl.parse_devices("cpu/2, cuda:0") == [("cpu", 2), ("cuda:0", 0)]
    for bad in ("cpu/", "cpu/0", "/2", "cpu/x", "a,,b"):
        with pytest.raises(ValueError, match="USMARRAY_CUBED_DEVICES"):
            pl.parse_devices(bad)


def test_round_robin_is_sticky_per_thread_and_balanced(monkeypatch):
    monkeypatch.setenv(pl.ENV_RANK, "1")
    devs = ["d0", "d1", "d2"]
    p = pl.Placement(devs, "host")  # plain objects stand in for Devices
    seen: dict[int, list] = {}

    def work(i):
        seen[i] = [p.device() for _ in range(3)]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(len(set(v)) == 1 for v in seen.values())  # sticky
    counts = {d: sum(v[0] == d for v in seen.values()) for d in devs}
    assert counts == {"d0": 2, "d1": 2, "d2": 2}  # balanced
    assert p.usm_type_for("d0") == "host"


def test_default_policy_and_host_readable_usm_type(monkeypatch):
    monkeypatch.delenv(pl.ENV_DEVICES, raising=False)
    p = pl.Placement([], "auto")
    assert p.device() is None
    ut = p.usm_type_for(None)
    x = xp.empty(3, usm_type=ut)
    np.asarray(x)  # cubed writes chunks to Zarr with np.asarray: it must be readable
    assert pl.host_readable_usm_type(xp.Device.create_device("numpy")) == "host"
    with pytest.raises(ValueError, match="USMARRAY_CUBED_USM_TYPE"):
        pl.Placement([], "managed")


@pytest.mark.skipif(not HAS_SYCL, reason="SYCL sub-devices need dpctl")
def test_sub_devices_get_in_order_queues_and_chunks_follow_the_thread():
    import dpctl

    cu = dpctl.SyclDevice("cpu").max_compute_units
    if cu < 2:
        pytest.skip("the CPU device has one compute unit")
    saved = (pl._policy, pl.os.environ.get(pl.ENV_DEVICES), pl.os.environ.get(pl.ENV_USM_TYPE),
             pl.os.environ.get("USMARRAY_UNPICKLE_DEVICE"), pl.os.environ.get(pl.ENV_POOL))
    try:
        p = uc.configure("cpu/2")
        assert len(p.devices) == 2 and p.devices[0] != p.devices[1]
        assert all(d.sycl_queue.is_in_order for d in p.devices)
        assert pl.os.environ[pl.ENV_DEVICES] == "cpu/2"
        got = {}

        def work(i):
            a = uc.asarray(np.arange(4.0))
            b = uc.ones(4, dtype=np.float64)
            got[i] = ((a + b).device, a.device)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert {got[0][0], got[1][0]} == set(p.devices)
        assert all(r == a for r, a in got.values())
    finally:
        pl._policy = saved[0]
        for k, v in zip((pl.ENV_DEVICES, pl.ENV_USM_TYPE, "USMARRAY_UNPICKLE_DEVICE", pl.ENV_POOL),
                        saved[1:], strict=True):
            if v is None:
                pl.os.environ.pop(k, None)
            else:
                pl.os.environ[k] = v
