"""The chunk pool behind ``usmarray.cubed.asarray``: chunks read from the
host reuse the memory of dead chunks of the same size, never of live ones, and the
idle memory kept stays within ``USMARRAY_CUBED_POOL_BYTES``."""

from __future__ import annotations

import gc
import threading

import numpy as np
import pytest

import usmarray as xp
import usmarray.cubed as uc
from usmarray import _cubed_placement as pl
from usmarray._env import EnvironmentSettingError

if xp.provider is None:
    pytest.skip("the chunk pool is the SYCL backend's", allow_module_level=True)
cp = pytest.importorskip("usmarray._backend._sycl.chunk_pool")

N = cp.MIN_BYTES // 4  # float32 elements of the smallest pooled chunk


@pytest.fixture
def pool_policy():
    """A default-device policy on the SYCL CPU device with an emptied pool; yields a
    function that sets the pool's byte bound."""
    saved = pl._policy
    dev = xp.Device.create_device("cpu")
    pool = dev._be.__dict__.get("_chunk_pool")
    if pool is not None:
        pool.clear()

    def set_bound(n: int) -> pl.Placement:
        pl._policy = pl.Placement([dev], "auto", n)
        return pl._policy

    set_bound(64 * cp.MIN_BYTES)
    try:
        yield set_bound
    finally:
        pl._policy = saved
        pool = dev._be.__dict__.get("_chunk_pool")
        if pool is not None:
            pool.clear()


def _pool():
    """The SYCL CPU device's chunk pool; an empty one where no chunk was pooled yet (the
    backend makes it at its first pooled read)."""
    from usmarray._backend._sycl.chunk_pool import ChunkPool

    return xp.Device.create_device("cpu")._be.__dict__.setdefault("_chunk_pool", ChunkPool())


def _chunk(seed: int, n: int = N, dtype=np.float32) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(n).astype(dtype)


def test_a_dead_chunks_memory_is_reused_for_the_next_of_its_size(pool_policy):
    a = uc.asarray(_chunk(0))
    pool = _pool()
    hits, misses = pool.hits, pool.misses
    ptr = a._arr.usm_data._pointer
    del a
    gc.collect()
    assert pool.idle_bytes() == N * 4
    host = _chunk(1)
    b = uc.asarray(host)
    assert (pool.hits, pool.misses) == (hits + 1, misses)
    assert b._arr.usm_data._pointer == ptr
    assert b.dtype == xp.float32 and b.shape == host.shape and b.device == xp.Device.create_device(
        "cpu")
    np.testing.assert_array_equal(xp.asnumpy(b), host)
    np.testing.assert_array_equal(xp.asnumpy(b * 2), host * 2)


def test_live_chunks_and_their_views_are_never_reused(pool_policy):
    h0, h1 = _chunk(0), _chunk(1)
    a = uc.asarray(h0)
    v = a[5:N // 2]
    del a
    gc.collect()
    b = uc.asarray(h1)  # a's block is still held by the view
    assert not xp.Device.create_device("cpu")._be.may_share_memory(v._arr, b._arr)
    np.testing.assert_array_equal(xp.asnumpy(v), h0[5:N // 2])
    np.testing.assert_array_equal(xp.asnumpy(b), h1)
    held = _pool().idle_bytes()
    del v
    gc.collect()
    assert _pool().idle_bytes() == held + N * 4  # now back


def test_a_kernel_result_does_not_hold_the_chunk_and_is_not_overwritten(pool_policy):
    h = _chunk(2)
    a = uc.asarray(h)
    e = xp.exp(a)
    del a
    gc.collect()
    b = uc.asarray(_chunk(3))  # may take a's block, never e's memory
    np.testing.assert_allclose(xp.asnumpy(e), np.exp(h), rtol=1e-6)
    del b


def test_idle_memory_stays_within_the_bound(pool_policy):
    pool_policy(3 * N * 4)
    chunks = [uc.asarray(_chunk(i)) for i in range(5)]
    del chunks
    gc.collect()
    assert _pool().idle_bytes() == 3 * N * 4  # two of the five blocks were freed
    # a chunk of another size makes room by freeing idle blocks of other sizes
    other = uc.asarray(_chunk(9, n=2 * N))
    assert _pool().idle_bytes() <= 3 * N * 4 - 2 * N * 4
    del other
    gc.collect()
    assert _pool().idle_bytes() <= 3 * N * 4


def test_a_bound_of_zero_and_small_chunks_are_not_pooled(pool_policy):
    pool_policy(0)
    _pool_or_none = xp.Device.create_device("cpu")._be.__dict__.get("_chunk_pool")
    before = None if _pool_or_none is None else (_pool_or_none.hits, _pool_or_none.misses)
    h = _chunk(4)
    x = uc.asarray(h)
    np.testing.assert_array_equal(xp.asnumpy(x), h)
    after = xp.Device.create_device("cpu")._be.__dict__.get("_chunk_pool")
    assert (None if after is None else (after.hits, after.misses)) == before
    pool_policy(64 * cp.MIN_BYTES)
    small = _chunk(5, n=1000)
    y = uc.asarray(small)
    np.testing.assert_array_equal(xp.asnumpy(y), small)
    assert _pool().misses == 0 and _pool().hits == 0


@pytest.mark.parametrize("dtype", [np.float64, np.int16, np.complex64, np.bool_])
def test_pooled_chunks_keep_dtype_shape_and_values(pool_policy, dtype):
    host = (np.arange(N * 2) % 7).astype(dtype).reshape(64, -1)[:, ::2]  # strided input
    x = uc.asarray(host)
    assert x.dtype == xp.__dict__[np.dtype(dtype).name if dtype is not np.bool_ else "bool"]
    assert x.shape == host.shape
    np.testing.assert_array_equal(xp.asnumpy(x), host)
    x[0, 0] = xp.ones((), dtype=x.dtype)  # the chunk is writable and owns its memory
    assert host[0, 0] == 0 and bool(x[0, 0])


def test_inputs_the_pool_does_not_take_go_the_usual_way(pool_policy):
    h = _chunk(6)
    with pytest.raises(ValueError, match="byteorder"):  # usmarray's asarray refuses it
        uc.asarray(h.astype(">f4"))
    x = uc.asarray(h, dtype=np.float64)  # a cast: usmarray's asarray
    assert x.dtype == xp.float64
    assert _pool().misses == 0
    for same in (np.float32, xp.float32, "float32"):  # the chunk's own dtype: pooled
        np.testing.assert_array_equal(xp.asnumpy(uc.asarray(h, dtype=same)), h)
    assert _pool().misses + _pool().hits == 3
    _pool().clear()
    with pytest.raises(ValueError, match="requires a copy"):
        uc.asarray(h, copy=False)
    assert _pool().misses == 0
    with pytest.raises(TypeError):
        uc.asarray(np.zeros(N, dtype=np.float16))


def test_chunks_from_threads_keep_their_values(pool_policy):
    errors = []

    def work(seed):
        for i in range(8):
            h = _chunk(seed * 100 + i)
            x = uc.asarray(h)
            got = xp.asnumpy(x + 1)
            if not np.array_equal(got, h + 1):
                errors.append((seed, i))
            del x

    threads = [threading.Thread(target=work, args=(s,)) for s in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert _pool().hits > 0


def test_pool_bound_setting_is_checked(monkeypatch):
    monkeypatch.setenv(pl.ENV_POOL, "-1")
    with pytest.raises(EnvironmentSettingError, match=pl.ENV_POOL):
        pl._pool_bytes_from_env()
    monkeypatch.setenv(pl.ENV_POOL, "123")
    assert pl._pool_bytes_from_env() == 123
    monkeypatch.delenv(pl.ENV_POOL)
    assert pl._pool_bytes_from_env() == pl.POOL_DEFAULT
    with pytest.raises(ValueError, match="pool_bytes"):
        uc.configure(pool_bytes=-5)


def test_the_numpy_backend_has_no_pool_and_takes_the_usual_path():
    saved = pl._policy
    try:
        pl._policy = pl.Placement([xp.Device.create_device("numpy")], "auto")
        h = _chunk(7)
        x = uc.asarray(h)
        assert x.device == xp.Device.create_device("numpy")
        np.testing.assert_array_equal(xp.asnumpy(x), h)
    finally:
        pl._policy = saved
