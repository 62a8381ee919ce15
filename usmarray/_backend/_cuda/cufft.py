"""FFTs through cuFFT plans kept here: 1-D along the last axis, n-D over the last two
or three axes.

``cupy.fft``'s functions look a plan up in CuPy's plan cache, check and convert their
operands and scale through generic elementwise kernels: 20-60 us of host time for a
100-point transform (PyTorch: 15-25 us).  :class:`DirectFFT` takes ``fft``, ``ifft``,
``rfft`` and ``irfft`` of C-contiguous arrays of plain device memory along the last
axis at their own length (no padding or trimming), and ``fftn`` and ``ifftn`` over the
last two or three axes (:data:`ND_MAX`) at their own lengths, and runs one cached
``Plan1d`` or ``PlanNd`` (plus a copy of ``irfft``'s input, which the complex-to-real
transform overwrites, and a scaling where the norm asks for one: the real and imaginary
parts as one real array, by the backend's engine).  Anything else goes to ``cupy.fft``.

Scaling multiplies by ``1/n`` (or ``1/sqrt(n)``, ``n`` the points of one transform) as
NumPy's pocketfft does; ``irfft`` scales the copy of its input instead of its output
(one pass less; the transform is linear, so the values agree to rounding).
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
#: the n-dimensional transforms on cached plans, by the 1-D kind of their type
ND_KINDS = {"fftn": "fft", "ifftn": "ifft"}
#: the most trailing axes one cuFFT plan transforms
ND_MAX = 3
#: plans kept (each holds its work area in CuPy's pool)
PLANS = 16


def _scale(pts: int, norm: str, direction: int) -> float:
    """The factor ``norm`` asks of a transform of ``pts`` points in ``direction``."""
    if norm == "ortho":
        return 1.0 / math.sqrt(pts)
    inverse = direction == _cufft.CUFFT_INVERSE
    return 1.0 / pts if (norm == "backward") == inverse and pts > 1 else 1.0


class DirectFFT:
    """The four 1-D transforms on cached plans (see the module docstring)."""

    def __init__(self, is_fast: Callable[[Any], bool], single_gpu: bool,
                 multiply: Callable[[Any, float], Any]) -> None:
        self._is_fast = is_fast
        self._single = single_gpu
        #: the backend's product of a real array and a Python float (a new array)
        self._multiply = multiply
        self._plans: OrderedDict[tuple, Any] = OrderedDict()

    def _plan(self, dims: tuple[int, ...], t: int, batch: int) -> Any:
        """The plan of ``batch`` C-ordered transforms of shape ``dims`` each, one after
        the other in memory."""
        key = (dims, t, batch, 0 if self._single else cupy.cuda.runtime.getDevice())
        p = self._plans.get(key)
        if p is None:
            if len(dims) == 1:
                p = _cufft.Plan1d(dims[0], t, batch)
            else:
                size = math.prod(dims)
                p = _cufft.PlanNd(dims, dims, 1, size, dims, 1, size, t, batch, "C",
                                  -1, None)
            self._plans[key] = p
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
        scale = _scale(pts, norm, direction)
        out = _nd(a.shape[:-1] + (out_len,), od)
        src = a
        if kind == "irfft":  # the transform overwrites its input: scale the copy it needs
            src = self._scaled(a, scale) if scale != 1.0 else a.copy()
            scale = 1.0
        self._plan((pts,), t, a.size // m).fft(src, out, direction)
        return self._scaled(out, scale) if scale != 1.0 else out

    def run_nd(self, kind: str, a: Any, s: Any, axes: Any, norm: str) -> Any:
        """The n-dimensional transform over the last two or three axes of a C-ordered
        ``a`` at their own lengths, or None where the direct path does not take it."""
        if not (a.__class__ is _nd and a.size and a._c_contiguous and self._is_fast(a)):
            return None
        nd = a.ndim
        k = nd if axes is None else len(axes)
        if not 2 <= k <= min(ND_MAX, nd):
            return None
        if axes is not None and tuple(ax % nd for ax in axes) != tuple(range(nd - k, nd)):
            return None
        dims = a.shape[nd - k:]
        if s is not None and tuple(s) != dims:
            return None
        spec = _TYPES.get((ND_KINDS[kind], a.dtype))
        if spec is None:
            return None
        t, direction, od = spec
        pts = math.prod(dims)
        out = _nd(a.shape, od)
        self._plan(dims, t, a.size // pts).fft(a, out, direction)
        scale = _scale(pts, norm, direction)
        return self._scaled(out, scale) if scale != 1.0 else out

    def _scaled(self, z: Any, scale: float) -> Any:
        """``z * scale`` for a complex array: the real and imaginary parts scaled as one
        real array by the backend's vectorized kernel, each part as NumPy scales it (a
        complex product would make ``inf * 0`` of an infinite part)."""
        real = z.view(_F32 if z.dtype == _C64 else _F64)
        return self._multiply(real, scale).view(z.dtype)

    def wrap(self, kind: str, fallback: Any) -> Any:
        """``kind(a, n=None, axis=-1, norm="backward")`` (of :data:`ND_KINDS`:
        ``kind(a, s=None, axes=None, norm="backward")``) on the direct path where it
        takes the call, else ``fallback``."""
        if kind in ND_KINDS:
            def fn(a: Any, s: Any = None, axes: Any = None, norm: Any = "backward") -> Any:
                out = self.run_nd(kind, a, s, axes, norm or "backward")
                return fallback(a, s=s, axes=axes, norm=norm) if out is None else out
        else:
            def fn(a: Any, n: Any = None, axis: int = -1,  # type: ignore[misc]
                   norm: Any = "backward") -> Any:
                out = self.run(kind, a, n, axis, norm or "backward")
                return fallback(a, n=n, axis=axis, norm=norm) if out is None else out

        fn.__name__ = kind
        return fn


__all__ = ["KINDS", "ND_KINDS", "ND_MAX", "PLANS", "DirectFFT"]
