"""What a newcomer from NumPy or PyTorch meets first: each mistake gets a message that
says what it was and what to write instead, and each message's advice works.

NumPy functions given a usmarray array warn (ImplicitConversionWarning) and compute on a
host view; explicit conversions stay silent.  Operands, attributes, names, dtypes,
indices and keywords of other libraries name the standard's spelling.  The diagnostic
command reports a bad setting; the docs' tables render and their quoted messages are the
real ones.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from test_reliability_common import device_params

import usmarray as xp
from usmarray import _backend

ROOT = Path(__file__).resolve().parent.parent
DEVICES = device_params("numpy", "cpu", "cuda:0")
HOST_DEVICES = device_params("numpy", "cpu")
needs_sycl = pytest.mark.skipif(_backend.sycl is None or not _backend.sycl.available(),
                                reason="needs a SYCL runtime and device")


def _values(device: str) -> tuple[np.ndarray, xp.usm_ndarray]:
    a = np.asarray([0.5, -1.25, 3.0])
    return a, xp.asarray(a, device=device, copy=True)


def _run(code: str, *args: str, **env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("CUBED_", "USMARRAY_"))}
    return subprocess.run([sys.executable, *args] if args else [sys.executable, "-c", code],
                          capture_output=True, text=True, timeout=300, env={**base, **env},
                          cwd=ROOT)


# ---- NumPy functions given a usmarray array ----------------------------------------------

@pytest.mark.parametrize("device", HOST_DEVICES)
@pytest.mark.parametrize("call, reference, names", [
    (lambda x: np.sin(x), np.sin, "call xp.sin(...)"),
    (lambda x: np.mean(x), np.mean, "call xp.mean(...)"),
    (lambda x: np.sum(x), np.sum, "call xp.sum(...)"),
    (lambda x: np.add(x, 1.0), lambda a: np.add(a, 1.0), "call xp.add(...)"),
    (lambda x: np.concatenate([x, x]), lambda a: np.concatenate([a, a]), "xp.concat"),
    (lambda x: np.power(x, 2), lambda a: np.power(a, 2), "xp.pow"),
    (lambda x: np.linalg.norm(x), np.linalg.norm, "xp.linalg.vector_norm"),
    (lambda x: np.fft.fft(x), np.fft.fft, "call xp.fft.fft(...)"),
    (lambda x: np.median(x), np.median, "The array API standard has no median"),
])
def test_numpy_functions_warn_and_name_the_namespace_function(device, call, reference,
                                                              names) -> None:
    a, x = _values(device)
    with pytest.warns(xp.ImplicitConversionWarning) as rec:
        got = call(x)
    assert len(rec) == 1 and rec[0].filename == __file__  # once, at the caller's line
    msg = str(rec[0].message)
    assert names in msg and "np.asarray(x)" in msg and "usmarray.asnumpy(x)" in msg
    assert type(got) is not xp.usm_ndarray
    np.testing.assert_allclose(got, reference(a), rtol=1e-15)


@pytest.mark.parametrize("device", HOST_DEVICES)
def test_the_implicit_conversion_can_be_an_error(device) -> None:
    a, x = _values(device)
    with warnings.catch_warnings():
        warnings.simplefilter("error", xp.ImplicitConversionWarning)
        with pytest.raises(xp.ImplicitConversionWarning, match=r"numpy\.sin\(\) converted"):
            np.sin(x)
    with pytest.warns(xp.ImplicitConversionWarning, match=r"^A NumPy ufunc converted a "
                                                          r"usm_ndarray .*np\.asarray\(x\)"):
        got = np.add.reduce(x)  # a ufunc method: NumPy does not say which
    assert got == np.add.reduce(a)


@pytest.mark.parametrize("device", HOST_DEVICES)
def test_explicit_conversions_and_metadata_stay_silent(device) -> None:
    a, x = _values(device)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        view, copy = np.asarray(x), np.asarray(x, copy=True)
        got = [np.array(x), np.from_dlpack(x, device="cpu"), view, copy]
        assert np.shape(x) == (3,) and np.ndim(x) == 1 and np.size(x) == 3
    for g in got:
        np.testing.assert_array_equal(g, a)
    x[0] = 7.0
    assert view[0] == 7.0 and copy[0] == a[0]  # np.asarray(x) is a view, copy=True a copy


@pytest.mark.parametrize("device", DEVICES)
def test_operators_with_numpy_operands_are_the_arrays_own(device) -> None:
    a, x = _values(device)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for op in (lambda: np.ones(3) + x, lambda: np.ones(3) < x, lambda: np.ones(3) == x):
            with pytest.raises(TypeError, match=r"unsupported operand of type numpy\.ndarray; "
                                                r".*convert NumPy arrays with usmarray\.asarray"):
                op()
        for got, want in ((np.float64(2.0) * x, 2.0 * a), (np.float32(0.5) < x, 0.5 < a),
                          (np.float64(3.0) == x, a == 3.0), (np.int64(2) ** x, 2 ** a)):
            assert type(got) is xp.usm_ndarray and got.device == x.device
            # a power is the device's math library's (CUDA's pow is within 1 ulp)
            np.testing.assert_allclose(xp.asnumpy(got), want, rtol=1e-15, atol=0)


@pytest.mark.parametrize("device", device_params("cuda:0"))
def test_numpy_functions_refuse_memory_the_host_cannot_read(device) -> None:
    _, x = _values(device)
    for call in (np.sin, np.mean, np.asarray):
        with pytest.raises(TypeError, match=r"host cannot read; use usmarray\.asnumpy\(x\)"):
            call(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.shape(x) == (3,) and np.ndim(x) == 1 and np.size(x) == 3  # metadata only


# ---- operands that are not arrays of the namespace ----------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("call, kind", [
    (lambda x, n: xp.add(n, x), "an operand is a NumPy array (numpy.ndarray)"),
    (lambda x, n: xp.maximum(x, n), "an operand is a NumPy array (numpy.ndarray)"),
    (lambda x, n: xp.add(x, n if type(n) is xp.usm_ndarray else n.tolist()),
     "an operand is a Python list"),
    (lambda x, n: xp.where(x > 0, n, x), "an operand is a NumPy array (numpy.ndarray)"),
    (lambda x, n: xp.clip(x, n), "min is a NumPy array (numpy.ndarray)"),
    (lambda x, n: x.__setitem__(slice(None), n), "the value is a NumPy array"),
])
def test_a_numpy_operand_is_named_with_the_conversion_to_write(device, call, kind) -> None:
    a, x = _values(device)
    n = np.ones(3)
    with pytest.raises(TypeError) as info:
        call(x, n)
    msg = str(info.value)
    assert kind in msg and "Python ndarray" not in msg
    assert "usmarray.asarray(a, device=x.device)" in msg
    fixed = call(x, xp.asarray(n, device=x.device))  # the advice works
    if fixed is not None:
        assert fixed.device == x.device


@pytest.mark.parametrize("device", HOST_DEVICES)
def test_other_operands_say_what_they_are(device) -> None:
    _, x = _values(device)
    with pytest.raises(TypeError, match=r"^add: an operand is of type str; it must be a "
                                        r"usm_ndarray or a Python bool, int, float or complex$"):
        xp.add(x, "1")


# ---- attributes ------------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name, says", [
    ("to", "use x.to_device(device)"), ("values", "use x itself"),
    ("cpu", "x.to_device(...) or xp.asnumpy(x)"), ("unsqueeze", "xp.expand_dims(x, axis=...)"),
    ("exp", "use xp.exp(x), with xp = x.__array_namespace__()"),
    ("foo", "array attributes are device, dtype, mT, ndim, shape, size and T, and its "
            "method to_device(device)"),
])
def test_missing_array_attributes_name_the_standards_way(device, name, says) -> None:
    _, x = _values(device)
    assert not hasattr(x, name)
    with pytest.raises(AttributeError) as info:
        getattr(x, name)
    msg = str(info.value)
    assert msg.startswith(f"'usm_ndarray' object has no attribute {name!r}") and says in msg
    assert "backend" not in msg  # no other backend has it


@pytest.mark.parametrize("device", DEVICES)
def test_backend_only_attributes_name_the_backend_that_has_them(device) -> None:
    _, x = _values(device)
    backend = x.device.backend
    for name, family, owner in (("sycl_queue", "SYCL", "sycl"), ("usm_data", "SYCL", "sycl"),
                                ("__cuda_array_interface__", "CUDA", "cuda")):
        if backend == owner:
            assert getattr(x, name) is not None
            continue
        with pytest.raises(AttributeError, match=f"exists for arrays on {family} devices only, "
                                                 f"and this array is on the '{backend}' backend"):
            getattr(x, name)


def test_a_missing_attribute_builds_its_message_only_when_read() -> None:
    x = xp.ones(2, device="numpy")
    try:
        x.foo  # noqa: B018
    except AttributeError as exc:
        err = exc
    assert err._msg is None  # type: ignore[attr-defined]
    assert "to_device(device)" in str(err) and err.name == "foo"


# ---- names of the namespace --------------------------------------------------------------

@pytest.mark.parametrize("expr, says, not_says", [
    ("xp.tensor", "the array API standard's name is asarray", "tensordot"),
    ("xp.float16", "the array API standard has no float16; use float32", "float64"),
    ("xp.bfloat16", "has no bfloat16; use float32", "float64"),
    ("xp.float128", "has no float128; use float64", "float32"),
    ("xp.median", "has no median", "mean"),
    ("xp.average", "has no average; use xp.mean(x)", "arange"),
    ("xp.unsqueeze", "name is expand_dims", "squeeze?"),
    ("xp.bitwise_not", "name is bitwise_invert", "bitwise_or"),
    ("xp.ifft", "name is fft.ifft", "diff"),
    ("xp.lstsq", "has no linalg.lstsq", "did you mean"),
    ("xp.shape", "use x.shape", "reshape"),
    ("xp.diag", "xp.linalg.diagonal(x)", "imag"),
    ("xp.sinc", "has no sinc", "did you mean"),
])
def test_names_of_other_libraries_get_no_misleading_close_match(expr, says, not_says) -> None:
    with pytest.raises(AttributeError) as info:
        eval(expr)
    msg = str(info.value)
    assert says in msg and not_says not in msg


@pytest.mark.parametrize("name", [
    "double", "single", "cdouble", "csingle", "intp", "uintp", "uint", "byte", "ubyte",
    "short", "ushort", "intc", "uintc", "long", "ulong", "longlong", "ulonglong",
])
def test_numpys_c_type_names_name_the_standard_dtype_of_the_same_size(name) -> None:
    if not hasattr(np, name):
        pytest.skip(f"this NumPy has no {name}")
    with pytest.raises(AttributeError, match="the array API standard's name is ") as info:
        getattr(xp, name)
    meant = str(info.value).rsplit(" ", 1)[1]
    assert np.dtype(getattr(xp, meant)) == np.dtype(getattr(np, name))


# not "random": once usmarray.random is imported (the tests of docs/random.md import
# it), usmarray.random is that module (tests/test_random.py checks the hint without it)
_OTHER_LIBRARIES = (
    "concatenate transpose power absolute arccos arctan2 amax amin cumsum unique array "
    "asanyarray dot outer einsum ravel copy vstack hstack dstack column_stack split "
    "isclose allclose rand randn tensor from_numpy cat mm bmm unsqueeze numel float16 "
    "float128 bfloat16 int_ float_ bool_ intp uint long short double cfloat dtype ndarray "
    "median percentile average nansum nanmax argwhere flatnonzero around rint exp2 "
    "deg2rad fmax fmin fliplr flipud diag diagonal trace identity inner kron det inv solve "
    "svd eigh lstsq norm ifft rfft sinc isreal iscomplex bitwise_not logspace geomspace "
    "array_equal shape size ndim apply_along_axis cov"
).split()


def _resolves(path: str) -> bool:
    obj: object = xp
    for part in path.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            return False
    return True


@pytest.mark.parametrize("name", _OTHER_LIBRARIES)
def test_every_hint_for_another_librarys_name_names_what_exists(name) -> None:
    """The survey of NumPy and PyTorch names: a NumPy name gets no guess from spelling,
    and every namespace name a hint mentions exists."""
    with pytest.raises(AttributeError) as info:
        getattr(xp, name)
    msg = str(info.value)
    if name in dir(np):
        assert "did you mean" not in msg
    named = re.findall(r"the array API standard's name is ([\w.]+)", msg)
    named += re.findall(r"\bxp\.([\w.]+)", msg)
    named += re.findall(r"did you mean ([\w ]+)\?", msg)
    for n in named:
        for one in n.split(" or "):
            assert _resolves(one.removesuffix(".")), f"{name}: the hint names {one}: {msg}"
    assert "use draw" not in msg


def test_a_dtype_called_as_a_scalar_type_names_asarray() -> None:
    with pytest.raises(TypeError, match=r"^usmarray\.int32 is a dtype, not a scalar type .*"
                                        r"write xp\.asarray\(5, dtype=xp\.int32\)"):
        xp.int32(5)
    with pytest.raises(TypeError, match=r"xp\.asarray\(value, dtype=xp\.float32\)"):
        xp.float32()
    got = xp.asarray(5, dtype=xp.int32, device="numpy")  # the advice works
    assert got.dtype == xp.int32 and got.ndim == 0 and int(got) == 5


# ---- indices -------------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
def test_a_list_index_names_the_index_array_to_write(device) -> None:
    a = np.arange(9.0).reshape(3, 3)
    x = xp.asarray(a, device=device)
    with pytest.raises(IndexError, match=re.escape(
            "index [0, 2] of type list is not allowed by the array API standard; index with "
            "an integer array instead: x[xp.asarray([0, 2], device=x.device)]")):
        x[[0, 2]]
    with pytest.raises(IndexError, match=re.escape(
            "index [True, False, True] of type list is not allowed by the array API "
            "standard; index with a boolean array instead: x[xp.asarray([True, False, True], "
            "device=x.device)]")):
        x[[True, False, True]]
    with pytest.raises(IndexError, match="of type list"):
        x[[0, 2]] = 1.0
    with pytest.raises(IndexError, match=re.escape(
            "index [0, 2] of type list is not allowed by the array API standard; index with "
            "an integer array instead: xp.asarray([0, 2], device=x.device) in its place")):
        x[1, [0, 2]]
    with pytest.raises(IndexError, match=r"numpy\.ndarray .* instead: "
                                         r"x\[xp\.asarray\(index, device=x\.device\)\]"):
        x[np.asarray([0, 1])]
    with pytest.raises(IndexError, match=r"use ints, slices, \.\.\., None, an integer array"):
        x[1.5]
    got = x[xp.asarray([0, 2], device=x.device)]  # the advice works
    np.testing.assert_array_equal(xp.asnumpy(got), a[[0, 2]])
    got = x[xp.asarray([True, False, True], device=x.device)]
    np.testing.assert_array_equal(xp.asnumpy(got), a[[True, False, True]])
    got = x[1, xp.asarray([0, 2], device=x.device)]
    np.testing.assert_array_equal(xp.asnumpy(got), a[1, [0, 2]])


# ---- keywords ------------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
def test_numpy_sort_and_linspace_keywords_name_the_standards_spelling(device) -> None:
    a = np.asarray([3.0, 1.0, 2.0, 1.0])
    x = xp.asarray(a, device=device)
    for f in (xp.sort, xp.argsort):
        with pytest.raises(TypeError, match=r"unexpected keyword argument 'kind': the "
                                            r"standard's spelling is stable=True"):
            f(x, kind="stable")
    np.testing.assert_array_equal(xp.asnumpy(xp.argsort(x, stable=True)),
                                  np.argsort(a, kind="stable"))
    with pytest.raises(TypeError, match=r"'retstep': the standard has no retstep=; compute "
                                        r"the step yourself: \(stop - start\) / \(num - 1\)"):
        xp.linspace(0.0, 2.0, 5, retstep=True, device=device)
    want, step = np.linspace(0.0, 2.0, 5, retstep=True)
    np.testing.assert_array_equal(xp.asnumpy(xp.linspace(0.0, 2.0, 5, device=device)), want)
    assert (2.0 - 0.0) / (5 - 1) == step


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("call, says", [
    (lambda x, m: xp.zeros(3, order="F", device=x.device), "the standard has no order="),
    (lambda x, m: xp.max(x, initial=0.0), "xp.maximum(xp.max(x), initial)"),
    (lambda x, m: xp.sum(x, where=x > 0), "xp.sum(xp.where(mask, x, 0))"),
    (lambda x, m: xp.round(x, decimals=2), "xp.round(x * 10**d) / 10**d"),
    (lambda x, m: xp.unique_values(x, return_counts=True), "xp.unique_counts(x)"),
    (lambda x, m: xp.std(x, unbiased=True), "correction=1 (unbiased=True)"),
    (lambda x, m: xp.astype(x, xp.int32, casting="safe"), "xp.can_cast(x.dtype, dtype)"),
    (lambda x, m: xp.asarray([1.0], ndmin=2, device=x.device), "xp.expand_dims"),
    (lambda x, m: xp.linalg.svd(m, compute_uv=False), "xp.linalg.svdvals(x)"),
    (lambda x, m: xp.linalg.pinv(m, rcond=1e-3), "the standard's name for it is rtol="),
])
def test_other_numpy_keywords_name_what_to_write(device, call, says) -> None:
    x = xp.asarray([3.0, 1.0, 2.0], device=device)
    m = xp.asarray([[2.0, 1.0], [1.0, 3.0]], device=device)
    with pytest.raises(TypeError, match="got an unexpected keyword argument") as info:
        call(x, m)
    assert says in str(info.value)


def test_keyword_hints_without_a_sycl_runtime() -> None:
    """Where no backend serializes calls, the hinted wrappers give the same messages,
    the unwrapped elementwise ``round`` included."""
    code = ("import usmarray as xp\n"
            "x = xp.asarray([1.5, 2.0])\n"
            "for f in (lambda: xp.round(x, decimals=1), lambda: xp.sort(x, kind='stable'),\n"
            "          lambda: xp.unique_values(x, return_counts=True)):\n"
            "    try:\n"
            "        f()\n"
            "    except TypeError as exc:\n"
            "        print(exc)\n")
    r = _run("import conftest\n" + code, USMARRAY_TEST_WITHOUT_SYCL="1",
             PYTHONPATH=str(ROOT / "tests"))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 3, r.stdout
    assert "xp.round(x * 10**d) / 10**d" in lines[0]
    assert "stable=True" in lines[1] and "xp.unique_counts(x)" in lines[2]


# ---- cubed, the diagnostic command and the environment ----------------------------------

@pytest.mark.parametrize("first", ["import cubed", "import usmarray, cubed"])
def test_cubed_on_the_strict_namespace_names_usmarray_cubed(first) -> None:
    pytest.importorskip("cubed")
    r = _run(f"{first}\nimport cubed.array_api as ca\n"
             "ca.ones((4, 4), chunks=2).compute()\n",
             CUBED_BACKEND_ARRAY_API_MODULE="usmarray", USMARRAY_DEFAULT_DEVICE="numpy")
    assert r.returncode != 0
    assert "RuntimeWarning: CUBED_BACKEND_ARRAY_API_MODULE='usmarray' makes cubed run" in r.stderr
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("TypeError: dtype=dtype('float64') is not a dtype")
    assert "set CUBED_BACKEND_ARRAY_API_MODULE=usmarray.cubed" in last
    ok = _run(f"{first}\nimport cubed.array_api as ca\n"
              "print(float(ca.sum(ca.ones((4, 4), chunks=2)).compute()))\n",
              CUBED_BACKEND_ARRAY_API_MODULE="usmarray.cubed", USMARRAY_DEFAULT_DEVICE="numpy")
    assert ok.returncode == 0 and ok.stdout.strip() == "16.0", ok.stderr


def test_python_m_usmarray_reports_a_bad_default_device_setting() -> None:
    r = _run("", "-m", "usmarray", USMARRAY_DEFAULT_DEVICE="bogus")
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and "devices:" in r.stdout
    (line,) = r.stderr.strip().splitlines()
    assert line.startswith("python -m usmarray: the environment variable "
                           "USMARRAY_DEFAULT_DEVICE='bogus' is not valid: it accepts a device "
                           "found here, or unset")
    assert "available devices:" in line and "numpy: ['numpy']" in line


def test_a_bad_default_device_setting_fails_at_first_use_not_at_import() -> None:
    code = ("import usmarray as xp\n"
            "print(xp.ones(2, device='numpy').shape)\n"
            "try:\n"
            "    xp.ones(2)\n"
            "except ValueError as exc:\n"
            "    print(type(exc).__name__, '|', exc)\n")
    r = _run(code, USMARRAY_DEFAULT_DEVICE="bogus")
    assert r.returncode == 0, r.stderr
    shape, error = r.stdout.strip().splitlines()
    assert shape == "(2,)"
    assert error.startswith("EnvironmentSettingError | the environment variable "
                            "USMARRAY_DEFAULT_DEVICE='bogus' is not valid")
    assert "available devices:" in error


# ---- the docs ------------------------------------------------------------------------------

def _pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_every_table_of_the_docs_renders_as_a_table() -> None:
    """Rendered as the site renders it (mkdocs.yml's Markdown extensions), no table row
    is left as a paragraph of text with literal pipes."""
    markdown = pytest.importorskip("markdown")
    config = (ROOT / "mkdocs.yml").read_text()
    section = config.split("markdown_extensions:", 1)[1].split("\n\n", 1)[0]
    extensions = re.findall(r"^\s+- (\w+)", section, flags=re.M)
    assert "tables" in extensions
    bad = []
    for page in _pages():
        html = markdown.markdown(page.read_text(), extensions=extensions)
        bad += [f"{page.name}: {p[:60]}" for p in re.findall(r"<p>\|[^\n]*", html)]
    assert not bad, bad


def _block(page: str, containing: str) -> str:
    from test_docs import blocks

    (code,) = [b.code for b in blocks(ROOT / "docs" / page)
               if b.lang == "python" and containing in b.code]
    return code


@needs_sycl
def test_the_fusion_pages_logging_snippet_prints_the_fallback() -> None:
    code = _block("fusion.md", "logging")
    r = _run("import usmarray as xp\nx = xp.linspace(0, 1, 1000, device='cpu')\n" + code)
    assert r.returncode == 0, r.stderr
    assert "DEBUG:usmarray.fuse:" in r.stderr and "it runs unfused" in r.stderr


@needs_sycl
def test_the_numpy_message_the_interop_page_quotes_is_numpys() -> None:
    code = _block("interop.md", "np.from_dlpack(x)")
    (line,) = [ln for ln in code.splitlines() if ln.startswith("np.from_dlpack(x) ")]
    kind, quoted = line.split("#", 1)[1].strip().split(": ", 1)
    x = xp.arange(6.0, device="cpu")
    with pytest.raises(Exception) as info:  # noqa: B017 - the type is compared below
        np.from_dlpack(x)
    assert type(info.value).__name__ == kind and str(info.value) == quoted
