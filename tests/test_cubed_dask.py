"""cubed on usmarray through cubed's Dask executor, on a ``dask.distributed``
LocalCluster of two worker processes on loopback.  Each worker imports
usmarray; its chunks are ``usm_ndarray``s on the device the placement policy gives it
(with SYCL: one sub-device of the CPU per worker)."""

from __future__ import annotations

import os

import numpy as np
import pytest
from cubed_on_usmarray import import_cubed

distributed = pytest.importorskip("distributed")
cubed = import_cubed()

import cubed.array_api as cxp  # noqa: E402
from cubed.runtime.create import create_executor  # noqa: E402

import usmarray as xp  # noqa: E402
from usmarray import _cubed_placement as pl  # noqa: E402


def _sub_devices() -> str:
    if xp.provider is None:
        return "default"
    import dpctl

    return "cpu/2" if dpctl.SyclDevice("cpu").max_compute_units >= 2 else "default"


@pytest.fixture(scope="module")
def cluster():
    # the policy travels to the worker processes through their environment
    saved = {k: os.environ.get(k) for k in (pl.ENV_DEVICES, pl.ENV_USM_TYPE, "PYTHONPATH",
                                            "USMARRAY_UNPICKLE_DEVICE")}
    os.environ[pl.ENV_DEVICES] = _sub_devices()
    os.environ[pl.ENV_USM_TYPE] = "auto"
    os.environ["USMARRAY_UNPICKLE_DEVICE"] = "default"  # as configure() exports it
    root = os.path.dirname(os.path.dirname(os.path.abspath(xp.__file__)))
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (root, saved["PYTHONPATH"]) if p)
    try:
        with distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
            dashboard_address=None, memory_limit="1GiB", silence_logs=40,
        ) as lc:
            yield lc
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _where(x):
    """A chunk function run on a worker: pid * 10 + the index of the chunk's device in
    the worker's policy (9: default device), or -1 if the chunk is not a usm_ndarray."""
    import usmarray as xp
    from usmarray import _cubed_placement as pl

    if type(x) is not xp.usm_ndarray:
        return np.full(x.shape, -1.0)
    devs = pl.policy().devices
    k = devs.index(x.device) if x.device in devs else 9
    return xp.full(x.shape, float(os.getpid() * 10 + k), dtype=xp.float64, device=x.device)


def test_dask_executor_on_a_local_cluster(cluster, tmp_path):
    spec = cubed.Spec(work_dir=str(tmp_path), allowed_mem="200MB")
    ex = create_executor("dask", dict(compute_kwargs={"address": cluster.scheduler_address}))
    host = np.arange(400.0, dtype=np.float32).reshape(20, 20)
    a = cxp.asarray(host, chunks=(5, 20), spec=spec)

    # arithmetic with a scalar: cubed pickles the in-memory usm_ndarray scalar into tasks
    m = cxp.mean(a * 2 + 1).compute(executor=ex)
    assert type(m) is xp.usm_ndarray
    np.testing.assert_allclose(float(m), float((host * 2 + 1).mean()), rtol=1e-6)
    np.testing.assert_allclose(xp.asnumpy(cubed.nansum(a, axis=0).compute(executor=ex)),
                               host.sum(axis=0))

    codes = xp.asnumpy(cubed.map_blocks(_where, a, dtype=cxp.float64).compute(executor=ex))
    codes = np.unique(codes)
    print("worker codes (pid*10 + device index):", codes)
    assert (codes > 0).all(), "a worker's chunk was not a usm_ndarray"
    pids = {int(c) // 10 for c in codes}
    assert os.getpid() not in pids  # the chunks were computed in worker processes
    by_pid = {p: {int(c) % 10 for c in codes if int(c) // 10 == p} for p in pids}
    assert all(len(v) == 1 for v in by_pid.values())  # one device per worker process
    if os.environ.get(pl.ENV_DEVICES, _sub_devices()) != "default" and len(pids) == 2:
        assert len(set().union(*by_pid.values())) == 2  # the two workers, two sub-devices


def test_a_device_store_is_refused_by_the_dask_executor_saying_why(cluster, tmp_path):
    """A device store lives in one process: Dask's workers cannot share it, and the
    error says to give the Spec a work_dir instead; the same plan with a work_dir runs."""
    import usmarray.cubed as uc
    from usmarray import _cubed_store as st

    ex = create_executor("dask", dict(compute_kwargs={"address": cluster.scheduler_address}))
    host = np.arange(64.0, dtype=np.float32)
    try:
        spec = cubed.Spec(allowed_mem="200MB", intermediate_store=uc.device_store())
        with pytest.raises(Exception) as info:
            cxp.sum(cxp.asarray(host, chunks=16, spec=spec) + 1).compute(executor=ex)
        chain, e = [], info.value
        while e is not None:
            chain.append(str(e))
            e = e.__cause__ or e.__context__
        assert any("cannot go to another process" in m and "work_dir" in m for m in chain), chain
    finally:
        st.uninstall()
    spec = cubed.Spec(work_dir=str(tmp_path), allowed_mem="200MB")
    got = cxp.sum(cxp.asarray(host, chunks=16, spec=spec) + 1).compute(executor=ex)
    assert float(got) == float((host + 1).sum())


def test_usmarrays_optimizer_on_the_dask_executor(cluster, tmp_path):
    """The cluster recipe: Zarr intermediates and usmarray.cubed.optimize, whose fused
    tasks (an array recomputed by several readers) Dask hashes and pickles."""
    import usmarray.cubed as uc

    ex = create_executor("dask", dict(compute_kwargs={"address": cluster.scheduler_address}))
    spec = cubed.Spec(work_dir=str(tmp_path), allowed_mem="200MB")
    i = cxp.arange(4000, dtype=cxp.int32, chunks=250, spec=spec)
    x = cxp.astype(i, cxp.float64) * 1e-3
    m = cxp.mean(x)
    s = cxp.sqrt(cxp.mean(cxp.square(x - m)))
    got = cubed.compute(m, s, executor=ex, optimize_function=uc.optimize)
    h = np.arange(4000) * 1e-3
    np.testing.assert_allclose([float(v) for v in got], [h.mean(), h.std()], rtol=1e-12)
