// tril and triu, and the direct solvers' triangles (triangle.py), and its entry point k:
// the includer defines T, the element type.

// Element (b, i, j) of the C-contiguous (batch, rows, cols) dst is src[b*sb + i*si + j*sj]
// (strides in elements, any sign) where j - i <= diag (lower) or >= diag (upper), else 0.
template <typename T>
__device__ __forceinline__ void usm_triangle(const T* __restrict__ src, T* __restrict__ dst,
                                             const long long total, const long long rows,
                                             const long long cols, const long long sb,
                                             const long long si, const long long sj,
                                             const long long diag, const long long lower) {
  const long long st = (long long)gridDim.x * blockDim.x;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += st) {
    const long long r = e / cols, j = e - r * cols;
    const long long b = r / rows, i = r - b * rows;
    const long long d = j - i;
    dst[e] = (lower ? d <= diag : d >= diag) ? src[b * sb + i * si + j * sj] : (T)0;
  }
}

extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ src,
    T* __restrict__ dst, const long long total, const long long rows, const long long cols,
    const long long sb, const long long si, const long long sj, const long long diag,
    const long long lower) {
  usm_triangle(src, dst, total, rows, cols, sb, si, sj, diag, lower);
}
