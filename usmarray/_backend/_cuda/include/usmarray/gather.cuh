// take and take_along_axis with the bounds check inside the gather, the check of an
// index array alone, and the scatter of x[idx] = v (gather.py).  Templates over the
// element type T, the value type V and the index type I; the includer defines nothing.

// Element e of take's result: the source viewed as (outer, n, inner), the result as
// (outer, kk, inner), e reads index j of idx (take) or index e (Along: take_along_axis).
// An index outside [-n, n) writes zero and is reported: report[0] = 1, report[1] the
// largest index >= n, report[2] the smallest below -n (both from a zeroed report).
// One element, not the grid-stride loop: the loop in the entry point compiles as it
// did when the kernel was written whole.
template <bool Along, typename T, typename I>
__device__ __forceinline__ void usm_take(const T* __restrict__ src, const I* __restrict__ idx,
                                         T* __restrict__ out, long long* __restrict__ report,
                                         const long long e, const long long outer,
                                         const long long n, const long long kk,
                                         const long long inner) {
  long long r = e, i = 0;
  if (inner != 1) { r = e / inner; i = e - r * inner; }
  long long o = 0, j = r;
  if (outer != 1) { o = r / kk; j = r - o * kk; }
  const long long t0 = (long long)idx[Along ? e : j];
  const long long t = t0 < 0 ? t0 + n : t0;
  if (t < 0 || t >= n) {
    report[0] = 1;
    if (t0 >= n) atomicMax((unsigned long long*)&report[1], (unsigned long long)t0);
    else atomicMin(&report[2], t0);
    out[e] = (T)0;
  } else {
    out[e] = src[(o * n + t) * inner + i];
  }
}

// The report of idx against [-n, n), as usm_take writes it for the indices it reads.
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
// scalar s (Scalar).  The caller writes nothing where the range check reported.
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
  long long t = (long long)idx[j];
  if (t < 0) t += n;
  x[(o * n + t) * inner + i] = Scalar ? s : (T)v[o * vo + j * vj + i * vi];
}
