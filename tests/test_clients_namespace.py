"""The namespace rules the client suites asked for, checked directly.

- NumPy scalars are the Python scalars of their kind in operators (both sides,
  in place), binary functions, ``x[key] = v``, ``full``, ``where``, ``clip`` and
  ``result_type``; NumPy arrays in operators raise TypeError; NumPy never computes an
  operator on a usmarray array.
- Integer true division gives the device's default real floating dtype (NumPy's values).
- Arrays, dtypes and Devices pickle and deep-copy; a fitted scikit-learn estimator
  with usmarray attributes survives pickle and joblib in a fresh process.
"""

from __future__ import annotations

import copy
import os
import pickle
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import usmarray as xp
from usmarray._backend import sycl as _sycl

DEVICES = ["numpy"] + (["sycl"] if _sycl is not None else [])


def _dev(name: str):
    return None if name == "sycl" else name


# ---- NumPy scalars ----------------------------------------------------------------------
NP_SCALARS = [np.float64(2.0), np.float32(2.0), np.float16(2.0), np.int64(2), np.int8(2),
              np.uint16(2), np.bool_(True), np.complex128(2 + 0j), np.complex64(2 + 0j)]


OPS = {"+": lambda a, b: a + b, "*": lambda a, b: a * b, "<": lambda a, b: a < b,
       "==": lambda a, b: a == b, "&": lambda a, b: a & b, "/": lambda a, b: a / b,
       "**": lambda a, b: a**b}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("s", NP_SCALARS, ids=lambda s: type(s).__name__)
def test_numpy_scalar_operators_are_python_scalar_operators(device, s):
    """Every operator, both sides: the result (or the error) of the Python scalar."""
    py = s.item()
    for dtype in (xp.float32, xp.int32, xp.bool, xp.complex64):
        x = xp.asarray([1, 2, 3], dtype=dtype, device=_dev(device))
        for name, op in OPS.items():
            for left in (True, False):
                a, b = (x, s) if left else (s, x)
                ra, rb = (x, py) if left else (py, x)
                try:
                    ref = op(ra, rb)
                except TypeError:
                    with pytest.raises(TypeError):
                        op(a, b)
                    continue
                got = op(a, b)
                assert type(got) is xp.usm_ndarray, (name, left)
                assert got.dtype == ref.dtype and got.device == x.device
                np.testing.assert_array_equal(xp.asnumpy(got), xp.asnumpy(ref))


@pytest.mark.parametrize("device", DEVICES)
def test_numpy_scalar_in_place_and_setitem(device):
    y = xp.asarray([1.0, 2.0, 3.0], dtype=xp.float32, device=_dev(device))
    view = y[1:]
    same = y
    y += np.float64(1)  # stays in place: the view sees it, y is still a usm_ndarray
    assert y is same and type(y) is xp.usm_ndarray and y.dtype == xp.float32
    np.testing.assert_array_equal(xp.asnumpy(view), [3.0, 4.0])
    y[y > 2.5] = np.float64(7.5)  # scikit-learn's x[mask] = np.float64(v)
    y[0] = np.int64(-1)
    np.testing.assert_array_equal(xp.asnumpy(y), [-1.0, 7.5, 7.5])
    i = xp.asarray([1, 2], device=_dev(device))
    with pytest.raises(TypeError):
        i[0] = np.float64(1.5)  # a float into an integer array: as for 1.5
    with pytest.raises(OverflowError):
        xp.asarray([1], dtype=xp.int8, device=_dev(device))[0] = np.int64(1000)


@pytest.mark.parametrize("device", DEVICES)
def test_numpy_scalar_in_functions(device):
    x = xp.asarray([1.0, 2.0, 3.0], dtype=xp.float32, device=_dev(device))
    assert xp.add(x, np.float64(1)).dtype == xp.float32  # the Python-scalar rule
    np.testing.assert_array_equal(xp.asnumpy(xp.where(x > 1, x, np.float32(0))), [0, 2, 3])
    np.testing.assert_array_equal(xp.asnumpy(xp.clip(x, np.float64(1.5), None)), [1.5, 2, 3])
    f = xp.full(2, np.int32(3), device=_dev(device))
    assert f.dtype == xp.int64 and xp.asnumpy(f).tolist() == [3, 3]
    assert xp.full_like(x, np.float64(4)).dtype == xp.float32
    assert xp.result_type(x, np.float64(1)) == xp.float32


@pytest.mark.parametrize("device", DEVICES)
def test_numpy_arrays_and_other_numpy_values_in_operators_raise(device):
    x = xp.asarray([1.0, 2.0, 3.0], device=_dev(device))
    for other in (np.ones(3), np.array(2.0), np.longdouble(1)):
        for op in (*OPS.values(), lambda a, b: a @ b):
            for a, b in ((x, other), (other, x)):
                with pytest.raises(TypeError):
                    op(a, b)
        y = x
        with pytest.raises(TypeError):
            y += other
        assert y is x


# ---- integer true division ---------------------------------------------------------------
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


@pytest.mark.parametrize("device", DEVICES)
@given(data=st.data())
def test_integer_divide_is_numpy_true_division(device, data):
    d1 = data.draw(st.sampled_from(INTS), label="d1")
    d2 = data.draw(st.sampled_from(INTS), label="d2")
    a = np.array(data.draw(st.lists(st.integers(0, 100), min_size=1, max_size=5)), dtype=d1)
    b = np.array(data.draw(st.lists(st.integers(1, 100), min_size=len(a), max_size=len(a))),
                 dtype=d2)
    x1 = xp.asarray(a, device=_dev(device))
    x2 = xp.asarray(b, device=_dev(device))
    try:
        xp.result_type(x1, x2)
    except TypeError:  # no promotion (uint64 with a signed type): still refused
        with pytest.raises(TypeError):
            xp.divide(x1, x2)
        return
    f = xp.__array_namespace_info__().default_dtypes(device=x1.device)["real floating"]
    for got in (xp.divide(x1, x2), x1 / x2):
        assert got.dtype == f
        np.testing.assert_allclose(xp.asnumpy(got), a.astype(f.np) / b.astype(f.np))
    np.testing.assert_allclose(xp.asnumpy(x1 / 4), a / 4)
    np.testing.assert_allclose(xp.asnumpy(7 / x2), 7 / b.astype(np.float64))


def test_integer_divide_keeps_the_other_rules():
    i = xp.asarray([1, 2])
    for call in (lambda: i / xp.asarray([1.0, 2.0]), lambda: i / 2.5,
                 lambda: xp.asarray([True]) / xp.asarray([True])):
        with pytest.raises(TypeError):
            call()
    with pytest.raises(TypeError):  # the result dtype would change x's dtype
        i /= 2


# ---- pickling and copying -----------------------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
def test_arrays_devices_dtypes_pickle_and_copy(device):
    x = xp.asarray(np.arange(12.0).reshape(3, 4), dtype=xp.float32, device=_dev(device))
    for a in (x, x[:, ::-2], x.mT, xp.asarray(5, device=_dev(device))):
        for y in (pickle.loads(pickle.dumps(a, protocol=p)) for p in (2, 5)):
            assert type(y) is xp.usm_ndarray and y.shape == a.shape and y.dtype == a.dtype
            assert y.device == a.device and y.usm_type == a.usm_type
            np.testing.assert_array_equal(xp.asnumpy(y), xp.asnumpy(a))
    z = copy.deepcopy(x)
    assert z.device == x.device and xp.all(z + x == 2 * x)
    z[0, 0] = 100.0
    assert float(x[0, 0]) == 0.0
    assert pickle.loads(pickle.dumps(x.device)) == x.device
    d = x.device
    assert copy.deepcopy(d) is d and copy.copy(d) is d
    for d in (xp.float32, xp.int8, xp.bool, xp.complex128):
        assert pickle.loads(pickle.dumps(d)) is d


@pytest.mark.skipif(_sycl is None, reason="needs the SYCL backend")
def test_usm_type_survives_pickle():
    for ut in ("device", "shared", "host"):
        assert pickle.loads(pickle.dumps(xp.asarray([1], usm_type=ut))).usm_type == ut


def test_unpickling_on_a_missing_device_warns_and_uses_the_default():
    from usmarray._device import _restore_device

    for backend, text in (("sycl", "level_zero:gpu:97"), ("nosuchbackend", "x:0")):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            d = _restore_device(backend, text)
        assert d == xp.asarray(0).device
        assert any(text in str(m.message) and "default device" in str(m.message) for m in w)


_FIT = textwrap.dedent("""
    import os, pickle, sys
    import joblib, numpy as np, sklearn
    import usmarray as xp
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.linear_model import Ridge
    from sklearn.decomposition import PCA
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 5)); y = (X[:, 0] > 0).astype(np.float64)
    out = sys.argv[1]
    with sklearn.config_context(array_api_dispatch=True):
        Xx, yx = xp.asarray(X), xp.asarray(y)
        ests = {"ridge": Ridge(alpha=0.5).fit(Xx, yx), "pca": PCA(2).fit(Xx),
                "lda": LinearDiscriminantAnalysis().fit(Xx, yx)}
        assert type(ests["ridge"].coef_) is xp.usm_ndarray
        preds = {"ridge": ests["ridge"].predict(Xx), "pca": ests["pca"].transform(Xx),
                 "lda": ests["lda"].predict_proba(Xx)}
    for k, e in ests.items():
        with open(os.path.join(out, k + ".pkl"), "wb") as f:
            pickle.dump(e, f)
        joblib.dump(e, os.path.join(out, k + ".joblib"))
    np.savez(os.path.join(out, "ref.npz"), X=X, **{k: xp.asnumpy(v) for k, v in preds.items()})
""")

_LOAD = textwrap.dedent("""
    import os, pickle, sys
    import joblib, numpy as np, sklearn
    import usmarray as xp
    out = sys.argv[1]
    ref = np.load(os.path.join(out, "ref.npz"))
    with sklearn.config_context(array_api_dispatch=True):
        X = xp.asarray(ref["X"])
        for k, method in (("ridge", "predict"), ("pca", "transform"), ("lda", "predict_proba")):
            for ext in ("pkl", "joblib"):
                path = os.path.join(out, k + "." + ext)
                if ext == "pkl":
                    with open(path, "rb") as f:
                        e = pickle.load(f)
                else:
                    e = joblib.load(path)
                got = getattr(e, method)(X)
                assert type(got) is xp.usm_ndarray and got.device == X.device, (k, type(got))
                np.testing.assert_allclose(xp.asnumpy(got), ref[k], rtol=1e-12, atol=1e-12)
    print("ok")
""")


@pytest.mark.parametrize("device", DEVICES)
def test_fitted_estimator_survives_pickle_and_joblib_in_a_fresh_process(device, tmp_path):
    pytest.importorskip("sklearn")
    pytest.importorskip("joblib")
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.dirname(os.path.dirname(os.path.abspath(xp.__file__))),
         env.get("PYTHONPATH", "")])
    if device == "numpy":
        env["USMARRAY_DEFAULT_DEVICE"] = "numpy"
    else:
        env.pop("USMARRAY_DEFAULT_DEVICE", None)
    for script in (_FIT, _LOAD):
        r = subprocess.run([sys.executable, "-c", script, str(tmp_path)], env=env,
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.strip().endswith("ok")


# ---- SciPy's MArray name test ----------------------------------------------------------------
def test_module_name_is_usmarray_but_not_marray_to_scipy():
    name = xp.__name__
    assert name == "usmarray" and hash(name) == hash("usmarray") and f"{name}" == "usmarray"
    assert sys.modules[name] is xp and name.startswith("usm") and "array" in name
    assert "marray" not in name  # the one substring test SciPy uses to detect MArray
    assert type(pickle.loads(pickle.dumps(name))) is str
    pytest.importorskip("scipy")
    from scipy._lib._array_api import array_namespace, is_marray

    assert not is_marray(array_namespace(xp.asarray([1.0])))


# ---- 0-D results are arrays on every backend (array-api-extra's cov on the NumPy backend) ------
@pytest.mark.parametrize("device", DEVICES)
def test_zero_d_results_are_raw_arrays_not_numpy_scalars(device):
    x = xp.asarray([[1.5, 2.5]], device=_dev(device))
    for r in (xp.squeeze(x[:, :1], axis=(0, 1)), *xp.unstack(x[0]), x[0, 1], xp.sum(x)):
        assert r.shape == () and type(r._arr) is r._be.array_type
        assert np.from_dlpack(r, device="cpu").shape == ()
    w = xp.squeeze(x, axis=0)  # still a view
    w[0] = 9.0
    assert float(x[0, 0]) == 9.0


# ---- NumPy integer keys; iter() of a 0-D array ------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
def test_numpy_integer_keys_are_int_keys(device):
    x = xp.reshape(xp.arange(12, device=_dev(device)), (3, 4))
    assert int(x[np.int64(1), np.int32(2)]) == 6 and int(x[np.uint8(2)][np.int16(-1)]) == 11
    assert xp.asnumpy(x[np.int64(0), :]).tolist() == [0, 1, 2, 3]
    assert x[np.bool_(True)].shape == (1, 3, 4)
    x[np.int64(0), np.int64(0)] = 50
    assert int(x[0, 0]) == 50
    for bad in (np.float64(1.0), np.complex128(1)):
        with pytest.raises(IndexError):
            x[bad]
        with pytest.raises(IndexError):
            x[0, bad]


@pytest.mark.parametrize("device", DEVICES)
def test_iter_of_a_zero_d_array_raises_at_once(device):
    z = xp.asarray(1.0, device=_dev(device))
    with pytest.raises(TypeError):
        iter(z)
    assert not np.iterable(z) and np.iterable(xp.asarray([1.0], device=_dev(device)))
    assert [float(v) for v in xp.asarray([1.0, 2.0], device=_dev(device))] == [1.0, 2.0]


# ---- what SciPy's stats tests pass: a list shape, a namedtuple of arrays, the message -----------
def test_broadcast_to_list_shape_namedtuple_sequences_and_broadcast_message():
    import collections

    pair = collections.namedtuple("pair", "low high")
    x = xp.asarray([1.0, 2.0])
    assert xp.broadcast_to(x, [3, 2]).shape == (3, 2)  # as array-api-strict and NumPy
    assert xp.stack(pair(x, x)).shape == (2, 2) and xp.concat(pair(x, x)).shape == (4,)
    with pytest.raises(TypeError):
        xp.broadcast_to(x, [3, 2.0])
    with pytest.raises(ValueError, match="cannot be broadcast"):  # NumPy's words
        xp.broadcast_arrays(xp.ones(2), xp.ones(3))


@pytest.mark.parametrize("device", DEVICES)
def test_array_is_a_host_view_that_keeps_read_only(device):
    x = xp.asarray([1.0, 2.0], device=_dev(device))
    np.asarray(x)[0] = 7.0  # SciPy's output= arrays: the write reaches x
    assert float(x[0]) == 7.0
    assert np.asarray(x, copy=True).flags.owndata
    b = xp.broadcast_to(x, (3, 2))
    v = np.asarray(b)
    assert not v.flags.writeable
    with pytest.raises(ValueError):
        v[0, 0] = 5.0
