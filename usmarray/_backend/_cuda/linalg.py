"""LAPACK-like and FFT kernels for CUDA arrays: cuSOLVER, cuBLAS and cuFFT via CuPy.

:class:`CupyLinalgKernels` holds ``linalg`` and ``fft`` namespaces of NumPy-shaped
functions for the backend's ``linalg`` and ``fft`` (and ``eig``, which is ``linalg``'s
``eig`` and ``eigvals``).
Every routine runs on the operand's queue (device and stream) with results in its
memory kind; nothing goes through the host.  Failures (a singular matrix, a
matrix that is not positive definite) raise ``numpy.linalg.LinAlgError``: CuPy
checks cuSOLVER's info flags under ``cupyx.errstate(linalg="raise")``.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import cupy
import cupyx
import numpy as np

from . import solver as _solver
from .cufft import KINDS as FFT_KINDS
from .cufft import ND_KINDS as FFT_ND_KINDS
from .cufft import DirectFFT


class CupyLinalgKernels:
    def __init__(self, be: Any) -> None:
        placed = be._placed
        cl = cupy.linalg

        def strict(fn: Any) -> Any:
            """``fn`` under ``errstate(linalg="raise")``: CuPy reads cuSOLVER's flags."""
            def call(*args: Any, **kw: Any) -> Any:
                with cupyx.errstate(linalg="raise"):
                    return fn(*args, **kw)

            call.__name__ = getattr(fn, "__name__", "call")
            return call

        def finite(fn: Any) -> Any:
            """``fn`` of general square matrices (cuSOLVER's geev through
            ``cupy.linalg``), refusing matrices with an infinity or a NaN."""
            def call(a: Any) -> Any:
                if not bool(be.all(be.isfinite(a))):
                    raise np.linalg.LinAlgError("the matrix contains infinities or NaNs")
                return fn(a)

            return call

        # the direct routines but gesvdj read their own flags: only the fallbacks (and
        # svd) take errstate
        la = SimpleNamespace(**{n: strict(getattr(cl, n)) for n in (
            "cholesky", "det", "slogdet", "solve", "inv", "svd", "eigh", "eigvalsh")})

        real = _solver.REAL

        def one(a: Any) -> bool:
            return a.ndim == 2 and a.dtype in real

        def cholesky(a: Any, upper: bool = False) -> Any:
            if one(a):
                return _solver.cholesky(cupy.ascontiguousarray(a), upper)
            low = la.cholesky(a)
            return cupy.conj(cupy.swapaxes(low, -1, -2)) if upper else low

        def solve(a: Any, b: Any) -> Any:
            if one(a) and b.ndim == 2 and b.dtype == a.dtype:
                return _solver.solve(cupy.ascontiguousarray(a), b)
            return la.solve(a, b)

        def inv(a: Any) -> Any:
            return _solver.inv(cupy.ascontiguousarray(a)) if one(a) else la.inv(a)

        def det(a: Any) -> Any:
            return _solver.slogdet(cupy.ascontiguousarray(a))[2] if one(a) else la.det(a)

        def slogdet(a: Any) -> Any:
            return _solver.slogdet(cupy.ascontiguousarray(a))[:2] if one(a) else la.slogdet(a)

        def eigh(a: Any) -> Any:
            return _solver.eigh(a, True) if one(a) else la.eigh(a)

        def eigvalsh(a: Any) -> Any:
            return _solver.eigh(a, False) if one(a) else la.eigvalsh(a)

        def qr(a: Any, mode: str = "reduced") -> Any:
            if one(a) and mode in ("reduced", "complete"):
                return _solver.qr(a, mode)
            q, r = cl.qr(a, mode=mode)
            return q, cupy.triu(r)

        def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True) -> Any:
            if _solver.svd_applies(a):
                return _solver.svd(a, full_matrices, compute_uv)
            return la.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)

        self.linalg = SimpleNamespace(
            cholesky=placed(cholesky), det=placed(det), slogdet=placed(slogdet),
            # gesvdj's convergence flag is read by CuPy under errstate (gesvd then)
            inv=placed(inv), solve=placed(solve), svd=placed(strict(svd)),
            # QR cannot fail (cuSOLVER's info flags only report bad arguments): no
            # errstate, so CuPy reads no flag back and the call does not wait
            qr=placed(qr), eigh=placed(eigh), eigvalsh=placed(eigvalsh),
            eig=finite(placed(strict(cl.eig))), eigvals=finite(placed(strict(cl.eigvals))),
        )
        direct = DirectFFT(be._is_fast, be._single, be.scaled)
        self.fft = SimpleNamespace(**{
            n: placed(direct.wrap(n, getattr(cupy.fft, n)) if n in FFT_KINDS or n in FFT_ND_KINDS
                      else getattr(cupy.fft, n)) for n in (
                "fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft",
                "ihfft", "fft2", "ifft2", "rfft2", "irfft2")
        })


__all__ = ["CupyLinalgKernels"]
