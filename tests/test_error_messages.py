"""Error messages name the fix (the standard's name, keyword or form to use instead),
and nothing falls back silently."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

import usmarray as xp
from usmarray import _backend

DEVICES = ["numpy"] + (["cpu"] if _backend.sycl is not None else [])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("method, fix", [
    ("mean", "xp.mean(x)"), ("astype", "xp.astype(x, dtype)"), ("numpy", "xp.asnumpy(x)"),
    ("sum", "xp.sum(x)"), ("reshape", "xp.reshape(x, shape)"), ("tolist", "xp.asnumpy(x)"),
])
def test_numpy_methods_name_the_namespace_function(device: str, method: str, fix: str) -> None:
    x = xp.ones(3, device=device)
    with pytest.raises(AttributeError) as info:
        getattr(x, method)
    msg = str(info.value)
    assert fix in msg and "no such array method" in msg
    assert "backend" not in msg  # the old, wrong hint


@pytest.mark.parametrize("expr, standard", [
    ("xp.concatenate", "concat"), ("xp.unique", "unique_values"), ("xp.unique", "unique_all"),
    ("xp.transpose", "permute_dims"), ("xp.transpose", "matrix_transpose"),
    ("xp.power", "pow"), ("xp.linalg.norm", "vector_norm"), ("xp.linalg.norm", "matrix_norm"),
    ("xp.arccos", "acos"),
])
def test_missing_names_suggest_the_standards_name(expr: str, standard: str) -> None:
    with pytest.raises(AttributeError, match=f"the array API standard's name is .*{standard}"):
        eval(expr)


@pytest.mark.parametrize("expr, instead", [
    ("xp.randn", "usmarray.random.default_rng(seed)"), ("xp.isclose", "xp.abs(a - b) <= atol"),
    ("xp.ravel", "xp.reshape(x, (-1,))"), ("xp.linalg.lstsq", "xp.linalg.pinv"),
])
def test_names_without_a_counterpart_say_what_to_write(expr: str, instead: str) -> None:
    with pytest.raises(AttributeError, match=r"the array API standard has no \w+; use .*"
                                             + re.escape(instead)):
        eval(expr)


def test_misspelled_names_suggest_close_matches_and_hasattr_stays_false() -> None:
    with pytest.raises(AttributeError, match="did you mean sin"):
        xp.sine  # noqa: B018
    with pytest.raises(AttributeError, match="did you mean fft"):
        xp.fft.fftt  # noqa: B018
    assert not hasattr(xp, "concatenate") and not hasattr(xp.linalg, "norm")


def test_a_missing_name_builds_its_message_only_when_read() -> None:
    """hasattr/getattr probes (libraries make them every call) skip the close-match
    search; the message, its args, a copy and a pickle all read the same."""
    import copy
    import pickle

    try:
        xp.arnage  # noqa: B018
    except AttributeError as exc:
        err = exc
    assert err._msg is None  # type: ignore[attr-defined]
    want = "module 'usmarray' has no attribute 'arnage'; did you mean arange?"
    assert str(err) == want and err.args == (want,) and err.name == "arnage"
    for other in (copy.copy(err), pickle.loads(pickle.dumps(err))):
        assert type(other) is AttributeError and str(other) == want
    assert getattr(xp.fft, "no_such_transform", None) is None


@pytest.mark.parametrize("device", DEVICES)
def test_keyword_only_arguments_passed_by_position_say_so(device: str) -> None:
    x = xp.ones((2, 3), device=device)
    with pytest.raises(TypeError, match=r"axis, dtype, keepdims keyword-only; write "
                                        r"sum\(x, axis=0\)"):
        xp.sum(x, 0)
    with pytest.raises(TypeError, match=r"write argsort\(x, axis=1\)"):
        xp.argsort(x, 1)
    with pytest.raises(TypeError, match=r"write std\(x, axis=0, \.\.\.\)"):
        xp.std(x, 0, 1)  # NumPy's third is dtype: no guess at what it meant
    with pytest.raises(TypeError, match=r"write diff\(x, n=2\)"):  # NumPy's order: n first
        xp.diff(x, 2)
    with pytest.raises(TypeError, match=r"write concat\(arrays, axis=1\)"):
        xp.concat([x, x], 1)
    with pytest.raises(TypeError, match=r"write astype\(x, dtype, copy=False\)"):
        xp.astype(x, xp.float32, False)
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        xp.add(x)  # other TypeErrors are left as they are


@pytest.mark.parametrize("device", DEVICES)
def test_numpy_keywords_and_forms_name_the_standards(device: str) -> None:
    x = xp.ones((2, 3), device=device)
    with pytest.raises(TypeError, match=r"'ddof': the standard's name for it is correction="):
        xp.std(x, ddof=1)
    with pytest.raises(TypeError, match=r"'reverse': the standard's name for it is descending="):
        xp.sort(x, reverse=True)
    with pytest.raises(TypeError, match=r"'dim': the standard's name for it is axis="):
        xp.sum(x, dim=0)
    with pytest.raises(TypeError, match=r"has no out= argument; assign the result"):
        xp.sum(x, out=x)
    with pytest.raises(TypeError, match=r"use xp\.nonzero\(condition\)"):
        xp.where(x > 0)
    with pytest.raises(TypeError, match=r"^sum\(\) got an unexpected keyword argument 'foo'$"):
        xp.sum(x, foo=1)  # no guess where there is nothing to say
    with pytest.raises(TypeError, match=r"axis must be an int, a tuple of ints or None, got "
                                        r"list; write axis=\(0, 1\)"):
        xp.sum(x, axis=[0, 1])
    with pytest.raises(TypeError, match=r"shape must be a tuple of ints, got list; write "
                                        r"shape=\(3, 2\)"):
        xp.reshape(x, [3, 2])


@pytest.mark.parametrize("given, meant", [
    ("'float32'", "float32"), ("numpy.float32", "float32"), ("numpy.dtype('int8')", "int8"),
    ("float", "float64"), ("int", "int64"), ("bool", "bool"), ("complex", "complex128"),
])
def test_a_dtype_of_another_spelling_names_the_standard_one(given: str, meant: str) -> None:
    with pytest.raises(TypeError, match=f"is not a dtype of the array API standard; use "
                                        f"usmarray\\.{meant} \\(or another of"):
        xp.zeros(2, dtype=eval(given, {"numpy": np}), device="numpy")
    with pytest.raises(TypeError, match=r"not a dtype of the array API standard; use one of"):
        xp.zeros(2, dtype="float16", device="numpy")  # no standard counterpart: the list


@pytest.mark.parametrize("device", DEVICES)
def test_broadcasting_errors_name_the_operation_and_both_shapes(device: str) -> None:
    a, b = xp.ones(3, device=device), xp.ones(4, device=device)
    with pytest.raises(ValueError, match=r"^add: shapes \(3,\) and \(4,\) cannot be broadcast "
                                         r"together: dimension -1 is 3 in one and 4"):
        a + b
    with pytest.raises(ValueError, match=r"^where: shapes \(3,\) and \(3,\) and \(4,\) cannot be "):
        xp.where(a > 0, a, b)


@pytest.mark.parametrize("device", DEVICES)
def test_writing_into_read_only_arrays_says_why_and_what_to_do(device: str) -> None:
    b = xp.broadcast_to(xp.ones(2, device=device), (3, 2))
    for write in (lambda: b.__setitem__(0, 1.0), lambda: b.__iadd__(1.0),
                  lambda: b[1:].__setitem__(0, 2.0)):
        with pytest.raises(ValueError, match=r"read-only, as it is a broadcast view .*"
                                             r"xp\.asarray\(x, copy=True\)"):
            write()
    host = np.ones(3)
    host.flags.writeable = False
    r = xp.from_dlpack(host)
    with pytest.raises(ValueError, match=r"imported read-only .* xp\.asarray\(x, copy=True\)"):
        r[0] = 5.0


def test_unknown_device_strings_list_every_backends_devices_and_why_cuda_is_absent() -> None:
    if _backend.sycl is None:
        pytest.skip("the SYCL backend words this message")
    with pytest.raises(ValueError) as info:
        xp.asarray(1.0, device="cuda:0" if _backend.cuda is None else "nosuchdevice")
    msg = str(info.value)
    assert "available devices: sycl: [" in msg and "numpy: ['numpy']" in msg
    if _backend.cuda is None:
        assert msg.startswith(f"device 'cuda:0': the cuda backend is not available here: "
                              f"{_backend.ABSENT['cuda']}; nor does a SYCL device match")
        assert msg.count(_backend.ABSENT["cuda"]) == 1
    with pytest.raises(ValueError, match=r"^device 'gpux' names no backend and no available "
                                         r"SYCL device .*available devices: sycl: \["):
        xp.asarray(1.0, device="gpux")


def test_numpy_backend_warns_only_for_what_the_standard_leaves_unspecified() -> None:
    x = xp.asarray([0.0, 1.0, -1.0], device="numpy")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"usmarray\._backend")
        y = (x / 0.0, xp.log(x), xp.sqrt(x), xp.mean(x[:0]), xp.var(x, correction=5))
    assert np.isnan(float(y[3])) and np.isnan(float(y[4]))
    for bad in (float("nan"), float("inf"), 1e300):
        with pytest.warns(RuntimeWarning, match="NaN, infinity or a value outside the range "
                                                "of int32 cast to int32") as rec:
            xp.astype(xp.asarray([1.0, bad], device="numpy"), xp.int32)
        assert rec[0].filename == __file__  # the user's line, not usmarray's internals
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert xp.asnumpy(xp.astype(xp.asarray([-2.5, 7.9], device="numpy"), xp.int8)).tolist() \
            == [-2, 7]


def _run(code: str, **env: str) -> subprocess.CompletedProcess:
    # a fresh user's environment: no cubed settings left by other tests of this process
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("CUBED_", "USMARRAY_CUBED_", "USMARRAY_UNPICKLE"))}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env={**base, **env})


@pytest.mark.skipif(_backend.sycl is None, reason="needs an installed SYCL runtime")
def test_a_sycl_runtime_without_devices_warns_once_naming_the_cause() -> None:
    r = _run("import usmarray as xp; xp.ones(2); xp.ones(3); print(xp.ones(2).device)",
             OCL_ICD_FILENAMES="/nonexistent/libOpenCL-broken.so")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "Device(numpy)"
    assert r.stderr.count("RuntimeWarning: usmarray: no SYCL device") == 1
    assert "OCL_ICD_FILENAMES='/nonexistent/libOpenCL-broken.so' names a file" in r.stderr
    m = subprocess.run([sys.executable, "-m", "usmarray"], capture_output=True, text=True,
                       timeout=300, env={**os.environ,
                                         "OCL_ICD_FILENAMES": "/nonexistent/x.so"})
    assert "backend sycl: unavailable: OCL_ICD_FILENAMES='/nonexistent/x.so'" in m.stdout


def test_setting_the_cubed_backend_after_importing_cubed_is_reported() -> None:
    pytest.importorskip("cubed")
    r = _run("import os, cubed.backend_array_api\n"
             "os.environ['CUBED_BACKEND_ARRAY_API_MODULE'] = 'usmarray.cubed'\n"
             "import usmarray\n")
    assert "was set after cubed was imported" in r.stderr
    ok = _run("import usmarray, cubed.backend_array_api as b; print(b.xp_name)",
              CUBED_BACKEND_ARRAY_API_MODULE="usmarray.cubed")
    assert ok.stdout.strip() == "usmarray.cubed" and "was set after" not in ok.stderr


def test_python_m_usmarray_tells_the_truth_about_compilation() -> None:
    r = subprocess.run([sys.executable, "-m", "usmarray"], capture_output=True, text=True,
                       timeout=300, env={**os.environ, "USMARRAY_DEFAULT_DEVICE": "numpy"})
    assert r.returncode == 0, r.stderr
    assert "JIT" not in r.stdout and "compil" not in r.stdout  # NumPy compiles nothing
    h = subprocess.run([sys.executable, "-m", "usmarray", "--help"], capture_output=True,
                       text=True, timeout=120)
    assert h.stdout.startswith("usage: python -m usmarray") and "sieve" not in h.stdout


def test_with_usmarray_cubed_a_sub_device_array_unpickles_elsewhere_without_a_warning() -> None:
    pytest.importorskip("cubed")
    code = ("import warnings\n"
            "warnings.simplefilter('always')  # every warning shows, unless filtered later\n"
            "import usmarray as xp\n"
            "from usmarray._device import _restore_device\n"
            "for step in ('before', 'after'):\n"
            "    if step == 'after':\n"
            "        import usmarray.cubed\n"
            "    for text in ('sub-device of opencl:cpu:0: AMD EPYC', 'level_zero:gpu:97'):\n"
            "        with warnings.catch_warnings(record=True) as w:\n"
            "            dev = _restore_device('sycl', text)\n"
            "        print(step, len(w), dev == xp.asarray(0).device)\n")
    r = _run(code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["before", "1", "True", "before", "1", "True",
                                "after", "0", "True", "after", "1", "True"]


def test_a_name_of_a_later_version_says_which_version_added_it() -> None:
    r = _run("import usmarray as xp\ntry:\n    xp.isin\nexcept AttributeError as e:\n"
             "    print(e)\n", USMARRAY_API_VERSION="2024.12")
    assert "added it in version 2025.12" in r.stdout, r.stderr
    assert "follows 2024.12 (USMARRAY_API_VERSION)" in r.stdout


_BLOCK_DPCTL = """
import importlib.abc, sys, warnings
warnings.simplefilter("always")
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in ("dpctl", "dpnp"):
            raise {exc}
sys.meta_path.insert(0, Block())
import usmarray as xp
from usmarray import _backend
print(xp.ones(2).device, "|", _backend.absent().get("sycl"))
"""


@pytest.mark.parametrize("exc, warned, reason", [
    ('OSError("libsycl.so.8: cannot open shared object file")', True,
     "the SYCL runtime failed to load: OSError('libsycl.so.8: cannot open shared object"),
    ('ImportError("undefined symbol: _ZN4sycl3_V15queue")', True,
     "the SYCL runtime failed to load: ImportError('undefined symbol"),
    ('ModuleNotFoundError("No module named dpctl", name="dpctl")', False,
     "dpctl/dpnp is not installed"),
])
def test_a_sycl_runtime_that_fails_to_load_is_named(exc: str, warned: bool, reason: str) -> None:
    r = _run(_BLOCK_DPCTL.format(exc=exc))
    assert r.returncode == 0, r.stderr
    device, why = (part.strip() for part in r.stdout.split("|"))
    assert device == "Device(numpy)" and why.startswith(reason)
    assert ("RuntimeWarning: usmarray: no SYCL backend" in r.stderr) is warned


def test_unknown_device_strings_without_a_sycl_runtime_say_why_and_list_devices() -> None:
    code = (
        "import importlib.abc, sys\n"
        "class Block(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name.split('.')[0] in ('dpctl', 'dpnp'):\n"
        "            raise ModuleNotFoundError(name, name=name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import usmarray as xp\n"
        "from usmarray import _backend\n"
        "for d in ('cuda:0', 'gpux'):\n"
        "    try:\n"
        "        xp.asarray(1.0, device=d)\n"
        "    except ValueError as exc:\n"
        "        print(exc)\n"
        "print('ABSENT', _backend.ABSENT.get('cuda', ''))\n"
    )
    r = _run(code)
    assert r.returncode == 0, r.stderr
    cuda_line, gpux_line, absent_line = r.stdout.strip().splitlines()
    why = absent_line.removeprefix("ABSENT ")
    if why:  # no cuda backend here: its reason comes first
        assert cuda_line.startswith(f"device 'cuda:0': the cuda backend is not available here: {why}")
    for line in (cuda_line, gpux_line):
        assert "no SYCL runtime here to read it as a SYCL filter string" in line
        assert "available devices: numpy: ['numpy']" in line
        assert "no sycl backend: " in line
    assert "RuntimeWarning" not in r.stderr  # an absent dpctl is not a failure to report
