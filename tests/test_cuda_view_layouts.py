"""Views on a CUDA device (transposed, F-ordered, reversed, stepped, sliced) through the
functions that copy them: host copies, sort, argsort, the unique family, reshape, copies, and the
backend's ``copy`` (NumPy's ``copy(order="K")`` layout); ``full`` of every real and bool
dtype on every memory kind, stream and order keeps the value's bits.  Values against
NumPy; the kernels that run are usmarray's own (CuPy's copy and fill kernels flush
float32 subnormals)."""

from __future__ import annotations

import numpy as np
import pytest
from cuda_gpu import cupy_and_marks

import usmarray as xp

cupy, _, pytestmark = cupy_and_marks()

DEV = "cuda:0"

#: a view of a base array (NumPy or usmarray, the same indexing), and the base's shape
VIEWS = {
    "transposed": (lambda a: a.T, (31, 45)),
    "F-order-3d": (lambda a: _permute(a, (2, 1, 0)), (5, 6, 7)),
    "reversed": (lambda a: a[::-1], (999,)),
    "reversed-2d": (lambda a: a[::-1, ::-1], (17, 23)),
    "stepped": (lambda a: a[::3], (1000,)),
    "sliced-2d": (lambda a: a[1:, ::2], (33, 40)),
}


def _permute(a, axes):
    return xp.permute_dims(a, axes) if isinstance(a, xp.usm_ndarray) else a.transpose(axes)


def _base(dtype: str, shape: tuple[int, ...], nans: bool = True, signed_zeros: bool = True,
          subnormals: bool = True) -> np.ndarray:
    """Small integers (repeats for the unique family and ties for the sorts) and, where
    asked, NaNs of either sign, -0.0 and subnormals."""
    rng = np.random.default_rng(11)
    d = np.dtype(dtype)
    if d.kind in "biu":
        return rng.integers(0, 2 if d.kind == "b" else 9, shape).astype(d)
    a = rng.integers(-4, 5, shape).astype(d)
    flat = a.reshape(-1)
    if subnormals:
        flat[3::11] = np.finfo(d).smallest_subnormal
    if signed_zeros:
        flat[::7] = -0.0
    if nans:
        flat[::5] = np.nan
        flat[2::9] = -np.nan
    return a


def _pair(view: str, dtype: str, **special: bool) -> tuple[np.ndarray, xp.usm_ndarray]:
    f, shape = VIEWS[view]
    h = _base(dtype, shape, **special)
    return f(h), f(xp.asarray(h, device=DEV))


def _same(got: xp.usm_ndarray, want: np.ndarray) -> None:
    g = xp.asnumpy(got)
    assert g.dtype == want.dtype and g.shape == want.shape
    np.testing.assert_array_equal(g, want)
    if want.dtype.kind == "f":  # -0.0 and the subnormals where NumPy has them
        ok = ~np.isnan(want)
        np.testing.assert_array_equal(np.signbit(g[ok]), np.signbit(want[ok]))


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("dtype", ["float32", "float64", "int16"])
def test_sort_and_argsort_of_views(view: str, dtype: str) -> None:
    # -0.0 and 0.0 are equal to NumPy's sort: which comes first is its stable order
    h, u = _pair(view, dtype, signed_zeros=False)
    for axis in range(-h.ndim, 0):
        _same(xp.sort(u, axis=axis), np.sort(h, axis=axis, kind="stable"))
        _same(xp.argsort(u, axis=axis, stable=True), np.argsort(h, axis=axis, kind="stable"))


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("dtype", ["float32", "float64", "int16", "bool"])
def test_host_copies_of_views_keep_every_bit(view: str, dtype: str) -> None:
    h, u = _pair(view, dtype)
    g = xp.asnumpy(u)
    assert g.dtype == h.dtype and g.shape == h.shape
    bits = f"u{h.dtype.itemsize}"
    np.testing.assert_array_equal(g.view(bits), np.ascontiguousarray(h).view(bits))


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("dtype", ["float32", "int16"])
def test_unique_family_of_views(view: str, dtype: str) -> None:
    # NaNs and -0.0 aside: the family gives the canonical NaN and +0.0 (docs/migration.md)
    h, u = _pair(view, dtype, nans=False, signed_zeros=False)
    values, index, inverse, counts = np.unique(h, return_index=True, return_inverse=True,
                                               return_counts=True)
    _same(xp.unique_values(u), values)
    got = xp.unique_all(u)
    _same(got.values, values)
    _same(got.indices, index.astype(np.int64))
    _same(got.inverse_indices, inverse.reshape(h.shape).astype(np.int64))
    _same(got.counts, counts.astype(np.int64))
    c = xp.unique_counts(u)
    _same(c.counts, counts.astype(np.int64))
    _same(xp.unique_inverse(u).inverse_indices, inverse.reshape(h.shape).astype(np.int64))


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("dtype", ["float32", "float64", "uint8", "bool"])
def test_reshape_and_copies_of_views(view: str, dtype: str) -> None:
    h, u = _pair(view, dtype)
    for shape in ((-1,), (h.size // h.shape[-1], h.shape[-1]), (1, -1)):
        _same(xp.reshape(u, shape), h.reshape(shape))
        _same(xp.reshape(u, shape, copy=True), h.reshape(shape))
    _same(xp.asarray(u, copy=True), h.copy())
    _same(xp.astype(u, xp.float64), h.astype(np.float64))
    _same(xp.flip(xp.reshape(u, (-1,))), h.reshape(-1)[::-1])
    _same(xp.asarray(u, device=DEV, usm_type="shared", copy=True), h)


@pytest.mark.parametrize("view", [*VIEWS, "C", "broadcast"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_backend_copy_is_numpys_order_k(view: str, dtype: str) -> None:
    """The backend protocol's ``copy`` is NumPy's ``copy(order="K")``: a dense copy laid
    out in the source's memory order (C order for a C-ordered, reversed or stepped
    source, F order for a transposed one), as NumPy's and the SYCL provider's copies; a
    broadcast view's copy is C order (as NumPy's ufuncs lay out such results)."""
    if view == "C":
        h = _base(dtype, (6, 7), True)
        u = xp.asarray(h, device=DEV)
    elif view == "broadcast":
        h = np.broadcast_to(_base(dtype, (7,), True), (6, 7))
        u = xp.broadcast_to(xp.asarray(h[0], device=DEV), (6, 7))
    else:
        h, u = _pair(view, dtype)
    c = u._be.copy(u._arr)
    want = np.ascontiguousarray(h) if view == "broadcast" else h.copy(order="K")
    assert c.strides == want.strides, (c.strides, want.strides)
    np.testing.assert_array_equal(u._be.to_host(c), want)


_FULLS = [("float32", 1e-45), ("float32", -1.5e-45), ("float32", 3.5), ("float64", -0.0),
          ("float64", 5e-324), ("int8", -1), ("uint64", 2**64 - 1), ("bool", True),
          ("int32", 0), ("complex64", complex(1e-45, -3.5)),
          ("complex64", complex(-0.0, 2e-45)), ("complex128", complex(5e-324, -1e-310)),
          ("complex128", complex(2.5, -0.0))]


@pytest.mark.parametrize("usm_type", ["device", "shared", "host"])
@pytest.mark.parametrize(("dtype", "value"), _FULLS)
def test_full_keeps_the_bits_on_every_memory_kind_and_stream(dtype: str, value, usm_type):
    d = np.dtype(dtype)
    bits = f"u{d.itemsize // 2}" if d.kind == "c" else f"u{d.itemsize}"
    stream = cupy.cuda.Stream(non_blocking=True)
    for device in (DEV, xp.Device.create_device(stream)):
        for shape in ((1,), (3, 5), (1000, 33)):
            x = xp.full(shape, value, dtype=getattr(xp, dtype), device=device,
                        usm_type=usm_type)
            assert x.usm_type == usm_type
            got = xp.asnumpy(x)
            np.testing.assert_array_equal(got.view(bits), np.full(shape, value, d).view(bits))
    be = xp.asarray(0, device=DEV)._be
    f = be.full((4, 6), value, dtype=d, order="F")
    assert f.flags.f_contiguous
    np.testing.assert_array_equal(be.to_host(f).view(bits), np.full((4, 6), value, d).view(bits))


def test_scalars_made_on_the_device_keep_subnormals() -> None:
    """A Python float made into a 0-D operand (searchsorted, where) keeps its float32
    subnormal value."""
    tiny = float(np.finfo(np.float32).smallest_subnormal)
    s = np.array([-tiny, -0.0, 0.0, tiny, 2 * tiny, 1.0], dtype=np.float32)
    xs = xp.asarray(s, device=DEV)
    for side in ("left", "right"):
        assert int(xp.searchsorted(xs, tiny, side=side)) == np.searchsorted(
            s, np.float32(tiny), side=side)
    w = xp.where(xs > 0.5, xs, tiny)
    np.testing.assert_array_equal(xp.asnumpy(w).view("u4"),
                                  np.where(s > 0.5, s, np.float32(tiny)).view("u4"))


def test_only_usmarrays_kernels_run() -> None:
    """sort keys, reshape and copies of views, and full of every kind, launch only
    usmarray's own kernels (all named ``k``) and memsets, never CuPy's copy or fill."""
    torch = pytest.importorskip("torch")
    from torch.profiler import ProfilerActivity, profile

    views = [_pair(v, "float32")[1] for v in VIEWS]
    stream = xp.Device.create_device(cupy.cuda.Stream(non_blocking=True))
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for u in views:
            xp.reshape(u, (-1,))
            xp.reshape(u, (-1,), copy=True)
            xp.asarray(u, copy=True)
            xp.astype(u, xp.float64)
        for usm_type in ("device", "shared", "host"):
            for device in (DEV, stream):
                xp.full((100, 7), 2.5, dtype=xp.float32, device=device, usm_type=usm_type)
                xp.full((100, 7), -1, dtype=xp.int8, device=device, usm_type=usm_type)
                xp.zeros((100, 7), dtype=xp.float32, device=device, usm_type=usm_type)
        xs = xp.sort(views[2])
        xp.searchsorted(xs, 0.25)
        xp.where(views[2] > 0, views[2], 0.5)
        torch.cuda.synchronize()
    names = [e.name for e in prof.events() if e.device_type.name == "CUDA"]
    kernels = {n for n in names if not n.lower().startswith(("memcpy", "memset"))}
    assert not [n for n in kernels if n.startswith("cupy_copy") or n.startswith("cupy_fill")
                ], sorted(kernels)
