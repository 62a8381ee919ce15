"""Serialization of public calls, for the backends whose runtime needs it.

A backend whose runtime deadlocks when several threads submit and wait at once
exposes a ``lock`` (today only SYCL: see ``SyclBackend``'s docstring); the others have
``lock = None`` and pay nothing.  Public functions are wrapped here so that a call
runs under that lock unless its first argument is an array of a lock-free backend
(NumPy, CUDA): a call that involves SYCL arrays, or whose placement is not known
before it runs (creation functions, sequences of arrays), takes the lock.

Every public function carries ``_usmarray_lock``: "wrapper" (wrapped here), "self"
(takes its backend's lock in its own body, around the kernel calls only: the
generated elementwise functions, to save a call frame, and the importers, so that a
producer's ``__dlpack__`` or interface property never runs under the lock) or "none"
(:data:`VIEW_ONLY`: builds views and metadata, submits nothing).
"""

from __future__ import annotations

import contextlib
import functools
import types
from collections.abc import Callable
from typing import Any, TypeVar

from . import _backend
from ._array import usm_ndarray
from ._hints import call_error, wants_hints

F = TypeVar("F", bound=Callable[..., Any])

#: the runtime lock of the backends that have one (None: nothing is serialized)
LOCK: Any = next((be.lock for be in _backend.backends().values() if be.lock is not None), None)
ENABLED = LOCK is not None

#: public functions that only build views or answer from metadata
VIEW_ONLY = frozenset({
    "permute_dims", "expand_dims", "squeeze", "broadcast_to", "broadcast_arrays", "flip",
    "moveaxis", "unstack", "matrix_transpose", "result_type", "can_cast", "finfo", "iinfo",
    "isdtype", "set_default_device", "using_device", "register_backend",
})


def locks_itself(f: F) -> F:
    """Mark ``f`` as taking its backend's lock in its own body."""
    f._usmarray_lock = "self"  # type: ignore[attr-defined]
    return f


_UNLOCKED = contextlib.nullcontext()


def locked(be: Any) -> contextlib.AbstractContextManager[Any]:
    """``with locked(be):`` runs the block under ``be``'s lock, if it has one (the lock
    itself, or a shared no-op, rather than a new generator context manager per call)."""
    lk = be.lock
    return _UNLOCKED if lk is None else lk


def serialized(f: F) -> F:
    """``f`` running under :data:`LOCK` unless its first argument is an array of a
    lock-free backend (``f`` itself when no backend has a lock)."""
    if not ENABLED or hasattr(f, "_usmarray_lock"):
        return f
    get, put = LOCK.acquire, LOCK.release

    @functools.wraps(f)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            if args:
                a0 = args[0]
                if type(a0) is usm_ndarray and a0._be.lock is None:
                    return f(*args, **kwargs)
            get()
            try:
                return f(*args, **kwargs)
            finally:
                put()
        except TypeError as exc:
            better = call_error(f, exc, args)
            if better is None:
                raise
            raise better from None

    call._usmarray_lock = "wrapper"  # type: ignore[attr-defined]
    return call  # type: ignore[return-value]


_WRAPPERS: dict[Callable[..., Any], Callable[..., Any]] = {}


def hinted(f: F) -> F:
    """``f`` whose TypeErrors for NumPy habits in the call say what to write instead
    (``sum(x, 0)``: write ``sum(x, axis=0)``; see ``_hints.call_error``); ``f`` itself
    where no such error can arise."""
    if not wants_hints(f):
        return f

    @functools.wraps(f)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return f(*args, **kwargs)
        except TypeError as exc:
            better = call_error(f, exc, args)
            if better is None:
                raise
            raise better from None

    if hasattr(f, "_usmarray_lock"):
        call._usmarray_lock = f._usmarray_lock  # type: ignore[attr-defined]
    return call  # type: ignore[return-value]


def serialize_namespace(ns: dict[str, Any]) -> None:
    """Replace the public plain functions of a module namespace by serialized ones (or,
    where nothing is serialized, by :func:`hinted` ones); a function exported by several
    namespaces (``matmul``) gets one wrapper.  :data:`VIEW_ONLY` functions stay
    unwrapped: a wrapper would add a third to the cost of a view (so ``flip(x, 0)`` gets
    Python's own TypeError)."""
    for name, obj in list(ns.items()):
        if not name.startswith("_") and isinstance(obj, types.FunctionType):
            if name in VIEW_ONLY:
                obj._usmarray_lock = "none"  # type: ignore[attr-defined]
                continue
            if obj not in _WRAPPERS:
                wrapped = serialized(obj)
                wrapper = _WRAPPERS[obj] = hinted(wrapped) if wrapped is obj else wrapped
                if wrapper is not obj:
                    # found under this namespace's name, so that pickle and cloudpickle
                    # (cubed's and Dask's tasks) store it by reference: functools.wraps
                    # gave it the wrapped function's, which names another object
                    wrapper.__module__, wrapper.__qualname__ = ns["__name__"], name
            ns[name] = _WRAPPERS[obj]


def serialize_methods(cls: type, names: tuple[str, ...]) -> None:
    """Serialize the named methods of ``cls``."""
    for name in names:
        setattr(cls, name, serialized(cls.__dict__[name]))
