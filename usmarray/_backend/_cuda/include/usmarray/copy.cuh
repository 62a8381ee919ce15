// Copies that move elements as they are (broadcast.py): rows of one block, repeat and
// roll.  Each function is a whole grid-stride kernel body over elements of T (any type
// that moves one; the includer defines nothing).

// `rows` copies of the `m` elements at src, one after another (grid y takes rows).
template <typename T>
__device__ __forceinline__ void usm_rows_of(const T* __restrict__ src, T* __restrict__ out,
                                            const long long rows, const long long m) {
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long r = blockIdx.y; r < rows; r += gridDim.y) {
    T* __restrict__ orow = out + r * m;
    for (long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x; c < m; c += step)
      orow[c] = src[c];
  }
}

// (outer, n, inner) -> (outer, n * reps, inner): each row of the axis `reps` times.
template <typename T>
__device__ __forceinline__ void usm_repeat(const T* __restrict__ src, T* __restrict__ out,
                                           const long long total, const long long inner,
                                           const long long reps) {
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += step) {
    long long s;
    if (inner == 1) {
      s = e / reps;
    } else {
      const long long row = e / inner;
      s = (row / reps) * inner + (e - row * inner);
    }
    out[e] = src[s];
  }
}

// (outer, n, inner): each element moved s rows on along the axis of n, wrapping.
template <typename T>
__device__ __forceinline__ void usm_roll(const T* __restrict__ src, T* __restrict__ out,
                                         const long long total, const long long n,
                                         const long long inner, const long long s) {
  const long long step = (long long)gridDim.x * blockDim.x;
  const long long block = n * inner;
  const long long moved = s * inner;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += step) {
    long long d;
    if (block == total) {
      d = e + moved;
      if (d >= total) d -= total;
    } else {
      const long long o = e / block;
      const long long r = e - o * block + moved;
      d = o * block + (r >= block ? r - block : r);
    }
    out[d] = src[e];
  }
}
