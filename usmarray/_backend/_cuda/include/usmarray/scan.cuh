// The block scan of scan.py (1024 elements a step: four consecutive elements a
// thread, a warp scan by shuffles, then a scan of the eight warp totals) and the body
// of its one-block-a-row kernel; compact.cuh scans its flags with the same step.
//
// Templates over T (the input's element type), O (the result's, that the scan runs
// in), Op (usm_sum or usm_prod of O) and E (how an element enters the scan, and what
// is stored for it).  Nothing needs to be defined first.  A kernel's entry point
// declares the block's warp totals, __shared__ O wt[8], and passes them.

#ifndef USMARRAY_SCAN_CUH
#define USMARRAY_SCAN_CUH

template <typename O>
struct usm_sum {
  static __device__ __forceinline__ O ident() { return (O)0; }
  static __device__ __forceinline__ O op(const O a, const O b) { return a + b; }
};
template <typename O>
struct usm_prod {
  static __device__ __forceinline__ O ident() { return (O)1; }
  static __device__ __forceinline__ O op(const O a, const O b) { return a * b; }
};

// x[j] enters as it is; y[j] gets the inclusive result r at j
struct usm_scan_plain {
  template <typename T>
  __device__ __forceinline__ T load(const T* __restrict__ x, const long long j) const {
    return x[j];
  }
  template <typename T, typename O>
  __device__ __forceinline__ void store(const T* __restrict__ x, O* __restrict__ y,
                                        const long long j, const O r) const {
    y[j] = r;
  }
};

// scan x[lo, hi) after carry, storing each result; returns carry combined with their total
template <typename Op, typename T, typename O, typename E>
__device__ __forceinline__ O usm_scan_step(const T* __restrict__ x, O* __restrict__ y,
                                           const long long lo, const long long hi,
                                           const O carry, O* wt, const E& em) {
  const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5;
  const long long base = lo + 4LL * tid;
  O v[4];
  #pragma unroll
  for (int k = 0; k < 4; k++) {
    const long long j = base + k;
    v[k] = j < hi ? (O)em.load(x, j) : Op::ident();
  }
  v[1] = Op::op(v[0], v[1]); v[2] = Op::op(v[1], v[2]); v[3] = Op::op(v[2], v[3]);
  O t = v[3];
  #pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const O n = __shfl_up_sync(0xffffffffu, t, o);
    if (lane >= o) t = Op::op(n, t);
  }
  if (lane == 31) wt[w] = t;
  __syncthreads();
  if (w == 0) {
    O s = lane < 8 ? wt[lane] : Op::ident();
    #pragma unroll
    for (int o = 1; o < 8; o <<= 1) {
      const O n = __shfl_up_sync(0xffffffffu, s, o);
      if (lane >= o) s = Op::op(n, s);
    }
    if (lane < 8) wt[lane] = s;
  }
  __syncthreads();
  O ex = __shfl_up_sync(0xffffffffu, t, 1);
  if (lane == 0) ex = Op::ident();
  O pre = Op::op(carry, w > 0 ? Op::op(wt[w - 1], ex) : ex);
  #pragma unroll
  for (int k = 0; k < 4; k++) {
    const long long j = base + k;
    if (j < hi) em.store(x, y, j, Op::op(pre, v[k]));
  }
  const O total = Op::op(carry, wt[7]);
  __syncthreads();
  return total;
}

// one block a row: each row of x (R elements) scanned into y's (yR elements, from
// column off; off 1 puts the identity first)
template <typename Op, typename T, typename O>
__device__ __forceinline__ void usm_scan_rows(const T* __restrict__ x, O* __restrict__ y,
                                              const long long rows, const long long R,
                                              const long long yR, const long long off,
                                              O* wt) {
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * R;
    O* yr = y + row * yR + off;
    if (off && threadIdx.x == 0) yr[-1] = Op::ident();
    O carry = Op::ident();
    for (long long lo = 0; lo < R; lo += 1024)
      carry = usm_scan_step<Op>(xr, yr, lo, R < lo + 1024 ? R : lo + 1024, carry, wt,
                                usm_scan_plain());
  }
}

#endif  // USMARRAY_SCAN_CUH
