"""PNG plots of a run (matplotlib, Agg backend: no display needed)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from . import scaling
from ._context import LABELS
from ._report import SMALL_KERNEL_RATIO, gflops, rate
from ._timing import Stats

COLORS = {"usm": "C0", "raw": "C1", "numpy": "C2", "strict": "C3", "usm_np": "C4", "memcpy": "C7"}


def _median(st: Any) -> float:
    return st.median if isinstance(st, Stats) and st.ok else math.nan


def write_all(results: dict[str, Any], outdir: Path, prefix: str) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written: list[Path] = []

    def save(fig: Any, name: str) -> None:
        p = outdir / f"{prefix}-{name}.png"
        fig.tight_layout()
        fig.savefig(p, dpi=110)
        plt.close(fig)
        written.append(p)

    small = results.get("small")
    if small:
        keys = [k for k in ("usm", "raw", "numpy", "strict", "usm_np") if any(k in r["stats"] for r in small)]
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 0.45 * len(small) + 2))
        ops = [r["op"] for r in small]
        h = 0.8 / len(keys)
        for i, k in enumerate(keys):
            ys = [j + i * h for j in range(len(ops))]
            ax1.barh(ys, [_median(r["stats"].get(k)) * 1e6 for r in small], height=h,
                     label=LABELS[k], color=COLORS[k])
        ax1.set_yticks([j + 0.4 - h / 2 for j in range(len(ops))], ops)
        ax1.invert_yaxis()
        ax1.set_xscale("log")
        ax1.set_xlabel("median time per call (us, log)")
        ax1.set_title("Per-call cost, 100 float64 elements")
        ax1.legend(fontsize=8)
        ratios = [_median(r["stats"].get("usm")) / _median(r["stats"].get("raw")) for r in small]
        ax2.barh(range(len(ops)), [0 if math.isnan(v) else v for v in ratios], color="C0")
        ax2.axvline(1.0, color="k", lw=0.8)
        ax2.axvline(SMALL_KERNEL_RATIO, color="r", ls="--", lw=0.8, label=f"target {SMALL_KERNEL_RATIO}")
        ax2.set_yticks(range(len(ops)), ops)
        ax2.invert_yaxis()
        ax2.set_xlabel("usmarray / dpnp.tensor (median ratio)")
        ax2.set_title("Wrapper overhead")
        ax2.legend(fontsize=8)
        save(fig, "small")

    thr = results.get("throughput")
    if thr:
        ops = list(dict.fromkeys(r["op"] for r in thr))
        ncol = 4
        nrow = math.ceil(len(ops) / ncol)
        fig, axes = plt.subplots(nrow, ncol, figsize=(4 * ncol, 3.3 * nrow), squeeze=False)
        for ax, op in zip(axes.flat, ops, strict=False):
            rs = [r for r in thr if r["op"] == op]
            flops = bool(rs and rs[0].get("flops"))
            for dtype, ls in (("float32", "--"), ("float64", "-")):
                sel = sorted((r for r in rs if r["dtype"] == dtype), key=lambda r: r["n"])
                for k in ("usm", "raw", "numpy"):
                    ys = [gflops(r, k) if flops else rate(r, k) for r in sel]
                    ax.plot([r["n"] for r in sel], ys, ls, marker="o", ms=3, color=COLORS[k],
                            label=f"{LABELS[k]} {dtype}")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_title(op)
            ax.set_xlabel("elements")
            ax.set_ylabel("GFLOP/s" if flops else "GB/s")
        for ax in list(axes.flat)[len(ops):]:
            ax.axis("off")
        axes.flat[0].legend(fontsize=6)
        save(fig, "throughput")

    sc = results.get("scaling")
    if sc:
        fit = results.get("scaling_fit") or scaling.fits(sc)
        names = list(dict.fromkeys(r["op"] for r in sc))
        fig, axes = plt.subplots(1, len(names), figsize=(6 * len(names), 4.2), squeeze=False)
        for ax, op in zip(axes.flat, names, strict=False):
            rs = sorted((r for r in sc if r["op"] == op), key=lambda r: r["n"])
            for k in scaling.KEYS:
                xs = [r["bytes"] for r in rs]
                ax.plot(xs, [_median(r["stats"].get(k)) for r in rs], "o", ms=4, color=COLORS[k],
                        label=LABELS[k])
                f = fit.get(op, {}).get(k)
                if f and math.isfinite(f["t0_s"]) and math.isfinite(f["bw_Bps"]):
                    ax.plot(xs, [f["t0_s"] + b / f["bw_Bps"] for b in xs], "--", color=COLORS[k],
                            lw=1, label=f"fit: {f['t0_s'] * 1e6:.1f} us + bytes/{f['bw_Bps'] / 1e9:.1f} GB/s")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("bytes moved per call")
            ax.set_ylabel("median time per call (s)")
            ax.set_title(f"{op} ({scaling.DTYPE}): launch cost, then bandwidth")
            ax.legend(fontsize=7)
        save(fig, "scaling")

    mig = results.get("migration")
    if mig:
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.2))
        same = sorted((r for r in mig if r["test"] == "to_device same context"), key=lambda r: r["bytes"])
        for k in ("usm", "raw"):
            ax1.plot([r["bytes"] for r in same], [_median(r["stats"].get(k)) * 1e6 for r in same],
                     "o-", color=COLORS[k], label=LABELS[k])
        ax1.axhline(50, color="r", ls="--", lw=0.8, label="target 50 us")
        ax1.set_xscale("log")
        ax1.set_xlabel("array bytes")
        ax1.set_ylabel("median time (us)")
        ax1.set_title("to_device within one context (zero-copy)")
        ax1.legend(fontsize=8)
        styles = {"to_device cross context": "-", "asnumpy": "--", "asarray(numpy)": ":"}
        for test, ls in styles.items():
            rs = sorted((r for r in mig if r["test"] == test), key=lambda r: r["bytes"])
            ax2.plot([r["bytes"] for r in rs], [rate(r, "usm") for r in rs], ls, marker="o", ms=3,
                     color=COLORS["usm"], label=f"usmarray {test}")
        rs = sorted((r for r in mig if r["test"] == "asnumpy"), key=lambda r: r["bytes"])
        ax2.plot([r["bytes"] for r in rs], [rate(r, "memcpy") for r in rs], "-", marker="s", ms=3,
                 color=COLORS["memcpy"], label="host memcpy (np.copyto)")
        ax2.set_xscale("log")
        ax2.set_yscale("log")
        ax2.set_xlabel("bytes")
        ax2.set_ylabel("GB/s")
        ax2.set_title("Copies against host memcpy")
        ax2.legend(fontsize=7)
        save(fig, "migration")
    return written
