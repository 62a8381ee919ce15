"""The tables of docs/performance.md, from the current results in benchmarks/results/.

``python -m benchmarks.report_performance [--check]``

benchmarks/results/ holds one folder per machine kind (``nvidia-h100``, ``nvidia-h200``,
``cpu-2core``, ...), each with the latest run of each benchmark on that kind:
``gpu_matrix.json`` and ``gpu_sklearn.json`` (``python -m benchmarks.gpu_matrix`` and
``benchmarks.gpu_sklearn``), ``cpu_matrix_<backend>.json`` (``benchmarks.cpu_matrix``),
``bench.json`` (``python -m benchmarks``) and the ``cubed_*.md`` tables of the cubed
benchmarks.  docs/performance.md is prose with generated blocks: the text between
``<!-- begin: NAME -->`` and ``<!-- end: NAME -->`` is rewritten from those files, the
rest is left as written.  ``--check`` writes nothing and exits 1 if a block is stale.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
PAGE = ROOT / "docs" / "performance.md"
#: a ratio under this is listed as a miss (the matrices' own threshold for GPUs)
GPU_BELOW = 0.92
_BLOCK = re.compile(r"<!-- begin: (?P<name>[\w:./-]+) -->\n.*?<!-- end: (?P=name) -->", re.S)


def geomean(values: list[float]) -> float:
    ok = [v for v in values if v is not None and math.isfinite(v) and v > 0]
    return math.exp(statistics.fmean(math.log(v) for v in ok)) if ok else math.nan


def _load(kind: str, name: str) -> dict[str, Any]:
    return json.loads((RESULTS / kind / name).read_text())


def _table(headers: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def _us(s: float | None) -> str:
    if not _ok(s):
        return "-"
    assert s is not None
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} us"


def _r(x: float | None) -> str:
    return f"{x:.2f}" if _ok(x) else "-"


def _ok(x: float | None) -> bool:
    return x is not None and math.isfinite(x)


def _rated(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows with a best-peer ratio (a row whose every peer failed has none)."""
    return [r for r in rows if _ok(r["ratios"].get("best"))]


def _summary(rows: list[dict[str, Any]], below: float) -> tuple[str, str, str]:
    rs = _rated(rows)
    n_below = sum(r["ratios"]["best"] < below for r in rs)
    return (_r(geomean([r["ratios"]["best"] for r in rs])),
            _r(geomean([r["ratios"].get("A/A", math.nan) for r in rs])),
            f"{n_below} of {len(rs)}")


def _gpu_kinds() -> list[str]:
    return sorted(p.name for p in RESULTS.iterdir() if (p / "gpu_matrix.json").exists())


def gpu_machines() -> str:
    """Per GPU kind: the GPU, the CUDA runtime and the libraries' versions."""
    rows = []
    for kind in _gpu_kinds():
        d = _load(kind, "gpu_matrix.json")
        v, rt = d["versions"], d["cuda_runtime"]
        rows.append([f"`{kind}`", d["gpu"], f"{rt // 1000}.{rt % 1000 // 10}",
                     *[v.get(k, "-") for k in ("cupy", "torch", "numpy", "python")]])
    return _table(["machine kind", "GPU", "CUDA runtime", "CuPy", "PyTorch", "NumPy", "Python"], rows)


def gpu_summary() -> str:
    """Per GPU kind: the geometric mean of best peer / usmarray per size class."""
    rows = []
    for kind in _gpu_kinds():
        d = _load(kind, "gpu_matrix.json")
        sk = _load(kind, "gpu_sklearn.json")["rows"] if (RESULTS / kind / "gpu_sklearn.json").exists() else []
        for size, label, rs in [("large", "large (device time)", d["rows"]),
                                ("small", "small (host time per call)", d["rows"]),
                                ("sklearn", "scikit-learn fits", sk)]:
            g, aa, n = _summary([r for r in rs if r["size"] == size], GPU_BELOW)
            rows.append([f"`{kind}`", label, f"**{g}**", aa, n])
    return _table(["machine kind", "size class", "best peer / usmarray, geometric mean",
                   "A/A", f"ops below {GPU_BELOW}"], rows)


def gpu_families() -> str:
    """Per family of ops, per GPU kind and size class."""
    kinds = _gpu_kinds()
    data = {k: _load(k, "gpu_matrix.json")["rows"] for k in kinds}
    families = sorted({r["family"] for rs in data.values() for r in rs})
    headers = ["family", "ops"] + [f"`{k}` {s}" for k in kinds for s in ("large", "small")]
    rows = []
    for f in families:
        line = [f, str(len({r["op"] for r in data[kinds[0]] if r["family"] == f}))]
        for k in kinds:
            for s in ("large", "small"):
                rs = _rated([r for r in data[k] if r["family"] == f and r["size"] == s])
                line.append(_r(geomean([r["ratios"]["best"] for r in rs])))
        rows.append(line)
    return _table(headers, rows)


def gpu_ops(kind: str, size: str) -> str:
    """Every op of one size class on one kind: times and ratios."""
    d = _load(kind, "gpu_matrix.json")
    peers = d["peers"]
    rows = []
    for r in d["rows"]:
        if r["size"] != size:
            continue
        t, q = r["times_s"], r["ratios"]
        shape = "x".join(map(str, r["shape"])) if r.get("shape") else "-"
        best = q.get("best")
        mark = f"**{_r(best)}**" if _ok(best) and best < GPU_BELOW else _r(best)
        rows.append([r["family"], r["op"], shape, _us(t.get("usm")),
                     *[_us(t.get(p)) for p in peers], mark, _r(q.get("A/A"))])
    return _table(["family", "op", "shape", "usmarray", *peers, "best peer / usmarray", "A/A"], rows)


def gpu_sklearn() -> str:
    """The scikit-learn fits, per estimator and GPU kind."""
    kinds = [k for k in _gpu_kinds() if (RESULTS / k / "gpu_sklearn.json").exists()]
    data = {k: {r["op"]: r for r in _load(k, "gpu_sklearn.json")["rows"]} for k in kinds}
    ops = list(data[kinds[0]])
    headers = ["fit (200000x128 float32)"]
    for k in kinds:
        headers += [f"`{k}` usmarray", "best peer / usmarray"]
    rows, notes = [], {}
    for op in ops:
        line = [op]
        for k in kinds:
            r = data[k].get(op)
            if r is None or r["errors"]:
                line += ["-", "-"]
                if r is not None:
                    notes[op] = next(iter(r["errors"].values()))
                continue
            line += [_us(r["times_s"].get("usm")), _r(r["ratios"].get("best"))]
        rows.append(line)
    return "\n\n".join([_table(headers, rows), *(f"{op}: {msg}." for op, msg in notes.items())])


def elementwise_layouts(kind: str) -> str:
    """The elementwise layout section (``benchmarks.elementwise_layouts``) of one GPU kind:
    kernel time per layout class against CuPy and PyTorch, byte rates, and host time
    per call at 100 elements."""
    d = _load(kind, "elementwise_layouts.json")
    rows = []
    for r in d["rows"]:
        us = r["us"]
        rows.append([f"`{r['case']}`", f"{us.get('usmarray', math.nan):.1f}",
                     f"{us.get('cupy', math.nan):.1f}", f"{us.get('torch', math.nan):.1f}",
                     f"**{_r(r['ratio_best_peer'])}**", _r(r["aa"]), f"{r['gb_s']:.0f}"])
    parts = [f"{d['device']}, {d['size']} elements, median of {d['rounds']} rounds of "
             f"{d['inner']} calls (CUDA events); geometric mean of the ratios: "
             f"**{d['geomean']:.2f}**.",
             _table(["call", "usmarray us", "CuPy us", "PyTorch us", "best peer / usmarray",
                     "A/A", "usmarray GB/s"], rows)]
    if d.get("host"):
        host = [[f"`{r['case']}`", *[f"{r['us'].get(k, math.nan):.1f}"
                                     for k in ("usmarray", "cupy", "torch")],
                 _r(r["ratio_best_peer"]), _r(r.get("aa"))] for r in d["host"]]
        parts += ["Host time per call at 100 elements, without synchronization (us; the "
                  "libraries interleaved batch by batch):",
                  _table(["call", "usmarray", "CuPy", "PyTorch", "best peer / usmarray", "A/A"],
                         host)]
    return "\n\n".join(parts)


def cpu_matrix(kind: str = "cpu-2core") -> str:
    """The CPU ops matrix: usmarray against the library it calls, per backend."""
    rows = []
    for backend in ("numpy", "sycl"):
        path = RESULTS / kind / f"cpu_matrix_{backend}.json"
        if not path.exists():
            continue
        d = json.loads(path.read_text())
        for size in ("large", "small"):
            rs = [r for r in d["rows"] if r["size"] == size]
            if not rs:
                continue
            g, aa, n = _summary(rs, d["below"])
            rows.append([d["title"].split(": ", 1)[-1], size, d["usmarray_device"].split(" (")[0],
                         f"**{g}**", aa, f"{n} below {d['below']}"])
    return _table(["comparison", "size class", "device", "provider / usmarray, geometric mean",
                   "A/A", "ops"], rows)


def cpu_calls(kind: str = "cpu-2core") -> str:
    """Per-call cost of small calls (``python -m benchmarks``): 100 float64 elements."""
    d = _load(kind, "bench.json")
    cols = [("usm", "usmarray (SYCL)"), ("raw", "dpnp.tensor"), ("usm_np", "usmarray (NumPy backend)"),
            ("numpy", "NumPy"), ("strict", "array-api-strict")]
    rows = [[r["op"], *[_us(r["stats"].get(k, {}).get("median_s")) for k, _ in cols]]
            for r in d["small"]]
    return _table(["op", *[c for _, c in cols]], rows)


def include(path: str) -> str:
    """A results file as it is: a Markdown table file verbatim, any other as text."""
    text = (RESULTS / path).read_text().rstrip("\n")
    return text if path.endswith(".md") else f"```text\n{text}\n```"


GENERATORS: dict[str, Callable[..., str]] = {
    "gpu-machines": gpu_machines, "gpu-summary": gpu_summary, "gpu-families": gpu_families,
    "gpu-ops": gpu_ops, "gpu-sklearn": gpu_sklearn, "cpu-matrix": cpu_matrix,
    "cpu-calls": cpu_calls, "include": include, "elementwise-layouts": elementwise_layouts,
}


def block(name: str) -> str:
    """The text of one generated block: ``gpu-ops:nvidia-h100:large`` calls
    ``gpu_ops("nvidia-h100", "large")``."""
    fn, *args = name.split(":")
    if fn not in GENERATORS:
        raise ValueError(f"docs/performance.md names an unknown block {name!r}; "
                         f"known: {', '.join(sorted(GENERATORS))}")
    return GENERATORS[fn](*args)


def render(text: str) -> str:
    """``text`` with every generated block rewritten (a blank line on either side, so
    Markdown does not take a table for part of the HTML comment)."""
    def fill(m: re.Match[str]) -> str:
        name = m.group("name")
        return f"<!-- begin: {name} -->\n\n{block(name)}\n\n<!-- end: {name} -->"

    return _BLOCK.sub(fill, text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.report_performance",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 if docs/performance.md differs from the results")
    args = ap.parse_args(argv)
    old = PAGE.read_text()
    new = render(old)
    if args.check:
        if new != old:
            print(f"{PAGE} is stale: run python -m benchmarks.report_performance")
            return 1
        return 0
    PAGE.write_text(new)
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
