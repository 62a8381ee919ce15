// solver.py's own kernels around cuSOLVER: slogdet from the LU factors, and the flag
// of a NaN anywhere in a matrix.  Templates over the element type T (float or double);
// the includer defines nothing.

#ifndef USMARRAY_SOLVER_CUH
#define USMARRAY_SOLVER_CUH

// (sign, log|det|, det) of the n x n LU factors lu (getrf's, row pivots ipiv) into
// out[0..2], by one block of 256 threads: a zero pivot gives (0, -inf, 0), a set
// nan_flag a NaN log and determinant (cuSOLVER's LU of a matrix with a NaN need not
// carry the NaN to its diagonal)
template <typename T>
__device__ __forceinline__ void usm_slogdet(const T* __restrict__ lu,
                                            const int* __restrict__ ipiv, T* __restrict__ out,
                                            const long long n,
                                            const int* __restrict__ nan_flag) {
  __shared__ double sl[256];
  __shared__ int sf[256];
  double acc = 0.0;
  int flags = 0;  // bit 0: an odd number of sign changes; bit 1: a zero pivot
  for (long long i = threadIdx.x; i < n; i += 256) {
    const T u = lu[i * n + i];
    if (u == 0) flags |= 2;
    if (u < 0) flags ^= 1;
    if (ipiv[i] != i + 1) flags ^= 1;
    acc += log(fabs((double)u));
  }
  sl[threadIdx.x] = acc;
  sf[threadIdx.x] = flags;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      sl[threadIdx.x] += sl[threadIdx.x + s];
      const int o = sf[threadIdx.x + s];
      sf[threadIdx.x] = (sf[threadIdx.x] ^ (o & 1)) | (o & 2);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const int f = sf[0];
    const double sign = (f & 2) ? 0.0 : ((f & 1) ? -1.0 : 1.0);
    const double logabs = *nan_flag ? __longlong_as_double(0x7ff8000000000000LL)
        : (f & 2) ? __longlong_as_double(0xfff0000000000000LL) : sl[0];
    out[0] = (T)sign;
    out[1] = (T)logabs;
    out[2] = (T)(sign * exp(logabs));
  }
}

// *flag = 1 where an element of a[0..size) is a NaN (a grid-stride loop)
template <typename T>
__device__ __forceinline__ void usm_any_nan(const T* __restrict__ a, int* __restrict__ flag,
                                            const long long size) {
  const long long st = (long long)gridDim.x * blockDim.x;
  bool bad = false;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < size; i += st)
    bad |= a[i] != a[i];
  if (__syncthreads_or(bad) && threadIdx.x == 0) *flag = 1;
}

#endif  // USMARRAY_SOLVER_CUH
