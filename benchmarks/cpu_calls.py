"""Which provider and runtime functions one call of a CPU-matrix op runs: usmarray
against the library it wraps: why a CPU-matrix row stays under 0.95 of its provider.

``python -m benchmarks.cpu_calls [--backend sycl|numpy] [--only SUBSTRINGS] [--calls N]``

Each selected op of ``benchmarks.cpu_matrix`` is built at its large shape for usmarray
and for its provider, as the matrix builds it (same data, same queue, a queue wait
after each call on SYCL), and ``--calls`` calls of each run under cProfile.  For each
side the functions that submit or wait for work (the provider's compiled kernel entry points,
queue and event waits, NumPy's C functions; with ``--all`` every function that is not
usmarray's or Python's own) are counted per call; the report lists, per op, the
functions whose count differs between the two sides.  Where both sides run the same provider functions the same
number of times, a difference in the matrix's wall-clock ratio beyond usmarray's own
frames comes from the kernels' run-to-run variation, not from different work.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
from collections import Counter
from pathlib import Path

from . import cpu_matrix as cm
from . import gpu_matrix as gm

_OURS = (str(Path(__file__).resolve().parent.parent / "usmarray"),)
_SKIP = (str(Path(__file__).resolve().parent), "<string>", "cProfile", "pstats")
#: C functions counted (Python's own builtins, called by either side's Python, are not)
_LIBS = ("dpnp", "dpctl", "numpy", "ufunc", "cupy")


def _is_work(path: str, name: str) -> bool:
    """Whether a function submits or waits for work: the provider's compiled kernel
    entry points (``dpnp.tensor._tensor_*_impl``), queue and event waits, NumPy's C
    functions and ufunc/ndarray methods; not the metadata getters (shape, dtype, queue)
    that the Python of either side reads."""
    if path == "~":
        return "_impl." in name or "numpy" in name or "cupy" in name
    return "wait" in name


def _profile(fn: gm.Fn, calls: int, everything: bool = False) -> Counter[str]:
    """Non-usmarray function (see ``_is_work``) -> its calls per call of ``fn``."""
    fn()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls):
        fn()
    prof.disable()
    counts: Counter[str] = Counter()
    stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    for (path, line, name), (_cc, nc, _tt, _ct, _callers) in stats.items():
        if (not path.startswith(_OURS) and not any(s in path for s in _SKIP)
                and name != "<lambda>" and (path != "~" or any(lib in name for lib in _LIBS))
                and (everything or _is_work(path, name))):
            where = "" if path == "~" else f"{Path(path).name}:{line} "
            counts[f"{where}{name}"] = round(nc / calls, 2)
    return counts


def differences(usm: Counter[str], prov: Counter[str]) -> list[tuple[str, float, float]]:
    """(function, calls per usmarray call, calls per provider call) where they differ."""
    return sorted((k, usm.get(k, 0), prov.get(k, 0)) for k in set(usm) | set(prov)
                  if usm.get(k, 0) != prov.get(k, 0))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.cpu_calls", description=__doc__)
    p.add_argument("--backend", choices=cm.BACKENDS, default="sycl")
    p.add_argument("--only", default="", help="ops whose name or family contains one of "
                                              "these comma-separated substrings")
    p.add_argument("--calls", type=int, default=5)
    p.add_argument("--all", action="store_true",
                   help="count every provider and runtime function, metadata getters too")
    args = p.parse_args(argv)
    setup = cm.sycl_setup() if args.backend == "sycl" else cm.numpy_setup()
    libs = [lib for lib in setup.libs if lib.key in ("usm", "prov")]
    ops = gm.select(cm.table(), args.only, "")
    host = gm.HostData()
    cfg = cm.config(False, False, 0.0)
    with setup.context():
        for op in ops:
            shape = gm.op_shape(op, "large", cfg)
            fns, errors = gm.build_all(op, shape, libs, host)
            if errors or len(fns) < 2:
                print(f"== {op.name}: not built ({errors})")
                continue
            cu, cp = (_profile(fns[k], args.calls, args.all) for k in ("usm", "prov"))
            diff = differences(cu, cp)
            print(f"== {op.name} {'x'.join(map(str, shape))}: "
                  + ("the same provider/runtime calls" if not diff else
                     f"{len(diff)} provider/runtime function(s) called differently:"))
            for name, a, b in diff:
                print(f"   {name:70s} usm {a:g}  provider {b:g}")
            host.clear()
    setup.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
