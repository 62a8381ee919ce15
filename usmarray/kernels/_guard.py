"""What the trace of a fused function read, and the guard that holds it (docs/fusion.md).

A fused call reuses a trace only while everything the trace read is what it was.  The
signature (``_fuse``) holds the arguments; this module holds the rest, by watching
the trace run (``sys.settrace``, during the trace only), instruction by instruction
in the user's code:

- **Names.**  Every global a traced function reads, every step of ``module.name``
  reads through a module (``config.SCALE``, ``np.random.seed``), every closure cell
  of every function the trace reaches, and each such function's code, defaults and
  keyword defaults, transitively: the guard holds each by identity (a dictionary
  entry, a cell, an attribute).  Functions are *reached* through names (globals,
  cells, defaults, module attributes, fused functions); running code of the user's
  reached any other way (a method, a function taken from a container) refuses.
- **Objects.**  A mutable object read by name (a dict, a list, an instance) is held
  by identity, and what is read from it right there is held too: ``d["key"]`` (a
  constant key of a dict), ``obj.attr`` (an attribute of the instance itself).  A
  call of a method that only writes (``append``, ``add``, ``update``, a logger's
  ``debug``, ...) is a side effect of the trace.  Anything else (the object passed
  on as a value, iterated, another method) refuses: what it reads is not held.  So
  does a class of the user's (its attributes), a module of the user's used as a value,
  a default argument that is a mutable object, and the builtins that expose
  namespaces (``vars``, ``globals``, ``eval``, ...).
- **Arrays.**  A read of an array's metadata by the function (``x.shape``,
  ``x.size``, ``len(x)``, iteration, ``x.strides``, ``x.flags``, ``x.usm_type``) is
  reported to the recorder (``observe``), which keys the signature on what was read;
  ``repr``/``str``/``format``/pickle and backend attributes read values.  Every value
  a namespace function returns to the function is reported too (``produced``), so an
  array the recorder did not record refuses.
- **Exceptions.**  An exception that reaches the user's code and is handled there
  refuses: what raised may depend on what the signature does not hold.

Code of the standard library, of installed packages and of usmarray itself is taken
as fixed: the guard does not follow into it (it does watch what usmarray returns).
"""

from __future__ import annotations

import builtins
import dis
import os
import sys
import sysconfig
import types
from typing import Any

import numpy as np

from .. import _dtypes as dt
from .._array import usm_ndarray

_MISSING = object()

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_LIBRARIES = tuple(sorted({
    os.path.join(os.path.abspath(p), "") for p in (
        *(sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")),
        os.path.join(sys.base_prefix, "lib"), os.path.join(sys.prefix, "lib"),
    ) if p
}))
_USMARRAY, _LIBRARY, _USER = 0, 1, 2
_ORIGIN: dict[str, int] = {}

#: the getters whose reads the recorder is told of, by what they read
_OBSERVED = {
    usm_ndarray.shape.fget.__code__: "shape",  # type: ignore[attr-defined]
    usm_ndarray.size.fget.__code__: "shape",  # type: ignore[attr-defined]
    usm_ndarray.nbytes.fget.__code__: "shape",  # type: ignore[attr-defined]
    usm_ndarray.__len__.__code__: "shape",
    usm_ndarray.__iter__.__code__: "shape",
    usm_ndarray.strides.fget.__code__: "layout",  # type: ignore[attr-defined]
    usm_ndarray.flags.fget.__code__: "layout",  # type: ignore[attr-defined]
    usm_ndarray.usm_type.fget.__code__: "usm_type",  # type: ignore[attr-defined]
    usm_ndarray.__repr__.__code__: "values",
    usm_ndarray.__str__.__code__: "values",
    usm_ndarray.__format__.__code__: "values",
    usm_ndarray.__reduce__.__code__: "values",
    usm_ndarray.__getattr__.__code__: "attribute",
}
#: builtins that expose namespaces or identities (or run code) the guard cannot see
_REFLECTIVE = frozenset({
    "vars", "globals", "locals", "eval", "exec", "compile", "__import__", "breakpoint", "id",
})
#: methods of a mutable object that only write to it (or log): side effects of the trace
_WRITE_ONLY = frozenset({
    "append", "extend", "insert", "add", "update", "discard", "clear", "debug", "info",
    "warning", "error", "exception", "critical", "log", "write", "flush",
})
_IMMUTABLE = (type(None), bool, int, float, complex, str, bytes, range, slice,
              type(Ellipsis), type(NotImplemented))
_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement
_DEREF_LOADS = frozenset({"LOAD_DEREF", "LOAD_CLASSDEREF", "LOAD_FROM_DICT_OR_DEREF"})
_SUBSCRIPTS = frozenset({"BINARY_SUBSCR"})
_REFUSED_OPS = {
    "LOAD_NAME": "a class body or exec()", "LOAD_FROM_DICT_OR_GLOBALS": "a class body",
    "IMPORT_NAME": "an import", "IMPORT_FROM": "an import", "IMPORT_STAR": "an import",
}
#: LOAD_ATTR carries the method-call flag in its low bit from Python 3.12 on
_ATTR_FLAG = sys.version_info >= (3, 12)


def _origin(f: str) -> int:
    """Whether the code of file ``f`` is usmarray's, a library's (the standard library,
    installed packages) or the user's."""
    got = _ORIGIN.get(f)
    if got is None:
        p = os.path.abspath(f) if f and not f.startswith("<") else f
        if p.startswith(_PACKAGE):
            got = _USMARRAY
        elif p.startswith(_LIBRARIES) or f.startswith("<frozen"):
            got = _LIBRARY
        else:
            got = _USER
        _ORIGIN[f] = got
    return got


def _user_module(m: types.ModuleType) -> bool:
    """Whether module ``m`` is the user's (not usmarray, the standard library or an
    installed package): its attributes may be rebound between calls."""
    f = getattr(m, "__file__", None)
    return isinstance(f, str) and _origin(f) == _USER


_ACTIONS: dict[types.CodeType, dict[int, tuple]] = {}


def _actions(code: types.CodeType) -> dict[int, tuple]:
    """Per instruction offset of ``code``, what the watch does when it runs: read a
    global or a cell, with the reads from it right after (``("attr", name)``,
    ``("method", name)``, ``("item", constant)``), or refuse."""
    got = _ACTIONS.get(code)
    if got is not None:
        return got
    ins = list(dis.get_instructions(code))
    got = {}
    for k, i in enumerate(ins):
        kind = ("global" if i.opname == "LOAD_GLOBAL" else
                "deref" if i.opname in _DEREF_LOADS else None)
        if kind is None:
            if i.opname in _REFUSED_OPS:
                got[i.offset] = ("refuse", _REFUSED_OPS[i.opname])
            continue
        steps = []
        j = k + 1
        while j < len(ins):
            n = ins[j]
            if n.opname == "LOAD_METHOD" or (n.opname == "LOAD_ATTR" and _ATTR_FLAG
                                             and n.arg is not None and n.arg & 1):
                steps.append(("method", n.argval))
            elif n.opname == "LOAD_ATTR":
                steps.append(("attr", n.argval))
            elif (n.opname == "LOAD_CONST" and j + 1 < len(ins)
                  and ins[j + 1].opname in _SUBSCRIPTS):
                steps.append(("item", n.argval))
                j += 1
            else:
                break
            j += 1
        got[i.offset] = (kind, i.argval, tuple(steps))
    _ACTIONS[code] = got
    return got


class Guard:
    """What a trace read, by identity: ``(dictionary, key, value)`` for globals,
    module attributes and entries of objects, ``(cell, value)`` for closure cells,
    ``(function, attribute, value)`` for code and defaults."""

    __slots__ = ("_seen", "attrs", "cells", "names")

    def __init__(self) -> None:
        self.names: list[tuple[dict, Any, Any]] = []
        self.cells: list[tuple[Any, Any]] = []
        self.attrs: list[tuple[Any, str, Any]] = []
        self._seen: set[tuple[int, Any]] = set()

    def entry(self, d: dict, key: Any, value: Any) -> None:
        """Hold ``d[key]`` as ``value`` (what the first read of it found)."""
        k = (id(d), key)
        if k not in self._seen:
            self._seen.add(k)
            self.names.append((d, key, value))

    def holds(self) -> bool:
        """Whether everything the trace read is still what it read."""
        m = _MISSING
        for d, k, v in self.names:
            if d.get(k, m) is not v:
                return False
        for c, v in self.cells:
            try:
                if c.cell_contents is not v:
                    return False
            except ValueError:  # an empty cell
                if v is not m:
                    return False
        for f, a, v in self.attrs:
            if getattr(f, a) is not v:
                return False
        return True


class Watch:
    """Runs a fused function's trace and records what it read (``guard``) and what
    makes it unfusable (``refused``); tells ``recorder`` of the arrays' metadata the
    function reads (``recorder.observe(array, kind)``, kind "shape", "layout",
    "usm_type", "values" or "attribute") and of every value a namespace function
    returns to it (``recorder.produced(value)``).  ``fused``: the type of fused
    functions (the trace runs their ``fn``)."""

    def __init__(self, recorder: Any, fused: type) -> None:
        self.recorder = recorder
        self.fused = fused
        self.guard = Guard()
        self.refused: str | None = None
        self.handled: str | None = None
        self.codes: set[types.CodeType] = set()
        self._known: dict[int, Any] = {}
        #: whether line events may be switched off (no other trace function wants them)
        self.lines_off = True

    def refuse(self, why: str) -> None:
        if self.refused is None:
            self.refused = why

    def run(self, fn: Any, args: tuple, kwargs: dict) -> Any:
        """``fn(*args, **kwargs)``, watched.  A trace function already installed (a
        debugger, a coverage tool) keeps receiving its events."""
        if isinstance(fn, types.FunctionType):
            self.reach(fn, getattr(fn, "__qualname__", "the function"))
        else:
            self.refuse(f"the fused callable is a {type(fn).__name__}, not a function")
        old = sys.gettrace()
        self.lines_off = old is None
        _allow_opcode_events()
        sys.settrace(self._call if old is None else _chained(old, self._call))
        try:
            out = fn(*args, **kwargs)
        finally:
            sys.settrace(old)
        if self.handled is not None:
            self.refuse(f"it handled an exception ({self.handled}) while tracing; what "
                        "raised may depend on what the signature does not hold")
        return out

    # ---- what the trace reads --------------------------------------------------------------
    def reach(self, fn: types.FunctionType, where: str) -> None:
        """Hold ``fn`` (a function of the user's code) and what it carries: its code,
        defaults, keyword defaults and closure cells; the code nested in it may run."""
        if id(fn) in self._known or _origin(fn.__code__.co_filename) != _USER:
            return
        self._known[id(fn)] = fn
        g = self.guard
        for a in ("__code__", "__defaults__", "__kwdefaults__"):
            g.attrs.append((fn, a, getattr(fn, a)))
        stack = [fn.__code__]
        while stack:
            co = stack.pop()
            self.codes.add(co)
            stack.extend(c for c in co.co_consts if isinstance(c, types.CodeType))
        for c in fn.__closure__ or ():
            try:
                g.cells.append((c, c.cell_contents))
            except ValueError:  # an empty cell
                g.cells.append((c, _MISSING))
        # defaults are read as local variables, which the watch does not follow
        for v in fn.__defaults__ or ():
            self.read(v, (), f"a default argument of {where}", local=True)
        for k, v in (fn.__kwdefaults__ or {}).items():
            self.read(v, (), f"the default of {k} in {where}", local=True)

    def read(self, v: Any, steps: tuple, where: str, local: bool = False) -> None:
        """``v``, read by name as ``where``, and the reads ``steps`` from it right after
        (see :func:`_actions`): hold each, or refuse.  ``local``: ``v`` is then read
        as a local variable, where no step is seen."""
        k = 0
        while k < len(steps):
            how, name = steps[k]
            d = _entries(v, how, name)
            if d is None:
                if how == "method" and name in _WRITE_ONLY and _opaque(v):
                    return  # a side effect on a mutable object (a list, a logger)
                break
            w = d.get(name, _MISSING)
            self.guard.entry(d, name, w)
            if w is _MISSING:
                self.refuse(f"it reads {where}{_spelled(how, name)}, which is not there")
                return
            v, where = w, where + _spelled(how, name)
            k += 1
        self.value(v, where, k == len(steps) or local)

    def value(self, v: Any, where: str, whole: bool) -> None:
        """Refuse unless identity holds ``v`` (``whole``: ``v`` is then used as a value,
        not only read from); reach the functions in it."""
        t = type(v)
        if t in _IMMUTABLE or isinstance(v, (usm_ndarray, np.generic, np.dtype, np.ufunc,
                                             dt.DType)):
            return
        if t is tuple or t is frozenset:
            for e in v:
                self.value(e, where, True)
            return
        if isinstance(v, self.fused):
            fn = getattr(v, "fn", None)
            if isinstance(fn, types.FunctionType):
                self.reach(fn, where)
            else:
                self.refuse(f"{where} is a fused {type(fn).__name__}, not a function")
            return
        if t is types.FunctionType:
            self.reach(v, where)
            return
        if t is types.BuiltinFunctionType:
            owner = v.__self__
            if owner is builtins and v.__name__ in _REFLECTIVE:
                self.refuse(f"it calls {v.__name__}(), which reads what the guard cannot "
                            "hold")
            elif owner is not None and not isinstance(owner, types.ModuleType):
                self.refuse(f"{where} is a method bound to a {type(owner).__name__}, whose "
                            "state the guard cannot hold")
            return
        if isinstance(v, types.ModuleType):
            if whole and _user_module(v):
                self.refuse(f"it uses the module {where} as a value (only module.name "
                            "reads are held); read the names it needs instead")
            return
        if isinstance(v, type):
            file = getattr(sys.modules.get(v.__module__), "__file__", None)
            if not v.__flags__ & _HEAPTYPE or (file and _origin(file) != _USER):
                return
            self.refuse(f"{where} is the class {v.__qualname__}, whose attributes the guard "
                        "cannot hold; pass what the function needs as arguments")
            return
        self.refuse(f"it reads {where}, a {t.__name__}, in a way the guard cannot hold (only "
                    "d['key'], obj.attr and methods that only write are); pass what it needs "
                    "as arguments")

    # ---- the trace function ----------------------------------------------------------------
    def _call(self, frame: types.FrameType, event: str, arg: Any) -> Any:
        code = frame.f_code
        o = _origin(code.co_filename)
        if o == _LIBRARY:
            return None
        back = frame.f_back
        if o == _USMARRAY:
            if back is None or _origin(back.f_code.co_filename) == _USMARRAY:
                return None  # usmarray calling itself
            kind = _OBSERVED.get(code)
            if kind is not None:
                self.recorder.observe(frame.f_locals.get("self"), kind)
                return None
            return self._entry
        if code not in self.codes:
            if code.co_filename.startswith("<") and back is not None and _origin(
                    back.f_code.co_filename) != _USER:
                return None  # generated by a library (a dataclass's __init__, ...)
            name = getattr(code, "co_qualname", code.co_name)
            self.refuse(f"it runs {name}, which it did not reach through a name the guard "
                        "holds (a method, or a function taken from an object or a container)")
            return None
        actions = _actions(code)

        def local(frame: types.FrameType, event: str, arg: Any) -> Any:
            if event == "opcode":
                act = actions.get(frame.f_lasti)
                if act is not None:
                    self._run(frame, act)
            elif event == "exception" and self.handled is None:
                self.handled = arg[0].__name__
            return local

        if self.lines_off:
            frame.f_trace_lines = False
        # Python 3.13 turns on a frame's opcode events only if it has its trace function
        # already (else the first run of each code would be unseen): set it here, the
        # interpreter sets it only after this function returns
        frame.f_trace = local
        frame.f_trace_opcodes = True
        return local

    def _entry(self, frame: types.FrameType, event: str, arg: Any) -> Any:
        """A namespace function called by the user's code: what it returns."""
        if self.lines_off:
            frame.f_trace_lines = False
        if event == "return" and arg is not None:
            self.recorder.produced(arg)
        return self._entry

    def _run(self, frame: types.FrameType, act: tuple) -> None:
        """The action of an instruction about to run (see :func:`_actions`)."""
        if act[0] == "refuse":
            self.refuse(f"it runs {act[1]} while tracing")
            return
        kind, name, steps = act
        if kind == "global":
            g = frame.f_globals
            v = g.get(name, _MISSING)
            self.guard.entry(g, name, v)
            if v is _MISSING:
                v = frame.f_builtins.get(name, _MISSING)
        else:  # a cell: held with the function that carries it, or the trace's own
            v = frame.f_locals.get(name, _MISSING)
        if v is not _MISSING:  # else a NameError
            self.read(v, steps, name)


def _allow_opcode_events() -> None:
    """Let ``sys.settrace`` deliver opcode events.  Python 3.12 delivers them only if
    some frame of the process asked for them (``f_trace_opcodes``) before the trace
    function was installed; otherwise the first watch of a process would see no
    instruction: it would hold no name (a global rebound later would not trace again)
    and refuse every function of the user's that its function calls."""
    frame = sys._getframe()
    was = frame.f_trace_opcodes
    frame.f_trace_opcodes = True
    frame.f_trace_opcodes = was


def _opaque(v: Any) -> bool:
    """Whether ``v`` is a mutable object of the kind :meth:`Watch.read` holds by
    identity only (not a module, function, class or immutable value)."""
    return not isinstance(v, (types.ModuleType, types.FunctionType, type, *_IMMUTABLE))


def _entries(v: Any, how: str, name: Any) -> dict | None:
    """The dictionary a read ``how``/``name`` of ``v`` takes its value from, when that
    read is one dictionary entry: a module's attribute, a user function's own
    attribute, a constant key of a dict, an attribute of an instance itself."""
    if how == "item":
        return v if type(v) is dict and isinstance(name, (str, int, float, bool, tuple)) else None
    if isinstance(v, types.ModuleType):
        return v.__dict__
    if isinstance(v, (type, *_IMMUTABLE)) or type(v) is types.BuiltinFunctionType:
        return None
    d = getattr(v, "__dict__", None)
    if type(d) is dict and name in d and how == "attr" and (
            type(v) is not types.FunctionType or _origin(v.__code__.co_filename) == _USER):
        return d
    return None


def _spelled(how: str, name: Any) -> str:
    return f"[{name!r}]" if how == "item" else f".{name}"


def _chained(old: Any, ours: Any) -> Any:
    """A trace function that gives every event to ``old`` (the one installed before)
    and to ``ours``, each with its own local trace functions."""

    def call(frame: types.FrameType, event: str, arg: Any) -> Any:
        a = old(frame, event, arg)
        b = ours(frame, event, arg)
        if a is None or b is None:
            return a if b is None else b

        def both(frame: types.FrameType, event: str, arg: Any) -> Any:
            nonlocal a, b
            if a is not None:
                a = a(frame, event, arg)
            if b is not None:
                b = b(frame, event, arg)
            return both

        return both

    return call
