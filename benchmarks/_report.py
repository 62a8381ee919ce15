"""Tables, target checks and the JSON record of a run."""

from __future__ import annotations

import math
from typing import Any

from . import scaling
from ._context import LABELS
from ._timing import Stats, ratio

# targets (printed, never asserted)
SMALL_KERNEL_RATIO = 1.05
LARGE_KERNEL_RATIO = 1.03
LARGE_MIN_ELEMENTS = 10**6  # the 1.03 target applies from here on (kernel-dominated)
METADATA_ADDED_S = 0.6e-6
SAME_CONTEXT_MAX_S = 50e-6
CROSS_CONTEXT_MIN_FRACTION = 0.8
CROSS_CONTEXT_MIN_BYTES = 64 * 1024 * 1024
NUMPY_BACKEND_SPEEDUP = 4.0


# ---- formatting ---------------------------------------------------------------------------
def fmt_time(s: float | None) -> str:
    if s is None or not math.isfinite(s):
        return "-"
    if s < 1e-3:
        return f"{s * 1e6:.2f} us"
    if s < 1.0:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.3f} s"


def fmt_ratio(r: float) -> str:
    return f"{r:.3f}" if math.isfinite(r) else "n/a"


def fmt_rate(r: float, unit: str = "GB/s") -> str:
    if not math.isfinite(r):
        return "-"
    return f"{r:.2f} {unit}" if r < 100 else f"{r:.0f} {unit}"


def cell(st: Stats | None) -> str:
    if st is None:
        return "-"
    if not st.ok:
        return st.error or "n/a"
    return fmt_time(st.median)


def table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [len(h) for h in headers]
    for r in rows:
        for i, c in enumerate(r):
            widths[i] = max(widths[i], len(c))
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=False))
    sep = "  ".join("-" * w for w in widths)
    body = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)) for r in rows]
    return "\n".join([line, sep, *body])


def _median(st: Stats | None) -> float:
    return st.median if st is not None and st.ok else math.nan


def added_s(row: dict[str, Any]) -> float:
    s = row["stats"]
    return _median(s.get("usm")) - _median(s.get("raw"))


# ---- section tables ------------------------------------------------------------------------
def small_table(rows: list[dict[str, Any]], keys: list[str]) -> str:
    headers = ["op", "kind"] + [LABELS[k] for k in keys] + [
        "usm/raw", "added", "A/A", "usm/numpy", "target"]
    if "usm_np" in keys and "strict" in keys:
        headers.append("strict/usm[np]")
    out = []
    for r in rows:
        s = r["stats"]
        rr = ratio(s.get("usm"), s.get("raw"))
        add = added_s(r)
        if r["kind"] == "metadata":
            ok = add <= METADATA_ADDED_S if math.isfinite(add) else None
            tgt = f"+<={METADATA_ADDED_S * 1e6:g}us"
        else:
            ok = rr <= SMALL_KERNEL_RATIO if math.isfinite(rr) else None
            tgt = f"<={SMALL_KERNEL_RATIO}"
        line = [r["op"], r["kind"]] + [cell(s.get(k)) for k in keys] + [
            fmt_ratio(rr),
            f"{add * 1e6:+.2f} us" if math.isfinite(add) else "n/a",
            fmt_ratio(ratio(s.get("raw_aa"), s.get("raw"))),
            fmt_ratio(ratio(s.get("usm"), s.get("numpy"))),
            f"{tgt} {'n/a' if ok is None else 'PASS' if ok else 'FAIL'}",
        ]
        if "usm_np" in keys and "strict" in keys:
            line.append(fmt_ratio(ratio(s.get("strict"), s.get("usm_np"))))
        out.append(line)
    return table(headers, out)


def rate(row: dict[str, Any], key: str) -> float:
    """GB/s of a variant (bytes each op must move / median time)."""
    m = _median(row["stats"].get(key))
    return row["bytes"] / m / 1e9 if m > 0 else math.nan


def gflops(row: dict[str, Any], key: str) -> float:
    m = _median(row["stats"].get(key))
    return row["flops"] / m / 1e9 if row.get("flops") and m > 0 else math.nan


def throughput_table(rows: list[dict[str, Any]]) -> str:
    headers = ["op", "dtype", "n", "usmarray", "dpnp.tensor", "numpy", "api-strict",
               "usm/raw", "A/A", "usm/numpy", "usm rate", "raw rate", "numpy rate"]
    out = []
    for r in rows:
        s = r["stats"]
        if r.get("flops"):
            rates = [fmt_rate(gflops(r, k), "GFLOP/s") for k in ("usm", "raw", "numpy")]
        else:
            rates = [fmt_rate(rate(r, k)) for k in ("usm", "raw", "numpy")]
        out.append([
            r["op"], r["dtype"], f"{r['n']:.0e}", cell(s.get("usm")), cell(s.get("raw")),
            cell(s.get("numpy")), cell(s.get("strict")),
            fmt_ratio(ratio(s.get("usm"), s.get("raw"))),
            fmt_ratio(ratio(s.get("raw_aa"), s.get("raw"))),
            fmt_ratio(ratio(s.get("usm"), s.get("numpy"))), *rates,
        ])
    return table(headers, out)


def migration_table(rows: list[dict[str, Any]]) -> str:
    headers = ["test", "size", "usmarray", "dpnp.tensor", "memcpy", "alloc+copy", "usm/raw",
               "usm rate", "memcpy rate", "usm % memcpy", "usm % alloc+copy"]
    out = []
    for r in rows:
        s = r["stats"]
        same = r["test"] == "to_device same context"
        usm_rate = rate(r, "usm")
        mem_rate = rate(r, "memcpy")
        frac = usm_rate / mem_rate if not same else math.nan
        frac2 = usm_rate / rate(r, "fresh") if not same else math.nan
        out.append([
            r["test"], r["size"], cell(s.get("usm")), cell(s.get("raw")), cell(s.get("memcpy")),
            cell(s.get("fresh")), fmt_ratio(ratio(s.get("usm"), s.get("raw"))),
            "-" if same else fmt_rate(usm_rate), "-" if same else fmt_rate(mem_rate),
            f"{frac * 100:.0f}%" if math.isfinite(frac) else "-",
            f"{frac2 * 100:.0f}%" if math.isfinite(frac2) else "-",
        ])
    return table(headers, out)


def scaling_table(fit: dict[str, dict[str, dict[str, float]]]) -> str:
    headers = ["op", "column", "fixed cost t0", "bandwidth (fit)"]
    out = []
    for op, per in fit.items():
        for key, f in per.items():
            out.append([op, LABELS[key], fmt_time(f["t0_s"]), fmt_rate(f["bw_Bps"] / 1e9)])
    return table(headers, out)


# ---- targets ---------------------------------------------------------------------------------
def _verdict(ok: bool | None) -> str:
    return "n/a " if ok is None else "PASS" if ok else "FAIL"


def targets(results: dict[str, Any], keys: list[str]) -> list[tuple[str, bool | None, str]]:
    """``[(name, ok or None for n/a, detail)]``."""
    out: list[tuple[str, bool | None, str]] = []
    small = results.get("small")
    if small is not None:
        sel = [r for r in small if r["kind"] == "kernel"]
        out.append(_ratio_target(
            f"small arrays, kernel ops: usmarray/dpnp.tensor <= {SMALL_KERNEL_RATIO}",
            [(r["op"], ratio(r["stats"].get("usm"), r["stats"].get("raw"))) for r in sel],
            SMALL_KERNEL_RATIO,
            [ratio(r["stats"].get("raw_aa"), r["stats"].get("raw")) for r in sel]))
        meta = [(r["op"], added_s(r)) for r in small if r["kind"] == "metadata"]
        good = [(n, a) for n, a in meta if math.isfinite(a)]
        bad = [f"{n} {a * 1e6:+.2f}us" for n, a in good if a > METADATA_ADDED_S]
        skipped = [n for n, a in meta if not math.isfinite(a)]
        detail = (f"worst {max(good, key=lambda p: p[1])[0]} "
                  f"{max(a for _, a in good) * 1e6:+.2f}us" if good else "nothing measured")
        if bad:
            detail += "; over: " + ", ".join(bad)
        if skipped:
            detail += "; not measured: " + ", ".join(skipped)
        out.append((f"metadata-only ops (slice, reshape, permute_dims): added <= "
                    f"{METADATA_ADDED_S * 1e6:g} us per call", (not bad) if good else None, detail))
    thr = results.get("throughput")
    if thr is not None:
        sel = [r for r in thr if r["n"] >= LARGE_MIN_ELEMENTS and r.get("kind") != "error"]
        out.append(_ratio_target(
            f"large arrays (>= {LARGE_MIN_ELEMENTS:.0e} elements): usmarray/dpnp.tensor <= "
            f"{LARGE_KERNEL_RATIO}",
            [(f"{r['op']} {r['dtype']} {r['n']:.0e}", ratio(r["stats"].get("usm"), r["stats"].get("raw")))
             for r in sel],
            LARGE_KERNEL_RATIO,
            [ratio(r["stats"].get("raw_aa"), r["stats"].get("raw")) for r in sel]))
    mig = results.get("migration")
    if mig is not None:
        same = [(r["size"], _median(r["stats"].get("usm")))
                for r in mig if r["test"] == "to_device same context"]
        good = [(n, t) for n, t in same if math.isfinite(t)]
        bad = [f"{n} {fmt_time(t)}" for n, t in good if t >= SAME_CONTEXT_MAX_S]
        detail = ", ".join(f"{n}: {fmt_time(t)}" for n, t in same)
        out.append((f"to_device within a context < {SAME_CONTEXT_MAX_S * 1e6:g} us at every size "
                    "up to 1 GB", (not bad and len(good) == len(same)) if good else None, detail))
        cross = [r for r in mig if r["test"] == "to_device cross context"
                 and r["bytes"] >= CROSS_CONTEXT_MIN_BYTES]
        fr = [(r["size"], rate(r, "usm") / rate(r, "memcpy")) for r in cross]
        good = [(n, f) for n, f in fr if math.isfinite(f)]
        detail = ", ".join(f"{n}: {f * 100:.0f}%" for n, f in fr) or "no size >= 64 MB measured"
        out.append((f"to_device across contexts >= {CROSS_CONTEXT_MIN_FRACTION:.0%} of host memcpy "
                    "rate (>= 64 MB)",
                    all(f >= CROSS_CONTEXT_MIN_FRACTION for _, f in good) if good else None, detail))
    if small is not None:
        name = (f"NumPy backend added per-call cost >= {NUMPY_BACKEND_SPEEDUP:g}x below "
                "array-api-strict's")
        if "usm_np" not in keys:
            out.append((name, None, "n/a: usmarray has no NumPy backend yet "
                        "(asarray(..., device='numpy') is refused)"))
        elif "strict" not in keys:
            out.append((name, None, "n/a: array-api-strict is not installed"))
        else:
            # the cost each wrapper adds per call on top of the same NumPy computation:
            # (strict - numpy) / (usmarray[numpy] - numpy); NumPy's own time is common
            # to both and no wrapper can remove it
            def added_ratio(st: dict) -> float:
                base, strict, usm = st.get("numpy"), st.get("strict"), st.get("usm_np")
                if not all(v is not None and v.ok for v in (base, strict, usm)):
                    return math.nan
                floor = 0.05e-6  # below 50 ns the difference is timer noise
                return (strict.median - base.median) / max(usm.median - base.median, floor)
            sp = [(r["op"], added_ratio(r["stats"])) for r in small]
            good = [(n, f) for n, f in sp if math.isfinite(f)]
            bad = [f"{n} {f:.2f}x" for n, f in good if f < NUMPY_BACKEND_SPEEDUP]
            detail = (f"added per-call cost over NumPy: {len(good) - len(bad)}/{len(good)} ops "
                      f"at >= {NUMPY_BACKEND_SPEEDUP:g}x below array-api-strict's"
                      + (f"; worst {min(good, key=lambda p: p[1])[0]} "
                         f"{min(f for _, f in good):.2f}x" if good else ""))
            if bad:
                detail += "; under: " + ", ".join(bad)
            out.append((name, (not bad) if good else None, detail))
    return out


def _ratio_target(
    name: str, pairs: list[tuple[str, float]], limit: float, aa: list[float] | None = None
) -> tuple[str, bool | None, str]:
    good = [(n, r) for n, r in pairs if math.isfinite(r)]
    skipped = [n for n, r in pairs if not math.isfinite(r)]
    if not good:
        return name, None, "nothing measured"
    bad = [f"{n} {r:.3f}" for n, r in good if r > limit]
    worst = max(good, key=lambda p: p[1])
    geo = math.exp(sum(math.log(r) for _, r in good) / len(good))
    detail = f"{len(good) - len(bad)}/{len(good)} within; geomean {geo:.3f}; worst {worst[0]} {worst[1]:.3f}"
    if bad:
        detail += "; over: " + ", ".join(bad)
    if skipped:
        detail += "; not measured: " + ", ".join(skipped)
    aa_ok = [a for a in (aa or []) if math.isfinite(a)]
    if aa_ok:
        spread = max(abs(math.log(a)) for a in aa_ok)
        detail += (f"; A/A noise floor (dpnp.tensor vs itself): up to "
                   f"{math.exp(spread):.3f}, so ratios within that are not significant")
    return name, not bad, detail


def targets_text(tg: list[tuple[str, bool | None, str]]) -> str:
    return "\n".join(f"{_verdict(ok)}  {name}\n      {detail}" for name, ok, detail in tg)


# ---- JSON ------------------------------------------------------------------------------------
def jsonable(obj: Any) -> Any:
    if isinstance(obj, Stats):
        return obj.as_dict()
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    try:
        return float(obj)
    except (TypeError, ValueError):
        return str(obj)


def enrich(results: dict[str, Any]) -> dict[str, Any]:
    """Derived numbers stored next to the raw statistics in the JSON record."""
    for r in results.get("small", []):
        s = r["stats"]
        r["ratio_usm_raw"] = ratio(s.get("usm"), s.get("raw"))
        r["ratio_aa"] = ratio(s.get("raw_aa"), s.get("raw"))
        r["added_s"] = added_s(r)
        r["ratio_usm_numpy"] = ratio(s.get("usm"), s.get("numpy"))
        if "usm_np" in s:
            r["ratio_strict_usm_numpy_backend"] = ratio(s.get("strict"), s.get("usm_np"))
    for r in results.get("throughput", []):
        s = r["stats"]
        r["ratio_usm_raw"] = ratio(s.get("usm"), s.get("raw"))
        r["ratio_aa"] = ratio(s.get("raw_aa"), s.get("raw"))
        r["ratio_usm_numpy"] = ratio(s.get("usm"), s.get("numpy"))
        r["GBps"] = {k: rate(r, k) for k in s}
        if r.get("flops"):
            r["GFLOPps"] = {k: gflops(r, k) for k in s}
    for r in results.get("migration", []):
        s = r["stats"]
        r["ratio_usm_raw"] = ratio(s.get("usm"), s.get("raw"))
        if r["test"] != "to_device same context":
            r["GBps"] = {k: rate(r, k) for k in s}
    if results.get("scaling"):
        results["scaling_fit"] = scaling.fits(results["scaling"])
    return results
