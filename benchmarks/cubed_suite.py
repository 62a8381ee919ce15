"""A slice of cubed's own test suite, run with cubed's NumPy backend and with usmarray
(``CUBED_BACKEND_ARRAY_API_MODULE=usmarray.cubed``), counts side by side.

The slice is the installed ``cubed/tests`` files that exercise the backend namespace
(the array API functions, the nan functions, linalg, indexing), with the local
executors (``single-threaded``, and ``threads`` unless ``--quick``); the ``processes``,
``dask`` and ``cloud`` cases are left out (the Dask path has its own test,
tests/test_cubed_dask.py).  A usmarray failure listed in :data:`KNOWN` is cubed's own,
with its reason; any other failure, or any NumPy-backend failure, makes the exit status 1.

    python -m benchmarks.cubed_suite [--quick] [--out DIR]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

FILES = ("test_array_api.py", "array/test_nan_functions.py", "test_linalg.py",
         "test_indexing.py")

_VAR = (
    "cubed's var/std chunk functions (cubed/array_api/statistical_functions.py: "
    "_var_combine, _var_aggregate) call take(a, 0, axis=) with a Python int index (the "
    "standard takes an integer array) and mix int64 counts with float64 means, and a "
    "float `correction` with the int64 count, through array operators: the standard "
    "defines no integer/floating promotion, and usm_ndarray's operators refuse it"
)
_INDEX = (
    "cubed's _assemble_index_chunk (cubed/core/ops.py) indexes backend chunks with the "
    "selections of Zarr's indexer, which are NumPy integer arrays; the standard admits "
    "only the namespace's own arrays as array indices (IndexError)"
)
#: test-name pattern -> why it fails with usmarray (cubed's own behaviour)
KNOWN: dict[str, str] = {
    r"test_array_api\.py::test_(var|std)(\[|_int|__poorly)": _VAR,
    r"test_array_api\.py::test_take\[": _INDEX,
    r"test_indexing\.py::test_int_array_index_": _INDEX,
}


def _run(backend: str | None, quick: bool, xml: Path) -> dict[str, str]:
    import cubed

    tests = Path(cubed.__file__).parent / "tests"
    env = dict(os.environ)
    env.pop("CUBED_BACKEND_ARRAY_API_MODULE", None)
    if backend:
        env["CUBED_BACKEND_ARRAY_API_MODULE"] = backend
    expr = "not processes and not dask and not cloud" + (" and not threads" if quick else "")
    # --tb=line: a long traceback through cubed made pytest 8 hit CPython 3.11's "AST
    # constructor recursion depth mismatch" (an INTERNALERROR) while quoting source
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--tb=line",
           "-k", expr, f"--junitxml={xml}", *[str(tests / f) for f in FILES]]
    label = backend or "numpy"
    print(f"cubed's tests with the {label} backend ({expr}):", flush=True)
    t0 = time.perf_counter()
    with subprocess.Popen(cmd, env=env, cwd=tempfile.gettempdir(), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:  # pytest -q ends each row of results with "[ NN%]"
            pct = re.search(r"\[\s*(\d+)%\]\s*$", line)
            if pct:
                print(f"  {label}: {pct.group(1):>3}% of the tests run, "
                      f"{time.perf_counter() - t0:.0f} s", flush=True)
    out: dict[str, str] = {}
    for case in ET.parse(xml).getroot().iter("testcase"):
        name = case.get("classname", "").rsplit(".", 1)[-1] + ".py::" + case.get("name", "")
        if case.find("failure") is not None or case.find("error") is not None:
            out[name] = "failed"
        elif case.find("skipped") is not None:
            out[name] = "skipped"
        else:
            out[name] = "passed"
    return out


def _known(name: str) -> str | None:
    for pat, why in KNOWN.items():
        if re.search(pat, name):
            return why
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="single-threaded executor only")
    ap.add_argument("--out", default=None, help="write suite.md here")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        res = {
            "numpy": _run(None, args.quick, Path(tmp) / "numpy.xml"),
            "usmarray": _run("usmarray.cubed", args.quick, Path(tmp) / "usm.xml"),
        }
    lines = ["| backend | passed | failed: cubed's own (known) | failed: other | skipped |",
             "|---|---|---|---|---|"]
    unexpected: list[str] = []
    for be, r in res.items():
        failed = [n for n, o in r.items() if o == "failed"]
        known = [n for n in failed if be == "usmarray" and _known(n)]
        other = [n for n in failed if n not in known]
        unexpected += [f"{be}: {n}" for n in other]
        lines.append(f"| {be} | {sum(o == 'passed' for o in r.values())} | {len(known)} | "
                     f"{len(other)} | {sum(o == 'skipped' for o in r.values())} |")
    reasons: dict[str, list[str]] = {}
    for n, o in res["usmarray"].items():
        if o == "failed" and _known(n):
            reasons.setdefault(_known(n) or "", []).append(n)
    lines += ["", "Known usmarray failures (cubed's own):"]
    for why, names in reasons.items():
        lines.append(f"- {len(names)} tests ({', '.join(sorted(names)[:3])}, ...): {why}")
    fixed = [p for p in KNOWN if not any(re.search(p, n) and o == "failed"
                                         for n, o in res["usmarray"].items())]
    if fixed:
        lines.append(f"- patterns that no longer fail (update KNOWN): {fixed}")
    if unexpected:
        lines += ["", "Unexpected failures:"] + [f"- {u}" for u in unexpected]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / "suite.md").write_text(text)
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
