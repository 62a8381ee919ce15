// concat and stack's copy (join.py), and its entry point k.  Templates over T, the
// word that moves an element (or several), and K, the most inputs a launch takes; the
// includer defines T and USM_JOIN_INPUTS (K of the entry point).

// The inputs, passed by value: input i's pointer, its run of `inner` words in each of
// the output's rows, and the column where that run starts.
template <typename T, int K>
struct usm_join_tab {
  const T* p[K];
  long long inner[K];
  long long off[K];
};

// Grid row y copies input y into the (outer, total) output; where outer is 1 each input
// is one contiguous run (a grid-stride loop, four loads before their stores), else
// blocks take rows and threads stride along them.
template <typename T, int K>
__device__ __forceinline__ void usm_join(const usm_join_tab<T, K>& tab, T* __restrict__ out,
                                         const long long outer, const long long total) {
  const int i = blockIdx.y;
  const T* __restrict__ src = tab.p[i];
  const long long inner = tab.inner[i];
  T* __restrict__ dst = out + tab.off[i];
  if (outer == 1) {
    const long long step = (long long)gridDim.x * blockDim.x;
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (; e + 3 * step < inner; e += 4 * step) {
      const T a0 = src[e], a1 = src[e + step], a2 = src[e + 2 * step], a3 = src[e + 3 * step];
      dst[e] = a0; dst[e + step] = a1; dst[e + 2 * step] = a2; dst[e + 3 * step] = a3;
    }
    for (; e < inner; e += step) dst[e] = src[e];
  } else {
    for (long long o = blockIdx.x; o < outer; o += gridDim.x) {
      const T* __restrict__ s = src + o * inner;
      T* __restrict__ d = dst + o * total;
      for (long long j = threadIdx.x; j < inner; j += blockDim.x) d[j] = s[j];
    }
  }
}

extern "C" __global__ void __launch_bounds__(256) k(const usm_join_tab<T, USM_JOIN_INPUTS> tab,
    T* __restrict__ out, const long long outer, const long long total) {
  usm_join(tab, out, outer, total);
}
