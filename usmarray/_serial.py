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
"""

from __future__ import annotations

import functools
import os
import threading
import types
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

LOCK = threading.RLock()
ENABLED = os.environ.get("USMARRAY_SERIALIZE", "1") != "0"


def serialized(f: F) -> F:
    """``f`` running under :data:`LOCK` (``f`` itself when serialization is off)."""
    if not ENABLED or getattr(f, "_usmarray_serialized", False):
        return f
    lock = LOCK

    @functools.wraps(f)
    def call(*args: Any, **kwargs: Any) -> Any:
        with lock:
            return f(*args, **kwargs)

    call._usmarray_serialized = True  # type: ignore[attr-defined]
    return call  # type: ignore[return-value]


_WRAPPERS: dict[Callable[..., Any], Callable[..., Any]] = {}


def serialize_namespace(ns: dict[str, Any]) -> None:
    """Replace the public plain functions of a module namespace by serialized ones; a
    function exported by several namespaces (``matmul``) gets one wrapper."""
    for name, obj in list(ns.items()):
        if not name.startswith("_") and isinstance(obj, types.FunctionType):
            if obj not in _WRAPPERS:
                _WRAPPERS[obj] = serialized(obj)
            ns[name] = _WRAPPERS[obj]


def serialize_methods(cls: type, names: tuple[str, ...]) -> None:
    """Serialize the named methods and property getters of ``cls``."""
    for name in names:
        attr = cls.__dict__[name]
        if isinstance(attr, property) and attr.fget is not None:
            setattr(cls, name, property(serialized(attr.fget), attr.fset, None, attr.__doc__))
        else:
            setattr(cls, name, serialized(attr))
