"""Stream compaction: ``nonzero`` and boolean-mask selection ``x[mask]`` of C-contiguous
CUDA arrays, in three launches and one read-back of the count.

The flat input is cut into tiles of :data:`~.scan.TILE` elements: one launch counts
the nonzero elements of each tile, one scans the counts into each tile's first output
position (and the total, read back: the result's length depends on the data), and one
scans each tile's flags with the block scan of :mod:`.scan`, each nonzero element
writing its value (a mask) or its coordinates (``nonzero``: one row per axis) at its
position, in the input's order.  One-byte flags (bool masks, int8, uint8) take wider
kernels: sixteen flags a thread by one 16-byte load, counted a word at a time, and the
flagged positions of each 4096 staged in shared memory so that the writes of a warp
are consecutive.
"""

from __future__ import annotations

from typing import Any

import cupy
import numpy as np

from ._launch import WORDS, Family, grid_1d, launch, stream_ptr
from .c_types import CTYPES
from .scan import ROWS_SOURCE, SCAN_STORE, TILE, common

_nd = cupy.ndarray
_I64 = np.dtype(np.int64)
#: axes of the inputs ``nonzero`` takes (their lengths travel as kernel arguments)
MAX_NDIM = 6


def _coords(em: str, pos: str) -> str:
    """C statements writing the coordinates of the flat index ``j`` at output position
    ``pos``, axis d in row d of an (nd, count) result (one row: ``j`` itself); ``nd``,
    ``shape``, ``out`` and ``count`` are reached through the prefix ``em``."""
    return (f"if ({em}nd == 1) {{ {em}out[{pos}] = j; }} else {{ long long q = j;"
            f" for (long long d = {em}nd - 1; d >= 0; d--) {{"
            f" const long long m = {em}shape[d]; {em}out[d * {em}count + {pos}] = q % m;"
            " q /= m; } }")


_COUNT = r"""
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ x, O* __restrict__ s,
    const long long N, const long long tile) {
  __shared__ O wt[8];
  const long long lo = blockIdx.x * tile, hi = N < lo + tile ? N : lo + tile;
  O a = 0;
  for (long long j = lo + threadIdx.x; j < hi; j += 256) a += x[j] != 0;
  for (int o = 16; o > 0; o >>= 1) a += __shfl_down_sync(0xffffffffu, a, o);
  if ((threadIdx.x & 31) == 0) wt[threadIdx.x >> 5] = a;
  __syncthreads();
  if (threadIdx.x == 0) {
    O r = 0;
    for (int i = 0; i < 8; i++) r += wt[i];
    s[blockIdx.x] = r;
  }
}
"""

_WRITE = r"""
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ x,
    const V* __restrict__ src, V* __restrict__ out, const O* __restrict__ offs,
    const long long N, const long long tile, const long long count, const long long nd,
    const long long s0, const long long s1, const long long s2, const long long s3,
    const long long s4, const long long s5) {
  __shared__ O wt[8];
  Emit em; em.src = src; em.out = out; em.count = count; em.nd = nd;
  em.shape[0] = s0; em.shape[1] = s1; em.shape[2] = s2; em.shape[3] = s3; em.shape[4] = s4;
  em.shape[5] = s5;
  const long long lo = blockIdx.x * tile, hi = N < lo + tile ? N : lo + tile;
  O carry = offs[blockIdx.x];
  for (long long a = lo; a < hi; a += 1024)
    carry = sub(x, (O*)0, a, hi < a + 1024 ? hi : a + 1024, carry, wt, em);
}
"""

#: one-byte flags (bool, int8, uint8): 16 flags a thread by one 16-byte load where the
#: data is aligned, the nonzero bytes of a 4-byte word counted by one ``__popc``
_BYTES = r"""
__device__ __forceinline__ int nz4(const unsigned w) {
  return __popc((((w & 0x7F7F7F7Fu) + 0x7F7F7F7Fu) | w) & 0x80808080u);
}
// the 16 flags from j (those at or past hi read as 0) as four words
__device__ __forceinline__ void load16(const unsigned char* __restrict__ x, const long long j,
                                       const long long hi, unsigned w[4]) {
  if (j + 16 <= hi && !(((size_t)(x + j)) & 15)) {
    const uint4 v = *reinterpret_cast<const uint4*>(x + j);
    w[0] = v.x; w[1] = v.y; w[2] = v.z; w[3] = v.w;
  } else {
    #pragma unroll
    for (int q = 0; q < 4; q++) {
      unsigned u = 0;
      #pragma unroll
      for (int b = 0; b < 4; b++) {
        const long long i = j + 4 * q + b;
        if (i < hi && x[i]) u |= 1u << (8 * b);
      }
      w[q] = u;
    }
  }
}
"""

_COUNT_BYTES = r"""
extern "C" __global__ void __launch_bounds__(256) k(const unsigned char* __restrict__ x,
    long long* __restrict__ s, const long long N, const long long tile) {
  __shared__ int wt[8];
  const long long lo = blockIdx.x * tile, hi = N < lo + tile ? N : lo + tile;
  int a = 0;
  for (long long j = lo + 16 * threadIdx.x; j < hi; j += 4096) {
    unsigned w[4];
    load16(x, j, hi, w);
    a += nz4(w[0]) + nz4(w[1]) + nz4(w[2]) + nz4(w[3]);
  }
  for (int o = 16; o > 0; o >>= 1) a += __shfl_down_sync(0xffffffffu, a, o);
  if ((threadIdx.x & 31) == 0) wt[threadIdx.x >> 5] = a;
  __syncthreads();
  if (threadIdx.x == 0) {
    long long r = 0;
    for (int i = 0; i < 8; i++) r += wt[i];
    s[blockIdx.x] = r;
  }
}
"""

#: the write pass of one-byte flags: 4096 flags a step, each thread's 16 counted, a
#: block scan of the counts, the flagged positions staged in shared memory in order,
#: then written out (``EMIT(pos, j)``) by consecutive threads
_WRITE_BYTES = r"""
extern "C" __global__ void __launch_bounds__(256) k(const unsigned char* __restrict__ x,
    const V* __restrict__ src, V* __restrict__ out, const long long* __restrict__ offs,
    const long long N, const long long tile, const long long count, const long long nd,
    const long long s0, const long long s1, const long long s2, const long long s3,
    const long long s4, const long long s5) {
  __shared__ long long buf[4096];
  __shared__ int wt[8];
  const long long shape[MAX_NDIM] = {s0, s1, s2, s3, s4, s5};
  const int tid = threadIdx.x, lane = tid & 31, wp = tid >> 5;
  const long long lo = blockIdx.x * tile, hi = N < lo + tile ? N : lo + tile;
  long long base = offs[blockIdx.x];
  for (long long a = lo; a < hi; a += 4096) {
    const long long j0 = a + 16 * tid;
    unsigned w[4];
    load16(x, j0, hi, w);
    const int c = nz4(w[0]) + nz4(w[1]) + nz4(w[2]) + nz4(w[3]);
    int incl = c;
    #pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const int n = __shfl_up_sync(0xffffffffu, incl, o);
      if (lane >= o) incl += n;
    }
    if (lane == 31) wt[wp] = incl;
    __syncthreads();
    int before = 0, step = 0;
    #pragma unroll
    for (int i = 0; i < 8; i++) { const int v = wt[i]; before += i < wp ? v : 0; step += v; }
    int pos = before + incl - c;
    #pragma unroll
    for (int b = 0; b < 16; b++)
      if ((w[b >> 2] >> (8 * (b & 3))) & 0xFFu) buf[pos++] = j0 + b;
    __syncthreads();
    for (int i = tid; i < step; i += 256) {
      const long long j = buf[i], r = base + i;
      EMIT
    }
    base += step;
    __syncthreads();
  }
}
"""

#: the ``EMIT`` of the write pass of one-byte flags: values, or coordinates
_EMIT_VALUES = "out[r] = src[j]; (void)shape;"
_EMIT_COORDS = _coords("", "r")
_ONE_BYTE: frozenset[np.dtype] = frozenset(np.dtype(c) for c in "?bB")


#: values of the mask's array at the flagged positions
_VALUES = {
    "load": "(O)(x[j] != 0)",
    "store": "if (x[j] != 0) em.out[r - 1] = em.src[j];",
    "emit": ("struct Emit { const V* src; V* out; long long count; long long nd;"
             " long long shape[MAX_NDIM]; };"),
}
#: coordinates of the flagged positions, axis d in row d of a (nd, count) result
_COORDS = {**_VALUES, "store": "if (x[j] != 0) { " + _coords("em.", "r - 1") + " }"}


#: whole rows gathered by their flat row positions (``x[mask]`` with a mask of rows)
_ROWS = r"""
typedef {t} T;
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ x,
    const long long* __restrict__ rows, T* __restrict__ out, const long long total,
    const long long inner) {{
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += step) {{
    const long long r = e / inner;
    out[e] = x[rows[r] * inner + (e - r * inner)];
  }}
}}
"""


class Compactions(Family):
    """``nonzero`` and ``x[mask]`` (see the module docstring) for C-contiguous operands
    of plain device memory; other operands go to the fallbacks."""

    def _function(self, kind: str, t: np.dtype, v: np.dtype) -> Any:
        def source() -> str:
            vdef = f"typedef {CTYPES[v]} V;\n#define MAX_NDIM {MAX_NDIM}\n"
            if kind == "count1":
                return _BYTES + _COUNT_BYTES
            if kind in ("values1", "coords1"):
                emit = _EMIT_VALUES if kind == "values1" else _EMIT_COORDS
                return vdef + _BYTES + _WRITE_BYTES.replace("EMIT", emit)
            if kind == "count":
                return common(t, _I64, "a + b", "0", SCAN_STORE) + _COUNT
            if kind == "offsets":
                return common(_I64, _I64, "a + b", "0", SCAN_STORE) + ROWS_SOURCE
            store = _VALUES if kind == "values" else _COORDS
            return vdef + common(t, _I64, "a + b", "0", store) + _WRITE

        return self._cached((kind, t, v), source)

    def _compact(self, kind: str, x: Any, src: Any, d: np.dtype, lead: tuple = ()) -> Any:
        """The values of ``src`` (``kind`` "values") or the coordinates ("coords") of the
        nonzero elements of the C-contiguous ``x``, in order: a new array of dtype ``d``
        and shape ``(*lead, count)``; reads the count back (a synchronization)."""
        n = x.size
        ntiles = -(-n // TILE)
        counts = _nd((ntiles,), _I64)
        offs = _nd((ntiles + 1,), _I64)
        s = stream_ptr()
        one_byte = x.dtype in _ONE_BYTE
        launch(self._function("count1" if one_byte else "count", x.dtype, _I64),
               (ntiles, 1, 1), (256, 1, 1), "QQqq", x.data.ptr, counts.data.ptr, n, TILE,
               stream=s)
        launch(self._function("offsets", _I64, _I64), (1, 1, 1), (256, 1, 1), "QQqqqq",
               counts.data.ptr, offs.data.ptr, 1, ntiles, ntiles + 1, 1, stream=s)
        count = int(offs[ntiles].get())
        out = _nd((*lead, count), d)
        if count:
            src = out if src is None else src
            dims = (*x.shape, *(1,) * (MAX_NDIM - x.ndim))
            launch(self._function(kind + "1" if one_byte else kind, x.dtype, src.dtype),
                   (ntiles, 1, 1), (256, 1, 1), "QQQQqqqq" + "q" * MAX_NDIM, x.data.ptr,
                   src.data.ptr, out.data.ptr, offs.data.ptr, n, TILE, count, x.ndim, *dims,
                   stream=s)
        return out

    def _takes(self, x: Any) -> bool:
        return (x.__class__ is _nd and x.size > 0 and x._c_contiguous
                and x.dtype in CTYPES and self._is_fast(x))

    def wrap_nonzero(self, fallback: Any) -> Any:
        def nonzero(a: Any) -> tuple[Any, ...]:
            if self._takes(a) and 0 < a.ndim <= MAX_NDIM:
                out = self._compact("coords", a, None, _I64, (a.ndim,))
                return tuple(out[d] for d in range(a.ndim))
            return fallback(a)

        return nonzero

    def masked(self, x: Any, mask: Any) -> Any | None:
        """``x[mask]`` for a bool ``mask`` of ``x``'s shape, or of its leading axes (rows
        selected: ``X[y == k]``), both C-contiguous: the selected values (rows) in C
        order; None where the kernels do not take the operands."""
        if not (self._takes(x) and self._takes(mask) and mask.dtype == np.bool_
                and 0 < mask.ndim <= x.ndim and x.ndim <= MAX_NDIM
                and mask.shape == x.shape[:mask.ndim]):
            return None
        if mask.ndim < x.ndim:
            return self._rows(x, mask)
        return self._compact("values", mask, x, x.dtype)

    def _rows(self, x: Any, mask: Any) -> Any:
        """``x[mask]`` for a mask of ``x``'s leading axes: the flat positions of the
        selected rows (as ``nonzero`` of the flat mask), then one gather of whole rows."""
        rows = self.positions(mask.reshape(mask.size))
        out = _nd((rows.size, *x.shape[mask.ndim:]), x.dtype)
        if out.size:  # empty only where no row is selected (x is not empty)
            word = x.dtype.itemsize
            f = self._cached(("rows", word), lambda: _ROWS.format(t=WORDS[word]))
            launch(f, grid_1d(out.size), (256, 1, 1), "QQQqq", x.data.ptr, rows.data.ptr,
                   out.data.ptr, out.size, out.size // rows.size, stream=stream_ptr())
        return out

    def positions(self, flags: Any) -> Any:
        """The positions of the nonzero elements of the 1-D C-contiguous ``flags``, in
        order (int64, on the current device and stream); one read-back of the count."""
        return self._compact("coords", flags, None, _I64)


__all__ = ["Compactions"]
