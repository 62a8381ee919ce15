"""The client-suite harness (``clients/``): its pieces, and the CI slice of the clients'
own tests (scikit-learn, SciPy, array-api-extra) with usmarray beside array-api-strict.

The slice (``clients._suites.quick_suites``) is one pytest run of a few hundred
tests on the default device; it must find every usmarray test it ran either passing
or failing for a cause docs/compatibility.md explains (``clients._report.CAUSES``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # clients/ is not installed with the package
    sys.path.insert(0, str(ROOT))

from clients import _report as rp  # noqa: E402
from clients import plugin  # noqa: E402


# ---- pairing and causes ---------------------------------------------------------------------
def test_twin_keys_pair_usmarray_with_array_api_strict():
    pairs = [
        ("m.py::t[usmarray-None-float64-x]", "m.py::t[array_api_strict-CPU_DEVICE-float64-x]"),
        ("m.py::t[usmarray-None-float32]", "m.py::t[array_api_strict-device1-float32]"),
        ("m.py::t[Est()-check_array_api_input(array_namespace=usmarray,device_name=None,"
         "dtype_name=float64)]",
         "m.py::t[Est()-check_array_api_input(array_namespace=array_api_strict,"
         "device_name=CPU_DEVICE,dtype_name=float64)]"),
        ("m.py::TestX::test_y[usmarray-3]", "m.py::TestX::test_y[array_api_strict-3]"),
    ]
    for u, s in pairs:
        assert rp.twin_key(u) == rp.twin_key(s)
    assert rp.twin_key("m.py::t[usmarray-None-float64]") != rp.twin_key(
        "m.py::t[array_api_strict-device1-float32]")


def test_usmarray_only_failures_and_causes():
    strict = [{"nodeid": "m.py::a[array_api_strict]", "outcome": "passed"},
              {"nodeid": "m.py::b[array_api_strict]", "outcome": "failed"}]
    usm = [{"nodeid": "m.py::a[usmarray]", "outcome": "failed",
            "message": "RuntimeError: Unsupported device in DLTensor.", "frames": []},
           {"nodeid": "m.py::b[usmarray]", "outcome": "failed", "message": "x"},
           {"nodeid": "m.py::c[usmarray]", "outcome": "error", "message": "ValueError: 7 != 8"},
           {"nodeid": "m.py::d[usmarray]", "outcome": "passed"}]
    only, also = rp.usm_only_failures(usm, strict)
    assert [r["nodeid"] for r in only] == ["m.py::a[usmarray]", "m.py::c[usmarray]"]
    assert [r["nodeid"] for r in also] == ["m.py::b[usmarray]"]
    assert rp.classify(only[0]) == "xpx-from-dlpack"
    assert rp.classify(only[1]) == "other: ValueError: N != N"
    text = rp.causes_section({"x / sycl": only})
    assert "**xpx-from-dlpack** (array-api-extra): 1" in text and "`m.py::c[usmarray]`" in text
    table = rp.markdown_table([("s", "usmarray", "sycl", Counter(passed=3, failed=1, error=1),
                                "9 s")])
    assert table.splitlines()[-1] == "| s | usmarray | sycl | 3 | 2 | 0 | 0 | 9 s |"


# ---- the plugin's additions -----------------------------------------------------------------
def test_sklearn_combinations_gain_usmarray_once_per_dtype():
    sk = pytest.importorskip("sklearn.utils._array_api")
    combos = list(sk.yield_namespace_device_dtype_combinations())
    assert [c for c in combos if c[0] == "usmarray"] == [
        ("usmarray", None, "float64"), ("usmarray", None, "float32")]
    assert ("array_api_strict", "CPU_DEVICE", "float64") in combos
    assert "usmarray" in list(sk.yield_namespaces())


def test_array_api_extra_backend_gains_usmarray():
    xb = pytest.importorskip("array_api_extra._lib._backends")
    assert xb.Backend.USMARRAY.value == "usmarray" and xb.Backend.USMARRAY.modname == "usmarray"
    assert xb.Backend.ARRAY_API_STRICT.like(xb.Backend.ARRAY_API_STRICTEST)
    assert xb.Backend.USMARRAY.pytest_param().id == "usmarray"


def test_namespace_of_reads_parameters_and_ids():
    import enum
    import functools

    class Item:
        def __init__(self, nodeid, params=None):
            self.nodeid = nodeid
            if params is not None:
                self.callspec = type("C", (), {"params": params})()

    class B(enum.Enum):
        U = "usmarray"

    import usmarray

    assert plugin.namespace_of(Item("t[x]", {"xp": usmarray})) == "usmarray"
    assert plugin.namespace_of(Item("t[x]", {"library": B.U})) == "usmarray"
    assert plugin.namespace_of(Item("t[x]", {"ns": "array_api_strict", "d": None})) == \
        "array_api_strict"
    chk = functools.partial(print, array_namespace="usmarray")
    assert plugin.namespace_of(Item("t[x]", {"check": chk})) == "usmarray"
    assert plugin.namespace_of(Item("t[numpy]", {"xp": __import__("numpy")})) == "numpy"
    assert plugin.namespace_of(Item("t[a]", {"n": 3})) is None


# ---- the CI slice -----------------------------------------------------------------------------
def test_client_suites_slice(tmp_path):
    """scikit-learn, SciPy and array-api-extra tests, one pytest run: usmarray runs where
    array-api-strict runs, and each usmarray-only failure has a known cause."""
    for mod in ("sklearn", "scipy", "array_api_extra", "array_api_strict"):
        pytest.importorskip(mod)
    from clients.__main__ import device_env, site_root
    from clients._suites import quick_suites

    (args,) = quick_suites()["quick"].runs
    res = tmp_path / "r.jsonl"
    env = device_env("sycl")
    env.pop("USMARRAY_DEFAULT_DEVICE", None)
    if os.environ.get("USMARRAY_DEFAULT_DEVICE"):
        env["USMARRAY_DEFAULT_DEVICE"] = os.environ["USMARRAY_DEFAULT_DEVICE"]
    cmd = [sys.executable, "-m", "pytest", "-p", "clients.plugin", "-p", "no:cacheprovider",
           "--rootdir", site_root(), "-q", "-W", "ignore", f"--clients-results={res}",
           "--pyargs", *args]
    r = subprocess.run(cmd, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    recs = [json.loads(line) for line in res.read_text().splitlines()]
    usm = [x for x in recs if x["ns"] == "usmarray"]
    strict = [x for x in recs if x["ns"] == "array_api_strict"]
    assert len(usm) >= 100 and len(strict) >= 100, r.stdout[-2000:]
    for client in ("sklearn", "scipy", "array_api_extra"):
        assert any(x["nodeid"].startswith(client) and x["outcome"] == "passed" for x in usm)
    only, _ = rp.usm_only_failures(usm, strict)
    unexplained = [(x["nodeid"], x.get("message", "")[:300]) for x in only
                   if rp.classify(x).startswith("other")]
    assert not unexplained, unexplained


def test_searchcv_numpy_index_is_classified_with_the_message_usmarray_gives():
    """scikit-learn's dispatch-off path indexes a usmarray input with a NumPy index
    array; the cause is found from the message usmarray gives today, whatever its
    wording of the index's type."""
    import numpy as np

    import usmarray as xp

    with pytest.raises(IndexError) as exc:
        xp.asarray([1.0, 2.0, 3.0])[np.array([0, 2])]
    rec = {"nodeid": "sklearn/tests/test_common.py::test_estimators[GridSearchCV()-"
                     "check_array_api_input(array_namespace=usmarray,device_name=None,"
                     "dtype_name=float64)]",
           "outcome": "failed", "message": f"IndexError: {exc.value}", "frames": []}
    assert rp.classify(rec) == "sklearn-strict-name"


def test_an_unknown_suite_is_named_with_the_known_ones(capsys):
    from clients.__main__ import main

    with pytest.raises(SystemExit) as exc:
        main(["--suites", "sklearn,array-api-extra", "--devices", "numpy"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "unknown array-api-extra" in err and "xpx" in err
