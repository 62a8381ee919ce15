"""One-dimensional FFTs along the last axis through cuFFT plans kept here.

``cupy.fft``'s functions look a plan up in CuPy's plan cache, check and convert their
operands and scale through generic elementwise kernels: 20-60 us of host time for a
100-point transform (PyTorch: 15-25 us).  :class:`DirectFFT` takes ``fft``, ``ifft``,
``rfft`` and ``irfft`` of C-contiguous arrays of plain device memory along the last
axis at their own length (no padding or trimming) and runs one cached ``Plan1d``
(plus a copy of ``irfft``'s input, which the complex-to-real transform overwrites, and
a scaling where the norm asks for one: the real and imaginary parts as one real array,
by the backend's vectorized multiply).  Anything else goes to ``cupy.fft``.

Scaling multiplies by ``1/n`` (or ``1/sqrt(n)``) as NumPy's pocketfft does; ``irfft``
scales the copy of its input instead of its output (one pass less; the transform is
linear, so the values agree to rounding).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import cupy
import numpy as np
from cupy.cuda import cufft as _cufft

_nd = cupy.ndarray
_C64, _C128 = np.dtype(np.complex64), np.dtype(np.complex128)
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
#: (kind, input dtype) -> (cuFFT type, direction, output dtype)
_TYPES = {
    ("fft", _C64): (_cufft.CUFFT_C2C, _cufft.CUFFT_FORWARD, _C64),
    ("fft", _C128): (_cufft.CUFFT_Z2Z, _cufft.CUFFT_FORWARD, _C128),
    ("ifft", _C64): (_cufft.CUFFT_C2C, _cufft.CUFFT_INVERSE, _C64),
    ("ifft", _C128): (_cufft.CUFFT_Z2Z, _cufft.CUFFT_INVERSE, _C128),
    ("rfft", _F32): (_cufft.CUFFT_R2C, _cufft.CUFFT_FORWARD, _C64),
    ("rfft", _F64): (_cufft.CUFFT_D2Z, _cufft.CUFFT_FORWARD, _C128),
    ("irfft", _C64): (_cufft.CUFFT_C2R, _cufft.CUFFT_INVERSE, _F32),
    ("irfft", _C128): (_cufft.CUFFT_Z2D, _cufft.CUFFT_INVERSE, _F64),
}
KINDS = ("fft", "ifft", "rfft", "irfft")
#: plans kept (each holds its work area in CuPy's pool)
PLANS = 16


class DirectFFT:
    """The four 1-D transforms on cached plans (see the module docstring)."""

    def __init__(self, is_fast: Callable[[Any], bool], single_gpu: bool,
                 multiply: Callable[[Any, float], Any]) -> None:
        self._is_fast = is_fast
        self._single = single_gpu
        #: the backend's ``multiply`` of a real array by a Python float (a new array)
        self._multiply = multiply
        self._plans: OrderedDict[tuple, Any] = OrderedDict()

    def _plan(self, n: int, t: int, batch: int) -> Any:
        key = (n, t, batch, 0 if self._single else cupy.cuda.runtime.getDevice())
        p = self._plans.get(key)
        if p is None:
            p = self._plans[key] = _cufft.Plan1d(n, t, batch)
            if len(self._plans) > PLANS:
                self._plans.popitem(last=False)
        else:
            self._plans.move_to_end(key)
        return p

    def run(self, kind: str, a: Any, n: Any, axis: int, norm: str) -> Any:
        """The transform, or None where the direct path does not take the call."""
        if not (a.__class__ is _nd and a.ndim and a.size
                and axis in (-1, a.ndim - 1) and a._c_contiguous and self._is_fast(a)):
            return None
        spec = _TYPES.get((kind, a.dtype))
        if spec is None:
            return None
        t, direction, od = spec
        m = a.shape[-1]
        if kind == "irfft":
            pts = 2 * (m - 1) if n is None else n
            if pts < 1 or pts // 2 + 1 != m:
                return None
            out_len = pts
        else:
            pts = m if n is None else n
            if pts != m:
                return None
            out_len = pts // 2 + 1 if kind == "rfft" else pts
        inverse = direction == _cufft.CUFFT_INVERSE
        scale = (1.0 / math.sqrt(pts) if norm == "ortho"
                 else 1.0 / pts if (norm == "backward") == inverse and pts > 1 else 1.0)
        out = _nd(a.shape[:-1] + (out_len,), od)
        src = a
        if kind == "irfft":  # the transform overwrites its input: scale the copy it needs
            src = a * scale if scale != 1.0 else a.copy()
            scale = 1.0
        self._plan(pts, t, a.size // m).fft(src, out, direction)
        if scale != 1.0:
            return self._scaled(out, scale)
        return out

    def _scaled(self, out: Any, scale: float) -> Any:
        """``out * scale`` for a complex result (irfft scales its input instead): the real
        and imaginary parts scaled as one real array by the backend's vectorized multiply
        (CuPy's complex in-place multiply ran 10% slower), each part as NumPy scales it."""
        real = out.view(_F32 if out.dtype == _C64 else _F64)
        return self._multiply(real, scale).view(out.dtype)

    def wrap(self, kind: str, fallback: Any) -> Any:
        """``kind(a, n=None, axis=-1, norm="backward")`` on the direct path where it
        takes the call, else ``fallback``."""
        def fn(a: Any, n: Any = None, axis: int = -1, norm: Any = "backward") -> Any:
            out = self.run(kind, a, n, axis, norm or "backward")
            return fallback(a, n=n, axis=axis, norm=norm) if out is None else out

        fn.__name__ = kind
        return fn


__all__ = ["KINDS", "PLANS", "DirectFFT"]
