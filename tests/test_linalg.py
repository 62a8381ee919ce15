"""Value tests of ``usmarray.linalg`` and the main-namespace linear algebra against NumPy.

Inputs are random, well conditioned (condition number below ~100) float64/complex128
matrices, single and stacked.  Error bounds, relative to the norm of the reference
result (or of ``x`` for residuals):

* exact (integer) or 1e-13: matmul, tensordot, vecdot, outer, cross, trace, diagonal,
  matrix_transpose, vector_norm, matrix_norm ('fro', 1, inf)
* 1e-12: cholesky, det, slogdet, eigh/eigvalsh, svd/svdvals, qr (reconstruction,
  orthogonality), matrix_norm (2, 'nuc'), eig/eigvals (residual and eigenvalues)
* 1e-10: inv, solve, pinv, matrix_power (products of up to ~7 factors)
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from test_reliability_common import device_params

import usmarray as xp
from usmarray import _backend as _be_layer  # noqa: E402
from usmarray import linalg as la

if _be_layer.sycl is not None:  # the SYCL room imports dpctl: only where it is present
    from usmarray._backend._sycl import onemkl as _onemkl

#: oneMKL comes through dpnp (the dpnp.tensor provider); the legacy dpctl.tensor stack has none
HAVE_DPNP = _be_layer.sycl is not None and _be_layer.sycl.provider_name == "dpnp.tensor"
needs_sycl = pytest.mark.skipif(
    _be_layer.sycl is None or xp.__array_namespace_info__().default_device().backend != "sycl",
    reason="oneMKL and its host fallback serve arrays on the SYCL default device",
)

# NumPy's own reference computations overflow or divide by zero in a few cases
pytestmark = [
    pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning"),
    pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning"),
]

RNG = np.random.default_rng(20251212)


def rand(shape, dtype=np.float64):
    a = RNG.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * RNG.standard_normal(shape)
    return a.astype(dtype)


def well_conditioned(shape, dtype=np.float64):
    """Square matrices with singular values in [1, 10]."""
    u = np.linalg.qr(rand(shape, dtype))[0]
    v = np.linalg.qr(rand(shape, dtype))[0]
    s = RNG.uniform(1, 10, shape[:-1])
    return (u * s[..., None, :]) @ np.conj(np.swapaxes(v, -1, -2))


def hpd(shape, dtype=np.float64):
    a = rand(shape, dtype)
    return a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])


def H(a):
    return np.conj(np.swapaxes(a, -1, -2))


def close(u, ref, tol):
    got = xp.asnumpy(u) if isinstance(u, xp.usm_ndarray) else u
    ref = np.asarray(ref)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    scale = max(np.linalg.norm(ref), 1e-300)
    err = np.linalg.norm(got - ref) / scale
    assert err <= tol, f"relative error {err:.3e} > {tol:.0e}"


SHAPES = [(4, 4), (2, 3, 5, 5)]
FLOATS = [np.float64, np.complex128]


# ---- main namespace ------------------------------------------------------------------------
@pytest.mark.parametrize(("s1", "s2"), [((3, 4), (4, 5)), ((4,), (4, 2)), ((2, 3, 4), (4,)),
                                        ((4,), (4,)), ((2, 1, 3, 4), (5, 4, 2))])
def test_matmul_shapes_and_values(s1, s2):
    a, b = rand(s1), rand(s2)
    close(xp.matmul(xp.asarray(a), xp.asarray(b)), a @ b, 1e-13)
    close(xp.asarray(a) @ xp.asarray(b), a @ b, 1e-13)


def test_matmul_integer_promotion_exact():
    a = RNG.integers(-50, 50, (3, 4)).astype(np.int8)
    b = RNG.integers(0, 50, (4, 2)).astype(np.uint8)
    r = xp.matmul(xp.asarray(a), xp.asarray(b))
    assert r.dtype == xp.int16
    np.testing.assert_array_equal(xp.asnumpy(r), a.astype(np.int16) @ b.astype(np.int16))


def test_matmul_errors():
    a = xp.asarray(rand((3, 4)))
    with pytest.raises(ValueError):
        xp.matmul(a, xp.asarray(rand((3, 4))))
    with pytest.raises(ValueError):
        xp.matmul(xp.asarray(rand((2, 3, 4))), xp.asarray(rand((3, 4, 2))))
    with pytest.raises(ValueError):
        xp.matmul(xp.asarray(1.0), a)
    with pytest.raises(TypeError):
        xp.matmul(a, xp.asarray(np.ones((4, 2), np.int64)))  # mixed kinds
    with pytest.raises(TypeError):
        xp.matmul(xp.asarray(np.ones((2, 2), bool)), xp.asarray(np.ones((2, 2), bool)))
    with pytest.raises(TypeError):
        a @ 2.0  # noqa: B018


def test_imatmul_keeps_shape_and_dtype():
    a0, b = rand((3, 3)), rand((3, 3))
    ref = a0 @ b  # first: on the NumPy backend asarray(a0) may share a0's memory
    a = xp.asarray(a0)
    ident = id(a)
    a @= xp.asarray(b)
    assert id(a) == ident and a.dtype == xp.float64
    close(a, ref, 1e-13)
    with pytest.raises(ValueError):
        a @= xp.asarray(rand((3, 2)))
    with pytest.raises(TypeError):
        a32 = xp.asarray(rand((3, 3)).astype(np.float32))
        a32 @= xp.asarray(b)


def test_tensordot_vecdot_transpose():
    a, b = rand((2, 3, 4)), rand((4, 3, 5))
    close(xp.tensordot(xp.asarray(a), xp.asarray(b), axes=([1, 2], [1, 0])),
          np.tensordot(a, b, axes=([1, 2], [1, 0])), 1e-13)
    c = rand((4, 6))
    close(xp.tensordot(xp.asarray(a), xp.asarray(c), axes=1), np.tensordot(a, c, axes=1), 1e-13)
    with pytest.raises(ValueError):  # contracted axes must match exactly
        xp.tensordot(xp.asarray(rand((2, 1))), xp.asarray(rand((3, 2))), axes=1)
    with pytest.raises(ValueError):
        xp.tensordot(xp.asarray(a), xp.asarray(b), axes=-1)
    c1, c2 = rand((2, 5), np.complex128), rand((3, 1, 5), np.complex128)
    close(xp.vecdot(xp.asarray(c1), xp.asarray(c2)), np.sum(np.conj(c1) * c2, axis=-1), 1e-13)
    with pytest.raises(ValueError):
        xp.vecdot(xp.asarray(c1), xp.asarray(c2), axis=1)
    with pytest.raises(ValueError):
        xp.vecdot(xp.asarray(rand((2, 4))), xp.asarray(rand((2, 5))))
    m = rand((2, 3, 4))
    close(xp.matrix_transpose(xp.asarray(m)), np.swapaxes(m, -1, -2), 0)
    assert la.matmul is xp.matmul and la.tensordot is xp.tensordot
    assert la.vecdot is xp.vecdot and la.matrix_transpose is xp.matrix_transpose


# ---- decompositions -------------------------------------------------------------------------
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_cholesky(shape, dtype):
    a = hpd(shape, dtype)
    ref = np.linalg.cholesky(a)
    close(la.cholesky(xp.asarray(a)), ref, 1e-12)
    close(la.cholesky(xp.asarray(a), upper=True), H(ref), 1e-12)


def test_cholesky_not_positive_definite():
    with pytest.raises(la.LinAlgError):
        la.cholesky(xp.asarray(np.array([[1.0, 2.0], [2.0, 1.0]])))
    assert issubclass(la.LinAlgError, ValueError)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_det_slogdet_inv_solve(shape, dtype):
    a = well_conditioned(shape, dtype)
    x = xp.asarray(a)
    close(la.det(x), np.linalg.det(a), 1e-12)
    sign, logabs = la.slogdet(x)
    rs, rl = np.linalg.slogdet(a)
    assert sign.dtype == x.dtype and logabs.dtype == xp.float64
    close(sign, rs, 1e-12)
    close(logabs, rl, 1e-12)
    close(la.inv(x), np.linalg.inv(a), 1e-10)
    b = rand(shape[:-1] + (3,), dtype)
    close(la.solve(x, xp.asarray(b)), np.linalg.solve(a, b), 1e-10)
    v = rand(shape[-1:], dtype)
    close(la.solve(x, xp.asarray(v)), np.linalg.solve(a, v[..., None])[..., 0], 1e-10)


def test_solve_broadcasts_stacks():
    a = well_conditioned((3, 1, 4, 4))
    b = rand((2, 4, 2))
    close(la.solve(xp.asarray(a), xp.asarray(b)), np.linalg.solve(a, b), 1e-10)


def test_singular_matrices():
    s = np.array([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(la.LinAlgError):
        la.inv(xp.asarray(s))
    with pytest.raises(la.LinAlgError):
        la.solve(xp.asarray(s), xp.asarray(np.ones(2)))
    sign, logabs = la.slogdet(xp.asarray(s))
    assert float(sign) == 0.0 and float(logabs) == -math.inf
    assert float(la.det(xp.asarray(s))) == 0.0
    assert int(la.matrix_rank(xp.asarray(s))) == 1
    assert float(la.det(xp.asarray(np.zeros((0, 0))))) == 1.0


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_eigh(shape, dtype):
    a = hpd(shape, dtype) - 3 * shape[-1] * np.eye(shape[-1])
    w, v = la.eigh(xp.asarray(a))
    assert w.dtype == xp.float64 and v.dtype == xp.asarray(a).dtype
    wn, vn = xp.asnumpy(w), xp.asnumpy(v)
    assert np.all(np.diff(wn, axis=-1) >= 0)  # ascending
    close(wn, np.linalg.eigvalsh(a), 1e-12)
    close(a @ vn, vn * wn[..., None, :], 1e-12)
    close(H(vn) @ vn, np.broadcast_to(np.eye(shape[-1]), vn.shape), 1e-12)
    close(la.eigvalsh(xp.asarray(a)), np.linalg.eigvalsh(a), 1e-12)


@pytest.mark.parametrize("shape", [(5, 5), (2, 3, 4, 4)])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.float32])
def test_eig(shape, dtype):
    a = rand(shape, dtype)
    w, v = la.eig(xp.asarray(a))
    cd = xp.complex64 if dtype == np.float32 else xp.complex128
    assert w.dtype == cd and v.dtype == cd and w.shape == shape[:-1] and v.shape == shape
    wn, vn = xp.asnumpy(w), xp.asnumpy(v)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    # residual |A v - v w| and unit columns
    close(a @ vn, vn * wn[..., None, :], tol)
    np.testing.assert_allclose(np.linalg.norm(vn, axis=-2), 1.0, rtol=tol)
    # the same eigenvalues as NumPy (matched one to one)
    ref = np.linalg.eigvals(a.astype(np.complex128))
    for got, exp in zip(wn.reshape(-1, shape[-1]), ref.reshape(-1, shape[-1]), strict=True):
        for e in exp:
            assert np.min(np.abs(got - e)) <= 10 * tol * np.abs(exp).max()
    close(la.eigvals(xp.asarray(a)), wn, tol)


def test_eig_special_matrices():
    # real matrix with complex pair, identity (multiple eigenvalue), defective Jordan block
    rot = np.array([[0.0, -1.0], [1.0, 0.0]])
    w = np.sort_complex(xp.asnumpy(la.eigvals(xp.asarray(rot))))
    np.testing.assert_allclose(w, [-1j, 1j], atol=1e-14)
    w, v = la.eig(xp.asarray(np.eye(3)))
    np.testing.assert_allclose(xp.asnumpy(w), np.ones(3), atol=1e-15)
    w, v = la.eig(xp.asarray(np.array([[2.0, 1.0], [0.0, 2.0]])))
    np.testing.assert_allclose(xp.asnumpy(w), [2, 2], atol=1e-7)
    sym = hpd((6, 6))
    w = xp.asnumpy(la.eigvals(xp.asarray(sym)))
    assert np.all(w.imag == 0)  # real eigenvalues of a real matrix come out real
    with pytest.raises(la.LinAlgError):
        la.eig(xp.asarray(np.array([[1.0, np.nan], [0.0, 1.0]])))


@pytest.mark.parametrize("dev", device_params("numpy", "opencl:cpu", "cuda:0"))
def test_eig_of_a_matrix_with_nan_names_the_function_once(dev):
    a = xp.asarray(np.array([[1.0, np.nan], [0.0, 1.0]]), device=dev)
    for fn in (la.eig, la.eigvals):
        with pytest.raises(la.LinAlgError) as info:
            fn(a)
        assert str(info.value) == f"{fn.__name__}: the matrix contains infinities or NaNs"


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (2, 3, 5, 3)])
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("full", [True, False])
def test_svd(shape, dtype, full):
    a = rand(shape, dtype)
    u, s, vh = la.svd(xp.asarray(a), full_matrices=full)
    un, sn, vhn = (xp.asnumpy(t) for t in (u, s, vh))
    ru, rs, rvh = np.linalg.svd(a, full_matrices=full)
    assert un.shape == ru.shape and vhn.shape == rvh.shape and s.dtype == xp.float64
    close(sn, rs, 1e-12)
    k = min(shape[-2:])
    close((un[..., :, :k] * sn[..., None, :]) @ vhn[..., :k, :], a, 1e-12)
    close(H(un) @ un, np.broadcast_to(np.eye(un.shape[-1]), H(un).shape[:-1] + (un.shape[-1],)),
          1e-12)
    close(la.svdvals(xp.asarray(a)), rs, 1e-12)


def test_svd_extreme_scale():
    big = np.array([[1e308, -1e308], [1e308, 1e307]])
    s = xp.asnumpy(la.svdvals(xp.asarray(big)))
    assert not np.isnan(s).any() and s[0] >= s[1]
    tiny = big * 1e-620
    np.testing.assert_allclose(xp.asnumpy(la.svdvals(xp.asarray(tiny))),
                               np.linalg.svd(tiny, compute_uv=False), rtol=1e-12)


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (2, 5, 3)])
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr(shape, dtype, mode):
    a = rand(shape, dtype)
    q, r = la.qr(xp.asarray(a), mode=mode)
    rq, rr = np.linalg.qr(a, mode=mode)
    qn, rn = xp.asnumpy(q), xp.asnumpy(r)
    assert qn.shape == rq.shape and rn.shape == rr.shape
    close(qn @ rn, a, 1e-12)
    np.testing.assert_array_equal(rn, np.triu(rn))
    close(H(qn) @ qn, np.broadcast_to(np.eye(qn.shape[-1]), rn.shape[:-2] + (qn.shape[-1],) * 2),
          1e-12)
    k = min(shape[-2:])
    close(np.abs(np.diagonal(rn, axis2=-1, axis1=-2))[..., :k],
          np.abs(np.diagonal(rr, axis2=-1, axis1=-2))[..., :k], 1e-12)
    with pytest.raises(ValueError):
        la.qr(xp.asarray(a), mode="r")


@pytest.mark.parametrize("dtype", FLOATS)
def test_pinv_matrix_rank(dtype):
    a = rand((2, 6, 4), dtype)
    a[1, :, 3] = a[1, :, 0] + a[1, :, 1]  # rank 3
    close(la.pinv(xp.asarray(a)), np.linalg.pinv(a), 1e-10)
    np.testing.assert_array_equal(xp.asnumpy(la.matrix_rank(xp.asarray(a))), [4, 3])
    assert la.matrix_rank(xp.asarray(a)).dtype == xp.int64
    rt = xp.asarray(np.array([1e-12, 0.5]))
    np.testing.assert_array_equal(
        xp.asnumpy(la.matrix_rank(xp.asarray(a), rtol=rt)),
        np.linalg.matrix_rank(a, rtol=np.array([1e-12, 0.5])))
    close(la.pinv(xp.asarray(a), rtol=0.5), np.linalg.pinv(a, rtol=0.5), 1e-10)
    with pytest.raises(TypeError):
        la.matrix_rank(xp.asarray(a), rtol=xp.asarray(np.array([1, 2])))


@pytest.mark.parametrize("n", [0, 1, 3, 6, -2])
def test_matrix_power(n):
    a = well_conditioned((2, 4, 4)) / 3
    close(la.matrix_power(xp.asarray(a), n), np.linalg.matrix_power(a, n), 1e-10)
    with pytest.raises(TypeError):
        la.matrix_power(xp.asarray(a), 2.0)


# ---- norms, traces, products --------------------------------------------------------------
@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf])
@pytest.mark.parametrize("keepdims", [False, True])
def test_matrix_norm(ord, keepdims):
    a = rand((2, 3, 5, 4), np.complex128)
    ref = np.linalg.matrix_norm(a, ord=ord, keepdims=keepdims)
    r = la.matrix_norm(xp.asarray(a), ord=ord, keepdims=keepdims)
    assert r.dtype == xp.float64
    close(r, ref, 1e-12)
    with pytest.raises(ValueError):
        la.matrix_norm(xp.asarray(a), ord=3)


@pytest.mark.parametrize("ord", [2, 1, 0, -1, -2, 3, 0.5, math.inf, -math.inf])
@pytest.mark.parametrize("axis", [None, 1, (0, 2), ()])
def test_vector_norm(ord, axis):
    a = rand((3, 4, 5))
    a[0, 0, 0] = 0.0
    if axis == ():
        ref = np.abs(a) if ord != 0 else (a != 0).astype(float)
    else:
        ref = np.linalg.vector_norm(a, ord=ord, axis=axis)
    with np.errstate(divide="ignore"):
        close(la.vector_norm(xp.asarray(a), ord=ord, axis=axis), ref, 1e-13)
    big = np.full(4, 1e200)
    close(la.vector_norm(xp.asarray(big)), 2e200, 1e-15)
    close(la.vector_norm(xp.asarray(big), ord=3), 4 ** (1 / 3) * 1e200, 1e-14)


def test_trace_diagonal_outer_cross():
    a = RNG.integers(-100, 100, (2, 4, 5)).astype(np.int16)
    for off in (-5, -2, 0, 1, 4, 7):
        np.testing.assert_array_equal(xp.asnumpy(la.diagonal(xp.asarray(a), offset=off)),
                                      np.diagonal(a, off, -2, -1))
        t = la.trace(xp.asarray(a), offset=off)
        assert t.dtype == xp.int64
        np.testing.assert_array_equal(xp.asnumpy(t), np.trace(a, off, -2, -1))
    u8 = np.ones((3, 3), np.uint8)
    assert la.trace(xp.asarray(u8)).dtype == xp.uint64
    assert la.trace(xp.asarray(u8), dtype=xp.uint8).dtype == xp.uint8
    with pytest.raises(TypeError):
        la.trace(xp.asarray(rand((3, 3))), dtype=xp.int64)
    x1, x2 = rand((5,)), RNG.integers(0, 9, (3,)).astype(np.int32)
    with pytest.raises(TypeError):  # float with int: no promotion in the standard
        la.outer(xp.asarray(x1), xp.asarray(x2))
    y = rand((3,))
    close(la.outer(xp.asarray(x1), xp.asarray(y)), np.outer(x1, y), 1e-15)
    c1, c2 = rand((4, 3)), rand((2, 1, 3))
    close(la.cross(xp.asarray(c1), xp.asarray(c2)), np.cross(c1, c2), 1e-13)
    d1, d2 = rand((3, 4)), rand((3, 4))
    close(la.cross(xp.asarray(d1), xp.asarray(d2), axis=-2), np.cross(d1, d2, axis=-2), 1e-13)
    with pytest.raises(ValueError):
        la.cross(xp.asarray(rand((4,))), xp.asarray(rand((4,))))
    with pytest.raises(ValueError):
        la.cross(xp.asarray(c1), xp.asarray(c2), axis=1)


# ---- strictness, devices, kernels ------------------------------------------------------------
def test_strict_dtypes_and_shapes():
    ints = xp.asarray(np.eye(3, dtype=np.int64))
    for f in (la.cholesky, la.det, la.inv, la.eigh, la.eigvalsh, la.eig, la.eigvals, la.svd,
              la.svdvals, la.qr, la.slogdet, la.pinv, la.matrix_rank, la.matrix_norm,
              la.vector_norm):
        with pytest.raises(TypeError):
            f(ints)
    with pytest.raises(ValueError):
        la.det(xp.asarray(rand((3, 4))))
    with pytest.raises(ValueError):
        la.svd(xp.asarray(rand((3,))))
    with pytest.raises(TypeError):
        la.cholesky(xp.asarray(hpd((2, 2))), upper=1)


def test_compute_follows_data():
    dpctl = pytest.importorskip("dpctl", reason="a second SYCL queue")
    q2 = dpctl.SyclQueue("cpu", property="in_order")
    a = xp.asarray(well_conditioned((3, 3)))
    b = xp.asarray(rand((3,)), device=q2)
    with pytest.raises(ValueError):
        la.solve(a, b)
    with pytest.raises(ValueError):
        xp.matmul(a, b)
    r = la.inv(xp.asarray(well_conditioned((3, 3)), device=q2))
    assert r.sycl_queue == q2


@needs_sycl
@pytest.mark.skipif(not HAVE_DPNP,
                    reason="oneMKL comes through dpnp; the legacy dpctl.tensor stack has none")
def test_zero_copy_device_kernels():
    k = _onemkl.kernels()
    assert k.on_device, "dpnp is installed: the kernels must run on the SYCL device"
    x = xp.asarray(rand((4, 4)))
    wrapped = k.wrap(x._arr)
    assert wrapped.get_array()._pointer == x._arr._pointer
    assert x._arr.__array_namespace__().__name__ == xp.provider  # caller's array untouched
    res = k.linalg.inv(wrapped)
    raw = k.unwrap(res, x._arr)
    assert raw._pointer == res.get_array()._pointer
    assert type(raw) is type(x._arr) and raw.sycl_queue == x._arr.sycl_queue


@needs_sycl
def test_host_fallback(monkeypatch):
    monkeypatch.setattr(_onemkl, "_load_dpnp", lambda: None)
    _onemkl.use(None)
    try:
        a = well_conditioned((2, 3, 3))
        x = xp.asarray(a)
        with pytest.warns(_onemkl.HostFallbackWarning):
            r = la.inv(x)
        assert not _onemkl.on_device()
        close(r, np.linalg.inv(a), 1e-10)
        assert r.device == x.device and r.usm_type == x.usm_type
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # warned once only
            close(la.svdvals(x), np.linalg.svd(a, compute_uv=False), 1e-12)
            w = xp.asnumpy(la.eigvals(x))
            close(np.sort_complex(w.ravel()), np.sort_complex(np.linalg.eigvals(a).ravel()),
                  1e-12)
            with pytest.raises(la.LinAlgError):
                la.inv(xp.asarray(np.zeros((2, 2))))
    finally:
        monkeypatch.undo()
        _onemkl.use(None)
    assert _onemkl.on_device() == (HAVE_DPNP)


@pytest.mark.parametrize("device", ["cpu", "numpy"] if _be_layer.sycl is not None else ["numpy"])
def test_read_only_operands_of_every_layout_are_factorized(device):
    """A transposed broadcast view is read-only and F-contiguous: dpnp 0.20's eigvalsh
    used it as LAPACK's work array ("output array is read-only", found by
    test_reliability_layouts); the operand itself stays unchanged."""
    a = xp.asarray(np.array([[2.0, 1.0], [1.0, 3.0]]), device=device)
    x = xp.permute_dims(xp.broadcast_to(a, (2, 2)), (1, 0))
    assert not x.flags.writable and x.flags.f_contiguous
    want = np.linalg.eigvalsh(np.array([[2.0, 1.0], [1.0, 3.0]]))
    np.testing.assert_allclose(xp.asnumpy(la.eigvalsh(x)), want, rtol=1e-12)
    np.testing.assert_allclose(xp.asnumpy(la.eigh(x).eigenvalues), want, rtol=1e-12)
    np.testing.assert_array_equal(xp.asnumpy(x), [[2.0, 1.0], [1.0, 3.0]])


_DEVICES = (["cpu"] if _be_layer.sycl is not None else []) + ["numpy"] + (
    ["cuda:0"] if _be_layer.cuda is not None else [])


@pytest.mark.parametrize("device", _DEVICES)
def test_solve_and_svd_leave_their_operands_and_views_unchanged(device):
    """Backends whose routines keep their operands (``lapack_keeps_operands``) get the
    caller's arrays without a copy; every backend leaves them, views included, as they
    were."""
    rng = np.random.default_rng(4)
    a = rng.standard_normal((6, 6)) + 6 * np.eye(6)
    b = rng.standard_normal((6, 3))
    x1, x2 = xp.asarray(a, device=device), xp.asarray(b, device=device)
    for m, r in [(x1, x2), (xp.permute_dims(x1, (1, 0)), x2[:, ::-1]), (x1[::-1], x2[::2][:3])]:
        if r.shape[0] != m.shape[0]:
            r = x2
        before = (xp.asnumpy(m).copy(), xp.asnumpy(r).copy())
        got = xp.asnumpy(la.solve(m, r))
        np.testing.assert_allclose(got, np.linalg.solve(before[0], before[1]), rtol=1e-9)
        u, s, vh = la.svd(m, full_matrices=False)
        np.testing.assert_allclose(xp.asnumpy(s), np.linalg.svd(before[0], compute_uv=False),
                                   rtol=1e-9)
        np.testing.assert_array_equal(xp.asnumpy(m), before[0])
        np.testing.assert_array_equal(xp.asnumpy(r), before[1])
    np.testing.assert_array_equal(xp.asnumpy(x1), a)
