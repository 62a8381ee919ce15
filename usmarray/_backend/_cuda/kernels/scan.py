"""Cumulative sums and products along the last axis of C-contiguous CUDA arrays.

The array is viewed as (rows, R), the scan running along R.  A block scans 1024
elements at a time (four consecutive elements a thread, a warp scan by shuffles, then
a scan of the eight warp totals) and carries the running total to the next 1024.

* Many rows (or short ones): one block a row, one pass (read once, write once).
* Few long rows: one pass, read once and written once (the single-pass scan with
  decoupled look-back of Merrill and Garland, 2016).  The rows are cut into tiles of
  :data:`TILE` elements, numbered in the order the blocks start (an atomic counter, so a
  tile waits only on tiles whose blocks already run).  A block sums its tile and
  publishes the sum; one warp then reads the states of the 32 nearest earlier tiles of
  its row at once, folding their sums back to the nearest one that published its
  inclusive prefix; the block publishes its own inclusive prefix and scans its tile (read
  again, from L2) from the exclusive one.

``include_initial`` writes the identity first and the scan after it, in the same
launches.  Results follow the namespace: the result dtype is the one the namespace
asks for (at least 4 bytes here; smaller ones go to the fallback), accumulation is in
that dtype, and floats are summed in a tree order within 1024 elements (as CuPy's
and PyTorch's scans, not NumPy's left-to-right order).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cupy
import numpy as np

from ..fast import _CTYPES
from ._launch import cached, launch, sm_count, stream_ptr

_nd = cupy.ndarray
_I32 = np.dtype(np.int32)
TILE = 8192
_SUB = 1024
#: result dtypes the kernels produce (a shuffle moves 4 or 8 bytes)
_OUT: frozenset[np.dtype] = frozenset(np.dtype(c) for c in "iIqQfd")
_IN: frozenset[np.dtype] = frozenset(d for d in _CTYPES)
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

_ROWS = r"""
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

_LOOKBACK = r"""
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ x, O* __restrict__ y,
    int* __restrict__ st, O* __restrict__ agg, O* __restrict__ inc, const long long R,
    const long long yR, const long long off, const long long tile, const long long ntiles) {
  __shared__ O wt[8];
  __shared__ long long sid;
  __shared__ O spre;
  if (threadIdx.x == 0) sid = atomicAdd(st, 1);
  __syncthreads();
  const long long id = sid, row = id / ntiles, t = id - row * ntiles;
  const long long lo = t * tile, hi = R < lo + tile ? R : lo + tile;
  const T* xr = x + row * R;
  O* yr = y + row * yR + off;
  O a = IDENT;
  long long j = lo + threadIdx.x;
  for (; j + 768 < hi; j += 1024)
    a = op(a, op(op((O)xr[j], (O)xr[j + 256]), op((O)xr[j + 512], (O)xr[j + 768])));
  for (; j < hi; j += 256) a = op(a, (O)xr[j]);
  for (int o = 16; o > 0; o >>= 1) a = op(a, __shfl_down_sync(0xffffffffu, a, o));
  if ((threadIdx.x & 31) == 0) wt[threadIdx.x >> 5] = a;
  __syncthreads();
  if (threadIdx.x < 32) {
    const int lane = threadIdx.x;
    volatile int* flag = st + 1 + row * ntiles;
    volatile O* va = agg + row * ntiles;
    volatile O* vi = inc + row * ntiles;
    O total = wt[0];
    for (int i = 1; i < 8; i++) total = op(total, wt[i]);
    if (lane == 0) {
      if (t == 0) { vi[0] = total; } else { va[t] = total; }
      __threadfence();
      flag[t] = t == 0 ? 2 : 1;
    }
    // decoupled look-back: the warp reads the 32 nearest earlier tiles' states at once,
    // folds aggregates up to the nearest inclusive prefix, and steps back 32 if none
    O ex = IDENT;
    for (long long p = t - 1; p >= 0; p -= 32) {
      const long long q = p - lane;
      int f;
      do { f = q >= 0 ? flag[q] : 2; } while (__any_sync(0xffffffffu, f == 0));
      __threadfence();
      const unsigned m = __ballot_sync(0xffffffffu, f == 2);
      const int stop = m ? __ffs(m) - 1 : 31;
      O w = (lane <= stop && q >= 0) ? (f == 2 ? vi[q] : va[q]) : IDENT;
      for (int o = 16; o > 0; o >>= 1) w = op(w, __shfl_down_sync(0xffffffffu, w, o));
      ex = op(__shfl_sync(0xffffffffu, w, 0), ex);
      if (m) break;
    }
    if (lane == 0) {
      if (t > 0) { vi[t] = op(ex, total); __threadfence(); flag[t] = 2; }
      spre = ex;
    }
  }
  __syncthreads();
  if (off && t == 0 && threadIdx.x == 0) yr[-1] = IDENT;
  O carry = spre;
  for (long long b = lo; b < hi; b += 1024)
    carry = sub(xr, yr, b, hi < b + 1024 ? hi : b + 1024, carry, wt, Emit());
}
"""


def common(t: np.dtype, o: np.dtype, expr: str, ident: str, store: dict[str, str]) -> str:
    """The block scan ``sub`` over elements of ``t`` into ``o`` with ``op`` = ``expr``
    (identity ``ident``) and the load/store/emit parts of ``store`` (see SCAN_STORE)."""
    return _COMMON.format(t=_CTYPES[t], o=_CTYPES[o], ident=ident, expr=expr, **store)


ROWS_SOURCE = _ROWS


class Scans:
    """``cumulative_sum``/``cumulative_prod`` along the last axis of a C-contiguous
    array of plain device memory (other layouts, axes and dtypes: the fallback)."""

    def __init__(self, is_fast: Callable[[Any], bool], single_gpu: bool) -> None:
        self._is_fast = is_fast
        self._multi = not single_gpu
        self._fns: dict[tuple, Any] = {}
        self.enabled = True

    def _function(self, name: str, kind: str, t: np.dtype, o: np.dtype) -> Any:
        expr, ident = _OPS[name]
        body = {"rows": _ROWS, "lookback": _LOOKBACK}[kind]
        return cached(self._fns, (name, kind, t, o), self._multi, lambda: common(
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
        total = rows * ntiles
        st = _nd((1 + total,), _I32)
        st.data.memset_async(0, st.nbytes)
        vals = _nd((2, total), o)
        launch(self._function(name, "lookback", t, o), (total, 1, 1), (256, 1, 1), "QQQQQqqqqq",
               a.data.ptr, out.data.ptr, st.data.ptr, vals.data.ptr, vals.data.ptr + total * o.itemsize,
               R, yR, off, TILE, ntiles, stream=s)
        return out

    def wrap(self, name: str, fallback: Any) -> Any:
        is_fast = self._is_fast

        def kernel(a: Any, axis: Any = None, dtype: Any = None, include_initial: bool = False) -> Any:
            if (a.__class__ is _nd and self.enabled and dtype is not None and a.ndim
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
