"""Layout plans and kernel sources of the CUDA elementwise engine (no CuPy needed).

An elementwise call reads operands of any layout the namespace allows and writes one
new result.  :func:`plan` reduces the call to one of four loops, as PyTorch's
TensorIterator and CuPy's ``_reduce_dims`` do:

1. the operands broadcast to the result's shape (stride 0 on a broadcast axis);
2. the axes are ordered as the first operand that is not broadcast lays them out in
   memory (its broadcast axes keep their places), and the result is laid out the same
   way (NumPy's ``order="K"``): an F-order or transposed operand is read and written in
   memory order; a C-order result may be asked for instead;
3. axes of length 1 are dropped, and neighbours contiguous in every operand merge;
4. the loop (``include/usmarray/elementwise.cuh`` holds their shared device code):

   - ``vector``: one axis, every operand contiguous or a broadcast element, every
     pointer aligned to the vector: 16-byte loads and stores;
   - ``rows``: two axes of rows of ``m`` elements, every operand the whole array, one
     row broadcast down the rows, one column broadcast along them, or one element, with
     ``m`` a multiple of the vector and the full and row operands aligned (``A + row``,
     ``A - mean(A, axis=0)``): the vector loop, a row's vector read at the position in
     its row, a column's element once a vector;
   - ``flat``: one axis, contiguous but not aligned (``x[1:] - x[:-1]``): coalesced
     scalar loads, :data:`UNROLL` a thread in flight;
   - ``strided``: up to :data:`MAX_DIMS` merged axes with their strides.

Index arithmetic is 32-bit where every position and offset fits, else 64-bit.
:func:`kernel_source` writes the kernel of a plan around a body of the kernel
generator (``usmarray.kernels._fuse._Emitter``), the one that ``usmarray.fuse`` and
the kernel factory use, or one of the backend's own bodies in the generator's form
(:func:`convert_body` for ``copy`` and ``astype``, :data:`FILL_BODY` for ``full``,
:data:`CANONICAL_NAN_BODIES` for the keys of a sort).
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from .._layout import broadcast_shape
from .kernels.headers import header

#: threads a block (a multiple of the warp; 256 keeps 8 blocks a multiprocessor resident)
BLOCK = 256
#: elements a thread of the flat and strided loops keeps in flight (hides latency)
UNROLL = 4
#: bytes one vector load moves (the widest global load of one thread)
VECTOR_BYTES = 16
#: vectors of the widest operand a thread moves where an operand has one-byte elements
#: and another wider ones (so that the one-byte side moves 8 bytes or more: float32 ->
#: bool takes eight elements; bool -> bool moves one 16-byte vector, measured faster;
#: a mix of 4- and 8-byte elements keeps one vector, measured faster than two)
BYTE_VECTORS = 2
#: calls in a body heavy enough that a thread of the vector loop moves two vectors (more
#: independent work in flight: measured faster for these, slower for ``sin`` and for
#: arithmetic, which the memory bounds)
TWO_VECTOR_CALLS = ("acosh(", "asinh(", "atanh(", "pow(")
#: merged axes the strided loop takes (a layout no merge reduces further is refused)
MAX_DIMS = 8
#: positions and offsets below this use 32-bit arithmetic (a grid-stride step may take
#: an index to twice the size before the bound test ends the loop)
INT32_SPAN = 2**30
#: the most blocks a launch asks for (the grid-stride loops cover the rest)
MAX_BLOCKS = 2**31 - 1
#: the alignment a plan depends on: the widest vector a loop moves (two 16-byte loads)
ALIGN_KEY = 2 * VECTOR_BYTES

HEADER = header("elementwise.cuh")


class Operand(NamedTuple):
    """What a plan needs of an array operand: shape, strides in bytes, element size
    and the address of its first element."""

    shape: tuple[int, ...]
    strides: tuple[int, ...]
    itemsize: int
    ptr: int


class LayoutPlan(NamedTuple):
    """A call's layout.

    ``out_shape``: the broadcast shape; ``order``: the axes in memory order (the result
    is allocated C-contiguous with shape ``mem_shape`` and transposed by ``inverse``,
    None where the order is the identity); ``shape``/``strides``: the merged axes and
    each operand's element strides on them; ``broadcast``: operands that are one
    element; ``loop``, ``width`` (elements a thread of the vector loop moves), ``index_type``
    (the C index type), ``n`` (elements) and ``blocks`` (the launch's grid)."""

    out_shape: tuple[int, ...]
    order: tuple[int, ...]
    mem_shape: tuple[int, ...]
    inverse: tuple[int, ...] | None
    shape: tuple[int, ...]
    strides: tuple[tuple[int, ...], ...]
    broadcast: tuple[bool, ...]
    loop: str
    width: int
    index_type: str
    n: int
    blocks: int


def broadcast_strides(op: Operand, shape: tuple[int, ...]) -> list[int] | None:
    """``op``'s strides in elements against the broadcast ``shape`` (0 where it
    broadcasts), or None where a stride is not a whole number of elements."""
    isz = op.itemsize
    nd = len(shape)
    out = [0] * nd
    off = nd - len(op.shape)
    for i, (n, s) in enumerate(zip(op.shape, op.strides, strict=True)):
        if s % isz:
            return None
        out[off + i] = 0 if n == 1 else s // isz
    return out


def merge_axes(shape: list[int], strides: list[list[int]]) -> tuple[list[int], list[list[int]]]:
    """Drop axes of length 1 and merge neighbours contiguous in every operand."""
    mshape: list[int] = []
    mst: list[list[int]] = [[] for _ in strides]
    for i, n in enumerate(shape):
        if n == 1:
            continue
        if mshape and all(st[i] * n == m[-1] for st, m in zip(strides, mst, strict=True)):
            # the outer merged axis steps over this whole axis in every operand
            mshape[-1] *= n
            for st, m in zip(strides, mst, strict=True):
                m[-1] = st[i]
            continue
        mshape.append(n)
        for st, m in zip(strides, mst, strict=True):
            m.append(st[i])
    return mshape, mst


def memory_order(strides: list[int]) -> list[int]:
    """The axes of an operand of ``strides`` from outermost to innermost in memory, as
    NumPy's iterator orders them for the results of its ufuncs: an insertion sort by
    decreasing absolute stride (C order among equals) in which a broadcast axis
    (stride 0) compares with no other, so an axis moves past it and it stays put."""
    inner: list[int] = []  # innermost first
    for ax in reversed(range(len(strides))):
        pos = len(inner)
        for j in range(len(inner) - 1, -1, -1):
            if strides[ax] and strides[inner[j]]:
                if abs(strides[inner[j]]) <= abs(strides[ax]):
                    break
                pos = j
        inner.insert(pos, ax)
    return inner[::-1]


def vectors(body: str) -> int:
    """Vectors a thread of the vector loop moves for ``body``: two where it calls one of
    :data:`TWO_VECTOR_CALLS`, else one."""
    return 2 if any(c in body for c in TWO_VECTOR_CALLS) else 1


def plan(operands: list[Operand], out_itemsize: int, shape: tuple[int, ...] | None = None,
         c_order: bool = False, per_thread: int = 1) -> LayoutPlan | None:
    """The layout of an elementwise call over ``operands`` writing elements of
    ``out_itemsize`` bytes, or None where the operands do not broadcast, a stride is
    not a whole number of elements, or more than :data:`MAX_DIMS` axes remain.
    ``shape``: the result's shape where no operand is an array (a fill); ``c_order``:
    the result in C order whatever the operands' layout; ``per_thread``: the vectors a
    thread of the vector loop moves (:func:`vectors`)."""
    if shape is None:
        shape = broadcast_shape(*(op.shape for op in operands))
        if shape is None:
            return None
    st: list[list[int]] = []
    for op in operands:
        s = broadcast_strides(op, shape)
        if s is None:
            return None
        st.append(s)
    nd = len(shape)
    order = list(range(nd))
    for op, s in zip(operands, st, strict=True):
        if op.shape == shape and not c_order:
            order = memory_order(s)
            break
    inverse = None
    if order != list(range(nd)):
        inverse = tuple(sorted(range(nd), key=lambda i: order[i]))
    mem_shape = [shape[i] for i in order]
    n = math.prod(shape)
    mshape, mst = merge_axes(mem_shape, [[s[i] for i in order] for s in st])
    if not mshape:  # one element
        mshape, mst = [1], [[0] for _ in st]
    if len(mshape) > MAX_DIMS:
        return None
    broadcast = tuple(all(x == 0 for x in s) for s in mst)
    span = max([n] + [sum(abs(x) * (m - 1) for x, m in zip(s, mshape, strict=True)) + 1
                      for s in mst])
    index = "int" if span < INT32_SPAN else "long long"
    loop, width = "strided", 1
    # one 16-byte vector of the widest operand a thread, BYTE_VECTORS where an operand
    # has one-byte elements and another wider ones; the widest vector every pointer that
    # is read by vectors is aligned to
    sizes = [op.itemsize for op in operands] + [out_itemsize]
    w = VECTOR_BYTES // max(sizes) * (BYTE_VECTORS if min(sizes) == 1 < max(sizes)
                                      else per_thread)
    flat = len(mshape) == 1 and all(s[0] in (0, 1) for s in mst)
    if flat or (len(mshape) == 2 and all(tuple(s) in ((mshape[1], 1), (0, 1), (1, 0), (0, 0))
                                         for s in mst)):
        # the vector or rows loop where w (halved until it fits) divides a row and every
        # pointer read by vectors (along an axis of stride 1) is aligned to it
        loop = "flat" if flat else "strided"
        while w > 1:
            if (flat or mshape[1] % w == 0) and all(
                    s[-1] == 0 or op.ptr % (w * op.itemsize) == 0
                    for op, s in zip(operands, mst, strict=True)):
                loop, width = ("vector" if flat else "rows"), w
                break
            w //= 2
    per = BLOCK * (width if loop in ("vector", "rows") else UNROLL)
    blocks = max(1, min(-(-n // per), MAX_BLOCKS))
    return LayoutPlan(shape, tuple(order), tuple(mem_shape), inverse, tuple(mshape),
                      tuple(tuple(s) for s in mst), broadcast, loop, width, index, n, blocks)


#: the body of a fill: every element the scalar argument
FILL_BODY = "z = s0"
#: the bodies of a copy of a float array with every NaN the canonical quiet NaN (sign
#: clear, NumPy's payload): the keys of a sort that puts every NaN last
CANONICAL_NAN_BODIES = {
    np.dtype(np.float32): "z = (a0 != a0) ? __int_as_float(0x7fc00000) : a0",
    np.dtype(np.float64): "z = (a0 != a0) ? __longlong_as_double(0x7ff8000000000000LL) : a0",
}


def convert_body(src: np.dtype, dst: np.dtype) -> str:
    """The body of ``astype`` of ``a0`` from ``src`` to ``dst`` (real or bool dtypes), as
    the kernel generator writes it: nonzero for a bool result, C's conversion else, a
    copy where the dtypes are equal."""
    if src == dst:
        return "z = a0"
    return "z = (a0 != 0)" if dst.kind == "b" else f"z = ({dst.name})(a0)"


#: the tokens of a body the vector loop may run on 32-bit words of four bools: bool
#: assignments of names whose values combine by ``&``, ``|``, ``^`` and ``!``
_LANE_TOKEN = re.compile(r"bool|z|[ast]\d+|\s+|[=;()&|^!]")
_NAME = re.compile(r"z|[ast]\d+")
#: the word of four bools that are all true (a bool is stored as 0 or 1)
_ONES = "0x01010101u"


def word_body(body: str) -> str | None:
    """``body`` on 32-bit words of four bools, or None where it is not lane-wise.

    A bool is stored as 0 or 1, so where the body combines bools by ``&``, ``|``, ``^``
    and ``!`` of a name only, each byte of the word takes the body's value for its lane:
    ``!x`` becomes ``x ^`` the word of four ones."""
    tokens = re.findall(r"\w+|\s+|&&|\|\||==|!=|.", body)
    for k, t in enumerate(tokens):
        if not _LANE_TOKEN.fullmatch(t) or (
                t == "!" and not (k + 1 < len(tokens) and _NAME.fullmatch(tokens[k + 1]))):
            return None
    body = re.sub(r"!(\w+)", rf"(\1 ^ {_ONES})", body)
    return re.sub(r"\bbool\b", "uint32", body)


def _tname(d: np.dtype) -> str:
    """The generator's spelling of dtype ``d`` (the header's typedefs)."""
    return "bool" if d.kind == "b" else d.name


#: NumPy type char -> the ``struct`` code of a scalar parameter of that type
SCALAR_CODES = {"?": "?", "b": "b", "B": "B", "h": "h", "H": "H", "i": "i", "I": "I",
                "l": "q", "L": "Q", "q": "q", "Q": "Q", "f": "f", "d": "d"}


def pack_format(narrays: int, scalars: list[np.dtype]) -> str:
    """The ``struct`` format of a generated kernel's parameters, 8 bytes each: the
    arrays' pointers, the scalars (each padded to 8 bytes), the result's pointer and the
    element count (the strided loop's layout follows, at byte ``8 * (narrays +
    len(scalars) + 2)``)."""
    return "<" + "Q" * narrays + "".join(
        f"{SCALAR_CODES[d.char]}{8 - d.itemsize}x" for d in scalars) + "Qq"


def kernel_key(body: str, names: list[str], arrays: list[np.dtype], scalars: list[np.dtype],
               out: np.dtype, plan: LayoutPlan) -> tuple:
    """What :func:`kernel_source` reads of its arguments: calls with equal keys share one
    compiled kernel."""
    return (body, tuple(names), tuple(arrays), tuple(scalars), out, plan.loop,
            plan.index_type, plan.width, len(plan.shape) if plan.loop == "strided" else 0,
            plan.broadcast, row_kinds(plan) if plan.loop == "rows" else ())


def row_kinds(plan: LayoutPlan) -> tuple[str, ...]:
    """Each operand's part in a ``rows`` plan: ``"full"``, ``"row"`` (broadcast down the
    rows), ``"column"`` (broadcast along them) or ``"element"``."""
    kinds: dict[tuple[int, ...], str] = {(0, 1): "row", (1, 0): "column", (0, 0): "element"}
    return tuple(kinds.get(s, "full") for s in plan.strides)


def loop_arguments(plan: LayoutPlan, narrays: int) -> bytes:
    """The bytes that follow a kernel's element count: the strided loop's merged layout
    (``usm_layout``), the ``rows`` loop's row length, nothing for the other loops."""
    if plan.loop == "strided":
        return struct.pack(f"<{len(plan.shape) * (1 + narrays)}q", *plan.shape,
                           *[x for s in plan.strides for x in s])
    if plan.loop == "rows":
        return struct.pack("<q", plan.shape[1])
    return b""


def kernel_source(body: str, names: list[str], arrays: list[np.dtype],
                  scalars: list[np.dtype], out: np.dtype, plan: LayoutPlan) -> str:
    """The CUDA source of the elementwise kernel ``k`` that runs ``body`` (the kernel
    generator's C: reads the elements ``names[k]`` of ``arrays`` and the scalars
    ``s<j>`` of dtypes ``scalars``, assigns ``z`` of dtype ``out``) in ``plan``'s loop.
    Parameters: one pointer per array, the scalars, the result's pointer, the element
    count, and :func:`loop_arguments`."""
    loop, index, width = plan.loop, plan.index_type, plan.width
    ndim, broadcast = len(plan.shape), plan.broadcast
    params = [f"const {_tname(d)}* __restrict__ p{k}" for k, d in enumerate(arrays)]
    params += [f"const {_tname(d)} s{j}" for j, d in enumerate(scalars)]
    params += [f"{_tname(out)}* __restrict__ pz", "const long long n"]
    na = len(arrays)
    if loop == "strided":
        params.append(f"const usm_layout<{ndim}, {na}> lay")
    elif loop == "rows":
        params.append("const long long m")
    ot = _tname(out)
    # the operation on element values v0, v1, ... (named as the generator named them)
    op_args = ", ".join([f"const {_tname(d)} {nm}" for d, nm in zip(arrays, names, strict=True)]
                        + [f"const {_tname(d)} s{j}" for j, d in enumerate(scalars)])
    call_scalars = [f"s{j}" for j in range(len(scalars))]
    src = [HEADER,
           f"__device__ __forceinline__ {ot} usm_op({op_args}) {{\n  {ot} z;\n"
           f"  {{\n{body};\n  }}\n  return z;\n}}\n"]
    I = index  # noqa: E741 - the C name of the index type
    head = f'extern "C" __global__ void k({", ".join(params)}) {{\n'

    def op(vals: list[str]) -> str:
        return f"usm_op({', '.join(vals + call_scalars)})"

    def loads(element: Sequence[bool], words: bool = False) -> str:
        """The line that reads each operand that is one element (``element``) once, and
        with ``words`` makes its word of four bools."""
        return "  " + " ".join(
            f"const {_tname(d)} b{k} = p{k}[0];"
            + (f" const uint32 w{k} = (uint32)b{k} * {_ONES};" if words else "")
            for k, d in enumerate(arrays) if element[k]) + "\n"

    if loop in ("vector", "rows"):
        # whole vectors of ``e`` elements a thread: each operand the whole array, one
        # element, or (``rows``) a row broadcast down the rows or a column along them
        rows = loop == "rows"
        kinds = row_kinds(plan) if rows else tuple("element" if b else "full" for b in broadcast)
        # on words of four bools where every value is a bool and the body is lane-wise
        words = (not rows and all(d.kind == "b" for d in (*arrays, *scalars, out))
                 and width % 4 == 0 and word_body(body))
        e, vt, ot_v, wop = width, _tname, ot, "usm_op"
        if words:
            e, vt, ot_v, wop = width // 4, (lambda d: "uint32"), "uint32", "usm_word"
            w_args = ", ".join([f"const uint32 {nm}" for nm in names]
                               + [f"const uint32 s{j}" for j in range(len(scalars))])
            src.append(f"__device__ __forceinline__ uint32 usm_word({w_args}) {{\n"
                       f"  uint32 z;\n  {{\n{words};\n  }}\n  return z;\n}}\n")
        vals = [{"element": f"w{k}" if words else f"b{k}", "column": f"c{k}"}.get(
            kinds[k], f"r{k}.v[t]") for k in range(na)]
        v_scalars = [f"(uint32)s{j} * {_ONES}" if words else f"s{j}"
                     for j in range(len(scalars))]
        reads = []
        for k, d in enumerate(arrays):
            if kinds[k] == "column":
                reads.append(f"    const {_tname(d)} c{k} = p{k}[r];\n")
            elif kinds[k] != "element":  # a row's vector: at its position in the row
                at = "v" if kinds[k] == "full" else "v - r * mv"
                reads.append(f"    const usm_vec<{vt(d)}, {e}> r{k} = "
                             f"reinterpret_cast<const usm_vec<{vt(d)}, {e}>*>(p{k})[{at}];\n")
        # the vector loop's elements after the last whole vector, one a thread
        tail = ("" if rows else
                f"#pragma unroll 1\n"
                f"  for ({I} i = nv * {width} + usm_first<{I}>(); i < ({I})n; "
                f"i += usm_step<{I}>()) {{\n"
                f"    pz[i] = {op([f'b{k}' if broadcast[k] else f'p{k}[i]' for k in range(na)])};\n"
                "  }\n")
        body_src = (
            head + loads([kind == "element" for kind in kinds], bool(words))
            + f"  const {I} nv = ({I})(n / {width});\n"
            + (f"  const {I} mv = ({I})(m / {width});\n" if rows else "")
            + "#pragma unroll 1\n"
            f"  for ({I} v = usm_first<{I}>(); v < nv; v += usm_step<{I}>()) {{\n"
            + (f"    const {I} r = v / mv;\n" if rows else "") + "".join(reads)
            + f"    usm_vec<{ot_v}, {e}> rz;\n"
            f"#pragma unroll\n    for (int t = 0; t < {e}; ++t) "
            f"rz.v[t] = {wop}({', '.join(vals + v_scalars)});\n"
            f"    reinterpret_cast<usm_vec<{ot_v}, {e}>*>(pz)[v] = rz;\n  }}\n" + tail + "}\n")
    else:
        # UNROLL elements a thread in flight, read into registers, then computed: the
        # flat loop reads a broadcast operand's element once, the strided loop reads
        # every operand at its offsets in the layout
        u = UNROLL
        flat = loop == "flat"
        once = broadcast if flat else (False,) * na
        if flat:
            read = "{ " + " ".join(f"r{k}[t] = p{k}[i];" for k in range(na) if not once[k]) + " }"
        else:
            read = (f"{{\n        {I} off[{na}];\n"
                    f"        usm_offsets<{I}, {ndim}, {na}>(lay, i, off);\n        "
                    + " ".join(f"r{k}[t] = p{k}[off[{k}]];" for k in range(na)) + "\n      }")
        # the loop over a thread's elements, up to the statement each element runs
        each = (f"#pragma unroll\n    for (int t = 0; t < {u}; ++t) {{\n"
                f"      const {I} i = base + t * ({I})blockDim.x + threadIdx.x;\n"
                f"      if (i < ({I})n) ")
        vals = [f"b{k}" if once[k] else f"r{k}[t]" for k in range(na)]
        body_src = (
            head + (loads(once) if flat else "")
            + f"  const {I} span = ({I})blockDim.x * {u};\n"
            "#pragma unroll 1\n"
            f"  for ({I} base = ({I})blockIdx.x * span; base < ({I})n; "
            f"base += ({I})gridDim.x * span) {{\n"
            + "".join(f"    {_tname(d)} r{k}[{u}];\n" for k, d in enumerate(arrays) if not once[k])
            + each + read + "\n    }\n"
            + each + f"pz[i] = {op(vals)};\n    }}\n  }}\n}}\n")
    src.append(body_src)
    return "".join(src)


__all__ = ["ALIGN_KEY", "BLOCK", "CANONICAL_NAN_BODIES", "FILL_BODY", "HEADER", "MAX_DIMS",
           "SCALAR_CODES", "TWO_VECTOR_CALLS", "pack_format", "vectors", "word_body",
           "LayoutPlan", "Operand", "convert_body", "kernel_key", "kernel_source",
           "loop_arguments", "memory_order", "row_kinds",
           "merge_axes", "plan"]
