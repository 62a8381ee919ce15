"""array-api-extra's functions on usmarray arrays.

array-api-extra builds NumPy-like helpers out of standard calls only, so each one
must run on usmarray unchanged.  Every case runs once on NumPy (through
array-api-compat's NumPy namespace, the reference) and once on usmarray arrays on
the default SYCL device; values, dtype, shape and device must agree.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import usmarray as xp

xpx = pytest.importorskip("array_api_extra")
cnp = pytest.importorskip("array_api_compat.numpy")

SYCL = xp.__array_namespace_info__().default_device()
pytestmark = pytest.mark.skipif(SYCL.backend != "sycl", reason="no SYCL device in this environment")

RNG = np.random.default_rng(3)
M34 = RNG.standard_normal((3, 4))
M34_NAN = M34.copy()
M34_NAN[0, 1] = np.nan
M34_NAN[2, 3] = np.nan
V5 = RNG.standard_normal(5)
IV = np.asarray([3, 1, 2, 3, 1, 5, 5])
IW = np.asarray([1, 5, 7])
C4 = RNG.standard_normal(4) + 1j * RNG.standard_normal(4)

# name -> (function of (namespace, *arrays), host inputs)
CASES = {
    "angle": (lambda ns, a: xpx.angle(a), (C4,)),
    "angle-deg": (lambda ns, a: xpx.angle(a, deg=True), (C4,)),
    "apply_where": (lambda ns, a: xpx.apply_where(a > 0, a, ns.sqrt, fill_value=-1.0), (M34,)),
    "apply_where-2": (lambda ns, a, b: xpx.apply_where(a > b, (a, b), lambda x, y: x - y,
                                                       lambda x, y: y * 2.0), (M34, M34.T.copy().T)),
    "argpartition": (lambda ns, a: ns.sort(a[xpx.argpartition(a, 2)[:2]]), (V5,)),
    "partition": (lambda ns, a: ns.sort(xpx.partition(a, 2)[:3]), (V5,)),
    "at-set": (lambda ns, a: xpx.at(a, (0, 1)).set(9.0, copy=True), (M34,)),
    "at-add-slice": (lambda ns, a: xpx.at(a)[1:, 0].add(2.0, copy=True), (M34,)),
    "at-multiply-mask": (lambda ns, a: xpx.at(a)[a > 0].multiply(3.0, copy=True), (M34,)),
    "at-min": (lambda ns, a: xpx.at(a)[:, 1].min(0.0, copy=True), (M34,)),
    "at-int-array": (lambda ns, a: xpx.at(a)[ns.asarray([0, 2])].set(0.0, copy=True), (V5,)),
    "atleast_nd": (lambda ns, a: xpx.atleast_nd(a, ndim=4), (V5,)),
    "atleast_nd-noop": (lambda ns, a: xpx.atleast_nd(a, ndim=1), (M34,)),
    "cov": (lambda ns, a: xpx.cov(a), (M34,)),
    "cov-1d": (lambda ns, a: xpx.cov(a), (V5,)),
    "cov-weighted": (lambda ns, a, w: xpx.cov(a, axis=0, correction=0, aweights=w),
                     (M34.T.copy(), np.asarray([1.0, 2.0, 0.5, 1.5]))),
    "create_diagonal": (lambda ns, a: xpx.create_diagonal(a, offset=1), (V5,)),
    "create_diagonal-batched": (lambda ns, a: xpx.create_diagonal(a, offset=-1), (M34,)),
    "deg2rad": (lambda ns, a: xpx.deg2rad(a), (M34,)),
    "rad2deg": (lambda ns, a: xpx.rad2deg(a), (M34,)),
    "expand_dims": (lambda ns, a: xpx.expand_dims(a, axis=(0, -1)), (M34,)),
    "isclose": (lambda ns, a: xpx.isclose(a, a + 1e-9), (M34,)),
    "isclose-nan": (lambda ns, a: xpx.isclose(a, a, equal_nan=True), (M34_NAN,)),
    "isin": (lambda ns, a, b: xpx.isin(a, b), (IV, IW)),
    "isin-invert": (lambda ns, a, b: xpx.isin(a, b, invert=True), (IV, IW)),
    "kron": (lambda ns, a, b: xpx.kron(a, b), (M34, M34[:2, :2].copy())),
    "nan_to_num": (lambda ns, a: xpx.nan_to_num(a, fill_value=-1.0), (M34_NAN,)),
    "nanmax": (lambda ns, a: xpx.nanmax(a, axis=0), (M34_NAN,)),
    "nanmin": (lambda ns, a: xpx.nanmin(a), (M34_NAN,)),
    "nanmean": (lambda ns, a: xpx.nanmean(a, axis=1), (M34_NAN,)),
    "nansum": (lambda ns, a: xpx.nansum(a, axis=(0, 1)), (M34_NAN,)),
    "nunique": (lambda ns, a: xpx.nunique(a), (IV,)),
    "one_hot": (lambda ns, a: xpx.one_hot(a, 6), (IV,)),
    "pad": (lambda ns, a: xpx.pad(a, 2, constant_values=7.0), (M34,)),
    "pad-per-axis": (lambda ns, a: xpx.pad(a, ((1, 0), (0, 2))), (M34,)),
    "searchsorted": (lambda ns, a, b: xpx.searchsorted(ns.sort(a), b, side="right"),
                     (V5, np.asarray([0.0, 0.5, -3.0]))),
    "setdiff1d": (lambda ns, a, b: xpx.setdiff1d(a, b), (IV, IW)),
    "setdiff1d-unique": (lambda ns, a, b: xpx.setdiff1d(ns.unique_values(a), b,
                                                        assume_unique=True), (IV, IW)),
    "union1d": (lambda ns, a, b: xpx.union1d(a, b), (IV, IW)),
    "sinc": (lambda ns, a: xpx.sinc(a), (np.concatenate([V5, [0.0]]),)),
    "unravel_index": (lambda ns, a: ns.stack(xpx.unravel_index(a, (3, 4))),
                      (np.asarray([0, 5, 11]),)),
    "lazy_apply": (lambda ns, a: xpx.lazy_apply(lambda z: np.cumsum(np.asarray(z)), a,
                                                shape=a.shape, dtype=a.dtype), (V5,)),
}
# functions that take a namespace instead of arrays
NS_CASES = {
    "diag_indices": lambda ns: ns.stack(xpx.diag_indices(3, xp=ns)),
    "tril_indices": lambda ns: ns.stack(xpx.tril_indices(4, xp=ns)),
    "triu_indices": lambda ns: ns.stack(xpx.triu_indices(4, offset=1, xp=ns)),
    "tril_indices-k": lambda ns: ns.stack(xpx.tril_indices(3, offset=-1, m=5, xp=ns)),
}
# these are sorted by array-api-extra itself; nunique/setdiff1d/union1d orders are defined


def _compare(ref, got):
    assert type(got) is xp.usm_ndarray, type(got).__name__
    assert got.device == SYCL
    assert got.shape == ref.shape
    h = xp.asnumpy(got)
    assert h.dtype == ref.dtype, (got.dtype, ref.dtype)
    if ref.dtype.kind in "iub":
        np.testing.assert_array_equal(h, ref)
    else:
        np.testing.assert_allclose(h, ref, rtol=1e-12, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_numpy(name):
    fn, inputs = CASES[name]
    with warnings.catch_warnings():
        # expand_dims is deprecated in favour of the standard's tuple axis (2025.12)
        warnings.simplefilter("ignore", DeprecationWarning)
        ref = np.asarray(fn(cnp, *(np.array(a, copy=True) for a in inputs)))
        args = [xp.asarray(a) for a in inputs]
        got = fn(xp, *args)
    _compare(ref, got)
    # inputs are left alone (at() is asked for copy=True)
    for a, host in zip(args, inputs, strict=True):
        np.testing.assert_array_equal(xp.asnumpy(a), host)


@pytest.mark.parametrize("name", sorted(NS_CASES))
def test_namespace_functions(name):
    _compare(np.asarray(NS_CASES[name](cnp)), NS_CASES[name](xp))


def test_index_helpers_take_device():
    h = xp.Device.create_device("numpy")
    rows, cols = xpx.triu_indices(4, xp=xp, device=h)
    assert rows.device == cols.device == h
    np.testing.assert_array_equal(xp.asnumpy(rows), np.triu_indices(4)[0])


def test_at_in_place_with_copy_false():
    """usmarray arrays are writeable, so at(..., copy=False) updates them in place."""
    a = xp.asarray(M34)
    out = xpx.at(a, (1, 2)).set(42.0, copy=False)
    assert out is a
    assert float(a[1, 2]) == 42.0


def test_default_dtype_and_broadcast_shapes():
    assert xpx.default_dtype(xp) == xp.float64
    assert xpx.default_dtype(xp, "integral") == xp.int64
    assert xpx.default_dtype(xp, "complex floating") == xp.complex128
    assert xpx.default_dtype(xp, "indexing") == xp.int64
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert xpx.broadcast_shapes((3, 1), (1, 4)) == (3, 4)


def test_numpy_backend_device():
    """The same helpers on usmarray's NumPy host device stay there."""
    h = xp.Device.create_device("numpy")
    a = xp.asarray(M34, device=h)
    for got, ref in [
        (xpx.cov(a), np.cov(M34)),
        (xpx.kron(a, a), np.kron(M34, M34)),
        (xpx.pad(a, 1), np.pad(M34, 1)),
        (xpx.sinc(a), np.sinc(M34)),
    ]:
        assert got.device == h
        np.testing.assert_allclose(xp.asnumpy(got), ref, rtol=1e-12, atol=1e-12)


def test_mixed_devices_are_refused():
    a = xp.asarray(IV)
    b = xp.asarray(IW, device="numpy")
    with pytest.raises(ValueError, match="different devices"):
        xpx.setdiff1d(a, b)
