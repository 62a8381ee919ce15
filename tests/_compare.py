"""Differential-testing helpers: run one call on array-api-strict and on usmarray and
compare values, dtypes and shapes, or check that both raise.

Inputs are generated as array-api-strict arrays (``xps``) and converted through
NumPy with :func:`to_u`.
"""

from __future__ import annotations

from typing import Any

import array_api_strict as xs
import numpy as np
import pytest
from array_api_strict._array_object import Array as StrictArray
from array_api_strict._dtypes import DType as StrictDType
from hypothesis import strategies as st
from hypothesis.extra.array_api import make_strategies_namespace

import usmarray as xu

xs.set_array_api_strict_flags(api_version="2025.12")
xps = make_strategies_namespace(xs, api_version="2025.12")

NAMES = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex64", "complex128",
)
_S2U = [(getattr(xs, n), getattr(xu, n)) for n in NAMES]
_ERRORS = (TypeError, IndexError, ValueError, OverflowError)


def u_dtype(sd: Any) -> Any:
    for s, u in _S2U:
        if s == sd:
            return u
    raise KeyError(sd)


def dtype_name(d: Any) -> str:
    for s, u in _S2U:
        if d is u or (isinstance(d, StrictDType) and d == s):
            return u.name
    raise KeyError(d)


def to_u(obj: Any) -> Any:
    """Strict arrays -> usmarray arrays (via NumPy), strict dtypes -> usmarray dtypes,
    tuples/lists element-wise; anything else unchanged."""
    if isinstance(obj, StrictArray):
        return xu.asarray(np.asarray(obj))
    if isinstance(obj, tuple):
        return tuple(to_u(o) for o in obj)
    if isinstance(obj, list):
        return [to_u(o) for o in obj]
    for s, u in _S2U:
        if type(obj) is type(s) and obj == s:
            return u
    return obj


def assert_same(u: Any, s: Any, *, close: bool = False, what: str = "out") -> None:
    if isinstance(s, tuple):
        assert isinstance(u, tuple), f"{what}: expected a tuple, got {type(u).__name__}"
        assert len(u) == len(s), f"{what}: {len(u)} results, expected {len(s)}"
        for i, (ui, si) in enumerate(zip(u, s, strict=True)):
            assert_same(ui, si, close=close, what=f"{what}[{i}]")
        return
    if isinstance(s, StrictDType):
        assert isinstance(u, xu.DType) and u.name == dtype_name(s), f"{what}: {u!r} != {s!r}"
        return
    if not isinstance(s, StrictArray):
        assert u == s, f"{what}: {u!r} != {s!r}"
        return
    assert type(u) is xu.usm_ndarray, f"{what}: got {type(u).__name__}"
    assert u.dtype.name == dtype_name(s.dtype), f"{what}: dtype {u.dtype} != {s.dtype}"
    assert u.shape == s.shape, f"{what}: shape {u.shape} != {s.shape}"
    a, b = xu.asnumpy(u), np.asarray(s)
    if close and a.dtype.kind in "fc":
        tol = 1e-4 if a.dtype in (np.float32, np.complex64) else 1e-10
        if a.dtype.kind == "c":
            # where either complex result has a NaN part, both need only be non-finite:
            # implementations differ there (1 / (z * z) gives inf + nan j for z ** -2 on
            # overflow where others give inf + 0j, and nan + nan j for 1 / 0j, an
            # infinity by C99 Annex G); every other element is compared as usual
            nan = np.isnan(a) | np.isnan(b)
            np.testing.assert_array_equal(~np.isfinite(a[nan]), ~np.isfinite(b[nan]),
                                          err_msg=f"{what}: non-finite complex results")
            a, b = np.where(nan, 0, a), np.where(nan, 0, b)
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(a, b, err_msg=what)


def raises_alike(fu: Any, es: BaseException, also: tuple = ()) -> None:
    """``fu()`` must raise an error of a kind strict's ``es`` also is (or of ``also``)."""
    kinds = tuple(k for k in _ERRORS if isinstance(es, k)) + also or (Exception,)
    with pytest.raises(Exception) as ei:
        fu()
    assert isinstance(ei.value, kinds), (
        f"usmarray raised {type(ei.value).__name__}: {ei.value}; array-api-strict raised "
        f"{type(es).__name__}: {es}"
    )


def both(name: str, *args: Any, close: bool = False, also: tuple = (), **kwargs: Any) -> Any:
    """Call ``name`` in both namespaces; compare results, or check both raise (an error
    of a kind strict's error is, or of a kind in ``also``)."""
    fs = getattr(xs, name)
    fu = getattr(xu, name)
    uargs, ukw = to_u(args), {k: to_u(v) for k, v in kwargs.items()}
    try:
        s = fs(*args, **kwargs)
    except Exception as es:  # noqa: BLE001 - any error strict raises, we must raise alike
        raises_alike(lambda: fu(*uargs, **ukw), es, also)
        return None
    u = fu(*uargs, **ukw)
    assert_same(u, s, close=close, what=name)
    return u


def _moderate_elements(d: Any) -> Any:
    """Finite elements of moderate size for dtype ``d`` (sums compare with tolerances)."""
    name = dtype_name(d)
    if name == "bool":
        return {}
    if name.startswith("uint"):
        return {"min_value": 0, "max_value": 100}
    if name.startswith("int"):
        return {"min_value": -100, "max_value": 100}
    if name.startswith("complex"):
        width = 64 if name == "complex64" else 128
        return st.complex_numbers(max_magnitude=100, allow_nan=False, allow_infinity=False,
                                  allow_subnormal=False, width=width)
    # no subnormals: NumPy itself loses them (sign(5e-324 + 0j) is nan + nan j there);
    # the official suite and the special-case tests cover them against the standard
    return {"min_value": -100, "max_value": 100, "allow_nan": False, "allow_infinity": False,
            "allow_subnormal": False}


def moderate_arrays(dtypes: Any, shape: Any) -> Any:
    """Arrays of a dtype from ``dtypes`` with finite, moderate elements."""
    return dtypes.flatmap(lambda d: xps.arrays(d, shape, elements=_moderate_elements(d)))
