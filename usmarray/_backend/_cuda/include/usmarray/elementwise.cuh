// The layout side of usmarray's CUDA elementwise engine.
//
// A generated kernel defines USM_OP(...) (the operation's body from the kernel
// generator, reading a0, a1, ... and s0, s1, ... and writing z) and calls one of the
// loops below.  The loops only move data: which elements, in which order, with which
// index width.  The data types are the generator's spellings of the standard's dtypes.

typedef signed char int8;
typedef unsigned char uint8;
typedef short int16;
typedef unsigned short uint16;
typedef int int32;
typedef unsigned int uint32;
typedef long long int64;
typedef unsigned long long uint64;
typedef float float32;
typedef double float64;

// E elements of T that move as one aligned load or store (16 bytes at most).
template <typename T, int E>
struct alignas(sizeof(T) * E) usm_vec {
  T v[E];
};

// The shape of a call after its axes were merged, and each operand's strides in
// elements (0 on a broadcast axis; negative for a reversed axis).  Passed by value as
// the kernel's last parameter.
template <int ND, int NA>
struct usm_layout {
  long long shape[ND];
  long long st[NA][ND];
};

// The element offsets of flat position i (the result's C order over the merged shape)
// in each of the NA operands.
template <typename I, int ND, int NA>
__device__ __forceinline__ void usm_offsets(const usm_layout<ND, NA>& lay, I i, I (&off)[NA]) {
#pragma unroll
  for (int k = 0; k < NA; ++k) off[k] = 0;
#pragma unroll
  for (int d = ND - 1; d >= 0; --d) {
    const I n = (I)lay.shape[d];
    const I c = (d == 0) ? i : i % n;
    if (d != 0) i /= n;
#pragma unroll
    for (int k = 0; k < NA; ++k) off[k] += c * (I)lay.st[k][d];
  }
}

// The first position and the stride of a grid-stride loop.
template <typename I>
__device__ __forceinline__ I usm_first() { return (I)blockIdx.x * blockDim.x + threadIdx.x; }
template <typename I>
__device__ __forceinline__ I usm_step() { return (I)gridDim.x * blockDim.x; }
