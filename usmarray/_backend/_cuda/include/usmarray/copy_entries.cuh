// The extern "C" entry points k of copy.cuh's copies, a section each (kernels/
// copy_source.py): T, the word that moves an element (kernels/_launch.py's WORDS),
// comes first.

// entry: rows_of: the rows of a broadcast
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ src,
    T* __restrict__ out, const long long rows, const long long m) {
  usm_rows_of(src, out, rows, m);
}

// entry: repeat: repeat
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ src,
    T* __restrict__ out, const long long total, const long long inner, const long long reps) {
  usm_repeat(src, out, total, inner, reps);
}

// entry: roll: roll
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ src,
    T* __restrict__ out, const long long total, const long long n, const long long inner,
    const long long s) {
  usm_roll(src, out, total, n, inner, s);
}
