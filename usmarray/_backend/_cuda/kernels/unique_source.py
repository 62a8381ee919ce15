"""Sources of the sorted unique family of real and bool arrays (:mod:`.unique`), no CuPy
needed, so that tests compile them without a GPU.

Every element becomes its order key (:func:`.keys.key_body`: -0.0 the key of 0.0,
every NaN the largest key, a subnormal's bits kept).  Where no position is asked for
(``unique_values``, ``unique_counts``) the keys themselves are sorted (``keys``,
``key_flags``, ``key_finish``).  Otherwise they are sorted stably as packed words
``digit << 32 | position``, 32 bits of the key a pass, the low digit first (one pass
for keys of up to 4 bytes, two for 8: ``pack``, ``flags``, ``finish``, ``inverse``).
CuPy's radix sort moves bits and compares integers only, and the kernels here never
compare floats, so no flush-to-zero mode of any compiler or GPU can merge a subnormal
with 0.  Each value is made from its key (:func:`.keys.value_body`): +0.0 for a run of
zeros, the canonical NaN for each NaN, in every function of the family alike.
"""

from __future__ import annotations

import numpy as np

from .keys import key_source, value_body

#: the kernels of the family (see the module docstring)
KINDS = ("pack", "flags", "finish", "inverse", "keys", "key_flags", "key_finish")

_HEAD = r"""
#define NAN_LAST {nan}
#define LOW 0xffffffffULL
__device__ __forceinline__ T value_of(const K k) {{
{value}
}}
// the position in x of the element at sorted place m: the low half of the last pass's
// word, read through the first pass's words where the key took two passes
__device__ __forceinline__ long long at(const unsigned long long* __restrict__ s,
    const unsigned long long* __restrict__ prev, const long long m) {{
  const unsigned long long q = s[m] & LOW;
  return (long long)(prev ? prev[q] & LOW : q);
}}
#define EACH(i, n) for (long long i = (long long)blockIdx.x * 256 + threadIdx.x; i < (n); \
  i += (long long)gridDim.x * 256)
"""

_BODIES = {
    # the word of sorted place j: 32 bits of its key from bit `shift`, and j itself
    # (the first pass: j is the element's position)
    "pack": r"""
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ x,
    const unsigned long long* __restrict__ prev, unsigned long long* __restrict__ out,
    const long long n, const long long shift) {
  EACH(j, n) {
    const long long i = prev ? (long long)(prev[j] & LOW) : j;
    const unsigned long long d = ((unsigned long long)key_of(x[i]) >> shift) & LOW;
    out[j] = d << 32 | (unsigned long long)j;
  }
}
""",
    # the position of each sorted place, and a flag on the first of each run of equal
    # keys (every NaN a run of its own)
    "flags": r"""
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ x,
    const unsigned long long* __restrict__ s, const unsigned long long* __restrict__ prev,
    long long* __restrict__ perm, bool* __restrict__ f, const long long n) {
  EACH(m, n) {
    const long long i = at(s, prev, m);
    perm[m] = i;
    const K a = key_of(x[i]);
    f[m] = m == 0 || a != key_of(x[at(s, prev, m - 1)]) || (NAN_LAST && a == (K)~(K)0);
  }
}
""",
    # each distinct value (from its key: +0.0 for the zeros, the canonical NaN), its
    # first position and count
    "finish": r"""
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ x,
    const long long* __restrict__ perm, const long long* __restrict__ starts,
    T* __restrict__ values, long long* __restrict__ first, long long* __restrict__ counts,
    const long long count, const long long n) {
  EACH(r, count) {
    const long long j = starts[r], i = perm[j];
    values[r] = value_of(key_of(x[i]));
    if (first) first[r] = i;
    if (counts) counts[r] = (r + 1 < count ? starts[r + 1] : n) - j;
  }
}
""",
    # without positions (unique_values, unique_counts): each element's key, sorted
    # as it is (one radix sort of keys of the element's width)
    "keys": r"""
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ x,
    K* __restrict__ keys, const long long n) {
  EACH(i, n) keys[i] = key_of(x[i]);
}
""",
    # a flag on the first of each run of equal sorted keys (every NaN a run of its own)
    "key_flags": r"""
extern "C" __global__ void __launch_bounds__(256) k(const K* __restrict__ s,
    bool* __restrict__ f, const long long n) {
  EACH(m, n) f[m] = m == 0 || s[m] != s[m - 1] || (NAN_LAST && s[m] == (K)~(K)0);
}
""",
    # each distinct value from its sorted key, and its count
    "key_finish": r"""
extern "C" __global__ void __launch_bounds__(256) k(const K* __restrict__ s,
    const long long* __restrict__ starts, T* __restrict__ values,
    long long* __restrict__ counts, const long long count, const long long n) {
  EACH(r, count) {
    const long long j = starts[r];
    values[r] = value_of(s[j]);
    if (counts) counts[r] = (r + 1 < count ? starts[r + 1] : n) - j;
  }
}
""",
    # each element's value index: the last run that starts at or before its place
    "inverse": r"""
extern "C" __global__ void __launch_bounds__(256) k(const long long* __restrict__ perm,
    const long long* __restrict__ starts, long long* __restrict__ inv, const long long count,
    const long long n) {
  EACH(m, n) {
    long long lo = 0, hi = count;
    while (hi - lo > 1) {
      const long long mid = (lo + hi) >> 1;
      if (starts[mid] <= m) lo = mid; else hi = mid;
    }
    inv[perm[m]] = lo;
  }
}
""",
}


def source(kind: str, d: np.dtype) -> str:
    """The kernel ``k`` of ``kind`` (one of :data:`KINDS`) for elements of dtype ``d``."""
    return key_source(d) + _HEAD.format(value=value_body(d), nan=int(d.kind == "f")) + _BODIES[kind]


def shifts(d: np.dtype) -> tuple[int, ...]:
    """The first key bit of each sort pass of ``d``'s keys, the low digit first."""
    return (0, 32) if d.itemsize == 8 else (0,)


__all__ = ["KINDS", "shifts", "source"]
