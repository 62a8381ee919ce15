// searchsorted's binary search (search.py), and its entry point k: each value of v
// looked up in the ascending x, compared by their order keys.
//
// The includer defines T (the elements' type) and key_of(v) (keys.py's key_source)
// before this header.

#ifndef USMARRAY_SEARCH_CUH
#define USMARRAY_SEARCH_CUH

__device__ __forceinline__ bool usm_search_lt(const T a, const T b) {
  return key_of(a) < key_of(b);
}

// out[i]: the position of v[i] in x (n elements xs apart, through sorter where it is
// not null): the first whose element is not below it, or (right) above it
__device__ __forceinline__ void usm_search(const T* __restrict__ x,
                                           const long long* __restrict__ sorter,
                                           const T* __restrict__ v, long long* __restrict__ out,
                                           const long long n, const long long m,
                                           const long long xs, const long long right) {
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += step) {
    const T t = v[i];
    long long lo = 0, hi = n;
    while (lo < hi) {
      const long long mid = (lo + hi) >> 1;
      const T e = x[(sorter ? sorter[mid] : mid) * xs];
      if (right ? !usm_search_lt(t, e) : usm_search_lt(e, t)) lo = mid + 1; else hi = mid;
    }
    out[i] = lo;
  }
}

#endif  // USMARRAY_SEARCH_CUH

extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ x,
    const long long* __restrict__ sorter, const T* __restrict__ v,
    long long* __restrict__ out, const long long n, const long long m,
    const long long xs, const long long right) {
  usm_search(x, sorter, v, out, n, m, xs, right);
}
