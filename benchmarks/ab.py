"""A/B per-call cost: usmarray at another git revision against the working tree, in one
process, interleaved rounds, with the A/A noise (the old revision against itself).

``python -m benchmarks.ab REV [--device numpy] [--rounds 25]`` extracts ``usmarray/``
at ``REV`` as a package named ``usmarray_at_rev`` in a temporary folder and times the
same small cases on both, so that machine load moves both sides alike.  Where git is
missing (a GPU machine), ``--extracted DIR`` names a folder that holds
``usmarray_at_rev/`` already (``git archive REV usmarray`` renamed).
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def _extract(rev: str, into: Path) -> None:
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "usmarray"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    (into / "usmarray").rename(into / "usmarray_at_rev")


def cases(xp: Any, device: str) -> dict[str, Any]:
    """Small cases (100 float64 elements); kernel ops wait for their result."""
    x = xp.asarray(np.linspace(0, 1, 100), device=device)
    y = xp.asarray(np.linspace(1, 2, 100), device=device)
    m = xp.reshape(x, (10, 10))
    row = xp.broadcast_to(x[:10], (10, 10))
    w = xp.asarray(np.zeros(100), device=device)
    floats = np.linspace(0, 1, 100).tolist()

    def setitem() -> None:
        w[0:5] = 1.0

    def sync(r: Any) -> None:
        r.device.wait()

    out = {
        "add": lambda: sync(x + y),
        "sin": lambda: sync(xp.sin(x)),
        "sum": lambda: sync(xp.sum(x)),
        "astype f32": lambda: sync(xp.astype(x, xp.float32)),
        "slice x[10:60]": lambda: x[10:60],
        "reshape (10,10)": lambda: xp.reshape(x, (10, 10)),
        "permute_dims": lambda: xp.permute_dims(m, (1, 0)),
        "m + broadcast": lambda: sync(m + row),
        "setitem w[0:5]": setitem,
        "empty (100,)": lambda: xp.empty((100,), dtype=xp.float64, device=x.device),
        "zeros (100,)": lambda: sync(xp.zeros((100,), dtype=xp.float64, device=x.device)),
        "flip": lambda: xp.flip(x),
        "all": lambda: sync(xp.all(x > 2.0)),
        "vecdot": lambda: sync(xp.vecdot(m, m)),
        "concat 2": lambda: sync(xp.concat([x, y])),
        "stack 2": lambda: sync(xp.stack([x, y])),
        "asarray list": lambda: sync(xp.asarray(floats, dtype=xp.float64, device=x.device)),
    }
    if device != "numpy":  # the kernel factory compiles for SYCL (OpenCL) and CUDA
        out.update(_kernel_cases(xp, x, y, m, sync))
    return out


def _kernel_cases(xp: Any, x: Any, y: Any, m: Any, sync: Any) -> dict[str, Any]:
    """The kernel factory: a repeated call (the same arrays), a call on new views of
    them (the checks and the variant look-up run), and the elementwise helper.  Both
    sides compile and launch through the working tree's backend module (the factory
    names it ``usmarray._backend...``), so these rows compare the factories."""
    kn = importlib.import_module(xp.__name__ + ".kernels")
    k = kn.kernel("float64[:] x, float64[:] y", "y(i0) = x(i0) + x(i0);", shape="y")
    k2 = kn.kernel("float64[:,:] a, float64[:,:] b", "b(i0, i1) = 2 * a(i0, i1);", shape="b")
    add = kn.elementwise("float64[] a, float64[] b -> float64[] c", "c = a + b")
    out = xp.empty((10, 10), dtype=xp.float64, device=m.device)

    def repeated() -> None:
        k(x, y)

    def views() -> None:
        k2(m[::-1], out.mT)

    return {"kernel repeated": repeated, "kernel new views": views,
            "elementwise": lambda: sync(add(x, y))}


def _per_call_us(f: Any, n: int) -> float:
    t = time.perf_counter()
    for _ in range(n):
        f()
    return (time.perf_counter() - t) / n * 1e6


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.ab", description=__doc__)
    p.add_argument("rev", help="the git revision to compare against (e.g. HEAD~3, a tag)")
    p.add_argument("--device", default="numpy", help="device filter string (default numpy)")
    p.add_argument("--rounds", type=int, default=25)
    p.add_argument("--calls", type=int, default=0, help="calls per round (default: by device)")
    p.add_argument("--extracted", default="",
                   help="a folder holding usmarray_at_rev/ already (where git is missing)")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        if args.extracted:
            tmp = str(Path(args.extracted).resolve())
        else:
            _extract(args.rev, Path(tmp))
        sys.path.insert(0, tmp)
        sys.path.insert(0, str(ROOT))
        new = importlib.import_module("usmarray")
        old = importlib.import_module("usmarray_at_rev")
        n = args.calls or (2000 if args.device == "numpy" else 200)
        cn, co, co2 = cases(new, args.device), cases(old, args.device), cases(old, args.device)
        print(f"== {args.device}: median us per call over {args.rounds} interleaved rounds "
              f"of {n} calls; A/A = {args.rev} against itself")
        print(f"{'op':16s} {args.rev[:10]:>10s} {'now':>9s} {'now/rev':>8s} {'A/A':>6s}")
        for name in cn:
            a, b, b2 = [], [], []
            for _ in range(args.rounds):
                b.append(_per_call_us(co[name], n))
                a.append(_per_call_us(cn[name], n))
                b2.append(_per_call_us(co2[name], n))
            mb, ma, mb2 = map(statistics.median, (b, a, b2))
            print(f"{name:16s} {mb:10.2f} {ma:9.2f} {ma / mb:8.3f} {mb2 / mb:6.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
