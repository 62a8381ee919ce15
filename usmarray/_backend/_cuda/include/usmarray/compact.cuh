// Stream compaction (compact.py): the count and write passes over tiles of flags of
// any type (the write pass scans them with scan.cuh's usm_scan_step) or of one byte
// (sixteen a thread), and the gather of whole selected rows.
//
// Templates over T (the flags' type), V (the values') and Coords (the flagged elements'
// coordinates are put, not their values).  The includer puts scan.cuh first; a kernel's
// entry point declares the shared arrays and passes them.

#ifndef USMARRAY_COMPACT_CUH
#define USMARRAY_COMPACT_CUH

// Puts the flagged element j at output position r - B (B = 1 where r is an inclusive
// count): its value src[j], or (Coords) its coordinates in a C-ordered shape of nd
// axes, axis d at out[d * count + r - B].
template <bool Coords, int B, typename V>
__device__ __forceinline__ void usm_compact_put(const V* src, V* out, const long long count,
                                                const long long nd, const long long* shape,
                                                const long long r, const long long j) {
  if constexpr (!Coords) {
    out[r - B] = src[j];
  } else if (nd == 1) {
    out[r - B] = j;
  } else {
    long long q = j;
    for (long long d = nd - 1; d >= 0; d--) {
      const long long m = shape[d];
      out[d * count + r - B] = q % m;
      q /= m;
    }
  }
}

// usm_scan_step's E for compaction: a flag enters as 0 or 1, a flagged element is put
template <typename V, bool Coords, int ND>
struct usm_compact_emit {
  const V* src;
  V* out;
  long long count;
  long long nd;
  long long shape[ND];

  template <typename T>
  __device__ __forceinline__ bool load(const T* __restrict__ x, const long long j) const {
    return x[j] != 0;
  }
  template <typename T, typename O>
  __device__ __forceinline__ void store(const T* __restrict__ x, O* __restrict__,
                                        const long long j, const O r) const {
    if (x[j] != 0) usm_compact_put<Coords, 1>(src, out, count, nd, shape, r, j);
  }
};

// s[blockIdx.x] = the sum of every thread's a over the block of 256 threads (wt:
// shared, one count a warp)
template <typename C>
__device__ __forceinline__ void usm_block_total(C a, long long* __restrict__ s, C* wt) {
  for (int o = 16; o > 0; o >>= 1) a += __shfl_down_sync(0xffffffffu, a, o);
  if ((threadIdx.x & 31) == 0) wt[threadIdx.x >> 5] = a;
  __syncthreads();
  if (threadIdx.x == 0) {
    long long r = 0;
    for (int i = 0; i < 8; i++) r += wt[i];
    s[blockIdx.x] = r;
  }
}

// the number of nonzero flags of tile blockIdx.x (of `tile` of x's N) into s[blockIdx.x]
template <typename T>
__device__ __forceinline__ void usm_compact_count(const T* __restrict__ x,
                                                  long long* __restrict__ s,
                                                  const long long N, const long long tile,
                                                  long long* wt) {
  const long long lo = blockIdx.x * tile, hi = N < lo + tile ? N : lo + tile;
  long long a = 0;
  for (long long j = lo + threadIdx.x; j < hi; j += 256) a += x[j] != 0;
  usm_block_total(a, s, wt);
}

// tile blockIdx.x's flagged elements put from position offs[blockIdx.x] on, in order
template <typename T, typename E>
__device__ __forceinline__ void usm_compact_write(const T* __restrict__ x,
                                                  const long long* __restrict__ offs,
                                                  const long long N, const long long tile,
                                                  const E& em, long long* wt) {
  const long long lo = blockIdx.x * tile, hi = N < lo + tile ? N : lo + tile;
  long long carry = offs[blockIdx.x];
  for (long long a = lo; a < hi; a += 1024)
    carry = usm_scan_step<usm_sum<long long>>(x, (long long*)0, a,
                                              hi < a + 1024 ? hi : a + 1024, carry, wt, em);
}

// the number of nonzero bytes of a 4-byte word
__device__ __forceinline__ int usm_nz4(const unsigned w) {
  return __popc((((w & 0x7F7F7F7Fu) + 0x7F7F7F7Fu) | w) & 0x80808080u);
}

// the 16 one-byte flags from j (those at or past hi read as 0) as four words: one
// 16-byte load where they are aligned
__device__ __forceinline__ void usm_load16(const unsigned char* __restrict__ x,
                                           const long long j, const long long hi,
                                           unsigned w[4]) {
  if (j + 16 <= hi && !(((size_t)(x + j)) & 15)) {
    const uint4 v = *reinterpret_cast<const uint4*>(x + j);
    w[0] = v.x; w[1] = v.y; w[2] = v.z; w[3] = v.w;
  } else {
    #pragma unroll
    for (int q = 0; q < 4; q++) {
      unsigned u = 0;
      #pragma unroll
      for (int b = 0; b < 4; b++) {
        const long long i = j + 4 * q + b;
        if (i < hi && x[i]) u |= 1u << (8 * b);
      }
      w[q] = u;
    }
  }
}

// usm_compact_count of one-byte flags
__device__ __forceinline__ void usm_compact_count_bytes(const unsigned char* __restrict__ x,
                                                        long long* __restrict__ s,
                                                        const long long N,
                                                        const long long tile, int* wt) {
  const long long lo = blockIdx.x * tile, hi = N < lo + tile ? N : lo + tile;
  int a = 0;
  for (long long j = lo + 16 * threadIdx.x; j < hi; j += 4096) {
    unsigned w[4];
    usm_load16(x, j, hi, w);
    a += usm_nz4(w[0]) + usm_nz4(w[1]) + usm_nz4(w[2]) + usm_nz4(w[3]);
  }
  usm_block_total(a, s, wt);
}

// usm_compact_write of one-byte flags: 4096 flags a step, each thread's 16 counted, a
// block scan of the counts, the flagged positions staged in buf in order, then put by
// consecutive threads
template <bool Coords, typename V>
__device__ __forceinline__ void usm_compact_write_bytes(
    const unsigned char* __restrict__ x, const V* __restrict__ src, V* __restrict__ out,
    const long long* __restrict__ offs, const long long N, const long long tile,
    const long long count, const long long nd, const long long* shape, long long* buf,
    int* wt) {
  const int tid = threadIdx.x, lane = tid & 31, wp = tid >> 5;
  const long long lo = blockIdx.x * tile, hi = N < lo + tile ? N : lo + tile;
  long long base = offs[blockIdx.x];
  for (long long a = lo; a < hi; a += 4096) {
    const long long j0 = a + 16 * tid;
    unsigned w[4];
    usm_load16(x, j0, hi, w);
    const int c = usm_nz4(w[0]) + usm_nz4(w[1]) + usm_nz4(w[2]) + usm_nz4(w[3]);
    int incl = c;
    #pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const int n = __shfl_up_sync(0xffffffffu, incl, o);
      if (lane >= o) incl += n;
    }
    if (lane == 31) wt[wp] = incl;
    __syncthreads();
    int before = 0, step = 0;
    #pragma unroll
    for (int i = 0; i < 8; i++) { const int v = wt[i]; before += i < wp ? v : 0; step += v; }
    int pos = before + incl - c;
    #pragma unroll
    for (int b = 0; b < 16; b++)
      if ((w[b >> 2] >> (8 * (b & 3))) & 0xFFu) buf[pos++] = j0 + b;
    __syncthreads();
    for (int i = tid; i < step; i += 256) {
      const long long j = buf[i], r = base + i;
      usm_compact_put<Coords, 0>(src, out, count, nd, shape, r, j);
    }
    base += step;
    __syncthreads();
  }
}

// x[mask] for a mask of x's leading axes: the rows (of `inner` elements) at the flat
// row positions `rows`, `total` elements in all
template <typename T>
__device__ __forceinline__ void usm_compact_rows(const T* __restrict__ x,
                                                 const long long* __restrict__ rows,
                                                 T* __restrict__ out, const long long total,
                                                 const long long inner) {
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += step) {
    const long long r = e / inner;
    out[e] = x[rows[r] * inner + (e - r * inner)];
  }
}

#endif  // USMARRAY_COMPACT_CUH
