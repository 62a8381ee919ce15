// The single-pass scan of scan.py's long rows: a tile of BT * IPT elements a block,
// the tiles of a row chained by decoupled look-back (each tile publishes its total,
// then its inclusive prefix, and reads its predecessors' in windows of a warp),
// built from CUB's block primitives (BlockLoad, BlockScan, BlockStore) and its tile
// status (ScanTileState, TilePrefixCallbackOp).
//
// The includer includes scan.cuh (usm_sum, usm_prod), then CUB's
// <cub/block/block_load.cuh>, <cub/block/block_scan.cuh>, <cub/block/block_store.cuh>
// and <cub/agent/single_pass_scan_operators.cuh>.  Row blockIdx.y has its own tile
// status at state + blockIdx.y * stride bytes (ntiles + 32 status words).

#ifndef USMARRAY_SCAN_CHAINED_CUH
#define USMARRAY_SCAN_CHAINED_CUH

// Op (usm_sum or usm_prod of O) as the functor CUB's scans call
template <typename Op, typename O>
struct usm_scan_fn {
  __device__ __forceinline__ O operator()(const O& a, const O& b) const { return Op::op(a, b); }
};

// the tile status of row blockIdx.y, every tile not yet published
template <typename O>
__device__ __forceinline__ void usm_scan_chained_init(void* state, const int ntiles,
                                                      const long long stride) {
  cub::ScanTileState<O> st;
  st.Init(ntiles, (char*)state + blockIdx.y * stride, 0);
  st.InitializeStatus(ntiles);
}

template <typename Op, int BT, int IPT, typename T, typename O>
struct usm_scan_chained {
  typedef usm_scan_fn<Op, O> F;
  typedef cub::ScanTileState<O> State;
  typedef cub::BlockLoad<T, BT, IPT, cub::BLOCK_LOAD_WARP_TRANSPOSE> Load;
  typedef cub::BlockStore<O, BT, IPT, cub::BLOCK_STORE_WARP_TRANSPOSE> Store;
  typedef cub::BlockScan<O, BT, cub::BLOCK_SCAN_WARP_SCANS> Scan;
  typedef cub::TilePrefixCallbackOp<O, F, State> Prefix;
  union Storage {
    typename Load::TempStorage load;
    typename Store::TempStorage store;
    struct {
      typename Scan::TempStorage scan;
      typename Prefix::TempStorage prefix;
    } scan;
  };

  // tile blockIdx.x of row blockIdx.y: x's row of R elements scanned into y's (yR
  // elements, from column off; off 1 puts the identity first)
  static __device__ __forceinline__ void run(const T* __restrict__ x, O* __restrict__ y,
                                             void* state, const long long R,
                                             const long long yR, const long long off,
                                             const long long stride, Storage& tmp) {
    const int tile = blockIdx.x;
    const long long row = blockIdx.y;
    const T* xr = x + row * R;
    O* yr = y + row * yR + off;
    if (off && tile == 0 && threadIdx.x == 0) yr[-1] = Op::ident();
    State st;
    st.Init(0, (char*)state + row * stride, 0);
    const long long base = (long long)tile * (BT * IPT);
    const int valid = R - base < BT * IPT ? (int)(R - base) : BT * IPT;
    T t[IPT];
    O v[IPT];
    if (valid == BT * IPT) {
      Load(tmp.load).Load(xr + base, t);
    } else {
      Load(tmp.load).Load(xr + base, t, valid);
    }
    #pragma unroll
    for (int k = 0; k < IPT; k++) v[k] = (int)threadIdx.x * IPT + k < valid ? (O)t[k] : Op::ident();
    __syncthreads();
    F f;
    if (tile == 0) {
      O total;
      Scan(tmp.scan.scan).InclusiveScan(v, v, f, total);
      if (threadIdx.x == 0 && gridDim.x > 1) st.SetInclusive(0, total);
    } else {
      Prefix prefix(st, tmp.scan.prefix, f, tile);
      Scan(tmp.scan.scan).InclusiveScan(v, v, f, prefix);
    }
    __syncthreads();
    if (valid == BT * IPT) {
      Store(tmp.store).Store(yr + base, v);
    } else {
      Store(tmp.store).Store(yr + base, v, valid);
    }
  }
};

#endif
