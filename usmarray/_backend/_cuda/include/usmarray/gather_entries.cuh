// The extern "C" entry points k of gather.cuh's kernels, a section each.  A kernel's
// source (kernels/gather_source.py) is gather.cuh, the typedefs T (elements), V
// (values) and I (indices), the flag B, and its section.

// entry: take: take and take_along_axis (B: take_along_axis), one element a thread
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ src,
    const I* __restrict__ idx, T* __restrict__ out, const long long total,
    const long long outer, const long long n, const long long kk, const long long inner) {
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += step)
    usm_take<B>(src, idx, out, e, outer, n, kk, inner);
}

// entry: take4: take of one axis four elements a thread (B: the four indices load at once)
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ src,
    const I* __restrict__ idx, T* __restrict__ out, const long long total,
    const long long n) {
  const long long step = 4LL * gridDim.x * blockDim.x;
  for (long long b = 4LL * ((long long)blockIdx.x * blockDim.x + threadIdx.x); b < total;
       b += step)
    usm_take4<B>(src, idx, out, b, total, n);
}

// entry: take4_checked: the same with its range check in the launch (B: as take4)
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ src,
    const I* __restrict__ idx, T* __restrict__ out, const long long total,
    const long long n, const long long gen, long long* __restrict__ host,
    unsigned int* __restrict__ counter) {
  usm_take4_checked<B>(src, idx, out, total, n, gen, host, counter);
}

// entry: in_range: the range pass (B: four indices load at a time)
extern "C" __global__ void __launch_bounds__(256) k(const I* __restrict__ idx,
    const long long total, const long long n, const long long gen,
    long long* __restrict__ flag, long long* __restrict__ host) {
  usm_in_range<B>(idx, total, n, gen, flag, host);
}

// entry: range: the exact report of an index out of range
extern "C" __global__ void __launch_bounds__(256) k(const I* __restrict__ idx,
    long long* __restrict__ report, const long long total, const long long n) {
  usm_out_of_range(idx, report, total, n);
}

// entry: put: x[idx] = v, after a range pass (B: one value, s)
extern "C" __global__ void __launch_bounds__(256) k(T* __restrict__ x,
    const I* __restrict__ idx, const V* __restrict__ v, const T s,
    const long long* __restrict__ flag, const long long gen, const long long total,
    const long long outer, const long long n, const long long kk, const long long inner,
    const long long vo, const long long vj, const long long vi) {
  if (*flag == gen) return;
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += step)
    usm_put<B>(x, idx, v, s, e, outer, n, kk, inner, vo, vj, vi);
}

// entry: put_checked: x[idx] = v of one axis by one block, its range check in the
// launch (B: as put)
extern "C" __global__ void __launch_bounds__(256) k(T* __restrict__ x,
    const I* __restrict__ idx, const V* __restrict__ v, const T s, const long long kk,
    const long long n, const long long vj, const long long gen,
    long long* __restrict__ host, unsigned int* __restrict__ counter) {
  usm_put_checked<B>(x, idx, v, s, kk, n, vj, gen, host, counter);
}
