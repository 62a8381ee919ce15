"""``usmarray.fuse``: one kernel for a chain of array-API calls (docs/fusion.md).

The decorated function is ordinary array-API code.  The first call per *signature*
(per argument: an array's dtype, rank and device, a Python scalar's type and value,
any other argument's value; which arguments are the same array; the metadata of an
argument the function read, such as its shape) runs the function unfused while the
namespace functions record what they compute (``usmarray._trace``) and ``_guard``
records what else it read (globals, module attributes, closure cells, defaults,
transitively): its result is that call's result, and its plan is reused only while
all of that is what the trace read.  When everything between the array arguments and the result
is an elementwise function, operator, ``where``, ``clip`` or ``astype`` of a dtype
and form this module can emit exactly (the table below), the recorded chain becomes
one kernel of the factory (``elementwise``), compiled once; a trailing ``sum``,
``prod``, ``max``, ``min`` or ``mean`` runs as the namespace's own reduction on the
kernel's result, or, where the backend can (``fused_reduction``: CUDA, operands of the
result's shape, C-contiguous), as that reduction computing each element in its load,
so nothing but the result is written.  Later calls with that signature launch the
kernel.  Anything else
(an unsupported function or dtype, an array that is not an argument, a value read
into Python, a write into an array, the NumPy backend) makes that signature run the
function unfused, logged at debug level on the ``usmarray.fuse`` logger.

Exactness: each operation is emitted as the backend's own kernel computes it (the
same math library functions, NaN and signed-zero rules, wrap-around integer
arithmetic in unsigned types, no contraction of ``a * b + c`` into an FMA); an
operation whose backend result needs a fix-up (``usmarray._special_cases``) is not
fused.  A later call whose shapes do not broadcast, or that fails in any other way,
runs the function unfused, so its error is the namespace's.
"""

from __future__ import annotations

import functools
import logging
import types
import weakref
from typing import Any

import numpy as np

from .. import _dtypes as dt
from .. import _statistical, _trace
from .._array import usm_ndarray, wrap_with
from .._backend._protocol import BackendBase
from .._scalars import py_scalar
from .._special_cases import FIXUPS
from . import _guard, _numpy_rules
from ._compilers import COMPILERS, program_module
from ._elementwise import ElementwiseKernel

log = logging.getLogger("usmarray.fuse")

#: signatures kept per fused function (the oldest is dropped beyond this)
MAX_SIGNATURES = 64

_UNFUSED = "unfused"

#: elementwise functions emitted as a C function of the same name (floating dtypes)
_MATH = {
    "sin": "sin", "cos": "cos", "tan": "tan", "asin": "asin", "acos": "acos",
    "atan": "atan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "asinh": "asinh",
    "acosh": "acosh", "atanh": "atanh", "exp": "exp", "expm1": "expm1", "log": "log",
    "log1p": "log1p", "log2": "log2", "log10": "log10", "sqrt": "sqrt",
    "floor": "floor", "ceil": "ceil", "trunc": "trunc", "round": "rint", "abs": "fabs",
}
_MATH2 = {"atan2": "atan2", "hypot": "hypot", "copysign": "copysign", "pow": "pow"}
_ARITH = {"add": "+", "subtract": "-", "multiply": "*", "divide": "/"}
_CUDA_ARITH = {"+": "add", "-": "sub", "*": "mul", "/": "div"}
_COMPARE = {"equal": "==", "not_equal": "!=", "less": "<", "less_equal": "<=",
            "greater": ">", "greater_equal": ">="}
_BITWISE = {"bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^"}
_LOGICAL = {"logical_and": "&&", "logical_or": "||", "logical_xor": "!="}
_BITWISE_OF = {"logical_and": "&", "logical_or": "|", "logical_xor": "^"}
_REDUCTIONS = frozenset({"sum", "prod", "max", "min", "mean"})
#: CUDA intrinsics the generated CUDA body uses (round-to-nearest arithmetic that
#: NVRTC will not contract into an FMA)
CUDA_INTRINSICS = frozenset(
    f"__{p}{op}_rn" for p in ("f", "d") for op in ("add", "sub", "mul", "div"))


class _Unfusable(Exception):
    """The recorded chain cannot be emitted exactly; ``args[0]`` says why."""


class _Node:
    __slots__ = ("op", "ins", "dtype", "params")

    def __init__(self, op: str, ins: tuple, dtype: np.dtype, params: tuple) -> None:
        self.op = op  # "arg" for an argument array (ins = (position,))
        self.ins = ins  # node indices, ("const", value) or None
        self.dtype = dtype
        self.params = params


class _Plan:
    """A fused signature: the kernel, which argument positions it reads, the scalar
    constants it takes, and the trailing reduction (name, keyword arguments) if any."""

    __slots__ = ("kernel", "positions", "consts", "const_dtypes", "reduction", "source_body",
                 "out_dtype", "c_shape", "c_strides", "flat", "fused_reduction")

    def __init__(self, kernel: ElementwiseKernel, positions: tuple[int, ...],
                 consts: tuple, reduction: tuple | None, source_body: dict[str, str],
                 out_dtype: np.dtype, const_dtypes: tuple[np.dtype, ...] = ()) -> None:
        self.kernel = kernel
        self.positions = positions
        self.consts = consts
        self.const_dtypes = const_dtypes
        self.reduction = reduction
        self.source_body = source_body
        self.out_dtype = out_dtype
        #: the last launch's shape and its C-contiguous element strides
        self.c_shape: tuple[int, ...] = ()
        self.c_strides: tuple[int, ...] = ()
        #: per queue, (the launcher with ``launch_flat``, its most work-items) or False
        #: where the backend's launcher has none (see :func:`_flat_launcher`)
        self.flat: dict[Any, Any] = {}
        #: per (ndim, backend name): the trailing reduction's (name, axes, result dtype,
        #: keepdims) where the backend may run it with the elements computed in its
        #: load (``fused_reduction``), else False (see :func:`_in_load_reduction`)
        self.fused_reduction: dict[tuple, Any] = {}


# ---- the recorded graph ----------------------------------------------------------------------
class _GraphRecorder(_trace.Recorder):
    """Builds the graph while the trace runs: each recorded result gets a node whose
    inputs are argument arrays, earlier nodes or Python scalars; a result computed from
    anything else gets none.  Results are not kept alive (the trace holds no more
    memory than the unfused run): a result's node is forgotten when it is freed, so a
    later array at the same address cannot be taken for it."""

    def __init__(self, flat: list) -> None:
        super().__init__()
        self.ids: dict[int, int] = {}
        self.nodes: list[_Node] = []
        #: (argument position, "shape" | "layout" | "usm_type"): what the function read
        #: of an argument's metadata, directly or through an array computed from it
        self.observed: set[tuple[int, str]] = set()
        for k, a in enumerate(flat):
            if type(a) is usm_ndarray and id(a) not in self.ids:
                self.ids[id(a)] = len(self.nodes)
                self.nodes.append(_Node("arg", (k,), a._arr.dtype, ()))

    def _forget(self, key: int) -> None:
        # runs as the result is freed, before its address can be reused
        self.ids.pop(key, None)

    def note(self, name: str, operands: tuple, result: Any, params: tuple) -> None:
        ids = self.ids
        ins: list[Any] = []
        for o in operands:
            if type(o) is usm_ndarray:
                n = ids.get(id(o))
                if n is None:
                    break
                ins.append(n)
            elif o is None:
                ins.append(None)
            else:
                v = py_scalar(o)
                if type(v) not in (bool, int, float):
                    break
                ins.append(("const", v))
        else:
            index = len(self.nodes)
            self.nodes.append(_Node(name, tuple(ins), result._arr.dtype, params))
            known = id(result) in ids
            ids[id(result)] = index
            if not known:  # an argument (or a result noted twice) is alive anyway
                weakref.finalize(result, self._forget, id(result))
            return
        ids.pop(id(result), None)  # computed from something that is not an argument

    def positions(self, n: int) -> set[int]:
        """The argument positions node ``n`` is computed from."""
        out: set[int] = set()
        stack, seen = [n], set()
        while stack:
            i = stack.pop()
            if i in seen:
                continue
            seen.add(i)
            node = self.nodes[i]
            if node.op == "arg":
                out.add(node.ins[0])
            else:
                stack.extend(r for r in node.ins if isinstance(r, int))
        return out

    def observe(self, a: Any, kind: str) -> None:
        """The function read ``kind`` of array ``a``'s metadata (see ``_guard.Watch``)."""
        if kind in ("values", "attribute"):
            what = "values (repr, str, format or pickle)" if kind == "values" else \
                "backend attributes"
            self.impure = self.impure or f"it reads an array's {what}"
            return
        n = self.ids.get(id(a)) if type(a) is usm_ndarray else None
        if n is None:
            self.impure = self.impure or (
                f"it reads the {kind} of an array that is neither an argument nor computed "
                "from the arguments by recorded operations")
            return
        self.observed.update((p, kind) for p in self.positions(n))

    def produced(self, v: Any) -> None:
        """A namespace function returned ``v`` to the function: every array in it must
        be an argument or a recorded result."""
        for a in (v if type(v) in (tuple, list) else (v,)):
            if type(a) is usm_ndarray and id(a) not in self.ids and self.impure is None:
                self.impure = ("an array computed by an operation that is not recorded, or "
                               "from an array that is not an argument (a global; indexing, "
                               "creation, manipulation, linear algebra, ...)")

    def dead(self, out: int) -> None:
        """Recorded results the output does not use: the kernel will not compute them,
        so the shapes their operations checked become part of the signature."""
        used: set[int] = set()
        stack = [out]
        while stack:
            i = stack.pop()
            if i not in used:
                used.add(i)
                stack.extend(r for r in self.nodes[i].ins if isinstance(r, int)
                             and self.nodes[i].op != "arg")
        for i, node in enumerate(self.nodes):
            if node.op != "arg" and i not in used:
                self.observed.update((p, "shape") for p in self.positions(i))

    def output(self, out: Any) -> int:
        """The node of the function's result."""
        if type(out) is not usm_ndarray:
            raise _Unfusable(f"the function returned {type(out).__name__}, not one array")
        n = self.ids.get(id(out))
        if n is None:
            raise _Unfusable("the result depends on an array that is not an argument or on "
                             "an operation that is not recorded (indexing, creation, "
                             "manipulation, linear algebra, ...)")
        return n


# ---- emitting C -------------------------------------------------------------------------------
class _Emitter:
    """The body of one fused kernel, for one target language."""

    def __init__(self, nodes: list[_Node], family: str, language: str) -> None:
        self.nodes = nodes
        self.family = family
        self.language = language
        self.lines: list[str] = []
        self.consts: list[tuple[Any, np.dtype]] = []
        self.done: dict[int, str] = {}
        self.names = 0

    def fresh(self) -> str:
        """A new variable name for a rule's statements."""
        self.names += 1
        return f"w{self.names}"

    def const(self, value: Any, d: np.dtype) -> str:
        for j, (v, cd) in enumerate(self.consts):
            if type(v) is type(value) and v == value and cd == d and (
                    type(v) is not float or np.copysign(1.0, v) == np.copysign(1.0, value)):
                return f"s{j}"
        self.consts.append((value, d))
        return f"s{len(self.consts) - 1}"

    def operand(self, ref: Any, cd: np.dtype) -> str:
        """``ref`` (a node index or a constant) as a C expression of dtype ``cd``."""
        if isinstance(ref, tuple):
            v = ref[1]
            if type(v) is float and cd.kind != "f" or type(v) is bool and cd.kind != "b" \
                    or type(v) is int and cd.kind == "b":
                raise _Unfusable(f"a Python {type(v).__name__} with dtype {cd}")
            return self.const(v, cd)
        name = self.value(ref)
        if self.nodes[ref].dtype == cd:
            return name
        return f"(({_cname(cd)})({name}))"

    def value(self, i: int) -> str:
        got = self.done.get(i)
        if got is not None:
            return got
        node = self.nodes[i]
        if node.op == "arg":
            expr = f"a{node.ins[0]}"
        else:
            expr = self.expr(node)
        var = f"t{i}"
        self.lines.append(f"{_cname(node.dtype)} {var} = {expr};")
        self.done[i] = var
        return var

    def arith(self, sym: str, a: str, b: str, cd: np.dtype) -> str:
        if cd.kind == "f":
            if self.language == "cuda":
                return f"__{'f' if cd.itemsize == 4 else 'd'}{_CUDA_ARITH[sym]}_rn({a}, {b})"
            return f"({a} {sym} {b})"
        if sym == "/":  # pragma: no cover - integer division is not dispatched here
            raise _Unfusable("integer division")
        u = "uint32" if cd.itemsize <= 4 else "uint64"
        return f"(({_cname(cd)})(({u})({a}) {sym} ({u})({b})))"

    def expr(self, node: _Node) -> str:
        op, d = node.op, node.dtype
        ins = node.ins
        fx = FIXUPS.get(self.family)
        if fx is not None and (op in fx[0] or op in fx[1]) and not (
                len(ins) == 2 and op in _numpy_rules.BINARY
                and self.family in _numpy_rules.FAMILIES):
            table = fx[0] if op in fx[0] else fx[1]
            in_dtypes = {self.nodes[r].dtype for r in ins if isinstance(r, int)}
            if in_dtypes & table[op][0] or d in table[op][0]:
                raise _Unfusable(f"{op} has a fix-up on the {self.family} backend")
        if d.kind == "c" or any(isinstance(r, int) and self.nodes[r].dtype.kind == "c"
                                for r in ins):
            raise _Unfusable(f"{op} on complex dtypes")
        if op in _REDUCTIONS:
            raise _Unfusable(f"{op} in the middle of the chain (only the last call may "
                             "reduce)")
        if len(ins) == 1 and op not in ("astype",):
            return self.unary(op, ins[0], d)
        if op == "astype":
            return self.astype(ins[0], d)
        if op == "where":
            c = self.operand(ins[0], dt.bool)
            return f"({c} ? {self.operand(ins[1], d)} : {self.operand(ins[2], d)})"
        if op == "clip":
            return self.clip(ins, d)
        if len(ins) == 2:
            return self.binary(op, ins, d)
        raise _Unfusable(f"{op} is not fused")

    def clip(self, ins: tuple, d: np.dtype) -> str:
        """``clip`` as the backend computes it: the provider's ``max(x, lo)`` then
        ``min(., hi)`` keeping x where it equals a bound on SYCL; on CUDA the backend's
        one-pass kernel for bounds that are Python scalars other than NaN (x kept unless
        strictly outside), else CuPy's ``minimum(maximum(x, lo), hi)``."""
        x = self.operand(ins[0], d)
        lo, hi = ins[1], ins[2]
        nan = self.isnan
        if self.family == "cuda" and all(
                r is None or (isinstance(r, tuple) and r[1] == r[1]) for r in (lo, hi)):
            def low(v: str, b: str) -> str:
                return f"({v} < {b} ? {b} : {v})"

            def high(v: str, b: str) -> str:
                return f"({v} > {b} ? {b} : {v})"
        elif self.family == "cuda":
            def low(v: str, b: str) -> str:
                return self.extremum("maximum", v, b, d)

            def high(v: str, b: str) -> str:
                return self.extremum("minimum", v, b, d)
        else:
            def low(v: str, b: str) -> str:
                return f"(({v} > {b} || {nan(v, d)}) ? {v} : {b})"

            def high(v: str, b: str) -> str:
                return f"(({v} < {b} || {nan(v, d)}) ? {v} : {b})"
        if lo is not None:
            x = self.bind(low(x, self.operand(lo, d)), d)
        if hi is not None:
            x = high(x, self.operand(hi, d))
        return x

    def extremum(self, op: str, a: str, b: str, cd: np.dtype) -> str:
        """``maximum``/``minimum`` as the backend computes them (NaN propagates): the
        provider's ``(a > b || isnan(a)) ? a : b`` on SYCL; on CUDA CuPy's ``NaN if either
        is NaN, else fmax/fmin`` (which differ for signed zeros)."""
        sym = ">" if op == "maximum" else "<"
        if self.family == "cuda":
            if cd.kind == "f":
                fn = "fmax" if op == "maximum" else "fmin"
                return f"((isnan({a}) || isnan({b})) ? ({a} + {b}) : {fn}({a}, {b}))"
            return f"({a} {sym} {b} ? {a} : {b})"
        return f"(({a} {sym} {b} || {self.isnan(a, cd)}) ? {a} : {b})"

    def bind(self, expr: str, d: np.dtype) -> str:
        var = f"u{len(self.lines)}"
        self.lines.append(f"{_cname(d)} {var} = {expr};")
        return var

    @staticmethod
    def isnan(x: str, d: np.dtype) -> str:
        return f"(isnan({x}) != 0)" if d.kind == "f" else "0"

    def unary(self, op: str, ref: Any, d: np.dtype) -> str:
        if not isinstance(ref, int):  # pragma: no cover - a unary function takes an array
            raise _Unfusable(f"{op} of a constant")
        sd = self.nodes[ref].dtype
        x = self.operand(ref, sd)
        k = sd.kind
        if op in ("isnan", "isinf", "isfinite", "signbit"):
            if k == "f":
                return f"({op}({x}) != 0)"
            if op == "signbit":
                raise _Unfusable("signbit of an integer")
            return "1" if op == "isfinite" else "0"
        if op == "logical_not" or (op == "bitwise_invert" and k == "b"):
            return f"(!{x})"
        if op == "bitwise_invert":
            return f"(({_cname(sd)})(~{x}))"
        if op == "positive" or (op in ("floor", "ceil", "trunc", "round") and k in "iu"):
            return x
        if op == "square":
            return self.arith("*", x, x, sd)
        if op == "negative":
            if k == "f":
                return f"(-{x})"
            return self.arith("-", "0", x, sd)
        if op == "abs" and k in "iu":
            return x if k == "u" else f"({x} < 0 ? {self.arith('-', '0', x, sd)} : {x})"
        if op == "sign":
            if k == "f" and self.family in _numpy_rules.FAMILIES:
                return _numpy_rules.sign(self.bind(x, sd), sd)
            if k == "f":
                # a NaN gives the quiet NaN of positive sign and no payload, whatever
                # NaN came in: the provider's bits (OpenCL's NAN macro may have others)
                nan = "nan(0u)" if sd.itemsize == 4 else "nan(0ul)"
                return (f"({self.isnan(x, sd)} ? {nan} : (({x} > 0) ? "
                        f"({_cname(sd)})1 : (({x} < 0) ? ({_cname(sd)})-1 : ({_cname(sd)})0)))")
            return f"(({_cname(sd)})(({x} > 0) - ({x} < 0)))"
        if op in ("conj", "real") and k != "c":
            return x
        if op == "reciprocal" and k == "f":
            return self.arith("/", f"(({_cname(sd)})1)", x, sd)
        if op == "acos" and self.family == "sycl":
            # the provider's NaNs for |x| > 1, infinities and NaNs differ from OpenCL's
            # acos in sign and payload (tests/test_backend_agreement.py)
            raise _Unfusable("acos on the SYCL backend (the provider's NaN bits)")
        if k == "f" and op in _MATH:
            return f"{_MATH[op]}({x})"
        raise _Unfusable(f"{op} of dtype {sd}")

    def astype(self, ref: Any, d: np.dtype) -> str:
        sd = self.nodes[ref].dtype
        x = self.operand(ref, sd)
        if d.kind == "b":
            return f"({x} != 0)"
        return f"(({_cname(d)})({x}))"

    def binary(self, op: str, ins: tuple, d: np.dtype) -> str:
        r1, r2 = ins
        cd = self._compute_dtype(op, r1, r2, d)
        a, b = self.operand(r1, cd), self.operand(r2, cd)
        k = cd.kind
        if op in _ARITH:
            if op == "divide" and k != "f":
                # integer true division: both operands in the result's floating dtype
                return self.arith("/", f"(({_cname(d)})({a}))", f"(({_cname(d)})({b}))", d)
            if k == "b":
                raise _Unfusable(f"{op} of booleans")
            return self.arith(_ARITH[op], a, b, cd)
        if op in _COMPARE:
            return f"({a} {_COMPARE[op]} {b})"
        if op in _LOGICAL:
            if self.family == "cuda":
                # bools are 0 or 1: the bitwise form is the same value, without the
                # short-circuit's branch (the byte-wide loops then stay vectorized)
                return f"(({a}) {_BITWISE_OF[op]} ({b}))"
            return f"({a} {_LOGICAL[op]} {b})"
        if op in _BITWISE:
            if k == "b":
                return f"({a} {_BITWISE[op]} {b})"
            return f"(({_cname(cd)})({a} {_BITWISE[op]} {b}))"
        if op in ("maximum", "minimum"):
            return self.extremum(op, a, b, cd)
        if op in _MATH2 and k == "f":
            return f"{_MATH2[op]}({a}, {b})"
        if k in _numpy_rules.BINARY.get(op, "") and self.family in _numpy_rules.FAMILIES:
            return _numpy_rules.binary(op, self.bind(a, cd), self.bind(b, cd), cd,
                                       self.lines.append, self.fresh)
        raise _Unfusable(f"{op} of dtype {cd}")

    def _compute_dtype(self, op: str, r1: Any, r2: Any, d: np.dtype) -> np.dtype:
        """The dtype the backend computes ``op`` in: the promoted operand dtype (a
        Python scalar takes the array's), as the namespace resolved it."""
        if isinstance(r1, int) and isinstance(r2, int):
            d1, d2 = self.nodes[r1].dtype, self.nodes[r2].dtype
            return dt.PROMOTION_TABLE[(d1, d2)]
        arr = r1 if isinstance(r1, int) else r2
        return self.nodes[arr].dtype

    def body(self, out: int, out_dtype: np.dtype) -> str:
        t = self.value(out)
        pre = "#pragma OPENCL FP_CONTRACT OFF\n" if self.language == "opencl" else ""
        return pre + "\n".join(self.lines) + f"\nz = {t}"


def _cname(d: np.dtype) -> str:
    """The dtype's name in a kernel body (the translator maps it to the target's C type)."""
    return "bool" if d.kind == "b" else d.name


def _compile_plan(nodes: list[_Node], out: int, family: str, fname: str) -> _Plan:
    reduction = None
    node = nodes[out]
    if node.op in _REDUCTIONS:
        if not isinstance(node.ins[0], int):  # pragma: no cover
            raise _Unfusable("a reduction of a constant")
        try:
            hash(node.params)
        except TypeError:
            raise _Unfusable(f"{node.op} with unhashable arguments") from None
        names = ("axis", "dtype", "keepdims") if node.op in ("sum", "prod") else ("axis", "keepdims")
        reduction = (node.op, dict(zip(names, node.params, strict=True)))
        out = node.ins[0]
        node = nodes[out]
    if node.op == "arg":
        raise _Unfusable("nothing to fuse (the result is an argument, or a reduction of one)")
    bodies = {}
    consts: tuple = ()
    reads: set[int] = set()
    for lang in ("opencl", "cuda"):
        em = _Emitter(nodes, family, lang)
        bodies[lang] = em.body(out, node.dtype)
        consts = tuple(em.consts)
        reads = {nodes[i].ins[0] for i in em.done if nodes[i].op == "arg"}
    positions = tuple(sorted(reads))
    arrays = [f"{_signame(nodes, p)}[] a{p}" for p in positions]
    scalars = [f"{cd.name} s{j}" for j, (_v, cd) in enumerate(consts)]
    sig = ", ".join(arrays + scalars) + f" -> {node.dtype.name}[] z"
    kernel = ElementwiseKernel(sig, bodies["opencl"], name=f"fused {fname}", bodies=bodies,
                               intrinsics=CUDA_INTRINSICS)
    return _Plan(kernel, positions, tuple(v for v, _ in consts), reduction, bodies,
                 node.dtype, tuple(d for _, d in consts))


def _signame(nodes: list[_Node], position: int) -> str:
    for n in nodes:
        if n.op == "arg" and n.ins[0] == position:
            return n.dtype.name
    raise AssertionError(position)  # pragma: no cover


# ---- the decorator ----------------------------------------------------------------------------
def _fact(a: Any, kind: str) -> Any:
    """What the function read of argument ``a``'s metadata, as part of a signature."""
    if type(a) is not usm_ndarray:
        return None
    raw = a._arr
    if kind == "shape":
        return raw.shape
    if kind == "layout":
        return raw.shape, a._be.element_strides(raw), a._be.writable(raw)
    return a._be.usm_type_of(raw)


class FusedFunction:
    """A function fused by ``fuse``: call it as the function itself.

    Made by ``usmarray.fuse(fn)`` (no public constructor).  A call takes ``fn``'s
    arguments and returns ``fn``'s results; ``source(*args)`` returns the fused kernel's
    body per target language for such a call (None when it runs unfused), and ``stats``
    counts traces, fused launches and unfused calls.
    """

    def __init__(self, fn: Any) -> None:
        self.fn = fn
        functools.update_wrapper(self, fn)
        self._plans: dict[tuple, Any] = {}
        #: (argument position, kind) of the metadata some trace read (see
        #: ``_GraphRecorder.observe``): part of every signature from then on
        self._observed: tuple[tuple[int, str], ...] = ()
        #: counters for tests and benchmarks: traces, fused launches, unfused calls
        self.stats = {"traced": 0, "fused": 0, "unfused": 0}
        #: (weak references to the last call's arguments, all arrays, and its signature)
        self._last: tuple | None = None

    def __repr__(self) -> str:
        return f"usmarray.fuse({getattr(self.fn, '__qualname__', self.fn)!r})"

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if obj is None:
            return self
        return functools.partial(self, obj)

    def _key(self, flat: list) -> tuple | None:
        key: list[Any] = []
        seen: dict[int, int] = {}
        be = None
        for k, a in enumerate(flat):
            if type(a) is usm_ndarray:
                raw = a._arr
                first = seen.setdefault(id(a), k)
                if be is None:
                    be = a._be
                    if be.name not in COMPILERS:
                        return None  # no kernel compiler: every call runs unfused
                key.append((raw.dtype, raw.ndim, a._be.name, a._be.queue_of(raw), first))
            else:
                v = _value_key(a)
                if v is None:
                    return None
                key.append(v)
        if be is None or be.name not in COMPILERS:
            return None
        n = len(flat)
        for p, kind in self._observed:
            key.append(_fact(flat[p], kind) if p < n else None)
        return tuple(key)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _trace.ACTIVE and _trace.tracing():
            return self.fn(*args, **kwargs)  # inside another fused function's trace
        flat = list(args) + [kwargs[k] for k in sorted(kwargs)] if kwargs else list(args)
        last = self._last
        if (last is not None and not kwargs and len(args) == len(last[0])
                and all([w() is a for w, a in zip(last[0], args, strict=True)])):
            key = last[1]  # the same arrays as the last call: the same signature
        else:
            key = self._key(flat)
            if key is None:
                self.stats["unfused"] += 1
                return self.fn(*args, **kwargs)
            if kwargs:
                key = key + (tuple(sorted(kwargs)),)
            elif all(type(a) is usm_ndarray for a in args) and not any(
                    kind == "layout" for _, kind in self._observed):  # flags can change
                self._last = (tuple(weakref.ref(a) for a in args), key)
        entry = self._plans.get(key)
        if entry is not None and entry[0].holds():
            plan = entry[1]
            if plan is _UNFUSED:
                self.stats["unfused"] += 1
                return self.fn(*args, **kwargs)
            try:
                res = self._launch(plan, flat)
            except Exception as exc:  # the namespace reports it, or computes it
                log.debug("%r: the fused kernel did not run (%s: %s); calling the "
                          "function unfused", self, type(exc).__name__, exc)
                self.stats["unfused"] += 1
                return self.fn(*args, **kwargs)
            if res is not None:
                self.stats["fused"] += 1
                return res
            self.stats["unfused"] += 1
            return self.fn(*args, **kwargs)
        return self._trace(key, flat, args, kwargs)

    def _trace(self, key: tuple, flat: list, args: tuple, kwargs: dict) -> Any:
        """Run the function unfused, recording the chain (``_GraphRecorder``) and what
        it read (``_guard.Watch``); keep the plan for its signature, or ``_UNFUSED``."""
        rec = _GraphRecorder(flat)
        watch = _guard.Watch(rec, FusedFunction)
        _trace.start(rec)
        try:
            out = watch.run(self.fn, args, kwargs)
        finally:
            _trace.stop()
        self.stats["traced"] += 1
        family = next(a._be.kernel_family for a in flat if type(a) is usm_ndarray)
        try:
            if watch.refused is not None:
                raise _Unfusable(watch.refused)
            if rec.impure is not None:
                raise _Unfusable(f"it uses {rec.impure}")
            n = rec.output(out)
            rec.dead(n)
            plan: Any = _compile_plan(rec.nodes, n, family, getattr(self.fn, "__name__", "?"))
        except _Unfusable as why:
            log.debug("%r: not fused for this signature: %s; it runs unfused", self, why)
            plan = _UNFUSED
        if not rec.observed <= set(self._observed):
            # what this trace read of the arguments' metadata keys every signature now
            self._observed = tuple(sorted(rec.observed | set(self._observed)))
            self._last = None
            key = self._key(flat)  # type: ignore[assignment]
            if kwargs:
                key = key + (tuple(sorted(kwargs)),)
        if len(self._plans) >= MAX_SIGNATURES:
            self._plans.pop(next(iter(self._plans)))
        self._plans[key] = (watch.guard, plan)
        return out

    @staticmethod
    def _launch(plan: _Plan, flat: list) -> Any:
        """The fused result for arguments of the plan's signature, or None when the
        call must run unfused (shapes that do not broadcast: the namespace's error; a
        0-D result).  Dtypes and the device are the signature's, checked by its key."""
        arrays = [flat[p]._arr for p in plan.positions]
        shape: tuple[int, ...] = arrays[0].shape
        for r in arrays:
            s = r.shape
            if s != shape:
                b = _broadcast(shape, s)
                if b is None:
                    return None
                shape = b
        if not shape:
            return None
        be = flat[plan.positions[0]]._be
        if plan.reduction is not None:
            res = _reduce_in_load(plan, be, arrays, shape)
            if res is not None:
                return res
        q = be.queue_of(arrays[0])
        ek = plan.kernel
        kinds = {be.usm_type_of(r) for r in arrays}
        usm = kinds.pop() if len(kinds) == 1 else be.coerced_usm_type(list(kinds))
        out = ek._empty(be, shape, plan.out_dtype, usm, q)
        size = out.size
        if size:
            if shape != plan.c_shape:
                plan.c_shape, plan.c_strides = shape, _c_strides(shape)
            es = be.element_strides
            cs = plan.c_strides
            if all(r.shape == shape and es(r) == cs for r in arrays):
                values = [*arrays, *plan.consts, out]
                fl = plan.flat.get(q)
                if fl is None:
                    fl = plan.flat[q] = _flat_launcher(ek._kernel(1), be, q, values)
                if fl and size <= fl[1]:
                    fl[0].launch_flat(q, values, size)
                else:
                    ek._kernel(1).run_flat(be, q, values, size)
            else:
                vals = [r if r.shape == shape else be.broadcast_to(r, shape) for r in arrays]
                ek._kernel(len(shape))._run(be, q, [*vals, *plan.consts, out], "unchecked",
                                            shape, False)
        res = wrap_with(be, out)
        if plan.reduction is not None:
            name, kw = plan.reduction
            res = getattr(_statistical, name)(res, **kw)
        return res

    def source(self, *args: Any, **kwargs: Any) -> dict[str, str] | None:
        """The fused kernel's body per target language for a call with these arguments
        (tracing if needed), or None when that signature runs unfused."""
        flat = list(args) + [kwargs[k] for k in sorted(kwargs)]
        for _ in range(2):  # a trace may add what it read of the arguments to the key
            key = self._key(flat)
            if key is None:
                return None
            if kwargs:
                key = key + (tuple(sorted(kwargs)),)
            entry = self._plans.get(key)
            if entry is not None and entry[0].holds():
                return None if entry[1] is _UNFUSED else dict(entry[1].source_body)
            self._trace(key, flat, args, kwargs)
        return None


def _in_load_reduction(plan: _Plan, be: Any, ndim: int) -> Any:
    """(name, axes, result dtype, keepdims, body) of the plan's trailing reduction where
    the backend may compute the elements in the reduction's load, else False: the
    arguments must pass the namespace's own checks (the two-step path raises its errors
    otherwise) and the backend must have the body in its kernel language."""
    if getattr(be.fused_reduction, "__func__", None) is BackendBase.fused_reduction:
        return False  # no such kernel on this backend: no call per launch to learn it
    name, kw = plan.reduction or ("", {})
    t = plan.out_dtype
    axis, keepdims = kw.get("axis"), kw.get("keepdims")
    body = plan.source_body.get(getattr(program_module(be), "LANGUAGE", ""))
    if body is None or type(keepdims) is not bool:
        return False
    try:
        axes = _statistical.reduction_axes(axis, ndim, name)
    except Exception:  # the namespace's error, from the two-step path
        return False
    axes = tuple(range(ndim)) if axes is None else tuple(sorted(axes))
    if not axes:
        return False
    if name in ("sum", "prod"):
        try:
            out = _statistical._sum_dtype(types.SimpleNamespace(dtype=t), kw.get("dtype"), name)
        except Exception:
            return False
    elif name == "mean":
        out = t
        if t not in dt.REAL_FLOATING:
            return False
    else:
        out = t
        if t not in dt.REAL_NUMERIC:
            return False
    return name, axes, out, keepdims, body


def _reduce_in_load(plan: _Plan, be: Any, arrays: list, shape: tuple[int, ...]) -> Any:
    """The trailing reduction with the fused elements computed in its load (nothing
    written but the result), where the backend has such a kernel for these operands
    (``fused_reduction``): arrays of the result's shape, C-contiguous.  None otherwise:
    the caller writes the elements, then reduces."""
    if any(r.shape != shape for r in arrays):
        return None
    key = (len(shape), be.name)
    how = plan.fused_reduction.get(key)
    if how is None:
        how = plan.fused_reduction[key] = _in_load_reduction(plan, be, len(shape))
    if how is False:
        return None
    name, axes, out, keepdims, body = how
    raw = be.fused_reduction(name, body, list(zip(plan.positions, arrays, strict=True)),
                             list(zip(plan.consts, plan.const_dtypes, strict=True)),
                             plan.out_dtype, axes, out, keepdims)
    return None if raw is None else wrap_with(be, raw)


def _flat_launcher(k: Any, be: Any, q: Any, values: list) -> Any:
    """(launcher, most work-items) of flat kernel ``k`` on ``q`` where the backend's
    launcher launches a flat layout directly (``launch_flat``: SYCL), else False (the
    caller uses ``run_flat``)."""
    if getattr(program_module(be).Launcher, "launch_flat", None) is None:
        return False
    launch = k.flat_launcher(be, q, values)
    if getattr(launch, "_flat_plan", None) is None:
        return False
    limit = program_module(be).MAX_WORK_ITEMS
    return launch, limit if limit is not None else 1 << 62


def _value_key(a: Any) -> tuple | None:
    """A non-array argument as part of a signature: equal keys mean values the function
    cannot tell apart (floats by their bits, so -0.0 and 0.0 differ); None for a value
    without such a key (the call then runs unfused)."""
    if isinstance(a, np.generic):
        a = py_scalar(a)
    t = type(a)
    if t is float:
        return (t, a.hex())
    if t is complex:
        return (t, a.real.hex(), a.imag.hex())
    if t in (bool, int, str, type(None)) or isinstance(a, dt.DType):
        return (t, a)
    if t in (tuple, list):
        items = [_value_key(x) for x in a]
        return None if any(x is None for x in items) else (t, tuple(items))
    return None


def _c_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """The element strides of a C-contiguous array of ``shape`` (as the backends report
    them: an axis of length 1 keeps the stride it would have)."""
    out = []
    step = 1
    for n in reversed(shape):
        out.append(step)
        step *= max(n, 1)
    return tuple(reversed(out))


def _broadcast(s1: tuple[int, ...], s2: tuple[int, ...]) -> tuple[int, ...] | None:
    nd = max(len(s1), len(s2))
    a = (1,) * (nd - len(s1)) + s1
    b = (1,) * (nd - len(s2)) + s2
    out = []
    for m, n in zip(a, b, strict=True):
        if m == n or n == 1:
            out.append(m)
        elif m == 1:
            out.append(n)
        else:
            return None
    return tuple(out)


def fuse(fn: Any) -> FusedFunction:
    """Decorator: run ``fn``, array-API code on ``usm_ndarray`` arguments, as one fused kernel.

    The first call per signature (the arguments' dtypes, shapes, device and the Python
    scalars' types) traces ``fn``, running it unfused, and compiles its chain of
    elementwise calls into one kernel; later calls launch that kernel.  Calls that cannot
    be fused run ``fn`` unfused, with the namespace's results and errors.

    Parameters
    ----------
    fn : callable
        The function.  What it reads besides its arguments is checked on every call:
        globals, module attributes, closure cells, defaults and code of every function
        it runs, entries of dicts and instances read by a constant key, and the
        arguments' metadata it reads (a shape, a size); a read that cannot be checked (a
        mutable object passed on, a method of an object) makes it run unfused.

    Returns
    -------
    FusedFunction
        A callable with ``fn``'s name and docstring; its results equal ``fn``'s.

    Raises
    ------
    TypeError
        ``fn`` is not callable.

    Notes
    -----
    Compute follows data: the kernel runs on the arguments' device, which must be one
    (``ExecutionPlacementError``, as for the unfused calls), and its results live there.
    On a device without a kernel compiler (the NumPy device) every call runs unfused.  Not a function of the standard; see
    docs/fusion.md.
    """
    if not callable(fn):
        raise TypeError(f"fuse: expected a function, got {type(fn).__name__}")
    return FusedFunction(fn)
