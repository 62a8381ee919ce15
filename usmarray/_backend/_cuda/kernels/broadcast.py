"""Binary operations of a C-contiguous array with a C-contiguous one that broadcasts
along its leading axes: ``X - mean``, ``X / scale``, ``X + bias`` for a row vector
(either side of the operator), in one launch and without a broadcast copy.

The large operand is viewed as (rows, m), the small one as (m,); grid row ``y`` takes
rows, threads take four neighbouring columns (16-byte loads where ``m`` and both
pointers allow), so no element index is ever divided.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cupy
import numpy as np

from ..fast import _CTYPES
from ._launch import cached, launch, stream_ptr

_nd = cupy.ndarray

_SOURCE = r"""
typedef {t} T;
struct __align__({al}) V {{ T v[4]; }};
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ big,
    const T* __restrict__ small, T* __restrict__ out, const long long rows, const long long m) {{
  const long long step = (long long)gridDim.x * blockDim.x * 4;
  for (long long r = blockIdx.y; r < rows; r += gridDim.y) {{
    const T* __restrict__ br = big + r * m;
    T* __restrict__ orow = out + r * m;
    for (long long c = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * 4; c < m; c += step) {{
      if ({vec} && c + 4 <= m) {{
        const V bv = *reinterpret_cast<const V*>(br + c);
        const V sv = *reinterpret_cast<const V*>(small + c);
        V o;
        #pragma unroll
        for (int t = 0; t < 4; t++) {{ {load4} o.v[t] = (T)({expr}); }}
        *reinterpret_cast<V*>(orow + c) = o;
      }} else {{
        for (long long j = c; j < m && j < c + 4; j++) {{ {load1} orow[j] = (T)({expr}); }}
      }}
    }}
  }}
}}
"""


class RowBroadcast:
    """Binary kernels for (..., m) op (m,)-like operands (see the module docstring)."""

    def __init__(self, is_fast: Callable[[Any], bool], single_gpu: bool,
                 new_out: Callable[[tuple, np.dtype, int, int], Any]) -> None:
        self._is_fast = is_fast
        self._multi = not single_gpu
        self._new_out = new_out
        self._fns: dict[tuple, Any] = {}
        self.enabled = True

    def _function(self, expr: str, d: np.dtype, small_first: bool, vec: bool) -> Any:
        x, y = ("sv", "bv") if small_first else ("bv", "sv")
        xs, ys = ("small", "br") if small_first else ("br", "small")
        return cached(self._fns, (expr, d, small_first, vec), self._multi, lambda: _SOURCE.format(
            t=_CTYPES[d], al=min(16, 4 * d.itemsize), expr=expr, vec="true" if vec else "false",
            load4=f"const T x = {x}.v[t]; const T y = {y}.v[t];",
            load1=f"const T x = {xs}[j]; const T y = {ys}[j];"))

    def wrap(self, expr: str, dtypes: frozenset[np.dtype], fallback: Any) -> Any:
        """``fn(a, b)``: ``expr`` (in x, y) where one operand is C-contiguous and the other
        is a C-contiguous array of the same dtype whose shape, without leading ones, is
        the first one's trailing shape; else ``fallback(a, b)``."""
        is_fast = self._is_fast

        def trailing(big: Any, small: Any) -> bool:
            s = small.shape
            while s and s[0] == 1:
                s = s[1:]
            return bool(s) and len(s) < big.ndim and big.shape[big.ndim - len(s):] == s \
                and small.ndim <= big.ndim

        def fn(a: Any, b: Any) -> Any:
            if (a.__class__ is _nd and b.__class__ is _nd and self.enabled and a.dtype == b.dtype
                    and a.dtype in dtypes and a.shape != b.shape and a.size and b.size
                    and a._c_contiguous and b._c_contiguous):
                if a.size > b.size and trailing(a, b):
                    big, small, small_first = a, b, False
                elif b.size > a.size and trailing(b, a):
                    big, small, small_first = b, a, True
                else:
                    return fallback(a, b)
                if is_fast(big) and is_fast(small):
                    d = big.dtype
                    m = small.size
                    rows = big.size // m
                    al = min(16, 4 * d.itemsize)
                    vec = m % 4 == 0 and not big.data.ptr % al and not small.data.ptr % al
                    s = stream_ptr()
                    out = self._new_out(big.shape, d, big.size, s)
                    gx = max(1, min(-(-m // 1024), 1024))
                    gy = max(1, min(rows, 65535, -(-4096 // gx)))
                    launch(self._function(expr, d, small_first, vec), (gx, gy, 1), (256, 1, 1),
                           "QQQqq", big.data.ptr, small.data.ptr, out.data.ptr, rows, m, stream=s)
                    return out
            return fallback(a, b)

        return fn


__all__ = ["RowBroadcast"]
