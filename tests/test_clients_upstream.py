"""The upstream fixes of ``clients/upstream/`` (``clients._upstream``): each patch applies
to the installed client, the import hook compiles the patched source, and each fix
makes the failure it is written for a pass (seen without it in the same test)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from test_reliability_common import device_params

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # clients/ is not installed with the package
    sys.path.insert(0, str(ROOT))

from clients import _upstream  # noqa: E402

SITE = Path(sysconfig.get_paths()["purelib"])
PATCHES = _upstream.load()


@pytest.mark.parametrize("fp", PATCHES, ids=lambda fp: f"{fp.patch}:{fp.path}")
def test_each_patch_applies_to_the_installed_client_and_compiles(fp):
    if importlib.util.find_spec(fp.path.split("/")[0]) is None:
        pytest.skip(f"{fp.path.split('/')[0]} is not installed")
    source = (SITE / fp.path).read_text(encoding="utf-8")
    patched = _upstream.apply(source, fp)
    assert patched != source
    compile(patched, fp.path, "exec", dont_inherit=True)
    for _old, new in fp.hunks:  # every hunk took effect
        assert "\n".join(new) in patched


def test_a_patch_that_no_longer_applies_names_itself_and_the_file():
    fp = _upstream.parse(
        "--- a/pkg/mod.py\n+++ b/pkg/mod.py\n@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n",
        "demo.patch")[0]
    assert fp.module == "pkg.mod"
    assert _upstream.apply("x = 1\ny = 2\nz = 4\n", fp) == "x = 1\ny = 3\nz = 4\n"
    with pytest.raises(RuntimeError, match=r"demo\.patch.*pkg/mod\.py.*matches 0 places"):
        _upstream.apply("x = 1\ny = 5\n", fp)


def test_a_change_the_installed_version_already_has_is_left_as_it_is():
    fp = _upstream.parse(
        "--- a/pkg/mod.py\n+++ b/pkg/mod.py\n@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n",
        "demo.patch")[0]
    assert _upstream.apply("w = 0\nx = 1\ny = 3\n", fp) == "w = 0\nx = 1\ny = 3\n"


def test_a_patch_fixed_upstream_skips_a_release_that_changed_the_lines():
    text = "--- a/pkg/mod.py\n+++ b/pkg/mod.py\n@@ -1,1 +1,1 @@\n-y = 2\n+y = 3\n"
    fixed = _upstream.parse("Fixed upstream in: pkg 2.0\n" + text, "demo.patch")[0]
    assert fixed.fixed_upstream == "pkg 2.0"
    assert _upstream.apply("y = (3)\n", fixed) == "y = (3)\n"
    with pytest.raises(RuntimeError, match="matches 0 places"):
        _upstream.apply("y = (3)\n", _upstream.parse(text, "demo.patch")[0])


_PROBE = """
import clients.plugin
import numpy as np
import usmarray as xp
out = []
try:
    import scipy.conftest as c
    out.append(repr(getattr(c.devices, "__wrapped__", c.devices)(xp)[-1]))
except Exception as e:
    out.append(type(e).__name__)
try:
    from array_api_extra.testing._testing import _as_numpy_array
    out.append(repr(_as_numpy_array(xp.asarray([1.0, 2.0]), xp=xp).tolist()))
except Exception as e:
    out.append(type(e).__name__)
print(";".join(out))
"""


def _probe(env_extra: dict[str, str], probe: str = _PROBE) -> list[str]:
    env = dict(os.environ, SCIPY_ARRAY_API="1", PYTHONPATH=str(ROOT))
    env.pop(_upstream.ENV, None)
    env.update(env_extra)
    r = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                       text=True, timeout=300, cwd="/tmp")
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout.strip().splitlines()[-1].split(";")


@pytest.mark.parametrize("device", device_params("numpy", "cpu"))
def test_the_fixes_turn_the_client_failures_into_passes(device):
    """SciPy's ``devices`` fixture (``devices() + [None]`` on the standard's tuple) and
    array-api-extra's ``_as_numpy_array`` (``np.from_dlpack`` of a SYCL array) fail as
    shipped and work with the patches."""
    for mod in ("scipy", "array_api_extra"):
        if importlib.util.find_spec(mod) is None:
            pytest.skip(f"{mod} is not installed")
    dev = {"USMARRAY_DEFAULT_DEVICE": device}
    shipped = _probe(dev)
    fixed = _probe({**dev, _upstream.ENV: "1"})
    assert shipped[0] == "TypeError"
    assert fixed[0] == "None"
    # the NumPy backend exports host memory, which the shipped helper takes already
    assert shipped[1] == ("[1.0, 2.0]" if device == "numpy" else "RuntimeError")
    assert fixed[1] == "[1.0, 2.0]"


_PROBE_LIBS = """
import clients.plugin
import numpy as np
import usmarray as xp
out = []
x = xp.reshape(xp.arange(24, dtype=xp.float64), (2, 3, 4))
h = xp.asnumpy(x)
try:
    from einops import array_api as ea
    r = ea.rearrange(x, "a b c -> a (b c)")
    out.append(str(np.array_equal(xp.asnumpy(r), h.reshape(2, 12))))
except Exception as e:
    out.append(type(e).__name__)
try:
    import opt_einsum
    y, z = x[0], xp.matrix_transpose(x[1])
    r = opt_einsum.contract("ij,jk->ik", y, z)
    out.append(str(np.allclose(xp.asnumpy(r), np.einsum("ij,jk->ik", h[0], h[1].T))))
except Exception as e:
    out.append(type(e).__name__)
print(";".join(out))
"""


@pytest.mark.parametrize("device", device_params("numpy", "cpu"))
def test_einops_and_opt_einsum_run_with_the_patches(device):
    """einops' ``array_api.rearrange`` hands ``reshape`` a list, opt_einsum's ``contract``
    calls ``x.transpose``: both fail on a strict namespace as shipped and give NumPy's
    values with the patches."""
    for mod in ("einops", "opt_einsum"):
        if importlib.util.find_spec(mod) is None:
            pytest.skip(f"{mod} is not installed")
    dev = {"USMARRAY_DEFAULT_DEVICE": device}
    assert _probe(dev, _PROBE_LIBS) == ["TypeError", "AttributeError"]
    assert _probe({**dev, _upstream.ENV: "1"}, _PROBE_LIBS) == ["True", "True"]


_PROBE_XARRAY = """
import clients.plugin
import numpy as np
import usmarray as xp
import xarray as xr
out = []
da = xr.DataArray(xp.reshape(xp.arange(12, dtype=xp.float64), (3, 4)), dims=("a", "b"))
want = np.where(np.arange(12.0).reshape(3, 4) > 3, np.arange(12.0).reshape(3, 4), np.nan)
try:
    r = da.where(da > 3)
    out.append(str(type(r.data) is xp.usm_ndarray
                   and np.array_equal(xp.asnumpy(r.data), want, equal_nan=True)))
except Exception as e:
    out.append(type(e).__name__)
print(";".join(out))
"""


@pytest.mark.parametrize("device", device_params("numpy", "cpu"))
def test_xarray_where_runs_with_the_patch(device):
    """xarray's ``DataArray.where`` promotes with NumPy dtypes only (``maybe_promote``)
    and hands a non-NumPy namespace's ``result_type`` NumPy scalars: it fails on a strict
    namespace as shipped and gives NumPy's values, on the device, with the patch."""
    if importlib.util.find_spec("xarray") is None:
        pytest.skip("xarray is not installed")
    dev = {"USMARRAY_DEFAULT_DEVICE": device}
    assert _probe(dev, _PROBE_XARRAY) == ["TypeError"]
    assert _probe({**dev, _upstream.ENV: "1"}, _PROBE_XARRAY) == ["True"]
