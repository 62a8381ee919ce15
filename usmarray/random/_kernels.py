"""The device side: one kernel of the kernel factory per kind of draw, from one body
written for OpenCL C (SYCL) and CUDA C.

Work-item ``t`` computes stream block ``B0 + t`` (one Philox 4x64-10 call: four
64-bit words, 32 bytes) and writes every element that reads that block, so every
element is computed once and the blocks are independent; the output holds whole
blocks (a call that starts or ends inside a block returns a view of it).  The 64x64 ->
128-bit products use the targets' own high-half multiply (OpenCL's ``mul_hi`` on
``ulong``, CUDA's ``__umul64hi``), the low half C's wrapping ``*``.  Floating-point arithmetic
rounds once per operation on both targets, as NumPy does on the host: OpenCL C with
``FP_CONTRACT OFF``, CUDA through its round-to-nearest intrinsics (``__dmul_rn``, ...)
that NVRTC does not fuse.  See ``_philox.py`` for the stream and the host side.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..kernels._compilers import COMPILERS, program_module
from ..kernels._fuse import CUDA_INTRINSICS, _flat_launcher
from ..kernels._kernel import Kernel
from ._math import TWO_PI, c_log_scaled, c_sincos_turns
from ._philox import M0, M1, ROUNDS, W0, W1, counter_words

#: CUDA builtins the CUDA bodies call: the rounding intrinsics and the 64-bit high product
_INTRINSICS = CUDA_INTRINSICS | {"__umul64hi"}
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

    def sub(self, a: str, b: str) -> str:
        return f"(({a}) - ({b}))" if self.name == "opencl" else f"__dsub_rn({a}, {b})"

    def div(self, a: str, b: str) -> str:
        return f"(({a}) / ({b}))" if self.name == "opencl" else f"__ddiv_rn({a}, {b})"


def _philox(lang: _Lang) -> list[str]:
    """C statements leaving the block of counter ``c + i0`` (256-bit) in ``x0 .. x3``."""
    lines = [
        "uint64 x0 = c0 + (uint64)i0;",
        "uint64 cy = (uint64)(x0 < c0);",
        "uint64 x1 = c1 + cy;",
        "cy = cy & (uint64)(x1 == 0);",
        "uint64 x2 = c2 + cy;",
        "cy = cy & (uint64)(x2 == 0);",
        "uint64 x3 = c3 + cy;",
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


def _values(lang: _Lang, kind: str, dname: str, wide: bool) -> tuple[int, list[str]]:
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
        return _normal(lang, ft, wide)
    if kind == "exp":
        n = 4 if ft == "float64" else 8
        for s in range(n):
            if ft == "float64":
                lines += c_log_scaled(lang, f"9007199254740992UL - (x{s} >> 11)", 53, f"lg{s}")
            elif wide:
                lines += c_log_scaled(lang, f"4294967296UL - {_half(s)}", 32, f"lg{s}", True)
            else:  # float32 only: the device's own log
                lines.append(f"float32 lg{s} = log((float32)(16777216UL - ({_half(s)} >> 8)) "
                             f"* {_EPS24F});")
            lines.append(f"{ft} v{s} = {lang.mul('p0', f'({ft})(-lg{s})', ft)};")
        return n, lines
    raise AssertionError(kind)  # pragma: no cover


def _normal(lang: _Lang, ft: str, wide: bool) -> tuple[int, list[str]]:
    """Box-Muller: pair ``p`` gives elements ``2p`` (the cosine) and ``2p + 1`` (the
    sine), from a radius draw and an angle draw (see ``_philox._normal``)."""
    lines: list[str] = []
    npairs = 2 if ft == "float64" else 4
    for p in range(npairs):
        if ft == "float64":
            rad, ang, bits = f"(x{2 * p} >> 11) + 1", f"x{2 * p + 1} >> 11", 53
        else:
            rad, ang, bits = f"{_half(2 * p)} + 1", _half(2 * p + 1), 32
        if ft == "float64" or wide:
            short = ft == "float32"
            lines += c_log_scaled(lang, rad, bits, f"lg{p}", short)
            lines += c_sincos_turns(lang, ang, bits, f"sn{p}", f"cs{p}", short)
            lines.append(f"float64 ra{p} = sqrt({lang.mul('-2.0', f'lg{p}', 'float64')});")
        else:  # float32 only: the device's own functions, on 24-bit draws
            u1 = f"(float32)(({_half(2 * p)} >> 8) + 1) * {_EPS24F}"
            u2 = f"(float32)({_half(2 * p + 1)} >> 8) * {_EPS24F}"
            lines += [
                f"float32 ra{p} = sqrt({lang.mul('-2.0f', f'log({u1})', 'float32')});",
                f"float32 an{p} = {lang.mul(u2, repr(TWO_PI) + 'f', 'float32')};",
                f"float32 cs{p} = cos(an{p});",
                f"float32 sn{p} = sin(an{p});",
            ]
        ct = "float64" if ft == "float64" or wide else "float32"
        lines += [
            f"{ft} z{2 * p} = ({ft}){lang.mul(f'ra{p}', f'cs{p}', ct)};",
            f"{ft} z{2 * p + 1} = ({ft}){lang.mul(f'ra{p}', f'sn{p}', ct)};",
        ]
    lines += [f"{ft} v{s} = {lang.add('p0', lang.mul('p1', f'z{s}', ft), ft)};"
              for s in range(2 * npairs)]
    return 2 * npairs, lines


def _body(lang: _Lang, kind: str, dname: str, wide: bool) -> tuple[int, str]:
    e, vals = _values(lang, kind, dname, wide)
    lines = (["#pragma OPENCL FP_CONTRACT OFF"] if lang.name == "opencl" else [])
    lines += _philox(lang) + vals
    # every block is written whole (the output has room): no branch, so the SYCL CPU
    # compiler vectorizes the work-items (a guard per element measured 2.6x slower)
    lines.append(f"int64 j = (int64)i0 * {e};")
    lines += [f"out(j + {s}) = v{s};" for s in range(e)]
    return e, "\n".join(lines)


def _signature(kind: str, dname: str) -> str:
    sig = (f"uint8[:] blocks, {dname}[:] out, uint64 k0, uint64 k1, uint64 c0, uint64 c1, "
           "uint64 c2, uint64 c3")
    if kind in ("int", "int2"):
        return sig + ", uint64 low, uint64 r"
    if kind in ("uniform", "normal"):
        return sig + f", {dname} p0, {dname} p1"
    if kind == "exp":
        return sig + f", {dname} p0"
    return sig


#: (kind, dtype, wide) -> (the kernel, elements per block)
_KERNELS: dict[tuple[str, np.dtype, bool], tuple[Kernel, int]] = {}
#: (kernel, queue) -> the SYCL flat launcher and its most work-items, or False
_FLAT: dict[tuple[int, Any], Any] = {}
#: queue -> whether the kernel factory compiles for its device
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


def kernel_for(kind: str, d: np.dtype, wide: bool) -> tuple[Kernel, int]:
    """The kernel writing ``kind`` draws of dtype ``d``, and its elements per block."""
    key = (kind, d, wide)
    hit = _KERNELS.get(key)
    if hit is None:
        bodies = {}
        e = 0
        for lang in ("opencl", "cuda"):
            e, bodies[lang] = _body(_Lang(lang), kind, d.name, wide)
        k = Kernel(_signature(kind, d.name), bodies["opencl"], shape="blocks",
                   name=f"usmarray.random ({kind}, {d.name})", bodies=bodies,
                   intrinsics=frozenset(_INTRINSICS))
        hit = _KERNELS[key] = (k, e)
    return hit


def device_fill(be: Any, q: Any, out: Any, kind: str, d: np.dtype, key: tuple[int, int],
                b0: int, nblocks: int, params: tuple, wide: bool) -> None:
    """Write blocks ``b0 .. b0 + nblocks - 1`` of ``kind`` draws into the raw C-contiguous
    1-D array ``out`` (every element of each block: ``nblocks`` times the elements per
    block, of ``d``) on queue ``q`` of backend ``be``."""
    k, _e = kernel_for(kind, d, wide)
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
