"""``unique_values``, ``unique_counts``, ``unique_inverse`` and ``unique_all`` of real and
bool arrays: integers whose values lie in a narrow window without a sort, everything
else by a stable sort of order keys (:mod:`.unique_source`).

The sort: the array in C order (a copy on the elementwise engine where it is a view),
its order keys sorted by CuPy's radix sort (alone for ``unique_values`` and
``unique_counts``; packed with their positions for the others, one pass for elements
of up to 4 bytes, two for 8), the first of each run of equal keys flagged (every NaN a
run of its own: NaNs last, each its own value; -0.0 and 0.0 one value), the flags
compacted into the runs' starts (one read-back of their count), then one launch writes
the values (each made from its key: +0.0, the canonical NaN), first positions and
counts and one the inverse.  No float is compared, so float32 subnormals keep their
own values and counts.

The window.  Class labels, categories and counts take few distinct values close together.  For an
integer array of at least :data:`DENSE_MIN` elements, one launch marks each value's
presence in a bitmap of :data:`WINDOW` bits centred on the first element (each block
builds its own bitmap in shared memory, then ORs its non-zero words into the global
one).  Values are read as order-preserving unsigned keys (the sign bit flipped for
signed dtypes), and the window is moved inside the dtype's range where it would pass
one of its ends, so it never wraps around: uint64 5 and 2**64 - 3, or int64's minimum
and maximum, are never neighbours.  One block converts the set bits into the sorted values (a block scan of the
words' bit counts gives each thread its output position, and each word's first
position is kept).  For the inverse, counts and first indices one more pass gives each
element its rank (its bit's position among the set bits) and writes, counts or keeps
the smallest position by it.  One read-back brings the
count and whether any value fell outside the window; then, and only then, the caller
sorts as before.  Trying costs two launches, a read-back and, where values spread
wide, a thread's elements up to its first one outside the window: about a tenth more
than the sort alone (the host's work after the read-back leaves the GPU idle), against
several times less where the values are labels (figures in docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cupy
import numpy as np

from ..._ndlike import UniqueAll, UniqueCounts, UniqueInverse
from ._launch import Family, grid_1d, launch, sm_count, stream_ptr
from .c_types import CTYPES
from .keys import KEY_DTYPES
from .unique_source import shifts, source

_nd = cupy.ndarray
_I64 = np.dtype(np.int64)
#: bits of the presence map (8192 words: 32 KiB of shared memory a block)
WINDOW = 1 << 18
#: smaller arrays keep the sort (one launch fewer and no second read-back to try)
DENSE_MIN = 1 << 16
#: the sort packs positions into 32 bits; longer arrays go to the fallback
SORT_MAX = 1 << 32

_HEAD = r"""
typedef {t} T;
#define WORDS {words}
#define HALF {half}ULL
#define LOKEY {lokey}ULL
#define TOPBASE {topbase}ULL
__device__ __forceinline__ unsigned long long key_of(const T v) {{
  return {key};
}}
__device__ __forceinline__ T value_of(const unsigned long long k) {{
  return {value};
}}
// the window's first key: HALF below the first element's, moved up to the dtype's
// lowest key or down to TOPBASE (its last key lies at the dtype's highest), so that
// key - base never wraps: it is below 2 * HALF exactly for keys inside the window
__device__ __forceinline__ unsigned long long window_base(const T first) {{
  const unsigned long long k = key_of(first);
  const unsigned long long b = k - LOKEY < HALF ? LOKEY : k - HALF;
  return b > TOPBASE ? TOPBASE : b;
}}
"""

_MARK = r"""
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ x,
    unsigned int* __restrict__ bits, unsigned long long* __restrict__ head, const long long n) {
  __shared__ unsigned int sb[WORDS];
  for (int i = threadIdx.x; i < WORDS; i += 256) sb[i] = 0u;
  __syncthreads();
  const unsigned long long base = window_base(x[0]);
  int wide = 0;
  const long long step = (long long)gridDim.x * 256;
  for (long long i = (long long)blockIdx.x * 256 + threadIdx.x; i < n; i += step) {
    const unsigned long long d = key_of(x[i]) - base;
    if (d < 2 * HALF) {
      const unsigned int m = 1u << (d & 31);
      unsigned int* w = &sb[d >> 5];
      if (!(*w & m)) atomicOr(w, m);
    } else {
      wide = 1;
      break;
    }
  }
  if (__syncthreads_or(wide)) {
    if (threadIdx.x == 0) head[0] = 1ULL;
    return;
  }
  for (int i = threadIdx.x; i < WORDS; i += 256) {
    const unsigned int v = sb[i];
    if (v) atomicOr(&bits[i], v);
  }
}
"""

_COMPACT = r"""
#define PER (WORDS / 1024)
extern "C" __global__ void __launch_bounds__(1024) k(const unsigned int* __restrict__ bits,
    const T* __restrict__ x, T* __restrict__ out, unsigned long long* __restrict__ head,
    int* __restrict__ wpre) {
  __shared__ int wsum[32];
  if (head[0]) return;
  const int tid = threadIdx.x, lane = tid & 31, wp = tid >> 5;
  const unsigned long long base = window_base(x[0]);
  unsigned int w[PER];
  int c = 0;
  #pragma unroll
  for (int j = 0; j < PER; j++) { w[j] = bits[tid * PER + j]; c += __popc(w[j]); }
  int incl = c;
  #pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const int v = __shfl_up_sync(0xffffffffu, incl, o);
    if (lane >= o) incl += v;
  }
  if (lane == 31) wsum[wp] = incl;
  __syncthreads();
  if (wp == 0) {
    const int v = wsum[lane];
    int s = v;
    #pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const int u = __shfl_up_sync(0xffffffffu, s, o);
      if (lane >= o) s += u;
    }
    wsum[lane] = s - v;
  }
  __syncthreads();
  long long pos = wsum[wp] + incl - c;
  for (int j = 0; j < PER; j++) {
    unsigned int v = w[j];
    wpre[tid * PER + j] = (int)pos;
    const unsigned long long first = base + (unsigned long long)(tid * PER + j) * 32ULL;
    while (v) {
      const int b = __ffs(v) - 1;
      v &= v - 1;
      out[pos++] = value_of(first + (unsigned long long)b);
    }
  }
  if (tid == 1023) head[1] = (unsigned long long)pos;
}
"""


#: each element's rank among the distinct values (its bit's position among the set
#: bits): written as the inverse index, counted (lanes of a warp with one rank add
#: together), and the first position of each value kept as ``n - i`` by atomicMax
_RANK = r"""
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ x,
    const unsigned int* __restrict__ bits, const int* __restrict__ wpre,
    const unsigned long long* __restrict__ head, long long* __restrict__ inv,
    unsigned long long* __restrict__ cnt, unsigned long long* __restrict__ first,
    const long long n) {
  if (head[0]) return;
  const unsigned long long base = window_base(x[0]);
  const long long step = (long long)gridDim.x * 256;
  for (long long i = (long long)blockIdx.x * 256 + threadIdx.x; i < n; i += step) {
    const unsigned long long d = key_of(x[i]) - base;
    const unsigned int w = (unsigned int)(d >> 5), b = (unsigned int)(d & 31);
    const long long r = wpre[w] + __popc(bits[w] & ((1u << b) - 1u));
    if (WANT_INV) inv[i] = r;
    if (WANT_CNT || WANT_FIRST) {
      const unsigned int peers = __match_any_sync(__activemask(), r);
      if ((threadIdx.x & 31) == __ffs(peers) - 1) {
        if (WANT_CNT) atomicAdd(cnt + r, (unsigned long long)__popc(peers));
        if (WANT_FIRST) atomicMax(first + r, (unsigned long long)(n - i));
      }
    }
  }
}
"""


_SIGN = 1 << 63


def key_range(d: np.dtype) -> tuple[int, int]:
    """The lowest and the highest key of the integer dtype ``d`` (keys as ``key_of``
    makes them: unsigned values as they are, signed ones plus 2**63)."""
    info = np.iinfo(d)
    shift = _SIGN if d.kind == "i" else 0
    return int(info.min) + shift, int(info.max) + shift


def _source(d: np.dtype, body: str) -> str:
    if d.kind == "u":
        key, value = "(unsigned long long)v", "(T)k"
    else:
        key = "(unsigned long long)(long long)v ^ 0x8000000000000000ULL"
        value = "(T)(long long)(k ^ 0x8000000000000000ULL)"
    lokey, hikey = key_range(d)
    topbase = max(lokey, hikey - (WINDOW - 1))
    return _HEAD.format(t=CTYPES[d], words=WINDOW // 32, half=WINDOW // 2, key=key,
                        value=value, lokey=lokey, topbase=topbase) + body


class Uniques(Family):
    """The unique family of real and bool arrays (see the module docstring): the window
    for C-contiguous integer arrays of plain device memory whose values fit it, the
    sort for every other real or bool array of up to :data:`SORT_MAX` elements on the
    current device and stream (the caller places it); anything else to the fallback."""

    def __init__(self, is_fast: Callable[[Any], bool], single_gpu: bool,
                 compactions: Any, c_order_copy: Callable[[Any], Any]) -> None:
        super().__init__(is_fast, single_gpu)
        self._compactions = compactions
        #: a C-order copy of an array (None where the engine does not take it)
        self._c_order_copy = c_order_copy
        #: __match_any_sync (the rank pass) needs compute capability 7.0
        self.enabled = int(cupy.cuda.Device().compute_capability) >= 70

    def dense(self, a: Any, inverse: bool = False, counts: bool = False,
              first: bool = False) -> tuple[Any, Any, Any, Any] | None:
        """(values, first indices, inverse indices, counts) of the integer array ``a``
        (any shape, C-contiguous; the values sorted, the inverse of ``a``'s shape, the
        rest int64; those not asked for None), or None where a value lies outside the
        window around the first element.  One read-back either way."""
        d = a.dtype
        n = a.size
        s = stream_ptr()
        words = WINDOW // 32
        m = min(n, WINDOW)
        per = m if (counts or first) else 0
        # the bitmap, head (flag and count), each word's first position, counts, firsts
        scratch = _nd((words + 4 + words + 4 * per,), np.uint32)
        cleared = (words + 4) * 4
        cupy.cuda.runtime.memsetAsync(scratch.data.ptr, 0, cleared, s)
        bits = scratch.data.ptr
        head = bits + 4 * words
        wpre = head + 16
        cnt = wpre + 4 * words
        fst = cnt + 8 * per
        if per:
            cupy.cuda.runtime.memsetAsync(cnt, 0, 16 * per, s)
        out = _nd((m,), d)
        mark = self._cached(("mark", d), lambda: _source(d, _MARK))
        grid = max(1, min(-(-n // 4096), 4 * sm_count()))
        launch(mark, (grid, 1, 1), (256, 1, 1), "QQQq", a.data.ptr, bits, head, n, stream=s)
        comp = self._cached(("compact", d), lambda: _source(d, _COMPACT))
        launch(comp, (1, 1, 1), (1024, 1, 1), "QQQQQ", bits, a.data.ptr, out.data.ptr, head,
               wpre, stream=s)
        inv = _nd(a.shape, _I64) if inverse else None
        if inverse or per:
            want = (inverse, counts, first)
            rank = self._cached(("rank", d, want), lambda: _source(
                d, "".join(f"#define WANT_{k} {int(v)}\n" for k, v in zip(
                    ("INV", "CNT", "FIRST"), want, strict=True)) + _RANK))
            launch(rank, (grid, 1, 1), (256, 1, 1), "QQQQQQQq", a.data.ptr, bits, wpre, head,
                   0 if inv is None else inv.data.ptr, cnt, fst, n, stream=s)
        flag, count = (int(v) for v in scratch[words:words + 4].view(np.uint64).get())
        if flag:
            return None
        c = f = None
        if per:
            tail = scratch[2 * words + 4:].view(np.uint64)
            c = tail[:count].view(_I64) if counts else None
            f = (n - tail[per:per + count].view(_I64)) if first else None
        return out[:count], f, inv, c

    def _takes(self, a: Any) -> bool:
        """Whether the window takes ``a`` (which :meth:`_unique` found real)."""
        return (self.enabled and a.dtype.kind in "iu" and a.size >= DENSE_MIN
                and a._c_contiguous and self._is_fast(a))

    def _kernel(self, kind: str, d: np.dtype) -> Any:
        return self._cached((kind, d), lambda: source(kind, d))

    def by_sort(self, a: Any, inverse: bool = False, counts: bool = False,
                first: bool = False) -> tuple[Any, Any, Any, Any]:
        """(values, first indices, inverse indices, counts) of the non-empty real or
        bool array ``a`` of any layout, as :meth:`dense` gives them, by the sort."""
        x = a.reshape(-1) if a._c_contiguous else self._c_order_copy(a)
        if x is None:  # a layout the engine refuses (or the engine off): CuPy's copy
            x = cupy.ascontiguousarray(a)
        x = x.reshape(-1)
        d, n = a.dtype, a.size
        s = stream_ptr()
        grid, block = grid_1d(n), (256, 1, 1)
        if not (inverse or first):
            return self._by_keys(x, counts, s)
        words: Any = None  # the last pass's sorted words, and the pass's before
        prev: Any = None
        for shift in shifts(d):
            packed = _nd((n,), np.uint64)
            launch(self._kernel("pack", d), grid, block, "QQQqq", x.data.ptr,
                   0 if words is None else words.data.ptr, packed.data.ptr, n, shift,
                   stream=s)
            packed.sort()  # CuPy's radix sort: integers only
            prev, words = words, packed
        perm = _nd((n,), _I64)
        flags = _nd((n,), np.bool_)
        launch(self._kernel("flags", d), grid, block, "QQQQQq", x.data.ptr,
               words.data.ptr, 0 if prev is None else prev.data.ptr, perm.data.ptr,
               flags.data.ptr, n, stream=s)
        starts = self._compactions.positions(flags)
        m = starts.size
        values = _nd((m,), d)
        f = _nd((m,), _I64) if first else None
        c = _nd((m,), _I64) if counts else None
        launch(self._kernel("finish", d), grid_1d(m), block, "QQQQQQqq", x.data.ptr,
               perm.data.ptr, starts.data.ptr, values.data.ptr, 0 if f is None else f.data.ptr,
               0 if c is None else c.data.ptr, m, n, stream=s)
        inv = None
        if inverse:
            inv = _nd(a.shape, _I64)
            launch(self._kernel("inverse", d), grid, block, "QQQqq", perm.data.ptr,
                   starts.data.ptr, inv.data.ptr, m, n, stream=s)
        return values, f, inv, c

    def _by_keys(self, x: Any, counts: bool, s: int) -> tuple[Any, Any, Any, Any]:
        """(values, None, None, counts or None) of the flat C-order ``x`` by a sort of
        its keys alone (one radix sort of keys of the element's width)."""
        d, n = x.dtype, x.size
        grid, block = grid_1d(n), (256, 1, 1)
        keys = _nd((n,), KEY_DTYPES[d.itemsize])
        launch(self._kernel("keys", d), grid, block, "QQq", x.data.ptr, keys.data.ptr, n,
               stream=s)
        keys.sort()  # CuPy's radix sort: integers only
        flags = _nd((n,), np.bool_)
        launch(self._kernel("key_flags", d), grid, block, "QQq", keys.data.ptr,
               flags.data.ptr, n, stream=s)
        starts = self._compactions.positions(flags)
        m = starts.size
        values = _nd((m,), d)
        c = _nd((m,), _I64) if counts else None
        launch(self._kernel("key_finish", d), grid_1d(m), block, "QQQQqq", keys.data.ptr,
               starts.data.ptr, values.data.ptr, 0 if c is None else c.data.ptr, m, n,
               stream=s)
        return values, None, None, c

    @staticmethod
    def sorts(a: Any) -> bool:
        """Whether the family takes ``a`` (the window or the sort; the window only for
        integers)."""
        return a.__class__ is _nd and a.dtype in CTYPES and 0 < a.size <= SORT_MAX

    def _unique(self, a: Any, inverse: bool, counts: bool,
                first: bool) -> tuple[Any, Any, Any, Any] | None:
        """The window's result where it takes ``a``, else the sort's; None where
        neither takes it."""
        if not self.sorts(a):
            return None
        if self._takes(a):
            r = self.dense(a, inverse, counts, first)
            if r is not None:
                return r
        return self.by_sort(a, inverse, counts, first)

    def wrap(self, kind: str, fallback: Any) -> Any:
        """``unique_values``/``unique_all``/``unique_counts``/``unique_inverse`` (``kind``)
        by :meth:`_unique` where it takes ``a`` (the last three as the namedtuples of the
        fallback's kind), else ``fallback``."""
        inverse = kind in ("unique_all", "unique_inverse")
        counts = kind in ("unique_all", "unique_counts")
        first = kind == "unique_all"

        def fn(a: Any) -> Any:
            r = self._unique(a, inverse, counts, first)
            if r is None:
                return fallback(a)
            v, f, inv, c = r
            if kind == "unique_values":
                return v
            if kind == "unique_all":
                return UniqueAll(v, f, inv, c)
            return UniqueCounts(v, c) if counts else UniqueInverse(v, inv)

        fn.__name__ = kind
        return fn


__all__ = ["DENSE_MIN", "SORT_MAX", "WINDOW", "Uniques", "key_range"]
