"""cubed on usmarray, in this process: ``CUBED_BACKEND_ARRAY_API_MODULE`` is
read when cubed is first imported, so this module sets it before importing cubed and
skips (saying why) if cubed was already imported with another backend."""

from __future__ import annotations

import time

import numpy as np
import pytest
from cubed_on_usmarray import import_cubed

import_cubed()

import cubed.array_api as cxp  # noqa: E402
import cubed.random  # noqa: E402
from cubed.runtime.create import create_executor  # noqa: E402

import usmarray as xp  # noqa: E402
import usmarray.cubed as uc  # noqa: E402
from usmarray import _cubed_placement as pl  # noqa: E402

HOST = np.arange(1.0, 13.0).reshape(3, 4)


@pytest.fixture
def spec(tmp_path):
    return cubed.Spec(work_dir=str(tmp_path), allowed_mem="100MB")


def _np(a):
    return xp.asnumpy(a) if type(a) is xp.usm_ndarray else np.asarray(a)


def test_results_are_usm_ndarrays_and_match_numpy(spec):
    a = cxp.asarray(HOST, chunks=(2, 3), spec=spec)
    assert a.dtype == np.float64  # cubed's metadata dtype is NumPy's
    b = cxp.ones((3, 4), dtype=cxp.float64, chunks=(2, 3), spec=spec)
    s = cxp.add(cxp.multiply(a, 2.0), b)
    r = s.compute()
    assert type(r) is xp.usm_ndarray and r.dtype == xp.float64
    np.testing.assert_allclose(_np(r), HOST * 2 + 1)
    np.testing.assert_allclose(_np(cxp.sin(a).compute()), np.sin(HOST))
    z = cxp.arange(12, dtype=cxp.int32, chunks=5, spec=spec)
    np.testing.assert_array_equal(_np(z.compute()), np.arange(12, dtype=np.int32))


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_reductions_and_nan_reductions(spec, axis):
    host = HOST.copy()
    host[1, 2] = np.nan
    a = cxp.asarray(HOST, chunks=(2, 3), spec=spec)
    an = cxp.asarray(host, chunks=(2, 3), spec=spec)
    np.testing.assert_allclose(_np(cxp.sum(a, axis=axis).compute()), HOST.sum(axis=axis))
    np.testing.assert_allclose(_np(cxp.mean(a, axis=axis).compute()), HOST.mean(axis=axis))
    np.testing.assert_allclose(_np(cxp.max(a, axis=axis).compute()), HOST.max(axis=axis))
    np.testing.assert_allclose(_np(cubed.nansum(an, axis=axis).compute()),
                               np.nansum(host, axis=axis))
    np.testing.assert_allclose(_np(cubed.nanmean(an, axis=axis).compute()),
                               np.nanmean(host, axis=axis))


def test_map_blocks_sees_usm_ndarray_chunks(spec):
    a = cxp.asarray(HOST, chunks=(2, 3), spec=spec)
    seen = []

    def f(x):
        seen.append((type(x), x.dtype))
        return xp.sqrt(x)  # the user's function uses usmarray itself

    r = cubed.map_blocks(f, a, dtype=a.dtype).compute()
    np.testing.assert_allclose(_np(r), np.sqrt(HOST))
    assert seen and all(t is xp.usm_ndarray and d == xp.float64 for t, d in seen)


def test_rechunk_and_matmul(spec):
    a = cxp.asarray(HOST, chunks=(2, 3), spec=spec)
    r = a.rechunk((3, 1))
    assert r.chunks == ((3,), (1, 1, 1, 1))
    np.testing.assert_array_equal(_np(r.compute()), HOST)
    m = cxp.matmul(a, cxp.ones((4, 2), chunks=(3, 2), spec=spec))
    np.testing.assert_allclose(_np(m.compute()), HOST @ np.ones((4, 2)))
    np.testing.assert_allclose(_np(cxp.matmul(a, cxp.matrix_transpose(a)).compute()),
                               HOST @ HOST.T)


def test_zarr_round_trip(spec, tmp_path):
    a = cxp.asarray(HOST.astype(np.float32), chunks=(2, 3), spec=spec)
    path = str(tmp_path / "a.zarr")
    cubed.to_zarr(a + 1, path)
    b = cubed.from_zarr(path, spec=spec)
    assert b.dtype == np.float32 and b.chunks == ((2, 1), (3, 1))
    np.testing.assert_allclose(_np(b.compute()), HOST + 1)
    import zarr

    np.testing.assert_allclose(zarr.open_array(path, mode="r")[...], HOST + 1)


def test_random_and_threads_executor_stay_within_allowed_mem(spec):
    x = cubed.random.random((400, 300), chunks=(100, 100), spec=spec)
    m = cxp.mean(x)
    r = m.compute(executor=create_executor("threads", dict(max_workers=2)))
    assert type(r) is xp.usm_ndarray and 0.45 < float(r) < 0.55


@pytest.mark.skipif(xp.provider is None, reason="SYCL sub-devices need dpctl")
def test_round_robin_over_two_sub_devices_with_the_threads_executor(spec, monkeypatch):
    import dpctl

    if dpctl.SyclDevice("cpu").max_compute_units < 2:
        pytest.skip("the CPU device has one compute unit")
    saved = pl._policy
    monkeypatch.setenv(pl.ENV_DEVICES, "cpu/2")
    monkeypatch.setenv(pl.ENV_USM_TYPE, "auto")
    pl._policy = None
    try:
        devices = set()

        def where(x):
            devices.add(x.device)
            time.sleep(0.05)  # long enough that both worker threads get tasks
            return x * 2

        a = cxp.asarray(np.arange(64.0).reshape(16, 4), chunks=(1, 4), spec=spec)
        r = cubed.map_blocks(where, a, dtype=a.dtype)
        ex = create_executor("threads", dict(max_workers=2))
        out = cxp.sum(r).compute(executor=ex)
        assert float(out) == 2 * np.arange(64.0).sum()
        assert devices <= set(pl.policy().devices) and len(devices) == 2
    finally:
        pl._policy = saved


def test_plain_usmarray_namespace_is_refused_by_cubed_for_dtypes():
    """Why the adapter exists: cubed's metadata dtypes are NumPy's, and usmarray's
    strict functions refuse them."""
    with pytest.raises(TypeError, match="not a dtype of the array API standard"):
        xp.ones(2, dtype=np.dtype("float32"))
    assert uc.ones(2, dtype=np.dtype("float32")).dtype == xp.float32
