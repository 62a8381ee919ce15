// sort.py's kernels, one block a row: a bitonic sort of (key, position) pairs in
// dynamic shared memory, and CUB's block radix sort of the same pairs.
//
// The includer defines T (the elements' type), K (their unsigned key type) and
// key_of(v) (keys.py's key_source) before this header, and for the radix sort
// includes <cub/block/block_radix_sort.cuh>.  Arg: the sort's positions are written
// (as long long), else its values.

#ifndef USMARRAY_SORT_CUH
#define USMARRAY_SORT_CUH

__device__ __forceinline__ float usm_sort_canonical(const float v) {
  return v != v ? __int_as_float(0x7fc00000) : v;
}
__device__ __forceinline__ double usm_sort_canonical(const double v) {
  return v != v ? __longlong_as_double(0x7ff8000000000000LL) : v;
}
template <typename U>
__device__ __forceinline__ U usm_sort_canonical(const U v) { return v; }

// element i of a sorted row from its sorted position p
template <bool Arg, typename Y, typename P>
__device__ __forceinline__ void usm_sort_put(Y* yr, const T* xr, const int i, const P p) {
  if constexpr (Arg) {
    yr[i] = (long long)p;
  } else {
    yr[i] = usm_sort_canonical(xr[p]);
  }
}

__device__ __forceinline__ bool usm_sort_less(const K ka, const unsigned int ia, const K kb,
                                              const unsigned int ib) {
  return ka < kb || (ka == kb && ia < ib);
}

// rows of R elements, padded to P (a power of two) with the largest key
template <bool Arg, typename Y>
__device__ __forceinline__ void usm_sort_bitonic(const T* __restrict__ x, Y* __restrict__ y,
                                                 const long long rows, const long long R,
                                                 const int P, const int descending) {
  extern __shared__ unsigned char smem[];
  K* key = (K*)smem;
  unsigned int* pos = (unsigned int*)(smem + ((sizeof(K) * P + 7) & ~(size_t)7));
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * R;
    for (int i = threadIdx.x; i < P; i += blockDim.x) {
      if (i < R) {
        const K kv = key_of(xr[i]);
        key[i] = descending ? (K)~kv : kv;
      } else {
        key[i] = (K)~(K)0;
      }
      pos[i] = i;
    }
    __syncthreads();
    for (int s = 2; s <= P; s <<= 1) {
      for (int j = s >> 1; j > 0; j >>= 1) {
        for (int i = threadIdx.x; i < P; i += blockDim.x) {
          const int o = i ^ j;
          if (o > i) {
            const bool up = (i & s) == 0;
            const K ki = key[i], ko = key[o];
            const unsigned int pi = pos[i], po = pos[o];
            if (usm_sort_less(ko, po, ki, pi) == up) {
              key[i] = ko; key[o] = ki; pos[i] = po; pos[o] = pi;
            }
          }
        }
        __syncthreads();
      }
    }
    Y* yr = y + row * R;
    for (int i = threadIdx.x; i < R; i += blockDim.x) usm_sort_put<Arg>(yr, xr, i, pos[i]);
    __syncthreads();
  }
}

// rows of up to BT * IPT elements; Sort is cub::BlockRadixSort<K, BT, IPT, int>
template <bool Arg, int BT, int IPT, typename Sort, typename Y>
__device__ __forceinline__ void usm_sort_radix(const T* __restrict__ x, Y* __restrict__ y,
                                               const long long rows, const long long R,
                                               const int descending,
                                               typename Sort::TempStorage& tmp) {
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * R;
    K keys[IPT];
    int pos[IPT];
#pragma unroll
    for (int i = 0; i < IPT; i++) {
      const int j = threadIdx.x * IPT + i;
      if (j < R) {
        const K kv = key_of(xr[j]);
        keys[i] = descending ? (K)~kv : kv;
      } else {
        keys[i] = (K)~(K)0;
      }
      pos[i] = j;
    }
    Sort(tmp).SortBlockedToStriped(keys, pos);
    Y* yr = y + row * R;
#pragma unroll
    for (int r = 0; r < IPT; r++) {
      const int i = r * BT + threadIdx.x;
      if (i < R) usm_sort_put<Arg>(yr, xr, i, pos[r]);
    }
    __syncthreads();
  }
}

#endif  // USMARRAY_SORT_CUH
