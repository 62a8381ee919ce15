"""Cumulative sums and products along the last axis of C-contiguous CUDA arrays.

The array is viewed as (rows, R), the scan running along R.  A block scans 1024
elements at a time (four consecutive elements a thread, a warp scan by shuffles, then
a scan of the eight warp totals) and carries the running total to the next 1024.

* Many rows (or short ones): one block a row, one pass (read once, write once).
* Few long rows: the row is cut into tiles of :data:`TILE` elements; one launch sums
  each tile, one scans the tile sums of each row into tile offsets (the one-block-a-row
  kernel with a leading identity), and one scans each tile from its offset, the last
  tile first: blocks start in about the order of their index, so the tiles the sums
  pass read last, still in L2, are read again first.  (A single pass with decoupled
  look-back measured slower, docs/performance.md: with tiles of 8192 the inclusive
  prefixes advance 32 tiles a round trip of the look-back, slower than the tiles
  finish.)

``include_initial`` writes the identity first and the scan after it, in the same
launches.  Results follow the namespace: the result dtype is the one the namespace
asks for (at least 4 bytes here; smaller ones go to the fallback), accumulation is in
that dtype, and floats are summed in a tree order within 1024 elements (as CuPy's
and PyTorch's scans, not NumPy's left-to-right order).
"""

from __future__ import annotations

from typing import Any

import cupy
import numpy as np

from ._launch import Family, launch, sm_count, stream_ptr
from .c_types import CTYPES

_nd = cupy.ndarray
TILE = 8192
#: result dtypes the kernels produce (a shuffle moves 4 or 8 bytes)
_OUT: frozenset[np.dtype] = frozenset(np.dtype(c) for c in "iIqQfd")
_IN: frozenset[np.dtype] = frozenset(d for d in CTYPES)
_OPS = {"cumulative_sum": ("a + b", "0"), "cumulative_prod": ("a * b", "1")}

#: how an element ``x[j]`` enters a scan, and what the scan stores for it (``r``: the
#: inclusive result at ``j``); ``Emit`` carries what a store needs beyond ``y``
SCAN_STORE = {"load": "(O)x[j]", "store": "y[j] = r;", "emit": "struct Emit {};"}

_COMMON = r"""
typedef {t} T; typedef {o} O;
#define IDENT ((O){ident})
__device__ __forceinline__ O op(const O a, const O b) {{ return {expr}; }}
{emit}

// scan x[lo, hi) after carry, storing each result; returns carry combined with their total
__device__ __forceinline__ O sub(const T* __restrict__ x, O* __restrict__ y,
                                 const long long lo, const long long hi, const O carry,
                                 O* wt, const Emit& em) {{
  const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5;
  const long long base = lo + 4LL * tid;
  O v[4];
  #pragma unroll
  for (int k = 0; k < 4; k++) {{ const long long j = base + k; v[k] = j < hi ? {load} : IDENT; }}
  v[1] = op(v[0], v[1]); v[2] = op(v[1], v[2]); v[3] = op(v[2], v[3]);
  O t = v[3];
  #pragma unroll
  for (int o = 1; o < 32; o <<= 1) {{
    const O n = __shfl_up_sync(0xffffffffu, t, o);
    if (lane >= o) t = op(n, t);
  }}
  if (lane == 31) wt[w] = t;
  __syncthreads();
  if (w == 0) {{
    O s = lane < 8 ? wt[lane] : IDENT;
    #pragma unroll
    for (int o = 1; o < 8; o <<= 1) {{
      const O n = __shfl_up_sync(0xffffffffu, s, o);
      if (lane >= o) s = op(n, s);
    }}
    if (lane < 8) wt[lane] = s;
  }}
  __syncthreads();
  O ex = __shfl_up_sync(0xffffffffu, t, 1);
  if (lane == 0) ex = IDENT;
  O pre = op(carry, w > 0 ? op(wt[w - 1], ex) : ex);
  #pragma unroll
  for (int k = 0; k < 4; k++) {{
    const long long j = base + k;
    if (j < hi) {{ const O r = op(pre, v[k]); {store} }}
  }}
  const O total = op(carry, wt[7]);
  __syncthreads();
  return total;
}}
"""

ROWS_SOURCE = r"""
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ x, O* __restrict__ y,
    const long long rows, const long long R, const long long yR, const long long off) {
  __shared__ O wt[8];
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * R;
    O* yr = y + row * yR + off;
    if (off && threadIdx.x == 0) yr[-1] = IDENT;
    O carry = IDENT;
    for (long long lo = 0; lo < R; lo += 1024)
      carry = sub(xr, yr, lo, R < lo + 1024 ? R : lo + 1024, carry, wt, Emit());
  }
}
"""

_TILE_SUMS = r"""
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ x, O* __restrict__ s,
    const long long R, const long long tile) {
  __shared__ O wt[8];
  const long long row = blockIdx.y, t = blockIdx.x;
  const long long lo = t * tile, hi = R < lo + tile ? R : lo + tile;
  const T* xr = x + row * R;
  O a = IDENT;
  long long j = lo + threadIdx.x;
  for (; j + 768 < hi; j += 1024)
    a = op(a, op(op((O)xr[j], (O)xr[j + 256]), op((O)xr[j + 512], (O)xr[j + 768])));
  for (; j < hi; j += 256) a = op(a, (O)xr[j]);
  for (int o = 16; o > 0; o >>= 1) a = op(a, __shfl_down_sync(0xffffffffu, a, o));
  if ((threadIdx.x & 31) == 0) wt[threadIdx.x >> 5] = a;
  __syncthreads();
  if (threadIdx.x == 0) {
    O r = wt[0];
    for (int i = 1; i < 8; i++) r = op(r, wt[i]);
    s[row * gridDim.x + t] = r;
  }
}
"""

_TILE_SCAN = r"""
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ x, O* __restrict__ y,
    const O* __restrict__ offs, const long long R, const long long yR, const long long off,
    const long long tile) {
  __shared__ O wt[8];
  const long long row = blockIdx.y, t = gridDim.x - 1 - blockIdx.x;
  const long long lo = t * tile, hi = R < lo + tile ? R : lo + tile;
  const T* xr = x + row * R;
  O* yr = y + row * yR + off;
  if (off && t == 0 && threadIdx.x == 0) yr[-1] = IDENT;
  O carry = offs[row * (gridDim.x + 1) + t];
  for (long long a = lo; a < hi; a += 1024)
    carry = sub(xr, yr, a, hi < a + 1024 ? hi : a + 1024, carry, wt, Emit());
}
"""


def common(t: np.dtype, o: np.dtype, expr: str, ident: str, store: dict[str, str]) -> str:
    """The block scan ``sub`` over elements of ``t`` into ``o`` with ``op`` = ``expr``
    (identity ``ident``) and the load/store/emit parts of ``store`` (see SCAN_STORE)."""
    return _COMMON.format(t=CTYPES[t], o=CTYPES[o], ident=ident, expr=expr, **store)


class Scans(Family):
    """``cumulative_sum``/``cumulative_prod`` along the last axis of a C-contiguous
    array of plain device memory (other layouts, axes and dtypes: the fallback)."""

    def _function(self, name: str, kind: str, t: np.dtype, o: np.dtype) -> Any:
        expr, ident = _OPS[name]
        body = {"rows": ROWS_SOURCE, "sums": _TILE_SUMS, "tiles": _TILE_SCAN}[kind]
        return self._cached((name, kind, t, o), lambda: common(
            t, o, expr, ident, SCAN_STORE) + body)

    def _many(self) -> int:
        return 2 * sm_count()

    def scan(self, name: str, a: Any, o: np.dtype, include_initial: bool) -> Any:
        """``name`` of ``a`` along its last axis into a new array of dtype ``o``."""
        R = a.shape[-1]
        rows = a.size // R
        off = 1 if include_initial else 0
        yR = R + off
        out = _nd(a.shape[:-1] + (yR,), o)
        s = stream_ptr()
        t = a.dtype
        if rows >= self._many() or R <= TILE:
            launch(self._function(name, "rows", t, o), (min(rows, 1 << 20), 1, 1), (256, 1, 1),
                   "QQqqqq", a.data.ptr, out.data.ptr, rows, R, yR, off, stream=s)
            return out
        ntiles = -(-R // TILE)
        sums = _nd((rows, ntiles), o)
        offs = _nd((rows, ntiles + 1), o)
        launch(self._function(name, "sums", t, o), (ntiles, rows, 1), (256, 1, 1), "QQqq",
               a.data.ptr, sums.data.ptr, R, TILE, stream=s)
        launch(self._function(name, "rows", o, o), (min(rows, 1 << 20), 1, 1), (256, 1, 1),
               "QQqqqq", sums.data.ptr, offs.data.ptr, rows, ntiles, ntiles + 1, 1, stream=s)
        launch(self._function(name, "tiles", t, o), (ntiles, rows, 1), (256, 1, 1), "QQQqqqq",
               a.data.ptr, out.data.ptr, offs.data.ptr, R, yR, off, TILE, stream=s)
        return out

    def wrap(self, name: str, fallback: Any) -> Any:
        is_fast = self._is_fast

        def kernel(a: Any, axis: Any = None, dtype: Any = None, include_initial: bool = False) -> Any:
            if (a.__class__ is _nd and dtype is not None and a.ndim
                    and a._c_contiguous and a.size and a.dtype in _IN
                    and (axis is None or axis % a.ndim == a.ndim - 1) and is_fast(a)
                    and a.size < 2**62 // 8 and a.shape[-1] < 65535 * TILE):
                o = np.dtype(dtype)
                if o in _OUT:
                    return self.scan(name, a, o, bool(include_initial))
            return fallback(a, axis=axis, dtype=dtype, include_initial=include_initial)

        kernel.__name__ = name
        return kernel


__all__ = ["ROWS_SOURCE", "SCAN_STORE", "TILE", "Scans", "common"]
