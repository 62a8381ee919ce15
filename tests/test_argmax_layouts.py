"""argmax and argmin against NumPy on every backend, in every layout: every axis and
keepdims of C-ordered, F-ordered, sliced and reversed 3-D arrays, NaNs of either sign
(the first one wins) anywhere, ties (the first index wins, -0.0 equal to 0.0), float32
subnormals (never flushed to zero).  On ``cuda:0`` also every memory kind and stream,
sizes past 2**31, and that no kernel but usmarray's own runs (CuPy's compile path
flushes float32 subnormals)."""

from __future__ import annotations

import numpy as np
import pytest
from test_reliability_common import device_params

import usmarray as xp

DEVICES = device_params("numpy", "cpu", "cuda:0")
FUNCS = ("argmax", "argmin")


def _layouts(h: np.ndarray, dev: str) -> dict[str, tuple[np.ndarray, xp.usm_ndarray]]:
    """``h`` (3-D) as the arrays user code makes: C order, F order, a sliced view with
    steps and an offset, a reversed and transposed view."""
    out = {"C": (h, xp.asarray(h, device=dev))}
    f = xp.asarray(np.ascontiguousarray(h.transpose(2, 1, 0)), device=dev)
    out["F"] = (h, xp.permute_dims(f, (2, 1, 0)))
    big = np.zeros((h.shape[0] + 1, 2 * h.shape[1], h.shape[2] + 2), h.dtype)
    big[1:, ::2, 1:-1] = h
    u = xp.asarray(big, device=dev)
    out["sliced"] = (h, u[1:, ::2, 1:-1])
    r = np.ascontiguousarray(h[::-1, :, ::-1].transpose(1, 0, 2))
    ur = xp.asarray(r, device=dev)
    out["reversed-transposed"] = (h, xp.permute_dims(ur, (1, 0, 2))[::-1, :, ::-1])
    return out


def _data(dtype: str, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    d = np.dtype(dtype)
    if d.kind in "iu":
        return (rng.integers(0, 4, shape)).astype(d)  # ties in every slice
    a = rng.standard_normal(shape).astype(d)
    flat = a.reshape(-1)
    k = rng.choice(flat.size, size=flat.size // 9, replace=False)
    flat[k] = np.where(rng.random(k.size) < 0.5, np.nan, -np.nan).astype(d)
    flat[rng.choice(flat.size, size=5, replace=False)] = [0.0, -0.0, np.inf, -np.inf,
                                                          np.finfo(d).smallest_subnormal]
    return a


def _check(f: str, h: np.ndarray, u: xp.usm_ndarray, axis, keepdims: bool) -> None:
    got = xp.asnumpy(getattr(xp, f)(u, axis=axis, keepdims=keepdims))
    want = getattr(np, f)(h, axis=axis, keepdims=keepdims)
    assert got.dtype == np.int64
    assert got.shape == np.shape(want), (f, axis, keepdims, got.shape)
    np.testing.assert_array_equal(got, want, err_msg=f"{f} axis={axis} keepdims={keepdims}")


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "uint16", "int64"])
def test_every_axis_of_every_layout(dev: str, dtype: str) -> None:
    rng = np.random.default_rng(3)
    h = _data(dtype, rng, (5, 7, 6))
    for name, (hv, uv) in _layouts(h, dev).items():
        assert np.array_equal(xp.asnumpy(uv), hv, equal_nan=True), name
        for f in FUNCS:
            for axis in (None, 0, 1, 2, -1):
                for keepdims in (False, True):
                    _check(f, hv, uv, axis, keepdims)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nan_positions_ties_and_signed_zeros(dev: str, dtype: str) -> None:
    """The first NaN of either sign wins wherever it sits (first, last, several, late in
    a long slice, in a reversed view); without NaN the first extremum; -0.0 equals 0.0."""
    d = np.dtype(dtype)
    n = 5000
    cases = []
    for where in ([0], [n - 1], [17, 3000], [4999, 2], [2500]):
        a = np.linspace(-1, 1, n).astype(d)
        a[where] = [np.nan if i % 2 else -np.nan for i in range(len(where))]
        cases.append(a)
    tie = np.ones(n, d)
    tie[::7] = 2.0
    tie[::11] = -2.0
    cases += [tie, np.array([-0.0, 0.0, -0.0], d), np.array([0.0, -0.0], d),
              np.full(9, np.nan, d), np.array([np.inf, -np.inf, np.inf, -np.inf], d)]
    for a in cases:
        u = xp.asarray(a, device=dev)
        for hv, uv in ((a, u), (a[::-1], u[::-1]), (a[1::3], u[1::3])):
            for f in FUNCS:
                _check(f, hv, uv, None, False)
                _check(f, hv, uv, 0, True)
        k = a.size // 8 * 8
        m = a[:k].reshape(-1, 8) if k else a.reshape(1, -1)
        um = xp.asarray(m, device=dev)
        for hv, uv in ((m, um), (m.T, um.mT)):
            for f in FUNCS:
                for axis in (0, 1):
                    _check(f, hv, uv, axis, False)


@pytest.mark.parametrize("dev", DEVICES)
def test_float32_subnormals_are_not_flushed(dev: str) -> None:
    """argmax([0, 1e-45]) is 1 in float32, in every layout (a kernel built with flushed
    subnormals compares 1e-45 equal to 0 and gives 0)."""
    tiny = np.finfo(np.float32).smallest_subnormal
    for a in (np.array([0.0, tiny, 0.0], np.float32), np.array([0.0, -tiny], np.float32),
              np.array([tiny, 2 * tiny, tiny, 0.0], np.float32)):
        pad = np.zeros(2 * a.size + 1, np.float32)
        pad[1::2] = a
        u = xp.asarray(pad, device=dev)
        views = [(a, xp.asarray(a, device=dev)), (a, u[1::2]),
                 (a[::-1], xp.asarray(a, device=dev)[::-1])]
        m = np.stack([a, np.zeros_like(a)], axis=1)  # a along axis 0 of a column pair
        views.append((m, xp.asarray(m, device=dev)))
        views.append((m.T, xp.asarray(np.ascontiguousarray(m.T), device=dev)))
        for hv, uv in views:
            for f in FUNCS:
                _check(f, hv, uv, None, False)
                _check(f, hv, uv, 0, False)


# ---- cuda:0 only: memory kinds, streams, sizes, and only usmarray's kernels ------------
gpu_only = device_params("cuda:0")


@pytest.mark.parametrize("dev", gpu_only)
@pytest.mark.parametrize("usm_type", ["device", "shared", "host"])
def test_memory_kinds_and_streams(dev: str, usm_type: str) -> None:
    """Every memory kind, on the default stream and on a non-blocking one: NumPy's
    index, a result of the array's memory kind on its queue."""
    import cupy

    rng = np.random.default_rng(5)
    h = _data("float32", rng, (6, 9, 4))
    s = cupy.cuda.Stream(non_blocking=True)
    base = xp.asarray(h.transpose(1, 0, 2).copy(), device=dev, usm_type=usm_type)
    on_stream = base.to_device(xp.Device._make(base._be, base._be.native_queue(s)))
    for u in (base, on_stream):
        v = xp.permute_dims(u, (1, 0, 2))
        for f in FUNCS:
            for axis in (None, 0, 2):
                r = getattr(xp, f)(v, axis=axis)
                assert r.usm_type == usm_type and r.device == v.device
                np.testing.assert_array_equal(xp.asnumpy(r), getattr(np, f)(h, axis=axis))


@pytest.mark.parametrize("dev", gpu_only)
def test_only_usmarrays_kernels_run(dev: str) -> None:
    """argmax/argmin of every layout, memory kind and stream launch only usmarray's own
    kernels (all named ``k``; CuPy's and those compiled through CuPy have other names)
    and memsets (CUPTI, through PyTorch's profiler)."""
    torch = pytest.importorskip("torch")
    import cupy
    from torch.profiler import ProfilerActivity, profile

    rng = np.random.default_rng(9)
    calls = []
    for dtype in ("float32", "float64", "int32", "uint8"):
        h = _data(dtype, rng, (5, 7, 6))
        for _, (_, u) in _layouts(h, dev).items():
            calls += [(f, u, ax) for f in FUNCS for ax in (None, 0, 2)]
    s = cupy.cuda.Stream(non_blocking=True)
    for ut in ("shared", "host"):
        u = xp.asarray(_data("float32", rng, (40, 30)), device=dev, usm_type=ut)
        calls += [(f, u.mT, ax) for f in FUNCS for ax in (None, 1)]
    u = xp.asarray(_data("float64", rng, (40, 30)), device=dev)
    u = u.to_device(xp.Device._make(u._be, u._be.native_queue(s)))
    calls += [(f, u[::-1], ax) for f in FUNCS for ax in (None, 0)]
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for f, u, ax in calls:
            getattr(xp, f)(u, axis=ax)
        torch.cuda.synchronize()
    names = [e.name for e in prof.events() if e.device_type.name == "CUDA"]
    kernels = [n for n in names if not n.lower().startswith(("memcpy", "memset"))]
    assert len(kernels) >= len(calls)
    assert set(kernels) == {"k"}, sorted(set(kernels))


@pytest.mark.parametrize("dev", gpu_only)
def test_past_two_to_the_31(dev: str) -> None:
    """2**31 + 3 float32 elements (8 GiB): the first NaN, the largest subnormal, the
    extremes past the 32-bit range; sum and max of the same array on the same kernels."""
    import cupy

    n = 2**31 + 3
    # the array and the C-order copy a reversed view is reduced from, and a margin
    need = 2 * 4 * n + (1 << 30)
    pool = cupy.get_default_memory_pool()
    pool.free_all_blocks()
    free = cupy.cuda.runtime.memGetInfo()[0]
    if free < need:
        pytest.skip(f"needs {need} bytes of free device memory, {free} are free (other "
                    "processes hold the rest)")
    try:
        _past_two_to_the_31(dev, n)
    except MemoryError as exc:  # another process took the memory after the check
        pytest.skip(f"device memory taken by other processes during the test: {exc}")
    finally:
        pool.free_all_blocks()


def _past_two_to_the_31(dev: str, n: int) -> None:
    u = xp.zeros(n, dtype=xp.float32, device=dev)
    tiny = float(np.finfo(np.float32).smallest_subnormal)
    pos = {2**31 + 1: tiny, 5: -tiny, 2**31 + 2: -tiny}
    for i, v in pos.items():
        u[i] = v
    h = xp.asnumpy(u)
    for f in FUNCS:
        assert int(getattr(xp, f)(u)) == int(getattr(np, f)(h))
        assert int(getattr(xp, f)(u[::-1])) == int(getattr(np, f)(h[::-1]))
    assert float(xp.max(u)) == float(h.max()) and float(xp.min(u)) == float(h.min())
    u[2**31] = float("nan")
    h[2**31] = np.nan
    for f in FUNCS:
        assert int(getattr(xp, f)(u)) == int(getattr(np, f)(h))
    m = xp.reshape(u[: 2**31], (2, 2**30))
    np.testing.assert_array_equal(xp.asnumpy(xp.argmax(m, axis=1)),
                                  np.argmax(h[: 2**31].reshape(2, 2**30), axis=1))


@pytest.mark.parametrize("dev", DEVICES)
def test_index_and_count_results_are_the_int64_dtype_object(dev):
    """argmax, argmin, count_nonzero and the sum of small integers give the int64 dtype
    object itself in the backend's array (not an equal alias such as C's long long),
    which the namespace tells apart by identity without a converting copy."""
    x = xp.asarray(np.arange(12, dtype=np.int32).reshape(3, 4), device=dev)
    f = xp.astype(x, xp.float32)
    for r in (xp.argmax(f), xp.argmin(f, axis=0), xp.argmax(x, axis=1, keepdims=True),
              xp.count_nonzero(x), xp.count_nonzero(x, axis=1), xp.sum(x), xp.sum(x, axis=0),
              xp.prod(xp.astype(x, xp.int8), axis=1)):
        assert r._arr.dtype is np.dtype(np.int64)
    assert xp.sum(xp.astype(x, xp.uint16))._arr.dtype is np.dtype(np.uint64)
