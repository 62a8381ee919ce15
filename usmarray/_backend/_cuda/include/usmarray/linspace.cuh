// linspace's value at one index, NumPy's formula operation by operation, and (CUDA
// compilers only: the formula alone also compiles as host C++) the kernel's loop over
// the indices.  The includer defines nothing.
//
// C is the computation's real type (float or double).  Every operation is rounded
// alone, never contracted into a fused multiply-add, so that the bits are NumPy's.
// The host passes what NumPy computes once per call: the step, or (where the step
// underflows to zero) the divisor and the whole difference.

#ifndef USMARRAY_LINSPACE_CUH
#define USMARRAY_LINSPACE_CUH

__device__ inline float usm_add(float a, float b) { return __fadd_rn(a, b); }
__device__ inline double usm_add(double a, double b) { return __dadd_rn(a, b); }
__device__ inline float usm_sub(float a, float b) { return __fsub_rn(a, b); }
__device__ inline double usm_sub(double a, double b) { return __dsub_rn(a, b); }
__device__ inline float usm_mul(float a, float b) { return __fmul_rn(a, b); }
__device__ inline double usm_mul(double a, double b) { return __dmul_rn(a, b); }
__device__ inline float usm_div(float a, float b) { return __fdiv_rn(a, b); }
__device__ inline double usm_div(double a, double b) { return __ddiv_rn(a, b); }

// The value at index i of n as (re, im).  NumPy computes y = arange(n) in the
// computation dtype, then y * step (or y / div * delta: `by_div`), then y + start, and
// sets the last element to stop (`last_is_stop`).  `scale` is div for a real
// computation and 1 / div for a complex one (NumPy's complex division by a real
// divisor multiplies by its reciprocal); `m` is the step, or delta where `by_div`.
// A complex y is i + 0j, so its products keep NumPy's zero terms for their signs.
template <typename C, bool Complex>
__device__ inline void usm_linspace_value(long long i, long long n, C start_r, C start_i,
                                          C stop_r, C stop_i, C scale, C m_r, C m_i,
                                          bool by_div, bool last_is_stop, C* re, C* im) {
  if (last_is_stop && i == n - 1) {
    *re = stop_r;
    *im = stop_i;
    return;
  }
  const C zero = 0;
  if (Complex) {
    const C a = by_div ? usm_mul((C)i, scale) : (C)i;
    *re = usm_add(usm_sub(usm_mul(a, m_r), usm_mul(zero, m_i)), start_r);
    *im = usm_add(usm_add(usm_mul(a, m_i), usm_mul(zero, m_r)), start_i);
  } else {
    const C a = by_div ? usm_div((C)i, scale) : (C)i;
    *re = usm_add(usm_mul(a, m_r), start_r);
    *im = zero;
  }
}

#ifdef __CUDACC__
// Every index's value, rounded once to P, the type of one part of a result element of
// W parts (2: complex); the arguments are C's values as doubles.
template <typename C, bool Complex, int W, typename P>
__device__ __forceinline__ void usm_linspace(P* __restrict__ out, const long long n,
                                             const double start_r, const double start_i,
                                             const double stop_r, const double stop_i,
                                             const double scale, const double m_r,
                                             const double m_i, const long long by_div,
                                             const long long last_is_stop) {
  const long long st = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += st) {
    C re, im;
    usm_linspace_value<C, Complex>(i, n, (C)start_r, (C)start_i, (C)stop_r, (C)stop_i,
                                   (C)scale, (C)m_r, (C)m_i, by_div, last_is_stop, &re, &im);
    out[W * i] = (P)re;
    if (W == 2) out[W * i + 1] = (P)im;
  }
}
#endif

#endif  // USMARRAY_LINSPACE_CUH
