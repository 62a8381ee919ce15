"""Linear-algebra (LAPACK) and FFT kernels for the ``linalg`` and ``fft`` extensions.

Two kernel sets share one calling convention (NumPy-shaped functions on raw arrays):

* :class:`OneMKLKernels` -- the array's own SYCL device, through oneMKL as exposed by
  ``dpnp.linalg`` / ``dpnp.fft``.  A raw ``dpnp.tensor.usm_ndarray`` becomes a
  ``dpnp.ndarray`` without a copy (``dpnp.ndarray._create_from_usm_ndarray`` on a
  view, so the caller's array is not touched) and a result comes back through
  ``dpnp.ndarray.get_array()``, again without a copy.  Nothing leaves the device.
* :class:`HostKernels` -- used only when dpnp is absent (the legacy ``dpctl.tensor``
  provider): the operand is copied to the host, NumPy computes, the result is
  copied back to the operand's queue and USM type.  A :class:`HostFallbackWarning`
  is issued once per process.

The namespace modules (``usmarray.linalg``, ``usmarray.fft``) validate every call
before a kernel runs and fix result dtypes and special values afterwards, so a
kernel only ever sees valid, already-promoted operands.
"""

from __future__ import annotations

import importlib
import math
import warnings
from typing import Any

import numpy as np

from . import sycl as _sycl


class LinAlgError(np.linalg.LinAlgError):
    """A linear-algebra routine failed on its input: a singular matrix (``inv``,
    ``solve``), a matrix that is not positive definite (``cholesky``), or an
    iteration that did not converge.  Subclasses ``numpy.linalg.LinAlgError`` and
    therefore ``ValueError``."""

    __module__ = "usmarray.linalg"


class HostFallbackWarning(RuntimeWarning):
    """Issued once when linalg/fft kernels run on the host because dpnp is absent."""

    __module__ = "usmarray.linalg"


def _load_dpnp() -> Any:
    """dpnp, when it can compute on this build's raw arrays (the dpnp.tensor provider)."""
    if _sycl.provider_name != "dpnp.tensor":
        return None
    try:
        dpnp = importlib.import_module("dpnp")
        importlib.import_module("dpnp.linalg")
        importlib.import_module("dpnp.fft")
    except ImportError:  # pragma: no cover - depends on the stack
        return None
    return dpnp


class OneMKLKernels:
    """oneMKL on the operand's SYCL device, through dpnp; zero-copy both ways."""

    on_device = True
    name = "oneMKL (dpnp) on the array's SYCL device"

    def __init__(self, dpnp: Any) -> None:
        self.dpnp = dpnp
        self.linalg = dpnp.linalg
        self.fft = dpnp.fft
        self.errors: tuple[type, ...] = (dpnp.linalg.LinAlgError, np.linalg.LinAlgError)
        self._from_raw = dpnp.ndarray._create_from_usm_ndarray

    def wrap(self, raw: Any) -> Any:
        # dpnp re-labels the namespace of the usm_ndarray it wraps; wrap a fresh view
        # (same memory, same pointer) so the caller's raw array keeps its own.
        return self._from_raw(raw[...])

    def unwrap(self, res: Any, like: Any) -> Any:
        out = res.get_array()
        out._set_namespace(None)  # a plain dpnp.tensor array again
        return out


class HostKernels:
    """NumPy on the host: the fallback when dpnp cannot be used."""

    on_device = False
    name = "NumPy on the host (dpnp not available)"

    def __init__(self) -> None:
        self.linalg = np.linalg
        self.fft = np.fft
        self.errors: tuple[type, ...] = (np.linalg.LinAlgError,)

    def wrap(self, raw: Any) -> np.ndarray:
        return _sycl.to_host(raw)

    def unwrap(self, res: Any, like: Any) -> Any:
        return _sycl.from_host(np.ascontiguousarray(res), like.usm_type, like.sycl_queue)


_active: OneMKLKernels | HostKernels | None = None
_warned = False


def kernels() -> OneMKLKernels | HostKernels:
    """The kernel set in use (resolved on first use)."""
    global _active
    if _active is None:
        dpnp = _load_dpnp()
        _active = OneMKLKernels(dpnp) if dpnp is not None else HostKernels()
    return _active


def use(kind: str | None) -> None:
    """Select the kernel set: "device" (oneMKL via dpnp), "host" (NumPy), or None to
    re-detect on next use.  For tests and diagnostics."""
    global _active, _warned
    if kind is None:
        _active = None
    elif kind == "host":
        _active = HostKernels()
    elif kind == "device":
        dpnp = _load_dpnp()
        if dpnp is None:
            raise RuntimeError("the device kernels need dpnp with the dpnp.tensor provider")
        _active = OneMKLKernels(dpnp)
    else:
        raise ValueError(f"use(): kind must be 'device', 'host' or None, got {kind!r}")
    _warned = False


def on_device() -> bool:
    return kernels().on_device


def _announce(k: Any, what: str) -> None:
    global _warned
    if not k.on_device and not _warned:
        _warned = True
        warnings.warn(
            f"usmarray.{what}: dpnp is not available (kernel provider "
            f"{_sycl.provider_name}), so linalg/fft kernels copy their operands to the "
            "host and compute with NumPy; install dpnp>=0.20 to compute on the SYCL "
            "device through oneMKL",
            HostFallbackWarning,
            stacklevel=4,
        )


def _call(ns: str, fname: str, raws: tuple, kw: dict) -> Any:
    k = kernels()
    _announce(k, f"{ns}.{fname}")
    fn = getattr(getattr(k, ns), fname)
    args = [k.wrap(r) for r in raws]
    try:
        res = fn(*args, **kw)
    except k.errors as exc:
        raise LinAlgError(f"{fname}: {exc}") from None
    like = raws[0]
    if isinstance(res, tuple):
        return tuple(k.unwrap(r, like) for r in res)
    return k.unwrap(res, like)


def linalg(fname: str, *raws: Any, **kw: Any) -> Any:
    """``<kernels>.linalg.<fname>(*raws, **kw)`` on raw arrays; tuples come back as tuples."""
    return _call("linalg", fname, raws, kw)


def fft(fname: str, raw: Any, **kw: Any) -> Any:
    """``<kernels>.fft.<fname>(raw, **kw)`` on a raw array."""
    return _call("fft", fname, (raw,), kw)


# ---- eig / eigvals ------------------------------------------------------------------------
# oneMKL's SYCL LAPACK has no nonsymmetric eigensolver (geev), so dpnp computes eig and
# eigvals with NumPy on the host.  Here they run on the device instead: the complex
# Schur form by the shifted QR algorithm (each step a batched oneMKL QR factorization
# and two batched matrix products), then eigenvectors by back-substitution on the
# triangular factor, vectorized over the eigenvalues.

_EIG_MAX_SWEEPS = 30  # QR steps allowed per eigenvalue before giving up


def eig(raw: Any, vectors: bool) -> Any:
    """Eigenvalues ``(..., n)`` and (if ``vectors``) eigenvectors ``(..., n, n)`` of
    square matrices, both complex; the kernel set in use decides where."""
    k = kernels()
    fname = "eig" if vectors else "eigvals"
    if not k.on_device:
        _announce(k, f"linalg.{fname}")
        host = k.wrap(raw)
        if not np.isfinite(host).all():
            raise LinAlgError(f"{fname}: the matrix contains infinities or NaNs")
        try:
            res = np.linalg.eig(host) if vectors else np.linalg.eigvals(host)
        except np.linalg.LinAlgError as exc:
            raise LinAlgError(f"{fname}: {exc}") from None
        if vectors:
            return k.unwrap(res[0], raw), k.unwrap(res[1], raw)
        return k.unwrap(res, raw)
    return _eig_device(k, raw, vectors, fname)


def _eig_device(k: OneMKLKernels, raw: Any, vectors: bool, fname: str) -> Any:
    pt = _sycl.provider
    real_input = raw.dtype.kind == "f"
    cd = np.dtype(np.complex64) if raw.dtype.itemsize == (4 if real_input else 8) else (
        np.dtype(np.complex128))
    rd = np.dtype(np.float32) if cd == np.complex64 else np.dtype(np.float64)
    eps = float(np.finfo(rd).eps)
    tiny = float(np.finfo(rd).tiny)
    n = raw.shape[-1]
    batch = raw.shape[:-2]
    nb = math.prod(batch)
    ut, q = raw.usm_type, raw.sycl_queue

    a = pt.astype(pt.reshape(raw, (nb, n, n)), cd, copy=True)
    absa = pt.abs(a)
    if not bool(pt.all(pt.isfinite(absa))):
        raise LinAlgError(f"{fname}: the matrix contains infinities or NaNs")
    # scale each matrix by a power of two so that max |a| lies in [0.5, 1)
    amax = pt.max(absa, axis=(1, 2), keepdims=True)
    amax = pt.where(pt.greater(amax, 0), amax, pt.ones_like(amax))
    scale = pt.exp2(pt.add(pt.floor(pt.log2(amax)), 1))
    a = pt.divide(a, pt.astype(scale, cd))
    fro = pt.reduce_hypot(pt.abs(a), axis=(1, 2))  # (nb,), <= n
    tol = pt.multiply(fro, eps)

    eye = pt.eye(n, dtype=cd, usm_type=ut, sycl_queue=q)
    z = pt.asarray(pt.broadcast_to(eye, (nb, n, n)), copy=True) if vectors else None

    m = n
    steps = 0
    while m > 1:
        off = pt.reduce_hypot(pt.abs(a[:, m - 1, : m - 1]), axis=1)
        if bool(pt.all(pt.less_equal(off, tol))):
            a[:, m - 1, : m - 1] = 0
            m -= 1
            steps = 0
            continue
        if steps >= _EIG_MAX_SWEEPS:
            raise LinAlgError(
                f"{fname}: the QR algorithm did not converge ({_EIG_MAX_SWEEPS} steps for "
                f"eigenvalue {m} of {n})"
            )
        steps += 1
        h = a[:, :m, :m]
        p, b, c, d = h[:, m - 2, m - 2], h[:, m - 2, m - 1], h[:, m - 1, m - 2], h[:, m - 1, m - 1]
        if steps % 10 == 0:
            # exceptional shift, to break a cycle of the Wilkinson shift
            mu = pt.add(d, pt.astype(pt.multiply(off, 0.75), cd))
        else:
            # Wilkinson shift: the eigenvalue of the trailing 2x2 block closest to d
            half = pt.divide(pt.subtract(p, d), 2)
            bc = pt.multiply(b, c)
            disc = pt.sqrt(pt.add(pt.multiply(half, half), bc))
            flip = pt.less(pt.real(pt.multiply(pt.conj(half), disc)), 0)
            disc = pt.where(flip, pt.negative(disc), disc)
            den = pt.add(half, disc)
            nz = pt.greater(pt.abs(den), 0)
            corr = pt.divide(bc, pt.where(nz, den, pt.ones_like(den)))
            mu = pt.subtract(d, pt.where(nz, corr, pt.zeros_like(corr)))
        shift = pt.multiply(eye[:m, :m], pt.reshape(mu, (nb, 1, 1)))
        qf, rf = k.linalg.qr(k.wrap(pt.subtract(h, shift)), mode="reduced")
        qm = k.unwrap(qf, raw)
        rm = k.unwrap(rf, raw)
        a[:, :m, :m] = pt.add(pt.matmul(rm, qm), shift)
        if m < n:
            a[:, :m, m:] = pt.matmul(pt.conj(qm).mT, a[:, :m, m:])
        if vectors:
            z[:, :, :m] = pt.matmul(z[:, :, :m], qm)

    t = pt.triu(a)
    diag = pt.asarray(pt.reshape(t, (nb, n * n))[:, :: n + 1], copy=True)  # (nb, n)
    w = pt.multiply(diag, pt.astype(pt.reshape(scale, (nb, 1)), cd))
    if real_input:
        # a real eigenvalue comes out of complex arithmetic with an imaginary part at
        # rounding level; below n * eps * |x|_F it carries no information
        lim = pt.multiply(pt.reshape(pt.multiply(fro, pt.reshape(scale, (nb,))), (nb, 1)),
                          4.0 * n * eps)
        small = pt.less_equal(pt.abs(pt.imag(w)), lim)
        w = pt.where(small, pt.astype(pt.real(w), cd), w)
    w = pt.reshape(w, batch + (n,))
    if not vectors:
        return w

    # eigenvectors of the triangular t: for eigenvalue k, y_k = 1, y_j = 0 (j > k) and
    # y_j = -(t[j, j+1:] @ y[j+1:]) / (t_jj - t_kk) for j < k, all k at once
    smin = pt.maximum(pt.multiply(pt.abs(diag), eps), tiny)  # (nb, n), per eigenvalue
    y = pt.asarray(pt.broadcast_to(eye, (nb, n, n)), copy=True)
    cols = pt.arange(n, usm_type=ut, sycl_queue=q)
    for j in range(n - 2, -1, -1):
        num = pt.matmul(t[:, j : j + 1, j + 1 :], y[:, j + 1 :, :])[:, 0, :]
        den = pt.subtract(pt.reshape(diag[:, j], (nb, 1)), diag)
        tiny_den = pt.less(pt.abs(den), smin)
        den = pt.where(tiny_den, pt.astype(smin, cd), den)
        yj = pt.negative(pt.divide(num, den))
        y[:, j, :] = pt.where(pt.greater(cols, j), yj, y[:, j, :])
        # keep the columns bounded (ill-conditioned eigenvectors grow fast)
        cmax = pt.max(pt.abs(y[:, j:, :]), axis=1, keepdims=True)
        big = pt.greater(cmax, 1e30 if rd == np.float32 else 1e150)
        if bool(pt.any(big)):
            y = pt.divide(y, pt.astype(pt.where(big, cmax, pt.ones_like(cmax)), cd))
    v = pt.matmul(z, y)
    # unit 2-norm columns whose largest component is real and positive (as LAPACK's geev)
    av = pt.abs(v)
    nrm = pt.reduce_hypot(av, axis=1, keepdims=True)
    nrm = pt.where(pt.greater(nrm, 0), nrm, pt.ones_like(nrm))
    lead = pt.take_along_axis(v, pt.expand_dims(pt.argmax(av, axis=1), axis=1), axis=1)
    alead = pt.abs(lead)
    phase = pt.where(pt.greater(alead, 0), pt.divide(pt.conj(lead), pt.astype(alead, cd)),
                     pt.ones_like(lead))
    v = pt.multiply(v, pt.divide(phase, pt.astype(nrm, cd)))
    return w, pt.reshape(v, batch + (n, n))


__all__ = [
    "HostFallbackWarning", "HostKernels", "LinAlgError", "OneMKLKernels", "eig", "fft",
    "kernels", "linalg", "on_device", "use",
]
