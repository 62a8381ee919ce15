"""The two forms of the array core (``usmarray/_form.py``): which one loads under each
setting, and that the compiled core's lean paths (operators, ``x[slice]``, ``x[index
array]``, ``x[key] = array``) give NumPy's values and the pure-Python form's errors,
on every backend.  CI runs the suite in both forms; this file's value checks run in
whichever form the process has."""

from __future__ import annotations

import importlib.util
import math
import operator
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_reliability_common import device_params

import usmarray as xp
from usmarray import _form
from usmarray._array import usm_ndarray

COMPILED_BUILT = importlib.util.find_spec("usmarray._core") is not None
#: CI sets it where the install must have built the compiled core
EXPECT_COMPILED = os.environ.get("USMARRAY_EXPECT_COMPILED", "") not in ("", "0")
DEVICES = device_params("numpy", "cpu", "cuda:0")


def _form_in_child(pure: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != _form.PURE_ENV}
    if pure is not None:
        env[_form.PURE_ENV] = pure
    code = ("import usmarray, usmarray._form as f; from usmarray._array import usm_ndarray; "
            "print(f.FORM, usm_ndarray.__mro__[1].__name__)")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=300, check=True)
    return out.stdout.split("\n")[-2]


def test_the_environment_variable_forces_the_pure_python_form() -> None:
    assert _form_in_child("1") == "pure object"


def test_the_compiled_form_loads_where_it_was_built() -> None:
    want = "compiled ArrayBase" if COMPILED_BUILT else "pure object"
    assert _form_in_child(None) == want
    assert _form_in_child("0") == want  # "0" does not force the pure-Python form
    if EXPECT_COMPILED:
        assert COMPILED_BUILT, "this install should have built usmarray._core"
        spec = importlib.util.find_spec("usmarray._backend._cuda._engine_calls")
        assert spec is not None, "this install should have built the CUDA engine's calls"


def test_this_process_runs_the_form_its_setting_asks_for() -> None:
    forced = os.environ.get(_form.PURE_ENV, "") not in ("", "0")
    assert _form.FORM == ("compiled" if COMPILED_BUILT and not forced else "pure"), _form.REASON
    assert (usm_ndarray.__mro__[1] is object) == (_form.FORM == "pure")


@pytest.mark.skipif(not COMPILED_BUILT, reason="no compiled core in this install")
def test_a_core_built_from_another_source_is_not_loaded(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv(_form.PURE_ENV, raising=False)
    other = tmp_path / "_core.pyx"
    other.write_text("# an edit made after the build\n")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        core, reason = _form._load(other)
    assert core is None and "older than _core.pyx" in reason
    assert any("rebuilt" in str(w.message) for w in seen)


def _python_frames(calls, kernels: tuple[str, ...] = ()) -> list[str]:
    """The files of the Python frames a second ``calls()`` runs (the first works out
    the plans in Python), but for the functions named in ``kernels`` (a plan's kernel
    written in Python)."""
    calls()
    frames: list[str] = []
    sys.setprofile(lambda f, event, _: frames.append(f.f_code.co_filename)
                   if event == "call" and f.f_code.co_name not in kernels else None)
    try:
        calls()
    finally:
        sys.setprofile(None)
    return frames


@pytest.mark.skipif(_form.FORM != "compiled", reason="the pure-Python form runs")
def test_the_compiled_slots_run_no_python_frame_on_their_lean_paths() -> None:
    x = xp.asarray(np.arange(8.0), device="numpy")
    i = xp.asarray(np.array([1, 3]), device="numpy")
    v = xp.asarray(np.ones(2), device="numpy")

    def calls() -> None:
        x + x, x < x, x + 1.0, 2.0 * x, -x, x[1:3], x[2], x[i]
        x[0:2] = v
        x[3] = 2.5
        x[(4,)] = -1.0
        x[(5,)] = z
        x[6:8] = 0.5

    z = xp.asarray(4.5, device="numpy")
    frames = _python_frames(calls)
    # the backend's kernels and methods only (ufuncs run without a Python frame): no
    # operator or indexing function in Python; ``calls`` itself shows the profile ran
    package = os.path.dirname(xp.__file__)
    namespace = [f for f in frames if f.startswith(package)
                 and not f.startswith(os.path.join(package, "_backend"))]
    assert not namespace and __file__ in frames, frames


_BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.pow,
           operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne,
           operator.floordiv, operator.mod]
_BITS = [operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift]
_SIZES = [7, 100_000]  # below and above the small kernels' size


def _pair(dtype: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(n)
    if dtype.startswith("int") or dtype.startswith("uint"):
        return (rng.integers(1, 9, n).astype(dtype), rng.integers(1, 5, n).astype(dtype))
    a, b = rng.uniform(0.5, 2.0, n), rng.uniform(0.5, 2.0, n)
    if dtype.startswith("complex"):
        return (a + 1j * b).astype(dtype), (b - 0.5j * a).astype(dtype)
    return a.astype(dtype), b.astype(dtype)


def _same(got: usm_ndarray, want: np.ndarray) -> None:
    g = xp.asnumpy(got)
    assert g.dtype == want.dtype and g.shape == want.shape
    np.testing.assert_allclose(g, want, rtol=1e-5 if g.dtype in (np.float32, np.complex64)
                               else 1e-12)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("n", _SIZES)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32", "complex128"])
def test_operators_of_two_arrays_give_numpys_values(device: str, n: int, dtype: str) -> None:
    a, b = _pair(dtype, n)
    x, y = xp.asarray(a, device=device), xp.asarray(b, device=device)
    for op in _BINARY:
        if dtype.startswith("complex") and op in (operator.lt, operator.le, operator.gt,
                                                  operator.ge, operator.floordiv,
                                                  operator.mod):
            continue
        if dtype.startswith("int") and op is operator.truediv:
            continue  # integer division: the device's default float (test_elementwise)
        _same(op(x, y), op(a, b))
    if dtype.startswith("int"):
        for op in _BITS:
            _same(op(x, y), op(a, b))
    _same(-x, -a)
    _same(abs(x), abs(a))
    _same(+x, +a)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("n", _SIZES)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("scalar", [2.5, 3, -0.0])
def test_operators_with_a_python_scalar_give_numpys_values(device: str, n: int, dtype: str,
                                                           scalar: float) -> None:
    a, _ = _pair(dtype, n)
    x = xp.asarray(a, device=device)
    for op in (operator.add, operator.sub, operator.mul, operator.truediv, operator.pow,
               operator.lt, operator.eq):
        _same(op(x, scalar), op(a, a.dtype.type(scalar)))
        _same(op(scalar, x), op(a.dtype.type(scalar), a))  # the reflected operator


@pytest.mark.parametrize("device", DEVICES)
def test_the_lean_operators_refuse_as_the_python_form_does(device: str) -> None:
    x = xp.asarray(np.arange(6.0), device=device)
    with pytest.raises(TypeError, match="float64 with int64|int64 and float64|promot"):
        x + xp.asarray(np.arange(6), device=device)
    with pytest.raises(ValueError, match="broadcast"):
        x + xp.asarray(np.arange(4.0), device=device)
    with pytest.raises(TypeError, match="float scalar|cannot be combined"):
        xp.asarray(np.arange(6), device=device) + 1.5
    with pytest.raises(TypeError, match="numpy.ndarray"):
        x + np.arange(6.0)
    assert (x == "a") is False and (x != None) is True  # noqa: E711 - NotImplemented
    assert x.__add__(object()) is NotImplemented
    with pytest.raises(TypeError, match=r"__pow__\(\) takes 2 positional arguments"):
        pow(x, 2, 3)
    with pytest.raises(TypeError, match="unsupported operand"):
        pow(2, x, 3)


@pytest.mark.parametrize("device", DEVICES)
def test_slices_index_arrays_and_masks_give_numpys_values(device: str) -> None:
    a = np.arange(20.0)
    x = xp.asarray(a, device=device)
    _same(x[2:15], a[2:15])
    _same(x[::3], a[::3])
    _same(x[-5:], a[-5:])
    for idx in (np.array([0, 3, -1, 19]), np.array([], dtype=np.int64),
                np.array([1, 1], dtype=np.int32)):
        _same(x[xp.asarray(idx, device=device)], a[idx])
    m = a > 7
    _same(x[xp.asarray(m, device=device)], a[m])
    with pytest.raises(IndexError, match="out of bounds"):
        x[xp.asarray(np.array([20]), device=device)]
    with pytest.raises(IndexError, match="boolean index"):
        x[xp.asarray(np.array([True, False]), device=device)]


@pytest.mark.parametrize("device", DEVICES)
def test_int_and_tuple_keys_give_numpys_values(device: str) -> None:
    a = np.arange(24.0).reshape(4, 6)
    x = xp.asarray(a, device=device)
    for key in (3, -1, (2, 3), (1, slice(None)), (slice(None), 4), (None, 1, ...),
                (..., 2), (slice(1, 3), None, slice(None, 2))):
        _same(x[key], a[key])
    with pytest.raises(IndexError, match="out of (bounds|range)"):  # the provider's words
        x[4]
    with pytest.raises(IndexError, match="out of (bounds|range)"):
        x[1, -7]
    with pytest.raises(IndexError):
        x[2**70]
    assert x[(None,) * 63 + (0,)].ndim == 64
    with pytest.raises(IndexError, match="64"):
        x[(None,) * 64 + (0,)]  # 65 dimensions


@pytest.mark.parametrize("device", DEVICES)
def test_setitem_of_an_array_gives_numpys_values(device: str) -> None:
    a = np.arange(10.0)
    x = xp.asarray(a, device=device)
    x[2:5] = xp.asarray(np.array([7.0, 8.0, 9.0]), device=device)
    a[2:5] = [7.0, 8.0, 9.0]
    x[0] = xp.asarray(np.array(-1.0), device=device)
    a[0] = -1.0
    x[...] = x[::-1]  # the value overlaps the target: copied first
    a[...] = a[::-1].copy()
    _same(x, a)
    with pytest.raises(ValueError):
        x[2:5] = xp.asarray(np.arange(4.0), device=device)
    with pytest.raises(TypeError, match="promote"):
        x[0:2] = xp.asarray(np.array([1 + 1j, 2j]), device=device)
    r = xp.broadcast_to(xp.asarray(np.array([1.0]), device=device), (3,))
    with pytest.raises(ValueError, match="read-only"):
        r[0:1] = xp.asarray(np.array([2.0]), device=device)
    with pytest.raises(AttributeError):
        del x[0]


@pytest.mark.parametrize("device", DEVICES)
def test_setitem_of_a_python_scalar_gives_numpys_values_and_errors(device: str) -> None:
    a = np.zeros((3, 4))
    x = xp.asarray(a, device=device)
    for key, v in [((1, 2), 5.5), ((-1, 0), -2.0), (2, 7.0), ((0, -4), float("nan")),
                   ((), 1.25), (slice(1, None), 3.5), (slice(-5, 2), -0.5)]:
        x[key] = v
        a[key] = v
    _same(x, a)
    m = np.zeros(3, dtype=bool)
    b = xp.asarray(m, device=device)
    b[1] = True
    m[1] = True
    _same(b, m)
    with pytest.raises(IndexError, match="out of range|out of bounds"):
        x[3, 0] = 1.0
    with pytest.raises(IndexError):
        x[0, 0, 0] = 1.0
    with pytest.raises(TypeError, match="cannot be combined"):
        b[0] = 1.0
    with pytest.raises(TypeError, match="cannot be combined"):
        xp.asarray(np.zeros(2, dtype=np.int32), device=device)[0] = 1.5
    r = xp.broadcast_to(xp.asarray(np.array([1.0]), device=device), (3,))
    with pytest.raises(ValueError, match="read-only"):
        r[0] = 2.0
    with pytest.raises(ValueError, match="read-only"):
        r[0:2] = 2.0
    _same(x, a)  # nothing written by the refused calls


@pytest.mark.parametrize("device", DEVICES)
def test_setitem_of_a_0d_array_under_int_keys_gives_numpys_values_and_errors(
        device: str) -> None:
    # scikit-learn's _fill_diagonal writes x[i, i] = xp.asarray(value) in a loop
    a = np.arange(12.0).reshape(3, 4)
    x = xp.asarray(a, device=device)
    for key, v in [((1, 2), 5.5), ((-1, 0), -2.0), ((0, -4), float("nan"))]:
        x[key] = xp.asarray(v, device=device)
        a[key] = v
    _same(x, a)
    x[(2, 3)] = x[(0, 1)]  # a 0-D view of the target itself
    a[2, 3] = a[0, 1]
    _same(x, a)
    x[(0, 0)] = xp.asarray(np.float32(0.25), device=device)  # promotes to the target's
    a[0, 0] = 0.25
    _same(x, a)
    with pytest.raises(IndexError, match="out of range|out of bounds"):
        x[3, 0] = xp.asarray(1.0, device=device)
    with pytest.raises(TypeError, match="promote"):
        xp.asarray(np.zeros(2, dtype=np.int32), device=device)[(0,)] = xp.asarray(
            1.5, device=device)
    r = xp.broadcast_to(xp.asarray(np.array([1.0]), device=device), (3, 1))
    with pytest.raises(ValueError, match="read-only"):
        r[(0, 0)] = xp.asarray(2.0, device=device)
    _same(x, a)  # nothing written by the refused calls


#: calls of ``zeros``/``empty`` on the lean paths and beside them: regular and refused
#: shapes, placement keywords, dtypes, NumPy habits (``D`` is the test's device string)
_CREATION_CALLS = [
    "{f}(5, dtype=xp.float32, device=D)", "{f}((2, 3), device=D)", "{f}((), device=D)",
    "{f}(0, dtype=xp.int8, device=D)", "{f}((4, 0, 2), dtype=xp.bool, device=D)",
    "{f}(3, dtype=xp.complex64, device=xp.Device.create_device(D))",
    "{f}(shape=3, device=D)", "{f}(np.int64(3), device=D)", "{f}([2, 2], device=D)",
    "{f}(3, device=D, usm_type='host')", "{f}(3, device=D, usm_type='managed')",
    "{f}(-1, device=D)", "{f}((2, -1), device=D)", "{f}((2, 'a'), device=D)",
    "{f}(True, device=D)", "{f}(2.0, device=D)", "{f}((1,) * 65, device=D)",
    "{f}(2**70, device=D)", "{f}((2**40, 2**40), device=D)", "{f}(3, np.float64)",
    "{f}(3, dtype='float32', device=D)", "{f}(3, dtype=np.float32, device=D)",
    "{f}(3, order='C', device=D)", "{f}(device=D)", "{f}(3, 4, device=D)",
    "{f}(3, device='no-such-device')", "{f}(3, device=object())",
    "{f}(3, sycl_queue=object(), device=D)",
]

#: calls of ``asarray`` on its lean paths (a Python float, a short list of floats) and
#: beside them
_ASARRAY_CALLS = [
    "xp.asarray(1.5, device=D)", "xp.asarray(-0.0)", "xp.asarray([1.0, 2.5], device=D)",
    "xp.asarray([], device=D)", "xp.asarray([1.0] * 16, device=D)",
    "xp.asarray([1.0] * 17, device=D)", "xp.asarray([1.0, 2], device=D)",
    "xp.asarray([1.0, True], device=D)", "xp.asarray([1.0, [2.0]], device=D)",
    "xp.asarray([1.0, np.float64(2.0)], device=D)", "xp.asarray((1.0, 2.0), device=D)",
    "xp.asarray(1.5, dtype=xp.float32, device=D)", "xp.asarray([1.5], copy=False, device=D)",
    "xp.asarray(1.5, copy=False, device=D)", "xp.asarray([1.5], usm_type='host', device=D)",
    "xp.asarray(1.5, device=xp.Device.create_device(D))", "xp.asarray(float('nan'), device=D)",
    "xp.asarray(1.5, D)", "xp.asarray(obj=1.5, device=D)", "xp.asarray(device=D)",
    "xp.asarray([1.5], order='C', device=D)", "xp.asarray(1.5, device='no-such-device')",
    "xp.asarray([1.5], device=object())", "xp.asarray([1.5], dtype='float32', device=D)",
]

#: calls of ``full`` (on its lean path: a Python float) and ``ones`` on their lean paths and
#: beside them
_FULL_CALLS = [
    "xp.full(3, 1.5, device=D)", "xp.full((2, 3), -0.0, device=D)", "xp.full((), 2.5, device=D)",
    "xp.full(4, 1.5, dtype=xp.float32, device=D)", "xp.full(2, 1e300, dtype=xp.float32, device=D)",
    "xp.full(2, float('nan'), dtype=xp.complex64, device=D)", "xp.full(3, 1.5, dtype=xp.int64, device=D)",
    "xp.full(3, 1.5, dtype=xp.bool, device=D)", "xp.full(3, 2, device=D)", "xp.full(3, True, device=D)",
    "xp.full(3, 1.5j, device=D)", "xp.full(-1, 1.5, device=D)", "xp.full((2, -3), 1.5, device=D)",
    "xp.full(2.0, 1.5, device=D)", "xp.full((2, np.int64(3)), 1.5, device=D)", "xp.full(2**62, 1.5, device=D)",
    "xp.full(3, 1.5, device=D, usm_type='host')", "xp.full(3, 1.5, D)", "xp.full(3)", "xp.full()",
    "xp.full(shape=3, fill_value=1.5, device=D)", "xp.full(3, fill_value=1.5, device=D)",
    "xp.full(fill_value=1.5, device=D)", "xp.full(3, 1.5, dtype='float32', device=D)",
    "xp.full(3, 1.5, device='no-such-device')", "xp.full(3, 1.5, order='C', device=D)",
    "xp.full([2, 3], 1.5, device=D)", "xp.full(3, Z, device=D)", "xp.full(3, 1.5, dtype=xp.float64)",
    "xp.ones(3, device=D)", "xp.ones((2, 3), dtype=xp.float32, device=D)", "xp.ones((), device=D)",
    "xp.ones(3, dtype=xp.complex64, device=D)", "xp.ones(3, dtype=xp.int8, device=D)",
    "xp.ones(3, dtype=xp.bool, device=D)", "xp.ones(-1, device=D)", "xp.ones(2.0, device=D)",
    "xp.ones(3, dtype='float32', device=D)", "xp.ones(3, device='no-such-device')",
    "xp.ones(3, device=D, usm_type='host')", "xp.ones(3, D)", "xp.ones()", "xp.ones(shape=3)",
    "xp.ones([2, 3], device=D)", "xp.ones(2**62, device=D)", "xp.ones(3, order='C', device=D)",
]

#: calls of ``reshape``, ``permute_dims``, ``matmul`` (``@``) and ``asarray(x, copy=True)``
#: on their lean paths and beside them
#: (``X``: 12 floats, ``M``: X as 3x4, ``S``: a stepped view, ``Z``: a 0-D array)
_VIEW_CALLS = [
    "xp.reshape(X, (3, 4))", "xp.reshape(X, (-1, 6))", "xp.reshape(X, shape=(2, 6))",
    "xp.reshape(X, (2, -1, 3))", "xp.reshape(S, (2, 3))", "xp.reshape(M.mT, (12,))",
    "xp.reshape(Z, ())", "xp.reshape(Z, (1, 1))", "xp.reshape(X, (5, 5))",
    "xp.reshape(X, (-1, -1))", "xp.reshape(X, (-2, 6))", "xp.reshape(X, (0, -1))",
    "xp.reshape(X, [3, 4])", "xp.reshape(X, 12)", "xp.reshape(X, (3, 4), True)",
    "xp.reshape(X, (3, 4), copy=False)", "xp.reshape(M.mT, (12,), copy=False)",
    "xp.reshape(X, (3, 4), copy=True)", "xp.reshape(X, (np.int64(3), 4))",
    "xp.reshape(X, (3.0, 4))", "xp.reshape(X, (2**70, 1))", "xp.reshape(X)",
    "xp.reshape()", "xp.reshape(x=X, shape=(3, 4))", "xp.reshape(X, (3, 4), order='F')",
    "xp.reshape(np.arange(12.0), (3, 4))", "xp.reshape(X, (1,) * 65 + (12,))",
    "xp.permute_dims(M, (1, 0))", "xp.permute_dims(M, (0, 1))", "xp.permute_dims(Z, ())",
    "xp.permute_dims(xp.reshape(X, (2, 3, 2)), (2, 0, 1))", "xp.permute_dims(M, (0, 0))",
    "xp.permute_dims(M, (-1, 0))", "xp.permute_dims(M, [1, 0])", "xp.permute_dims(M, (1,))",
    "xp.permute_dims(M, (1, 2))", "xp.permute_dims(M, (True, False))",
    "xp.permute_dims(M, (np.int64(1), 0))", "xp.permute_dims(M)", "xp.permute_dims()",
    "xp.permute_dims(M, (1, 0), 3)", "xp.permute_dims(M, axes=(1, 0))",
    "xp.permute_dims(x=M, axes=(1, 0))", "xp.permute_dims(np.ones((2, 3)), (1, 0))",
    "xp.permute_dims(M, (2**70, 0))",
    "M @ xp.permute_dims(M, (1, 0))", "xp.matmul(M, xp.permute_dims(M, (1, 0)))",
    "xp.matmul(M, M)", "M @ M", "xp.matmul(X, X)", "X @ X", "xp.matmul(M, X[:4])",
    "xp.matmul(X[:3], M)", "xp.matmul(Z, M)", "M @ Z", "xp.matmul(M, 2.0)", "M @ 2.0",
    "2.0 @ M", "xp.matmul(xp.reshape(X, (2, 3, 2)), xp.reshape(X, (2, 2, 3)))",
    "xp.matmul(xp.reshape(X, (3, 2, 2)), xp.reshape(X[:8], (2, 2, 2)))",
    "xp.matmul(xp.reshape(X, (2, 3, 2)), xp.reshape(X, (2, 3, 2)))",
    "xp.matmul(M, xp.astype(xp.permute_dims(M, (1, 0)), xp.float32))",
    "xp.matmul(xp.astype(M, xp.complex64), xp.astype(xp.permute_dims(M, (1, 0)), "
    "xp.complex64))", "xp.matmul(xp.astype(M, xp.int32), xp.astype(xp.permute_dims(M, "
    "(1, 0)), xp.int32))", "xp.matmul(xp.astype(M, xp.bool), xp.astype(xp.permute_dims("
    "M, (1, 0)), xp.bool))", "xp.matmul(M)", "xp.matmul(M, M, M)", "xp.matmul(x1=M, x2=M)",
    "xp.matmul(M, np.ones((4, 2)))", "M @ np.ones((4, 2))", "xp.matmul(S, S)",
    "xp.matmul(M[:, ::2], xp.permute_dims(M, (1, 0))[::2])",
    "xp.asarray(X, copy=True)", "xp.asarray(M.mT, copy=True)", "xp.asarray(S, copy=True)",
    "xp.asarray(Z, copy=True)", "xp.asarray(X, copy=True, device=D)",
    "xp.asarray(X, copy=False)", "xp.asarray(M, copy=True, dtype=xp.float32)",
    "xp.asarray(X, copy=1)", "xp.asarray(X[:0], copy=True)",
    "xp.asarray(xp.astype(M, xp.complex128), copy=True)",
]

_CREATION_CHILD = """
import json, sys, numpy as np, usmarray as xp
D = sys.argv[1]
X = xp.asarray(np.arange(12.0), device=D)
M = xp.reshape(X, (3, 4))
S = X[::2]
Z = xp.asarray(np.float64(2.5), device=D)
out = []
for call in json.loads(sys.argv[2]):
    for _ in range(2):  # the second call finds the plan the first one made
        try:
            r = eval(call)
            got = ["ok", r.shape, str(r.dtype), str(r.device),
                   None if "empty" in call else repr(xp.asnumpy(r).tolist())]
        except Exception as exc:
            got = [type(exc).__name__, str(exc)]
    out.append([call, got])
print(json.dumps(out))
"""


def _creation_outcomes(device: str, pure: bool) -> list:
    import json

    env = {k: v for k, v in os.environ.items() if k != _form.PURE_ENV}
    if pure:
        env[_form.PURE_ENV] = "1"
    calls = [c.format(f=f) for f in ("xp.zeros", "xp.empty") for c in _CREATION_CALLS]
    r = subprocess.run([sys.executable, "-c", _CREATION_CHILD, device,
                        json.dumps(calls + _ASARRAY_CALLS + _VIEW_CALLS + _FULL_CALLS)], env=env,
                       capture_output=True,
                       text=True, timeout=300, check=True)
    return json.loads(r.stdout.splitlines()[-1])


@pytest.mark.skipif(not COMPILED_BUILT, reason="no compiled core in this install")
@pytest.mark.parametrize("device", DEVICES)
def test_lean_fronts_give_the_python_forms_results_and_errors(device: str) -> None:
    compiled, pure = _creation_outcomes(device, False), _creation_outcomes(device, True)
    assert len(compiled) == (2 * len(_CREATION_CALLS) + len(_ASARRAY_CALLS) + len(_VIEW_CALLS)
                             + len(_FULL_CALLS))
    for c, p in zip(compiled, pure, strict=True):
        assert c == p, (c, p)
    assert sum(got[0] == "ok" for _, got in compiled) >= 50  # both kinds of outcome
    assert sum(got[0] != "ok" for _, got in compiled) >= 60


@pytest.mark.skipif(_form.FORM != "compiled", reason="the pure-Python form runs")
def test_lean_fronts_run_no_python_frame() -> None:
    d = xp.Device.create_device("numpy")
    x = xp.asarray(np.arange(6.0), device=d)

    def calls() -> None:
        xp.zeros(4, dtype=xp.float32, device=d)
        xp.empty((2, 3), device=d)
        xp.zeros((), dtype=xp.int64, device="numpy")
        xp.asarray([1.0, 2.0], device=d)
        m = xp.permute_dims(xp.reshape(x, (2, 3)), (1, 0))
        m @ xp.permute_dims(m, (1, 0))
        xp.matmul(m, xp.permute_dims(m, (1, 0)))
        xp.asarray(m, copy=True)
        xp.full((2, 2), 0.5, device=d)
        xp.ones(3, device=d)

    frames = _python_frames(calls, kernels=("product",))  # matmul's plan
    # the backend's methods only, and the Device a filter string made
    package = os.path.dirname(xp.__file__)
    namespace = [f for f in frames if f.startswith(package)
                 and not f.startswith(os.path.join(package, "_backend"))]
    assert namespace == [os.path.join(package, "_device.py")] and __file__ in frames, frames


def _outcome(fn, *args, **kwargs) -> tuple:
    """What ``fn(*args, **kwargs)`` gives: the result's shape, dtype and values, or the
    error's type and message."""
    try:
        r = fn(*args, **kwargs)
    except Exception as exc:
        return (type(exc).__name__, str(exc))
    return ("ok", r.shape, str(r.dtype), xp.asnumpy(r).tolist())


_dims = st.integers(-3, 5)


@pytest.mark.skipif(_form.FORM != "compiled", reason="the pure-Python form runs")
@pytest.mark.parametrize("device", DEVICES)
@given(source=st.lists(st.integers(0, 4), max_size=4),
       target=st.one_of(st.lists(_dims, max_size=5).map(tuple), _dims,
                        st.lists(_dims, max_size=3)),
       perm=st.permutations(range(4)), cut=st.integers(0, 4), flip=st.booleans())
def test_lean_reshape_and_permute_dims_are_their_python_forms(device, source, target, perm,
                                                               cut, flip) -> None:
    from usmarray import _manipulation as manip

    a = np.arange(math.prod(source), dtype=np.float32).reshape(source)
    x = xp.asarray(a, device=device)
    if flip and x.ndim:
        x = xp.flip(x, axis=0)
    axes = tuple(p for p in perm if p < x.ndim)
    if cut < len(axes):
        axes = axes[:cut] + (axes[cut] - x.ndim,) + axes[cut + 1:]  # one negative axis
    assert _outcome(xp.reshape, x, target) == _outcome(manip.reshape, x, target)
    assert _outcome(xp.permute_dims, x, axes) == _outcome(manip.permute_dims, x, axes)


@pytest.mark.skipif(_form.FORM != "compiled", reason="the pure-Python form runs")
@pytest.mark.parametrize("device", DEVICES)
@given(shape=st.one_of(st.integers(-2, 6), st.lists(st.integers(-1, 4), max_size=4).map(tuple)),
       dtype=st.sampled_from(["float32", "float64", "int32", "bool", "complex64", None]),
       values=st.lists(st.floats(allow_nan=False, width=64), max_size=20))
def test_lean_creation_is_its_python_form(device, shape, dtype, values) -> None:
    from usmarray import _creation, _migration

    d = None if dtype is None else getattr(xp, dtype)
    for lean, python in ((xp.zeros, _creation.zeros), (xp.empty, _creation.empty)):
        got, want = _outcome(lean, shape, dtype=d, device=device), _outcome(
            python, shape, dtype=d, device=device)
        if lean is xp.empty and got[0] == "ok":
            got, want = got[:3], want[:3]  # the values of empty are whatever was there
        assert got == want
    assert _outcome(xp.asarray, values, device=device) == _outcome(
        _migration.asarray, values, device=device)
    if values:
        assert _outcome(xp.asarray, values[0], device=device) == _outcome(
            _migration.asarray, values[0], device=device)
        for v in (values[0], values[-1] * 1e300):  # float32 overflows to inf
            assert _outcome(xp.full, shape, v, dtype=d, device=device) == _outcome(
                _creation.full, shape, v, dtype=d, device=device)
    assert _outcome(xp.ones, shape, dtype=d, device=device) == _outcome(
        _creation.ones, shape, dtype=d, device=device)


@pytest.mark.skipif(_form.FORM != "compiled", reason="the pure-Python form runs")
@pytest.mark.parametrize("device", DEVICES)
@given(s1=st.lists(st.integers(0, 3), max_size=4), s2=st.lists(st.integers(0, 3), max_size=4),
       dtype=st.sampled_from(["float32", "float64", "complex64", "int32"]))
def test_lean_matmul_is_its_python_form(device, s1, s2, dtype) -> None:
    from usmarray import _linalg_main

    d = getattr(xp, dtype)
    x = xp.asarray(np.arange(math.prod(s1), dtype=np.float64).reshape(s1) % 5, dtype=d,
                   device=device)
    y = xp.asarray(np.arange(math.prod(s2), dtype=np.float64).reshape(s2) % 3, dtype=d,
                   device=device)
    want = _outcome(_linalg_main.matmul, x, y)
    assert _outcome(xp.matmul, x, y) == want
    assert _outcome(operator.matmul, x, y) == want
