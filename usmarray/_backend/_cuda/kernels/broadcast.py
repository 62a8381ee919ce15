"""Broadcasting and replication of C-contiguous CUDA arrays, one launch each.

* Binary operations of a C-contiguous array with a C-contiguous one that broadcasts
  along its leading axes: ``X - mean``, ``X / scale``, ``X + bias`` for a row vector
  (either side of the operator), or along its last axis (a (..., 1) column, such as a
  ``keepdims`` reduction over the last axis), without a broadcast copy.  The large operand is
  viewed as (rows, m), the small one as (m,); grid row ``y`` takes rows, threads take
  four neighbouring columns (16-byte loads where ``m`` and both pointers allow), so no
  element index is ever divided.
* Copies of a broadcast view whose leading axes have stride 0 over a C-contiguous
  tail, and ``tile`` of a C-contiguous array along one axis with only length-1 axes
  before it: both are ``rows`` copies of one block of ``m`` elements.
* ``repeat`` of each element of a C-contiguous array ``r`` times along an axis, as
  (outer, n, inner) -> (outer, n * r, inner).
* ``where(c, x, y)`` whose C-contiguous operands each have the result's shape, or
  broadcast to it as a row vector (m,), a column (..., 1) or one element, with the
  result viewed as (rows, m) as above: ``where(mask, X, 0.0)``, ``where(X > t, X, row)``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import cupy
import numpy as np

from ..._layout import broadcast_shape
from ..fast import _CTYPES
from ._launch import WORDS, cached, grid_1d, launch, stream_ptr

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
        {small_vec}
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


_ROWS_OF = r"""
typedef {t} T;
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ src,
    T* __restrict__ out, const long long rows, const long long m) {{
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long r = blockIdx.y; r < rows; r += gridDim.y) {{
    T* __restrict__ orow = out + r * m;
    for (long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x; c < m; c += step)
      orow[c] = src[c];
  }}
}}
"""

_REPEAT = r"""
typedef {t} T;
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ src,
    T* __restrict__ out, const long long total, const long long inner, const long long reps) {{
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += step) {{
    long long s;
    if (inner == 1) {{
      s = e / reps;
    }} else {{
      const long long row = e / inner;
      s = (row / reps) * inner + (e - row * inner);
    }}
    out[e] = src[s];
  }}
}}
"""

_ROLL = r"""
typedef {t} T;
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ src,
    T* __restrict__ out, const long long total, const long long n, const long long inner,
    const long long s) {{
  const long long step = (long long)gridDim.x * blockDim.x;
  const long long block = n * inner;
  const long long moved = s * inner;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += step) {{
    long long d;
    if (block == total) {{
      d = e + moved;
      if (d >= total) d -= total;
    }} else {{
      const long long o = e / block;
      const long long r = e - o * block + moved;
      d = o * block + (r >= block ? r - block : r);
    }}
    out[d] = src[e];
  }}
}}
"""

#: where(c, x, y) over (rows, m); each operand's loads come from :data:`_WHERE_LOADS`
_WHERE = r"""
typedef {t} T;
struct __align__({al}) V {{ T v[4]; }};
struct __align__(4) C4 {{ bool v[4]; }};
extern "C" __global__ void __launch_bounds__(256) k(const bool* __restrict__ c,
    const T* __restrict__ x, const T* __restrict__ y, T* __restrict__ out,
    const long long rows, const long long m) {{
  const long long step = (long long)gridDim.x * blockDim.x * 4;
  for (long long r = blockIdx.y; r < rows; r += gridDim.y) {{
    T* __restrict__ orow = out + r * m;
    for (long long j = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * 4; j < m; j += step) {{
      if ({vec} && j + 4 <= m) {{
        {cv} {xv} {yv}
        V o;
        #pragma unroll
        for (int t = 0; t < 4; t++) o.v[t] = {c4} ? {x4} : {y4};
        *reinterpret_cast<V*>(orow + j) = o;
      }} else {{
        for (long long i = j; i < m && i < j + 4; i++) orow[i] = {c1} ? {x1} : {y1};
      }}
    }}
  }}
}}
"""
#: operand kind -> (vector load, element t of it, element i), for operand ``p`` of
#: vector type ``W``: the result's shape, a row vector, one value a row, one value
_WHERE_LOADS = {
    "full": ("const W pv = *reinterpret_cast<const W*>(p + r * m + j);", "pv.v[t]",
             "p[r * m + i]"),
    "row": ("const W pv = *reinterpret_cast<const W*>(p + j);", "pv.v[t]", "p[i]"),
    "col": ("const auto ps = p[r];", "ps", "p[r]"),
    "one": ("const auto ps = p[0];", "ps", "p[0]"),
}


def _where_source(d: np.dtype, kinds: tuple[str, str, str], vec: bool) -> str:
    parts: dict[str, str] = {}
    for name, kind, w in zip("cxy", kinds, ("C4", "V", "V"), strict=True):
        v, e4, e1 = (t.replace("pv", f"{name}v").replace("ps", f"{name}s")
                     .replace("p[", f"{name}[").replace("p +", f"{name} +")
                     .replace("W", w) for t in _WHERE_LOADS[kind])
        parts[f"{name}v"], parts[f"{name}4"], parts[f"{name}1"] = v, e4, e1
    return _WHERE.format(t=_CTYPES[d], al=min(16, 4 * d.itemsize),
                         vec="true" if vec else "false", **parts)


def _where_kind(s: tuple[int, ...], shape: tuple[int, ...]) -> str | None:
    """How an operand of shape ``s`` broadcasts to ``shape`` in a (rows, m) view:
    "full", "row" (m,), "col" (..., 1), "one" (one element), else None."""
    if s == shape:
        return "full"
    t = s
    while t and t[0] == 1:
        t = t[1:]
    if not t:
        return "one"
    if t == shape[-1:]:
        return "row"
    if len(s) == len(shape) and s[-1] == 1 and s[:-1] == shape[:-1]:
        return "col"
    return None


def _c_order(shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int) -> bool:
    """Whether ``shape``/``strides`` (bytes) lay elements out in C order, without gaps
    (length-1 axes may have any stride)."""
    want = itemsize
    for n, st in zip(reversed(shape), reversed(strides), strict=True):
        if n != 1 and st != want:
            return False
        want *= n
    return True


class RowBroadcast:
    """Binary kernels for (..., m) op (m,)-like operands (see the module docstring)."""

    def __init__(self, is_fast: Callable[[Any], bool], single_gpu: bool,
                 new_out: Callable[[tuple, np.dtype, int, int], Any],
                 readable: Callable[[Any], bool] | None = None) -> None:
        self._is_fast = is_fast
        #: what a kernel may read: is_fast, or also read-only views of such memory
        self._readable = readable or is_fast
        self._multi = not single_gpu
        self._new_out = new_out
        self._fns: dict[tuple, Any] = {}
        self.enabled = True

    def _function(self, expr: str, d: np.dtype, small_first: bool, vec: bool,
                  col: bool = False) -> Any:
        """The kernel of ``expr``; ``col``: the small operand holds one value a row
        (shape (..., 1)), else one a column (shape (m,))."""
        x, y = ("sv", "bv") if small_first else ("bv", "sv")
        one = "small[r]" if col else "small[j]"
        xs, ys = (one, "br[j]") if small_first else ("br[j]", one)
        small_vec = ("V sv; { const T s0 = small[r]; sv.v[0] = s0; sv.v[1] = s0; sv.v[2] = s0;"
                     " sv.v[3] = s0; }" if col
                     else "const V sv = *reinterpret_cast<const V*>(small + c);")
        return cached(self._fns, (expr, d, small_first, vec, col), self._multi,
                      lambda: _SOURCE.format(
                          t=_CTYPES[d], al=min(16, 4 * d.itemsize), expr=expr,
                          vec="true" if vec else "false", small_vec=small_vec,
                          load4=f"const T x = {x}.v[t]; const T y = {y}.v[t];",
                          load1=f"const T x = {xs}; const T y = {ys};"))

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

        def column(big: Any, small: Any) -> bool:
            return (small.ndim == big.ndim > 1 and small.shape[-1] == 1 < big.shape[-1]
                    and small.shape[:-1] == big.shape[:-1])

        def fn(a: Any, b: Any) -> Any:
            if (a.__class__ is _nd and b.__class__ is _nd and self.enabled and a.dtype == b.dtype
                    and a.dtype in dtypes and a.shape != b.shape and a.size and b.size
                    and a._c_contiguous and b._c_contiguous):
                col = False
                if a.size > b.size and trailing(a, b):
                    big, small, small_first = a, b, False
                elif b.size > a.size and trailing(b, a):
                    big, small, small_first = b, a, True
                elif a.size > b.size and column(a, b):
                    big, small, small_first, col = a, b, False, True
                elif b.size > a.size and column(b, a):
                    big, small, small_first, col = b, a, True, True
                else:
                    return fallback(a, b)
                if is_fast(big) and is_fast(small):
                    d = big.dtype
                    m = big.shape[-1] if col else small.size
                    rows = big.size // m
                    al = min(16, 4 * d.itemsize)
                    vec = (m % 4 == 0 and not big.data.ptr % al
                           and (col or not small.data.ptr % al))
                    s = stream_ptr()
                    out = self._new_out(big.shape, d, big.size, s)
                    gx = max(1, min(-(-m // 1024), 1024))
                    gy = max(1, min(rows, 65535, -(-4096 // gx)))
                    launch(self._function(expr, d, small_first, vec, col), (gx, gy, 1), (256, 1, 1),
                           "QQQqq", big.data.ptr, small.data.ptr, out.data.ptr, rows, m, stream=s)
                    return out
            return fallback(a, b)

        return fn

    # ---- replication ------------------------------------------------------------------
    def _rows_of(self, src_ptr: int, d: np.dtype, out: Any, rows: int, m: int) -> Any:
        """``out`` (C order, ``rows`` rows of ``m`` elements of dtype ``d``) filled with
        ``rows`` copies of the ``m`` elements at ``src_ptr``; moved in the widest words
        (up to 16 bytes) that divide a row and both addresses."""
        if not out.size:
            return out
        width = d.itemsize
        row_bytes = m * width
        for w in (16, 8, 4):
            if w > width and not row_bytes % w and not (src_ptr | out.data.ptr) % w:
                width, m = w, row_bytes // w
                break
        f = cached(self._fns, ("rows", width), self._multi,
                   lambda: _ROWS_OF.format(t=WORDS[width]))
        gx = max(1, min(-(-m // 256), 1024))
        gy = max(1, min(rows, 65535, -(-4096 // gx)))
        launch(f, (gx, gy, 1), (256, 1, 1), "QQqq", src_ptr, out.data.ptr, rows, m,
               stream=stream_ptr())
        return out

    def wrap_where(self, fallback: Any) -> Any:
        """``where(c, x, y)`` in one launch where ``c`` (bool) and ``x``, ``y`` (one dtype)
        are C-contiguous and each has the result's shape or broadcasts to it as a row
        vector, a column or one element (see the module docstring); else ``fallback``."""
        bool_ = np.dtype(np.bool_)
        readable = self._readable

        def where(c: Any, x: Any, y: Any) -> Any:
            if (c.__class__ is _nd and x.__class__ is _nd and y.__class__ is _nd
                    and self.enabled and c.dtype == bool_ and x.dtype == y.dtype
                    and x.dtype in _CTYPES and c._c_contiguous and x._c_contiguous
                    and y._c_contiguous):
                shape = broadcast_shape(c.shape, x.shape, y.shape)
                if shape and readable(c) and readable(x) and readable(y):
                    n = math.prod(shape)
                    kinds = (_where_kind(c.shape, shape), _where_kind(x.shape, shape),
                             _where_kind(y.shape, shape))
                    if n and None not in kinds:
                        return self._where(c, x, y, shape, n, kinds)  # type: ignore[arg-type]
            return fallback(c, x, y)

        return where

    def _where(self, c: Any, x: Any, y: Any, shape: tuple[int, ...], n: int,
               kinds: tuple[str, str, str]) -> Any:
        d = x.dtype
        m = shape[-1]
        rows = n // m
        al = min(16, 4 * d.itemsize)
        vec = not m % 4
        for a, kind, need in ((c, kinds[0], 4), (x, kinds[1], al), (y, kinds[2], al)):
            if kind in ("full", "row") and a.data.ptr % need:
                vec = False
        f = cached(self._fns, ("where", d, kinds, vec), self._multi,
                   lambda: _where_source(d, kinds, vec))
        s = stream_ptr()
        out = self._new_out(shape, d, n, s)
        gx = max(1, min(-(-m // 1024), 1024))
        gy = max(1, min(rows, 65535, -(-4096 // gx)))
        launch(f, (gx, gy, 1), (256, 1, 1), "QQQQqq", c.data.ptr, x.data.ptr, y.data.ptr,
               out.data.ptr, rows, m, stream=s)
        return out

    def _plain(self, a: Any) -> bool:
        return (a.__class__ is _nd and self.enabled and a.size > 0
                and a.dtype.itemsize in WORDS and self._readable(a))

    def wrap_copy(self, fallback: Any) -> Any:
        """``copy(a)``: a broadcast view (leading stride-0 axes over a C-contiguous
        tail) as ``rows`` copies of its tail; anything else to ``fallback``."""
        def copy(a: Any, *args: Any, **kw: Any) -> Any:
            if (self._plain(a) and not a._c_contiguous and not args
                    and kw.get("order", "K") in ("K", "C", "A")):
                st, sh = a.strides, a.shape
                k = 0
                while k < a.ndim and (st[k] == 0 or sh[k] == 1):
                    k += 1
                tail = sh[k:]
                if k and _c_order(tail, st[k:], a.dtype.itemsize):
                    m = math.prod(tail)
                    return self._rows_of(a.data.ptr, a.dtype, _nd(sh, a.dtype), a.size // m, m)
            return fallback(a, *args, **kw)

        return copy

    def wrap_tile(self, fallback: Any) -> Any:
        """``tile(a, reps)`` of a C-contiguous ``a`` repeated along one axis with only
        length-1 axes before it (after padding shape and reps with leading ones)."""
        def tile(a: Any, reps: Any) -> Any:
            if self._plain(a) and a._c_contiguous:
                reps = tuple(reps)
                nd = max(a.ndim, len(reps))
                r = (1,) * (nd - len(reps)) + reps
                sh = (1,) * (nd - a.ndim) + a.shape
                big = [i for i, x in enumerate(r) if x != 1]
                if len(big) == 1 and all(n == 1 for n in sh[:big[0]]):
                    out_shape = tuple(x * n for x, n in zip(r, sh, strict=True))
                    return self._rows_of(a.data.ptr, a.dtype, _nd(out_shape, a.dtype),
                                         r[big[0]], a.size)
            return fallback(a, reps)

        return tile

    def wrap_roll(self, fallback: Any) -> Any:
        """``roll(a, shift, axis)`` of a C-contiguous ``a`` flattened (``axis=None``) or
        along one axis, as one launch (element ``e`` moves ``shift`` rows of its axis on,
        wrapping); several axes go to ``fallback``."""
        def roll(a: Any, shift: Any, axis: Any = None) -> Any:
            if self._plain(a) and a._c_contiguous:
                if axis is None and shift.__class__ is int:
                    n, inner = a.size, 1
                elif (axis.__class__ is tuple and len(axis) == 1 and shift.__class__ is tuple
                        and len(shift) == 1):
                    ax = axis[0]
                    n, inner, shift = a.shape[ax], math.prod(a.shape[ax + 1:]), shift[0]
                else:
                    return fallback(a, shift, axis=axis)
                out = _nd(a.shape, a.dtype)
                f = cached(self._fns, ("roll", a.dtype.itemsize), self._multi,
                           lambda: _ROLL.format(t=WORDS[a.dtype.itemsize]))
                total = a.size
                launch(f, grid_1d(total), (256, 1, 1),
                       "QQqqqq", a.data.ptr, out.data.ptr, total, n, inner, shift % n,
                       stream=stream_ptr())
                return out
            return fallback(a, shift, axis=axis)

        return roll

    def wrap_repeat(self, fallback: Any) -> Any:
        """``repeat(a, r, axis)`` for a Python int ``r`` and a C-contiguous ``a``."""
        def repeat(a: Any, repeats: Any, axis: Any = None) -> Any:
            if self._plain(a) and a._c_contiguous and repeats.__class__ is int and repeats > 0:
                ax = 0 if axis is None else axis % a.ndim
                flat = a.reshape(-1) if axis is None else a
                sh = flat.shape
                n, inner = sh[ax], math.prod(sh[ax + 1:])
                out = _nd(sh[:ax] + (n * repeats,) + sh[ax + 1:], a.dtype)
                f = cached(self._fns, ("repeat", a.dtype.itemsize), self._multi,
                           lambda: _REPEAT.format(t=WORDS[a.dtype.itemsize]))
                total = out.size
                launch(f, grid_1d(total), (256, 1, 1), "QQqqq",
                       a.data.ptr, out.data.ptr, total, inner, repeats, stream=stream_ptr())
                return out
            return fallback(a, repeats, axis=axis)

        return repeat


__all__ = ["RowBroadcast"]
