"""The sources of the CUDA reductions (``reduce.py`` plans and launches them); no CuPy
needed, so that tests compile them without a GPU.

Operations are data (:class:`Op`): an accumulator struct, how one element becomes
an accumulator, how two merge (commutatively: argmax/argmin compare indices), and how
the final accumulator becomes the result.  Semantics follow the namespace: NaN
propagates through max/min; argmax/argmin return the first NaN, else the first
extremum (-0.0 equals 0.0); var/std merge (count, mean, M2) triples (Chan et al.) and
give NaN where ``count - correction <= 0``; the 2-norm scales by the largest magnitude
(no overflow or underflow) and gives inf where any element is infinite.

The passes (row, column, and a row pass that finishes its rows' chunks) are device code
in ``include/usmarray/reduce.cuh``; a kernel's source is what varies (the operation,
the input, the pass's shape as macros) followed by that header.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .c_types import CTYPES
from .headers import header

#: threads a block of every reduction kernel
BLOCK = 256
#: the row and column passes, configured by what :func:`kernel_source` writes before them
_PASSES = header("reduce.cuh")


@dataclass(frozen=True)
class Op:
    """One reduction: C bodies over ``T`` (input element), ``S`` (accumulation scalar),
    ``O`` (result element) and the accumulator struct ``A`` of ``fields``."""

    fields: tuple[tuple[str, str], ...]
    ident: str  # body filling ``A a`` with the identity
    load: str  # body filling ``A a`` from element ``x`` at reduced index ``r``
    merge: str  # body returning the merge of ``A a`` and ``A b``
    fin: str  # body returning the result ``O`` of ``A a`` over ``n`` elements (``corr``)


_SUM = Op((("v", "S"),), "a.v = (S)0;", "a.v = (S)x;", "a.v += b.v; return a;",
          "return (O)a.v;")
_PROD = Op((("v", "S"),), "a.v = (S)1;", "a.v = (S)x;", "a.v *= b.v; return a;",
           "return (O)a.v;")
# NaN wins; a NaN-free pair keeps the larger (smaller)
_MAX = Op((("v", "S"),), "a.v = LOWEST;", "a.v = (S)x;",
          "return (a.v > b.v || a.v != a.v) ? a : b;", "return (O)a.v;")
_MIN = Op((("v", "S"),), "a.v = HIGHEST;", "a.v = (S)x;",
          "return (a.v < b.v || a.v != a.v) ? a : b;", "return (O)a.v;")
_MEAN = replace(_SUM, fin="return (O)(a.v / (S)n);")
_WELFORD_MERGE = (
    "if (b.n == 0) return a; if (a.n == 0) return b;\n"
    "  const long long n = a.n + b.n; const S d = b.m - a.m; const S f = (S)b.n / (S)n;\n"
    "  A r; r.n = n; r.m = a.m + d * f; r.q = a.q + b.q + d * d * (S)a.n * f; return r;")
_WELFORD_FIELDS = (("n", "long long"), ("m", "S"), ("q", "S"))
_VAR_FIN = ("const double den = (double)a.n - corr;\n"
            "  const S v = den > 0 ? a.q / (S)den : (S)__longlong_as_double(0x7ff8000000000000ULL);\n")
_VAR = Op(_WELFORD_FIELDS, "a.n = 0; a.m = 0; a.q = 0;", "a.n = 1; a.m = (S)x; a.q = 0;",
          _WELFORD_MERGE, _VAR_FIN + "  return (O)v;")
_STD = replace(_VAR, fin=_VAR_FIN + "  return (O)sqrt(v);")
# the 2-norm as scale * sqrt(q): the largest magnitude so far and the sum of squares of
# the magnitudes relative to it; ``f`` flags an infinite element (the result is then inf)
_HYPOT = Op(
    (("s", "S"), ("q", "S"), ("f", "int")),
    "a.s = 0; a.q = 0; a.f = 0;",
    "const S m = fabs((S)x); a.f = isinf(m) ? 1 : 0;\n"
    "  if (a.f) { a.s = 0; a.q = 0; } else { a.s = m; a.q = m != 0 ? (S)1 : (S)0; }",
    "A r; r.f = a.f | b.f;\n"
    "  if (a.s != a.s || b.s != b.s) { r.s = a.s + b.s; r.q = 1; return r; }\n"
    "  if (a.s < b.s) { const A t = a; a = b; b = t; }\n"
    "  if (a.s == 0) { r.s = 0; r.q = 0; return r; }\n"
    "  const S t = b.s / a.s; r.s = a.s; r.q = a.q + b.q * t * t; return r;",
    "return a.f ? (O)__longlong_as_double(0x7ff0000000000000ULL) : (O)(a.s * sqrt(a.q));")
# the 2-norm of float32 values: squares summed in double cannot overflow or underflow
# (float32's range squared fits double's), so no scaling and no division per element
_HYPOT32 = Op(
    (("q", "S"), ("f", "int")),
    "a.q = 0; a.f = 0;",
    "const S m = (S)x; a.f = isinf(m) ? 1 : 0; a.q = a.f ? (S)0 : m * m;",
    "a.q += b.q; a.f |= b.f; return a;",
    "return a.f ? (O)__longlong_as_double(0x7ff0000000000000ULL) : (O)sqrt(a.q);")
_ANY = Op((("v", "int"),), "a.v = 0;", "a.v = x != 0;", "a.v |= b.v; return a;",
          "return (O)(a.v != 0);")
_ALL = Op((("v", "int"),), "a.v = 1;", "a.v = x != 0;", "a.v &= b.v; return a;",
          "return (O)(a.v != 0);")
_COUNT = Op((("v", "long long"),), "a.v = 0;", "a.v = x != 0;", "a.v += b.v; return a;",
            "return (O)a.v;")
# (value, index): NaN beats every number, equal values (NaNs too) go to the lower index,
# index -1 is the identity
_ARG_MERGE = (
    "if (a.i < 0) return b; if (b.i < 0) return a;\n"
    "  const bool an = a.v != a.v, bn = b.v != b.v;\n"
    "  if (an || bn) { if (an && bn) return a.i < b.i ? a : b; return an ? a : b; }\n"
    "  if (a.v == b.v) return a.i < b.i ? a : b;\n"
    "  return (a.v {cmp} b.v) ? a : b;")
_ARG_FIELDS = (("v", "S"), ("i", "long long"))
_ARGMAX = Op(_ARG_FIELDS, "a.v = 0; a.i = -1;", "a.v = (S)x; a.i = r;",
             _ARG_MERGE.replace("{cmp}", ">"), "return (O)a.i;")
_ARGMIN = replace(_ARGMAX, merge=_ARG_MERGE.replace("{cmp}", "<"))

OPS: dict[str, Op] = {
    "sum": _SUM, "prod": _PROD, "max": _MAX, "min": _MIN, "mean": _MEAN, "var": _VAR,
    "std": _STD, "reduce_hypot": _HYPOT, "hypot32": _HYPOT32, "any": _ANY, "all": _ALL,
    "count_nonzero": _COUNT, "argmax": _ARGMAX, "argmin": _ARGMIN,
}

#: the namespace kernels ``Reductions.wrap`` stands in for (``hypot32`` serves
#: reduce_hypot; argmax and argmin have ``Reductions.wrap_arg``, for every layout)
NAMESPACE_OPS = ("sum", "prod", "max", "min", "mean", "var", "std", "reduce_hypot", "any",
                 "all", "count_nonzero")

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_I64, _BOOL = np.dtype(np.int64), np.dtype(np.bool_)
_INTS: frozenset[np.dtype] = frozenset(np.dtype(c) for c in "bBhHiIqQ")
_REAL: frozenset[np.dtype] = _INTS | {_F32, _F64}
_ALL_TYPES: frozenset[np.dtype] = _REAL | {_BOOL}
_FLOATS: frozenset[np.dtype] = frozenset({_F32, _F64})
#: the dtypes each operation takes (others, complex among them, go to the fallback)
INPUTS: dict[str, frozenset[np.dtype]] = {
    "sum": _REAL, "prod": _REAL, "max": _REAL, "min": _REAL, "mean": _FLOATS,
    "var": _FLOATS, "std": _FLOATS,
    "reduce_hypot": _FLOATS, "hypot32": frozenset({_F32}), "any": _ALL_TYPES, "all": _ALL_TYPES,
    "count_nonzero": _ALL_TYPES, "argmax": _REAL, "argmin": _REAL,
}
_LIMITS = {
    _F32: ("__int_as_float(0xff800000)", "__int_as_float(0x7f800000)"),
    _F64: ("__longlong_as_double(0xfff0000000000000ULL)",
           "__longlong_as_double(0x7ff0000000000000ULL)"),
}
_SIZES = {c: d.itemsize for d, c in CTYPES.items()}  # bytes of each C type


def _wide(d: np.dtype) -> np.dtype:
    """The accumulation dtype for values of ``d``: at least 4 bytes (a shuffle unit)."""
    if d.kind == "f" or d.itemsize >= 4:
        return d
    return np.dtype(np.int32) if d.kind in "ib" else np.dtype(np.uint32)


def _limits(d: np.dtype) -> tuple[str, str]:
    if d in _LIMITS:
        return _LIMITS[d]
    info = np.iinfo(d)
    suffix = "ULL" if d.kind == "u" else "LL"
    lo = f"({info.min + 1}{suffix} - 1)" if info.min else f"0{suffix}"
    return lo, f"{info.max}{suffix}"


def accum_dtype(name: str, t: np.dtype, o: np.dtype) -> np.dtype:
    """The accumulation dtype ``S`` of ``name`` over elements of ``t`` giving ``o``."""
    if name in ("max", "min", "argmax", "argmin"):
        return _wide(t)
    if name == "hypot32":
        return _F64
    if name in ("var", "std", "mean", "reduce_hypot"):
        return o
    return _wide(o) if o.kind in "iuf" else _I64


def accum_size(name: str, s: np.dtype) -> int:
    """Bytes of one accumulator of ``name`` with accumulation dtype ``s`` (C's layout)."""
    sizes = [_SIZES[CTYPES[s] if c == "S" else c] for _, c in OPS[name].fields]
    off = 0
    for n in sizes:
        off = (off + n - 1) // n * n + n
    big = max(sizes)
    return (off + big - 1) // big * big


def op_source(op: Op, t: np.dtype, s: np.dtype, o: np.dtype) -> str:
    """The element types ``T``, ``S``, ``O``, the accumulator ``A`` and the operation's
    ``ident``, ``load``, ``merge`` and ``fin`` (device functions; host C++ takes them
    with ``__device__`` and ``__forceinline__`` defined away)."""
    sc = CTYPES[s]
    lo, hi = _limits(s)
    fields = "".join(f" {sc if c == 'S' else c} {n};" for n, c in op.fields)
    return (
        f"typedef {CTYPES[t]} T; typedef {sc} S; typedef {CTYPES[o]} O;\n"
        f"#define LOWEST ({lo})\n#define HIGHEST ({hi})\n"
        f"struct A {{{fields} }};\n"
        f"__device__ __forceinline__ A ident() {{ A a; {op.ident} return a; }}\n"
        "__device__ __forceinline__ A load(const T x, const long long r) "
        f"{{ A a; {op.load} return a; }}\n"
        f"__device__ __forceinline__ A merge(A a, A b) {{ {op.merge} }}\n"
        "__device__ __forceinline__ O fin(const A a, const long long n, const double corr) "
        f"{{ {op.fin} }}\n"
    )


def _header(op: Op, t: np.dtype, s: np.dtype, o: np.dtype, in_acc: bool, final: bool,
            elem: Elem | None = None) -> str:
    """What ``reduce.cuh`` takes from its includer but the pass's shape: the operation,
    ``OUT`` and ``put``, the input (``INP``, ``get``, ``XPARAMS``, ...), and ``shfl``
    and ``ldcg`` over the accumulator's fields."""
    shfl = "".join(f" r.{n} = __shfl_down_sync(0xffffffffu, a.{n}, off, w);"
                   for n, _ in op.fields)
    ldcg = "".join(f" b.{n} = __ldcg(&q->{n});" for n, _ in op.fields)
    get = "p[k]" if in_acc else "load(p[k], r)"
    store = "fin(a, n, corr)" if final else "a"
    return (
        op_source(op, t, s, o)
        + f"typedef {'O' if final else 'A'} OUT;\n"
        + (_elem_source(elem) if elem is not None
           else f"typedef const {'A' if in_acc else 'T'}* INP;\n"
           "#define XPARAMS const INP __restrict__ x\n#define XINIT\n"
           "#define VSETUP const uint4* __restrict__ pv = (const uint4*)(x + row * R);\n"
           "#define VLOAD(U, J) (U).v = pv[J]\n")
        + "__device__ __forceinline__ A shfl(const A a, const int off, const int w) "
        f"{{ A r;{shfl} return r; }}\n"
        f"__device__ __forceinline__ A ldcg(const A* q) {{ A b;{ldcg} return b; }}\n"
        "__device__ __forceinline__ A get(const INP p, const long long k, const long long r) "
        f"{{ return {get}; }}\n"
        f"__device__ __forceinline__ OUT put(const A a, const long long n, const double corr) "
        f"{{ return {store}; }}\n"
    )


@dataclass(frozen=True)
class Elem:
    """An elementwise prologue of a reduction (``usmarray.fuse``): the reduced element
    at flat index ``k`` of the C-contiguous inputs is ``body`` (C statements over the
    values ``a<p>`` of the inputs at ``k`` and the constants ``s<j>``, assigning ``z``;
    dtypes spelled by their NumPy names) instead of an element read from memory.

    ``inputs``: (position p, dtype, 16-byte aligned) per input array; ``consts``: the
    constants' dtypes, passed as their bits in 8-byte arguments."""

    body: str
    inputs: tuple[tuple[int, np.dtype, bool], ...]
    consts: tuple[np.dtype, ...]


def _stored(d: np.dtype) -> str:
    """The C type of an element of ``d`` in memory (bool arrays hold a byte)."""
    return "unsigned char" if d.kind == "b" else CTYPES[d]


def _elem_source(e: Elem) -> str:
    """``INP`` for a fused first step: a value type standing for ``x + o`` whose
    ``[k]`` computes the element (and ``fill`` VEC consecutive ones, each input read
    with one vector load where its VEC elements make 4, 8 or 16 aligned bytes), and
    the kernel parameters that replace ``x`` (the inputs, then the constants' bits)."""
    names = "".join(f"typedef {c} {d.name};\n" for d, c in CTYPES.items() if d.kind != "b")
    ps = [p for p, _, _ in e.inputs]
    members = "".join(f"  const {_stored(d)}* p{p};\n" for p, d, _ in e.inputs) + "".join(
        f"  {CTYPES[d]} s{j};\n" for j, d in enumerate(e.consts))
    args = ", ".join(f"const {_stored(d)} v{p}" for p, d, _ in e.inputs)
    vals = "".join(f"    const {CTYPES[d]} a{p} = v{p}{' != 0' if d.kind == 'b' else ''};\n"
                   for p, d, _ in e.inputs)
    consts = "".join(f"    const {CTYPES[d]} s{j} = this->s{j};\n"
                     for j, d in enumerate(e.consts))
    body = e.body.strip()
    if not body.endswith(";"):
        body += ";"
    fill = []
    for p, d, aligned in e.inputs:
        st = _stored(d)
        fill.append(f"    {st} w{p}[VEC];\n")
        vt = {4: "unsigned int", 8: "uint2", 16: "uint4"}
        if aligned:
            fill.append("    " + " ".join(
                f"{'if' if i == 0 else 'else if'} constexpr (VEC * {d.itemsize} == {n}) {{ "
                f"union {{ {t} v; {st} e[VEC]; }} b; b.v = *(const {t}*)(p{p} + o + k); "
                f"for (int c = 0; c < VEC; c++) w{p}[c] = b.e[c]; }}"
                for i, (n, t) in enumerate(vt.items()))
                + f" else {{ for (int c = 0; c < VEC; c++) w{p}[c] = p{p}[o + k + c]; }}\n")
        else:
            fill.append(f"    for (int c = 0; c < VEC; c++) w{p}[c] = p{p}[o + k + c];\n")
    at_args = ", ".join(f"p{p}[o + k]" for p in ps)
    fill_args = ", ".join(f"w{p}[c]" for p in ps)
    params = ", ".join([f"const {_stored(d)}* __restrict__ p{p}" for p, d, _ in e.inputs]
                       + [f"const unsigned long long c{j}" for j in range(len(e.consts))])
    init = " ".join([f"x.p{p} = p{p};" for p in ps]
                    + [f"{{ union {{ unsigned long long u; {CTYPES[d]} v; }} b; b.u = c{j}; "
                       f"x.s{j} = b.v; }}" for j, d in enumerate(e.consts)]
                    + ["x.o = 0;"])
    return (
        names
        + "struct INP {\n" + members + "  long long o;\n"
        f"  __device__ __forceinline__ T at({args}) const {{\n{vals}{consts}"
        f"    T z;\n    {body}\n    return z;\n  }}\n"
        "  __device__ __forceinline__ T operator[](const long long k) const "
        f"{{ return at({at_args}); }}\n"
        "  template <int VEC> __device__ __forceinline__ void fill(const long long k, T* e) const {\n"
        + "".join(fill)
        + f"    #pragma unroll\n    for (int c = 0; c < VEC; c++) e[c] = at({fill_args});\n  }}\n"
        "};\n"
        "__device__ __forceinline__ INP operator+(INP v, const long long k) { v.o += k; return v; }\n"
        f"#define XPARAMS {params}\n"
        f"#define XINIT INP x; {init}\n"
        "#define VSETUP const INP xr = x + row * R;\n"
        "#define VLOAD(U, J) xr.template fill<VEC>((J) * VEC, (U).e)\n"
    )


def kernel_source(name: str, t: np.dtype, s: np.dtype, o: np.dtype, in_acc: bool,
                  final: bool, kind: str, width: int, vec: int, fused: bool,
                  elem: Elem | None) -> str:
    """The source of one pass of ``name`` (``k``): a ``kind`` "row" pass of ``width``
    threads a row reading ``vec``-element vectors (``fused``: finishing its rows'
    chunks), or a "col" pass ``width`` columns wide; over elements of ``t`` (``elem``:
    computed by a fused prologue) or accumulators (``in_acc``), writing accumulators or
    (``final``) results of ``o``."""
    op = OPS[name]
    if kind == "row":
        # four 16-byte loads in flight for one-field accumulators; two for wider
        # ones (argmax/argmin, var: four ran 20% slower, registers)
        unroll = 4 if len(op.fields) == 1 else 2
        defs = f"#define TPR {width}\n#define VEC {vec}\n#define UNROLL {unroll}\n"
        defs += f"#define FUSED {int(fused)}\n"
    else:
        defs = f"#define BX {width}\n#define BY {BLOCK // width}\n"
    return _header(op, t, s, o, in_acc, final, elem) + defs + _PASSES


__all__ = ["BLOCK", "INPUTS", "NAMESPACE_OPS", "OPS", "Elem", "Op", "accum_dtype", "accum_size",
           "kernel_source", "op_source"]
