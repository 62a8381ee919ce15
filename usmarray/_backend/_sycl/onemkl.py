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
from typing import Any, Literal, NoReturn

import numpy as np

from .._errors import alloc_failed
from .._protocol import HostFallbackWarning, LinAlgError

#: the SYCL backend these kernels serve (set once by it: :func:`bind_sycl`)
_sycl: Any = None


def bind_sycl(backend: Any) -> None:
    global _sycl
    _sycl = backend


def _load_dpnp() -> Any:
    """dpnp, when it can compute on this build's raw arrays (the dpnp.tensor provider)."""
    if _sycl is None or _sycl.provider_name != "dpnp.tensor":
        return None
    try:
        dpnp = importlib.import_module("dpnp")
        importlib.import_module("dpnp.linalg")
        importlib.import_module("dpnp.fft")
    except ImportError:  # pragma: no cover - depends on the stack
        return None
    return dpnp


def dense(raw: Any) -> Any:
    """``raw`` itself (as a fresh view) when it is C- or F-contiguous, else a C-order
    copy on its queue: the layouts that oneMKL and the provider's BLAS paths take."""
    flags = raw.flags
    if flags.c_contiguous or flags.f_contiguous:
        return raw[...]
    return _sycl.provider.copy(raw, order="C")


class OneMKLKernels:
    """oneMKL on the operand's SYCL device, through dpnp; zero-copy both ways."""

    on_device: Literal[True] = True
    name = "oneMKL (dpnp) on the array's SYCL device"

    def __init__(self, dpnp: Any) -> None:
        self.dpnp = dpnp
        self.linalg = dpnp.linalg
        self.fft = dpnp.fft
        self.errors: tuple[type[BaseException], ...] = (dpnp.linalg.LinAlgError, np.linalg.LinAlgError)
        self._from_raw = dpnp.ndarray._create_from_usm_ndarray

    def wrap(self, raw: Any) -> Any:
        # dpnp re-labels the namespace of the usm_ndarray it wraps; wrap a fresh view
        # (same memory, same pointer) so the caller's raw array keeps its own.  Every
        # operand of a oneMKL routine passes here: one that is not C- or F-contiguous
        # (a broadcast, flipped or stepped view) is copied to C order first, because
        # dpnp's gemm/gemv, DFT and LAPACK paths misread zero and negative strides
        # (garbage, provider errors, segfaults).
        return self._from_raw(dense(raw))

    def unwrap(self, res: Any, like: Any) -> Any:
        out = res.get_array()
        out._set_namespace(None)  # a plain dpnp.tensor array again
        return out


class HostKernels:
    """NumPy on the host: the fallback when dpnp cannot be used."""

    on_device: Literal[False] = False
    name = "NumPy on the host (dpnp not available)"

    def __init__(self) -> None:
        self.linalg = np.linalg
        self.fft = np.fft
        self.errors: tuple[type[BaseException], ...] = (np.linalg.LinAlgError,)

    def wrap(self, raw: Any) -> np.ndarray:
        return _sycl.to_host(raw)

    def unwrap(self, res: Any, like: Any) -> Any:
        # np.asarray keeps 0-D results 0-D (np.ascontiguousarray would make them 1-D)
        return _sycl.from_host(np.asarray(res, order="C"), like.usm_type, like.sycl_queue)


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
    """Whether the LAPACK/DFT kernels for SYCL arrays run on the SYCL device."""
    return kernels().on_device


def _kernels_for(raw: Any) -> OneMKLKernels | HostKernels:
    return kernels()


def _announce(k: Any, what: str) -> None:
    global _warned
    if type(k) is HostKernels and not _warned:
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
    k = _kernels_for(raws[0])
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


def gemm(fname: str, a1: Any, a2: Any, **kw: Any) -> Any:
    """``dpnp.matmul`` / ``dpnp.tensordot`` (oneMKL gemm) on two raw arrays of one
    floating dtype, or None where oneMKL cannot be reached: the caller then uses the
    kernel provider's own (slower, but still on-device) kernel."""
    k = _kernels_for(a1)
    if not k.on_device:
        return None
    # dpnp's gemm path refuses operands neither C- nor F-contiguous (a broadcast view)
    w1, w2 = (
        k.wrap(a) if a.flags.c_contiguous or a.flags.f_contiguous
        else k.dpnp.ascontiguousarray(k.wrap(a))
        for a in (a1, a2)
    )
    return k.unwrap(getattr(k.dpnp, fname)(w1, w2, **kw), a1)


def linalg(fname: str, *raws: Any, **kw: Any) -> Any:
    """``<kernels>.linalg.<fname>(*raws, **kw)`` on raw arrays; tuples come back as tuples.
    A failed allocation is a MemoryError (see :func:`operands_failed`)."""
    # dpnp 0.20's eigvalsh uses a read-only F-contiguous operand (a transposed broadcast
    # view) as LAPACK's work array and fails with "output array is read-only": read-only
    # operands go as copies, which the routines may overwrite
    raws = tuple(r if r.flags.writable else _sycl.copy(r) for r in raws)
    try:
        return _call("linalg", fname, raws, kw)
    except Exception as exc:
        operands_failed(exc, f"linalg.{fname}", *raws)


def operands_failed(exc: Exception, fname: str, *raws: Any) -> NoReturn:
    """Raise for ``exc`` from a linear-algebra routine on ``raws``: a failed allocation
    is a MemoryError naming the size of the largest operand, which the routines copy."""
    big = max(raws, key=lambda r: r.size)
    alloc_failed(exc, _sycl, big, big.size * big.itemsize, fname)


def fft(fname: str, raw: Any, **kw: Any) -> Any:
    """``<kernels>.fft.<fname>(raw, **kw)`` on a raw array."""
    return _call("fft", fname, (raw,), kw)


# ---- eig / eigvals ------------------------------------------------------------------------
# oneMKL's SYCL LAPACK has no nonsymmetric eigensolver (geev), so dpnp computes eig and
# eigvals with NumPy on the host.  Here they run on the device instead: the complex
# Schur form by the shifted QR algorithm (each step a batched oneMKL QR factorization
# and batched matrix products; explicit Francis double shifts up to order 64, single
# Wilkinson/Rayleigh shifts above), 2x2 blocks finished in closed form, then
# eigenvectors by back-substitution on the triangular factor, vectorized over the
# eigenvalues.

_EIG_MAX_STEPS = 30  # QR steps allowed per deflation before giving up
_WILKINSON_EVERY = 3  # single-shift steps: Wilkinson shift every third step, Rayleigh between
_DOUBLE_MAX_N = 64  # double-shift steps up to this order (fewer steps, more flops per step)
_DOUBLE_STEPS = 4  # double-shift steps after each deflation, before single shifts  # Wilkinson shift on every third step, Rayleigh shifts between


def eig(raw: Any, vectors: bool) -> Any:
    """Eigenvalues ``(..., n)`` and (if ``vectors``) eigenvectors ``(..., n, n)`` of
    square matrices, both complex; the kernel set in use decides where."""
    k = _kernels_for(raw)
    fname = "eig" if vectors else "eigvals"
    if not k.on_device:
        _announce(k, f"linalg.{fname}")
        host = k.wrap(raw)
        try:
            if not np.isfinite(host).all():
                raise LinAlgError(f"{fname}: the matrix contains infinities or NaNs")
            res = np.linalg.eig(host) if vectors else np.linalg.eigvals(host)
        except LinAlgError:
            raise
        except np.linalg.LinAlgError as exc:
            raise LinAlgError(f"{fname}: {exc}") from None
        except MemoryError as exc:
            operands_failed(exc, f"linalg.{fname}", raw)
        if vectors:
            return k.unwrap(res[0], raw), k.unwrap(res[1], raw)
        return k.unwrap(res, raw)
    try:
        return _eig_device(k, raw, vectors, fname)
    except Exception as exc:
        operands_failed(exc, f"linalg.{fname}", raw)


def _diag_view(pt: Any, a: Any, m: int) -> Any:
    """Writable view of the diagonal of the leading m x m blocks of a C-contiguous
    (nb, n, n) array."""
    nb, n, _ = a.shape
    return pt.usm_ndarray((nb, m), dtype=a.dtype, buffer=a, strides=(n * n, n + 1))


def _eig_device(k: OneMKLKernels, raw: Any, vectors: bool, fname: str) -> Any:
    pt = _sycl.provider
    real_input = raw.dtype.kind == "f"
    single = raw.dtype.itemsize == (4 if real_input else 8)
    cd = np.dtype(np.complex64 if single else np.complex128)
    rd: np.dtype = np.dtype(np.float32 if single else np.float64)
    eps = float(np.finfo(rd).eps)
    tiny = float(np.finfo(rd).tiny)
    n = raw.shape[-1]
    batch = raw.shape[:-2]
    nb = math.prod(batch)
    ut, q = raw.usm_type, raw.sycl_queue

    a0 = pt.astype(pt.reshape(raw, (nb, n, n)), cd, copy=True)
    amax = pt.max(pt.abs(a0), axis=(1, 2), keepdims=True)  # NaN and inf propagate
    if not bool(pt.all(pt.isfinite(amax))):
        raise LinAlgError(f"{fname}: the matrix contains infinities or NaNs")
    if n == 1:
        w = pt.reshape(a0, batch + (1,))
        if not vectors:
            return w
        return w, pt.ones(batch + (1, 1), dtype=cd, usm_type=ut, sycl_queue=q)
    # constants on the device, made once (a Python scalar operand costs a host copy)
    c_half, c_one, c_zero = (pt.full((), v, dtype=cd, usm_type=ut, sycl_queue=q)
                             for v in (0.5, 1.0, 0.0))
    c_exc = pt.full((), 0.75, dtype=rd, usm_type=ut, sycl_queue=q)
    # scale each matrix to max |a| = 1
    scale = pt.where(pt.greater(amax, c_zero.real), amax, c_one.real)  # (nb, 1, 1)
    a0 = pt.divide(a0, scale)
    # deflation tolerance eps * |a|_F per matrix: the size of the rounding errors of a
    # QR step, so a row below it is as good as zero (and a backward-stable deflation)
    tol = pt.reshape(pt.multiply(pt.reduce_hypot(pt.abs(a0), axis=(1, 2)), eps),
                     (nb, 1))
    a = pt.asarray(a0, copy=True) if vectors else a0
    eye = pt.eye(n, dtype=cd, usm_type=ut, sycl_queue=q)
    z: Any = pt.asarray(pt.broadcast_to(eye, (nb, n, n)), copy=True) if vectors else None

    # ---- Schur form by the shifted QR algorithm ----
    m = _qr_sweeps(k, pt, raw, a, z, tol, fname, (c_half, c_one, c_zero, c_exc), rd, cd)
    if m == 2:
        # the leading 2x2 block: its Schur form in closed form
        lam1, lam2, g = _schur2(pt, a[:, :2, :2], c_half, c_one, c_zero, rd, cd)
        if vectors:
            z[:, :, :2] = pt.matmul(z[:, :, :2], g)
        else:
            d2 = _diag_view(pt, a, 2)
            d2[:, 0] = lam1
            d2[:, 1] = lam2

    if vectors:
        # the Schur factor, upper blocks included: t = z^H a0 z
        t = pt.triu(pt.matmul(pt.conj(z).mT, pt.matmul(a0, z)))
    else:
        t = a
    dg = pt.asarray(_diag_view(pt, t, n), copy=True)
    w = pt.multiply(dg, pt.reshape(scale, (nb, 1)))
    if real_input:
        # a real eigenvalue comes out of complex arithmetic with an imaginary part at
        # rounding level; below 4 n eps max|x| it carries no information
        lim = pt.multiply(pt.reshape(scale, (nb, 1)), 4.0 * n * eps)
        w = pt.where(pt.less_equal(pt.abs(pt.imag(w)), lim), pt.astype(pt.real(w), cd), w)
        w, partner, paired = _conjugate_pairs(pt, w)
    w = pt.reshape(w, batch + (n,))
    if not vectors:
        return w
    v = pt.matmul(z, _triangular_eigenvectors(pt, t, dg, eps, tiny, rd, cd))
    # unit 2-norm columns whose largest component is real and positive (as LAPACK's geev)
    av = pt.abs(v)
    nrm = pt.reduce_hypot(av, axis=1, keepdims=True)
    nrm = pt.where(pt.greater(nrm, 0), nrm, 1.0)
    lead = pt.take_along_axis(v, pt.expand_dims(pt.argmax(av, axis=1), axis=1), axis=1)
    alead = pt.abs(lead)
    phase = pt.where(pt.greater(alead, 0), pt.divide(pt.conj(lead), pt.astype(alead, cd)),
                     1.0)
    v = pt.multiply(v, pt.divide(phase, pt.astype(nrm, cd)))
    if real_input:  # the second of each pair: the conjugate of the first's vector
        second = pt.logical_and(paired, pt.less(partner, pt.arange(n, sycl_queue=q)))
        mate = pt.conj(pt.take_along_axis(v, pt.expand_dims(partner, axis=1), axis=2))
        v = pt.where(pt.expand_dims(second, axis=1), mate, v)
    return w, pt.reshape(v, batch + (n, n))


def _conjugate_pairs(pt: Any, w: Any) -> tuple[Any, Any, Any]:
    """The eigenvalues ``w`` (nb, n) of real matrices, each complex one and the one
    nearest its conjugate (when each is the other's nearest) made exact conjugates by
    their mean, as a real eigensolver (LAPACK's geev) gives them; with the partner of
    each and whether it was paired.  Complex arithmetic leaves them conjugate to
    rounding only, and clients rely on exact pairs (SciPy's ``tf2zpk`` and ``poly``
    then give purely real coefficients)."""
    n = w.shape[-1]
    dist = pt.abs(pt.subtract(pt.expand_dims(w, axis=2), pt.expand_dims(pt.conj(w), axis=1)))
    partner = pt.argmin(dist, axis=2)  # (nb, n): j nearest conj(w_i)
    idx = pt.arange(n, sycl_queue=w.sycl_queue)
    back = pt.take_along_axis(partner, partner, axis=1)
    paired = pt.logical_and(pt.equal(back, idx), pt.not_equal(partner, idx))
    mate = pt.conj(pt.take_along_axis(w, partner, axis=1))
    mean = pt.multiply(pt.add(w, mate), 0.5)  # its conjugate is the mate's mean, exactly
    return pt.where(paired, mean, w), partner, paired


def _qr_sweeps(k: Any, pt: Any, raw: Any, a: Any, z: Any, tol: Any, fname: str,
               consts: tuple, rd: Any, cd: Any) -> int:
    """Shifted QR steps on the active leading block of every matrix of ``a`` (nb, n, n),
    accumulating the unitary factors into ``z`` (if not None), until the active block
    is at most 2x2; returns its size.  A trailing 1x1 or 2x2 block deflates (2x2 in
    closed form) once its rows left of it are below ``tol`` in every matrix.

    After each deflation the first steps are explicit Francis double-shift steps (Q
    from the QR factorization of (h - mu1)(h - mu2), mu1, mu2 the eigenvalues of the
    trailing 2x2 block: two shifts per factorization), up to order 64; then single
    complex shifts (Wilkinson every third step, Rayleigh quotients between,
    exceptional ones at steps 10 and 20), which also converge where the matrices of a
    batch need deflations of different kinds."""
    c_half, c_one, c_zero, c_exc = consts
    nb, n, _ = a.shape
    vectors = z is not None
    n_double = _DOUBLE_STEPS if n <= _DOUBLE_MAX_N else 0
    m = n
    steps = 0
    while m > 2:
        r1 = pt.reduce_hypot(pt.abs(a[:, m - 1, : m - 1]), axis=1)  # (nb,)
        r2 = pt.reduce_hypot(pt.abs(a[:, m - 2 : m, : m - 2]), axis=(1, 2))
        ok = pt.asnumpy(pt.all(pt.less_equal(pt.stack([r1, r2], axis=1), tol), axis=0))
        if ok[0]:
            m -= 1
            steps = 0
            continue
        if ok[1]:
            lam1, lam2, g = _schur2(pt, a[:, m - 2 : m, m - 2 : m], c_half, c_one, c_zero,
                                    rd, cd)
            if vectors:
                z[:, :, m - 2 : m] = pt.matmul(z[:, :, m - 2 : m], g)
            else:
                a[:, m - 2, m - 2] = lam1
                a[:, m - 1, m - 1] = lam2
            m -= 2
            steps = 0
            continue
        if steps >= n_double + _EIG_MAX_STEPS:
            raise LinAlgError(
                f"{fname}: the QR algorithm did not converge ({steps} steps without "
                f"deflating eigenvalue {m} of {n})"
            )
        steps += 1
        h = a[:, :m, :m]
        p, b, c, d = h[:, m - 2, m - 2], h[:, m - 2, m - 1], h[:, m - 1, m - 2], h[:, m - 1, m - 1]
        if steps <= n_double:
            # (h - mu1)(h - mu2) = h^2 - tr h + det I for the trailing 2x2 block
            tr = pt.add(p, d)
            det = pt.subtract(pt.multiply(p, d), pt.multiply(b, c))
            pm = pt.subtract(pt.matmul(h, h), pt.multiply(h, pt.reshape(tr, (nb, 1, 1))))
            pdiag = _diag_view(pt, pm, m)
            pdiag += pt.reshape(det, (nb, 1))
            qm = k.unwrap(k.linalg.qr(k.wrap(pm), mode="reduced")[0], raw)
            pt.matmul(pt.conj(qm).mT, pt.matmul(h, qm), out=a[:, :m, :m])
        else:
            single = steps - n_double
            if single in (10, 20):
                # exceptional shift, to break a cycle of the shifts below
                mu = pt.add(d, pt.multiply(r1, c_exc))
            elif single % _WILKINSON_EVERY != 1:
                # Rayleigh-quotient shift: converges fast once the bottom row is small
                mu = pt.asarray(d, copy=True)
            else:
                # Wilkinson shift: the eigenvalue of the trailing 2x2 block closest to d
                # (complex, so it also finds complex eigenvalues of real matrices)
                half = pt.multiply(pt.subtract(p, d), c_half)
                bc = pt.multiply(b, c)
                disc = pt.sqrt(pt.add(pt.square(half), bc))
                x1 = pt.add(half, disc)
                x2 = pt.subtract(half, disc)
                den = pt.where(pt.greater_equal(pt.abs(x1), pt.abs(x2)), x1, x2)
                nz = pt.not_equal(den, c_zero)
                mu = pt.subtract(d, pt.where(nz, pt.divide(bc, pt.where(nz, den, c_one)),
                                             c_zero))
            mu = pt.reshape(mu, (nb, 1))
            diag = _diag_view(pt, a, m)
            diag -= mu
            qf, rf = k.linalg.qr(k.wrap(a[:, :m, :m]), mode="reduced")
            qm, rm = k.unwrap(qf, raw), k.unwrap(rf, raw)
            pt.matmul(rm, qm, out=a[:, :m, :m])
            diag += mu
        if vectors:
            z[:, :, :m] = pt.matmul(z[:, :, :m], qm)
    return m


def _schur2(pt: Any, h: Any, c_half: Any, c_one: Any, c_zero: Any, rd: Any,
            cd: Any) -> tuple[Any, Any, Any]:
    """Eigenvalues and a unitary G with G^H h G upper triangular, for (nb, 2, 2) h."""
    p, b, c, d = h[:, 0, 0], h[:, 0, 1], h[:, 1, 0], h[:, 1, 1]
    half = pt.multiply(pt.subtract(p, d), c_half)
    mid = pt.multiply(pt.add(p, d), c_half)
    disc = pt.sqrt(pt.add(pt.square(half), pt.multiply(b, c)))
    lam1 = pt.add(mid, disc)
    lam2 = pt.subtract(mid, disc)
    # an eigenvector of lam1 from either row of (h - lam1), the better scaled one
    x1, y1 = b, pt.subtract(lam1, p)
    x2, y2 = pt.subtract(lam1, d), c
    n1 = pt.hypot(pt.abs(x1), pt.abs(y1))
    n2 = pt.hypot(pt.abs(x2), pt.abs(y2))
    first = pt.greater_equal(n1, n2)
    x = pt.where(first, x1, x2)
    y = pt.where(first, y1, y2)
    nrm = pt.where(first, n1, n2)
    ok = pt.greater(nrm, c_zero.real)
    x = pt.where(ok, pt.divide(x, pt.where(ok, nrm, c_one.real)), c_one)
    y = pt.where(ok, pt.divide(y, pt.where(ok, nrm, c_one.real)), c_zero)
    # G = [[x, -conj(y)], [y, conj(x)]]
    g = pt.stack([pt.stack([x, pt.negative(pt.conj(y))], axis=-1),
                  pt.stack([y, pt.conj(x)], axis=-1)], axis=-2)
    return lam1, lam2, g


def _triangular_eigenvectors(pt: Any, t: Any, dg: Any, eps: float, tiny: float,
                             rd: Any, cd: Any) -> Any:
    """Columns y_k with (t - t_kk) y_k = 0, y_k[k] = 1, y_k[j] = 0 for j > k, for upper
    triangular t (nb, n, n): back-substitution row by row, all k at once.  A divisor
    t_kk - t_jj smaller than eps |t_kk| is replaced by that bound (as LAPACK's trevc)."""
    nb, n, _ = t.shape
    den = pt.subtract(pt.expand_dims(dg, axis=1), pt.expand_dims(dg, axis=2))  # t_kk - t_jj
    smin = pt.expand_dims(pt.maximum(pt.multiply(pt.abs(dg), eps), tiny), axis=1)
    den = pt.where(pt.less(pt.abs(den), smin), pt.astype(smin, cd), den)
    upper = pt.triu(pt.ones((n, n), dtype=rd, usm_type=t.usm_type, sycl_queue=t.sycl_queue), k=1)
    inv = pt.multiply(pt.divide(1.0, den), pt.astype(upper, cd))  # zero on and below diag
    for attempt in range(2):
        y = pt.asarray(pt.broadcast_to(pt.eye(n, dtype=cd, usm_type=t.usm_type,
                                              sycl_queue=t.sycl_queue), (nb, n, n)), copy=True)
        for j in range(n - 2, -1, -1):
            num = pt.matmul(t[:, j : j + 1, j + 1 :], y[:, j + 1 :, :])[:, 0, :]
            row = y[:, j, :]
            row += pt.multiply(num, inv[:, j, :])
            if attempt:
                # rescale columns that grow too large (ill-conditioned eigenvectors)
                cmax = pt.max(pt.abs(y[:, j:, :]), axis=1, keepdims=True)
                big = pt.greater(cmax, 1e15 if rd == np.float32 else 1e150)
                y = pt.divide(y, pt.astype(pt.where(big, cmax, 1.0), cd))
        if attempt or bool(pt.all(pt.isfinite(pt.abs(y)))):
            return y
    raise AssertionError("unreachable")  # pragma: no cover


__all__ = [
    "HostFallbackWarning", "HostKernels", "LinAlgError", "OneMKLKernels", "eig", "fft",
    "gemm", "kernels", "linalg", "on_device", "use",
]
