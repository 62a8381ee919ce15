"""pytest plugin: run the clients' own array-API tests with usmarray beside array-api-strict.

Load it with ``pytest -p clients.plugin``.  It adds usmarray where each client lists
its test namespaces, keeps only the namespaces named by ``--clients-namespaces``
(default ``usmarray,array_api_strict``), and writes one JSON record per test to
``--clients-results`` (what ``python -m clients`` reads).

- scikit-learn: ``sklearn.utils._array_api.yield_namespace_device_dtype_combinations``
  also yields ``("usmarray", None, "float64")`` and ``("usmarray", None, "float32")``
  (the default device: ``USMARRAY_DEFAULT_DEVICE`` picks it), and ``yield_namespaces``
  yields ``"usmarray"``.  Patched when the plugin loads, before any test module
  imports the names.
- SciPy: its conftest's ``xp`` fixture gets a ``usmarray`` parameter and ``usmarray``
  joins ``xp_known_backends`` (so ``np_only`` markers skip it, as they skip
  array-api-strict), and ``xp_skip_cpu_only_backends`` when the default device is not
  a CPU.  ``--clients-scipy-marray=substring|exact`` replaces SciPy's MArray test,
  to measure what the substring test costs (see docs/compatibility.md).
- array-api-extra: its ``Backend`` enum gets a ``USMARRAY`` member (a new enum with
  every old member, bound where the tests import it).

A test belongs to the namespace its parameters name; tests of no namespace or of a
namespace not selected are deselected, so the counts are those of the namespaced tests.
The anchors (``cupy``, ``torch``) are the clients' own parameters for CuPy and for
PyTorch: ``torch`` names PyTorch on the CUDA device (scikit-learn's ``("torch", "cuda",
dtype)``, array-api-extra's ``Backend.TORCH_GPU``, SciPy's ``torch`` under
``SCIPY_DEVICE=cuda``); PyTorch on another device is ``torch:<device>``.

Records are written by the process that reports: the pytest process, or pytest-xdist's
controller (``-n``), which receives each worker's reports with the test's namespace and
module in their ``user_properties``.
"""

from __future__ import annotations

import enum
import functools
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from . import _upstream

USMARRAY = "usmarray"
STRICT = "array_api_strict"
#: namespace names the clients parametrize over (what a parameter may name)
KNOWN = frozenset({
    USMARRAY, STRICT, "numpy", "torch", "cupy", "dpnp", "jax.numpy", "dask.array",
    "sparse", "mparray", "array_api_strict:strictest", "numpy:readonly", "torch:gpu",
    "jax.numpy:gpu", "array_api_compat.numpy", "array_api_compat.cupy",
    "array_api_compat.torch", "array_api_compat.dask.array",
})
#: what a client's parameter for PyTorch may name beside it: the device
_TORCH = frozenset({"torch", "torch:gpu", "array_api_compat.torch"})
_TORCH_DEVICES = frozenset({"cpu", "cuda", "xpu", "mps", "meta"})
_ALIAS = {"array_api_compat.cupy": "cupy", "array_api_compat.numpy": "numpy"}
_ID_NS = re.compile(r"(?<![\w.:])(usmarray|array_api_strict|cupy|torch:gpu|torch-cuda)(?![\w:])")
_NS_PROP, _MODULE_PROP = "clients_ns", "clients_module"


# ---- scikit-learn ------------------------------------------------------------------------
def _patch_sklearn() -> None:
    try:
        import sklearn.utils._array_api as sk
    except ImportError:
        return
    if getattr(sk, "_clients_patched", False):
        return
    orig_combos = sk.yield_namespace_device_dtype_combinations
    orig_names = sk.yield_namespaces

    @functools.wraps(orig_names)
    def yield_namespaces(include_numpy_namespaces: bool = True) -> Any:
        yield from orig_names(include_numpy_namespaces=include_numpy_namespaces)
        yield USMARRAY

    @functools.wraps(orig_combos)
    def combos(include_numpy_namespaces: bool = True) -> Any:
        # the original reaches the patched yield_namespaces: drop its (usmarray, None, None)
        for combo in orig_combos(include_numpy_namespaces=include_numpy_namespaces):
            if combo[0] != USMARRAY:
                yield combo
        yield USMARRAY, None, "float64"
        yield USMARRAY, None, "float32"

    sk.yield_namespaces = yield_namespaces
    sk.yield_namespace_device_dtype_combinations = combos
    sk._clients_patched = True
    # modules that imported the names before this plugin loaded (estimator_checks)
    import sys

    for mod in list(sys.modules.values()):
        name = getattr(mod, "__name__", "")
        if not isinstance(name, str) or not name.startswith("sklearn"):
            continue
        d = getattr(mod, "__dict__", {})
        if d.get("yield_namespace_device_dtype_combinations") is orig_combos:
            mod.yield_namespace_device_dtype_combinations = combos  # type: ignore[attr-defined]
        if d.get("yield_namespaces") is orig_names:
            mod.yield_namespaces = yield_namespaces  # type: ignore[attr-defined]


# ---- array-api-extra ---------------------------------------------------------------------
def _patch_xpx() -> None:
    try:
        import array_api_extra._lib._backends as xb
    except ImportError:
        return
    old = xb.Backend
    if USMARRAY.upper() in old.__members__:
        return
    members = {m.name: m.value for m in old}
    members["USMARRAY"] = USMARRAY
    new = enum.Enum("Backend", members, module=old.__module__)  # type: ignore[misc]
    for attr in ("modname", "like", "pytest_param"):
        setattr(new, attr, old.__dict__[attr])
    new.__doc__ = old.__doc__
    xb.Backend = new  # type: ignore[misc,assignment]


# ---- SciPy -------------------------------------------------------------------------------
def _exact_is_marray(xp: Any) -> bool:
    """SciPy's MArray test made exact: MArray's namespaces are named ``marray.<library>``."""
    return xp.__name__.split(".")[0] == "marray"


def _substring_is_marray(xp: Any) -> bool:
    """SciPy's test on the plain string: what it does to a namespace named "usmarray"
    without usmarray's ModuleName (usmarray/_name.py)."""
    return "marray" in str(xp.__name__)


def _patch_scipy_marray(mode: str) -> None:
    if mode == "scipy":
        return
    import scipy._lib._array_api as sa

    fn = {"exact": _exact_is_marray, "substring": _substring_is_marray}[mode]
    sa.is_marray.__code__ = fn.__code__


_KDL_CPU = 1


def _on_host(x: Any) -> Any:
    """``x`` itself, or a NumPy copy of it when it is an array whose DLPack device is
    not the CPU (decided by the array's device, not by its library's name)."""
    import numpy as np

    dev = getattr(x, "__dlpack_device__", None)
    if dev is None or isinstance(x, np.ndarray) or dev()[0] == _KDL_CPU:
        return x
    return np.from_dlpack(x, device="cpu")



class _HostTesting:
    """``numpy.testing`` whose ``assert_*`` functions first copy device arrays to the host."""

    def __init__(self, testing: Any) -> None:
        self._testing = testing

    def __getattr__(self, name: str) -> Any:
        fn = getattr(self._testing, name)
        if not name.startswith("assert_"):
            return fn

        @functools.wraps(fn)
        def call(*args: Any, **kw: Any) -> Any:
            return fn(*map(_on_host, args), **{k: _on_host(v) for k, v in kw.items()})

        return call


def _patch_scipy_host_assert() -> None:
    """SciPy's upstream fix (see docs/compatibility.md): ``xp_assert_close`` /
    ``xp_assert_equal`` / ``xp_assert_less`` hand arrays of libraries they do not name
    (CuPy and PyTorch are named) to ``numpy.testing``, which converts with
    ``np.asarray``; GPU memory refuses that.  The fix copies any array whose DLPack device
    is not the CPU with ``np.from_dlpack(x, device="cpu")`` first, and
    ``_xp_copy_to_numpy`` does the same."""
    import types

    import numpy as np
    import scipy._lib._array_api as sa

    if getattr(sa, "_clients_patched", False):
        return
    host_np = types.ModuleType("numpy")
    host_np.__dict__.update(np.__dict__)
    host_np.testing = _HostTesting(np.testing)  # type: ignore[attr-defined]
    sa.np = host_np
    orig = sa._xp_copy_to_numpy

    def copy_to_numpy(x: Any) -> Any:
        host = _on_host(x)
        return orig(x) if host is x else host

    sa._xp_copy_to_numpy = copy_to_numpy
    sa._clients_patched = True


def _patch_scipy_conftest(mod: Any, config: pytest.Config) -> None:
    import usmarray

    mod.xp_known_backends.add(USMARRAY)
    dev = usmarray.asarray(0).device
    if not _is_cpu(dev):
        mod.xp_skip_cpu_only_backends.add(USMARRAY)
    params = list(mod.xp_available_backends)
    params.append(pytest.param(usmarray, id=USMARRAY, marks=pytest.mark.array_api_backends))
    mod.xp_available_backends = params
    orig = mod.xp.__wrapped__
    mod.xp = pytest.fixture(params=params)(orig)


def _is_cpu(dev: Any) -> bool:
    """Whether a usmarray Device computes on the host's CPU (SYCL CPU device or NumPy)."""
    text = str(dev).lower()
    return "numpy" in text or "cpu" in text


# ---- the plugin --------------------------------------------------------------------------
# before any conftest or test module imports the names patched here
os.environ.setdefault("SCIPY_ARRAY_API", "1")
if os.environ.get(_upstream.ENV) == "1":  # the upstream patches, before any client import
    _upstream.install()
_patch_sklearn()
_patch_xpx()


def pytest_addoption(parser: pytest.Parser) -> None:
    g = parser.getgroup("clients", "usmarray client suites (python -m clients)")
    g.addoption("--clients-namespaces", default=f"{USMARRAY},{STRICT}",
                help="comma-separated namespaces to keep (default: %(default)s)")
    g.addoption("--clients-results", default=None,
                help="write one JSON record per test to this file")
    g.addoption("--clients-scipy-host-assert", action="store_true",
                help="apply SciPy's upstream fix: its xp_assert_* copy arrays whose DLPack "
                "device is not the CPU to the host (np.from_dlpack(x, device='cpu'))")
    g.addoption("--clients-scipy-marray", default="scipy",
                choices=("scipy", "exact", "substring"),
                help="SciPy's is_marray: as shipped (default), exact (the upstream fix), "
                "or substring on the plain string (usmarray without its ModuleName)")


def pytest_configure(config: pytest.Config) -> None:
    _patch_scipy_marray(config.getoption("--clients-scipy-marray"))
    if config.getoption("--clients-scipy-host-assert"):
        _patch_scipy_host_assert()
    config._clients_records = {}  # type: ignore[attr-defined]


def pytest_plugin_registered(plugin: Any, manager: Any) -> None:
    name = getattr(plugin, "__name__", None)
    if name == "scipy.conftest" and not getattr(plugin, "_clients_patched", False):
        plugin._clients_patched = True
        _patch_scipy_conftest(plugin, None)  # type: ignore[arg-type]


def namespace_of(item: Any) -> str | None:
    """The namespace an item's parameters name (None: the test takes no namespace).
    PyTorch is ``torch`` on the CUDA device and ``torch:<device>`` elsewhere."""
    callspec = getattr(item, "callspec", None)
    if callspec is not None:
        for value in callspec.params.values():
            ns = _value_namespace(value)
            if ns is not None:
                if ns in _TORCH:
                    return _torch_namespace(value, callspec.params.values())
                return _ALIAS.get(ns, ns)
    m = _ID_NS.search(item.nodeid.partition("[")[2])
    return _id_namespace(m.group(1)) if m else None


def _id_namespace(name: str) -> str:
    """The namespace of a name in a test id (PyTorch's as array-api-extra and
    scikit-learn name it on the CUDA device)."""
    return "torch" if name in ("torch:gpu", "torch-cuda") else name


def _torch_namespace(value: Any, params: Any) -> str:
    """``torch`` where the test's PyTorch device is CUDA, ``torch:<device>`` elsewhere:
    array-api-extra names the GPU in its enum, scikit-learn passes a device name beside
    the namespace, SciPy's PyTorch runs on ``SCIPY_DEVICE``."""
    if isinstance(value, enum.Enum):
        device = "cuda" if value.value == "torch:gpu" else "cpu"
    elif type(value).__name__ == "module":
        device = os.environ.get("SCIPY_DEVICE", "cpu")
    else:
        device = "cpu"
        for v in params:
            if isinstance(v, functools.partial):
                v = v.keywords.get("device_name")
            if isinstance(v, str) and v in _TORCH_DEVICES:
                device = v
                break
    return "torch" if device == "cuda" else f"torch:{device}"


def _value_namespace(value: Any) -> str | None:
    if isinstance(value, str):
        return value if value in KNOWN else None
    if isinstance(value, enum.Enum) and isinstance(value.value, str):
        return value.value if value.value in KNOWN else None
    if isinstance(value, functools.partial):
        ns = value.keywords.get("array_namespace")
        if isinstance(ns, str):
            return ns
        other = value.keywords.get("X_ns_and_device")
        if other is not None:
            return "mixed"
        return None
    if isinstance(value, tuple):
        for v in value:
            ns = _value_namespace(v)
            if ns is not None:
                return ns
        return None
    name = getattr(value, "__name__", None)
    if isinstance(name, str) and type(value).__name__ == "module":
        # a plain str: usmarray's name is a str subclass, which xdist does not send
        return str(name) if name in KNOWN else None
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[Any]) -> None:
    keep_ns = set(config.getoption("--clients-namespaces").split(","))
    keep: list[Any] = []
    drop: list[Any] = []
    for item in items:
        ns = namespace_of(item)
        (keep if ns in keep_ns else drop).append(item)
        if ns in keep_ns:
            module = getattr(getattr(item, "module", None), "__name__", "")
            item.user_properties += [(_NS_PROP, ns), (_MODULE_PROP, module)]
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    config = _CONFIG.get("config")
    if config is None:
        return
    records = config._clients_records  # type: ignore[attr-defined]
    rec = records.get(report.nodeid)
    if rec is None:
        props = dict(p for p in report.user_properties if len(p) == 2)
        ns = props.get(_NS_PROP)
        if ns is None:  # a report pytest-xdist makes for a crashed worker
            m = _ID_NS.search(report.nodeid.partition("[")[2])
            ns = _id_namespace(m.group(1)) if m else None
        rec = records[report.nodeid] = {"nodeid": report.nodeid, "outcome": "passed",
                                        "ns": ns, "module": props.get(_MODULE_PROP, "")}
    if report.outcome == "skipped":
        if hasattr(report, "wasxfail"):
            rec["outcome"] = "xfailed"
        elif rec["outcome"] == "passed":
            rec["outcome"] = "skipped"
            rec["reason"] = _skip_reason(report)
    elif report.outcome == "failed":
        if rec["outcome"] not in ("failed", "error"):
            rec["outcome"] = "failed" if report.when == "call" else "error"
            rec.update(_failure(report))
    elif report.when == "call" and hasattr(report, "wasxfail"):
        rec["outcome"] = "xpassed"


_CONFIG: dict[str, Any] = {}


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    _CONFIG["config"] = session.config


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = session.config.getoption("--clients-results")
    if not path or hasattr(session.config, "workerinput"):  # xdist's controller writes
        return
    records = session.config._clients_records  # type: ignore[attr-defined]
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for rec in records.values():
            if rec["ns"] is not None:
                f.write(json.dumps(rec) + "\n")


def _skip_reason(report: pytest.TestReport) -> str:
    lr = report.longrepr
    if isinstance(lr, tuple) and len(lr) == 3:
        return str(lr[2])[:200]
    return str(lr)[:200]


def _failure(report: pytest.TestReport) -> dict[str, Any]:
    """The exception line and the innermost frame, for grouping by cause."""
    lr = report.longrepr
    crash = getattr(lr, "reprcrash", None)
    message = crash.message if crash is not None else str(lr)[-400:]
    where = ""
    tb = getattr(lr, "reprtraceback", None)
    entries = getattr(tb, "reprentries", None) or []
    frames = []
    for e in entries:
        loc = getattr(e, "reprfileloc", None)
        if loc is not None:
            frames.append(f"{_short(loc.path)}:{loc.lineno}")
    if crash is not None:
        where = f"{_short(crash.path)}:{crash.lineno}"
    return {"message": message[:1500], "where": where, "frames": frames[-8:]}


def _short(path: str) -> str:
    p = str(path)
    for marker in ("site-packages/", "wt-clients/", "/usmarray/"):
        i = p.rfind(marker)
        if i >= 0:
            return p[i + len(marker):] if marker != "/usmarray/" else "usmarray/" + p[i + len(marker):]
    return p
