"""Eigenvalues and eigenvectors of real matrices come in exact conjugate pairs on every
backend, as LAPACK's real eigensolver (NumPy's) gives them: SciPy's ``tf2zpk`` and
``poly`` rely on it (``TestIIRComb::test_iir_symmetry`` compares the sorted poles with
their conjugates bit for bit)."""

from __future__ import annotations

import numpy as np
import pytest
from test_reliability_common import device_params

import usmarray as xp

DEVICES = device_params("numpy", "cpu", "cuda:0")


def _comb_companion() -> np.ndarray:
    """The companion matrix of the denominator of a notch comb filter of order 60 (the
    polynomial of SciPy's ``iircomb(400, 30, fs=24000)``: 1 - 0.9 z^-60 in shape)."""
    a = np.zeros(61)
    a[0], a[60] = 1.0, -0.8983
    c = np.diag(np.ones(59), -1)
    c[0] = -a[1:] / a[0]
    return c[None]


def _matrices(n: int) -> np.ndarray:
    return _comb_companion() if n == 60 else np.random.default_rng(n).standard_normal((4, n, n))


def _assert_pairs(w: np.ndarray) -> None:
    for wi in w.reshape(-1, w.shape[-1]):
        np.testing.assert_array_equal(np.sort_complex(wi), np.sort_complex(np.conj(wi)))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("n", [2, 3, 6, 9, 60])
def test_eigenvalues_of_real_matrices_are_exact_conjugate_pairs(device, n):
    a = _matrices(n)
    w = xp.asnumpy(xp.linalg.eigvals(xp.asarray(a, device=device)))
    _assert_pairs(w)
    want = np.linalg.eigvals(a)
    scale = np.abs(want).max()
    for wi, ri in zip(w, want, strict=True):
        np.testing.assert_allclose(np.sort_complex(wi), np.sort_complex(ri),
                                   rtol=0, atol=1e-12 * scale * a.shape[-1])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("n", [3, 6, 9])
def test_eigenvectors_of_a_conjugate_pair_are_conjugates(device, n):
    a = _matrices(n)
    w, v = (xp.asnumpy(t) for t in xp.linalg.eig(xp.asarray(a, device=device)))
    _assert_pairs(w)
    for wi, vi, ai in zip(w, v, a, strict=True):
        np.testing.assert_allclose(ai @ vi, vi * wi, rtol=0, atol=1e-12 * n)
        for i in np.flatnonzero(wi.imag > 0):
            j = int(np.flatnonzero(wi == np.conj(wi[i]))[0])
            np.testing.assert_array_equal(vi[:, j], np.conj(vi[:, i]))
