"""cuSOLVER routines called directly, one status read per call.

``cupy.linalg`` under ``cupyx.errstate(linalg="raise")`` reads cuSOLVER's info flag
back after every routine (``solve`` and ``inv``: two host synchronizations), and its
``svd`` is ``gesvd``.  The functions here run the same factorizations with the info
flags of all routines in one device array read once, and pick the routine per shape
by measurement (docs/performance.md):

- ``cholesky``: ``potrf``;
- ``solve``: ``getrf`` + ``getrs`` (LU with partial pivoting, as LAPACK's ``gesv``);
- ``eigh``/``eigvalsh``: ``syevd``, one status read;
- ``qr``: ``geqrf`` and ``orgqr``, ``r`` taken out by one kernel, nothing read back;
- ``det`` and ``slogdet``: ``getrf`` and one small kernel over the diagonal and the
  pivots, no status read (a zero pivot is a determinant of zero, no error);
- ``svd``: ``gesvdj`` (one-sided Jacobi, PyTorch's default on CUDA) for one matrix,
  ``gesvdjBatched`` for matrices up to 32x32 (one or a stack); a Jacobi run that does not
  converge falls back to ``gesvd`` (``cupy.linalg.svd``).

Inputs are C-ordered real (float32/float64) CuPy arrays of one matrix (``svd``: or a
stack of small ones); callers route anything else to ``cupy.linalg``.  Every function
runs on the current device and stream (the caller's placement) and raises
``numpy.linalg.LinAlgError`` as ``cupy.linalg`` does under ``errstate(linalg="raise")``.
"""

from __future__ import annotations

from typing import Any

import cupy
import cupyx.cusolver as _cxs
import numpy as np
from cupy.cuda import device as _device
from cupy_backends.cuda.libs import cublas as _cublas
from cupy_backends.cuda.libs import cusolver as _cs

from .kernels._launch import cached, grid_1d, launch, stream_ptr
from .kernels.triangle import triangle

#: dtypes the direct routines take (the rest goes through cupy.linalg)
REAL = frozenset({np.dtype(np.float32), np.dtype(np.float64)})
#: the triangle potrf factors, in column-major terms, by matrix size: the lower one is
#: 2.6x faster at 2048; at CHOLESKY_SMALL and below both cost the same status read
CHOLESKY_UPLO_SMALL = _cublas.CUBLAS_FILL_MODE_UPPER
CHOLESKY_UPLO = _cublas.CUBLAS_FILL_MODE_LOWER
CHOLESKY_SMALL = 64
#: gesvdjBatched's largest matrix side
BATCHED_SVD_MAX = 32
#: how much taller than wide (or wider than tall) a matrix is before its thin SVD goes
#: through QR: Jacobi sweeps over the m x n matrix cost more than geqrf + orgqr + gemm
QR_SVD_RATIO = 4
#: the largest matrix side whose SVD runs in host LAPACK: below it gesvdj's per-sweep
#: launches cost more than two copies and the host's decomposition
HOST_SVD_MAX = 256

_POTRF = {"f": (_cs.spotrf_bufferSize, _cs.spotrf), "d": (_cs.dpotrf_bufferSize, _cs.dpotrf)}
_GETRF = {"f": (_cs.sgetrf_bufferSize, _cs.sgetrf), "d": (_cs.dgetrf_bufferSize, _cs.dgetrf)}
_GETRS = {"f": _cs.sgetrs, "d": _cs.dgetrs}
_SYEVD = {"f": (_cs.ssyevd_bufferSize, _cs.ssyevd), "d": (_cs.dsyevd_bufferSize, _cs.dsyevd)}
_GEQRF = {"f": (_cs.sgeqrf_bufferSize, _cs.sgeqrf), "d": (_cs.dgeqrf_bufferSize, _cs.dgeqrf)}
_ORGQR = {"f": (_cs.sorgqr_bufferSize, _cs.sorgqr), "d": (_cs.dorgqr_bufferSize, _cs.dorgqr)}


def _raise_on(info: Any, what: str) -> None:
    """One host read of the info flags of ``what``: LinAlgError when one is non-zero."""
    flags = info.get()
    bad = flags[flags != 0]
    if bad.size:
        raise np.linalg.LinAlgError(f"{what} (cuSOLVER info {int(bad[0])})")


def cholesky(a: Any, upper: bool) -> Any:
    """Cholesky factor of one symmetric positive-definite matrix ``a`` (C order).

    ``potrf`` factors the column-major view of ``a`` (which is ``a`` itself, as ``a``
    is symmetric); its upper factor in column-major order is the lower factor in C
    order, and the other way round."""
    n = a.shape[0]
    out = a.copy()
    size, potrf = _POTRF[a.dtype.char]
    h = _device.get_cusolver_handle()
    uplo = CHOLESKY_UPLO_SMALL if n <= CHOLESKY_SMALL else CHOLESKY_UPLO
    lwork = size(h, uplo, n, out.data.ptr, n)
    work = cupy.empty(max(lwork, 1), a.dtype)
    info = cupy.empty(1, np.int32)
    potrf(h, uplo, n, out.data.ptr, n, work.data.ptr, lwork, info.data.ptr)
    _raise_on(info, "cholesky: the matrix is not positive definite")
    # the factor is the C-order lower triangle of ``out`` where potrf factored the
    # column-major upper one, else its C-order upper triangle; the other one is its
    # transpose
    c_lower = uplo == _cublas.CUBLAS_FILL_MODE_UPPER
    si, sj = (1, n) if upper == c_lower else (n, 1)
    return triangle(out, (n, n), (0, si, sj), 0, not upper, _MULTI_GPU)


def _householder(a: Any, qc: int, form_q: bool) -> tuple[Any, Any]:
    """``geqrf`` of one real m x n matrix ``a``: its ``qc x n`` upper factor R (C order,
    one kernel) and, where ``form_q``, the first ``qc`` columns of Q by ``orgqr``,
    Fortran-ordered (a view of an m x max(n, qc) work buffer), else None; nothing is
    read back."""
    m, n = a.shape
    k = min(m, n)
    if qc > n:  # the complete Q of a tall matrix: m x m room for orgqr
        buf = cupy.empty((m, qc), a.dtype, order="F")
        buf[:, :n] = a
    else:
        buf = a.copy(order="F")
    c = a.dtype.char
    h = _device.get_cusolver_handle()
    tau = cupy.empty(k, a.dtype)
    info = cupy.empty(1, np.int32)
    size, geqrf = _GEQRF[c]
    lwork = size(h, m, n, buf.data.ptr, m)
    work = cupy.empty(max(lwork, 1), a.dtype)
    geqrf(h, m, n, buf.data.ptr, m, tau.data.ptr, work.data.ptr, lwork, info.data.ptr)
    r = triangle(buf, (qc, n), (0, 1, m), 0, False, _MULTI_GPU)
    if not form_q:
        return None, r
    size, orgqr = _ORGQR[c]
    lwork2 = size(h, m, qc, k, buf.data.ptr, m, tau.data.ptr)
    if lwork2 > lwork:
        work = cupy.empty(lwork2, a.dtype)
    orgqr(h, m, qc, k, buf.data.ptr, m, tau.data.ptr, work.data.ptr, max(lwork2, 1),
          info.data.ptr)
    return buf[:, :qc], r


def qr(a: Any, mode: str) -> tuple[Any, Any]:
    """``(q, r)`` of one real m x n matrix (``mode`` "reduced" or "complete"):
    ``geqrf`` and ``orgqr`` on a column-major copy, ``r`` read out of the factored copy
    by one kernel.  QR cannot fail (cuSOLVER's flag reports bad arguments only), so
    nothing is read back."""
    m, n = a.shape
    q, r = _householder(a, m if mode == "complete" else min(m, n), True)
    return cupy.ascontiguousarray(q), r


def eigh(a: Any, vectors: bool) -> Any:
    """Eigenvalues (ascending) and, where ``vectors``, eigenvectors (columns, a
    Fortran-ordered array as ``cupy.linalg.eigh`` gives them) of one real symmetric
    matrix, from its C-order lower triangle (the column-major upper one): ``syevd``
    and one read of its flag (LinAlgError where it does not converge)."""
    n = a.shape[0]
    buf = a.copy()
    w = cupy.empty(n, a.dtype)
    info = cupy.empty(1, np.int32)
    size, syevd = _SYEVD[a.dtype.char]
    h = _device.get_cusolver_handle()
    job = _cs.CUSOLVER_EIG_MODE_VECTOR if vectors else _cs.CUSOLVER_EIG_MODE_NOVECTOR
    uplo = _cublas.CUBLAS_FILL_MODE_UPPER
    lwork = size(h, job, uplo, n, buf.data.ptr, n, w.data.ptr)
    work = cupy.empty(max(lwork, 1), a.dtype)
    syevd(h, job, uplo, n, buf.data.ptr, n, w.data.ptr, work.data.ptr, lwork, info.data.ptr)
    _raise_on(info, "eigh: the eigenvalue iteration did not converge")
    return (w, buf.T) if vectors else w


def _lu(lu: Any, info_ptr: int) -> Any:
    """LU-factor (getrf, partial pivoting) the column-major matrix ``lu`` in place; its
    pivots (1-based).  A zero pivot sets the info flag, it is no error here."""
    n = lu.shape[0]
    size, getrf = _GETRF[lu.dtype.char]
    h = _device.get_cusolver_handle()
    lwork = size(h, n, n, lu.data.ptr, n)
    work = cupy.empty(max(lwork, 1), lu.dtype)
    ipiv = cupy.empty(n, np.int32)
    getrf(h, n, n, lu.data.ptr, n, work.data.ptr, ipiv.data.ptr, info_ptr)
    return ipiv


def solve(a: Any, b: Any) -> Any:
    """``x`` with ``a @ x = b`` for one square matrix ``a`` and ``b`` of shape ``(n, k)``;
    LinAlgError when ``a`` is singular."""
    n = a.shape[0]
    k = b.shape[1]
    lu = a.copy(order="F")
    x = b.copy(order="F")
    info = cupy.zeros(2, np.int32)
    ipiv = _lu(lu, info.data.ptr)
    _GETRS[a.dtype.char](_device.get_cusolver_handle(), _cublas.CUBLAS_OP_N, n, k,
                         lu.data.ptr, n, ipiv.data.ptr, x.data.ptr, n, info.data.ptr + 4)
    _raise_on(info, "solve: the matrix is singular")
    return cupy.ascontiguousarray(x)


_SLOGDET = r"""
typedef {t} T;
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ lu,
    const int* __restrict__ ipiv, T* __restrict__ out, const long long n,
    const int* __restrict__ nan_flag) {{
  __shared__ double sl[256];
  __shared__ int sf[256];
  double acc = 0.0;
  int flags = 0;  // bit 0: an odd number of sign changes; bit 1: a zero pivot
  for (long long i = threadIdx.x; i < n; i += 256) {{
    const T u = lu[i * n + i];
    if (u == 0) flags |= 2;
    if (u < 0) flags ^= 1;
    if (ipiv[i] != i + 1) flags ^= 1;
    acc += log(fabs((double)u));
  }}
  sl[threadIdx.x] = acc;
  sf[threadIdx.x] = flags;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {{
    if (threadIdx.x < s) {{
      sl[threadIdx.x] += sl[threadIdx.x + s];
      const int o = sf[threadIdx.x + s];
      sf[threadIdx.x] = (sf[threadIdx.x] ^ (o & 1)) | (o & 2);
    }}
    __syncthreads();
  }}
  if (threadIdx.x == 0) {{
    const int f = sf[0];
    const double sign = (f & 2) ? 0.0 : ((f & 1) ? -1.0 : 1.0);
    // cuSOLVER's LU of a matrix with a NaN need not carry the NaN to its diagonal
    const double logabs = *nan_flag ? __longlong_as_double(0x7ff8000000000000LL)
        : (f & 2) ? __longlong_as_double(0xfff0000000000000LL) : sl[0];
    out[0] = (T)sign;
    out[1] = (T)logabs;
    out[2] = (T)(sign * exp(logabs));
  }}
}}
"""
_NANS = r"""
typedef {t} T;
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ a,
    int* __restrict__ flag, const long long size) {{
  const long long st = (long long)gridDim.x * blockDim.x;
  bool bad = false;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < size; i += st)
    bad |= a[i] != a[i];
  if (__syncthreads_or(bad) && threadIdx.x == 0) *flag = 1;
}}
"""
_fns: dict = {}
_MULTI_GPU = cupy.cuda.runtime.getDeviceCount() > 1


def slogdet(a: Any) -> tuple[Any, Any, Any]:
    """``(sign, log|det|, det)`` of one real square matrix, as NumPy computes them (from
    the LU factors: a zero pivot gives ``(0, -inf, 0)``, a NaN anywhere a NaN log and
    determinant); no host synchronization."""
    n = a.shape[0]
    lu = a.copy()  # C order: the column-major matrix is a.T, whose determinant is a's
    info = cupy.zeros(2, np.int32)  # getrf's status, then the NaN flag
    t = "float" if a.dtype == np.float32 else "double"
    s = stream_ptr()
    launch(cached(_fns, ("nans", a.dtype), _MULTI_GPU, lambda: _NANS.format(t=t)), grid_1d(n * n),
           (256, 1, 1), "QQq", a.data.ptr, info.data.ptr + 4, n * n, stream=s)
    ipiv = _lu(lu, info.data.ptr)
    out = cupy.empty(3, a.dtype)
    f = cached(_fns, ("slogdet", a.dtype), _MULTI_GPU, lambda: _SLOGDET.format(t=t))
    launch(f, (1, 1, 1), (256, 1, 1), "QQQqQ", lu.data.ptr, ipiv.data.ptr, out.data.ptr, n,
           info.data.ptr + 4, stream=s)
    return out[0], out[1], out[2]


def svd(a: Any, full_matrices: bool, compute_uv: bool) -> Any:
    """``(u, s, vh)`` (or ``s``) of one matrix, or of a stack of matrices with both sides
    at most :data:`BATCHED_SVD_MAX`.

    - One matrix with both sides at most :data:`HOST_SVD_MAX`: host LAPACK (``gesdd``,
      through NumPy), one copy each way; the device routes below where LAPACK does not
      converge.
    - One matrix at least :data:`QR_SVD_RATIO` times taller than wide (or wider than
      tall), thin factors or values only: QR-factored on the device first, and only
      its square factor decomposed.
    - Otherwise Jacobi rotations (``gesvdj``; ``gesvdjBatched`` for a stack of small
      matrices), and ``gesvd`` where Jacobi does not converge."""
    if a.ndim == 2:
        m, n = a.shape
        k = min(m, n)
        if max(m, n) <= HOST_SVD_MAX:
            try:
                return _svd_on_host(a, full_matrices, compute_uv)
            except np.linalg.LinAlgError:
                pass  # (a NaN, say) the device routes decide, as for a larger matrix
        if (not full_matrices or not compute_uv) and max(m, n) >= QR_SVD_RATIO * k > k:
            return _svd_through_qr(a, compute_uv)
    one_small = a.ndim == 2 and max(a.shape) <= BATCHED_SVD_MAX
    try:
        # the batched routine is 3-4x faster on a small matrix
        res = _cxs.gesvdj(a[None] if one_small else a, full_matrices=full_matrices,
                          compute_uv=compute_uv)
    except np.linalg.LinAlgError:
        return cupy.linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)
    if not compute_uv:
        return res[0] if one_small else res
    u, s, v = (r[0] for r in res) if one_small else res
    return cupy.ascontiguousarray(u), s, cupy.ascontiguousarray(cupy.swapaxes(v, -1, -2))


def _svd_on_host(a: Any, full_matrices: bool, compute_uv: bool) -> Any:
    """The SVD of one small matrix by host LAPACK: the Jacobi routines launch kernels
    per sweep, which costs more than the copies and the host's whole decomposition of a
    matrix this small.  Raises NumPy's LinAlgError where LAPACK does not converge."""
    host = cupy.asnumpy(a)
    if not compute_uv:
        return cupy.asarray(np.linalg.svd(host, compute_uv=False))
    return tuple(cupy.asarray(np.ascontiguousarray(r))
                 for r in np.linalg.svd(host, full_matrices=full_matrices))


def _svd_through_qr(a: Any, compute_uv: bool) -> Any:
    """The thin SVD of a tall (or, through its transpose, a wide) matrix: ``a = QR``,
    ``R = U_r S V^T``, ``a = (Q U_r) S V^T``, as LAPACK's drivers do for m >> n.  The
    m x n work is geqrf, orgqr and one product; the decomposition runs on n x n."""
    wide = a.shape[1] > a.shape[0]
    t = a.T if wide else a
    q, r = _householder(t, min(t.shape), compute_uv)
    if not compute_uv:
        return svd(r, False, False)
    ur, s, vh = svd(r, False, True)
    u = cupy.matmul(q, ur)
    if wide:  # a = t^T = V S (Q U_r)^T
        return cupy.ascontiguousarray(vh.T), s, cupy.ascontiguousarray(u.T)
    return u, s, vh


def svd_applies(a: Any) -> bool:
    """Whether :func:`svd` takes ``a``: real, and one matrix or a stack of small ones."""
    if a.dtype not in REAL or 0 in a.shape:
        return False
    if a.ndim == 2:
        return True
    return a.ndim == 3 and max(a.shape[-2:]) <= BATCHED_SVD_MAX


__all__ = ["BATCHED_SVD_MAX", "HOST_SVD_MAX", "QR_SVD_RATIO", "REAL", "cholesky", "eigh", "qr", "slogdet", "solve", "svd", "svd_applies"]
