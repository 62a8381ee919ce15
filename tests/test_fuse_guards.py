"""What ``usmarray.fuse`` reuses a trace for: only calls for which everything the trace
read is the same.

* Metadata of the arguments that the function reads (``x.shape``, ``x.size``,
  ``len(x)``, ``x.nbytes``, comparisons of them, ``x.strides``, ``x.flags``,
  ``x.usm_type``, also through an array computed from the arguments) becomes part of
  the signature; a call with other values traces again (and compiles nothing new).
* Operations the fused kernel does not compute (a result the output does not use, an
  operation that is not recorded, an exception handled by the function) cannot be
  skipped silently: the shapes they checked join the signature, or the function runs
  unfused.
* Globals, module attributes, closure cells, defaults and code of every function the
  trace runs, transitively, are held by identity; entries read from a dict or an
  instance by a constant key are held too; a read the guard cannot hold runs unfused.

Every check compares with the function called directly (the unfused result), on the
NumPy backend (where fusion is the unfused function), the SYCL OpenCL CPU device and,
with the ``gpu`` marker, ``cuda:0``.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import types

import numpy as np
import pytest
from test_reliability_common import device_params

import usmarray as xp
from usmarray.kernels import _guard
from usmarray.kernels._fuse import FusedFunction

DEVICES = device_params("numpy", "opencl:cpu", "cuda:0")
on_devices = pytest.mark.parametrize("device", DEVICES)
#: the backends that compile fused kernels
COMPILES = ("opencl:cpu", "cuda:0")


def same(got, want):
    """Equal dtype, shape and values (NaNs equal)."""
    g, w = xp.asnumpy(got), xp.asnumpy(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
    np.testing.assert_array_equal(g, w)


def outcome(fn, *args):
    try:
        return xp.asnumpy(fn(*args)), None
    except Exception as exc:  # the comparison is the point
        return None, type(exc)


def agree(f, fn, *args):
    """The fused ``f`` and the plain ``fn`` give the same value or the same error."""
    got, err = outcome(f, *args)
    want, err0 = outcome(fn, *args)
    assert err == err0, (err, err0)
    if err is None:
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


def ones(n, device, dtype=None):
    return xp.ones(n, dtype=dtype or xp.float32, device=device)


# ---- 1. what the function reads of the arguments' metadata ---------------------------------
SHAPE_READERS = [
    ("x / x.shape[0]", lambda x: x / x.shape[0]),
    ("x * x.size", lambda x: x * x.size),
    ("x + len(x)", lambda x: x + len(x)),
    ("x * x.nbytes", lambda x: x * x.nbytes),
    ("if x.shape[0] > 5", lambda x: x * 2 if x.shape[0] > 5 else x - 1),
    ("x.shape[-1] in a loop", lambda x: functools.reduce(lambda a, _: a + 1,
                                                         range(x.shape[-1]), x)),
    ("(x + 1).shape of a result", lambda x: x / (x + 1).shape[0]),
    ("sum(x / x.shape[0])", lambda x: xp.sum(x / x.shape[0])),
]


@on_devices
@pytest.mark.parametrize("name, fn", SHAPE_READERS, ids=[n for n, _ in SHAPE_READERS])
def test_values_read_from_the_shape_follow_the_shape(device, name, fn):
    f = xp.fuse(fn)
    for n in (4, 8, 4, 8, 3):
        x = xp.asarray(np.arange(1.0, n + 1, dtype=np.float32), device=device)
        same(f(x), fn(x))
        same(f(x), fn(x))
    if device in COMPILES:
        # each shape traced once, then fused: the guard keeps fusion where it is correct
        assert f.stats["traced"] == 3 and f.stats["fused"] >= 5, f.stats


@on_devices
def test_the_issues_example_gives_one_eighth(device):
    f = xp.fuse(lambda x: x / x.shape[0])
    f(ones(4, device))
    f(ones(4, device))
    assert float(f(ones(8, device))[0]) == 0.125
    # the generated body of a signature that reads the shape, traced by source() itself
    # (None where nothing compiles)
    g = xp.fuse(lambda x: x / x.shape[0])
    assert (g.source(ones(16, device)) is not None) == (device in COMPILES)


@on_devices
def test_two_dimensional_shape_reads(device):
    h = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    fns = [lambda x: x * x.shape[1] + x.shape[0],
           lambda x: x / x.mT.shape[0],             # mT: not recorded, runs unfused
           lambda x: x - x.T.shape[0],
           lambda x: x + x.ndim]
    for fn in fns:
        f = xp.fuse(fn)
        for shape in ((3, 4), (4, 3), (3, 4), (2, 6)):
            x = xp.asarray(h.reshape(shape), device=device)
            agree(f, fn, x)
            agree(f, fn, x)


@on_devices
def test_layout_and_usm_type_reads(device):
    h = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    base = xp.asarray(h, device=device)
    views = [base, base.mT, base[:, ::2], xp.asarray(h.T.copy(), device=device)]
    fns = [lambda x: x * 2 if x.flags.c_contiguous else x * 3,
           lambda x: x + x.strides[-1],
           lambda x: x * (2 if x.flags.writable else 3)]
    for fn in fns:
        f = xp.fuse(fn)
        for v in views + views:
            agree(f, fn, v)
    ro = xp.asarray(h, device=device)
    g = xp.fuse(fns[2])
    agree(g, fns[2], ro)
    agree(g, fns[2], ro)
    ro.flags.writable = False   # the same array object, now read-only
    agree(g, fns[2], ro)
    u = xp.fuse(lambda x: x * 2 if x.usm_type == "shared" else x * 3)
    kinds = ("device", "shared", "host") if device == "opencl:cpu" else (None,)
    for kind in kinds + kinds:
        x = xp.asarray(h, device=device, usm_type=kind) if kind else base
        agree(u, lambda x: x * 2 if x.usm_type == "shared" else x * 3, x)


@on_devices
def test_what_the_kernel_would_not_compute_is_not_skipped(device):
    # a result the output does not use: its broadcast still has to hold
    def dead(x, w):
        x + w
        return x * 2

    # an operation that is not recorded, its result unused: its IndexError still counts
    def unused_index(x):
        x[2]
        return x * 2

    # an exception handled by the function: which branch ran depends on the shapes
    def handled(x, w):
        try:
            return x + w
        except ValueError:
            return x * 2

    f, g, h = xp.fuse(dead), xp.fuse(unused_index), xp.fuse(handled)
    for n, m in ((4, 4), (4, 4), (4, 3), (4, 1), (4, 3)):
        x, w = ones(n, device), xp.asarray(np.arange(m, dtype=np.float32), device=device)
        agree(f, dead, x, w)
    for n, m in ((4, 3), (4, 3), (4, 4), (4, 4), (4, 1)):
        x, w = ones(n, device), xp.asarray(np.arange(m, dtype=np.float32), device=device)
        agree(h, handled, x, w)
    for n in (4, 4, 2, 4, 1):
        agree(g, unused_index, ones(n, device))
    if device in COMPILES:
        assert f.stats["fused"] >= 1  # the dead result only keys the signature


@on_devices
def test_shapes_of_arrays_not_from_the_arguments_run_unfused(device):
    g_arr = xp.ones(5, device=device)
    fns = [lambda x: x * g_arr.shape[0],                     # a closure's array
           lambda x: x * xp.nonzero(x > 1)[0].shape[0],      # a shape that depends on values
           lambda x: x * sum(1 for _ in x)]                  # iteration: rows not recorded
    for fn in fns:
        f = xp.fuse(fn)
        for v in ([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [5.0, 6.0, 0.0], [0.0, 0.0, 0.0]):
            agree(f, fn, xp.asarray(np.array(v, np.float32), device=device))
        assert f.stats["fused"] == 0, f.stats


# ---- 2. globals, module attributes, cells and defaults, transitively -----------------------
SCALE = 2.0
CFG = {"scale": 2.0}
_me = sys.modules[__name__]
cfg = types.ModuleType("fuse_guard_settings")
cfg.SCALE = 2.0


def _helper(x):
    return x * SCALE


def _deeper(x):
    return _helper(x) + 1


def _with_default(x, s=2.0, *, t=1.0):
    return x * s + t


def _through_module(x):
    return x * cfg.SCALE + _me.SCALE


def _through_dict(x):
    return x * CFG["scale"]


class _Settings:
    def __init__(self):
        self.scale = 2.0


settings = _Settings()


def _through_instance(x):
    return x * settings.scale


def _make_closure():
    s = 2.0

    def read(x):
        return x * s

    def write(v):
        nonlocal s
        s = v

    return read, write


_closure_read, _closure_write = _make_closure()


def _rebind(name, value):
    globals()[name] = value


CHANGES = [
    # (function, what changes, how to undo it)
    ("a global a helper reads", lambda x: _helper(x) + 1,
     lambda: _rebind("SCALE", 3.0), lambda: _rebind("SCALE", 2.0)),
    ("a global two calls down", lambda x: _deeper(x) * 2,
     lambda: _rebind("SCALE", -1.5), lambda: _rebind("SCALE", 2.0)),
    ("a helper rebound", lambda x: _helper(x),
     lambda: _rebind("_helper", lambda x: x - 7), lambda: _rebind("_helper", _helper_saved)),
    ("a closure cell of a helper", lambda x: _closure_read(x) + 1,
     lambda: _closure_write(5.0), lambda: _closure_write(2.0)),
    ("a default argument", lambda x: _with_default(x),
     lambda: setattr(_with_default, "__defaults__", (4.0,)),
     lambda: setattr(_with_default, "__defaults__", (2.0,))),
    ("a keyword default", lambda x: _with_default(x),
     lambda: setattr(_with_default, "__kwdefaults__", {"t": -3.0}),
     lambda: setattr(_with_default, "__kwdefaults__", {"t": 1.0})),
    ("a helper's code", lambda x: _helper(x),
     lambda: setattr(_helper, "__code__", (lambda x: x + 100).__code__),
     lambda: setattr(_helper, "__code__", _helper_code)),
    ("a module attribute", lambda x: _through_module(x),
     lambda: setattr(cfg, "SCALE", 9.0), lambda: setattr(cfg, "SCALE", 2.0)),
    ("an attribute of this module", lambda x: _through_module(x),
     lambda: _rebind("SCALE", 0.5), lambda: _rebind("SCALE", 2.0)),
    ("a dict entry", lambda x: _through_dict(x),
     lambda: CFG.__setitem__("scale", 6.0), lambda: CFG.__setitem__("scale", 2.0)),
    ("an instance attribute", lambda x: _through_instance(x),
     lambda: setattr(settings, "scale", 7.0), lambda: setattr(settings, "scale", 2.0)),
]
_helper_saved = _helper
_helper_code = _helper.__code__


@on_devices
@pytest.mark.parametrize("what, fn, change, undo", CHANGES, ids=[c[0] for c in CHANGES])
def test_a_change_of_what_the_trace_read_is_seen(device, what, fn, change, undo):
    x = xp.asarray(np.array([1.0, -2.0, 0.5], np.float32), device=device)
    f = xp.fuse(fn)
    same(f(x), fn(x))
    same(f(x), fn(x))
    change()
    try:
        same(f(x), fn(x))
        same(f(x), fn(x))
    finally:
        undo()
    same(f(x), fn(x))
    same(f(x), fn(x))
    if device in COMPILES:
        assert f.stats["fused"] == 3, (what, f.stats)  # still fused, before and after


@on_devices
def test_a_fused_function_calling_another_sees_its_globals(device):
    inner = xp.fuse(lambda x: _helper(x) * 2)
    outer = xp.fuse(lambda x: xp.exp(inner(x)) - 1)
    x = xp.asarray(np.array([0.5, -0.25], np.float32), device=device)
    for value in (2.0, 2.0, 0.25, 0.25):
        _rebind("SCALE", value)
        try:
            same(outer(x), xp.exp(x * value * 2) - 1)
        finally:
            _rebind("SCALE", 2.0)


def _pass_on(d, x):
    return x * d["scale"]


UNHOLDABLE = [
    ("a dict method", lambda x: x * CFG.get("scale")),
    ("a dict passed on", lambda x: _pass_on(CFG, x)),
    ("vars()", lambda x: x * vars(_me)["SCALE"]),
    ("a method of an instance", lambda x: x * settings.__init__.__self__.scale),
    ("a class attribute", lambda x: x * _Settings.__name__.count("S")),
    ("a partial", lambda x: _partial(x)),
    ("a user module as a value", lambda x: _attr_of(_me, x)),
]
_partial = functools.partial(_with_default, s=2.0)


def _attr_of(m, x):
    return x * m.SCALE


@on_devices
@pytest.mark.parametrize("what, fn", UNHOLDABLE, ids=[c[0] for c in UNHOLDABLE])
def test_reads_the_guard_cannot_hold_run_unfused(device, what, fn):
    x = xp.asarray(np.array([1.0, -2.0], np.float32), device=device)
    f = xp.fuse(fn)
    same(f(x), fn(x))
    CFG["scale"] = 5.0
    _rebind("SCALE", 5.0)
    try:
        same(f(x), fn(x))
    finally:
        CFG["scale"] = 2.0
        _rebind("SCALE", 2.0)
    same(f(x), fn(x))
    assert f.stats["fused"] == 0, (what, f.stats)


@on_devices
def test_what_stays_fused(device):
    """Dispatch by name through the namespace, side effects on a list, a logger and
    print-free helpers keep fusing (and the side effects happen on the trace only)."""
    import logging

    log = logging.getLogger("usmarray.tests.fuse_guards")
    seen = []

    def by_name(x):
        return getattr(xp, "sin")(x) * SCALE  # noqa: B009 - the dispatch is the point

    def side_effects(x):
        seen.append(1)
        log.debug("tracing")
        return xp.cos(x) + CFG["scale"]

    x = xp.asarray(np.array([0.5, -1.0], np.float32), device=device)
    for fn in (by_name, side_effects):
        f = xp.fuse(fn)
        for _ in range(3):
            same(f(x), fn(x))
        if device in COMPILES:
            assert f.stats == {"traced": 1, "fused": 2, "unfused": 0}, (fn, f.stats)


@on_devices
def test_a_trace_function_already_installed_keeps_its_events(device):
    """A debugger's or coverage tool's trace function sees the trace's events, and the
    guard still holds what the trace read."""
    events = []

    def tracer(frame, event, arg):
        events.append(event)
        return tracer

    def loop(x):
        for _ in range(20):  # one read of SCALE held, however often it runs
            x = x + SCALE
        return x

    f = xp.fuse(loop)
    x = xp.asarray(np.array([1.0, 2.0], np.float32), device=device)
    sys.settrace(tracer)
    try:
        same(f(x), loop(x))
    finally:
        sys.settrace(None)
    assert "call" in events and "line" in events
    same(f(x), loop(x))
    _rebind("SCALE", 0.25)
    try:
        same(f(x), loop(x))
    finally:
        _rebind("SCALE", 2.0)
    if device in COMPILES:
        guard = next(iter(f._plans.values()))[0]
        assert len(guard.names) <= 3, guard.names  # SCALE and range, once each


# ---- 3. the watch itself: a recursive function called through a generator expression ------
def _tree_eval(tree, env):
    """``tree`` evaluated: ``("in", k)`` is ``env[k]``, ``(name, *operands)`` is
    ``xp.name`` of the operands, each evaluated by a recursive call from a generator
    expression (whose frame is resumed once per operand)."""
    if tree[0] == "in":
        return env[tree[1]]
    return getattr(xp, tree[0])(*(_tree_eval(t, env) for t in tree[1:]))


class _TakesEverything:
    """A recorder for :class:`_guard.Watch` that records nothing and refuses nothing."""

    def observe(self, a, kind):
        pass

    def produced(self, value):
        pass


TREE = ("add", ("in", 0), ("multiply", ("in", 1), ("in", 0)))


def _watch_tree():
    """Run a function that evaluates ``TREE`` with ``_tree_eval`` under a watch, on the
    NumPy backend: what the watch refused, the globals its guard holds, the value."""
    a = xp.asarray(np.arange(1.0, 4.0, dtype=np.float32), device="numpy")
    b = xp.asarray(np.arange(4.0, 7.0, dtype=np.float32), device="numpy")

    def f(a, b):
        return _tree_eval(TREE, (a, b))

    watch = _guard.Watch(_TakesEverything(), FusedFunction)
    got = watch.run(f, (a, b), {})
    held = sorted(k for d, k, _ in watch.guard.names if d is globals())
    return watch, held, xp.asnumpy(got)


def _check_tree_watch(refused, held, got):
    x, y = np.arange(1.0, 4.0, dtype=np.float32), np.arange(4.0, 7.0, dtype=np.float32)
    assert refused is None, refused
    # getattr: held as absent from the globals, where a global would shadow it
    assert held == ["TREE", "_tree_eval", "getattr", "xp"], held
    np.testing.assert_array_equal(got, np.add(x, np.multiply(y, x)))


def test_a_recursive_function_through_a_generator_expression_is_held():
    watch, held, got = _watch_tree()
    _check_tree_watch(watch.refused, held, got)
    assert watch.guard.holds()
    saved = _tree_eval
    _rebind("_tree_eval", lambda tree, env: env[0])
    try:
        assert not watch.guard.holds()  # the recursive function rebound: trace again
    finally:
        _rebind("_tree_eval", saved)
    assert watch.guard.holds()


def test_the_first_watch_of_a_process_sees_every_instruction():
    """The first trace function a process installs gets opcode events too: a fresh
    interpreter's first watch holds what a later one does."""
    here = os.path.dirname(os.path.abspath(__file__))
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import test_fuse_guards as t; "
            "import json; w, held, got = t._watch_tree(); "
            "print(json.dumps([w.refused, held, got.tolist()]))")
    run = subprocess.run([sys.executable, "-c", code, here], capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(
                             p for p in (os.path.dirname(here), os.environ.get("PYTHONPATH"))
                             if p)})
    refused, held, got = json.loads(run.stdout.strip().splitlines()[-1])
    _check_tree_watch(refused, held, np.array(got, np.float32))
