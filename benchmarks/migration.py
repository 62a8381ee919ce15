"""Moving data: to_device within a context and across contexts, asnumpy, asarray(numpy).

* ``to_device`` to another queue of the *same* context and device
  (``dpctl.SyclQueue(x.sycl_context, x.sycl_device)``) should be a zero-copy view:
  constant time whatever the size.  Its arrays come from ``empty`` (no data is read).
* ``to_device`` to a CPU sub-device (``create_sub_devices(partition=1)[0]``, which
  has a context of its own) must copy; its rate is compared with a plain host
  memcpy (``np.copyto`` into a preallocated array) of the same size; a host copy
  into fresh memory (``h.copy()``, which pays the first-touch page faults that any
  new array pays) is shown beside it.
* ``asnumpy`` (device -> host) and ``asarray`` of a NumPy array (host -> device)
  against the same memcpy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ._context import Context
from ._jobs import Job
from ._timing import describe_error, measure

KB = 1024
MB = 1024 * KB
GB = 1024 * MB

SAME_CONTEXT_SIZES = (KB, MB, GB)


def _fmt_bytes(n: int) -> str:
    for unit, size in (("GB", GB), ("MB", MB), ("KB", KB)):
        if n >= size:
            return f"{n / size:g} {unit}"
    return f"{n} B"


def copy_sizes(quick: bool, max_bytes: int) -> list[int]:
    base = (KB, MB, 16 * MB, 64 * MB) if quick else (KB, MB, 16 * MB, 64 * MB, 256 * MB, GB)
    return [s for s in base if s <= max_bytes]


def _sub_device_queue(ctx: Context) -> Any:
    import dpctl

    dev = ctx.q.sycl_device
    subs = dev.create_sub_devices(partition=1)
    return dpctl.SyclQueue(subs[0])


def jobs(
    ctx: Context, *, quick: bool, max_bytes: int, budget_s: float, min_rounds: int
) -> list[Job]:
    import dpctl

    xp, pt, q = ctx.xp, ctx.pt, ctx.q
    out: list[Job] = []
    sub_q: dict[str, Any] = {}

    def cross_queue() -> Any:
        if "q" not in sub_q:
            try:
                sub_q["q"] = _sub_device_queue(ctx)
            except Exception as exc:  # no partitionable device: every row says why
                sub_q["q"] = exc
        if isinstance(sub_q["q"], Exception):
            raise sub_q["q"]
        return sub_q["q"]

    def row(test: str, nbytes: int, stats: dict[str, Any], **extra: Any) -> dict[str, Any]:
        return {"test": test, "bytes": nbytes, "size": _fmt_bytes(nbytes), "stats": stats, **extra}

    # -- to_device within one context: zero-copy, constant time -------------------------
    def same_context(nbytes: int) -> Callable[[], dict[str, Any]]:
        def run() -> dict[str, Any]:
            x = xp.empty(nbytes // 8, dtype=xp.float64)
            a = x._arr
            q2 = dpctl.SyclQueue(x.sycl_context, x.sycl_device)

            def usm() -> None:
                x.to_device(q2)
                q2.wait()

            def raw() -> None:
                a.to_device(q2)
                q2.wait()

            stats = measure({"usm": usm, "raw": raw}, budget_s=budget_s, min_rounds=min_rounds)
            return row("to_device same context", nbytes, stats)

        return run

    for nb in SAME_CONTEXT_SIZES:  # allocated with empty(): 1 GB costs no copy, quick mode too
        out.append(Job("migration", f"to_device same ctx {_fmt_bytes(nb)}", same_context(nb)))

    # -- copies: cross-context to_device, asnumpy, asarray(numpy) ------------------------------
    def copies(test: str, nbytes: int) -> Callable[[], dict[str, Any]]:
        def run() -> dict[str, Any]:
            n = nbytes // 8
            h = np.random.default_rng(ctx.seed).random(n)
            dst = np.empty_like(h)
            np.copyto(dst, h)  # touch every page of the baseline's destination

            def memcpy() -> None:
                np.copyto(dst, h)

            def fresh() -> None:  # what a copy into new memory costs on the host (page faults)
                h.copy()

            fns: dict[str, Callable[[], Any] | None] = {"memcpy": memcpy, "fresh": fresh}
            if test == "to_device cross context":
                try:
                    sq = cross_queue()
                except Exception as exc:
                    return row(test, nbytes, {"usm": _err(exc), "raw": _err(exc)})
                x = xp.asarray(h)
                a = x._arr
                q.wait()

                def usm() -> None:
                    x.to_device(sq)
                    sq.wait()

                def raw() -> None:
                    a.to_device(sq)
                    sq.wait()

            elif test == "asnumpy":
                x = xp.asarray(h)
                a = x._arr
                q.wait()

                def usm() -> None:
                    xp.asnumpy(x)

                def raw() -> None:
                    pt.asnumpy(a)

            else:  # asarray from numpy

                def usm() -> None:
                    xp.asarray(h)
                    q.wait()

                def raw() -> None:
                    pt.asarray(h, sycl_queue=q)
                    q.wait()

            fns = {"usm": usm, "raw": raw, **fns}
            stats = measure(
                fns, budget_s=budget_s, min_rounds=min_rounds, target_sample_s=5e-3, warmup=1
            )
            return row(test, nbytes, stats)

        return run

    for test in ("to_device cross context", "asnumpy", "asarray(numpy)"):
        for nb in copy_sizes(quick, max_bytes):
            out.append(Job("migration", f"{test} {_fmt_bytes(nb)}", copies(test, nb)))
    return out


def _err(exc: BaseException) -> Any:
    from ._timing import Stats

    return Stats(error=describe_error(exc))
