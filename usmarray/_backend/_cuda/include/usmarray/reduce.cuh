// The passes of usmarray's CUDA reductions: kernel `k`, reducing rows (TPR threads a
// row) or columns (BX columns, BY threads a column) of a chunk of the reduced axis.
//
// reduce_source.py writes what varies per kernel, then appends this header:
//   T, S, O               the element, accumulation and result types
//   A, ident(), load(x, r), merge(a, b), fin(a, n, corr)
//                         the accumulator and the operation
//   shfl(a, off, w)       a's fields shuffled down by `off` lanes in groups of w
//   ldcg(q)               the accumulator at q, read through L2 (a fused row pass)
//   INP, get(p, k, r)     the input (a pointer, or a value type with `+` and `[k]`) and
//                         the accumulator of its element k at reduced index r
//   OUT, put(a, n, corr)  what a pass writes: an accumulator (A) or a result (O)
//   XPARAMS, XINIT        the input's kernel parameters, and the statement that makes
//                         the input `x` (an INP) from them
//   VSETUP, VLOAD(U, J)   the setup of a row's vector reads, and the read of its J-th
//                         vector of VEC elements into U.e (row passes with VEC > 1)
// and either a row pass's TPR, VEC (elements a vector read; 1: element by element),
// UNROLL (vectors in flight a thread, 2 or 4) and FUSED (0 or 1; TPR 256 only: the
// pass also finishes its rows' chunks, with two more parameters), or a column pass's
// BX and BY.

#ifdef TPR
extern "C" __global__ void __launch_bounds__(256) k(XPARAMS,
    OUT* __restrict__ y, const long long rows, const long long R,
    const long long chunk, const long long n, const double corr
#if FUSED
    , O* __restrict__ res, unsigned int* __restrict__ counter
#endif
    ) {
  XINIT
  const int lane = threadIdx.x % TPR;
  const long long row = (long long)blockIdx.x * (256 / TPR) + threadIdx.x / TPR;
  A a = ident();
  if (row < rows) {
    const long long lo = (long long)blockIdx.y * chunk;
    const long long hi = R < lo + chunk ? R : lo + chunk;
#if VEC > 1
    // rows and chunks start on a vector boundary (the plan checks)
    union U { uint4 v; T e[VEC]; };
    VSETUP
    long long j = lo / VEC + lane;
    const long long hv = hi / VEC;
    for (; j + (UNROLL - 1) * TPR < hv; j += UNROLL * TPR) {
      U u0; VLOAD(u0, j);
      U u1; VLOAD(u1, j + TPR);
#if UNROLL == 4
      U u2; VLOAD(u2, j + 2 * TPR);
      U u3; VLOAD(u3, j + 3 * TPR);
#endif
      A b0 = load(u0.e[0], j * VEC);
      A b1 = load(u1.e[0], (j + TPR) * VEC);
#if UNROLL == 4
      A b2 = load(u2.e[0], (j + 2 * TPR) * VEC);
      A b3 = load(u3.e[0], (j + 3 * TPR) * VEC);
#endif
      #pragma unroll
      for (int c = 1; c < VEC; c++) {
        b0 = merge(b0, load(u0.e[c], j * VEC + c));
        b1 = merge(b1, load(u1.e[c], (j + TPR) * VEC + c));
#if UNROLL == 4
        b2 = merge(b2, load(u2.e[c], (j + 2 * TPR) * VEC + c));
        b3 = merge(b3, load(u3.e[c], (j + 3 * TPR) * VEC + c));
#endif
      }
#if UNROLL == 4
      a = merge(a, merge(merge(b0, b1), merge(b2, b3)));
#else
      a = merge(a, merge(b0, b1));
#endif
    }
    for (; j < hv; j += TPR) {
      U u0; VLOAD(u0, j);
      #pragma unroll
      for (int c = 0; c < VEC; c++) a = merge(a, load(u0.e[c], j * VEC + c));
    }
#else
    const INP p = x + row * R;
    long long j = lo + lane;
    for (; j + 3 * TPR < hi; j += 4 * TPR) {
      const A a0 = get(p, j, j), a1 = get(p, j + TPR, j + TPR);
      const A a2 = get(p, j + 2 * TPR, j + 2 * TPR), a3 = get(p, j + 3 * TPR, j + 3 * TPR);
      a = merge(a, merge(merge(a0, a1), merge(a2, a3)));
    }
    for (; j < hi; j += TPR) a = merge(a, get(p, j, j));
#endif
  }
  constexpr int W = TPR < 32 ? TPR : 32;  // a row's lanes in one warp
  for (int off = W / 2; off > 0; off >>= 1) a = merge(a, shfl(a, off, W));
#if TPR > 32
  __shared__ A sm[TPR / 32];
  if (lane % 32 == 0) sm[lane / 32] = a;
  __syncthreads();
  if (lane < 32) {
    a = lane < TPR / 32 ? sm[lane] : ident();
    for (int off = 16; off > 0; off >>= 1) a = merge(a, shfl(a, off, 32));
  }
#endif
  if (lane == 0 && row < rows) y[row * gridDim.y + blockIdx.y] = put(a, n, corr);
#if FUSED
  // TPR is 256 and gridDim.y chunks a row: the block that finishes a row's chunks last
  // merges their accumulators, writes the row's result and resets the row's counter
  // for the next launch on the stream; it reads the partials through L2 after the
  // writers' fences, as the CUDA guide's last-block reduction does
  __shared__ int last;
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(counter + row, 1u) == gridDim.y - 1;
  }
  __syncthreads();
  if (!last) return;
  const A* q = y + row * gridDim.y;
  a = ident();
  for (unsigned int j = threadIdx.x; j < gridDim.y; j += 256) a = merge(a, ldcg(q + j));
  for (int off = 16; off > 0; off >>= 1) a = merge(a, shfl(a, off, 32));
  if (threadIdx.x % 32 == 0) sm[threadIdx.x / 32] = a;
  __syncthreads();
  if (threadIdx.x < 32) {
    a = threadIdx.x < 8 ? sm[threadIdx.x] : ident();
    for (int off = 16; off > 0; off >>= 1) a = merge(a, shfl(a, off, 32));
    if (threadIdx.x == 0) { res[row] = fin(a, n, corr); counter[row] = 0u; }
  }
#endif
}
#else  // a column pass
extern "C" __global__ void __launch_bounds__(256) k(XPARAMS,
    OUT* __restrict__ y, const long long I, const long long R,
    const long long chunk, const long long nbx, const long long n, const double corr) {
  XINIT
  const long long o = blockIdx.x / nbx;
  const long long i = (blockIdx.x - o * nbx) * BX + threadIdx.x;
  A a = ident();
  if (i < I) {
    const long long lo = (long long)blockIdx.y * chunk;
    const long long hi = R < lo + chunk ? R : lo + chunk;
    const INP p = x + o * R * I + i;
    long long r = lo + threadIdx.y;
    for (; r + 3 * BY < hi; r += 4 * BY) {
      const A a0 = get(p, r * I, r), a1 = get(p, (r + BY) * I, r + BY);
      const A a2 = get(p, (r + 2 * BY) * I, r + 2 * BY);
      const A a3 = get(p, (r + 3 * BY) * I, r + 3 * BY);
      a = merge(a, merge(merge(a0, a1), merge(a2, a3)));
    }
    for (; r < hi; r += BY) a = merge(a, get(p, r * I, r));
  }
  __shared__ A sm[BY][BX];
  sm[threadIdx.y][threadIdx.x] = a;
  __syncthreads();
  for (int s = BY / 2; s > 0; s >>= 1) {
    if (threadIdx.y < s)
      sm[threadIdx.y][threadIdx.x] = merge(sm[threadIdx.y][threadIdx.x],
                                           sm[threadIdx.y + s][threadIdx.x]);
    __syncthreads();
  }
  if (threadIdx.y == 0 && i < I)
    y[(o * gridDim.y + blockIdx.y) * I + i] = put(sm[0][threadIdx.x], n, corr);
}
#endif  // TPR
