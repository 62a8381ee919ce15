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
import inspect
import os
import types
from collections.abc import Callable
from typing import Any, TypeVar

from . import _backend
from ._array import usm_ndarray
from ._hints import TOO_FEW, call_error, wants_hints

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
    call = _exact_wrapper(f, locking=True)
    if call is None:
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

    call._usmarray_lock = "wrapper"  # type: ignore[attr-defined, union-attr]
    return call  # type: ignore[return-value]


def _refused(f: Callable[..., Any], args: tuple, kwargs: dict[str, Any]) -> Any:
    """Call ``f`` as the caller did; a TypeError it raises becomes :func:`call_error`'s
    better one where there is one."""
    try:
        return f(*args, **kwargs)
    except TypeError as exc:
        better = call_error(f, exc, args)
        if better is None:
            raise
        raise better from None


#: the names an exact wrapper's own code uses (a function with a parameter so named
#: gets the general wrapper)
_OWN = frozenset({"_f", "_M", "_usm", "_get", "_put", "_refused", "_hint", "_call", "_rest",
                  "_more", "_exc", "_better", "TypeError", "type"})


def _exact_wrapper(f: Callable[..., Any], *, locking: bool) -> Callable[..., Any] | None:
    """A wrapper of ``f`` with ``f``'s own parameters (so a call binds its arguments once
    and passes them on without packing), plus ``*_rest, **_more`` that catch the calls
    Python would refuse for a NumPy habit; those, and calls missing a required
    positional-only argument, are made again on ``f`` itself by :func:`_refused` so
    that the message is the one ``f`` gives, with :func:`call_error`'s advice.  Taking
    :data:`LOCK` as :func:`serialized` does where ``locking``.  None for functions
    with ``*args`` or ``**kwargs``, a parameter named as the wrapper's own names, or a
    qualified name other than their name: those keep the general wrapper.

    One message can differ in a corner: a call with too many positional arguments that
    also passes a keyword-only argument as the very default object (``sum(x, 0,
    keepdims=False)``) is told "takes 1 positional argument but 2 were given" without
    Python's "(and 1 keyword-only argument)"."""
    sig = inspect.signature(f, follow_wrapped=False)
    params = list(sig.parameters.values())
    name = f.__name__
    if (f.__qualname__ != name or not name.isidentifier()
            or any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.name in _OWN
                   for p in params)):
        return None
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    kwonly = [p for p in params if p.kind is p.KEYWORD_ONLY]
    env: dict[str, Any] = {"__name__": __name__, "_f": f, "_M": _MISSING, "_usm": usm_ndarray,
                           "_refused": _refused, "_hint": call_error}
    # required positional parameters default to _M where f has positional-only ones
    # (one passed by keyword lands in **_more, and f's message for it is not "missing")
    # or where too few arguments get advice, so that their absence reaches _refused
    sentinel = name in TOO_FEW or any(p.kind is p.POSITIONAL_ONLY for p in positional)
    head, missing = [], []
    for i, p in enumerate(positional):
        if p.default is not p.empty:
            env[f"_d{i}"] = p.default
            head.append(f"{p.name}=_d{i}")
        elif sentinel:
            head.append(f"{p.name}=_M")
            missing.append(p.name)
        else:
            head.append(p.name)
        if p.kind is p.POSITIONAL_ONLY and (i + 1 == len(positional)
                                          or positional[i + 1].kind is not p.POSITIONAL_ONLY):
            head.append("/")
    head.append("*_rest")
    for j, p in enumerate(kwonly):
        if p.default is p.empty:
            head.append(p.name)
        else:
            env[f"_k{j}"] = p.default
            head.append(f"{p.name}=_k{j}")
    head.append("**_more")
    pos_names = [p.name for p in positional]
    forward = ", ".join([p.name for p in positional if p.kind is p.POSITIONAL_ONLY]
                        + [f"{p.name}={p.name}" for p in params
                           if p.kind is not p.POSITIONAL_ONLY])
    positional_tuple = "(" + "".join(f"{n}, " for n in pos_names) + ")"
    lines = [f"def {name}({', '.join(head)}):"]
    checks = [f"{n} is _M" for n in missing] + ["_rest", "_more"]
    lines.append(f"    if {' or '.join(checks)}:")
    lines.append(f"        return _refused(_f, *_call({positional_tuple}, _rest, _more, "
                 f"{{{', '.join(repr(p.name) + ': ' + p.name for p in kwonly)}}}))")
    lines.append("    try:")
    if locking:
        env.update(_get=LOCK.acquire, _put=LOCK.release)
        if positional:
            a0 = positional[0].name
            lines.append(f"        if type({a0}) is _usm and {a0}._be.lock is None:")
            lines.append(f"            return _f({forward})")
        lines += ["        _get()", "        try:", f"            return _f({forward})",
                  "        finally:", "            _put()"]
    else:
        lines.append(f"        return _f({forward})")
    lines += ["    except TypeError as _exc:",
              f"        _better = _hint(_f, _exc, {positional_tuple})",
              "        if _better is None:", "            raise",
              "        raise _better from None"]
    env["_call"] = functools.partial(_refused_call, [p.name for p in positional],
                                     {p.name: p.default for p in kwonly})
    # S102: the source is built above from f's signature.  __name__ and a file name
    # inside the package mark the code as usmarray's (warn_at_caller, fusion's guard)
    where = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"<wrapper of {name}>")
    exec(compile("\n".join(lines), where, "exec"), env)  # noqa: S102
    return functools.wraps(f)(env[name])


_MISSING = object()


def _refused_call(names: list[str], kwdefaults: dict[str, Any], values: tuple,
                  rest: tuple, more: dict[str, Any], kwonly: dict[str, Any]
                  ) -> tuple[tuple, dict[str, Any]]:
    """The positional and keyword arguments of a refused call as its caller wrote it
    (see :func:`_exact_wrapper`)."""
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    late = False
    for n, v in zip(names, values, strict=True):
        if v is _MISSING:
            late = True
        elif late:
            kwargs[n] = v
        else:
            args.append(v)
    kwargs.update((k, v) for k, v in kwonly.items() if v is not kwdefaults[k])
    kwargs.update(more)
    return (*args, *rest), kwargs


_WRAPPERS: dict[Callable[..., Any], Callable[..., Any]] = {}


def hinted(f: F) -> F:
    """``f`` whose TypeErrors for NumPy habits in the call say what to write instead
    (``sum(x, 0)``: write ``sum(x, axis=0)``; see ``_hints.call_error``); ``f`` itself
    where no such error can arise."""
    if not wants_hints(f):
        return f
    call = _exact_wrapper(f, locking=False)
    if call is None:
        @functools.wraps(f)
        def call(*args: Any, **kwargs: Any) -> Any:
            return _refused(f, args, kwargs)

    if hasattr(f, "_usmarray_lock"):
        call._usmarray_lock = f._usmarray_lock  # type: ignore[attr-defined, union-attr]
    return call  # type: ignore[return-value]


def serialize_namespace(ns: dict[str, Any]) -> None:
    """Replace the public plain functions of a module namespace by serialized ones (or,
    where nothing is serialized, by :func:`hinted` ones); a function exported by several
    namespaces (``matmul``) gets one wrapper.  :data:`VIEW_ONLY` functions stay
    unwrapped: a wrapper would add a third to the cost of a view (so ``flip(x, 0)`` gets
    Python's own TypeError).  A function with ``_usmarray_front`` (in the compiled form,
    ``zeros``, ``reshape``, ...) is replaced by the compiled lean path that
    ``_usmarray_front(wrapper)`` gives, which calls the wrapper for what it leaves out."""
    for name, obj in list(ns.items()):
        if not name.startswith("_") and isinstance(obj, types.FunctionType):
            if obj not in _WRAPPERS:
                if name in VIEW_ONLY:
                    obj._usmarray_lock = "none"  # type: ignore[attr-defined]
                    wrapper = obj
                else:
                    wrapped = serialized(obj)
                    wrapper = hinted(wrapped) if wrapped is obj else wrapped
                front = getattr(obj, "_usmarray_front", None)
                if front is not None:  # a compiled lean path before the wrapper
                    wrapper = _fronted(front(wrapper), wrapper)
                _WRAPPERS[obj] = wrapper
                if wrapper is not obj:
                    # found under this namespace's name, so that pickle and cloudpickle
                    # (cubed's and Dask's tasks) store it by reference: functools.wraps
                    # gave it the wrapped function's, which names another object
                    wrapper.__module__, wrapper.__qualname__ = ns["__name__"], name
            ns[name] = _WRAPPERS[obj]


def _fronted(lean: Any, wrapper: Any) -> Any:
    """``lean``, a compiled function that calls ``wrapper`` for every call it leaves out,
    given the wrapper's name, docstring, signature (``__wrapped__``: the namespace's
    function) and marks."""
    functools.update_wrapper(lean, wrapper, updated=())
    lean.__dict__.update({k: v for k, v in vars(wrapper).items()
                          if k not in ("__wrapped__", "_usmarray_front")})
    lean.__wrapped__ = getattr(wrapper, "__wrapped__", wrapper)
    return lean


def is_namespace_function(obj: Any) -> bool:
    """Whether ``obj`` is a function of the namespace as ``serialize_namespace`` leaves
    it: a Python function, or a compiled lean path in front of one."""
    return isinstance(obj, types.FunctionType) or (
        callable(obj) and isinstance(getattr(obj, "__wrapped__", None), types.FunctionType)
        and not isinstance(obj, type))


def serialize_methods(cls: type, names: tuple[str, ...]) -> None:
    """Serialize the named methods of ``cls``."""
    for name in names:
        setattr(cls, name, serialized(cls.__dict__[name]))
