"""Index checks and NaN probes as one OpenCL kernel each, for the SYCL
backend on OpenCL devices.

The provider has no kernel that tells in one pass whether an index array stays inside
``[-n, n)``; the check before a gather or scatter was a ``min`` and a ``max``
reduction, each read back to the host.  Here:

* :meth:`Checked.take_checked`: ``take`` of a C-contiguous array with its bounds check
  inside the gather (one launch and one flag read; an index outside the range writes
  zero and raises the flag, and the caller then names the index);
* :meth:`Checked.out_of_range`: one pass over an index array of any strides (up to
  four dimensions) that raises the flag where an index leaves ``[-n, n)``;
* :meth:`Checked.nan_at`: whether any element that ``argmax``/``argmin`` along an
  axis picked is a NaN (NaN told from its bits, so no fp16/fp64 extension is needed).

Each returns None where it does not apply (a device that is not OpenCL, more than four
dimensions, a launch past the provider's work-item range, an unknown dtype); the caller
then does the work the old way.  The flag is one int32 in shared USM per thread and
context, zeroed on the host before the launch and read on the host after it; the
launch waits for the queue's earlier work and returns when the kernel is done
(``program.Launcher``).  Kernels compile once per device and type on first use
(50-200 ms each).
"""

from __future__ import annotations

import ctypes
import math
import threading
from typing import Any

import dpctl
import dpctl.memory as dpmem
import numpy as np

from . import program
from .ranged import PIECE

#: OpenCL integer types by itemsize: gathers move bits, so every dtype maps to one
_BITS = {1: "uchar", 2: "ushort", 4: "uint", 8: "ulong", 16: "ulong2"}
_SIGNED = {np.dtype("int8"): "char", np.dtype("int16"): "short",
           np.dtype("int32"): "int", np.dtype("int64"): "long"}
#: (unsigned type, magnitude mask, +inf bits) per floating dtype: NaN iff |bits| > inf
_NAN_BITS = {
    np.dtype("float16"): ("ushort", "0x7fff", "0x7c00"),
    np.dtype("float32"): ("uint", "0x7fffffffu", "0x7f800000u"),
    np.dtype("float64"): ("ulong", "0x7fffffffffffffffUL", "0x7ff0000000000000UL"),
}
_MAX_DIMS = 4
_L = ctypes.c_longlong

# Up to four dimensions after merging (ND of them, a compile-time constant), sizes
# n1..n3 (n0 implied by the launch) and strides t0..t3 in elements: ``at`` is the
# element offset of work-item ``r``'s element (C order).  A dense array is ND 0: no
# stride, so that the compiler vectorizes the loads (a stride argument costs 8x).
_UNRAVEL = """
  const long r = get_global_id(0);
#if ND == 0
  const long at = r;
#elif ND == 1
  const long at = r * t3;
#else
  long c = r, at = 0;
  at += (c % n3) * t3; c /= n3;
#if ND >= 3
  at += (c % n2) * t2; c /= n2;
#endif
#if ND >= 4
  at += (c % n1) * t1; c /= n1;
#endif
  at += c * (ND == 2 ? t2 : ND == 3 ? t1 : t0);
#endif
"""
_GEOMETRY = "const long n1, const long n2, const long n3, " \
            "const long t0, const long t1, const long t2, const long t3"

_SOURCES = {
    "take": """
__kernel void k(__global const T* src, const long s0, __global const I* idx,
                const long i0, const long istride, __global T* out,
                __global int* flag, const long outer, const long n, const long kk,
                const long inner) {
  const long e = get_global_id(0);
  long rr = e, ii = 0;
  if (inner != 1) { rr = e / inner; ii = e - rr * inner; }
  long o = 0, j = rr;
  if (outer != 1) { o = rr / kk; j = rr - o * kk; }
  const long t0 = (long)idx[i0 + j * istride];
  const long t = t0 < 0 ? t0 + n : t0;
  if (t < 0 || t >= n) { flag[0] = 1; out[e] = (T)(0); }
  else out[e] = src[s0 + (o * n + t) * inner + ii];
}
""",
    "out_of_range": """
__kernel void k(__global const I* idx, const long i0, const long n,
                __global int* flag, GEOMETRY) {
UNRAVEL
  const long v = (long)idx[i0 + at];
  if (v < -n || v >= n) flag[0] = 1;
}
""",
    "nan_at": """
__kernel void k(__global const T* a, const long a0, __global const long* pick,
                const long p0, const long sax, __global int* flag, GEOMETRY) {
UNRAVEL
  const T u = a[a0 + at + pick[p0 + r] * sax];
  if ((u & MAG) > INF) flag[0] = 1;
}
""",
}


def _source(kind: str, **types: str) -> str:
    body = _SOURCES[kind].replace("GEOMETRY", _GEOMETRY).replace("UNRAVEL", _UNRAVEL)
    head = "".join(f"#define {k} {v}\n" for k, v in types.items())
    return head + body


def _geometry(shape: tuple[int, ...], strides: tuple[int, ...]) -> tuple[int, list] | None:
    """(ND, [n1..n3, t0..t3]) for ``shape``/``strides`` with size-1 axes dropped and
    axes that step evenly into each other merged, padded to four dimensions in front
    (ND 0: dense); None past four."""
    dims: list[list[int]] = []
    for n, t in zip(shape, strides, strict=True):
        if n == 1:
            continue
        if dims and dims[-1][1] == t * n:
            dims[-1] = [dims[-1][0] * n, t]
        else:
            dims.append([n, t])
    if len(dims) > _MAX_DIMS:
        return None
    nd = max(1, len(dims))
    if nd == 1 and dims and dims[-1][1] == 1:
        nd = 0
    dims = [[1, 0]] * (_MAX_DIMS - len(dims)) + dims
    return nd, [_L(d[0]) for d in dims[1:]] + [_L(d[1]) for d in dims]


class _Flags(threading.local):
    def __init__(self) -> None:
        self.by_context: dict[Any, tuple[Any, Any]] = {}


class Checked:
    """The kernels of this module for one provider (see the module docstring)."""

    def __init__(self, pt: Any, coerced_usm_type: Any) -> None:
        self._pt = pt
        self._coerced = coerced_usm_type
        self._launchers: dict[tuple, Any] = {}
        self._lock = threading.Lock()
        self._opencl: dict[Any, bool] = {}
        self._flags = _Flags()

    # ---- plumbing -------------------------------------------------------------------------
    def _usable(self, q: dpctl.SyclQueue) -> bool:
        d = q.sycl_device
        ok = self._opencl.get(d)
        if ok is None:
            ok = self._opencl[d] = program.unsupported(q) is None
        return ok

    def _launcher(self, q: dpctl.SyclQueue, kind: str, **types: str) -> Any:
        key = (program.program_key(q), kind, tuple(types.items()))
        f = self._launchers.get(key)
        if f is None:
            with self._lock:
                f = self._launchers.get(key)
                if f is None:
                    kernel = program.compile(q, _source(kind, **types), "k")
                    f = self._launchers[key] = program.launcher(kernel, (), 0, False, True)
        return f

    def _flag(self, q: dpctl.SyclQueue) -> tuple[Any, Any]:
        ctx = q.sycl_context
        f = self._flags.by_context.get(ctx)
        if f is None:
            mem = dpmem.MemoryUSMShared(4, queue=q)
            f = self._flags.by_context[ctx] = (mem, np.frombuffer(mem, np.int32))
        return f

    def _run(self, q: dpctl.SyclQueue, launcher: Any, args: list, total: int,
             flag: tuple[Any, Any]) -> bool:
        view = flag[1]
        view[0] = 0
        # a launch that depends on unfinished work waits for it more slowly than the
        # queue's own wait (measured: 3.5 ms more behind a 19 ms argmax on 2 cores)
        q.wait()
        launcher.submit(q, args, (total,))
        return bool(view[0])

    # ---- kernels --------------------------------------------------------------------------
    def take_checked(self, a: Any, i: Any, axis: int) -> tuple[Any, int | None] | None:
        """``(result, None)``, or ``(result, bad)`` with ``bad`` an index outside
        ``[-n, n)`` (the largest such, else the smallest, as a check before the gather
        would name); None where the kernel does not take the operands."""
        q = a.sycl_queue
        it = _SIGNED.get(i.dtype)
        t = _BITS.get(a.itemsize)
        if (it is None or t is None or i.ndim != 1 or not a.size or not i.size
                or not a.flags.c_contiguous or not self._usable(q)):
            return None
        sh = a.shape
        n, k = sh[axis], i.shape[0]
        outer, inner = math.prod(sh[:axis]), math.prod(sh[axis + 1:])
        total = outer * k * inner
        if total >= PIECE:
            return None
        pt = self._pt
        usm = self._coerced([a.usm_type, i.usm_type])
        out = pt.empty(sh[:axis] + (k,) + sh[axis + 1:], dtype=a.dtype, usm_type=usm,
                       sycl_queue=q)
        flag = self._flag(q)
        args = [a.usm_data, _L(a._element_offset), i.usm_data, _L(i._element_offset),
                _L(i.strides[0]), out.usm_data, flag[0], _L(outer), _L(n), _L(k),
                _L(inner)]
        if not self._run(q, self._launcher(q, "take", T=t, I=it), args, total, flag):
            return out, None
        lo, hi = int(pt.min(i)), int(pt.max(i))
        return out, hi if hi >= n else lo

    def out_of_range(self, i: Any, n: int) -> bool | None:
        """Whether an element of the integer array ``i`` lies outside ``[-n, n)``; None
        where the kernel does not take ``i``."""
        q = i.sycl_queue
        it = _SIGNED.get(i.dtype)
        if it is None or not i.size or i.size >= PIECE or not self._usable(q):
            return None
        geo = _geometry(i.shape, i.strides)
        if geo is None:
            return None
        flag = self._flag(q)
        args = [i.usm_data, _L(i._element_offset), _L(n), flag[0], *geo[1]]
        f = self._launcher(q, "out_of_range", I=it, ND=str(geo[0]))
        return self._run(q, f, args, i.size, flag)

    def nan_at(self, a: Any, axis: int, picked: Any) -> bool | None:
        """Whether ``a`` (floating) is NaN at any position that ``picked`` (the int64
        result of ``argmax``/``argmin`` of ``a`` along ``axis``, with or without the kept
        axis) names; None where the kernel does not take the operands."""
        q = a.sycl_queue
        bits = _NAN_BITS.get(a.dtype)
        if (bits is None or picked.dtype != np.int64 or not picked.flags.c_contiguous
                or not picked.size or picked.size >= PIECE or not self._usable(q)):
            return None
        shape = a.shape[:axis] + a.shape[axis + 1:]
        strides = a.strides[:axis] + a.strides[axis + 1:]
        geo = _geometry(shape, strides)
        if geo is None:
            return None
        flag = self._flag(q)
        args = [a.usm_data, _L(a._element_offset), picked.usm_data,
                _L(picked._element_offset), _L(a.strides[axis]), flag[0], *geo[1]]
        f = self._launcher(q, "nan_at", T=bits[0], MAG=bits[1], INF=bits[2], ND=str(geo[0]))
        return self._run(q, f, args, picked.size, flag)


__all__ = ["Checked"]
