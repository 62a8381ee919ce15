"""cubed's intermediates on the devices (``usmarray.cubed.device_store``): values equal
NumPy's, chunks that tasks write and read stay ``usm_ndarray`` arrays and never visit the
host, the byte bounds hold and spill to host memory and then to disk, arrays are freed
when a computation ends, Zarr inputs and outputs still work, and a store refuses to go
to another process.  cubed reads its backend once per process: this module sets it
before importing cubed and skips if cubed was imported with another backend."""

from __future__ import annotations

import collections
import os
import pickle
import re
import traceback

import numpy as np
import pytest
from cubed_on_usmarray import import_cubed
from test_reliability_common import device_params

cubed = import_cubed()

import cubed.array_api as cxp  # noqa: E402
from cubed.core.optimization import multiple_inputs_optimize_dag  # noqa: E402
from cubed.runtime.create import create_executor  # noqa: E402

import usmarray as xp  # noqa: E402
import usmarray.cubed as uc  # noqa: E402
from usmarray import _cubed_placement as pl  # noqa: E402
from usmarray import _cubed_store as st  # noqa: E402
from usmarray._env import EnvironmentSettingError  # noqa: E402

DEVICES = device_params("numpy", "cpu", "cuda:0")
N, CHUNK = 40_000, 5_000


@pytest.fixture
def placed(request):
    """The placement policy on the test's device, and the store's hooks removed after."""
    saved = pl._policy
    pl._policy = pl.Placement(pl.resolve_devices(request.param), "auto")
    yield request.param
    pl._policy = saved
    st.uninstall()


@pytest.fixture
def unhooked():
    yield
    st.uninstall()


def _x(spec):
    i = cxp.arange(N, dtype=cxp.int32, chunks=CHUNK, spec=spec)
    return cxp.astype(i, cxp.float32) * (20.0 / N) - 10.0


def _x_host():
    return (np.arange(N, dtype=np.int32).astype(np.float32) * np.float32(20.0 / N)
            - np.float32(10.0))


def _chain(x):
    xp_ = x.__array_namespace__()
    return xp_.sin(x) * xp_.cos(0.5 * x) + xp_.exp(-xp_.abs(x)) * xp_.tanh(x) + x * x


def _chain_host(x):
    x = x.astype(np.float64)
    return np.sin(x) * np.cos(0.5 * x) + np.exp(-abs(x)) * np.tanh(x) + x * x


class _Watch(cubed.Callback):
    """Records, after each operation, where the store's chunks are and the types of the
    device chunks."""

    def __init__(self, store):
        self.store = store
        self.held = {}
        self.types = set()

    def on_operation_end(self, event):
        for name, n in self.store.held().items():
            self.held[name] = {k: max(v, self.held.get(name, {}).get(k, 0))
                               for k, v in n.items()}
        with self.store._lock:
            for a in self.store._arrays.values():
                for chunks in a._fields.values():
                    self.types |= {type(c) for c in chunks.values()}


#: frames of each counted call's stack kept to name its caller
_CALLER_FRAMES = 8
#: cubed's asarray, as a caller frame names it
_CUBED_ASARRAY = re.compile(r"creation_functions\.py:\d+ asarray ")


class _HostCopies:
    """Counts the chunk backend's reads to the host, each with its caller: ``to_host``
    (``asnumpy``, ``__array__(copy=True)``, moves to another backend), ``scalar`` (``int()``
    and ``float()`` of a 0-D array), ``str``/``repr`` (formatting an array's values) and
    ``host_accessible`` answering True (``__array__`` and DLPack to the host then read
    the memory in place).  ``host_accessible`` answering False is a query that moves
    nothing (the caller then refuses, or copies through ``to_host``, counted itself):
    it goes to :attr:`queries` instead."""

    def __init__(self, monkeypatch, device):
        self.visits: list[str] = []
        self.queries: list[str] = []
        be = xp.Device.create_device(device)._be
        for name in ("to_host", "host_accessible", "scalar", "str", "repr"):
            monkeypatch.setattr(be, name, self._counted(name, getattr(be, name)))

    @property
    def n(self):
        return len(self.visits)

    def reset(self):
        self.visits.clear()
        self.queries.clear()

    def _counted(self, name, f):
        def call(*args, **kwargs):
            got = f(*args, **kwargs)
            frames = traceback.extract_stack(limit=_CALLER_FRAMES + 1)[:-1]
            where = " <- ".join(f"{os.path.basename(fr.filename)}:{fr.lineno} {fr.name}"
                                for fr in reversed(frames))
            query = name == "host_accessible" and not got
            (self.queries if query else self.visits).append(f"{name} <- {where}")
            return got

        return call

    def report(self):
        """The distinct callers, most frequent first, for an assertion message."""
        def lines(calls):
            return "".join(f"\n  {n} x {c}" for c, n in collections.Counter(calls).most_common())

        return (f"{self.n} host visits:{lines(self.visits)}\n{len(self.queries)} "
                f"host_accessible queries answered False:{lines(self.queries)}")


@pytest.mark.parametrize("placed", DEVICES, indirect=True)
def test_stored_chunks_stay_on_the_device_and_never_visit_the_host(placed, tmp_path,
                                                                   monkeypatch):
    want = float(_chain_host(_x_host()).mean())
    ex = create_executor("threads", dict(max_workers=2))
    # cubed's own optimizer stores x and a part of the chain between tasks
    opt = dict(optimize_function=multiple_inputs_optimize_dag)

    zarr_spec = cubed.Spec(work_dir=str(tmp_path), allowed_mem="100MB")
    copies = _HostCopies(monkeypatch, placed)
    got = cxp.mean(_chain(_x(zarr_spec))).compute(executor=ex, **opt)
    through_zarr = copies.n
    assert float(got) == pytest.approx(want, rel=1e-5)
    assert through_zarr > 0  # the Zarr store: every stored chunk went through the host

    store = uc.device_store()
    spec = cubed.Spec(work_dir=str(tmp_path / "unused"), allowed_mem="100MB",
                      intermediate_store=store)
    watch = _Watch(store)
    copies.reset()
    planned = cxp.mean(_chain(_x(spec)))
    # building the plan, cubed labels each Python-scalar operand's node with str() of
    # the 0-D array it made of it (cubed's asarray): a read of a value the host just
    # gave, once per operand, and no chunk; the computation itself reads nothing back
    assert all(_CUBED_ASARRAY.search(c + " ") for c in copies.visits), copies.report()
    copies.reset()
    got = planned.compute(executor=ex, callbacks=[watch], **opt)
    assert copies.n == 0, copies.report()
    assert type(got) is xp.usm_ndarray and float(got) == pytest.approx(want, rel=1e-5)
    big = [n for n, h in watch.held.items() if h["device"] == N // CHUNK]
    assert big, watch.held  # full-size intermediates were stored, as device chunks
    assert all(h["host"] == h["disk"] == 0 for h in watch.held.values())
    assert watch.types == {xp.usm_ndarray}
    assert not (tmp_path / "unused").exists()  # nothing went to the work_dir
    assert store.arrays() == [] and store.usage()["devices"] == {}  # freed at the end


@pytest.mark.parametrize("placed", DEVICES, indirect=True)
def test_block_numbers_stay_on_the_host_and_number_every_grid(placed, monkeypatch):
    """A ``block_id`` function's block number (cubed's offsets array) reaches it without
    a device round trip, right in a 2-D grid (``eye``) and a 1-D one (``linspace``)."""
    store = uc.device_store()
    spec = cubed.Spec(allowed_mem="100MB", intermediate_store=store)
    e = cxp.eye(7, 10, k=2, dtype=cxp.float32, chunks=(3, 4), spec=spec)
    line = cxp.linspace(-1.0, 2.0, 23, chunks=5, dtype=cxp.float64, spec=spec)
    copies = _HostCopies(monkeypatch, placed)
    ge, gl = cubed.compute(e, line)
    assert copies.n == 0, copies.report()
    np.testing.assert_array_equal(xp.asnumpy(ge), np.eye(7, 10, k=2, dtype=np.float32))
    np.testing.assert_allclose(xp.asnumpy(gl), np.linspace(-1.0, 2.0, 23), rtol=1e-12)


@pytest.mark.parametrize("placed", DEVICES, indirect=True)
def test_plans_storing_on_the_device_fuse_by_default(placed):
    """Without optimize_function, a device-store plan is optimized by usmarray's
    optimizer: the chain and the mean's first step are one task per chunk, and no
    full-size array is stored; a Zarr-store plan keeps cubed's default."""
    store = uc.device_store()
    spec = cubed.Spec(allowed_mem="100MB", intermediate_store=store)
    watch = _Watch(store)
    got = cxp.mean(_chain(_x(spec))).compute(callbacks=[watch])
    assert float(got) == pytest.approx(float(_chain_host(_x_host()).mean()), rel=1e-5)
    assert watch.held and all(sum(h.values()) < N // CHUNK for h in watch.held.values())
    from cubed.core.plan import arrays_to_plan

    fin = arrays_to_plan(cxp.mean(_chain(_x(cubed.Spec(allowed_mem="100MB")))))._finalize()
    assert fin.total_intermediate_nbytes >= N * 4  # cubed's default, as before


@pytest.mark.parametrize("placed", DEVICES, indirect=True)
def test_the_device_bound_spills_to_host_memory_then_to_disk(placed, tmp_path):
    chunk_bytes = CHUNK * 4
    store = uc.device_store(device_bytes=3 * chunk_bytes, host_bytes=2 * chunk_bytes,
                            spill_dir=tmp_path / "spill")
    spec = cubed.Spec(allowed_mem="100MB", intermediate_store=store)
    watch = _Watch(store)
    x = _x(spec)
    y = cxp.sin(x) + x * 2  # x is stored: 8 chunks
    with pytest.warns(UserWarning, match="spill to disk in .*smaller chunks") as caught:
        got = cxp.sum(y).compute(callbacks=[watch],
                                 optimize_function=multiple_inputs_optimize_dag)
    assert sum("spill to disk" in str(w.message) for w in caught) == 1  # once a store
    xh = _x_host()
    assert float(got) == pytest.approx(float((np.sin(xh) + xh * 2).astype(np.float64).sum()),
                                       rel=1e-4, abs=1e-2)
    peaks = store.peaks()
    assert max(peaks["devices"].values()) <= 3 * chunk_bytes
    assert 0 < peaks["host"] <= 2 * chunk_bytes
    assert peaks["disk"] > 0
    kinds = {k for h in watch.held.values() for k, v in h.items() if v}
    assert kinds == {"device", "host", "disk"}
    assert store.usage() == {"devices": {}, "host": 0, "disk": 0}
    assert list((tmp_path / "spill").rglob("*.npy")) == []  # spilled files deleted


@pytest.mark.parametrize("placed", DEVICES, indirect=True)
def test_a_full_spill_directory_is_an_error_that_names_it_and_the_way_out(
        placed, tmp_path, monkeypatch):
    import errno

    store = uc.device_store(device_bytes=0, host_bytes=0, spill_dir=tmp_path / "spill")
    spec = cubed.Spec(allowed_mem="100MB", intermediate_store=store)

    def full(path: object, *args: object, **kw: object) -> None:
        open(path, "wb").close()  # a partial file, as a full disk leaves one
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(np, "save", full)
    # one chunk: the one task that stores x is the only writer (no task still running
    # when the error arrives), and no retries
    i = cxp.arange(CHUNK, dtype=cxp.int32, chunks=CHUNK, spec=spec)
    x = cxp.astype(i, cxp.float32) * 0.5
    one = create_executor("threads", dict(max_workers=1, retries=0))
    with pytest.warns(UserWarning, match="spill to disk"), \
            pytest.raises(OSError, match="could not write a chunk .* spill_dir") as info:
        (cxp.sin(x) + x * 2).compute(optimize_function=multiple_inputs_optimize_dag,
                                     executor=one)
    assert info.value.errno == errno.ENOSPC
    assert store.usage()["disk"] == 0
    assert list((tmp_path / "spill").rglob("*.npy")) == []


@pytest.mark.parametrize("placed", DEVICES, indirect=True)
def test_a_computed_array_is_read_whole_from_the_store_and_then_freed(placed):
    store = uc.device_store()
    spec = cubed.Spec(allowed_mem="100MB", intermediate_store=store)
    host = np.arange(60.0).reshape(6, 10)
    a = cxp.asarray(host, chunks=(4, 3), spec=spec)
    r = (a * 2 + 1).rechunk((6, 5))
    np.testing.assert_array_equal(xp.asnumpy(r.compute()), host * 2 + 1)
    m, s = cubed.compute(cxp.mean(a), cxp.sum(a, axis=0))
    assert float(m) == host.mean()
    np.testing.assert_array_equal(xp.asnumpy(s), host.sum(axis=0))
    assert store.arrays() == []


@pytest.mark.parametrize("placed", DEVICES, indirect=True)
def test_zarr_inputs_and_outputs_with_a_device_store(placed, tmp_path):
    import zarr

    host = np.arange(1000.0, dtype=np.float32).reshape(40, 25)
    z = zarr.open(str(tmp_path / "in.zarr"), mode="w", shape=host.shape, chunks=(10, 25),
                  dtype="float32")
    z[...] = host
    store = uc.device_store()
    spec = cubed.Spec(allowed_mem="100MB", intermediate_store=store)
    a = cubed.from_zarr(str(tmp_path / "in.zarr"), spec=spec)
    b = cxp.sin(a) * 2 + a
    cubed.to_zarr(b, str(tmp_path / "out.zarr"))
    np.testing.assert_allclose(zarr.open(str(tmp_path / "out.zarr"))[...],
                               np.sin(host) * 2 + host, rtol=1e-6)
    np.testing.assert_allclose(xp.asnumpy(cxp.sum(b, axis=0).compute()),
                               (np.sin(host) * 2 + host).sum(axis=0), rtol=1e-5)
    assert store.arrays() == []


@pytest.mark.parametrize("placed", DEVICES, indirect=True)
def test_chunks_are_in_device_memory_once_a_store_is_in_use(placed):
    d = xp.Device.create_device(placed)
    p = pl.policy()
    before = p.usm_type_for(d)
    np.asarray(xp.empty(2, device=d, usm_type=before))  # host-readable, for Zarr
    uc.device_store()
    assert p.usm_type_for(d) == d._be.usm_types[0]
    st.uninstall()
    assert p.usm_type_for(d) == before


def test_bounds_from_arguments_and_the_environment(monkeypatch, unhooked):
    monkeypatch.delenv(st.ENV_STORE_BYTES, raising=False)
    monkeypatch.delenv(st.ENV_STORE_HOST_BYTES, raising=False)
    s = uc.device_store()
    assert (s.device_bytes, s.host_bytes) == (st.STORE_BYTES_DEFAULT,
                                              st.STORE_HOST_BYTES_DEFAULT)
    monkeypatch.setenv(st.ENV_STORE_BYTES, "1000")
    monkeypatch.setenv(st.ENV_STORE_HOST_BYTES, "0")
    s = uc.device_store()
    assert (s.device_bytes, s.host_bytes) == (1000, 0)
    assert uc.device_store(device_bytes=5).device_bytes == 5
    monkeypatch.setenv(st.ENV_STORE_BYTES, "4GB")
    with pytest.raises(EnvironmentSettingError, match=st.ENV_STORE_BYTES):
        uc.device_store()
    with pytest.raises(ValueError, match="device_bytes=-1.*byte count"):
        uc.device_store(device_bytes=-1, host_bytes=0)
    with pytest.raises(ValueError, match="host_bytes=1.5"):
        uc.device_store(device_bytes=0, host_bytes=1.5)


def test_a_store_refuses_to_go_to_another_process(tmp_path, unhooked):
    store = uc.device_store()
    with pytest.raises(TypeError, match="work_dir on storage every worker reads"):
        pickle.dumps(store)
    spec = cubed.Spec(allowed_mem="100MB", intermediate_store=store)
    a = cxp.asarray(np.arange(8.0), chunks=4, spec=spec)
    with pytest.raises(TypeError, match="cannot go to another process"):
        cxp.sum(a + 1).compute(executor=create_executor("processes", dict(max_workers=1)))


def test_without_the_store_cubed_is_as_before(tmp_path, unhooked):
    import cubed.core.plan as plan
    import cubed.primitive.blockwise as bw

    before = (bw.get_results_in_different_scope, plan.multiple_inputs_optimize_dag)
    uc.device_store()
    assert bw.get_results_in_different_scope is not before[0]
    st.uninstall()
    assert (bw.get_results_in_different_scope, plan.multiple_inputs_optimize_dag) == before
    assert not st.installed() and not any(type(c).__name__ == "Janitor"
                                          for c in cubed.Callback.active)


@pytest.mark.skipif(xp.provider is None, reason="SYCL sub-devices need dpctl")
def test_two_sub_devices_read_each_others_chunks(tmp_path, unhooked):
    import dpctl

    if dpctl.SyclDevice("cpu").max_compute_units < 2:
        pytest.skip("the CPU device has one compute unit")
    saved = pl._policy
    pl._policy = pl.Placement(pl.resolve_devices("cpu/2"), "auto")
    try:
        store = uc.device_store()
        spec = cubed.Spec(allowed_mem="100MB", intermediate_store=store)
        watch = _Watch(store)
        host = np.arange(64.0).reshape(16, 4)
        a = cxp.asarray(host, chunks=(1, 4), spec=spec)
        t = (a * 2).rechunk((4, 4))  # each task reads chunks written by both devices
        ex = create_executor("threads", dict(max_workers=2))
        out = cxp.sum(t, axis=1).compute(executor=ex, callbacks=[watch])
        np.testing.assert_array_equal(xp.asnumpy(out), (host * 2).sum(axis=1))
        assert len(store.peaks()["devices"]) == 2  # chunks were kept on both
    finally:
        pl._policy = saved


@pytest.mark.parametrize("placed", DEVICES, indirect=True)
def test_a_computation_ending_keeps_the_arrays_another_one_still_uses(placed):
    """B runs inside A (from a callback of A) and shares A's stored arrays: B ending
    drops none of them while A runs, and A ending drops them all."""
    store = uc.device_store()
    spec = cubed.Spec(allowed_mem="100MB", intermediate_store=store)
    x = _x(spec)
    y = _chain(x)
    opt = dict(optimize_function=multiple_inputs_optimize_dag)  # stores x and y's parts
    inner = []

    class RunB(cubed.Callback):
        def on_operation_end(self, event):
            if not inner:
                inner.append(float(cxp.sum(y).compute(**opt)))

    got = float(cxp.mean(y).compute(callbacks=[RunB()], **opt))
    want = _chain_host(_x_host())
    assert inner and inner[0] == pytest.approx(float(want.sum()), rel=1e-5)
    assert got == pytest.approx(float(want.mean()), rel=1e-5)
    assert store.arrays() == []


@pytest.mark.parametrize("placed", DEVICES, indirect=True)
def test_reading_a_dropped_array_is_an_error_not_its_fill_value(placed):
    from zarr.errors import ArrayNotFoundError

    store = uc.device_store()
    a = store.open_array("a", "w", (4,), np.float32, (2,))
    a[0:2] = uc.asarray(np.ones(2, np.float32))
    np.testing.assert_array_equal(xp.asnumpy(a[0:4]), [1, 1, 0, 0])  # unwritten: zarr's 0
    store.drop("a")
    with pytest.raises(ArrayNotFoundError, match="dropped from its device store"):
        a[0:2]
    with pytest.raises(ArrayNotFoundError, match="dropped"):
        a[0:2] = uc.asarray(np.ones(2, np.float32))
    with pytest.raises(ArrayNotFoundError):
        store.open_array("a", "r+", (4,), np.float32, (2,))
