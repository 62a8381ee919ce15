"""The clients harness's anchors (``python -m clients --anchors``): the clients' own
tests on CuPy and PyTorch beside usmarray, the pairing of each usmarray failure with
its anchor twins, the per-module table, and the records under pytest-xdist (``--jobs``).

The records here are made up; what is checked is the pairing and the classification,
not any client's results.
"""

from __future__ import annotations

import enum
import functools
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # clients/ is not installed with the package
    sys.path.insert(0, str(ROOT))

from clients import __main__ as cli  # noqa: E402
from clients import _report as rp  # noqa: E402
from clients import plugin  # noqa: E402


def rec(nodeid: str, outcome: str, ns: str = "usmarray", **kw: object) -> dict:
    return {"nodeid": nodeid, "outcome": outcome, "ns": ns, **kw}


# ---- pairing ----------------------------------------------------------------------------------
@pytest.mark.parametrize("usm, anchor", [
    # scikit-learn: PyTorch on the CUDA device at each dtype
    ("m.py::t[usmarray-None-float32-x]", "m.py::t[torch-cuda-float32-x]"),
    ("m.py::t[Est()-check(array_namespace=usmarray,device_name=None,dtype_name=float64)]",
     "m.py::t[Est()-check(array_namespace=torch,device_name=cuda,dtype_name=float64)]"),
    # SciPy: the module's name is the id
    ("m.py::T::t[usmarray-float32]", "m.py::T::t[cupy-float32]"),
    ("m.py::T::t[usmarray-None-correa]", "m.py::T::t[torch-None-correa]"),
    # array-api-extra: its enum's ids
    ("m.py::t[usmarray-set-False]", "m.py::t[torch:gpu-set-False]"),
])
def test_twin_keys_pair_usmarray_with_the_anchors(usm, anchor):
    assert rp.twin_key(usm) == rp.twin_key(anchor)
    assert rp.twin_outcome(rp.twin_outcomes([rec(anchor, "passed")]), usm) == "passed"


def test_a_float64_test_falls_back_to_the_default_dtype_twin_and_float32_does_not():
    cupy = rp.twin_outcomes([rec("m.py::t[cupy-None-None]", "failed", "cupy"),
                             rec("m.py::u[Est()-c(array_namespace=cupy,device_name=None,"
                                 "dtype_name=None)]", "passed", "cupy")])
    assert rp.twin_outcome(cupy, "m.py::t[usmarray-None-float64]") == "failed"
    assert rp.twin_outcome(cupy, "m.py::u[Est()-c(array_namespace=usmarray,device_name=None,"
                                 "dtype_name=float64)]") == "passed"
    assert rp.twin_outcome(cupy, "m.py::t[usmarray-None-float32]") is None
    # an exact twin wins over the default-dtype one
    both = rp.twin_outcomes([rec("m.py::t[numpy-None-None]", "failed", "numpy"),
                             rec("m.py::t[numpy-cpu-float64]", "passed", "numpy")])
    assert rp.twin_outcome(both, "m.py::t[usmarray-None-float64]") == "passed"


def test_other_namespaces_and_other_tests_are_not_twins():
    key = rp.twin_key("m.py::t[usmarray-3]")
    for other in ("m.py::t[numpy:readonly-3]", "m.py::t[array_api_strictest-3]",
                  "m.py::t[usmarray-4]", "m.py::u[usmarray-3]"):
        assert rp.twin_key(other) != key
    # the namespace is erased from the parameters only, never from the path
    assert rp.twin_key("numpy/m.py::t[usmarray]").startswith("numpy/m.py::t[")


# ---- classification against the anchors --------------------------------------------------------
def test_each_usmarray_failure_is_classified_by_its_anchor_twins():
    usm = [rec("m.py::a[usmarray]", "failed"), rec("m.py::b[usmarray]", "error"),
           rec("m.py::c[usmarray]", "failed"), rec("m.py::d[usmarray]", "failed"),
           rec("m.py::e[usmarray]", "failed"), rec("m.py::f[usmarray]", "passed"),
           rec("m.py::g[usmarray]", "skipped")]
    anchors = {
        "CuPy": [rec("m.py::a[cupy]", "failed", "cupy"), rec("m.py::b[cupy]", "failed", "cupy"),
                 rec("m.py::c[cupy]", "skipped", "cupy"), rec("m.py::f[cupy]", "failed", "cupy"),
                 rec("m.py::g[cupy]", "passed", "cupy")],
        "PyTorch": [rec("m.py::a[torch]", "passed", "torch"),
                    rec("m.py::b[torch]", "xfailed", "torch"),
                    rec("m.py::c[torch]", "skipped", "torch"),
                    rec("m.py::d[torch]", "xpassed", "torch")],
    }
    by = rp.against_anchors(usm, anchors)
    got = {c: [(r["nodeid"], twins) for r, twins in items] for c, items in by.items()}
    assert got == {
        "anchor-passes": [("m.py::a[usmarray]", {"CuPy": "failed", "PyTorch": "passed"}),
                          ("m.py::d[usmarray]", {"PyTorch": "xpassed"})],
        "anchors-fail": [("m.py::b[usmarray]", {"CuPy": "failed", "PyTorch": "xfailed"})],
        "anchors-skip": [("m.py::c[usmarray]", {"CuPy": "skipped", "PyTorch": "skipped"})],
        "no-twin": [("m.py::e[usmarray]", {})],
    }
    text = rp.anchors_section({"S / cuda": by})
    assert "| S / cuda | 2 | 1 | 1 | 1 |" in text
    assert "`m.py::a[usmarray]`" in text and "(CuPy failed, PyTorch passed)" in text
    assert "`m.py::b[usmarray]`" not in text  # only the anchor-passes are listed by cause


def test_module_of_and_the_per_module_table():
    assert rp.module_of(rec("x", "passed", module="scipy.special.tests.test_x")) == \
        "scipy.special"
    assert rp.module_of(rec("sklearn/tests/test_common.py::t[usmarray]", "passed")) == "sklearn"
    assert rp.module_of(rec("test_at.py::t", "passed")) == "test_at"
    m = "scipy.fft.tests.test_basic"
    table = rp.module_table({"SciPy": {
        "usmarray (cuda)": [rec("a", "passed", module=m), rec("b", "failed", module=m),
                            rec("c", "error", module=m), rec("d", "skipped", module=m),
                            rec("e", "xpassed", module="scipy.linalg.tests.t")],
        "CuPy (cuda)": [rec("a", "passed", "cupy", module=m)],
    }})
    lines = table.splitlines()
    assert lines[0] == "| suite | module | usmarray (cuda) | CuPy (cuda) |"
    assert lines[2:] == ["| SciPy | `scipy.fft` | 1 / 2 | 1 / 0 |",
                         "| SciPy | `scipy.linalg` | 1 / 0 | - |"]


# ---- the plugin: which namespace a test is ---------------------------------------------------
class _Item:
    def __init__(self, params: dict) -> None:
        self.nodeid = "t[x]"
        self.callspec = type("C", (), {"params": params})()


def test_pytorch_is_an_anchor_on_the_cuda_device_only(monkeypatch):
    ns = plugin.namespace_of
    # scikit-learn: the device is a parameter beside the namespace
    assert ns(_Item({"a": "torch", "d": "cuda", "t": "float64"})) == "torch"
    assert ns(_Item({"a": "torch", "d": "cpu", "t": "float64"})) == "torch:cpu"
    assert ns(_Item({"a": "array_api_compat.cupy", "d": None})) == "cupy"
    chk = functools.partial(print, array_namespace="torch", device_name="cuda")
    assert ns(_Item({"check": chk})) == "torch"
    chk = functools.partial(print, array_namespace="torch", device_name="mps")
    assert ns(_Item({"check": chk})) == "torch:mps"

    # array-api-extra: its enum names the GPU
    class B(enum.Enum):
        TORCH = "torch"
        TORCH_GPU = "torch:gpu"
        CUPY = "cupy"

    assert ns(_Item({"library": B.TORCH_GPU})) == "torch"
    assert ns(_Item({"library": B.TORCH})) == "torch:cpu"
    assert ns(_Item({"library": B.CUPY})) == "cupy"
    # SciPy: the module, on SCIPY_DEVICE
    torch = type(sys)("torch")
    monkeypatch.setenv("SCIPY_DEVICE", "cuda")
    assert ns(_Item({"xp": torch})) == "torch"
    monkeypatch.delenv("SCIPY_DEVICE")
    assert ns(_Item({"xp": torch})) == "torch:cpu"


def test_the_namespace_of_usmarray_is_a_plain_str():
    """xdist sends it to the controller; usmarray's own name is a str subclass."""
    import usmarray

    got = plugin.namespace_of(_Item({"xp": usmarray}))
    assert got == "usmarray" and type(got) is str


def test_records_take_the_namespace_from_the_report_or_else_from_the_id(monkeypatch):
    """A report carries the namespace the worker found (as lists, once xdist has sent
    it); a report xdist makes for a crashed worker has only the test id."""
    from types import SimpleNamespace

    config = SimpleNamespace(_clients_records={})
    monkeypatch.setitem(plugin._CONFIG, "config", config)
    reports = [("m.py::t[a]", [["clients_ns", "cupy"], ["clients_module", "m.tests.t"]]),
               ("m.py::t[torch-cuda-float64]", []), ("m.py::t[torch:gpu-1]", []),
               ("m.py::t[usmarray-3]", []), ("m.py::t[torch-cpu-float64]", [])]
    for nodeid, props in reports:
        plugin.pytest_runtest_logreport(SimpleNamespace(
            nodeid=nodeid, outcome="failed", when="call", user_properties=props,
            longrepr="worker 'gw0' crashed"))
    got = {k: (r["ns"], r["module"], r["outcome"]) for k, r in config._clients_records.items()}
    assert got == {"m.py::t[a]": ("cupy", "m.tests.t", "failed"),
                   "m.py::t[torch-cuda-float64]": ("torch", "", "failed"),
                   "m.py::t[torch:gpu-1]": ("torch", "", "failed"),
                   "m.py::t[usmarray-3]": ("usmarray", "", "failed"),
                   "m.py::t[torch-cpu-float64]": (None, "", "failed")}


_CLIENT_TEST = '''
import pytest
import usmarray

@pytest.mark.parametrize("xp", [usmarray, "cupy", "numpy"])
@pytest.mark.parametrize("k", range(6))
def test_k(xp, k):
    assert k % 3, "k is a multiple of 3"

@pytest.mark.parametrize("ns, device", [("torch", "cuda"), ("torch", "cpu")])
def test_torch(ns, device):
    pytest.skip("no PyTorch here")
'''


def _records(tmp_path: Path, name: str, *extra: str) -> list[tuple]:
    out = tmp_path / f"{name}.jsonl"
    cmd = [sys.executable, "-m", "pytest", "-p", "clients.plugin", "-p", "no:cacheprovider",
           "-q", "--clients-namespaces=usmarray,cupy,torch", f"--clients-results={out}",
           "test_client.py", *extra]
    env = cli.device_env("numpy")
    subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, timeout=300, check=False)
    return sorted((r["nodeid"], r["ns"], r["outcome"], r["module"])
                  for r in map(json.loads, out.read_text().splitlines()))


def test_records_are_the_same_with_and_without_xdist(tmp_path):
    pytest.importorskip("xdist")
    (tmp_path / "test_client.py").write_text(textwrap.dedent(_CLIENT_TEST))
    alone = _records(tmp_path, "alone")
    assert len(alone) == 13  # 12 of usmarray and cupy, the one on PyTorch's CUDA device
    assert {r[1] for r in alone} == {"usmarray", "cupy", "torch"}
    assert sum(r[2] == "failed" for r in alone) == 4
    assert {r[3] for r in alone} == {"test_client"}
    assert _records(tmp_path, "xdist", "-n", "2") == alone


# ---- the command: runs, parts, anchors ------------------------------------------------------------
def test_runs_with_the_same_options_merge_into_one():
    runs = (("scipy.special",), ("scipy.fft",), ("sklearn.tests.test_common", "-k", "x"),
            ("scipy.special",))
    assert cli.merge_runs(runs) == (("scipy.special", "scipy.fft"),
                                    ("sklearn.tests.test_common", "-k", "x"))
    assert cli.modules_and_options(("a", "b", "-k", "c")) == (("a", "b"), ("-k", "c"))


def test_each_worker_gets_its_share_of_the_host_threads(monkeypatch):
    monkeypatch.setattr(cli.os, "cpu_count", lambda: 16)
    env = cli.worker_threads({"PATH": "/bin", "MKL_NUM_THREADS": "3"}, 14)
    assert env == {"PATH": "/bin", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
                   "MKL_NUM_THREADS": "3"}
    assert cli.worker_threads({}, 4)["OMP_NUM_THREADS"] == "4"


def test_a_new_run_replaces_the_parts_it_runs_again():
    parts = {"scipy.special": {"args": ["scipy.special"]},
             "scipy.fft": {"args": ["scipy.fft"]},
             "scipy.stats": {"args": ["scipy.stats"]},
             "sklearn.tests.test_common": {"args": ["sklearn.tests.test_common", "-k", "x"]}}
    cli.drop_overlapping_parts(parts, ("scipy.special", "scipy.fft", "sklearn.tests.test_common"))
    assert sorted(parts) == ["scipy.stats", "sklearn.tests.test_common"]


def test_anchors_that_cannot_run_are_skipped_with_the_reason(monkeypatch, capsys):
    monkeypatch.setitem(cli.ANCHORS, "gone", cli.Anchor(
        "gone", "Gone", "raise ImportError('no module named gone')", None))
    monkeypatch.setitem(cli.ANCHORS, "here", cli.Anchor("here", "Here", "pass", None))
    assert cli.usable_anchors(["gone", "here", "cupy"], "numpy") == ["here"]
    out = capsys.readouterr().out
    assert "anchor gone: skipped (ImportError: no module named gone)" in out
    assert "anchor cupy: skipped (it runs beside cuda, which usmarray does not find here)" in out
    assert cli.usable_anchors(["here"], None) == []
    assert cli.anchor_device(["sycl", "numpy", "cuda"]) == "cuda"
    assert cli.anchor_device(["sycl", "numpy"]) == "sycl"


def test_the_report_puts_the_anchors_beside_the_cuda_rows(tmp_path):
    raw = tmp_path / "raw"
    raw.mkdir()
    m = "scipy.fft.tests.test_basic"
    recs = [rec("f.py::t[usmarray]", "failed", module=m, message="E: x"),
            rec("f.py::t[array_api_strict]", "passed", "array_api_strict", module=m),
            rec("f.py::t[cupy]", "passed", "cupy", module=m),
            rec("f.py::t[torch]", "failed", "torch", module=m),
            rec("f.py::u[usmarray]", "passed", module=m)]
    (raw / "scipy-cuda-scipy.fft.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    (raw / "scipy-cuda-stale.jsonl").write_text(json.dumps(recs[0]) + "\n")  # not a part
    meta = {"runs": {"scipy-cuda": {"parts": {"scipy.fft": {"seconds": 5, "args": []}},
                                    "seconds": 5, "strict": True,
                                    "anchors": ["cupy", "torch"]}}}
    suite = cli.full_suites(scipy="fft")["scipy"]
    text = cli.render([suite], {"cuda": "Device(cuda:0)"}, raw, meta)
    assert "| SciPy | CuPy | cuda: Device(cuda:0) | 1 | 0 | 0 | 0 | (with the usmarray row) |" \
        in text
    assert "| SciPy | usmarray | cuda: Device(cuda:0) | 1 | 1 | 0 | 0 | 5 s |" in text
    assert ("| SciPy | `scipy.fft` | 1 / 1 | 1 / 0 | 1 / 0 | 0 / 1 |") in text
    assert "| suite | module | usmarray (cuda) | array-api-strict | CuPy (cuda) | PyTorch (cuda) |" \
        in text
    assert "| SciPy / cuda | 1 | 0 | 0 | 0 |" in text
