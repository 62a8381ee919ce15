"""Run the official array-api-tests suite against usmarray and report.

Usage: ``python -m conformance [--version 2025.12] [--max-examples N] [--device FILTER]
[--skips conformance/skips.txt] [tests ...]``.  The suite comes from
``ARRAY_API_TESTS_DIR`` or is cloned at the pinned commit (with its spec submodule)
into ``.array-api-tests/``.  Writes ``conformance/reports/<stamp>.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUITE_URL = "https://github.com/data-apis/array-api-tests.git"
SUITE_COMMIT = "55fcc60179efa2680ddd6cd926ddf17b83530e2b"
DEFAULT_DIR = ROOT / ".array-api-tests"
REPORTS = Path(__file__).resolve().parent / "reports"


def read_skips(path: Path, device: str | None = None) -> list[tuple[str, str]]:
    """(test id, reason) pairs of the entries that apply to ``device`` (the default
    device's filter string); an entry without a reason is an error.  An entry that
    starts with ``@KIND `` applies only where the device's filter starts with KIND."""
    entries = []
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        test_id, sep, reason = line.partition("  # ")
        if not sep or not reason.strip():
            raise SystemExit(f"{path}:{lineno}: skip entry {test_id!r} has no '  # reason'")
        kind = None
        if test_id.startswith("@"):
            kind, _, test_id = test_id[1:].partition(" ")
        if kind is None or (device or "").startswith(kind):
            entries.append((test_id.strip(), reason.strip()))
    return entries


def locate_suite() -> Path:
    env = os.environ.get("ARRAY_API_TESTS_DIR")
    if env:
        path = Path(env).expanduser().resolve()
        if not (path / "array_api_tests").is_dir():
            raise SystemExit(f"ARRAY_API_TESTS_DIR={env} holds no array_api_tests/ folder")
        return path
    if (DEFAULT_DIR / "array_api_tests").is_dir():
        return DEFAULT_DIR
    print(f"cloning {SUITE_URL} at {SUITE_COMMIT[:12]} into {DEFAULT_DIR}", flush=True)
    subprocess.run(["git", "clone", "--quiet", SUITE_URL, str(DEFAULT_DIR)], check=True)
    subprocess.run(["git", "-C", str(DEFAULT_DIR), "checkout", "--quiet", SUITE_COMMIT], check=True)
    subprocess.run(
        ["git", "-C", str(DEFAULT_DIR), "submodule", "update", "--init", "--quiet"], check=True
    )
    return DEFAULT_DIR


def summarize(report: dict, version: str, device: str | None, skips: int) -> tuple[str, Counter]:
    outcomes: Counter = Counter(t["outcome"] for t in report.get("tests", []))
    lines = [
        f"# array-api-tests against usmarray ({version})",
        "",
        f"- date: {_dt.datetime.now().isoformat(timespec='seconds')}",
        f"- device: {device or 'default'}",
        f"- skips file entries: {skips}",
        "- outcomes: " + ", ".join(f"{k}: {v}" for k, v in sorted(outcomes.items())),
        "",
    ]
    failed = [t for t in report.get("tests", []) if t["outcome"] in ("failed", "error")]
    if failed:
        lines += ["## Failures", ""]
        for t in failed:
            msg = (t.get("call") or t.get("setup") or {}).get("crash", {}).get("message", "")
            lines.append(f"- `{t['nodeid']}`: {msg.splitlines()[0][:200] if msg else ''}")
    return "\n".join(lines) + "\n", outcomes


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m conformance", description=__doc__,
        epilog="Options not listed here are passed to pytest (and its plugins).")
    p.add_argument("--version", default="2025.12", help="standard version to test (default 2025.12)")
    p.add_argument("--max-examples", type=int, default=100, help="hypothesis examples per test")
    p.add_argument("--device", default=None,
                   help="the default device (USMARRAY_DEFAULT_DEVICE), e.g. opencl:cpu, numpy, cuda:0")
    p.add_argument("--skips", default=str(Path(__file__).parent / "skips.txt"))
    p.add_argument("--keep-deadline", action="store_true", help="keep hypothesis' 800 ms deadline")
    p.add_argument("tests", nargs="*", help="test files or ids inside array_api_tests/ (default: all)")
    args, extra = p.parse_known_args(argv)

    suite = locate_suite()
    skips = read_skips(Path(args.skips), args.device or os.environ.get("USMARRAY_DEFAULT_DEVICE"))
    REPORTS.mkdir(exist_ok=True)
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    json_path = REPORTS / f"{stamp}.json"
    env = dict(os.environ)
    env.update(
        ARRAY_API_TESTS_MODULE="usmarray",
        ARRAY_API_TESTS_VERSION=args.version,
        USMARRAY_API_VERSION=args.version,
        SYCL_CACHE_PERSISTENT="1",
    )
    if args.device:
        env["USMARRAY_DEFAULT_DEVICE"] = args.device
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("".join(f"{tid}\n" for tid, _ in skips))
        skip_ids = f.name
    targets = [t if t.startswith("array_api_tests") else f"array_api_tests/{t}" for t in args.tests]
    cmd = [
        sys.executable, "-m", "pytest", *(targets or ["array_api_tests/"]),
        f"--max-examples={args.max_examples}", "--skips-file", skip_ids,
        "--json-report", f"--json-report-file={json_path}", "-p", "no:cacheprovider",
        "-q", "--disable-warnings", *extra,
    ]
    if not args.keep_deadline:
        # Hypothesis' 800 ms deadline measures machine load, not conformance: a shared
        # 2-core runner trips it on large generated arrays.
        cmd.append("--hypothesis-disable-deadline")
    print("running:", " ".join(cmd), flush=True)
    rc = subprocess.call(cmd, cwd=suite, env=env)
    os.unlink(skip_ids)
    if not json_path.exists():
        print("no report written: pytest failed to start", file=sys.stderr)
        return rc or 1
    report = json.loads(json_path.read_text())
    md, outcomes = summarize(report, args.version, args.device, len(skips))
    (REPORTS / f"{stamp}.md").write_text(md)
    print(md)
    print(f"reports: {json_path} and {json_path.with_suffix('.md')}")
    if rc == 5:
        print("pytest collected no tests: that is a failure here", file=sys.stderr)
        return 1
    return rc
