"""The recording seam that ``usmarray.fuse`` traces through (no dependencies).

A namespace function that fusion understands ends with
``if _trace.ACTIVE: _trace.note(name, operands, result, *params)``; a method that
reads an array's values into Python or writes into an array calls
:func:`impure`.  Outside a trace ``ACTIVE`` is 0 and the check is the only cost.
A trace belongs to the thread that started it (:func:`start` / :func:`stop`); notes
from other threads go nowhere.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

#: how many traces are running, in any thread
ACTIVE = 0
_local = threading.local()
_lock = threading.Lock()
#: functions told each new ``ACTIVE`` (the compiled core's lean paths read their own copy)
_watchers: list[Callable[[int], Any]] = []


def watch(fn: Callable[[int], Any]) -> None:
    """Call ``fn(ACTIVE)`` now and whenever a trace starts or stops."""
    with _lock:
        _watchers.append(fn)
        fn(ACTIVE)


class Recorder:
    """What one trace saw: :meth:`note` is called per recorded namespace call (this
    class keeps them in ``notes``, as (name, operands, result, params): a subclass may
    keep less), ``impure`` is the first value-reading or writing operation (or None)."""

    def __init__(self) -> None:
        self.notes: list[tuple[str, tuple, Any, tuple]] = []
        self.impure: str | None = None

    def note(self, name: str, operands: tuple, result: Any, params: tuple) -> None:
        self.notes.append((name, operands, result, params))


def start(rec: Recorder | None = None) -> Recorder:
    """Begin recording this thread's namespace calls into ``rec`` (a new
    :class:`Recorder` when None)."""
    global ACTIVE
    rec = rec if rec is not None else Recorder()
    prev = getattr(_local, "rec", None)
    if prev is not None:
        raise RuntimeError("usmarray.fuse: a fused function is already being traced in "
                           "this thread (fused functions do not nest while tracing)")
    _local.rec = rec
    with _lock:
        ACTIVE += 1
        for fn in _watchers:
            fn(ACTIVE)
    return rec


def stop() -> None:
    """End this thread's recording."""
    global ACTIVE
    if getattr(_local, "rec", None) is not None:
        _local.rec = None
        with _lock:
            ACTIVE -= 1
            for fn in _watchers:
                fn(ACTIVE)


def tracing() -> bool:
    """Whether this thread is recording."""
    return getattr(_local, "rec", None) is not None


def note(name: str, operands: tuple, result: Any, *params: Any) -> None:
    """Record that namespace function ``name`` computed ``result`` from ``operands``
    (arrays or Python scalars) with ``params`` (what else it took, hashable)."""
    rec = getattr(_local, "rec", None)
    if rec is not None:
        rec.note(name, operands, result, params)


def impure(what: str) -> None:
    """Record that ``what`` read array values into Python or wrote into an array: a
    trace that saw it is not fused."""
    rec = getattr(_local, "rec", None)
    if rec is not None and rec.impure is None:
        rec.impure = what


__all__ = ["ACTIVE", "Recorder", "impure", "note", "start", "stop", "tracing", "watch"]
