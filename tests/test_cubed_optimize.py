"""usmarray's optimizer for cubed plans (``usmarray.cubed.optimize``): a chain of
elementwise calls and a reduction's first step become one task per chunk (per group the
reduction's first round reads), an array made from generated data and used by several
operations is recomputed rather than stored, an array made from stored data is still
stored once, requested arrays stay, and a reduction's rounds keep their parallel tasks.
Values equal NumPy's."""

from __future__ import annotations

import numpy as np
import pytest
from cubed_on_usmarray import import_cubed

cubed = import_cubed()

import cubed.array_api as cxp  # noqa: E402
from cubed.core.plan import arrays_to_plan  # noqa: E402

import usmarray as xp  # noqa: E402
import usmarray.cubed as uc  # noqa: E402

N, CHUNK = 64_000, 4_000  # 16 chunks: a reduction's first round has 4 tasks


@pytest.fixture
def spec(tmp_path):
    return cubed.Spec(work_dir=str(tmp_path), allowed_mem="100MB")


def _x(spec):
    i = cxp.arange(N, dtype=cxp.int32, chunks=CHUNK, spec=spec)
    return cxp.astype(i, cxp.float32) * (20.0 / N) - 10.0


def _xh():
    return (np.arange(N, dtype=np.int32).astype(np.float32) * np.float32(20.0 / N)
            - np.float32(10.0)).astype(np.float64)


def _chain(x):
    xp_ = x.__array_namespace__()
    return (xp_.sin(x) * xp_.cos(0.5 * x) + xp_.exp(-xp_.abs(x)) * xp_.tanh(x)
            + xp_.log1p(x * x) + xp_.atan(x))


def _chain_host(x):
    return np.sin(x) * np.cos(0.5 * x) + np.exp(-abs(x)) * np.tanh(x) + np.log1p(x * x) \
        + np.arctan(x)


def _plan(arrays, optimize_function):
    """(stored intermediate bytes, [tasks of each operation]) of the finalized plan."""
    fin = arrays_to_plan(*arrays)._finalize(optimize_graph=True,
                                            optimize_function=optimize_function)
    tasks = [d["primitive_op"].num_tasks for n, d in fin.dag.nodes(data=True)
             if "primitive_op" in d and n != "create-arrays"]
    return fin.total_intermediate_nbytes, tasks


def _meanstd(x):
    m = cxp.mean(x)
    return m, cxp.sqrt(cxp.mean(cxp.square(x - m)))


PLANS = {
    "mean(sin(x) * 2 + 1)": (lambda x: [cxp.mean(cxp.sin(x) * 2 + 1)],
                             lambda h: [np.mean(np.sin(h) * 2 + 1)]),
    "mean(chain(x)), x used six times": (lambda x: [cxp.mean(_chain(x))],
                                         lambda h: [np.mean(_chain_host(h))]),
    "mean and two-pass std of x": (lambda x: list(_meanstd(x)),
                                   lambda h: [h.mean(), h.std()]),
}


@pytest.mark.parametrize("name", list(PLANS))
def test_chains_and_reductions_become_one_task_per_chunk(spec, name):
    make, ref = PLANS[name]
    stored, _ = _plan(make(_x(spec)), None)
    assert stored >= N * 4  # cubed's own optimizer stores a full-size array
    stored, tasks = _plan(make(_x(spec)), uc.optimize)
    assert stored < 1000  # only the reductions' partial results
    # a task per 4 chunks (the first round of each reduction), then the combining round
    assert sorted(tasks, reverse=True) == [N // CHUNK // 4] * len(make(_x(spec))) + [1] * (
        len(tasks) - len(make(_x(spec))))
    got = cubed.compute(*make(_x(spec)), optimize_function=uc.optimize)
    np.testing.assert_allclose([float(g) for g in got], ref(_xh()), rtol=2e-5, atol=1e-6)


def test_an_array_made_from_stored_data_is_stored_once(spec, tmp_path):
    import zarr

    h = np.linspace(-3, 3, N, dtype=np.float32)
    z = zarr.open(str(tmp_path / "in.zarr"), mode="w", shape=(N,), chunks=(CHUNK,),
                  dtype="float32")
    z[...] = h
    a = cubed.from_zarr(str(tmp_path / "in.zarr"), spec=spec)
    y = cxp.exp(a)  # read by two reductions: recomputing it would read `a` twice
    plan = [cxp.sum(y), cxp.max(y)]
    stored, _ = _plan(plan, uc.optimize)
    assert stored >= N * 4
    got = cubed.compute(*plan, optimize_function=uc.optimize)
    np.testing.assert_allclose([float(g) for g in got],
                               [np.exp(h.astype(np.float64)).sum(), np.exp(h).max()],
                               rtol=2e-5)


def test_requested_arrays_are_computed_not_fused_away(spec):
    x = _x(spec)
    y = cxp.sin(x)
    ys, m = cubed.compute(y, cxp.mean(y * 2), optimize_function=uc.optimize)
    np.testing.assert_allclose(xp.asnumpy(ys), np.sin(_xh()), rtol=2e-6, atol=1e-6)
    assert float(m) == pytest.approx(2 * np.sin(_xh()).mean(), rel=1e-4, abs=1e-6)


def test_a_reduction_keeps_its_rounds_parallel(spec):
    i = cxp.arange(N * 4, dtype=cxp.int32, chunks=CHUNK, spec=spec)  # 64 chunks
    _, tasks = _plan([cxp.sum(cxp.astype(i, cxp.float64) * 2.0)], uc.optimize)
    assert sorted(tasks, reverse=True) == [16, 4, 1]  # not fused into fewer tasks


def test_a_recomputed_array_is_computed_once_a_task_within_a_task_scope(spec):
    """x, used by three readers, is recomputed in the fused task instead of stored;
    with the device store's task scope each chunk of x is computed once (x's readers
    share it), without one (Zarr intermediates) once per reader."""
    from usmarray import _cubed_store as st

    calls = []

    def make_x(i):
        calls.append(1)
        return i * 2.0

    def run(s):
        calls.clear()
        i = cxp.astype(cxp.arange(N, dtype=cxp.int32, chunks=CHUNK, spec=s), cxp.float64)
        x = cubed.map_blocks(make_x, i, dtype=i.dtype)
        got = cxp.sum(cxp.sin(x) + cxp.cos(x) * x).compute(optimize_function=uc.optimize)
        h = np.arange(N, dtype=np.float64) * 2.0
        assert float(got) == pytest.approx(float((np.sin(h) + np.cos(h) * h).sum()), rel=1e-9)
        return len(calls)

    assert run(spec) == 3 * (N // CHUNK)
    try:
        store_spec = cubed.Spec(allowed_mem="100MB", intermediate_store=uc.device_store())
        assert run(store_spec) == N // CHUNK
    finally:
        st.uninstall()


def test_the_optimizer_and_a_shared_function_pickle():
    import pickle

    cloudpickle = pytest.importorskip("cloudpickle")
    from usmarray._cubed_optimize import Shared

    assert pickle.loads(cloudpickle.dumps(uc.optimize)) is uc.optimize
    f = pickle.loads(cloudpickle.dumps(Shared(np.negative)))
    assert type(f) is Shared and f(np.ones(2)).tolist() == [-1.0, -1.0]
