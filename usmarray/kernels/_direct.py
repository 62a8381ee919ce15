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
are therefore the provider's, bit for bit (tests/test_direct.py checks every function
in the table on special values); errors are the namespace's, raised before this runs.

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
        "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
        "acosh", "atanh", "exp", "expm1", "log", "log1p", "log2", "log10", "sqrt",
        "atan2", "hypot", "pow"), _LARGE),
}
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


def _build(name: str, operands: tuple, out_dtype: np.dtype, family: str) -> Any:
    """The flat Kernel of ``name`` for ``operands`` (dtypes of array operands, Python
    scalar types of scalar ones, in call order), or False where the emitter refuses it."""
    nodes: list[_Node] = []
    ins: list[Any] = []
    arrays = []
    for k, o in enumerate(operands):
        if isinstance(o, np.dtype):
            ins.append(len(nodes))
            arrays.append(f"{o.name}[] a{k}")
            nodes.append(_Node("arg", (k,), o, ()))
        else:
            ins.append(("const", _SAMPLE[o]))
    nodes.append(_Node(name, tuple(ins), out_dtype, ()))
    em = _Emitter(nodes, family, "opencl")
    try:
        body = em.body(len(nodes) - 1, out_dtype)
    except _Unfusable:
        return False
    scalars = [f"{cd.name} s{j}" for j, (_v, cd) in enumerate(em.consts)]
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
        return _flat_launcher(k, be, q, [*values, None])
    except (KernelSyntaxError, NotImplementedError, TypeError):
        # the device cannot build it (not OpenCL, no double precision, ...): the
        # backend's kernel computes this signature from now on
        return False


def binary(be: Any, name: str, limit: int, a1: Any, a2: Any, d1: Any, d2: Any) -> Any:
    """The raw result of elementwise ``name`` of raw arrays or Python scalars ``a1``,
    ``a2`` (already checked by the namespace; ``d1``, ``d2`` the arrays' dtypes, None
    for a scalar) through the factory, or None where the backend's kernel is to
    compute it."""
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


def unary(be: Any, name: str, limit: int, a: Any, d: Any) -> Any:
    """As :func:`binary`, for a one-operand function (``d``: the array's dtype)."""
    size = a.size
    if size > limit or not size or d.kind == "c" or not a.flags.c_contiguous:
        return None
    q = be.queue_of(a)
    rd = _BOOL if name in _PREDICATES else d
    return _launch(be, (name, d, q), name, (d,), rd, [a], [a], size, a.shape, q)


__all__ = ["COMPILE_AFTER", "LIMITS", "binary", "stats", "unary"]
