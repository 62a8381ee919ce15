"""``python -m clients``: run the clients' own array-API test suites against usmarray and
array-api-strict, and write the table suite x namespace x device.

    python -m clients                          # every suite, every device found, full
    python -m clients --suites sklearn,xpx --devices sycl,numpy
    python -m clients --quick                  # the CI slice (seconds, not hours)
    python -m clients --report-only            # rebuild the table from earlier records
    python -m clients --devices cuda --anchors cupy,torch --jobs 14   # on a GPU machine

Devices: ``sycl`` (the SYCL default device), ``numpy`` (``USMARRAY_DEFAULT_DEVICE=numpy``)
and ``cuda`` (``USMARRAY_DEFAULT_DEVICE=cuda``, and ``SCIPY_DEVICE=cuda`` for SciPy's
PyTorch), each run where usmarray finds it. array-api-strict does not depend on the
device and runs once, beside the first one. The anchors (``--anchors``: CuPy, PyTorch on
the CUDA device, or NumPy) are the clients' own parameters for those libraries, run in
the same pytest processes, once, beside the CUDA device (beside the first device where
usmarray finds no CUDA device); an anchor that cannot be imported there is skipped, with
the reason printed. Each (suite, device) is one or more pytest processes with ``-p
clients.plugin`` (one per suite and option set with ``--jobs``, spread over pytest-xdist
workers); their records go to ``<out>/raw/<suite>-<device>-<part>.jsonl``, the tables
to ``<out>/clients.md``.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import os
import platform
import shlex
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from . import _report as rp
from . import _upstream
from ._suites import Suite, _package_dir, full_suites, quick_suites

ROOT = Path(__file__).resolve().parent.parent
DEVICES = {"sycl": None, "numpy": "numpy", "cuda": "cuda"}
_PROBE = (
    "import usmarray as xp; x = xp.asarray(0); print(x._be.name, x.device)"
)


@dataclass(frozen=True)
class Anchor:
    """A library the clients test themselves on, run beside usmarray as a reference."""

    name: str  # the namespace's name in the records (clients/plugin.py)
    label: str  # for the tables
    probe: str  # Python that fails where the anchor cannot run
    device: str | None  # the usmarray device it compares with (None: whichever runs it)


ANCHORS = {
    "cupy": Anchor("cupy", "CuPy", "import cupy; assert cupy.cuda.runtime.getDeviceCount()",
                   "cuda"),
    "torch": Anchor("torch", "PyTorch", "import torch; assert torch.cuda.is_available(), "
                    "'torch.cuda.is_available() is False'", "cuda"),
    "numpy": Anchor("numpy", "NumPy", "import numpy", None),
}


def device_env(device: str) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("USMARRAY_DEFAULT_DEVICE", None)
    if DEVICES[device] is not None:
        env["USMARRAY_DEFAULT_DEVICE"] = DEVICES[device]  # type: ignore[assignment]
    env["SCIPY_ARRAY_API"] = "1"
    if device == "cuda":  # SciPy's conftest puts PyTorch there
        env["SCIPY_DEVICE"] = "cuda"
    else:
        env.pop("SCIPY_DEVICE", None)
    env.setdefault("SYCL_CACHE_PERSISTENT", "1")
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p
    )
    return env


#: the host's thread pools (OpenMP, OpenBLAS, MKL, PyTorch's) of each xdist worker
_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def worker_threads(env: dict[str, str], jobs: int) -> dict[str, str]:
    """``env`` with each worker's host thread pools sized to its share of the cores
    (where the caller set none): ``jobs`` processes whose pools each take every core
    would run the host's share of the tests many threads to a core."""
    share = str(max(1, (os.cpu_count() or 1) // jobs))
    return {**{v: share for v in _THREAD_VARS}, **env}


def probe(device: str) -> str | None:
    """The device text when usmarray's default device under ``device``'s environment is
    on the named backend; None when it is not here."""
    try:
        r = subprocess.run(
            [sys.executable, "-c", _PROBE], env=device_env(device), capture_output=True,
            text=True, timeout=120,
        )
    except subprocess.TimeoutExpired:
        return None
    if r.returncode != 0 or not r.stdout.strip():
        return None
    backend, _, text = r.stdout.strip().partition(" ")
    return text if backend == device else None


def probe_anchor(anchor: Anchor, device: str) -> str | None:
    """None where ``anchor`` runs under ``device``'s environment, else why it does not."""
    try:
        r = subprocess.run([sys.executable, "-c", anchor.probe], env=device_env(device),
                           capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "its import took over 120 s"
    if r.returncode == 0:
        return None
    lines = r.stderr.strip().splitlines()
    return lines[-1] if lines else f"exit status {r.returncode}"


def site_root() -> str:
    import sysconfig

    return sysconfig.get_paths()["purelib"]


def suite_root(runs: Iterable[Iterable[str]]) -> str:
    """The directory that holds the packages the runs test (test ids are relative to
    it): their common parent; site-packages where none is found."""
    dirs = set()
    for args in runs:
        for mod in modules_and_options(tuple(args))[0]:
            d = _package_dir(mod.split(".")[0])
            if d is not None:
                dirs.add(str(d.parent))
    return os.path.commonpath(sorted(dirs)) if dirs else site_root()


def modules_and_options(args: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A run's modules (the arguments before the first option) and its options."""
    i = next((k for k, a in enumerate(args) if a.startswith("-")), len(args))
    return args[:i], args[i:]


def merge_runs(runs: Iterable[tuple[str, ...]]) -> tuple[tuple[str, ...], ...]:
    """The runs with the same options joined into one (their modules in order): one
    pytest process per option set, for pytest-xdist to spread."""
    merged: dict[tuple[str, ...], list[str]] = {}
    for args in runs:
        mods, opts = modules_and_options(args)
        merged.setdefault(opts, []).extend(m for m in mods if m not in merged.get(opts, []))
    return tuple((*mods, *opts) for opts, mods in merged.items())


def run_pytest(args: list[str], env: dict[str, str], results: Path, namespaces: str,
               extra: list[str], log: Path, rootdir: str) -> float:
    cmd = [
        sys.executable, "-m", "pytest", "-p", "clients.plugin", "-p", "no:cacheprovider",
        "--rootdir", rootdir, "-q", "-rN", "--tb=short", "--no-header",
        "-W", "ignore::DeprecationWarning", "-W", "ignore::pytest.PytestRemovedIn10Warning",
        f"--clients-namespaces={namespaces}", f"--clients-results={results}",
        "--pyargs", *args, *extra,
    ]
    t0 = time.perf_counter()
    with open(log, "w", encoding="utf-8") as f:
        f.write("$ " + shlex.join(cmd) + "\n")
        f.flush()
        subprocess.run(cmd, env=env, cwd="/tmp", stdout=f, stderr=subprocess.STDOUT)
    return time.perf_counter() - t0


def anchor_device(found: Iterable[str]) -> str | None:
    """The device the anchors run beside: CUDA where usmarray finds it, else the first."""
    found = list(found)
    return "cuda" if "cuda" in found else (found[0] if found else None)


def usable_anchors(names: list[str], device: str | None) -> list[str]:
    """The anchors of ``names`` that run beside ``device``; each other one is printed
    with the reason."""
    out = []
    for name in names:
        anchor = ANCHORS[name]
        if device is None:
            why: str | None = "usmarray finds no device here"
        elif anchor.device not in (None, device):
            why = f"it runs beside {anchor.device}, which usmarray does not find here"
        else:
            why = probe_anchor(anchor, device)
        if why is None:
            out.append(name)
        else:
            print(f"anchor {name}: skipped ({why})", flush=True)
    return out


def drop_overlapping_parts(parts: dict[str, dict], args: tuple[str, ...]) -> None:
    """Forget the earlier parts that a new run of ``args`` runs again (a module of theirs
    with the same options), so that no test is counted twice."""
    mods, opts = modules_and_options(args)
    for name, part in list(parts.items()):
        old_mods, old_opts = modules_and_options(tuple(part.get("args", ())))
        if old_opts == opts and set(old_mods) & set(mods):
            del parts[name]


def part_name(args: tuple[str, ...]) -> str:
    """A run's name in file names: its module, or the first of its modules and a count
    (a rerun of one module replaces that module's records only)."""
    mods = [x for x in args if not x.startswith("-") and "." in x and " " not in x]
    if not mods:
        return "run"
    return mods[0] if len(mods) == 1 else f"{mods[0]}+{len(mods) - 1}"


def versions() -> dict[str, str]:
    """The version of each client, reference and kernel library (``-``: not installed);
    CuPy under the name of the wheel that provides it (``cupy-cuda13x``, ...)."""
    cupy = importlib.metadata.packages_distributions().get("cupy", ["cupy"])[0]
    out = {}
    for dist in ("numpy", "scikit-learn", "scipy", "array-api-extra", "array-api-strict",
                 "array-api-compat", "dpnp", "dpctl", cupy, "torch", "pytest",
                 "pytest-xdist"):
        try:
            out[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            out[dist] = "-"
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m clients", description=__doc__.split("\n")[0])
    ap.add_argument("--suites", default="sklearn,scipy,xpx")
    ap.add_argument("--devices", default="sycl,numpy,cuda",
                    help="devices to try; those usmarray does not find are skipped")
    ap.add_argument("--quick", action="store_true", help="the CI slice")
    ap.add_argument("--sklearn-modules", default="all", choices=("all", "listed"),
                    help="all: every module with the parametrization and the estimator "
                    "checks; listed: ten modules of estimators, metrics, preprocessing and "
                    "the array-API helpers (SKLEARN_LISTED)")
    ap.add_argument("--scipy-modules", default="all",
                    help="all, or comma-separated subpackages (special,stats,...)")
    ap.add_argument("--out", default=str(ROOT / "clients" / "reports"))
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--no-strict", action="store_true", help="usmarray only")
    ap.add_argument("--scipy-marray", default="scipy", choices=("scipy", "exact", "substring"),
                    help="SciPy's MArray name test: as shipped, exact (the upstream fix), or "
                    "substring on the plain string (usmarray without its fix)")
    ap.add_argument("--upstream-fixes", action="store_true",
                    help="apply the upstream fixes docs/compatibility.md proposes (the "
                    "patches of clients/upstream/, SciPy's exact MArray test and host copies "
                    "in its xp_assert_*) to see what remains")
    ap.add_argument("--anchors", default="",
                    help="comma-separated libraries to run the same tests on beside the "
                    f"CUDA device, as references ({', '.join(ANCHORS)}); those that cannot "
                    "run are skipped")
    ap.add_argument("--jobs", type=int, default=0,
                    help="pytest-xdist workers per pytest process (-n); each suite then "
                    "runs as one process per option set")
    ap.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    a = ap.parse_args(argv)

    suites = quick_suites() if a.quick else full_suites(a.sklearn_modules, a.scipy_modules)
    names = [s for s in a.suites.split(",") if s]
    unknown_suites = [s for s in names if s not in suites]
    if unknown_suites and not a.quick:
        ap.error(f"--suites: unknown {', '.join(unknown_suites)}; known: {', '.join(suites)}")
    chosen = list(suites.values()) if a.quick else [suites[s] for s in names]
    unknown = [n for n in a.anchors.split(",") if n and n not in ANCHORS]
    if unknown:
        ap.error(f"--anchors: unknown {', '.join(unknown)}; known: {', '.join(ANCHORS)}")
    if a.jobs and importlib.util.find_spec("xdist") is None:
        ap.error("--jobs needs pytest-xdist, which is not installed here")
    out = Path(a.out)
    raw = out / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    meta_path = raw / "meta.json"
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}

    found: dict[str, str] = {}
    for dev in a.devices.split(","):
        text = meta.get("devices", {}).get(dev) if a.report_only else probe(dev)
        if text:
            found[dev] = text
        elif not a.report_only:
            print(f"device {dev}: not available here, skipped", flush=True)
    if not a.report_only:
        anchor_dev = anchor_device(found)
        anchors = usable_anchors([n for n in a.anchors.split(",") if n], anchor_dev)
        meta.setdefault("devices", {}).update(found)
        meta["versions"] = versions()
        meta["machine"] = f"{platform.machine()} {platform.processor() or ''}".strip()
        meta.setdefault("runs", {})
        for suite in chosen:
            runs = merge_runs(suite.runs) if a.jobs else suite.runs
            rootdir = suite_root(runs)
            for i, dev in enumerate(found):
                names = ["usmarray"] if (i or a.no_strict) else ["usmarray", "array_api_strict"]
                if dev == anchor_dev:
                    names += anchors
                namespaces = ",".join(names)
                extra = list(a.pytest_args)
                if a.jobs:
                    extra += ["-n", str(a.jobs)]
                marray = "exact" if a.upstream_fixes else a.scipy_marray
                extra.append(f"--clients-scipy-marray={marray}")
                env = device_env(dev)
                if a.jobs:
                    env = worker_threads(env, a.jobs)
                if a.upstream_fixes:
                    extra += ["--clients-scipy-host-assert"]
                    env[_upstream.ENV] = "1"
                entry = meta["runs"].setdefault(f"{suite.name}-{dev}", {"parts": {}})
                for args in runs:
                    drop_overlapping_parts(entry["parts"], args)
                    part = part_name(args)
                    res = raw / f"{suite.name}-{dev}-{part}.jsonl"
                    log = raw / f"{suite.name}-{dev}-{part}.log"
                    print(f"[{suite.name} / {dev}: {namespaces}] pytest {' '.join(args)}",
                          flush=True)
                    dt = run_pytest(list(args), env, res, namespaces, extra, log, rootdir)
                    entry["parts"][part] = {"seconds": round(dt), "args": list(args)}
                    print(f"    {dt:.0f} s", flush=True)
                entry.update(
                    seconds=sum(p["seconds"] for p in entry["parts"].values()),
                    strict=entry.get("strict", False) or i == 0, quick=a.quick,
                    scipy_marray=a.scipy_marray, upstream_fixes=a.upstream_fixes,
                    anchors=anchors if dev == anchor_dev else [],
                )
        meta_path.write_text(json.dumps(meta, indent=1))
    text = render(chosen, found, raw, meta)
    (out / "clients.md").write_text(text)
    print(text)
    return 0


def render(chosen: list[Suite], found: dict[str, str], raw: Path, meta: dict) -> str:
    rows = []
    covered: list[str] = []
    failures: dict[str, list[dict]] = {}
    modules: dict[str, dict[str, list[dict]]] = {}
    classes: dict[str, dict] = {}
    for suite in chosen:
        strict: list[dict] = []
        columns: dict[str, list[dict]] = {}
        anchor_columns: dict[str, list[dict]] = {}
        for dev in found:
            run = meta.get("runs", {}).get(f"{suite.name}-{dev}")
            if run is None:
                continue
            recs = rp.load(raw / f"{suite.name}-{dev}-{part}.jsonl" for part in run["parts"])
            if run.get("strict") and not strict:  # array-api-strict once, from the first
                strict = [r for r in recs if r.get("ns") == "array_api_strict"]
                rows.append((suite.label, "array-api-strict", "CPU (NumPy)",
                             rp.counts(strict), "(with the next row)"))
            usm = [r for r in recs if r.get("ns") == "usmarray"]
            rows.append((suite.label, "usmarray", f"{dev}: {found[dev]}", rp.counts(usm),
                         f"{run['seconds']} s"))
            columns[f"usmarray ({dev})"] = usm
            anchored = {}
            for name in run.get("anchors", []):
                anchor = ANCHORS[name]
                anchored[anchor.label] = [r for r in recs if r.get("ns") == name]
                anchor_columns[f"{anchor.label} ({dev})"] = anchored[anchor.label]
                rows.append((suite.label, anchor.label, f"{dev}: {found[dev]}",
                             rp.counts(anchored[anchor.label]), "(with the usmarray row)"))
            if anchored:
                classes[f"{suite.label} / {dev}"] = rp.against_anchors(usm, anchored)
            only, _ = rp.usm_only_failures(usm, strict)
            failures[f"{suite.label} / {dev}"] = only
            covered.append(f"- {suite.label} / {dev}: " + ", ".join(
                f"`{p}` ({v['seconds']} s)" for p, v in sorted(run.get("parts", {}).items())))
        if strict:
            columns["array-api-strict"] = strict
        modules[suite.label] = columns | anchor_columns
    v = meta.get("versions", {})
    head = ", ".join(f"{k} {val}" for k, val in v.items())
    labels = ["array-api-strict"] + [ANCHORS[n].label for n in ANCHORS if any(
        n in run.get("anchors", []) for run in meta.get("runs", {}).values())]
    text = (
        f"# Client suites: usmarray beside {', '.join(labels)}\n\n"
        f"Written by `python -m clients` ({head}).\n\n"
        + rp.markdown_table(rows)
        + "\n\nWhat each usmarray row ran (pytest runs, their times):\n\n"
        + "\n".join(covered)
        + "\n\n## Per module (passed / failed)\n\n"
        + rp.module_table(modules)
    )
    if classes:
        text += ("\n\n## usmarray failures against the anchors\n\n"
                 "Each usmarray failure on the anchors' device, by what its twins did on "
                 "the anchors (the same test of the client with the anchor's namespace, on "
                 "the same device, in the same run).\n\n" + rp.anchors_section(classes))
    return text + (
        "\n\n## usmarray-only failures by cause\n\n"
        "A usmarray test that failed where the same test on array-api-strict did not "
        "fail (it passed, was skipped, or has no array-api-strict twin).\n\n"
        + rp.causes_section(failures)
    )


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["main", "render", "Counter"]
