"""``python -m clients``: run the clients' own array-API test suites against usmarray and
array-api-strict, and write the table suite x namespace x device.

    python -m clients                          # every suite, every device found, full
    python -m clients --suites sklearn,xpx --devices sycl,numpy
    python -m clients --quick                  # the CI slice (seconds, not hours)
    python -m clients --report-only            # rebuild the table from earlier records

Devices: ``sycl`` (the SYCL default device), ``numpy`` (``USMARRAY_DEFAULT_DEVICE=numpy``)
and ``cuda`` (``USMARRAY_DEFAULT_DEVICE=cuda``), each run where usmarray finds it.
array-api-strict does not depend on the device and runs once, beside the first one.
Each (suite, device) is one or more pytest processes with ``-p clients.plugin``; their
records go to ``<out>/raw/<suite>-<device>-<n>.jsonl``, the table to ``<out>/clients.md``.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import platform
import shlex
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from . import _report as rp
from . import _upstream
from ._suites import Suite, full_suites, quick_suites

ROOT = Path(__file__).resolve().parent.parent
DEVICES = {"sycl": None, "numpy": "numpy", "cuda": "cuda"}
_PROBE = (
    "import usmarray as xp; x = xp.asarray(0); print(x._be.name, x.device)"
)


def device_env(device: str) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("USMARRAY_DEFAULT_DEVICE", None)
    if DEVICES[device] is not None:
        env["USMARRAY_DEFAULT_DEVICE"] = DEVICES[device]  # type: ignore[assignment]
    env["SCIPY_ARRAY_API"] = "1"
    env.setdefault("SYCL_CACHE_PERSISTENT", "1")
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p
    )
    return env


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


def site_root() -> str:
    import sysconfig

    return sysconfig.get_paths()["purelib"]


def run_pytest(args: list[str], env: dict[str, str], results: Path, namespaces: str,
               extra: list[str], log: Path) -> float:
    cmd = [
        sys.executable, "-m", "pytest", "-p", "clients.plugin", "-p", "no:cacheprovider",
        "--rootdir", site_root(), "-q", "-rN", "--tb=short", "--no-header",
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


def part_name(args: tuple[str, ...]) -> str:
    """A run's name in file names: its module, or the first of its modules and a count
    (a rerun of one module replaces that module's records only)."""
    mods = [x for x in args if not x.startswith("-") and "." in x and " " not in x]
    if not mods:
        return "run"
    return mods[0] if len(mods) == 1 else f"{mods[0]}+{len(mods) - 1}"


def versions() -> dict[str, str]:
    out = {}
    for dist in ("numpy", "scikit-learn", "scipy", "array-api-extra", "array-api-strict",
                 "array-api-compat", "dpnp", "dpctl", "pytest"):
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
                    "checks; listed: issue 15's ten modules")
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
    ap.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    a = ap.parse_args(argv)

    suites = quick_suites() if a.quick else full_suites(a.sklearn_modules, a.scipy_modules)
    chosen = list(suites.values()) if a.quick else [suites[s] for s in a.suites.split(",")]
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
        meta.setdefault("devices", {}).update(found)
        meta["versions"] = versions()
        meta["machine"] = f"{platform.machine()} {platform.processor() or ''}".strip()
        meta.setdefault("runs", {})
        for suite in chosen:
            for i, dev in enumerate(found):
                namespaces = "usmarray" if (i or a.no_strict) else "usmarray,array_api_strict"
                extra = list(a.pytest_args)
                marray = "exact" if a.upstream_fixes else a.scipy_marray
                extra.append(f"--clients-scipy-marray={marray}")
                env = device_env(dev)
                if a.upstream_fixes:
                    extra += ["--clients-scipy-host-assert"]
                    env[_upstream.ENV] = "1"
                entry = meta["runs"].setdefault(f"{suite.name}-{dev}", {"parts": {}})
                for args in suite.runs:
                    part = part_name(args)
                    res = raw / f"{suite.name}-{dev}-{part}.jsonl"
                    log = raw / f"{suite.name}-{dev}-{part}.log"
                    print(f"[{suite.name} / {dev}] pytest {' '.join(args)}", flush=True)
                    dt = run_pytest(list(args), env, res, namespaces, extra, log)
                    entry["parts"][part] = {"seconds": round(dt), "args": list(args)}
                    print(f"    {dt:.0f} s", flush=True)
                entry.update(
                    seconds=sum(p["seconds"] for p in entry["parts"].values()),
                    strict=entry.get("strict", False) or i == 0, quick=a.quick,
                    scipy_marray=a.scipy_marray, upstream_fixes=a.upstream_fixes,
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
    for suite in chosen:
        strict: list[dict] = []
        for dev in found:
            run = meta.get("runs", {}).get(f"{suite.name}-{dev}")
            if run is None:
                continue
            recs = rp.load(raw.glob(f"{suite.name}-{dev}-*.jsonl"))
            if run.get("strict") and not strict:  # array-api-strict once, from the first
                strict = [r for r in recs if r.get("ns") == "array_api_strict"]
                rows.append((suite.label, "array-api-strict", "CPU (NumPy)",
                             rp.counts(strict), "(with the next row)"))
            usm = [r for r in recs if r.get("ns") == "usmarray"]
            rows.append((suite.label, "usmarray", f"{dev}: {found[dev]}", rp.counts(usm),
                         f"{run['seconds']} s"))
            only, _ = rp.usm_only_failures(usm, strict)
            failures[f"{suite.label} / {dev}"] = only
            covered.append(f"- {suite.label} / {dev}: " + ", ".join(
                f"`{p}` ({v['seconds']} s)" for p, v in sorted(run.get("parts", {}).items())))
    v = meta.get("versions", {})
    head = ", ".join(f"{k} {val}" for k, val in v.items())
    return (
        "# Client suites: usmarray beside array-api-strict\n\n"
        f"Written by `python -m clients` ({head}).\n\n"
        + rp.markdown_table(rows)
        + "\n\nWhat each usmarray row ran (pytest runs, their times):\n\n"
        + "\n".join(covered)
        + "\n\n## usmarray-only failures by cause\n\n"
        "A usmarray test that failed where the same test on array-api-strict did not "
        "fail (it passed, was skipped, or has no array-api-strict twin).\n\n"
        + rp.causes_section(failures)
    )


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["main", "render", "Counter"]
