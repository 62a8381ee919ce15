// arange and eye by formula (ramp.py; linspace's kernel is in linspace.cuh).
// Templates; the includer defines nothing.

// out[i] = start + i * step computed in W (from the arguments' type P), cast to T.
template <typename W, typename T, typename P>
__device__ __forceinline__ void usm_arange(T* __restrict__ out, const long long n,
                                           const P start_p, const P step_p) {
  const long long st = (long long)gridDim.x * blockDim.x;
  const W start = (W)start_p, step = (W)step_p;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += st)
    out[i] = (T)(start + (W)i * step);
}

// The (rows, cols) matrix with ones on diagonal diag: a thread a column, grid y rows.
template <typename T>
__device__ __forceinline__ void usm_eye(T* __restrict__ out, const long long rows,
                                        const long long cols, const long long diag) {
  const long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  for (long long r = blockIdx.y; r < rows; r += gridDim.y) out[r * cols + c] = (T)(c - r == diag);
}
