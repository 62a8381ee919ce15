"""One re-entrant lock around every public usmarray call that may submit or wait.

The DPC++ runtime shipped with dpnp 0.20 / dpctl 0.22 deadlocks under this
interleaving: thread A, holding the GIL, submits a command group that enters the
scheduler and waits for its write lock; thread B waits on an event under the
scheduler's read lock; that event depends on one of the provider's host tasks,
which needs the GIL to release Python objects.  (intel/llvm #22993 fixes the
runtime side.)  A thread blocked on this lock has released the GIL, so while
usmarray's calls are serialized the cycle cannot close.

Set ``USMARRAY_SERIALIZE=0`` to turn the lock off (a runtime with the fix, or a
program that calls usmarray from one thread only).

Every public function carries ``_usmarray_lock``: "wrapper" (wrapped here), "self"
(takes :data:`LOCK` in its own body: the generated elementwise functions, to save a
call frame) or "none" (:data:`VIEW_ONLY`: builds views and metadata, submits nothing).
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
import types
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

ENABLED = os.environ.get("USMARRAY_SERIALIZE", "1") != "0"
LOCK: Any = threading.RLock() if ENABLED else contextlib.nullcontext()
# explicit acquire/release: a ``with`` block costs twice as much on CPython 3.11
acquire: Callable[[], Any] = LOCK.acquire if ENABLED else lambda: True
release: Callable[[], Any] = LOCK.release if ENABLED else lambda: None

#: public functions that only build views or answer from metadata
VIEW_ONLY = frozenset({
    "permute_dims", "expand_dims", "squeeze", "broadcast_to", "broadcast_arrays", "flip",
    "moveaxis", "unstack", "matrix_transpose", "result_type", "can_cast", "finfo", "iinfo",
    "isdtype", "set_default_device", "using_device", "register_backend",
})


def locks_itself(f: F) -> F:
    """Mark ``f`` as taking :data:`LOCK` in its own body."""
    f._usmarray_lock = "self"  # type: ignore[attr-defined]
    return f


def serialized(f: F) -> F:
    """``f`` running under :data:`LOCK` (``f`` itself when serialization is off)."""
    if not ENABLED or hasattr(f, "_usmarray_lock"):
        return f
    get, put = acquire, release

    @functools.wraps(f)
    def call(*args: Any, **kwargs: Any) -> Any:
        get()
        try:
            return f(*args, **kwargs)
        finally:
            put()

    call._usmarray_lock = "wrapper"  # type: ignore[attr-defined]
    return call  # type: ignore[return-value]


_WRAPPERS: dict[Callable[..., Any], Callable[..., Any]] = {}


def serialize_namespace(ns: dict[str, Any]) -> None:
    """Replace the public plain functions of a module namespace by serialized ones; a
    function exported by several namespaces (``matmul``) gets one wrapper."""
    for name, obj in list(ns.items()):
        if not name.startswith("_") and isinstance(obj, types.FunctionType):
            if name in VIEW_ONLY:
                obj._usmarray_lock = "none"  # type: ignore[attr-defined]
                continue
            if obj not in _WRAPPERS:
                _WRAPPERS[obj] = serialized(obj)
            ns[name] = _WRAPPERS[obj]


def serialize_methods(cls: type, names: tuple[str, ...]) -> None:
    """Serialize the named methods of ``cls``."""
    for name in names:
        setattr(cls, name, serialized(cls.__dict__[name]))
