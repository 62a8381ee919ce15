"""Value tests of ``usmarray.fft`` against ``numpy.fft``.

Inputs are random complex128/float64 (and complex64/float32 for the dtype rules).
Error bound: relative (2-norm of the difference over 2-norm of NumPy's result)
1e-13 for double precision and 1e-5 for single precision, every transform and norm;
frequencies and shifts are exact.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import usmarray as xp
from usmarray import _backend as _be_layer  # noqa: E402
from usmarray import fft

if _be_layer.sycl is not None:  # the SYCL room imports dpctl: only where it is present
    from usmarray._backend._sycl import onemkl as _onemkl

#: oneMKL comes through dpnp (the dpnp.tensor provider); the legacy dpctl.tensor stack has none
HAVE_DPNP = _be_layer.sycl is not None and _be_layer.sycl.provider_name == "dpnp.tensor"
needs_sycl = pytest.mark.skipif(
    _be_layer.sycl is None or xp.__array_namespace_info__().default_device().backend != "sycl",
    reason="oneMKL and its host fallback serve arrays on the SYCL default device",
)

RNG = np.random.default_rng(42)
NORMS = ["backward", "ortho", "forward"]


def crand(shape, dtype=np.complex128):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def rrand(shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


def close(u, ref, dtype=np.float64):
    got = xp.asnumpy(u)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    tol = 1e-5 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-13
    err = np.linalg.norm(got - ref) / max(np.linalg.norm(ref), 1e-300)
    assert err <= tol, f"relative error {err:.3e} > {tol:.0e}"


@pytest.mark.parametrize("name", ["fft", "ifft"])
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize(("n", "axis"), [(None, -1), (5, 0), (12, 1), (3, -1)])
def test_c2c_1d(name, norm, n, axis):
    a = crand((4, 8, 3))
    ref = getattr(np.fft, name)(a, n=n, axis=axis, norm=norm)
    res = getattr(fft, name)(xp.asarray(a), n=n, axis=axis, norm=norm)
    assert res.dtype == xp.complex128
    close(res, ref)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize(("n", "axis"), [(None, -1), (7, 0), (4, 1)])
def test_real_1d(norm, n, axis):
    r = rrand((6, 10))
    c = crand((6, 10))
    close(fft.rfft(xp.asarray(r), n=n, axis=axis, norm=norm),
          np.fft.rfft(r, n=n, axis=axis, norm=norm))
    close(fft.irfft(xp.asarray(c), n=n, axis=axis, norm=norm),
          np.fft.irfft(c, n=n, axis=axis, norm=norm))
    close(fft.hfft(xp.asarray(c), n=n, axis=axis, norm=norm),
          np.fft.hfft(c, n=n, axis=axis, norm=norm))
    close(fft.ihfft(xp.asarray(r), n=n, axis=axis, norm=norm),
          np.fft.ihfft(r, n=n, axis=axis, norm=norm))


@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn"])
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize(("s", "axes"), [(None, None), (None, (2, 0)), ((5, 3), (0, -1)),
                                         ((4, -1, 6), (1, 0, 2))])
def test_nd(name, norm, s, axes):
    a = rrand((4, 6, 5)) if name == "rfftn" else crand((4, 6, 5))
    ref_s = None if s is None else [
        (a.shape[ax] if name != "irfftn" or i < len(s) - 1 else 2 * (a.shape[ax] - 1))
        if v == -1 else v for i, (ax, v) in enumerate(zip(axes, s, strict=True))]
    ref = getattr(np.fft, name)(a, s=ref_s, axes=axes, norm=norm)
    res = getattr(fft, name)(xp.asarray(a), s=s, axes=axes, norm=norm)
    close(res, ref)


def test_round_trips_and_dtypes():
    c64 = crand((3, 16), np.complex64)
    f32 = rrand((3, 16), np.float32)
    x = xp.asarray(c64)
    assert fft.fft(x).dtype == xp.complex64 and fft.ifftn(x).dtype == xp.complex64
    assert fft.irfft(x).dtype == xp.float32 and fft.hfft(x).dtype == xp.float32
    assert fft.rfft(xp.asarray(f32)).dtype == xp.complex64
    assert fft.ihfft(xp.asarray(f32)).dtype == xp.complex64
    close(fft.ifft(fft.fft(x)), c64, np.complex64)
    close(fft.irfft(fft.rfft(xp.asarray(f32)), n=16), f32, np.float32)
    close(fft.fft(x, norm="ortho"), np.fft.fft(c64, norm="ortho"), np.complex64)
    y = crand((4, 5, 6))
    close(fft.ifftn(fft.fftn(xp.asarray(y), norm="forward"), norm="forward"), y)
    r = rrand((4, 5, 6))
    close(fft.irfftn(fft.rfftn(xp.asarray(r)), s=(4, 5, 6), axes=(0, 1, 2)), r)


def test_empty_and_degenerate_sizes():
    one = xp.asarray(crand((3, 1)))
    out = fft.irfft(one)  # n = 2 * (1 - 1) = 0 output points
    assert out.shape == (3, 0) and out.dtype == xp.float64
    out = fft.irfftn(xp.asarray(crand((1, 4))), axes=(1, 0))
    assert out.shape == (0, 4)
    z = fft.fft(xp.asarray(np.zeros((2, 0), np.complex128)), n=4)
    assert z.shape == (2, 4) and not np.any(xp.asnumpy(z))
    e = fft.fft(xp.asarray(np.zeros((0, 3), np.complex128)))
    assert e.shape == (0, 3)


@pytest.mark.parametrize("n", [1, 2, 7, 8])
@pytest.mark.parametrize("d", [1.0, 0.25])
def test_frequencies(n, d):
    close(fft.fftfreq(n, d=d), np.fft.fftfreq(n, d=d))
    close(fft.rfftfreq(n, d=d), np.fft.rfftfreq(n, d=d))
    f32 = fft.fftfreq(n, d=d, dtype=xp.float32)
    assert f32.dtype == xp.float32
    assert fft.rfftfreq(n, device=f32.device).device == f32.device
    assert fft.fftfreq(n).dtype == xp.__array_namespace_info__().default_dtypes()[
        "real floating"]


@pytest.mark.parametrize("axes", [None, 0, (1,), (0, 2), [2, 1]])
def test_shifts(axes):
    a = rrand((4, 5, 7))
    close(fft.fftshift(xp.asarray(a), axes=axes), np.fft.fftshift(a, axes=axes))
    close(fft.ifftshift(xp.asarray(a), axes=axes), np.fft.ifftshift(a, axes=axes))
    close(fft.ifftshift(fft.fftshift(xp.asarray(a), axes=axes), axes=axes), a)


def test_errors():
    c = xp.asarray(crand((4, 4)))
    r = xp.asarray(rrand((4, 4)))
    with pytest.raises(TypeError):
        fft.fft(r)
    with pytest.raises(TypeError):
        fft.rfft(c)
    with pytest.raises(TypeError):
        fft.irfftn(r)
    with pytest.raises(TypeError):
        fft.fftshift(xp.asarray(np.ones(4, np.int64)))
    with pytest.raises(ValueError):
        fft.fft(c, norm="bad")
    with pytest.raises(ValueError):
        fft.fft(c, norm=None)
    with pytest.raises(ValueError):
        fft.fft(c, n=0)
    with pytest.raises(TypeError):
        fft.fft(c, n=2.0)
    with pytest.raises(IndexError):
        fft.fft(c, axis=2)
    with pytest.raises(ValueError):
        fft.fftn(c, s=(2, 2))  # s needs axes
    with pytest.raises(ValueError):
        fft.fftn(c, s=(2,), axes=(0, 1))
    with pytest.raises(ValueError):
        fft.fftn(c, axes=(0, 0))
    with pytest.raises(ValueError):
        fft.fft(xp.asarray(np.complex128(1)))
    with pytest.raises(ValueError):
        fft.fftfreq(0)
    with pytest.raises(TypeError):
        fft.fftfreq(4, dtype=xp.complex128)


@needs_sycl
def test_device_and_zero_copy():
    x = xp.asarray(crand((8,)))
    # oneMKL comes through dpnp; the legacy dpctl.tensor stack has only the host fallback
    assert _onemkl.on_device() == (HAVE_DPNP)
    res = fft.fft(x)
    assert res.device == x.device and res.usm_type == x.usm_type
    assert x._arr.__array_namespace__().__name__ == xp.provider


@needs_sycl
def test_host_fallback(monkeypatch):
    monkeypatch.setattr(_onemkl, "_load_dpnp", lambda: None)
    _onemkl.use(None)
    try:
        a = crand((3, 8))
        with pytest.warns(_onemkl.HostFallbackWarning):
            res = fft.fft(xp.asarray(a), n=6, norm="ortho")
        close(res, np.fft.fft(a, n=6, norm="ortho"))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            f32 = rrand((4, 6), np.float32)
            out = fft.rfftn(xp.asarray(f32))
            assert out.dtype == xp.complex64
            close(out, np.fft.rfftn(f32), np.float32)
    finally:
        monkeypatch.undo()
        _onemkl.use(None)
