// The unique family's kernels: the sort of order keys (unique_source.py) and the
// presence window (unique.py).  A source holds one of them, the kernel k whose
// UNIQUE_<KIND> macro its includer defines (the kernels are written whole: as device
// functions called from k, the window's mark compiles to other machine code).
//
// The sort's includer defines T (the element type), K (its key type), key_of(T) -> K,
// value_of(K) -> T and NAN_LAST (1 where every NaN has the largest key).
// The window's includer defines T, WORDS (32-bit words of the presence bitmap), HALF
// (half the window's width in keys), LOKEY (the dtype's lowest key), TOPBASE (the
// window's highest first key), FLIP (the sign bit where T is signed, else 0) and, for
// the rank, WANT_INV, WANT_CNT and WANT_FIRST (what it writes: 0 or 1).

#ifndef WORDS  // the sort

#define LOW 0xffffffffULL
#define EACH(i, n) for (long long i = (long long)blockIdx.x * 256 + threadIdx.x; i < (n); \
  i += (long long)gridDim.x * 256)

// the position in x of the element at sorted place m: the low half of the last pass's
// word, read through the first pass's words where the key took two passes
__device__ __forceinline__ long long at(const unsigned long long* __restrict__ s,
    const unsigned long long* __restrict__ prev, const long long m) {
  const unsigned long long q = s[m] & LOW;
  return (long long)(prev ? prev[q] & LOW : q);
}

#ifdef UNIQUE_PACK
// the word of sorted place j: 32 bits of its key from bit `shift`, and j itself
// (the first pass: j is the element's position)
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ x,
    const unsigned long long* __restrict__ prev, unsigned long long* __restrict__ out,
    const long long n, const long long shift) {
  EACH(j, n) {
    const long long i = prev ? (long long)(prev[j] & LOW) : j;
    const unsigned long long d = ((unsigned long long)key_of(x[i]) >> shift) & LOW;
    out[j] = d << 32 | (unsigned long long)j;
  }
}
#endif

#ifdef UNIQUE_FLAGS
// the position of each sorted place, and a flag on the first of each run of equal
// keys (every NaN a run of its own)
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
#endif

#ifdef UNIQUE_FINISH
// each distinct value (from its key: +0.0 for the zeros, the canonical NaN), its
// first position and count
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
#endif

#ifdef UNIQUE_KEYS
// without positions (unique_values, unique_counts): each element's key, sorted
// as it is (one radix sort of keys of the element's width)
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ x,
    K* __restrict__ keys, const long long n) {
  EACH(i, n) keys[i] = key_of(x[i]);
}
#endif

#ifdef UNIQUE_KEY_FLAGS
// a flag on the first of each run of equal sorted keys (every NaN a run of its own)
extern "C" __global__ void __launch_bounds__(256) k(const K* __restrict__ s,
    bool* __restrict__ f, const long long n) {
  EACH(m, n) f[m] = m == 0 || s[m] != s[m - 1] || (NAN_LAST && s[m] == (K)~(K)0);
}
#endif

#ifdef UNIQUE_KEY_FINISH
// each distinct value from its sorted key, and its count
extern "C" __global__ void __launch_bounds__(256) k(const K* __restrict__ s,
    const long long* __restrict__ starts, T* __restrict__ values,
    long long* __restrict__ counts, const long long count, const long long n) {
  EACH(r, count) {
    const long long j = starts[r];
    values[r] = value_of(s[j]);
    if (counts) counts[r] = (r + 1 < count ? starts[r + 1] : n) - j;
  }
}
#endif

#ifdef UNIQUE_INVERSE
// each element's value index: the last run that starts at or before its place
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
#endif

#else  // the window

// order-preserving unsigned keys: the sign bit flipped where T is signed
__device__ __forceinline__ unsigned long long key_of(const T v) {
  return (unsigned long long)(long long)v ^ FLIP;
}
__device__ __forceinline__ T value_of(const unsigned long long k) {
  return (T)(long long)(k ^ FLIP);
}
// the window's first key: HALF below the first element's, moved up to the dtype's
// lowest key or down to TOPBASE (its last key lies at the dtype's highest), so that
// key - base never wraps: it is below 2 * HALF exactly for keys inside the window
__device__ __forceinline__ unsigned long long window_base(const T first) {
  const unsigned long long k = key_of(first);
  const unsigned long long b = k - LOKEY < HALF ? LOKEY : k - HALF;
  return b > TOPBASE ? TOPBASE : b;
}

#ifdef UNIQUE_MARK
// each block marks its elements' keys in a bitmap of its own, then ORs the non-zero
// words into bits; head[0] = 1 where a key lies outside the window
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
#endif

#ifdef UNIQUE_COMPACT
// one block of 1024 threads: the set bits as sorted values in out (a block scan of the
// words' bit counts gives each thread its output position), each word's first
// position in wpre, their count in head[1]
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
#endif

#ifdef UNIQUE_RANK
// each element's rank among the distinct values (its bit's position among the set
// bits): written as the inverse index, counted (lanes of a warp with one rank add
// together), and the first position of each value kept as n - i by atomicMax
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
#endif

#endif
