"""The CUDA elementwise engine: one operation body on any layout the namespace allows.

The body comes from the kernel generator that ``usmarray.fuse`` and the kernel factory
use (``usmarray.kernels._fuse._Emitter``): C that reads the operands' elements ``a0``,
``a1``, ... and the scalar arguments ``s0``, ``s1``, ... and assigns ``z``.  This module
decides only the layout, as PyTorch's TensorIterator and CuPy's ``_reduce_dims`` do:

1. the operands broadcast to the result's shape (stride 0 on a broadcast axis);
2. the axes are ordered as the first full-size operand lays them out in memory (an F
   order or transposed operand gives a result of the same layout, read and written in
   memory order, as NumPy's ``order="K"``);
3. axes of length 1 are dropped and neighbours that are contiguous in every operand are
   merged;
4. the call then runs one of three loops of ``include/usmarray/elementwise.cuh``:

   - ``vector``: one axis, every operand contiguous (or one element broadcast) and
     every pointer aligned to the vector: 16-byte loads and stores;
   - ``flat``: one axis, contiguous but not aligned (``x[1:] - x[:-1]``): coalesced
     scalar loads, :data:`UNROLL` per thread in flight;
   - ``strided``: up to :data:`MAX_DIMS` merged axes with their strides.

The index arithmetic is 32-bit where every position and offset fits, else 64-bit.  A
kernel's cache key holds exactly what its code assumes: the body, the dtypes, the loop,
the vector width, the number of axes, the index width and which operands are broadcast
scalars.  A call's layout analysis is cached by the operands' shapes and strides.
"""

from __future__ import annotations

import ctypes
import math
import struct
import threading
from pathlib import Path
from typing import Any

import numpy as np

from ..._env import env_flag
from .._layout import broadcast_shape
from .kernels._launch import compiled, driver_launch, stream_ptr

#: threads a block (a multiple of the warp; 256 keeps 8 blocks a multiprocessor resident)
BLOCK = 256
#: elements a thread of the unaligned contiguous loop keeps in flight (hides latency)
UNROLL = 4
#: bytes one vector load moves (the widest global load of one thread)
VECTOR_BYTES = 16
#: elements a thread of the vector loop takes at most (a one-byte call: two 16-byte
#: loads an operand keep enough bytes in flight to approach the copy rate)
WIDTH_CAP = 32
#: merged axes the strided loop takes (more only after a layout no merge reduces)
MAX_DIMS = 8
#: positions and offsets below this use 32-bit arithmetic (the loops' grid-stride step
#: may take an index to twice the size before the bound test ends the loop)
INT32_SPAN = 2**30
#: the most blocks a launch asks for (the grid-stride loops cover the rest)
MAX_BLOCKS = 2**31 - 1
#: layouts whose analysis is kept (a dict: cleared when full)
MAX_PLANS = 4096
#: a plan depends on a pointer's alignment up to the widest vector a loop moves (two
#: 16-byte loads: the 32-byte struct of eight float32)
_ALIGN_KEY = 2 * VECTOR_BYTES

HEADER = (Path(__file__).parent / "include" / "usmarray" / "elementwise.cuh").read_text()

_CODES = {"?": "?", "b": "b", "B": "B", "h": "h", "H": "H", "i": "i", "I": "I", "l": "q",
          "L": "Q", "q": "q", "Q": "Q", "f": "f", "d": "d"}


def _tname(d: np.dtype) -> str:
    """The generator's spelling of dtype ``d`` (the header's typedefs)."""
    return "bool" if d.kind == "b" else d.name


class _Slots(threading.local):
    """Per thread: a byte buffer for a launch's parameters and their addresses."""

    SIZE = 1024

    def __init__(self) -> None:
        self.buf = ctypes.create_string_buffer(self.SIZE)
        base = ctypes.addressof(self.buf)
        self.base = base
        # parameter i at byte 8 * i (every parameter but the layout takes one 8-byte
        # slot; the layout, last, starts at its slot and runs on)
        self.params = (ctypes.c_void_p * (self.SIZE // 8))(
            *[base + 8 * i for i in range(self.SIZE // 8)])
        self.pp = ctypes.addressof(self.params)


_SLOTS = _Slots()


class _Plan:
    """A call's layout: which kernel, the result's memory shape and axis order, the
    launch geometry and the packed layout argument."""

    __slots__ = ("kernel_key", "source", "shape", "mem_shape", "inverse", "blocks", "n",
                 "layout", "pack", "nparams", "fn")

    def __init__(self) -> None:
        self.kernel_key: tuple = ()
        self.source = ""
        self.shape: tuple[int, ...] = ()
        self.mem_shape: tuple[int, ...] = ()
        self.inverse: tuple[int, ...] | None = None
        self.blocks = 1
        self.n = 0
        self.layout = b""
        self.pack: Any = None
        self.nparams = 0
        #: the compiled kernel, once known (one GPU: a plan serves one device)
        self.fn: Any = None


#: the plan of a layout the loops do not take
_REFUSED = _Plan()


def _element_strides(raw: Any, shape: tuple[int, ...]) -> list[int] | None:
    """``raw``'s strides in elements against the broadcast ``shape`` (0 where it
    broadcasts), or None where a stride is not a whole number of elements."""
    isz = raw.itemsize
    nd = len(shape)
    out = [0] * nd
    off = nd - raw.ndim
    for i, (n, s) in enumerate(zip(raw.shape, raw.strides, strict=True)):
        if s % isz:
            return None
        out[off + i] = 0 if n == 1 else s // isz
    return out


def _merge(shape: list[int], strides: list[list[int]]) -> tuple[list[int], list[list[int]]]:
    """Drop axes of length 1 and merge neighbours contiguous in every operand."""
    dims = [i for i, n in enumerate(shape) if n != 1]
    mshape: list[int] = []
    mst: list[list[int]] = [[] for _ in strides]
    for i in dims:
        n = shape[i]
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


def kernel_source(body: str, names: list[str], arrays: list[np.dtype],
                  scalars: list[np.dtype], out: np.dtype, loop: str, index: str,
                  width: int, ndim: int, broadcast: tuple[bool, ...]) -> str:
    """The CUDA source of one elementwise kernel ``k`` (see the module docstring)."""
    params = [f"const {_tname(d)}* __restrict__ p{k}" for k, d in enumerate(arrays)]
    params += [f"const {_tname(d)} s{j}" for j, d in enumerate(scalars)]
    params += [f"{_tname(out)}* __restrict__ pz", "const long long n"]
    na = len(arrays)
    if loop == "strided":
        params.append(f"const usm_layout<{ndim}, {na}> lay")
    ot = _tname(out)
    # the operation on element values v0, v1, ... (named as the generator named them)
    op_args = ", ".join(f"const {_tname(d)} {nm}" for d, nm in zip(arrays, names, strict=True))
    op_args += "".join(f", const {_tname(d)} s{j}" for j, d in enumerate(scalars))
    call_scalars = "".join(f", s{j}" for j in range(len(scalars)))
    src = [HEADER,
           f"__device__ __forceinline__ {ot} usm_op({op_args}) {{\n  {ot} z;\n"
           f"  {{\n{body};\n  }}\n  return z;\n}}\n"]
    I = index  # noqa: E741 - the C name of the index type
    head = f'extern "C" __global__ void k({", ".join(params)}) {{\n'

    def op(vals: list[str]) -> str:
        return f"usm_op({', '.join(vals)}{call_scalars})"

    if loop == "vector":
        e = width
        loads = []
        vals = []
        for k, d in enumerate(arrays):
            if broadcast[k]:
                loads.append(f"const {_tname(d)} b{k} = p{k}[0];")
                vals.append(f"b{k}")
            else:
                vals.append(f"r{k}.v[t]")
        body_src = (
            head + "  " + " ".join(loads) + "\n"
            f"  const {I} nv = ({I})(n / {e});\n"
            f"  for ({I} v = usm_first<{I}>(); v < nv; v += usm_step<{I}>()) {{\n"
            + "".join(f"    const usm_vec<{_tname(d)}, {e}> r{k} = "
                      f"reinterpret_cast<const usm_vec<{_tname(d)}, {e}>*>(p{k})[v];\n"
                      for k, d in enumerate(arrays) if not broadcast[k])
            + f"    usm_vec<{ot}, {e}> rz;\n"
            f"#pragma unroll\n    for (int t = 0; t < {e}; ++t) rz.v[t] = {op(vals)};\n"
            f"    reinterpret_cast<usm_vec<{ot}, {e}>*>(pz)[v] = rz;\n  }}\n"
            f"  for ({I} i = nv * {e} + usm_first<{I}>(); i < ({I})n; i += usm_step<{I}>()) {{\n"
            f"    pz[i] = {op([f'b{k}' if broadcast[k] else f'p{k}[i]' for k in range(na)])};\n"
            "  }\n}\n")
    elif loop == "flat":
        u = UNROLL
        regs = "".join(f"    {_tname(d)} r{k}[{u}];\n" for k, d in enumerate(arrays)
                       if not broadcast[k])
        loads = []
        vals = []
        for k, d in enumerate(arrays):
            if broadcast[k]:
                loads.append(f"const {_tname(d)} b{k} = p{k}[0];")
                vals.append(f"b{k}")
            else:
                vals.append(f"r{k}[t]")
        body_src = (
            head + "  " + " ".join(loads) + "\n"
            f"  const {I} span = ({I})blockDim.x * {u};\n"
            f"  for ({I} base = ({I})blockIdx.x * span; base < ({I})n; "
            f"base += ({I})gridDim.x * span) {{\n" + regs
            + f"#pragma unroll\n    for (int t = 0; t < {u}; ++t) {{\n"
            f"      const {I} i = base + t * ({I})blockDim.x + threadIdx.x;\n"
            f"      if (i < ({I})n) {{ "
            + " ".join(f"r{k}[t] = p{k}[i];" for k in range(na) if not broadcast[k])
            + " }\n    }\n"
            f"#pragma unroll\n    for (int t = 0; t < {u}; ++t) {{\n"
            f"      const {I} i = base + t * ({I})blockDim.x + threadIdx.x;\n"
            f"      if (i < ({I})n) pz[i] = {op(vals)};\n    }}\n  }}\n}}\n")
    else:
        u = UNROLL
        regs = "".join(f"    {_tname(d)} r{k}[{u}];\n" for k, d in enumerate(arrays))
        body_src = (
            head
            + f"  const {I} span = ({I})blockDim.x * {u};\n"
            f"  for ({I} base = ({I})blockIdx.x * span; base < ({I})n; "
            f"base += ({I})gridDim.x * span) {{\n" + regs
            + f"#pragma unroll\n    for (int t = 0; t < {u}; ++t) {{\n"
            f"      const {I} i = base + t * ({I})blockDim.x + threadIdx.x;\n"
            f"      if (i < ({I})n) {{\n        {I} off[{na}];\n"
            f"        usm_offsets<{I}, {ndim}, {na}>(lay, i, off);\n        "
            + " ".join(f"r{k}[t] = p{k}[off[{k}]];" for k in range(na))
            + "\n      }\n    }\n"
            f"#pragma unroll\n    for (int t = 0; t < {u}; ++t) {{\n"
            f"      const {I} i = base + t * ({I})blockDim.x + threadIdx.x;\n"
            f"      if (i < ({I})n) pz[i] = {op([f'r{k}[t]' for k in range(na)])};\n"
            "    }\n  }\n}\n")
    src.append(body_src)
    return "".join(src)


class ElementwiseEngine:
    """Runs generated elementwise bodies on CUDA arrays of any layout.

    ``run(sig, body, names, arrays, consts, out_dtype, alloc)``: ``sig`` a hashable
    name of the body (its operation and operand types), ``names`` the generator's
    name of each array operand, ``arrays`` raw CuPy arrays, ``consts`` the scalar
    arguments as (value, dtype), ``alloc(shape, dtype)`` the result's allocator (on the
    operands' queue and memory kind, called under the caller's placement).  Returns
    the raw result, or None where the layout is outside what the loops take (then the
    caller computes it another way).
    """

    def __init__(self, multi_gpu: bool) -> None:
        #: False where CuPy has no binding of the driver's launch (callers then compute
        #: elementwise calls another way)
        self.available = driver_launch is not None and env_flag("USMARRAY_CUDA_ENGINE", True)
        self._multi = multi_gpu
        self._plans: dict[tuple, _Plan] = {}
        self._kernels: dict[tuple, Any] = {}

    def run(self, sig: Any, body: str, names: list[str], arrays: list[Any],
            consts: list[tuple[Any, np.dtype]], out_dtype: np.dtype, alloc: Any) -> Any:
        if len(arrays) == 1:
            a = arrays[0]
            key: tuple = (sig, a.shape, a.strides, a.data.ptr % _ALIGN_KEY)
        else:
            key = (sig, *[(a.shape, a.strides, a.data.ptr % _ALIGN_KEY) for a in arrays])
        plans = self._plans
        plan = plans.get(key)
        if plan is None:
            if len(plans) >= MAX_PLANS:
                plans.clear()
            plan = plans[key] = self._plan(body, names, arrays, [d for _, d in consts],
                                           out_dtype) or _REFUSED
        if plan is _REFUSED:
            return None
        out = alloc(plan.mem_shape, out_dtype)
        if plan.n:
            f = plan.fn or self._kernel(plan)
            t = _SLOTS
            if consts:
                plan.pack(t.buf, 0, *[a.data.ptr for a in arrays], *[v for v, _ in consts],
                          out.data.ptr, plan.n)
            elif len(arrays) == 1:
                plan.pack(t.buf, 0, arrays[0].data.ptr, out.data.ptr, plan.n)
            else:
                plan.pack(t.buf, 0, *[a.data.ptr for a in arrays], out.data.ptr, plan.n)
            if plan.layout:
                ctypes.memmove(t.base + 8 * (plan.nparams - 1), plan.layout, len(plan.layout))
            driver_launch(f.ptr, plan.blocks, 1, 1, BLOCK, 1, 1, 0, stream_ptr(), t.pp, 0)
        return out if plan.inverse is None else out.transpose(plan.inverse)

    # ---- layout ---------------------------------------------------------------------
    def _plan(self, body: str, names: list[str], arrays: list[Any],
              scalars: list[np.dtype], out: np.dtype) -> _Plan | None:
        shape = broadcast_shape(*(a.shape for a in arrays))
        if shape is None:
            return None
        strides = [_element_strides(a, shape) for a in arrays]
        if any(s is None for s in strides):
            return None
        st: list[list[int]] = [s for s in strides if s is not None]
        plan = _Plan()
        plan.shape = shape
        nd = len(shape)
        # axis order: the memory order of the first operand that is not broadcast
        order = list(range(nd))
        for a, s in zip(arrays, st, strict=True):
            if a.ndim == nd and a.shape == shape:
                order = sorted(range(nd), key=lambda i, s=s: -abs(s[i]))  # type: ignore[misc]
                break
        if order != list(range(nd)):
            plan.inverse = tuple(sorted(range(nd), key=lambda i: order[i]))
        mem_shape = [shape[i] for i in order]
        plan.mem_shape = tuple(mem_shape)
        n = math.prod(shape)
        plan.n = n
        pst = [[s[i] for i in order] for s in st]
        mshape, mst = _merge(mem_shape, pst)
        if not mshape:  # a single element
            mshape, mst = [1], [[0] for _ in pst]
        broadcast = tuple(all(x == 0 for x in s) for s in mst)
        span = max([n] + [sum(abs(x) * (m - 1) for x, m in zip(s, mshape, strict=True)) + 1
                          for s in mst])
        index = "int" if span < INT32_SPAN else "long long"
        itemsizes = [a.itemsize for a in arrays] + [out.itemsize]
        # each thread moves two 16-byte vectors of the widest operand (float32 -> bool:
        # eight elements, two 16-byte loads and one 8-byte store), at most WIDTH_CAP
        width = min(2 * VECTOR_BYTES // max(itemsizes), WIDTH_CAP)
        if len(mshape) == 1 and all(s[0] in (0, 1) for s in mst):
            loop = "flat"
            while width > 1:  # the widest vector every pointer is aligned to
                if all(b or a.data.ptr % (width * a.itemsize) == 0
                       for a, b in zip(arrays, broadcast, strict=True)):
                    loop = "vector"
                    break
                width //= 2
        elif len(mshape) <= MAX_DIMS:
            loop = "strided"
        else:
            return None
        per = {"vector": BLOCK * width, "flat": BLOCK * UNROLL, "strided": BLOCK * UNROLL}[loop]
        plan.blocks = max(1, min(-(-n // per), MAX_BLOCKS))
        dts = [a.dtype for a in arrays]
        ndim = len(mshape)
        plan.kernel_key = (body, tuple(names), tuple(dts), tuple(scalars), out, loop, index,
                           width if loop == "vector" else 1,
                           ndim if loop == "strided" else 0, broadcast)
        plan.source = kernel_source(body, names, dts, scalars, out, loop, index, width,
                                    ndim, broadcast)
        fmt = "<" + "Q" * len(arrays)
        for d in scalars:
            code = _CODES[d.char]
            fmt += f"{code}{8 - d.itemsize}x"
        fmt += "Qq"
        plan.nparams = len(arrays) + len(scalars) + 2
        if loop == "strided":
            plan.layout = struct.pack(f"<{ndim + ndim * len(arrays)}q", *mshape,
                                      *[x for s in mst for x in s])
            plan.nparams += 1
        plan.pack = struct.Struct(fmt).pack_into
        return plan

    # ---- compile and launch -----------------------------------------------------------
    def _kernel(self, plan: _Plan) -> Any:
        key = plan.kernel_key
        if self._multi:
            return compiled(plan.source, "k", True)
        f = self._kernels.get(key)
        if f is None:
            f = self._kernels[key] = compiled(plan.source, "k", False)
        plan.fn = f
        return f


__all__ = ["BLOCK", "ElementwiseEngine", "kernel_source"]
