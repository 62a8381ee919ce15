"""The ``linalg`` extension of the array API standard (2025.12), on the arrays' device.

Decompositions, inverses and solvers run through the backend's LAPACK-type kernels
(``be.linalg``/``be.eig``: on a SYCL device oneMKL through dpnp without copying the
data, see ``usmarray._backend._sycl.onemkl``; NumPy on the NumPy backend).  Everything else
(norms, traces, diagonals, cross and outer products, the power and the pseudo-inverse
built on those kernels) is composed of the backend's device kernels.  On SYCL devices
``eig`` and ``eigvals`` run a shifted QR algorithm on the device, because oneMKL has no
nonsymmetric eigensolver.  Without dpnp the SYCL backend's LAPACK-type kernels fall
back to NumPy on the host (see ``docs/linalg_fft.md``).

Strictness: decompositions, solvers and norms accept floating-point dtypes only;
``cross``, ``outer``, ``trace``, ``matmul``, ``tensordot`` and ``vecdot`` accept numeric
dtypes; ``diagonal`` and ``matrix_transpose`` accept any dtype.  Operands of one call
must live on one device.  Wrong dtypes raise ``TypeError``; wrong shapes and arguments
``ValueError``; failed factorizations :class:`LinAlgError`.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple, NoReturn

import numpy as np

from . import _dtypes as dt
from ._array import usm_ndarray, wrap_with
from ._backend import HostFallbackWarning, LinAlgError
from ._helpers import alloc_failed, check_array, same_device
from ._linalg_main import (
    binary_numeric,
    broadcast_shape,
    matmul,
    matmul_raw,
    matrix_transpose,
    tensordot,
    vecdot,
)
from ._params import flag, integer, real

__all__ = [
    "EigResult", "EighResult", "HostFallbackWarning", "LinAlgError", "QRResult",
    "SVDResult", "SlogdetResult",
    "cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv",
    "matmul", "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer",
    "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "trace", "vecdot",
    "vector_norm",
]


# ---- result types -----------------------------------------------------------------------
class EighResult(NamedTuple):
    """The result of ``eigh``: ``eigenvalues`` (ascending, real) and ``eigenvectors`` (columns)."""
    eigenvalues: usm_ndarray
    eigenvectors: usm_ndarray


class EigResult(NamedTuple):
    """The result of ``eig``: complex ``eigenvalues`` and ``eigenvectors`` (unit-norm columns)."""
    eigenvalues: usm_ndarray
    eigenvectors: usm_ndarray


class QRResult(NamedTuple):
    """The result of ``qr``: ``Q`` (orthonormal columns) and ``R`` (upper triangular)."""
    Q: usm_ndarray
    R: usm_ndarray


class SlogdetResult(NamedTuple):
    """The result of ``slogdet``: ``sign`` and ``logabsdet`` of each determinant."""
    sign: usm_ndarray
    logabsdet: usm_ndarray


class SVDResult(NamedTuple):
    """The result of ``svd``: ``U``, the singular values ``S`` (descending) and ``Vh``."""
    U: usm_ndarray
    S: usm_ndarray
    Vh: usm_ndarray


for _cls in (EighResult, EigResult, QRResult, SlogdetResult, SVDResult):
    _cls.__module__ = __name__
del _cls

_REAL_OF = {
    dt.float32: dt.float32, dt.float64: dt.float64,
    dt.complex64: dt.float32, dt.complex128: dt.float64,
}
_COMPLEX_OF = {
    dt.float32: dt.complex64, dt.float64: dt.complex128,
    dt.complex64: dt.complex64, dt.complex128: dt.complex128,
}


# ---- validation helpers -------------------------------------------------------------------
def _floating(x: Any, fname: str, argname: str = "x") -> tuple[Any, Any]:
    check_array(x, fname, argname)
    a = x._arr
    if a.dtype not in dt.FLOATING:
        raise TypeError(
            f"linalg.{fname} is defined for floating-point dtypes only, got {argname} of "
            f"dtype {a.dtype}; convert it with astype(x, float64) (or float32/complex)"
        )
    return x._be, a


def _numeric(x: Any, fname: str) -> tuple[Any, Any]:
    check_array(x, fname)
    a = x._arr
    if a.dtype not in dt.NUMERIC:
        raise TypeError(f"linalg.{fname} is defined for numeric dtypes only, got {a.dtype}")
    return x._be, a


def _matrices(a: Any, fname: str, argname: str = "x") -> None:
    if a.ndim < 2:
        raise ValueError(
            f"linalg.{fname}: {argname} must be a matrix or a stack of matrices (at least "
            f"2-D, shape (..., M, N)), got shape {a.shape}"
        )


def _square(a: Any, fname: str, argname: str = "x") -> None:
    _matrices(a, fname, argname)
    if a.shape[-1] != a.shape[-2]:
        raise ValueError(
            f"linalg.{fname}: {argname} must be a square matrix or a stack of square "
            f"matrices (shape (..., M, M)), got shape {a.shape}"
        )


def _int_arg(v: Any, fname: str, name: str) -> int:
    return integer(v, f"linalg.{fname}", name)


def _bool_arg(v: Any, fname: str, name: str) -> bool:
    return flag(v, f"linalg.{fname}", name)


def _as(be: Any, raw: Any, d: Any) -> Any:
    return raw if raw.dtype == d else be.astype(raw, d)


def _pt(be: Any) -> Any:
    """The backend's kernels (the backend object itself)."""
    return be


def _where(be: Any, raw: Any) -> dict[str, Any]:
    """Placement keywords (usm_type, queue) of a new array beside ``raw``."""
    return {"usm_type": be.usm_type_of(raw), "queue": be.queue_of(raw)}


def _operands_failed(exc: Exception, be: Any, fname: str, *raws: Any) -> NoReturn:
    """Raise for ``exc`` from a linear-algebra routine on ``raws``: a failed allocation
    is a MemoryError naming the size of the largest operand, which the routines copy."""
    big = max(raws, key=lambda r: r.size)
    alloc_failed(exc, be, big, big.size * big.itemsize, fname)


def _lapack(be: Any, fname: str, *raws: Any, **kw: Any) -> Any:
    """The backend's ``linalg.<fname>`` on raw arrays (tuples come back as tuples)."""
    try:
        return be.linalg(fname, *raws, **kw)
    except LinAlgError:
        raise
    except Exception as exc:
        _operands_failed(exc, be, f"linalg.{fname}", *raws)


def _full(be: Any, like: Any, shape: tuple, value: Any, dtype: Any) -> Any:
    """A new array of ``shape`` filled with ``value``, placed beside ``like``."""
    return _pt(be).full(shape, value, dtype=dtype, **_where(be, like))


def _amax(be: Any, a: Any, axis: Any, keepdims: bool = False) -> Any:
    """max over ``axis`` with 0 as the value of an empty reduction (norms are >= 0)."""
    return _minmax(be, a, axis, keepdims, "max", 0.0)


def _amin(be: Any, a: Any, axis: Any, keepdims: bool = False) -> Any:
    """min over ``axis`` with +inf as the value of an empty reduction."""
    return _minmax(be, a, axis, keepdims, "min", math.inf)


def _minmax(be: Any, a: Any, axis: Any, keepdims: bool, kind: str, empty: float) -> Any:
    axes = tuple(ax % a.ndim for ax in axis) if isinstance(axis, tuple) else (axis % a.ndim,)
    if all(a.shape[i] != 0 for i in axes):
        return getattr(_pt(be), kind)(a, axis=axis, keepdims=keepdims)
    shape = tuple(
        (1 if keepdims else None) if i in axes else n for i, n in enumerate(a.shape)
    )
    return _full(be, a, tuple(n for n in shape if n is not None), empty, a.dtype)


def _identity_stack(be: Any, like: Any, shape: tuple, dtype: Any) -> Any:
    pt = _pt(be)
    n = shape[-1]
    eye = pt.eye(n, dtype=dtype, **_where(be, like))
    return be.copy(pt.broadcast_to(eye, shape))


# ---- decompositions and solvers -----------------------------------------------------------
def cholesky(x: usm_ndarray, /, *, upper: bool = False) -> usm_ndarray:
    """Cholesky factor of each Hermitian positive-definite matrix of ``x``: the lower
    triangular ``L`` with ``x = L @ conj(L).mT``, or with ``upper=True`` the upper ``U``
    with ``x = conj(U).mT @ U``.

    Parameters
    ----------
    x : usm_ndarray
        A matrix or stack of square matrices, shape ``(..., M, M)``, of a floating-point
        dtype (float32, float64, complex64 or complex128).
    upper : bool, optional
        Return the upper triangular factor instead of the lower one.

    Returns
    -------
    usm_ndarray
        The factors, of ``x``'s shape and dtype.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``, or not of a floating-point dtype (cast integer input
        with ``usmarray.astype``).
    ValueError
        ``x`` is not a (stack of) square matrices.
    LinAlgError
        A matrix that is not positive definite (a subclass of ValueError).
    MemoryError
        The device cannot hold the result or the routine's workspace.

    Notes
    -----
    Compute follows data: the kernels run on ``x``'s device (oneMKL on SYCL devices,
    cuSOLVER through CuPy on CUDA devices, NumPy on the NumPy device; see
    docs/linalg_fft.md) and the result lives there with ``x``'s usm_type.  Unlike NumPy,
    usmarray refuses integer and bool input (NumPy computes it in float64).

    See Also
    --------
    [array_api.linalg.cholesky](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.cholesky.html): the standard's specification.
    """
    be, a = _floating(x, "cholesky")
    _square(a, "cholesky")
    upper = _bool_arg(upper, "cholesky", "upper")
    if a.size == 0:
        return wrap_with(be, _pt(be).zeros_like(a))
    return wrap_with(be, _as(be, _lapack(be, "cholesky", a, upper=upper), a.dtype))


def det(x: usm_ndarray, /) -> usm_ndarray:
    """Determinant of each square matrix of ``x``.

    Parameters
    ----------
    x : usm_ndarray
        A matrix or stack of square matrices, shape ``(..., M, M)``, of a floating-point
        dtype (float32, float64, complex64 or complex128).

    Returns
    -------
    usm_ndarray
        The determinants, of ``x``'s dtype and shape ``x.shape[:-2]`` (1 for a 0x0 matrix).

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``, or not of a floating-point dtype (cast integer input
        with ``usmarray.astype``).
    ValueError
        ``x`` is not a (stack of) square matrices.
    MemoryError
        The device cannot hold the result or the routine's workspace.

    Notes
    -----
    Compute follows data: the kernels run on ``x``'s device (oneMKL on SYCL devices,
    cuSOLVER through CuPy on CUDA devices, NumPy on the NumPy device; see
    docs/linalg_fft.md) and the result lives there with ``x``'s usm_type.  Unlike NumPy,
    usmarray refuses integer and bool input (NumPy computes it in float64).

    See Also
    --------
    [array_api.linalg.det](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.det.html): the standard's specification.
    """
    be, a = _floating(x, "det")
    _square(a, "det")
    batch = a.shape[:-2]
    if a.shape[-1] == 0 or math.prod(batch) == 0:
        return wrap_with(be, _full(be, a, batch, 1, a.dtype))
    return wrap_with(be, _as(be, _lapack(be, "det", a), a.dtype))


def slogdet(x: usm_ndarray, /) -> SlogdetResult:
    """Sign and natural logarithm of the absolute value of the determinant of each square
    matrix of ``x``.

    Parameters
    ----------
    x : usm_ndarray
        A matrix or stack of square matrices, shape ``(..., M, M)``, of a floating-point
        dtype (float32, float64, complex64 or complex128).

    Returns
    -------
    tuple of (sign, logabsdet)
        A named tuple (``SlogdetResult``): ``sign`` of ``x``'s dtype (for complex ``x`` a
        unit complex number) and ``logabsdet`` of the real floating dtype of ``x``'s
        precision, both of shape ``x.shape[:-2]``.  A singular matrix gives ``sign = 0`` and
        ``logabsdet = -inf``.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``, or not of a floating-point dtype (cast integer input
        with ``usmarray.astype``).
    ValueError
        ``x`` is not a (stack of) square matrices.
    MemoryError
        The device cannot hold the result or the routine's workspace.

    Notes
    -----
    Compute follows data: the kernels run on ``x``'s device (oneMKL on SYCL devices,
    cuSOLVER through CuPy on CUDA devices, NumPy on the NumPy device; see
    docs/linalg_fft.md) and the result lives there with ``x``'s usm_type.  Unlike NumPy,
    usmarray refuses integer and bool input (NumPy computes it in float64).

    See Also
    --------
    [array_api.linalg.slogdet](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.slogdet.html): the standard's specification.
    """
    be, a = _floating(x, "slogdet")
    _square(a, "slogdet")
    batch = a.shape[:-2]
    rd = _REAL_OF[a.dtype]
    if a.shape[-1] == 0 or math.prod(batch) == 0:
        return SlogdetResult(
            wrap_with(be, _full(be, a, batch, 1, a.dtype)),
            wrap_with(be, _full(be, a, batch, 0, rd)),
        )
    sign, logabs = _lapack(be, "slogdet", a)
    sign = _as(be, sign, a.dtype)
    logabs = _pt(be).real(logabs) if logabs.dtype in dt.COMPLEX_FLOATING else logabs
    return SlogdetResult(wrap_with(be, sign), wrap_with(be, _as(be, logabs, rd)))


def inv(x: usm_ndarray, /) -> usm_ndarray:
    """Inverse of each square matrix of ``x``.

    Parameters
    ----------
    x : usm_ndarray
        A matrix or stack of square matrices, shape ``(..., M, M)``, of a floating-point
        dtype (float32, float64, complex64 or complex128).

    Returns
    -------
    usm_ndarray
        The inverses, of ``x``'s shape and dtype.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``, or not of a floating-point dtype (cast integer input
        with ``usmarray.astype``).
    ValueError
        ``x`` is not a (stack of) square matrices.
    LinAlgError
        A singular matrix (a subclass of ValueError).
    MemoryError
        The device cannot hold the result or the routine's workspace.

    Notes
    -----
    Compute follows data: the kernels run on ``x``'s device (oneMKL on SYCL devices,
    cuSOLVER through CuPy on CUDA devices, NumPy on the NumPy device; see
    docs/linalg_fft.md) and the result lives there with ``x``'s usm_type.  Unlike NumPy,
    usmarray refuses integer and bool input (NumPy computes it in float64).

    See Also
    --------
    [array_api.linalg.inv](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.inv.html): the standard's specification.
    """
    be, a = _floating(x, "inv")
    _square(a, "inv")
    if a.size == 0:
        return wrap_with(be, _pt(be).zeros_like(a))
    return wrap_with(be, _as(be, _lapack(be, "inv", a), a.dtype))


def solve(x1: usm_ndarray, x2: usm_ndarray, /) -> usm_ndarray:
    """Solution ``X`` of the linear system ``x1 @ X = x2`` for each square matrix of ``x1``.

    Parameters
    ----------
    x1 : usm_ndarray
        Coefficient matrices, shape ``(..., M, M)``, of a floating-point dtype.
    x2 : usm_ndarray
        Right-hand sides on ``x1``'s device, of a floating-point dtype: shape ``(M,)`` (one
        vector, shared by every matrix of the stack) or ``(..., M, K)``; the stack
        dimensions broadcast with ``x1``'s.

    Returns
    -------
    usm_ndarray
        The solutions, of the promoted dtype and the broadcast stack shape, with ``x2``'s
        last dimensions.

    Raises
    ------
    TypeError
        An operand that is not a ``usm_ndarray`` or not of a floating-point dtype; dtypes
        the standard does not promote.
    ValueError
        ``x1`` not a (stack of) square matrices; ``x2`` of another ``M``; stack dimensions
        that do not broadcast.
    LinAlgError
        A singular coefficient matrix (a subclass of ValueError).
    ExecutionPlacementError
        Operands on different devices (a subclass of ValueError).
    MemoryError
        The device cannot hold the result or the routine's workspace.

    Notes
    -----
    Compute follows data: the kernels run on ``x1``'s device (oneMKL on SYCL devices,
    cuSOLVER through CuPy on CUDA devices, NumPy on the NumPy device; see
    docs/linalg_fft.md) and the result lives there with ``x1``'s usm_type.  A 1-D ``x2`` is
    always one vector, never a stack of 1x1 systems.  Unlike NumPy, usmarray refuses integer
    and bool input (NumPy computes it in float64).

    See Also
    --------
    [array_api.linalg.solve](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.solve.html): the standard's specification.
    """
    be, a1 = _floating(x1, "solve", "x1")
    _, a2 = _floating(x2, "solve", "x2")
    same_device("linalg.solve", x1, x2)
    rd = dt.promote(a1.dtype, a2.dtype, "linalg.solve")
    _square(a1, "solve", "x1")
    m = a1.shape[-1]
    vector = a2.ndim == 1
    if vector:
        if a2.shape[0] != m:
            raise ValueError(
                f"linalg.solve: x2 of shape {a2.shape} must have length {m} to match x1 of "
                f"shape {a1.shape}"
            )
        a2 = _pt(be).reshape(a2, (m, 1))
    elif a2.ndim < 2 or a2.shape[-2] != m:
        raise ValueError(
            f"linalg.solve: x2 must have shape (M,) or (..., M, K) with M = {m} (from x1 of "
            f"shape {a1.shape}), got shape {a2.shape}"
        )
    batch = broadcast_shape("linalg.solve (stack dimensions)", a1.shape[:-2], a2.shape[:-2])
    pt = _pt(be)
    if a1.shape[:-2] != batch:
        a1 = pt.broadcast_to(a1, batch + a1.shape[-2:])
    if a2.shape[:-2] != batch:
        a2 = pt.broadcast_to(a2, batch + a2.shape[-2:])
    try:
        a1, a2 = _as(be, a1, rd), _as(be, a2, rd)
        if a1.size == 0 or a2.size == 0:
            res = _full(be, a1, batch + a2.shape[-2:], 0, rd)
        elif be.lapack_keeps_operands:
            res = _as(be, _lapack(be, "solve", a1, a2), rd)
        else:
            res = _as(be, _lapack(be, "solve", be.copy(a1), be.copy(a2)), rd)
    except Exception as exc:
        _operands_failed(exc, be, "linalg.solve", a1, a2)
    if vector:
        res = pt.reshape(res, batch + (m,))
    return wrap_with(be, res)


#: exponent bounds, per precision (itemsize of the real dtype), of the largest magnitude
#: a matrix may hold and still go to LAPACK unscaled: squares and products of such
#: magnitudes stay finite and normal
_SAFE_EXP = {4: 60, 8: 500}


def _pow2_scale(be: Any, a: Any) -> Any:
    """Per-matrix power-of-two scale ``s`` (shape ``(..., 1, 1)``, real) with
    ``max|a/s|`` in ``[1, 2)`` (1 for zero or non-finite matrices) when some matrix's
    largest magnitude lies outside the range LAPACK takes safely; None when none does
    (the usual case: one reduction read back, no scaling).  Dividing by a power of two
    is exact, and keeps LAPACK away from overflow and underflow."""
    pt = _pt(be)
    rd = np.dtype(_REAL_OF[a.dtype])
    amax = np.asarray(be.to_host(pt.max(pt.abs(a), axis=(-2, -1), keepdims=True)), np.float64)
    lim = 2.0 ** _SAFE_EXP[rd.itemsize]
    with np.errstate(all="ignore"):
        ok = np.isfinite(amax) & (amax > 0)
        if not np.any(ok & ((amax >= lim) | (amax < 1 / lim))):
            return None
        e = np.where(ok, np.floor(np.log2(np.where(ok, amax, 1.0))), 0.0)
    return be.from_host(np.ldexp(1.0, e.astype(np.int64)).astype(rd), be.usm_type_of(a),
                        be.queue_of(a))


def _svd_raw(be: Any, a: Any, full_matrices: bool, compute_uv: bool) -> Any:
    pt = _pt(be)
    rd = _REAL_OF[a.dtype]
    m, n = a.shape[-2:]
    batch = a.shape[:-2]
    k = min(m, n)
    if a.size == 0:
        s = _full(be, a, batch + (k,), 0, rd)
        if not compute_uv:
            return s
        mu, nv = (m, n) if full_matrices else (k, k)
        u = _identity_stack(be, a, batch + (m, m), a.dtype)[..., :, :mu]
        vh = _identity_stack(be, a, batch + (n, n), a.dtype)[..., :nv, :]
        return be.copy(u), s, be.copy(vh)
    try:
        scale = None if be.lapack_scales("svd", a) else _pow2_scale(be, a)
        # a new array either way where a LAPACK routine may overwrite its operand
        if scale is not None:
            scaled = pt.divide(a, _as(be, scale, a.dtype))
        else:
            scaled = a if be.lapack_keeps_operands else be.copy(a)
    except Exception as exc:
        _operands_failed(exc, be, "linalg.svd", a)

    def unscaled(s: Any) -> Any:
        s = _as(be, s, rd)
        return s if scale is None else _as(be, pt.multiply(s, pt.reshape(scale, batch + (1,))), rd)

    if not compute_uv:
        return unscaled(_lapack(be, "svd", scaled, compute_uv=False))
    u, s, vh = _lapack(be, "svd", scaled, full_matrices=full_matrices)
    return _as(be, u, a.dtype), unscaled(s), _as(be, vh, a.dtype)


def svd(x: usm_ndarray, /, *, full_matrices: bool = True) -> SVDResult:
    """Singular value decomposition ``x = U @ diag(S) @ Vh`` of each matrix of ``x``.

    Parameters
    ----------
    x : usm_ndarray
        A matrix or stack of matrices, shape ``(..., M, N)``, of a floating-point dtype
        (float32, float64, complex64 or complex128).
    full_matrices : bool, optional
        True (default): ``U`` of shape ``(..., M, M)`` and ``Vh`` of ``(..., N, N)``; False:
        ``(..., M, K)`` and ``(..., K, N)`` with ``K = min(M, N)``.

    Returns
    -------
    tuple of (U, S, Vh)
        A named tuple (``SVDResult``): ``U`` and ``Vh`` of ``x``'s dtype, ``S`` the singular
        values, sorted descending, of the real floating dtype of ``x``'s precision and shape
        ``(..., K)``.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``, or not of a floating-point dtype (cast integer input
        with ``usmarray.astype``).
    ValueError
        ``x`` has fewer than 2 dimensions.
    MemoryError
        The device cannot hold the result or the routine's workspace.

    Notes
    -----
    Compute follows data: the kernels run on ``x``'s device (oneMKL on SYCL devices,
    cuSOLVER through CuPy on CUDA devices, NumPy on the NumPy device; see
    docs/linalg_fft.md) and the result lives there with ``x``'s usm_type.  Each matrix is
    scaled by a power of two before the routine, so values near the dtype's limits give
    ``inf`` rather than NaN.  Unlike NumPy, usmarray refuses integer and bool input (NumPy
    computes it in float64).

    See Also
    --------
    [array_api.linalg.svd](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.svd.html): the standard's specification.
    """
    be, a = _floating(x, "svd")
    _matrices(a, "svd")
    full_matrices = _bool_arg(full_matrices, "svd", "full_matrices")
    u, s, vh = _svd_raw(be, a, full_matrices, True)
    return SVDResult(wrap_with(be, u), wrap_with(be, s), wrap_with(be, vh))


def svdvals(x: usm_ndarray, /) -> usm_ndarray:
    """Singular values of each matrix of ``x``, sorted descending.

    Parameters
    ----------
    x : usm_ndarray
        A matrix or stack of matrices, shape ``(..., M, N)``, of a floating-point dtype
        (float32, float64, complex64 or complex128).

    Returns
    -------
    usm_ndarray
        The singular values, of the real floating dtype of ``x``'s precision and shape
        ``(..., min(M, N))``.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``, or not of a floating-point dtype (cast integer input
        with ``usmarray.astype``).
    ValueError
        ``x`` has fewer than 2 dimensions.
    MemoryError
        The device cannot hold the result or the routine's workspace.

    Notes
    -----
    Compute follows data: the kernels run on ``x``'s device (oneMKL on SYCL devices,
    cuSOLVER through CuPy on CUDA devices, NumPy on the NumPy device; see
    docs/linalg_fft.md) and the result lives there with ``x``'s usm_type.  Unlike NumPy,
    usmarray refuses integer and bool input (NumPy computes it in float64).

    See Also
    --------
    [array_api.linalg.svdvals](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.svdvals.html): the standard's specification.
    """
    be, a = _floating(x, "svdvals")
    _matrices(a, "svdvals")
    return wrap_with(be, _svd_raw(be, a, False, False))


def qr(x: usm_ndarray, /, *, mode: str = "reduced") -> QRResult:
    """QR decomposition ``x = Q @ R`` of each matrix of ``x``: ``Q`` with orthonormal columns,
    ``R`` upper triangular.

    Parameters
    ----------
    x : usm_ndarray
        A matrix or stack of matrices, shape ``(..., M, N)``, of a floating-point dtype
        (float32, float64, complex64 or complex128).
    mode : {"reduced", "complete"}, optional
        ``"reduced"`` (default): ``Q`` of shape ``(..., M, K)`` and ``R`` of ``(..., K, N)``
        with ``K = min(M, N)``; ``"complete"``: ``(..., M, M)`` and ``(..., M, N)``.

    Returns
    -------
    tuple of (Q, R)
        A named tuple (``QRResult``) of arrays of ``x``'s dtype; ``R`` is exactly upper
        triangular.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``, or not of a floating-point dtype (cast integer input
        with ``usmarray.astype``).
    ValueError
        ``x`` has fewer than 2 dimensions; another ``mode`` (NumPy's ``"r"`` and ``"raw"``
        included).
    MemoryError
        The device cannot hold the result or the routine's workspace.

    Notes
    -----
    Compute follows data: the kernels run on ``x``'s device (oneMKL on SYCL devices,
    cuSOLVER through CuPy on CUDA devices, NumPy on the NumPy device; see
    docs/linalg_fft.md) and the result lives there with ``x``'s usm_type.  Unlike NumPy,
    usmarray refuses integer and bool input (NumPy computes it in float64).

    See Also
    --------
    [array_api.linalg.qr](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.qr.html): the standard's specification.
    """
    be, a = _floating(x, "qr")
    _matrices(a, "qr")
    if mode not in ("reduced", "complete") or not isinstance(mode, str):
        raise ValueError(f"linalg.qr: mode must be 'reduced' or 'complete', got {mode!r}")
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = a.shape[:-2]
    pt = _pt(be)
    if a.size == 0:
        qc = m if mode == "complete" else k
        q = be.copy(_identity_stack(be, a, batch + (m, m), a.dtype)[..., :, :qc])
        r = _full(be, a, batch + (qc, n), 0, a.dtype)
        return QRResult(wrap_with(be, q), wrap_with(be, r))
    q, r = _lapack(be, "qr", a, mode=mode)
    return QRResult(wrap_with(be, _as(be, q, a.dtype)),
                    wrap_with(be, _as(be, r, a.dtype) if be.qr_triangular
                              else pt.triu(_as(be, r, a.dtype))))


def eigh(x: usm_ndarray, /) -> EighResult:
    """Eigenvalues and eigenvectors of each real symmetric or complex Hermitian matrix of
    ``x``.

    Parameters
    ----------
    x : usm_ndarray
        A matrix or stack of square matrices, shape ``(..., M, M)``; only the lower triangle
        is read, of a floating-point dtype (float32, float64, complex64 or complex128).

    Returns
    -------
    tuple of (eigenvalues, eigenvectors)
        A named tuple (``EighResult``): ``eigenvalues`` ascending, of the real floating
        dtype of ``x``'s precision and shape ``(..., M)``; ``eigenvectors`` orthonormal
        columns of ``x``'s dtype and shape.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``, or not of a floating-point dtype (cast integer input
        with ``usmarray.astype``).
    ValueError
        ``x`` is not a (stack of) square matrices.
    LinAlgError
        The routine did not converge.
    MemoryError
        The device cannot hold the result or the routine's workspace.

    Notes
    -----
    Compute follows data: the kernels run on ``x``'s device (oneMKL on SYCL devices,
    cuSOLVER through CuPy on CUDA devices, NumPy on the NumPy device; see
    docs/linalg_fft.md) and the result lives there with ``x``'s usm_type.  Unlike NumPy,
    usmarray refuses integer and bool input (NumPy computes it in float64).

    See Also
    --------
    [array_api.linalg.eigh](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.eigh.html): the standard's specification.
    """
    be, a = _floating(x, "eigh")
    _square(a, "eigh")
    rd = _REAL_OF[a.dtype]
    if a.size == 0:
        pt = _pt(be)
        w = _full(be, a, a.shape[:-1], 0, rd)
        return EighResult(wrap_with(be, w), wrap_with(be, pt.zeros_like(a)))
    w, v = _lapack(be, "eigh", a)
    return EighResult(wrap_with(be, _as(be, w, rd)), wrap_with(be, _as(be, v, a.dtype)))


def eigvalsh(x: usm_ndarray, /) -> usm_ndarray:
    """Eigenvalues, ascending, of each real symmetric or complex Hermitian matrix of ``x``.

    Parameters
    ----------
    x : usm_ndarray
        A matrix or stack of square matrices, shape ``(..., M, M)``; only the lower triangle
        is read, of a floating-point dtype (float32, float64, complex64 or complex128).

    Returns
    -------
    usm_ndarray
        The eigenvalues, of the real floating dtype of ``x``'s precision and shape ``(...,
        M)``.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``, or not of a floating-point dtype (cast integer input
        with ``usmarray.astype``).
    ValueError
        ``x`` is not a (stack of) square matrices.
    LinAlgError
        The routine did not converge.
    MemoryError
        The device cannot hold the result or the routine's workspace.

    Notes
    -----
    Compute follows data: the kernels run on ``x``'s device (oneMKL on SYCL devices,
    cuSOLVER through CuPy on CUDA devices, NumPy on the NumPy device; see
    docs/linalg_fft.md) and the result lives there with ``x``'s usm_type.  Unlike NumPy,
    usmarray refuses integer and bool input (NumPy computes it in float64).

    See Also
    --------
    [array_api.linalg.eigvalsh](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.eigvalsh.html): the standard's specification.
    """
    be, a = _floating(x, "eigvalsh")
    _square(a, "eigvalsh")
    rd = _REAL_OF[a.dtype]
    if a.size == 0:
        return wrap_with(be, _full(be, a, a.shape[:-1], 0, rd))
    return wrap_with(be, _as(be, _lapack(be, "eigvalsh", a), rd))


def eig(x: usm_ndarray, /) -> EigResult:
    """Eigenvalues and right eigenvectors of each square matrix of ``x``.

    Parameters
    ----------
    x : usm_ndarray
        A matrix or stack of square matrices, shape ``(..., M, M)``, of a floating-point
        dtype (float32, float64, complex64 or complex128).

    Returns
    -------
    tuple of (eigenvalues, eigenvectors)
        A named tuple (``EigResult``), both complex of ``x``'s precision (also for real
        ``x``): ``eigenvalues`` of shape ``(..., M)`` and ``eigenvectors``, unit-norm
        columns, of ``x``'s shape.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``, or not of a floating-point dtype (cast integer input
        with ``usmarray.astype``).
    ValueError
        ``x`` is not a (stack of) square matrices.
    LinAlgError
        Non-finite input, or an iteration that did not converge.
    MemoryError
        The device cannot hold the result or the routine's workspace.

    Notes
    -----
    Compute follows data: the kernels run on ``x``'s device (oneMKL on SYCL devices,
    cuSOLVER through CuPy on CUDA devices, NumPy on the NumPy device; see
    docs/linalg_fft.md) and the result lives there with ``x``'s usm_type.  On SYCL devices a
    shifted QR algorithm runs on the device, oneMKL having no nonsymmetric eigensolver.
    Unlike NumPy, usmarray refuses integer and bool input (NumPy computes it in float64).

    See Also
    --------
    [array_api.linalg.eig](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.eig.html): the standard's specification.
    """
    be, a = _floating(x, "eig")
    _square(a, "eig")
    cd = _COMPLEX_OF[a.dtype]
    if a.size == 0:
        w = _full(be, a, a.shape[:-1], 0, cd)
        return EigResult(wrap_with(be, w), wrap_with(be, _full(be, a, a.shape, 0, cd)))
    w, v = be.eig(a, True)
    return EigResult(wrap_with(be, _as(be, w, cd)), wrap_with(be, _as(be, v, cd)))


def eigvals(x: usm_ndarray, /) -> usm_ndarray:
    """Eigenvalues of each square matrix of ``x``.

    Parameters
    ----------
    x : usm_ndarray
        A matrix or stack of square matrices, shape ``(..., M, M)``, of a floating-point
        dtype (float32, float64, complex64 or complex128).

    Returns
    -------
    usm_ndarray
        The eigenvalues, complex of ``x``'s precision (also for real ``x``), shape ``(...,
        M)``.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``, or not of a floating-point dtype (cast integer input
        with ``usmarray.astype``).
    ValueError
        ``x`` is not a (stack of) square matrices.
    LinAlgError
        Non-finite input, or an iteration that did not converge.
    MemoryError
        The device cannot hold the result or the routine's workspace.

    Notes
    -----
    Compute follows data: the kernels run on ``x``'s device (oneMKL on SYCL devices,
    cuSOLVER through CuPy on CUDA devices, NumPy on the NumPy device; see
    docs/linalg_fft.md) and the result lives there with ``x``'s usm_type.  Unlike NumPy,
    usmarray refuses integer and bool input (NumPy computes it in float64).

    See Also
    --------
    [array_api.linalg.eigvals](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.eigvals.html): the standard's specification.
    """
    be, a = _floating(x, "eigvals")
    _square(a, "eigvals")
    cd = _COMPLEX_OF[a.dtype]
    if a.size == 0:
        return wrap_with(be, _full(be, a, a.shape[:-1], 0, cd))
    return wrap_with(be, _as(be, be.eig(a, False), cd))


# ---- built on the decompositions -------------------------------------------------------------
def _rtol(rtol: Any, x: usm_ndarray, a: Any, fname: str) -> tuple[Any, Any]:
    """(relative tolerance as a Python float or a raw array of shape (..., 1), dtype)."""
    rd = _REAL_OF[a.dtype]
    if rtol is None:
        return max(a.shape[-2:]) * float(np.finfo(rd).eps), rd
    if type(rtol) in (int, float) or isinstance(rtol, np.generic) and rtol.dtype.kind in "iuf":
        return float(real(rtol, f"linalg.{fname}", "rtol")), rd
    if type(rtol) is not usm_ndarray:
        raise TypeError(
            f"linalg.{fname}: rtol must be None, a float or an array of real floating "
            f"dtype, got {type(rtol).__name__}"
        )
    same_device(f"linalg.{fname}", x, rtol)
    r = rtol._arr
    if r.dtype not in dt.REAL_FLOATING:
        raise TypeError(
            f"linalg.{fname}: an rtol array must have a real floating-point dtype, got "
            f"{r.dtype}"
        )
    batch = a.shape[:-2]
    if broadcast_shape(f"linalg.{fname} (rtol against the stack)", r.shape, batch) != batch:
        raise ValueError(
            f"linalg.{fname}: rtol of shape {r.shape} must broadcast to the stack shape "
            f"{batch} of x (shape {a.shape})"
        )
    d = dt.promote(rd, r.dtype, f"linalg.{fname}")
    return _pt(x._be).reshape(_as(x._be, r, d), r.shape + (1,)), d


def matrix_rank(x: usm_ndarray, /, *, rtol: float | usm_ndarray | None = None) -> usm_ndarray:
    """Rank of each matrix of ``x``: the number of singular values above ``rtol`` times the
    largest.

    Parameters
    ----------
    x : usm_ndarray
        A matrix or stack of matrices, shape ``(..., M, N)``, of a floating-point dtype
        (float32, float64, complex64 or complex128).
    rtol : float or usm_ndarray, optional
        Relative tolerance: singular values at most ``rtol`` times the largest count as
        zero.  A float, or a real floating array on ``x``'s device that broadcasts against
        the stack shape ``x.shape[:-2]``; None: ``max(M, N) * eps`` of ``x``'s precision.

    Returns
    -------
    usm_ndarray
        The ranks, int64, of shape ``x.shape[:-2]``.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``, or not of a floating-point dtype (cast integer input
        with ``usmarray.astype``).  An ``rtol`` that is neither None, a number nor a real
        floating array.
    ValueError
        ``x`` has fewer than 2 dimensions; an ``rtol`` array that does not broadcast against
        the stack.
    ExecutionPlacementError
        An ``rtol`` array on another device (a subclass of ValueError).
    MemoryError
        The device cannot hold the result or the routine's workspace.

    Notes
    -----
    Compute follows data: the kernels run on ``x``'s device (oneMKL on SYCL devices,
    cuSOLVER through CuPy on CUDA devices, NumPy on the NumPy device; see
    docs/linalg_fft.md) and the result lives there with ``x``'s usm_type.  Unlike NumPy,
    usmarray refuses integer input, ``tol=`` and ``hermitian=``.

    See Also
    --------
    [array_api.linalg.matrix_rank](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.matrix_rank.html): the standard's specification.
    """
    be, a = _floating(x, "matrix_rank")
    _matrices(a, "matrix_rank")
    pt = _pt(be)
    tol, d = _rtol(rtol, x, a, "matrix_rank")
    batch = a.shape[:-2]
    if min(a.shape[-2:]) == 0:
        return wrap_with(be, _full(be, a, batch, 0, dt.int64))
    s = _as(be, _svd_raw(be, a, False, False), d)
    smax = pt.max(s, axis=-1, keepdims=True)
    cutoff = pt.multiply(smax, tol)
    big = pt.greater(s, cutoff)
    return wrap_with(be, _as(be, pt.sum(_as(be, big, dt.int64), axis=-1), dt.int64))


def pinv(x: usm_ndarray, /, *, rtol: float | usm_ndarray | None = None) -> usm_ndarray:
    """Moore-Penrose pseudo-inverse of each matrix of ``x``, from its singular value
    decomposition.

    Parameters
    ----------
    x : usm_ndarray
        A matrix or stack of matrices, shape ``(..., M, N)``, of a floating-point dtype
        (float32, float64, complex64 or complex128).
    rtol : float or usm_ndarray, optional
        Relative tolerance: singular values at most ``rtol`` times the largest count as
        zero.  A float, or a real floating array on ``x``'s device that broadcasts against
        the stack shape ``x.shape[:-2]``; None: ``max(M, N) * eps`` of ``x``'s precision.

    Returns
    -------
    usm_ndarray
        The pseudo-inverses, of ``x``'s dtype and shape ``(..., N, M)``.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``, or not of a floating-point dtype (cast integer input
        with ``usmarray.astype``).  An ``rtol`` that is neither None, a number nor a real
        floating array.
    ValueError
        ``x`` has fewer than 2 dimensions; an ``rtol`` array that does not broadcast against
        the stack.
    ExecutionPlacementError
        An ``rtol`` array on another device (a subclass of ValueError).
    MemoryError
        The device cannot hold the result or the routine's workspace.

    Notes
    -----
    Compute follows data: the kernels run on ``x``'s device (oneMKL on SYCL devices,
    cuSOLVER through CuPy on CUDA devices, NumPy on the NumPy device; see
    docs/linalg_fft.md) and the result lives there with ``x``'s usm_type.  Unlike NumPy,
    usmarray refuses integer input, ``rcond=`` and ``hermitian=``.

    See Also
    --------
    [array_api.linalg.pinv](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.pinv.html): the standard's specification.
    """
    be, a = _floating(x, "pinv")
    _matrices(a, "pinv")
    pt = _pt(be)
    tol, d = _rtol(rtol, x, a, "pinv")
    m, n = a.shape[-2:]
    batch = a.shape[:-2]
    if a.size == 0:
        return wrap_with(be, _full(be, a, batch + (n, m), 0, a.dtype))
    u, s, vh = _svd_raw(be, a, False, True)
    sd = _as(be, s, d)
    cutoff = pt.multiply(pt.max(sd, axis=-1, keepdims=True), tol)
    keep = pt.greater(sd, cutoff)
    sinv = pt.where(keep, pt.divide(1, pt.where(keep, sd, pt.ones_like(sd))), 0)
    sinv = _as(be, sinv, s.dtype)
    # pinv = Vh^H @ diag(1/s) @ U^H
    vs = pt.multiply(pt.conj(vh).mT if a.dtype in dt.COMPLEX_FLOATING else vh.mT,
                     _as(be, pt.expand_dims(sinv, axis=-2), a.dtype))
    uh = pt.conj(u).mT if a.dtype in dt.COMPLEX_FLOATING else u.mT
    return wrap_with(be, _as(be, matmul_raw(be, vs, uh), a.dtype))


def matrix_power(x: usm_ndarray, n: int, /) -> usm_ndarray:
    """``x`` raised to the integer power ``n``: each square matrix multiplied by itself ``n``
    times (by repeated squaring).

    Parameters
    ----------
    x : usm_ndarray
        A matrix or stack of square matrices, shape ``(..., M, M)``, of a floating-point
        dtype (float32, float64, complex64 or complex128).
    n : int
        The exponent: 0 gives identity matrices, a negative ``n`` powers of the inverse.

    Returns
    -------
    usm_ndarray
        The powers, of ``x``'s shape and dtype.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``, or not of a floating-point dtype (cast integer input
        with ``usmarray.astype``).  ``n`` is not an int.
    ValueError
        ``x`` is not a (stack of) square matrices.
    LinAlgError
        A singular matrix with a negative ``n``.
    MemoryError
        The device cannot hold the result or the routine's workspace.

    Notes
    -----
    Compute follows data: the kernels run on ``x``'s device (oneMKL on SYCL devices,
    cuSOLVER through CuPy on CUDA devices, NumPy on the NumPy device; see
    docs/linalg_fft.md) and the result lives there with ``x``'s usm_type.  Unlike NumPy,
    usmarray refuses integer and bool input (NumPy computes it in float64).

    See Also
    --------
    [array_api.linalg.matrix_power](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.matrix_power.html): the standard's specification.
    """
    be, a = _floating(x, "matrix_power")
    _square(a, "matrix_power")
    n = _int_arg(n, "matrix_power", "n")
    if n == 0:
        return wrap_with(be, _identity_stack(be, a, a.shape, a.dtype))
    if n < 0:
        a = inv(x)._arr
        n = -n
    if a.size == 0 or n == 1:
        return wrap_with(be, be.copy(a))
    result = None
    base = a
    try:
        while True:
            if n & 1:
                result = base if result is None else matmul_raw(be, result, base)
            n >>= 1
            if not n:
                break
            base = matmul_raw(be, base, base)
    except Exception as exc:
        _operands_failed(exc, be, "linalg.matrix_power", a)
    return wrap_with(be, _as(be, result, a.dtype))


# ---- elementwise-built functions ------------------------------------------------------------
def diagonal(x: usm_ndarray, /, *, offset: int = 0) -> usm_ndarray:
    """The ``offset``-th diagonal of each matrix of ``x``.

    Parameters
    ----------
    x : usm_ndarray
        A matrix or stack of matrices, shape ``(..., M, N)``, of any dtype.
    offset : int, optional
        The diagonal: 0 the main one, positive above it, negative below.

    Returns
    -------
    usm_ndarray
        A new array of ``x``'s dtype and shape ``(..., K)``, ``K`` the diagonal's length (0
        past the matrix), on ``x``'s device with its usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; ``offset`` is not an int.
    ValueError
        ``x`` has fewer than 2 dimensions.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Unlike NumPy's ``diagonal``, the result is a new array (not a read-only view) and the
    matrices are always the last two axes (no ``axis1=``, ``axis2=``).

    See Also
    --------
    [array_api.linalg.diagonal](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.diagonal.html): the standard's specification.
    """
    check_array(x, "linalg.diagonal")
    be, a = x._be, x._arr
    _matrices(a, "diagonal")
    offset = _int_arg(offset, "diagonal", "offset")
    return wrap_with(be, _diagonal_raw(be, a, offset))


def _diagonal_raw(be: Any, a: Any, offset: int) -> Any:
    pt = _pt(be)
    m, n = a.shape[-2:]
    batch = a.shape[:-2]
    if offset >= 0:
        k = max(0, min(m, n - offset))
        start = offset
    else:
        k = max(0, min(m + offset, n))
        start = -offset * n
    if k == 0 or math.prod(batch) == 0:
        return _full(be, a, batch + (k,), 0, a.dtype)
    try:
        flat = pt.reshape(a, batch + (m * n,))
        view = flat[..., start: start + (k - 1) * (n + 1) + 1: n + 1]
        return be.copy(view)
    except Exception as exc:
        _operands_failed(exc, be, "linalg.diagonal", a)


def trace(x: usm_ndarray, /, *, offset: int = 0, dtype: Any = None) -> usm_ndarray:
    """Sum of the ``offset``-th diagonal of each matrix of ``x``.

    Parameters
    ----------
    x : usm_ndarray
        A matrix or stack of matrices, shape ``(..., M, N)``, of a numeric dtype.
    offset : int, optional
        The diagonal: 0 the main one, positive above it, negative below.
    dtype : DType, optional
        The accumulation and result dtype, numeric and not narrower in kind than ``x``'s;
        None: ``x``'s dtype, except that signed integers accumulate in int64 and unsigned
        ones in uint64.

    Returns
    -------
    usm_ndarray
        The traces, of shape ``x.shape[:-2]``, on ``x``'s device with its usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray`` or not numeric; ``offset`` not an int; a ``dtype``
        that is not numeric or would discard part of ``x``'s values (real for complex ``x``,
        integer for floating ``x``).
    ValueError
        ``x`` has fewer than 2 dimensions.
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Unlike NumPy's ``trace``, the matrices are always the last two axes (no ``axis1=``,
    ``axis2=``) and ``out=`` is refused.

    See Also
    --------
    [array_api.linalg.trace](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.trace.html): the standard's specification.
    """
    be, a = _numeric(x, "trace")
    _matrices(a, "trace")
    offset = _int_arg(offset, "trace", "offset")
    d = a.dtype
    if dtype is None:
        if d in dt.SIGNED:
            rdt = dt.int64
        elif d in dt.UNSIGNED:
            rdt = dt.uint64
        else:
            rdt = d
    else:
        rdt = dt.check_dtype(dtype)
        if rdt not in dt.NUMERIC:
            raise TypeError(f"linalg.trace: dtype must be a numeric dtype, got {rdt}")
        if (d in dt.COMPLEX_FLOATING and rdt not in dt.COMPLEX_FLOATING) or (
            d in dt.REAL_FLOATING and rdt in dt.INTEGER
        ):
            raise TypeError(
                f"linalg.trace: dtype={rdt} would discard part of x's {d} values; use a "
                f"dtype of the same kind as {d} or wider"
            )
    diag = _as(be, _diagonal_raw(be, a, offset), rdt)
    return wrap_with(be, _as(be, _pt(be).sum(diag, axis=-1, dtype=rdt), rdt))


def outer(x1: usm_ndarray, x2: usm_ndarray, /) -> usm_ndarray:
    """Outer product ``x1_i * x2_j`` of two vectors.

    Parameters
    ----------
    x1 : usm_ndarray
        1-D array of length ``N``, of a numeric dtype.
    x2 : usm_ndarray
        1-D array of length ``M``, of a numeric dtype, on ``x1``'s device.

    Returns
    -------
    usm_ndarray
        The ``(N, M)`` product, of the promoted dtype, on the operands' device.

    Raises
    ------
    TypeError
        An operand that is not a ``usm_ndarray``; bool operands; dtypes the standard does
        not promote.
    ValueError
        An operand that is not 1-D (NumPy flattens it).
    ExecutionPlacementError
        Operands on different devices (a subclass of ValueError).
    MemoryError
        The device cannot hold the result.

    See Also
    --------
    [array_api.linalg.outer](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.outer.html): the standard's specification.
    """
    be, a1, a2, rd = binary_numeric("linalg.outer", x1, x2)
    if a1.ndim != 1 or a2.ndim != 1:
        raise ValueError(
            f"linalg.outer: both operands must be 1-D, got shapes {a1.shape} and {a2.shape}"
        )
    pt = _pt(be)
    nbytes = a1.shape[0] * a2.shape[0] * rd.itemsize
    try:
        res = pt.multiply(pt.reshape(a1, (a1.shape[0], 1)), pt.reshape(a2, (1, a2.shape[0])))
        return wrap_with(be, _as(be, res, rd))
    except Exception as exc:
        alloc_failed(exc, be, a1, nbytes, "linalg.outer")


def cross(x1: usm_ndarray, x2: usm_ndarray, /, *, axis: int = -1) -> usm_ndarray:
    """Cross product of 3-element vectors of ``x1`` and ``x2`` along ``axis``.

    Parameters
    ----------
    x1 : usm_ndarray
        Array of a numeric dtype with 3 elements along ``axis``.
    x2 : usm_ndarray
        Array of a numeric dtype with 3 elements along ``axis``, on ``x1``'s device; the
        other dimensions broadcast with ``x1``'s (``axis`` does not).
    axis : int, optional
        The axis of the vectors, negative (counted from the last dimension).  Default -1.

    Returns
    -------
    usm_ndarray
        The cross products, of the promoted dtype and the broadcast shape, on the operands'
        device.

    Raises
    ------
    TypeError
        An operand that is not a ``usm_ndarray``; bool operands; dtypes the standard does
        not promote; ``axis`` not an int.
    ValueError
        A non-negative ``axis``; a size other than 3 along ``axis`` (NumPy also takes 2);
        0-D operands; other dimensions that do not broadcast.
    IndexError
        ``axis`` beyond an operand's dimensions.
    ExecutionPlacementError
        Operands on different devices (a subclass of ValueError).
    MemoryError
        The device cannot hold the result.

    See Also
    --------
    [array_api.linalg.cross](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.cross.html): the standard's specification.
    """
    be, a1, a2, rd = binary_numeric("linalg.cross", x1, x2)
    axis = _int_arg(axis, "cross", "axis")
    nd = min(a1.ndim, a2.ndim)
    if nd == 0:
        raise ValueError("linalg.cross: operands must be at least 1-D")
    if axis >= 0:
        raise ValueError(
            f"linalg.cross: axis must be a negative integer in [-{nd}, -1], got {axis}"
        )
    if axis < -nd:
        raise IndexError(
            f"linalg.cross: axis {axis} is out of range for operands of shapes {a1.shape} "
            f"and {a2.shape} (allowed: -{nd} .. -1)"
        )
    if a1.shape[axis] != 3 or a2.shape[axis] != 3:
        raise ValueError(
            f"linalg.cross: both operands must have size 3 along axis {axis}, got shapes "
            f"{a1.shape} and {a2.shape}"
        )
    rest1 = a1.shape[:axis] + a1.shape[axis:][1:]
    rest2 = a2.shape[:axis] + a2.shape[axis:][1:]
    rest = broadcast_shape("linalg.cross (non-compute dimensions)", rest1, rest2)
    pt = _pt(be)
    b1 = pt.moveaxis(a1, axis, -1)
    b2 = pt.moveaxis(a2, axis, -1)
    u = [b1[..., i] for i in range(3)]
    v = [b2[..., i] for i in range(3)]
    try:
        comps = [
            pt.subtract(pt.multiply(u[1], v[2]), pt.multiply(u[2], v[1])),
            pt.subtract(pt.multiply(u[2], v[0]), pt.multiply(u[0], v[2])),
            pt.subtract(pt.multiply(u[0], v[1]), pt.multiply(u[1], v[0])),
        ]
        res = pt.moveaxis(pt.stack(comps, axis=-1), -1, axis)
        return wrap_with(be, _as(be, res, rd))
    except Exception as exc:
        alloc_failed(exc, be, a1, 3 * math.prod(rest) * rd.itemsize, "linalg.cross")


def matrix_norm(
    x: usm_ndarray, /, *, keepdims: bool = False, ord: Any = "fro"  # noqa: A002
) -> usm_ndarray:
    """Norm of each matrix of ``x``.

    Parameters
    ----------
    x : usm_ndarray
        A matrix or stack of matrices, shape ``(..., M, N)``, of a floating-point dtype
        (float32, float64, complex64 or complex128).
    keepdims : bool, optional
        Keep the two matrix axes as axes of size one.
    ord : {"fro", "nuc", 1, -1, 2, -2, inf, -inf}, optional
        ``"fro"`` (default): Frobenius; ``"nuc"``: sum of the singular values; ``1``,
        ``-1``: largest, smallest absolute column sum; ``inf``, ``-inf``: largest, smallest
        absolute row sum; ``2``, ``-2``: largest, smallest singular value.

    Returns
    -------
    usm_ndarray
        The norms, of the real floating dtype of ``x``'s precision and shape
        ``x.shape[:-2]`` (with ``keepdims``, ``(..., 1, 1)``).

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``, or not of a floating-point dtype (cast integer input
        with ``usmarray.astype``).  ``keepdims`` not a bool.
    ValueError
        ``x`` has fewer than 2 dimensions; another ``ord``.
    MemoryError
        The device cannot hold the result or the routine's workspace.

    Notes
    -----
    Compute follows data: the kernels run on ``x``'s device (oneMKL on SYCL devices,
    cuSOLVER through CuPy on CUDA devices, NumPy on the NumPy device; see
    docs/linalg_fft.md) and the result lives there with ``x``'s usm_type.  Unlike NumPy,
    usmarray refuses integer and bool input (NumPy computes it in float64).

    See Also
    --------
    [array_api.linalg.matrix_norm](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.matrix_norm.html): the standard's specification.
    """
    be, a = _floating(x, "matrix_norm")
    _matrices(a, "matrix_norm")
    keepdims = _bool_arg(keepdims, "matrix_norm", "keepdims")
    if isinstance(ord, str):
        valid = ord in ("fro", "nuc")
    else:
        if isinstance(ord, np.generic) or type(ord) is usm_ndarray:  # as its Python value
            ord = real(ord, "linalg.matrix_norm", "ord")
        valid = type(ord) in (int, float) and ord in (1, -1, 2, -2, math.inf, -math.inf)
    if not valid:
        raise ValueError(
            f"linalg.matrix_norm: ord must be one of 'fro', 'nuc', 1, -1, 2, -2, inf, -inf; "
            f"got {ord!r}"
        )
    pt = _pt(be)
    rd = _REAL_OF[a.dtype]
    batch = a.shape[:-2]
    if ord == "fro" and a.dtype == rd and be.writable(a):  # as in vector_norm
        res = _as(be, pt.reduce_hypot(a, axis=(-2, -1)), rd)
        return wrap_with(be, pt.reshape(res, batch + (1, 1)) if keepdims else res)
    try:  # the first temporary as large as x
        absx = _as(be, pt.abs(a), rd)
    except Exception as exc:
        _operands_failed(exc, be, "linalg.matrix_norm", a)
    if ord == "fro":
        res = pt.reduce_hypot(absx, axis=(-2, -1))
    elif ord in ("nuc", 2, -2):
        s = _svd_raw(be, a, False, False)
        if ord == "nuc":
            res = pt.sum(s, axis=-1)
        elif ord == 2:
            res = _amax(be, s, -1)
        else:
            res = _amin(be, s, -1)
    elif ord in (1, -1):
        col = pt.sum(absx, axis=-2)
        res = _amax(be, col, -1) if ord == 1 else _amin(be, col, -1)
    else:
        row = pt.sum(absx, axis=-1)
        res = _amax(be, row, -1) if ord > 0 else _amin(be, row, -1)
    res = _as(be, res, rd)
    if keepdims:
        res = pt.reshape(res, batch + (1, 1))
    return wrap_with(be, res)


def vector_norm(
    x: usm_ndarray,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    keepdims: bool = False,
    ord: int | float = 2,  # noqa: A002
) -> usm_ndarray:
    """Vector ``p``-norm of ``x`` over ``axis``: ``sum(|x_i|**ord) ** (1/ord)``.

    Parameters
    ----------
    x : usm_ndarray
        The array, of a floating-point dtype (float32, float64, complex64 or complex128).
    axis : int or tuple of int, optional
        The axes forming the vectors (negative counts from the end); None: every axis.
    keepdims : bool, optional
        Keep the reduced axes as axes of size one.
    ord : int or float, optional
        The order: any int or float, ``inf`` (largest magnitude), ``-inf`` (smallest), ``0``
        (number of nonzeros) and negative or fractional orders included.  Default 2.

    Returns
    -------
    usm_ndarray
        The norms, of the real floating dtype of ``x``'s precision.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``, or not of a floating-point dtype (cast integer input
        with ``usmarray.astype``).  ``keepdims`` not a bool; an axis that is not an int.
    ValueError
        ``ord`` not an int or float, or NaN; a repeated axis.
    IndexError
        An axis out of range.
    MemoryError
        The device cannot hold the result or the routine's workspace.

    Notes
    -----
    Runs on ``x``'s device with its kernels; the result lives there with ``x``'s usm_type.
    ``ord=2`` uses an overflow-free hypot reduction, other positive orders scale by the
    largest magnitude.  Unlike NumPy, usmarray refuses integer and bool input (NumPy
    computes it in float64).

    See Also
    --------
    [array_api.linalg.vector_norm](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.vector_norm.html): the standard's specification.
    """
    be, a = _floating(x, "vector_norm")
    keepdims = _bool_arg(keepdims, "vector_norm", "keepdims")
    if isinstance(ord, np.generic) or type(ord) is usm_ndarray:  # as its Python value
        ord = real(ord, "linalg.vector_norm", "ord")
    if isinstance(ord, bool) or type(ord) not in (int, float) or math.isnan(ord):
        raise ValueError(
            f"linalg.vector_norm: ord must be an int or a float (inf and -inf included), "
            f"got {ord!r}"
        )
    nd = a.ndim
    axes: tuple[int, ...] | list[int]
    if axis is None:
        axes = tuple(range(nd))
    else:
        seq = axis if isinstance(axis, tuple) else (axis,)
        if not isinstance(axis, tuple):
            _int_arg(axis, "vector_norm", "axis")
        axes = []
        for ax in seq:
            ax = _int_arg(ax, "vector_norm", "each axis")
            if not -nd <= ax < nd:
                raise IndexError(
                    f"linalg.vector_norm: axis {ax} is out of range for an array of {nd} "
                    f"dimensions (allowed: {-nd} .. {nd - 1})"
                )
            axes.append(ax % nd)
        if len(set(axes)) != len(axes):
            raise ValueError(f"linalg.vector_norm: repeated axis in {axis}")
        axes = tuple(axes)
    pt = _pt(be)
    rd = _REAL_OF[a.dtype]
    # hypot ignores signs: no |x| temporary, except for a read-only view (a broadcast),
    # which may address far more elements than memory holds: its temporary's failed
    # allocation is the MemoryError that names the size
    if ord == 2 and axes and a.dtype == rd and be.writable(a):
        return wrap_with(be, _as(be, pt.reduce_hypot(a, axis=axes, keepdims=keepdims), rd))
    try:  # the first temporary as large as x
        absx = _as(be, pt.abs(a), rd)
    except Exception as exc:
        _operands_failed(exc, be, "linalg.vector_norm", a)
    if not axes:  # nothing reduced: the norm of each one-element "vector"
        res = _as(be, pt.not_equal(absx, 0), rd) if ord == 0 else absx
        return wrap_with(be, be.copy(res) if res is absx else res)
    kw = {"axis": axes, "keepdims": keepdims}
    if ord == 2:
        res = pt.reduce_hypot(absx, **kw)
    elif ord == 1:
        res = pt.sum(absx, **kw)
    elif ord == math.inf:
        res = _amax(be, absx, axes, keepdims)
    elif ord == -math.inf:
        res = _amin(be, absx, axes, keepdims)
    elif ord == 0:
        res = pt.sum(_as(be, pt.not_equal(absx, 0), rd), **kw)
    elif ord > 0:
        # scale by the largest magnitude so that |x|**ord neither overflows nor underflows
        big = _amax(be, absx, axes, True)
        big = pt.where(pt.greater(big, 0), big, pt.ones_like(big))
        big = pt.where(pt.isfinite(big), big, pt.ones_like(big))
        p = float(ord)
        ssum = pt.sum(pt.pow(pt.divide(absx, big), p), **kw)
        root = pt.pow(ssum, 1.0 / p)
        scale = big if keepdims else pt.reshape(big, root.shape)
        res = pt.multiply(root, scale)
    else:
        p = float(ord)
        ssum = pt.sum(pt.pow(absx, p), **kw)
        res = pt.pow(ssum, 1.0 / p)
    return wrap_with(be, _as(be, res, rd))


def __getattr__(name: str) -> object:
    """A missing name: AttributeError naming the standard's spelling where one exists."""
    from ._hints import MissingName

    raise MissingName(__name__, name, globals())
