"""The thin SVD through QR first (``_backend._ndlike.svd_through_qr``, which the CUDA
backend runs with CuPy for very tall and very wide matrices), checked with NumPy as the
array module: reconstruction, orthonormal factors, singular values against LAPACK's."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from usmarray._backend._ndlike import QR_FIRST_RATIO, svd_through_qr


@settings(max_examples=40, deadline=None)
@given(k=st.integers(1, 12), ratio=st.integers(QR_FIRST_RATIO, 20), wide=st.booleans(),
       dtype=st.sampled_from(["float32", "float64", "complex64", "complex128"]),
       seed=st.integers(0, 2**16))
def test_thin_svd_of_tall_and_wide_matrices(k, ratio, wide, dtype, seed):
    rng = np.random.default_rng(seed)
    shape = (k, k * ratio) if wide else (k * ratio, k)
    a = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    a = a.astype(dtype)
    u, s, vh = svd_through_qr(np, a, True)
    eps = np.finfo(a.dtype).eps
    tol = 50 * eps * max(shape) * max(1.0, float(np.abs(a).max()))
    assert u.shape == (shape[0], k) and s.shape == (k,) and vh.shape == (k, shape[1])
    assert u.dtype == a.dtype and vh.dtype == a.dtype and s.dtype == np.finfo(a.dtype).dtype
    np.testing.assert_allclose((u * s) @ vh, a, atol=tol)
    np.testing.assert_allclose(u.conj().T @ u, np.eye(k), atol=50 * eps * max(shape))
    np.testing.assert_allclose(vh @ vh.conj().T, np.eye(k), atol=50 * eps * max(shape))
    want = np.linalg.svd(a, compute_uv=False)
    np.testing.assert_allclose(s, want, atol=tol)
    assert np.all(np.diff(s) <= 0)
    np.testing.assert_allclose(svd_through_qr(np, a, False), want, atol=tol)


@pytest.mark.parametrize("shape", [(5, 5), (7, 4), (4, 7)])
def test_shapes_near_square_are_left_to_the_driver(shape):
    assert svd_through_qr(np, np.ones(shape), True) is None
