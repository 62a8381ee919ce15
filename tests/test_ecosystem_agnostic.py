"""The function of docs/backend-agnostic.md, run unchanged on four array libraries.

The test reads the code block that follows the ``agnostic-example`` marker in the
page and executes it, so the page shows exactly the code that is tested: usmarray on
the default SYCL device, usmarray on its NumPy backend, NumPy, and array-api-strict.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import numpy as np
import pytest

import usmarray as xp

pytest.importorskip("array_api_compat")
strict = pytest.importorskip("array_api_strict")

PAGE = Path(__file__).resolve().parent.parent / "docs" / "backend-agnostic.md"
MARKER = "<!-- agnostic-example"
SYCL = xp.__array_namespace_info__().default_device()


def _blocks() -> list[str]:
    text = PAGE.read_text()
    start = text.index(MARKER)
    return re.findall(r"```python\n(.*?)```", text[start:], re.S)


@pytest.fixture(scope="module")
def ridge_fit_score():
    ns: dict = {}
    exec(compile(_blocks()[0], str(PAGE), "exec"), ns)
    return ns["ridge_fit_score"]


RNG = np.random.default_rng(1)
X_NP = RNG.standard_normal((120, 4))
Y_NP = X_NP @ np.asarray([1.0, -2.0, 0.5, 3.0]) + 0.3 + 0.1 * RNG.standard_normal(120)


def _reference(alpha: float) -> tuple[np.ndarray, float, float]:
    """The same model from NumPy's least squares on an augmented system."""
    xm, ym = X_NP.mean(0), Y_NP.mean()
    xc, yc = X_NP - xm, Y_NP - ym
    aug_x = np.vstack([xc, np.sqrt(alpha) * np.eye(4)])
    aug_y = np.concatenate([yc, np.zeros(4)])
    w = np.linalg.lstsq(aug_x, aug_y, rcond=None)[0]
    b = ym - xm @ w
    r2 = 1 - np.sum((Y_NP - X_NP @ w - b) ** 2) / np.sum(yc**2)
    return w, b, r2


def _libraries():
    yield pytest.param(lambda a: xp.asarray(a), SYCL, xp, id="usmarray-sycl",
                       marks=pytest.mark.skipif(SYCL.backend != "sycl", reason="no SYCL device"))
    host = xp.Device.create_device("numpy")
    yield pytest.param(lambda a: xp.asarray(a, device=host), host, xp, id="usmarray-numpy-backend")
    yield pytest.param(lambda a: np.array(a, copy=True), "cpu", np, id="numpy")
    yield pytest.param(lambda a: strict.asarray(a), strict.asarray(0.0).device, strict,
                       id="array-api-strict")


@pytest.mark.parametrize("make, device, lib", list(_libraries()))
def test_same_function_on_four_libraries(ridge_fit_score, make, device, lib):
    X, y = make(X_NP), make(Y_NP)
    w, b, r2 = ridge_fit_score(X, y, alpha=0.5)
    for r in (w, b, r2):
        if lib is np and isinstance(r, np.generic):
            continue  # NumPy returns scalars from reductions, a known NumPy deviation
        assert type(r) is type(X), type(r)
        assert r.device == device
    w_ref, b_ref, r2_ref = _reference(0.5)
    np.testing.assert_allclose(np.asarray(_to_host(w)), w_ref, rtol=1e-10, atol=1e-12)
    assert float(b) == pytest.approx(b_ref, rel=1e-10, abs=1e-12)
    assert float(r2) == pytest.approx(r2_ref, rel=1e-12)


def _to_host(a):
    if isinstance(a, xp.usm_ndarray):
        return xp.asnumpy(a)
    if isinstance(a, np.ndarray):
        return a
    return np.asarray(a)


@pytest.mark.skipif(SYCL.backend != "sycl", reason="no SYCL device")
def test_float32_stays_float32_on_the_device(ridge_fit_score):
    X = xp.asarray(X_NP, dtype=xp.float32)
    y = xp.asarray(Y_NP, dtype=xp.float32)
    w, b, r2 = ridge_fit_score(X, y)
    assert w.dtype == b.dtype == r2.dtype == xp.float32
    assert w.device == SYCL
    np.testing.assert_allclose(xp.asnumpy(w), _reference(1.0)[0], rtol=1e-4, atol=1e-4)


def test_mixed_devices_are_refused(ridge_fit_score):
    """Compute follows data: the function never moves data behind the caller's back."""
    X = xp.asarray(X_NP, device="numpy")
    y = xp.asarray(Y_NP)
    if y.device == X.device:
        pytest.skip("one device only")
    with pytest.raises(xp.ExecutionPlacementError):
        ridge_fit_score(X, y)


def test_the_page_example_runs(ridge_fit_score):
    """The page's second block (the driver over four libraries) runs and agrees."""
    ns = {"ridge_fit_score": ridge_fit_score}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(_blocks()[1], str(PAGE), "exec"), ns)
    lines = out.getvalue().splitlines()
    assert len(lines) == 4, lines
    r2_values = {re.search(r"R² = (\S+)", line).group(1) for line in lines}
    assert len(r2_values) == 1, lines


# names of the namespace that are not API: import-time set-up helpers
NOT_API = {"configure_kernel_cache", "configure_opencl_icd"}


def test_api_reference_lists_every_public_name():
    """docs/api.md names its members explicitly (mkdocstrings skips imported names);
    a public name added to usmarray must be added there too."""
    import types

    page = (PAGE.parent / "api.md").read_text()
    listed = set(re.findall(r"^ {8}- (\S+)$", page, re.M))
    public = {
        n for n in dir(xp)
        if (not n.startswith("_") or n == "__array_namespace_info__")
        and not isinstance(getattr(xp, n), types.ModuleType)
    } - NOT_API
    assert public - listed == set(), "missing from docs/api.md"
    assert listed - public == set(), "listed in docs/api.md but not in usmarray"
    for sub in ("linalg", "fft"):
        assert f"::: usmarray.{sub}" in page
