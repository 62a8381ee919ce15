"""cuSOLVER routines called directly, one status read per call.

``cupy.linalg`` under ``cupyx.errstate(linalg="raise")`` reads cuSOLVER's info flag
back after every routine (``solve`` and ``inv``: two host synchronizations), and its
``svd`` is ``gesvd``.  The functions here run the same factorizations with the info
flags of all routines in one device array read once, and pick the routine per shape
by measurement (docs/performance.md).  One matrix no larger than :data:`HOST_MAX` (per
routine) goes to host LAPACK through NumPy instead: one read, the host's routine and
one copy back cost less than cuSOLVER's launches and its status read; where LAPACK
fails (a singular matrix, no convergence), the device routine decides.

- ``cholesky``: ``potrf``;
- ``solve`` and ``inv``: ``getrf`` + ``getrs`` (LU with partial pivoting, as LAPACK's
  ``gesv``);
- ``eigh``/``eigvalsh``: ``syevd``, one status read;
- ``qr``: ``geqrf`` and ``orgqr``, ``r`` taken out by one kernel, nothing read back;
  the reduced QR of one tall matrix by a checked Cholesky QR (one read-back);
- ``det`` and ``slogdet``: ``getrf`` and one small kernel over the diagonal and the
  pivots, no status read (a zero pivot is a determinant of zero, no error);
- ``svd``: host LAPACK for one small matrix; for the thin factors of one tall or wide
  matrix, a checked Cholesky QR and the SVD of its square factor; else ``gesvdj``
  (one-sided Jacobi, PyTorch's default on CUDA) for one matrix, ``gesvdjBatched`` for
  matrices up to 32x32 (one or a stack); a Jacobi run that does not converge falls back
  to ``gesvd`` (``cupy.linalg.svd``).

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
from .kernels.headers import header
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
#: how much taller than wide (or wider than tall) a matrix is before its thin SVD or QR
#: goes through a Cholesky QR: Jacobi sweeps (or geqrf and orgqr) over the m x n matrix
#: cost more than three Gram products and three n x n factors
CHOLQR_RATIO = 4
#: the fewest elements for the Cholesky QR route: it launches about 30 small kernels and
#: reads its checks back (0.7 ms), more than Jacobi over a smaller matrix saves
CHOLQR_MIN_ELEMENTS = 2**21
#: the largest distance from the identity (max norm) of the Cholesky QR's last Gram
#: matrix that its last step still corrects; past it, the Jacobi route
CHOLQR_DEFECT_MAX = 0.5
#: the largest residual of the Cholesky QR, in units of sqrt(n) eps: Jacobi's own
#: reconstruction error on a tall well-conditioned matrix is of this size
CHOLQR_RESIDUAL = 16
#: the largest side of one matrix each routine factors in host LAPACK: up to it one
#: copy each way and the host's routine cost less than cuSOLVER's launches and status
#: read (gesvdj: its sweeps)
HOST_MAX = {"svd": 96, "cholesky": 64, "solve": 96, "inv": 32, "eigh": 96, "qr": 64}
#: byte alignment of each result in the one allocation the host route copies back into
_HOST_ALIGN = 256

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


def on_host(routine: str, a: Any) -> bool:
    """Whether ``routine`` factors the one matrix ``a`` in host LAPACK
    (:data:`HOST_MAX`)."""
    return a.ndim == 2 and max(a.shape) <= HOST_MAX[routine]


def _to_device(*arrays: np.ndarray) -> list[Any]:
    """Device copies of host arrays: one allocation and one copy (from pageable memory,
    which returns once the host buffer is staged, so the buffer may go at once)."""
    arrays = tuple(np.ascontiguousarray(x) for x in arrays)
    offsets, total = [], 0
    for x in arrays:
        offsets.append(total)
        total += -(-x.nbytes // _HOST_ALIGN) * _HOST_ALIGN
    buf = arrays[0]  # one array: no packing
    if len(arrays) > 1:
        buf = np.empty(total, np.uint8)
        for x, o in zip(arrays, offsets, strict=True):
            buf[o:o + x.nbytes] = x.reshape(-1).view(np.uint8)
    mem = cupy.cuda.alloc(max(total, 1))
    cupy.cuda.runtime.memcpyAsync(mem.ptr, buf.ctypes.data, buf.nbytes,
                                  cupy.cuda.runtime.memcpyDefault, stream_ptr())
    return [cupy.ndarray(x.shape, x.dtype, mem + o) for x, o in zip(arrays, offsets, strict=True)]


def _on_host(fn: Any, *operands: Any) -> Any:
    """``fn`` (NumPy's routine) of host copies of ``operands``, its result (an array or
    a tuple of them) copied back; None where LAPACK raises (a singular matrix, no
    convergence, a NaN it refuses), for the device routine to decide (its error, or
    its NaNs)."""
    hosts = [x.get() for x in operands]
    try:
        with np.errstate(all="ignore"):
            res = fn(*hosts)
    except np.linalg.LinAlgError:
        return None
    one = not isinstance(res, tuple)
    out = _to_device(*((res,) if one else res))
    return out[0] if one else tuple(out)


def _potrf(a: Any, uplo: int, info_ptr: int) -> Any:
    """``potrf`` of a copy of one symmetric matrix ``a`` (C order), its status written
    to ``info_ptr`` and not read; the factored copy (the other triangle is ``a``'s)."""
    n = a.shape[0]
    out = a.copy()
    size, potrf = _POTRF[a.dtype.char]
    h = _device.get_cusolver_handle()
    lwork = size(h, uplo, n, out.data.ptr, n)
    work = cupy.empty(max(lwork, 1), a.dtype)
    potrf(h, uplo, n, out.data.ptr, n, work.data.ptr, lwork, info_ptr)
    return out


def _factor_triangle(out: Any, uplo: int, upper: bool) -> Any:
    """The C-order upper (``upper``) or lower Cholesky factor out of ``potrf``'s output:
    its column-major upper factor is the C-order lower one, and the other way round;
    the other C-order factor is its transpose."""
    n = out.shape[0]
    c_lower = uplo == _cublas.CUBLAS_FILL_MODE_UPPER
    si, sj = (1, n) if upper == c_lower else (n, 1)
    return triangle(out, (n, n), (0, si, sj), 0, not upper, _MULTI_GPU)


def cholesky(a: Any, upper: bool) -> Any:
    """Cholesky factor of one symmetric positive-definite matrix ``a`` (C order).

    ``potrf`` factors the column-major view of ``a`` (which is ``a`` itself, as ``a``
    is symmetric).  A small one (``HOST_MAX["cholesky"]``) is factored by host LAPACK
    from the same (lower) triangle, the device deciding where LAPACK fails."""
    if on_host("cholesky", a):
        low = _on_host(np.linalg.cholesky, a)
        if low is not None:
            return cupy.ascontiguousarray(low.T) if upper else low
    uplo = CHOLESKY_UPLO_SMALL if a.shape[0] <= CHOLESKY_SMALL else CHOLESKY_UPLO
    info = cupy.empty(1, np.int32)
    out = _potrf(a, uplo, info.data.ptr)
    _raise_on(info, "cholesky: the matrix is not positive definite")
    return _factor_triangle(out, uplo, upper)


def qr(a: Any, mode: str) -> tuple[Any, Any]:
    """``(q, r)`` of one real m x n matrix (``mode`` "reduced" or "complete"):
    ``geqrf`` and ``orgqr`` on a column-major copy, ``r`` read out of the factored copy
    by one kernel.  QR cannot fail (cuSOLVER's flag reports bad arguments only), so
    nothing is read back.  The reduced QR of a matrix at least :data:`CHOLQR_RATIO`
    times taller than wide, of at least :data:`CHOLQR_MIN_ELEMENTS`, is a checked
    Cholesky QR instead (one read-back; Householder where a check fails); its R has a
    positive diagonal.  A small matrix (``HOST_MAX["qr"]``) goes to host LAPACK, the
    same Householder factors."""
    m, n = a.shape
    if on_host("qr", a):  # LAPACK's geqrf and orgqr: the same Householder factors
        full = mode == "complete"
        return _on_host(lambda h: np.linalg.qr(h, "complete" if full else "reduced"), a)
    if mode == "reduced" and m >= CHOLQR_RATIO * n and m * n >= CHOLQR_MIN_ELEMENTS:
        got = _cholesky_qr(a)
        if got is not None:
            q, _, last_inv, r = got  # r: a product of triangles, -0.0 below possible
            return cupy.matmul(q, last_inv), cupy.triu(r)
    k = min(m, n)
    qc = m if mode == "complete" else k
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
    size, orgqr = _ORGQR[c]
    lwork2 = size(h, m, qc, k, buf.data.ptr, m, tau.data.ptr)
    if lwork2 > lwork:
        work = cupy.empty(lwork2, a.dtype)
    orgqr(h, m, qc, k, buf.data.ptr, m, tau.data.ptr, work.data.ptr, max(lwork2, 1),
          info.data.ptr)
    return cupy.ascontiguousarray(buf[:, :qc]), r


def eigh(a: Any, vectors: bool) -> Any:
    """Eigenvalues (ascending) and, where ``vectors``, eigenvectors (columns, a
    Fortran-ordered array as ``cupy.linalg.eigh`` gives them) of one real symmetric
    matrix, from its C-order lower triangle (the column-major upper one): ``syevd``
    and one read of its flag (LinAlgError where it does not converge).  A small one
    (``HOST_MAX["eigh"]``) goes to host LAPACK (the same lower triangle), the device
    deciding where LAPACK does not converge."""
    if on_host("eigh", a):
        res = _on_host(np.linalg.eigh if vectors else np.linalg.eigvalsh, a)
        if res is not None:
            return res
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
    LinAlgError when ``a`` is singular.  A small ``a`` (``HOST_MAX["solve"]``) with a
    ``b`` of at most as many elements as the largest such ``a`` goes to host LAPACK
    (``gesv``), the device deciding where it finds ``a`` singular."""
    if on_host("solve", a) and b.size <= HOST_MAX["solve"] ** 2:
        x = _on_host(np.linalg.solve, a, b)
        if x is not None:
            return x
    return _solve_on_device(a, b)


def inv(a: Any) -> Any:
    """The inverse of one square matrix ``a``: LinAlgError when ``a`` is singular.  A
    small ``a`` (``HOST_MAX["inv"]``) goes to host LAPACK, the device deciding where it
    finds ``a`` singular; else :func:`solve` with the identity on the device."""
    if on_host("inv", a):
        x = _on_host(np.linalg.inv, a)
        if x is not None:
            return x
    return _solve_on_device(a, cupy.eye(a.shape[0], dtype=a.dtype))


def _solve_on_device(a: Any, b: Any) -> Any:
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


#: the entry points of ``include/usmarray/solver.cuh``'s kernels
_SLOGDET = """typedef %s T;
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ lu,
    const int* __restrict__ ipiv, T* __restrict__ out, const long long n,
    const int* __restrict__ nan_flag) {
  usm_slogdet(lu, ipiv, out, n, nan_flag);
}
"""
_NANS = """typedef %s T;
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ a,
    int* __restrict__ flag, const long long size) {
  usm_any_nan(a, flag, size);
}
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
    nans = cached(_fns, ("nans", a.dtype), _MULTI_GPU, lambda: header("solver.cuh") + _NANS % t)
    launch(nans, grid_1d(n * n), (256, 1, 1), "QQq", a.data.ptr, info.data.ptr + 4, n * n,
           stream=s)
    ipiv = _lu(lu, info.data.ptr)
    out = cupy.empty(3, a.dtype)
    f = cached(_fns, ("slogdet", a.dtype), _MULTI_GPU, lambda: header("solver.cuh") + _SLOGDET % t)
    launch(f, (1, 1, 1), (256, 1, 1), "QQQqQ", lu.data.ptr, ipiv.data.ptr, out.data.ptr, n,
           info.data.ptr + 4, stream=s)
    return out[0], out[1], out[2]


def svd(a: Any, full_matrices: bool, compute_uv: bool) -> Any:
    """``(u, s, vh)`` (or ``s``) of one matrix, or of a stack of matrices with both sides
    at most :data:`BATCHED_SVD_MAX`.

    - One matrix with both sides at most ``HOST_MAX["svd"]``: host LAPACK (``gesdd``,
      through NumPy), one copy each way; the device routes where it does not converge.
    - Thin factors or values only of one matrix at least :data:`CHOLQR_RATIO` times
      taller than wide (or wider than tall), of at least :data:`CHOLQR_MIN_ELEMENTS`: a
      Cholesky QR on the device, then the decomposition of its square factor.
    - Otherwise, and where those do not apply (no convergence, an ill-conditioned or
      non-finite matrix), Jacobi rotations (``gesvdj``; ``gesvdjBatched`` for a stack of
      small matrices), and ``gesvd`` where Jacobi does not converge."""
    if a.ndim == 2:
        m, n = a.shape
        k = min(m, n)
        res = None
        if on_host("svd", a):
            res = _on_host((lambda h: np.linalg.svd(h, full_matrices)) if compute_uv
                           else (lambda h: np.linalg.svd(h, compute_uv=False)), a)
        elif ((not full_matrices or not compute_uv) and max(m, n) >= CHOLQR_RATIO * k
              and m * n >= CHOLQR_MIN_ELEMENTS):
            res = _svd_through_cholesky_qr(a, compute_uv)
        if res is not None:
            return res
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


def _svd_through_cholesky_qr(a: Any, compute_uv: bool) -> Any:
    """The thin SVD of a tall (or, through its transpose, a wide) matrix from its QR
    factors, ``a = QR`` and ``R = U_r S V^T`` giving ``a = (Q U_r) S V^T``, as LAPACK's
    drivers do for m >> n; None where the Cholesky QR fails."""
    wide = a.shape[1] > a.shape[0]
    t = a.T if wide else a
    qr_ = _cholesky_qr(t)
    if qr_ is None:
        return None
    q, last, _, r = qr_
    res = svd(r, False, compute_uv)
    if not compute_uv:
        return res
    from cupyx.scipy.linalg import solve_triangular

    ur, s, vh = res
    u = cupy.matmul(q, solve_triangular(last, ur, lower=False))
    if wide:  # a = t^T = V S (Q U_r)^T
        return cupy.ascontiguousarray(vh.T), s, cupy.ascontiguousarray(u.T)
    return u, s, vh


def _cholesky_qr(a: Any) -> tuple[Any, Any, Any, Any] | None:
    """``(Q2, R3, R3^-1, R)`` with ``Q = Q2 R3^-1`` and ``a = QR`` for one tall matrix, by
    shifted Cholesky QR3 (Fukaya et al., SIAM J. Sci. Comput. 42(1), 2020): a Cholesky
    QR of the Gram matrix shifted to be positive definite, then two plain ones.  Each
    is a Gram product, an n x n factor, its inverse and one product: cuBLAS's
    triangular solve with m right-hand sides is several times slower than that product.

    An inverse costs accuracy where a factor is ill-conditioned, so the result is
    checked: one host read of the three factors' status, the last Gram matrix's distance
    from the identity (past :data:`CHOLQR_DEFECT_MAX`: Q is not orthonormal) and the
    residual ``|a - Q2 R2 R1| / |a|`` (Frobenius; past :data:`CHOLQR_RESIDUAL` units of
    ``sqrt(n) eps``).  None where a check fails: a matrix too ill-conditioned for the
    dtype, or not finite."""
    from cupyx.scipy.linalg import solve_triangular  # on first use, not at the start

    m, n = a.shape
    info = cupy.zeros(3, np.int32)
    eye = cupy.eye(n, dtype=a.dtype)

    def factor(g: Any, i: int) -> tuple[Any, Any]:
        # the column-major lower factor of the symmetric g is its C-order upper one
        low = _cublas.CUBLAS_FILL_MODE_LOWER
        f = _factor_triangle(_potrf(g, low, info.data.ptr + 4 * i), low, True)
        return f, solve_triangular(f, eye, lower=False)

    g = cupy.matmul(a.T, a)
    eps = float(np.finfo(a.dtype).eps)
    norm2 = cupy.trace(g)
    g.ravel()[:: n + 1] += (11 * (m * n + n * (n + 1)) * eps / 2) * norm2
    r1, inv = factor(g, 0)
    q = cupy.matmul(a, inv)
    r2, inv = factor(cupy.matmul(q.T, q), 1)
    q = cupy.matmul(q, inv)
    g = cupy.matmul(q.T, q)
    defect = cupy.abs(g - eye).max()
    r3, inv3 = factor(g, 2)
    r21 = cupy.matmul(r2, r1)
    d = a - cupy.matmul(q, r21)
    residual = cupy.sqrt(cupy.vdot(d, d) / norm2)
    checks = cupy.concatenate((info.astype(np.float64), cupy.stack((defect, residual))
                               .astype(np.float64))).get()
    if (checks[:3].any() or not checks[3] <= CHOLQR_DEFECT_MAX
            or not checks[4] <= CHOLQR_RESIDUAL * np.sqrt(n) * eps):
        return None
    return q, r3, inv3, cupy.matmul(r3, r21)


def svd_applies(a: Any) -> bool:
    """Whether :func:`svd` takes ``a``: real, and one matrix or a stack of small ones."""
    if a.dtype not in REAL or 0 in a.shape:
        return False
    return a.ndim == 2 or (a.ndim == 3 and max(a.shape[-2:]) <= BATCHED_SVD_MAX)


__all__ = ["BATCHED_SVD_MAX", "CHOLQR_DEFECT_MAX", "CHOLQR_MIN_ELEMENTS", "CHOLQR_RESIDUAL",
           "CHOLQR_RATIO", "HOST_MAX", "REAL", "cholesky", "eigh", "inv", "on_host", "qr",
           "slogdet", "solve", "svd", "svd_applies"]
