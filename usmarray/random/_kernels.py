"""The device side: one kernel per kind of draw, from one generator of C statements
written for OpenCL C (SYCL, through the kernel factory) and CUDA C (a kernel of its own).

Work-item ``t`` computes stream block ``B0 + t`` (one Philox 4x64-10 call: four
64-bit words, 32 bytes) and every element that reads that block, so every element is
computed once and the blocks are independent.  The 64x64 -> 128-bit products use the
targets' own high-half multiply (OpenCL's ``mul_hi`` on ``ulong``, CUDA's
``__umul64hi``), the low half C's wrapping ``*``.  Floating-point arithmetic rounds
once per operation on both targets, as NumPy does on the host: OpenCL C with
``FP_CONTRACT OFF``, CUDA through its round-to-nearest intrinsics (``__dmul_rn``, ...)
that NVRTC does not fuse.  See ``_philox.py`` for the stream and the host side.

How the elements reach memory differs:

- SYCL (the factory): a work-item writes its block's elements itself; the output holds
  whole blocks (a call that starts or ends inside a block returns a view of it).
- CUDA (:func:`cuda_source`): a thread's elements are 4 to 32 contiguous bytes, so
  neighbouring threads writing their own would store at a 32-byte stride, which a GPU
  serves a sector per element.  The threads of a CUDA block put their elements in
  shared memory and then store the block's whole tile together, 16 bytes a thread and
  neighbouring threads on neighbouring bytes; the kernel writes exactly the call's
  elements (a call that starts inside a block needs no view), from one launch with
  precomputed arguments (:class:`CudaLaunch`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..kernels._compilers import COMPILERS, program_module
from ..kernels._emit import KERNEL_NAME
from ..kernels._fuse import _flat_launcher
from ..kernels._kernel import Kernel, compiled_kernel
from ._math import c_log32, c_log_scaled, c_sincos_turns, c_sincos_turns32
from ._philox import BLOCK_BYTES, M0, M1, ROUNDS, W0, W1, counter_words, unit_bytes

_EPS53 = "1.1102230246251565e-16"  # 2**-53
_EPS24F = "5.9604644775390625e-08f"  # 2**-24


class _Lang:
    """What differs between the two targets' bodies."""

    def __init__(self, name: str) -> None:
        self.name = name

    def mulhi(self, a: str, b: str) -> str:
        return f"mul_hi({a}, {b})" if self.name == "opencl" else f"__umul64hi({a}, {b})"

    def mul(self, a: str, b: str, t: str = "float64") -> str:
        if self.name == "opencl":
            return f"(({a}) * ({b}))"
        return f"__{'d' if t == 'float64' else 'f'}mul_rn({a}, {b})"

    def add(self, a: str, b: str, t: str = "float64") -> str:
        if self.name == "opencl":
            return f"(({a}) + ({b}))"
        return f"__{'d' if t == 'float64' else 'f'}add_rn({a}, {b})"

    def sub(self, a: str, b: str, t: str = "float64") -> str:
        if self.name == "opencl":
            return f"(({a}) - ({b}))"
        return f"__{'d' if t == 'float64' else 'f'}sub_rn({a}, {b})"

    def sqrt32(self, a: str) -> str:
        return f"sqrt({a})" if self.name == "opencl" else f"__fsqrt_rn({a})"

    def f32(self, u: str) -> str:
        """The uint64 ``u`` rounded to float32 (to nearest)."""
        return f"convert_float_rte({u})" if self.name == "opencl" else f"__ull2float_rn({u})"

    def bits32(self, x: str) -> str:
        return f"as_uint({x})" if self.name == "opencl" else f"__float_as_uint({x})"

    def from_bits32(self, u: str) -> str:
        return f"as_float((uint)({u}))" if self.name == "opencl" else f"__uint_as_float({u})"

    def div(self, a: str, b: str) -> str:
        return f"(({a}) / ({b}))" if self.name == "opencl" else f"__ddiv_rn({a}, {b})"

    def bits(self, x: str) -> str:
        """The bits of float64 ``x`` as uint64."""
        if self.name == "opencl":
            return f"as_ulong({x})"
        return f"(uint64)__double_as_longlong({x})"

    def double(self, u: str) -> str:
        """The float64 of bits ``u`` (uint64)."""
        if self.name == "opencl":
            return f"as_double((ulong)({u}))"
        return f"__longlong_as_double((int64)({u}))"


def _philox(lang: _Lang, low: bool = False) -> list[str]:
    """C statements leaving the block of counter ``c + i0`` (256-bit) in ``x0 .. x3``;
    ``low``: the launch's counters fit one word (``c1 = c2 = c3 = 0``, no carry), so the
    first rounds multiply known zeros and launch-wide values (a tenth fewer 64-bit
    products per block)."""
    if low:
        head = ["uint64 x0 = c0 + (uint64)i0;", "uint64 x1 = 0;", "uint64 x2 = 0;",
                "uint64 x3 = 0;"]
    else:
        head = [
        "uint64 x0 = c0 + (uint64)i0;",
        "uint64 cy = (uint64)(x0 < c0);",
        "uint64 x1 = c1 + cy;",
        "cy = cy & (uint64)(x1 == 0);",
        "uint64 x2 = c2 + cy;",
        "cy = cy & (uint64)(x2 == 0);",
        "uint64 x3 = c3 + cy;",
        ]
    lines = head + [
        "uint64 ka = k0;",
        "uint64 kb = k1;",
        "#pragma unroll",
        f"for (int rd = 0; rd < {ROUNDS}; rd++) {{",
        f"  uint64 h0 = {lang.mulhi(f'{M0:#x}UL', 'x0')};",
        f"  uint64 l0 = {M0:#x}UL * x0;",
        f"  uint64 h1 = {lang.mulhi(f'{M1:#x}UL', 'x2')};",
        f"  uint64 l1 = {M1:#x}UL * x2;",
        "  x0 = h1 ^ x1 ^ ka;",
        "  x1 = l1;",
        "  x2 = h0 ^ x3 ^ kb;",
        "  x3 = l0;",
        f"  ka += {W0:#x}UL;",
        f"  kb += {W1:#x}UL;",
        "}",
    ]
    return lines


def _half(s: int) -> str:
    """The ``s``-th 32-bit half of the block (low half of a word first), as uint64."""
    return f"(x{s // 2} & 0xFFFFFFFFUL)" if s % 2 == 0 else f"(x{s // 2} >> 32)"


def _values(lang: _Lang, kind: str, dname: str) -> tuple[int, list[str]]:
    """(elements per block, C statements defining ``v0 .. v{E-1}``)."""
    ft = dname if dname in ("float32", "float64") else "float64"  # the floats' type
    lines: list[str] = []
    if kind == "u64":
        return 4, [f"uint64 v{s} = x{s};" for s in range(4)]
    if kind == "u8":
        return 32, [f"uint8 v{s} = (uint8)(x{s // 8} >> {8 * (s % 8)});" for s in range(32)]
    if kind == "int":
        return 4, [f"{dname} v{s} = ({dname})(low + {lang.mulhi(f'x{s}', 'r')});"
                   for s in range(4)]
    if kind == "int2":
        for s in range(2):
            hi, lo = f"x{2 * s}", f"x{2 * s + 1}"
            lines += [
                f"uint64 ah{s} = {lang.mulhi(hi, 'r')};",
                f"uint64 sl{s} = {hi} * r + {lang.mulhi(lo, 'r')};",
                f"uint64 of{s} = r == 0 ? {hi} : ah{s} + (uint64)(sl{s} < {hi} * r);",
                f"{dname} v{s} = ({dname})(low + of{s});",
            ]
        return 2, lines
    if kind in ("f", "uniform"):
        if ft == "float64":
            us = [f"(float64)(x{s} >> 11) * {_EPS53}" for s in range(4)]
        else:
            us = [f"(float32)({_half(s)} >> 8) * {_EPS24F}" for s in range(8)]
        if kind == "uniform":
            us = [lang.add("p0", lang.mul("p1", u, ft), ft) for u in us]
        return len(us), [f"{ft} v{s} = {u};" for s, u in enumerate(us)]
    if kind == "normal":
        return _normal(lang, ft)
    if kind == "exp":
        n = 4 if ft == "float64" else 8
        for s in range(n):
            if ft == "float64":
                lines += c_log_scaled(lang, f"9007199254740992UL - (x{s} >> 11)", 53, f"lg{s}")
            else:
                lines += c_log32(lang, f"4294967296UL - {_half(s)}", f"lg{s}")
            lines.append(f"{ft} v{s} = {lang.mul('p0', f'-lg{s}', ft)};")
        return n, lines
    raise AssertionError(kind)  # pragma: no cover


def _normal(lang: _Lang, ft: str) -> tuple[int, list[str]]:
    """Box-Muller: pair ``p`` gives elements ``2p`` (the cosine) and ``2p + 1`` (the
    sine), from a radius draw and an angle draw (see ``_philox._normal``); float32 pairs
    in float32 arithmetic."""
    lines: list[str] = []
    npairs = 2 if ft == "float64" else 4
    for p in range(npairs):
        if ft == "float64":
            lines += c_log_scaled(lang, f"(x{2 * p} >> 11) + 1", 53, f"lg{p}")
            lines += c_sincos_turns(lang, f"x{2 * p + 1} >> 11", 53, f"sn{p}", f"cs{p}")
            lines.append(f"float64 ra{p} = sqrt({lang.mul('-2.0', f'lg{p}')});")
        else:
            lines += c_log32(lang, f"{_half(2 * p)} + 1", f"lg{p}")
            lines += c_sincos_turns32(lang, f"(uint32)({_half(2 * p + 1)} >> 8)", f"sn{p}",
                                      f"cs{p}")
            lines.append(f"float32 ra{p} = {lang.sqrt32(lang.mul('-2.0f', f'lg{p}', ft))};")
        lines += [
            f"{ft} z{2 * p} = {lang.mul(f'ra{p}', f'cs{p}', ft)};",
            f"{ft} z{2 * p + 1} = {lang.mul(f'ra{p}', f'sn{p}', ft)};",
        ]
    lines += [f"{ft} v{s} = {lang.add('p0', lang.mul('p1', f'z{s}', ft), ft)};"
              for s in range(2 * npairs)]
    return 2 * npairs, lines


def _body(lang: _Lang, kind: str, dname: str) -> tuple[int, str]:
    """(elements per block, the SYCL kernel's body): the block's elements, written by
    the work-item that computed them."""
    e, vals = _values(lang, kind, dname)
    lines = ["#pragma OPENCL FP_CONTRACT OFF"] + _philox(lang) + vals
    # every block is written whole (the output has room): no branch, so the SYCL CPU
    # compiler vectorizes the work-items (a guard per element measured 2.6x slower)
    lines.append(f"int64 j = (int64)i0 * {e};")
    lines += [f"out(j + {s}) = v{s};" for s in range(e)]
    return e, "\n".join(lines)


def _signature(kind: str, dname: str) -> str:
    sig = (f"uint8[:] blocks, {dname}[:] out, uint64 k0, uint64 k1, uint64 c0, uint64 c1, "
           "uint64 c2, uint64 c3")
    return sig + "".join(f", {t} {n}" for t, n in _params(kind, dname))


def _params(kind: str, dname: str) -> list[tuple[str, str]]:
    """(type, name) of the kind's parameters after the key and the counter."""
    if kind in ("int", "int2"):
        return [("uint64", "low"), ("uint64", "r")]
    if kind in ("uniform", "normal"):
        return [(dname, "p0"), (dname, "p1")]
    if kind == "exp":
        return [(dname, "p0")]
    return []


#: (kind, dtype) -> (the SYCL kernel, elements per block)
_KERNELS: dict[tuple[str, np.dtype], tuple[Kernel, int]] = {}
#: (kernel, queue) -> the SYCL flat launcher and its most work-items, or False
_FLAT: dict[tuple[int, Any], Any] = {}
#: queue -> whether the kernels compile for its device
_COMPILES: dict[Any, bool] = {}
#: queue -> a one-element uint8 array: the shape argument's storage (never read)
_ONE: dict[Any, Any] = {}


def compiles(be: Any, q: Any) -> bool:
    """Whether the kernels run on queue ``q`` of backend ``be``: a backend with a kernel
    compiler, and a device it compiles for (SYCL: OpenCL devices only)."""
    ok = _COMPILES.get(q)
    if ok is None:
        if len(_COMPILES) >= 64:  # queues of short-lived streams: hold few of them
            _COMPILES.clear()
        ok = _COMPILES[q] = (be.name in COMPILERS
                             and program_module(be).unsupported(q) is None)
    return ok


def elements_per_block(kind: str, d: np.dtype) -> int:
    """How many elements of ``kind`` (dtype ``d``) one 32-byte block holds."""
    return BLOCK_BYTES // unit_bytes(kind, d.itemsize)


def kernel_for(kind: str, d: np.dtype) -> tuple[Kernel, int]:
    """The SYCL kernel writing ``kind`` draws of dtype ``d``, and its elements per block."""
    key = (kind, d)
    hit = _KERNELS.get(key)
    if hit is None:
        e, body = _body(_Lang("opencl"), kind, d.name)
        k = Kernel(_signature(kind, d.name), body, shape="blocks",
                   name=f"usmarray.random ({kind}, {d.name})")
        hit = _KERNELS[key] = (k, e)
    return hit


def device_fill(be: Any, q: Any, out: Any, kind: str, d: np.dtype, key: tuple[int, int],
                b0: int, nblocks: int, params: tuple) -> None:
    """Write blocks ``b0 .. b0 + nblocks - 1`` of ``kind`` draws into the raw C-contiguous
    1-D array ``out`` (every element of each block: ``nblocks`` times the elements per
    block, of ``d``) on SYCL queue ``q`` of backend ``be``."""
    k, _e = kernel_for(kind, d)
    one = _ONE.get(q)
    if one is None:
        if len(_ONE) >= 64:  # queues of short-lived streams: hold few of them
            _ONE.clear()
        one = _ONE[q] = be.zeros((1,), dtype=np.dtype(np.uint8), usm_type=be.usm_types[0],
                                 queue=q)
    values = [one, out, key[0], key[1], *counter_words(b0), *params]
    fkey = (id(k), q)
    fl = _FLAT.get(fkey)
    if fl is None:
        if len(_FLAT) >= 256:
            _FLAT.clear()
        fl = _FLAT[fkey] = _flat_launcher(k, be, q, values)
    if fl and nblocks <= fl[1]:
        # a flat launch passes its work-item count as every array's size: the shape
        # argument's storage needs no view of that size
        fl[0].launch_flat(q, values, nblocks)
        return
    values[0] = be.broadcast_to(one, (nblocks,))
    k.run_flat(be, q, values, nblocks)


# ---- CUDA ---------------------------------------------------------------------------------
#: threads of a CUDA block, and Philox blocks of a tile (one a thread)
CUDA_TILE = 256
_CUDA_TYPES = """typedef unsigned long long uint64; typedef long long int64;
typedef unsigned int uint32; typedef int int32; typedef unsigned short uint16;
typedef short int16; typedef unsigned char uint8; typedef signed char int8;
typedef float float32; typedef double float64;
"""
#: a parameter's type -> its cuLaunchKernel argument code (8-byte slots: floats go as
#: double and are rounded to the dtype in the kernel, as NumPy rounds a Python float)
_FMT = {"uint64": "Q", "float32": "d", "float64": "d"}


def cuda_source(kind: str, dname: str, low: bool = False) -> tuple[int, str]:
    """(elements per block, the CUDA kernel :data:`KERNEL_NAME` that writes ``n``
    elements of ``kind`` (dtype ``dname``) from element ``first`` of the block whose
    counter is ``c``; ``low``: for launches whose counters fit one word, see
    :func:`_philox`).

    Arguments: ``out`` (``n`` elements), the key ``k0, k1``, the counter ``c0 .. c3``
    (``c1 .. c3`` unread when ``low``), ``first``, ``n``, then the kind's parameters
    (floats as double)."""
    lang = _Lang("cuda")
    e, vals = _values(lang, kind, dname)
    size = np.dtype(dname).itemsize
    bb = e * size  # bytes of a block's elements: 4, 8, 16 or 32
    params = _params(kind, dname)
    args = "".join(f", {'uint64' if t == 'uint64' else 'double'} {n}_arg" for t, n in params)
    conv = "".join(f"  const {t} {n} = ({t}){n}_arg;\n" for t, n in params)
    body = "\n".join("      " + line for line in _philox(lang, low) + vals)
    inits = ", ".join(f"v{s}" for s in range(e))
    t = CUDA_TILE
    units = t * bb // 16  # 16-byte units of a tile: 64 to 512
    if units >= t:
        vector = (f"      #pragma unroll\n      for (int r = 0; r < {units // t}; r++) "
                  f"dst[r * {t} + threadIdx.x] = src[r * {t} + threadIdx.x];")
    else:
        vector = f"      if (threadIdx.x < {units}) dst[threadIdx.x] = src[threadIdx.x];"
    src = f"""{_CUDA_TYPES}
struct __align__({min(bb, 16)}) usm_block {{ {dname} v[{e}]; }};

extern "C" __global__ void __launch_bounds__({t}) {KERNEL_NAME}(
    {dname} *__restrict__ out, uint64 k0, uint64 k1, uint64 c0, uint64 c1, uint64 c2,
    uint64 c3, int64 first, int64 n{args})
{{
  __shared__ usm_block tile[{t}];
{conv}  const int64 nblocks = (first + n + {e - 1}) / {e};
  for (int64 tb = (int64)blockIdx.x * {t}; tb < nblocks; tb += (int64)gridDim.x * {t}) {{
    {{
      const int64 i0 = tb + threadIdx.x;
{body}
      usm_block w = {{{{{inits}}}}};
      tile[threadIdx.x] = w;
    }}
    __syncthreads();
    // the tile's elements are output elements g0 .. g0 + {t * e - 1}
    const int64 g0 = tb * {e} - first;
    if (g0 >= 0 && g0 + {t * e} <= n && ((unsigned long long)(out + g0) & 15) == 0) {{
      const uint4 *src = (const uint4 *)tile;
      uint4 *dst = (uint4 *)(out + g0);
{vector}
    }} else {{
      const {dname} *src = (const {dname} *)tile;
      #pragma unroll
      for (int r = 0; r < {e}; r++) {{
        const int j = r * {t} + threadIdx.x;
        const int64 g = g0 + j;
        if (g >= 0 && g < n) out[g] = src[j];
      }}
    }}
    __syncthreads();
  }}
}}
"""
    return e, src


class CudaLaunch:
    """One CUDA kernel of :func:`cuda_source`, compiled for a queue's device, and what
    its launches share (the driver's argument codes, elements per block)."""

    __slots__ = ("fn", "wide_fn", "kind", "d", "fmt", "e", "launch", "direct")

    def __init__(self, be: Any, q: Any, kind: str, d: np.dtype) -> None:
        from .._backend._cuda.kernels import _launch  # the CUDA backend is loaded here

        self.kind, self.d = kind, d
        self.e, src = cuda_source(kind, d.name, low=True)
        self.fn = self._compile(be, q, src)
        self.wide_fn: Any = None  # the kernel for any counter, compiled when first needed
        self.fmt = "QQQQQQQqq" + "".join(_FMT[t] for t, _ in _params(kind, d.name))
        self.launch = _launch.launch
        #: the backend's default queue on a one-GPU machine: its device is the current
        #: one and its stream the null stream, so a launch needs no context switch
        self.direct = q == be.default_queue() and len(be.devices()) == 1

    @staticmethod
    def _compile(be: Any, q: Any, src: str) -> Any:
        fn = compiled_kernel(program_module(be), q, src)
        return getattr(fn, "kernel", fn)  # the driver's function under CuPy's wrapper

    def __call__(self, be: Any, q: Any, ptr: int, key: tuple[int, int], b0: int, first: int,
                 n: int, params: tuple, ut: str) -> None:
        """Write elements ``first .. first + n - 1`` of the draws from block ``b0`` on
        into the ``n`` elements at device address ``ptr``."""
        blocks = -(-(first + n) // self.e)
        grid = (min(-(-blocks // CUDA_TILE), _MAX_GRID), 1, 1)
        fn = self.fn
        if b0 + blocks >= _ONE_WORD:  # a counter of the launch needs a second word
            if self.wide_fn is None:
                self.wide_fn = self._compile(be, q, cuda_source(self.kind, self.d.name)[1])
            fn = self.wide_fn
        args = (ptr, key[0], key[1], *counter_words(b0), first, n, *params)
        if self.direct:
            self.launch(fn, grid, (CUDA_TILE, 1, 1), self.fmt, *args, stream=0)
            return
        with be.placement(q, ut):
            self.launch(fn, grid, (CUDA_TILE, 1, 1), self.fmt, *args, stream=q.stream.ptr)


#: blocks ``b`` below this have the one-word counter ``b + 1``
_ONE_WORD = 2**64 - 1
#: CUDA's largest grid (x): a larger call's blocks loop over its tiles
_MAX_GRID = 2**31 - 1
#: (kind, dtype, queue) -> its CudaLaunch
_CUDA: dict[tuple[str, np.dtype, Any], CudaLaunch] = {}


def cuda_launch(be: Any, q: Any, kind: str, d: np.dtype) -> CudaLaunch:
    """The :class:`CudaLaunch` of ``kind`` draws of ``d`` on CUDA queue ``q``."""
    key = (kind, d, q)
    hit = _CUDA.get(key)
    if hit is None:
        if len(_CUDA) >= 256:  # queues of short-lived streams: hold few of them
            _CUDA.clear()
        hit = _CUDA[key] = CudaLaunch(be, q, kind, d)
    return hit
