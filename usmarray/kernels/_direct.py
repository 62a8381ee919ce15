"""The namespace's elementwise functions through the kernel factory, where that measures
faster than the backend's own kernel (docs/fusion.md, "Small arrays").

On the SYCL OpenCL CPU device a provider kernel costs 40-110 us of host time per call
whatever its size, a factory launch about 12 us.  So an elementwise call whose operands
are C-contiguous arrays of one shape (or one such array and a Python scalar of its kind)
and whose result has at most :data:`LIMITS` ``[backend][function]`` elements runs as a
one-operation kernel of the factory.  The kernel is the one ``usmarray.fuse`` emits for
that operation (``_fuse._Emitter``): the backend's own math functions, NaN and
signed-zero rules and integer wrap-around, no contraction into FMA, and nothing for an
operation or dtype that has a fix-up (``usmarray._special_cases``) or that the emitter
does not take (those run on the provider, as do complex dtypes).  Results
are the provider's, bit for bit, NaN signs and payloads included, with one exception
that IEEE 754 leaves open: where both operands are NaN, the result is a NaN carrying
either operand's bits (the provider's own kernels differ there by operand order).
That holds by construction: a signature's kernel is compared with the provider's on
the special values of its operands (:func:`_agrees`: signed zeros, infinities, NaNs
of either sign with and without payloads, signaling NaNs, domain edges, subnormals,
integer extremes) before it takes any call, and a signature that differs anywhere
runs on the provider (tests/test_backend_agreement.py and tests/test_direct.py check
every function of the table).  Errors are the namespace's, raised before this runs.

A signature (function, operand dtypes or scalar kind, queue) compiles its kernel on
its :data:`COMPILE_AFTER` + 1-th call in the process (one build from OpenCL C: 30-250
ms, by the machine's load; dpctl builds source programs with ``clBuildProgram``, so
no persistent cache reaches them); the calls before run on the provider, so a first
call costs what it did without this module.  A kernel that does not build (a
device without double precision, a non-OpenCL device) makes the signature run on the
provider from then on.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _dtypes as dt
from .._backend._protocol import Backend
from ._elementwise import ElementwiseKernel
from ._errors import KernelSyntaxError
from ._fuse import _Emitter, _flat_launcher, _Node, _Unfusable

#: per backend name, per elementwise function, the largest result (in elements) that
#: runs through the factory (a function not listed always runs on the backend's kernel).
#: above this many elements the provider's own kernel is as fast on the SYCL CPU device
#: (benchmarks/elementwise_dispatch.py; figures in docs/performance.md)
_LARGE = 1 << 17
LIMITS: dict[str, dict[str, int]] = {
    "sycl": dict.fromkeys((
        "add", "subtract", "multiply", "divide", "maximum", "minimum", "negative",
        "positive", "square", "abs", "reciprocal", "sign", "copysign", "bitwise_and",
        "bitwise_or", "bitwise_xor", "bitwise_invert",
        "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
        "logical_and", "logical_or", "logical_xor", "logical_not", "isnan", "isinf",
        "isfinite", "signbit",
        "floor", "ceil", "trunc", "round",
        "sin", "cos", "tan", "asin", "atan", "sinh", "cosh", "tanh", "asinh",
        "acosh", "atanh", "exp", "expm1", "log", "log1p", "log2", "log10", "sqrt",
        "atan2", "hypot", "pow"), _LARGE),
}
# not "acos": OpenCL's acos gives other NaNs than the provider's for |x| > 1, infinities
# and NaNs (the emitter refuses it on SYCL, so it would never run here)
#: backends with an elementwise engine (``elementwise_engine``) take every function of
#: the table at every size: their engine compiles on the first call and takes any layout
_ENGINE_FUNCTIONS = (
    "abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh",
    "bitwise_and", "bitwise_invert", "bitwise_left_shift", "bitwise_or",
    "bitwise_right_shift", "bitwise_xor", "ceil", "conj", "copysign", "cos", "cosh",
    "divide", "equal", "exp", "expm1", "floor", "floor_divide", "greater", "greater_equal",
    "hypot", "isfinite", "isinf", "isnan", "less", "less_equal", "log", "log10", "log1p",
    "log2", "logaddexp", "logical_and", "logical_not", "logical_or", "logical_xor",
    "maximum", "minimum", "multiply", "negative", "nextafter", "not_equal", "positive",
    "pow", "real", "reciprocal", "remainder", "round", "sign", "signbit", "sin", "sinh",
    "sqrt", "square", "subtract", "tan", "tanh", "trunc")
LIMITS["cuda"] = dict.fromkeys(_ENGINE_FUNCTIONS, 2**63 - 1)
#: calls of a signature that run on the backend's kernel before its own compiles
COMPILE_AFTER = 2

#: functions whose result is bool (the namespace passes the promoted operand dtype)
_PREDICATES = frozenset({
    "equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "isfinite",
    "isinf", "isnan", "signbit", "logical_and", "logical_or", "logical_xor", "logical_not",
})
_SAMPLE = {float: 0.5, int: 1, bool: True}
_KIND_OF = {float: "f", int: "iu", bool: "b"}
_BOOL = np.dtype(bool)

#: (function, operand dtypes or scalar types, queue) -> a flat Kernel, a call count
#: (int: not compiled yet) or False (runs on the backend)
_entries: dict[tuple, Any] = {}
_MAX_ENTRIES = 4096
#: counters for tests: launches through the factory
stats = {"launched": 0}


def _body(name: str, operands: Any, out: np.dtype, family: str, language: str) -> Any:
    """(body, the arrays' names, their dtypes, the scalars' dtypes) of the generator for
    ``name`` with ``out`` of ``operands`` in call order (a dtype for an array, a Python
    scalar type, ``"nan"`` for a NaN clip bound, None for an absent one), or False
    where the generator refuses it."""
    nodes: list[_Node] = []
    ins: list[Any] = []
    names = []
    dtypes = []
    for k, o in enumerate(operands):
        if isinstance(o, np.dtype):
            ins.append(len(nodes))
            names.append(f"a{k}")
            dtypes.append(o)
            nodes.append(_Node("arg", (k,), o, ()))
        elif o is None:  # an absent clip bound
            ins.append(None)
        elif o == "nan":  # a NaN clip bound (the generator's code differs for it)
            ins.append(("const", float("nan")))
        elif o in _SAMPLE:
            # a distinct sample a position, so that the generator keeps one scalar
            # argument per scalar operand
            ins.append(("const", o(_SAMPLE[o] + k) if o is not bool else _SAMPLE[o]))
        else:
            return False
    nodes.append(_Node(name, tuple(ins), out, ()))
    em = _Emitter(nodes, family, language)
    try:
        body = em.body(len(nodes) - 1, out)
    except _Unfusable:
        return False
    return body, names, dtypes, [cd for _v, cd in em.consts]


def _build(name: str, operands: tuple, out_dtype: np.dtype, family: str) -> Any:
    """The flat Kernel of ``name`` for ``operands`` (dtypes of array operands, Python
    scalar types of scalar ones, in call order), or False where the emitter refuses it."""
    got = _body(name, operands, out_dtype, family, "opencl")
    if got is False:
        return False
    body, names, dtypes, cdts = got
    arrays = [f"{d.name}[] {n}" for n, d in zip(names, dtypes, strict=True)]
    scalars = [f"{cd.name} s{j}" for j, cd in enumerate(cdts)]
    sig = ", ".join(arrays + scalars) + f" -> {out_dtype.name}[] z"
    ek = ElementwiseKernel(sig, body, name=name, bodies={"opencl": body})
    return ek._kernel(1)


def _launch(be: Any, key: tuple, name: str, operands: tuple, out_dtype: np.dtype,
            arrays: list, values: list, size: int, shape: tuple, q: Any) -> Any:
    e = _entries.get(key)
    if e is None or type(e) is int:
        if e is None and len(_entries) >= _MAX_ENTRIES:
            _entries.clear()  # many queues or signatures: start over (they compile again)
        calls = (e or 0) + 1
        if calls <= COMPILE_AFTER:
            _entries[key] = calls
            return None
        e = _entries[key] = _launcher(be, q, name, operands, out_dtype, values)
    if e is False or size > e[1]:
        return None
    u = be.usm_type_of(arrays[0])
    if len(arrays) == 2:
        u2 = be.usm_type_of(arrays[1])
        if u2 != u:
            u = be.coerced_usm_type([u, u2])
    out = be.empty(shape, dtype=out_dtype, usm_type=u, queue=q)
    values.append(out)
    e[0].launch_flat(q, values, size)
    stats["launched"] += 1
    return out


def _launcher(be: Any, q: Any, name: str, operands: tuple, out_dtype: np.dtype,
              values: list) -> Any:
    """(the flat launcher, the most work-items one launch takes) of ``name`` for
    ``operands`` on ``q``, or False where it cannot run there."""
    k = _build(name, operands, out_dtype, be.kernel_family)
    if k is False:
        return False
    try:
        launcher = _flat_launcher(k, be, q, [*values, None])
    except (KernelSyntaxError, NotImplementedError, TypeError):
        # the device cannot build it (not OpenCL, no double precision, ...): the
        # backend's kernel computes this signature from now on
        return False
    if launcher is False or not _agrees(be, q, name, operands, out_dtype, launcher[0]):
        return False
    return launcher


#: finite values every floating probe holds (float32 rounds the largest to inf)
_FLOAT_PROBES = (0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, 0.1, 100.0, -100.0,
                 89.0, 710.0, -750.0, 1e30, 1e300, np.inf, -np.inf)
#: Python scalars each scalar kind is probed with (ints: those that fit the array's dtype)
_SCALAR_PROBES: dict[type, tuple] = {
    float: (0.0, -0.0, 1.0, -1.0, 0.5, 2.0, np.inf, -np.inf, np.nan, -np.nan),
    int: (0, 1, 2, 7, -1, -2, 127, -128),
    bool: (False, True),
}


def _probe(d: np.dtype) -> np.ndarray:
    """The special values of dtype ``d``: signed zeros, infinities, domain edges
    (1 +- ulp), subnormals, the extremes, and NaNs of either sign, quiet and
    signaling, with and without a payload; integers' extremes and small values."""
    if d.kind == "b":
        return np.array([False, True])
    if d.kind in "iu":
        info = np.iinfo(d)
        v = {0, 1, 2, 3, 7, info.max, info.max - 1, info.min, info.min + 1}
        return np.array(sorted(v | ({-1, -2, -7} if d.kind == "i" else set())), dtype=d)
    fi = np.finfo(d)
    one = d.type(1)
    edges = [np.nextafter(one, d.type(2)), np.nextafter(one, d.type(0)),
             fi.smallest_subnormal, fi.max]
    edges += [-e for e in edges]
    bits = 8 * d.itemsize
    exp, quiet, sign = ((1 << fi.nexp) - 1) << fi.nmant, 1 << (fi.nmant - 1), 1 << (bits - 1)
    nans = [exp | quiet, sign | exp | quiet, exp | quiet | 1, sign | exp | quiet | 0x2345,
            exp | 1, sign | exp | 1]
    with np.errstate(over="ignore"):
        fin = np.array(_FLOAT_PROBES).astype(d)
    return np.concatenate([fin, np.array(edges, dtype=d),
                           np.array(nans, dtype=f"uint{bits}").view(d)])


def _differs(ref: np.ndarray, got: np.ndarray, both_nan: Any) -> bool:
    """Whether ``got`` differs from ``ref`` in its bits anywhere but where both operands
    are NaN (``both_nan``) and the result is floating, where it must only be a NaN."""
    u = np.dtype(f"uint{8 * ref.dtype.itemsize}")
    diff = ref.view(u) != got.view(u)
    if both_nan is not None and ref.dtype.kind == "f":
        if not np.isnan(got[both_nan]).all():
            return True
        diff &= ~both_nan
    return bool(diff.any())


def _agrees(be: Any, q: Any, name: str, operands: tuple, out_dtype: np.dtype,
            launch: Any) -> bool:
    """Whether the factory's kernel gives the provider's bits for ``name`` on the special
    values of ``operands`` (dtypes of array operands, Python scalar types of scalar ones,
    in call order): arrays of every probe (every pair of them for two arrays), each
    with every probe scalar.  Once per signature and queue, when it compiles."""
    hosts = [_probe(o) for o in operands if isinstance(o, np.dtype)]
    if len(hosts) == 2:
        n1, n2 = len(hosts[0]), len(hosts[1])
        hosts = [np.repeat(hosts[0], n2), np.tile(hosts[1], n1)]
    size = len(hosts[0])
    arrays = [be.from_host(h, "device", q) for h in hosts]
    nan = [np.isnan(h) if h.dtype.kind == "f" else None for h in hosts]
    st = next((o for o in operands if not isinstance(o, np.dtype)), None)
    if st is None:
        cases: list[Any] = [None]
        both_nan = nan[0] & nan[1] if len(nan) == 2 and nan[0] is not None else None
    else:
        d = hosts[0].dtype
        cases = [s for s in _SCALAR_PROBES[st] if d.kind not in "iu" or dt.integer_fits(d, s)]
    for s in cases:
        if s is None:
            args = arrays
        else:
            args = [arrays[0], s] if isinstance(operands[0], np.dtype) else [s, arrays[0]]
            both_nan = nan[0] if nan[0] is not None and s != s else None
        ref = be.to_host(getattr(be, name)(*args))
        out = be.empty((size,), dtype=out_dtype, usm_type="device", queue=q)
        launch.launch_flat(q, [*arrays, *([] if s is None else [s]), out], size)
        if _differs(ref, be.to_host(out), both_nan):
            return False
    return True


#: (function, operand dtypes or scalar types, kernel family) -> (body, the arrays'
#: names, the scalars' dtypes, the result dtype) for an engine, or False where the
#: generator refuses the signature
_bodies: dict[tuple, Any] = {}


def _engine_body(key: tuple, family: str) -> Any:
    name, *operands = key[:-1]
    # dtypes travel in keys as their one-letter codes (a str hashes once; a dtype
    # hashes anew on every lookup); the engines' arrays are in native byte order
    operands = [np.dtype(o) if type(o) is str and len(o) == 1 else o for o in operands]
    out = _BOOL if name in _PREDICATES else None
    if name == "astype":  # ("astype", source dtype, result dtype)
        operands, out = operands[:1], operands[1]
    if out is None:
        dtypes = [o for o in operands if isinstance(o, np.dtype)]
        if name in ("where", "clip"):  # the condition; the bounds take x's dtype
            dtypes = dtypes[1:] if name == "where" else dtypes[:1]
        if not dtypes:
            return False
        out = dtypes[0] if len(dtypes) == 1 else dt.PROMOTION_TABLE[(dtypes[0], dtypes[1])]
    got = _body(name, operands, out, family, "cuda")
    if got is False:
        return False
    body, names, _dtypes, cdts = got
    return body, names, cdts, out


def _entry(key: tuple, family: str) -> Any:
    """The engine's entry of ``key`` (:data:`_bodies`), made on its first call."""
    e = _bodies.get(key)
    if e is None:
        if len(_bodies) >= _MAX_ENTRIES:
            _bodies.clear()
        e = _bodies[key] = _engine_body(key, family)
    return e


def _engine_call_of(be: Backend) -> Any:
    """``be``'s call of any generator entry on its engine, ``call(key, arrays,
    scalars)``: the raw result, or None where the engine does not take it; in the
    backend's compiled form where it has one."""
    fam = be.kernel_family
    run = be.elementwise

    def call(key: tuple, arrays: list, scalars: list) -> Any:
        e = _entry(key, fam)
        if e is False:
            return None
        res = run(key, e[0], e[1], arrays, list(zip(scalars, e[2], strict=True)), e[3])
        if res is not None:
            stats["launched"] += 1
        return res

    # a backend of the protocol's methods alone (no base class) has no compiled form
    compiled = getattr(be, "compiled_engine", None)
    return call if compiled is None else compiled(call, _bodies, stats)


#: backend -> :func:`_engine_call_of`
_engine_runs: dict[Any, Any] = {}


def _engine(be: Backend, key: tuple, arrays: list, scalars: list) -> Any:
    run = _engine_runs.get(be)
    if run is None:
        run = _engine_runs[be] = _engine_call_of(be)
    return run(key, arrays, scalars)


#: the operands below which a backend's engine takes a call straight from the compiled
#: core (every size runs on the engine; below this bound no broadcast result can pass
#: the namespace's size check, ``usmarray._elementwise._SAFE_SIZE``)
ENGINE_SMALL = 2**29


def engine_kernel(be: Backend, name: str, kernel: Any, binary: bool) -> Any:
    """Elementwise ``name`` of raw operands (arrays of ``be`` or Python scalars, already
    checked by the namespace: two where ``binary``, in call order) straight to the backend's
    engine, and to ``kernel`` (the backend's own) where the engine does not take the
    call: the small-call form (``small_kernel``) of a backend with an engine, in the
    backend's compiled form where it has one."""
    fam = be.kernel_family
    run = be.elementwise
    bodies = _bodies

    # _engine's work, inline (these calls are the ones whose host time counts)
    def unary_call(a: Any) -> Any:
        key = (name, a.dtype.char, fam)
        e = bodies.get(key) or _entry(key, fam)
        res = None if e is False else run(key, e[0], e[1], [a], [], e[3])
        if res is None:
            return kernel(a)
        stats["launched"] += 1
        return res

    def binary_call(a1: Any, a2: Any) -> Any:
        t1, t2 = type(a1), type(a2)
        if t2 in _SAMPLE:
            key: tuple = (name, a1.dtype.char, t2, fam)
            arrays, scalars = [a1], [a2]
        elif t1 in _SAMPLE:
            key = (name, t1, a2.dtype.char, fam)
            arrays, scalars = [a2], [a1]
        elif t1 is complex or t2 is complex:
            return kernel(a1, a2)
        else:
            key = (name, a1.dtype.char, a2.dtype.char, fam)
            arrays, scalars = [a1, a2], []
        e = bodies.get(key) or _entry(key, fam)
        res = None if e is False else run(
            key, e[0], e[1], arrays, list(zip(scalars, e[2], strict=True)), e[3])
        if res is None:
            return kernel(a1, a2)
        stats["launched"] += 1
        return res

    call = binary_call if binary else unary_call
    # a backend of the protocol's methods alone (no base class) has no compiled form
    compiled = getattr(be, "compiled_elementwise", None)
    return call if compiled is None else compiled(name, binary, call, bodies, stats)


def _refused(*_operands: Any) -> None:
    """The kernel of the engine calls of :func:`binary` and :func:`unary`: None, so that
    the namespace runs the backend's kernel and its fix-ups."""
    return None


#: (backend, function, binary) -> :func:`engine_kernel`'s call that gives None where
#: the engine refuses the call
_engine_calls: dict[tuple, Any] = {}


def _engine_call(be: Backend, name: str, binary: bool) -> Any:
    call = _engine_calls.get((be, name, binary))
    if call is None:
        call = _engine_calls[(be, name, binary)] = engine_kernel(be, name, _refused, binary)
    return call


def binary(be: Any, name: str, limit: int, a1: Any, a2: Any, d1: Any, d2: Any) -> Any:
    """The raw result of elementwise ``name`` of raw arrays or Python scalars ``a1``,
    ``a2`` (already checked by the namespace; ``d1``, ``d2`` the arrays' dtypes, None
    for a scalar) through the factory, or None where the backend's kernel is to
    compute it."""
    if be.elementwise_engine:
        return _engine_call(be, name, True)(a1, a2)
    if d2 is not None and d1 is not None:
        size = a1.size
        shape = a1.shape
        if (size > limit or not size or a2.shape != shape or d1.kind == "c"
                or d2.kind == "c" or not a1.flags.c_contiguous
                or not a2.flags.c_contiguous):
            return None
        q = be.queue_of(a1)
        rd = _BOOL if name in _PREDICATES else dt.PROMOTION_TABLE[(d1, d2)]
        return _launch(be, (name, d1, d2, q), name, (d1, d2), rd, [a1, a2], [a1, a2],
                       size, shape, q)
    if d1 is not None:
        arr, d, s, pos = a1, d1, a2, 1
    else:
        arr, d, s, pos = a2, d2, a1, 0
    size = arr.size
    st = type(s)
    if (size > limit or not size or d.kind not in _KIND_OF.get(st, "")
            or not arr.flags.c_contiguous):
        return None
    q = be.queue_of(arr)
    rd = _BOOL if name in _PREDICATES else d
    ops = (d, st) if pos == 1 else (st, d)
    # the kernel takes its arrays first, then its scalars
    return _launch(be, (name, *ops, q), name, ops, rd, [arr], [arr, s], size, arr.shape, q)


def where(be: Backend, c: Any, a1: Any, a2: Any) -> Any:
    """The raw result of ``where(c, a1, a2)`` (raw arrays, or one Python scalar of the
    other's dtype by the standard's rule, already checked by the namespace; the result
    dtype is the arrays' promoted one) through an engine, or None."""
    if not be.elementwise_engine:
        return None
    kinds: list[Any] = ["where", c.dtype.char]
    arrays = [c]
    scalars = []
    for x in (a1, a2):
        if type(x) in _SAMPLE:
            kinds.append(type(x))
            scalars.append(x)
        else:
            kinds.append(x.dtype.char)
            arrays.append(x)
    return _engine(be, (*kinds, be.kernel_family), arrays, scalars)


def astype(be: Backend, a: Any, d: np.dtype) -> Any:
    """The raw ``a`` converted to dtype ``d`` (not its own) through an engine, or None."""
    if not be.elementwise_engine:
        return None
    return _engine(be, ("astype", a.dtype.char, d.char, be.kernel_family), [a], [])


def clip(be: Backend, a: Any, lo: Any, hi: Any) -> Any:
    """The raw ``clip(a, lo, hi)`` (bounds: raw arrays of ``a``'s dtype kind, Python
    scalars that fit ``a``'s dtype, or None; checked by the namespace) through an
    engine, or None."""
    if not be.elementwise_engine:
        return None
    kinds: list[Any] = [a.dtype.char]
    arrays = [a]
    scalars = []
    for b in (lo, hi):
        if b is None:
            kinds.append(None)
        elif type(b) in _SAMPLE:
            kinds.append("nan" if b != b else type(b))
            scalars.append(b)
        else:
            kinds.append(b.dtype.char)
            arrays.append(b)
    return _engine(be, ("clip", *kinds, be.kernel_family), arrays, scalars)


def unary(be: Any, name: str, limit: int, a: Any, d: Any) -> Any:
    """As :func:`binary`, for a one-operand function (``d``: the array's dtype)."""
    if be.elementwise_engine:
        return _engine_call(be, name, False)(a)
    size = a.size
    if size > limit or not size or d.kind == "c" or not a.flags.c_contiguous:
        return None
    q = be.queue_of(a)
    rd = _BOOL if name in _PREDICATES else d
    return _launch(be, (name, d, q), name, (d,), rd, [a], [a], size, a.shape, q)


__all__ = ["COMPILE_AFTER", "ENGINE_SMALL", "LIMITS", "astype", "binary", "clip", "engine_kernel",
           "stats", "unary", "where"]
