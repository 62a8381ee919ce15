// take and take_along_axis, the range pass of an index array with its exact report, and
// the scatter of x[idx] = v (gather.py).  Templates over the
// element type T, the value type V and the index type I; the includer defines nothing.

// Element e of take's result: the source viewed as (outer, n, inner), the result as
// (outer, kk, inner), e reads index j of idx (take) or index e (Along: take_along_axis).
// An index outside [-n, n) writes zero: the range pass (usm_in_range) reports it.
// One element, not the grid-stride loop: the loop in the entry point compiles as it
// did when the kernel was written whole.
template <bool Along, typename T, typename I>
__device__ __forceinline__ void usm_take(const T* __restrict__ src, const I* __restrict__ idx,
                                         T* __restrict__ out, const long long e,
                                         const long long outer, const long long n,
                                         const long long kk, const long long inner) {
  long long r = e, i = 0;
  if (inner != 1) { r = e / inner; i = e - r * inner; }
  long long o = 0, j = r;
  if (outer != 1) { o = r / kk; j = r - o * kk; }
  const long long t0 = (long long)idx[Along ? e : j];
  const long long t = t0 < 0 ? t0 + n : t0;
  out[e] = (t < 0 || t >= n) ? (T)0 : src[(o * n + t) * inner + i];
}

// Four indices, or four elements, that move as one aligned load or store.
template <typename I>
struct alignas(4 * sizeof(I)) usm_quad {
  I v[4];
};

// An unsigned type of B bytes that the streaming loads and stores take.
template <int B> struct usm_word;
template <> struct usm_word<1> { typedef unsigned char t; };
template <> struct usm_word<2> { typedef unsigned short t; };
template <> struct usm_word<4> { typedef unsigned int t; };
template <> struct usm_word<8> { typedef unsigned long long t; };
template <> struct usm_word<16> { typedef uint4 t; };

// A load of data the kernel reads once (indices, values to scatter), marked evict-first,
// so that the L2 keeps the lines that the random reads and writes reuse; X is a scalar
// or a usm_quad, aligned to its size.
template <typename X>
__device__ __forceinline__ X usm_ld_once(const X* p) {
  constexpr int B = sizeof(X) < 16 ? (int)sizeof(X) : 16;
  typedef typename usm_word<B>::t W;
  X r;
  W* w = reinterpret_cast<W*>(&r);
#pragma unroll
  for (int k = 0; k < (int)(sizeof(X) / B); ++k) w[k] = __ldcs(reinterpret_cast<const W*>(p) + k);
  return r;
}

// A store of data no later read of the call needs (a gather's result), evict-first.
template <typename X>
__device__ __forceinline__ void usm_st_once(X* p, const X& x) {
  constexpr int B = sizeof(X) < 16 ? (int)sizeof(X) : 16;
  typedef typename usm_word<B>::t W;
  const W* w = reinterpret_cast<const W*>(&x);
#pragma unroll
  for (int k = 0; k < (int)(sizeof(X) / B); ++k) __stcs(reinterpret_cast<W*>(p) + k, w[k]);
}

// Elements b to b + 3 of a take of one axis (outer and inner 1): the four indices are
// read first (one aligned load where Aligned), then the four gathers issue together,
// and the four elements go out as one store (out is a new array, aligned to a quad).
// The indices and the result stream past the L2 (usm_ld_once, usm_st_once), which keeps
// src's lines.  An index outside [-n, n) writes zero, as usm_take; the result says
// whether one of the four was.
template <bool Aligned, typename T, typename I>
__device__ __forceinline__ bool usm_take4(const T* __restrict__ src, const I* __restrict__ idx,
                                          T* __restrict__ out, const long long b,
                                          const long long total, const long long n) {
  bool bad = false;
  if (b + 4 <= total) {
    usm_quad<I> q;
    if (Aligned) {
      q = usm_ld_once(reinterpret_cast<const usm_quad<I>*>(idx + b));
    } else {
#pragma unroll
      for (int k = 0; k < 4; ++k) q.v[k] = usm_ld_once(idx + b + k);
    }
    usm_quad<T> w;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const long long t0 = (long long)q.v[k];
      const long long t = t0 < 0 ? t0 + n : t0;
      const bool out_of_range = t < 0 || t >= n;
      bad |= out_of_range;
      w.v[k] = out_of_range ? (T)0 : src[t];
    }
    usm_st_once(reinterpret_cast<usm_quad<T>*>(out + b), w);
  } else {
    for (long long e = b; e < total; ++e) {
      const long long t = (long long)idx[e];
      bad |= t < -n || t >= n;
      usm_take<false>(src, idx, out, e, 1, n, total, 1);
    }
  }
  return bad;
}

// The end of a call checked in its own launch: a block that saw an index outside
// [-n, n) writes 1 into host[0], and the last block to get here writes the call's number
// gen into host[1] and zeroes counter for the next call (host: mapped host memory the
// caller polls).  The writes of the call are then all issued; the stream orders every
// later use of them.
__device__ __forceinline__ void usm_report_end(const bool bad, const long long gen,
                                               long long* __restrict__ host,
                                               unsigned int* __restrict__ counter) {
  if (__syncthreads_or(bad) && threadIdx.x == 0) *(volatile long long*)host = 1;
  if (threadIdx.x == 0) {
    __threadfence_system();
    if (atomicAdd(counter, 1u) == gridDim.x - 1) {
      *counter = 0;
      __threadfence_system();
      *(volatile long long*)(host + 1) = gen;
    }
  }
}

// take of one axis with its range check in the same launch (usm_take4, then
// usm_report_end), for calls short enough that the host's wait for the whole gather
// costs less than a second launch.
template <bool Aligned, typename T, typename I>
__device__ __forceinline__ void usm_take4_checked(const T* __restrict__ src,
                                                  const I* __restrict__ idx,
                                                  T* __restrict__ out, const long long total,
                                                  const long long n, const long long gen,
                                                  long long* __restrict__ host,
                                                  unsigned int* __restrict__ counter) {
  bool bad = false;
  const long long step = 4LL * gridDim.x * blockDim.x;
  for (long long b = 4LL * ((long long)blockIdx.x * blockDim.x + threadIdx.x); b < total;
       b += step)
    bad |= usm_take4<Aligned>(src, idx, out, b, total, n);
  usm_report_end(bad, gen, host, counter);
}

// The range pass of a call: whether an index of idx lies outside [-n, n).  Each thread
// reads four indices a step (one aligned load where Aligned); a block with such an index
// writes the call's number gen into flag (device memory, read by the scatter) and 1 into
// host (mapped host memory, read by the caller).  Neither is written otherwise, so a
// call needs no zeroing pass: the caller zeroes host, and gen differs from every earlier
// call's.
template <bool Aligned, typename I>
__device__ __forceinline__ void usm_in_range(const I* __restrict__ idx, const long long total,
                                             const long long n, const long long gen,
                                             long long* __restrict__ flag,
                                             long long* __restrict__ host) {
  bool bad = false;
  const long long step = 4LL * gridDim.x * blockDim.x;
  for (long long b = 4LL * ((long long)blockIdx.x * blockDim.x + threadIdx.x); b < total;
       b += step) {
    if (Aligned && b + 4 <= total) {
      const usm_quad<I> q = *reinterpret_cast<const usm_quad<I>*>(idx + b);
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const long long t = (long long)q.v[k];
        bad |= t < -n || t >= n;
      }
    } else {
      for (long long e = b; e < b + 4 && e < total; ++e) {
        const long long t = (long long)idx[e];
        bad |= t < -n || t >= n;
      }
    }
  }
  if (__syncthreads_or(bad) && threadIdx.x == 0) {
    *flag = gen;
    *host = 1;
  }
}

// The exact report of idx against [-n, n), run once a range pass has found an index
// outside: report[0] = 1, report[1] the largest index >= n, report[2] the smallest below
// -n (both from a zeroed report).
template <typename I>
__device__ __forceinline__ void usm_out_of_range(const I* __restrict__ idx,
                                                 long long* __restrict__ report,
                                                 const long long total, const long long n) {
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += step) {
    const long long t = (long long)idx[e];
    if (t < -n || t >= n) {
      report[0] = 1;
      if (t >= n) atomicMax((unsigned long long*)&report[1], (unsigned long long)t);
      else atomicMin(&report[2], t);
    }
  }
}

// Element e of x[..., idx, ...] = v: the target viewed as (outer, n, inner), the value
// as (outer, kk, inner) with element strides (vo, vj, vi), 0 where it broadcasts, or the
// scalar s (Scalar).  The entry point writes nothing where the range pass reported.
// Where outer and inner are 1, each index and each value is read once (usm_ld_once).
template <bool Scalar, typename T, typename V, typename I>
__device__ __forceinline__ void usm_put(T* __restrict__ x, const I* __restrict__ idx,
                                        const V* __restrict__ v, const T s,
                                        const long long e, const long long outer,
                                        const long long n, const long long kk,
                                        const long long inner, const long long vo,
                                        const long long vj, const long long vi) {
  long long r = e, i = 0;
  if (inner != 1) { r = e / inner; i = e - r * inner; }
  long long o = 0, j = r;
  if (outer != 1) { o = r / kk; j = r - o * kk; }
  const bool once = outer == 1 && inner == 1;
  long long t = (long long)(once ? usm_ld_once(idx + j) : idx[j]);
  if (t < 0) t += n;
  if (Scalar) {
    x[(o * n + t) * inner + i] = s;
  } else {
    const V* pv = v + (o * vo + j * vj + i * vi);
    x[(o * n + t) * inner + i] = (T)(once && vj ? usm_ld_once(pv) : *pv);
  }
}

// x[idx] = v of one axis (outer and inner 1, kk indices) by one block, its range check
// in the same launch: every index is checked first, and nothing is written where one
// lies outside [-n, n); then usm_report_end (one block: it is the last).
template <bool Scalar, typename T, typename V, typename I>
__device__ __forceinline__ void usm_put_checked(T* __restrict__ x, const I* __restrict__ idx,
                                                const V* __restrict__ v, const T s,
                                                const long long kk, const long long n,
                                                const long long vj, const long long gen,
                                                long long* __restrict__ host,
                                                unsigned int* __restrict__ counter) {
  bool bad = false;
  for (long long e = threadIdx.x; e < kk; e += blockDim.x) {
    const long long t = (long long)idx[e];
    bad |= t < -n || t >= n;
  }
  bad = __syncthreads_or(bad);
  if (!bad)
    for (long long e = threadIdx.x; e < kk; e += blockDim.x)
      usm_put<Scalar>(x, idx, v, s, e, 1, n, kk, 1, 0, vj, 0);
  usm_report_end(bad, gen, host, counter);
}
