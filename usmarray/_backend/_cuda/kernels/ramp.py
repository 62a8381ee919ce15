"""``arange``, ``linspace`` and ``eye`` of real dtypes as one launch each (creation by
formula).

``linspace`` computes in the computation dtype the namespace passes, real or complex,
with NumPy's formula (``ramp_source``), and rounds once to the result dtype.
``arange`` computes ``start + i * step`` in the result dtype as CuPy's kernel does
(integers: in unsigned 64-bit arithmetic, exact for every value of the dtype, with an
exact length).  Both write into new memory of the current allocator on the current
stream, so they serve any placement; other dtypes go to CuPy.  ``arange``'s and
``eye``'s device code is ``include/usmarray/ramp.cuh``.
"""

from __future__ import annotations

import math
from typing import Any

import cupy
import numpy as np

from ._launch import Family, grid_1d, launch, stream_ptr
from .c_types import CTYPES
from .ramp_source import arange_source, eye_source, linspace_arguments, linspace_source

_nd = cupy.ndarray

#: arange dtypes: the C type its formula runs in (CuPy's: the dtype itself) and the
#: arguments' code.  Integers of every width run in unsigned 64-bit arithmetic on
#: ``start`` and ``step`` taken modulo 2**64: exact modulo 2**64, so the cast to the dtype
#: gives every value that fits it (the namespace checks that they all do), whatever the
#: sign of the step (CuPy's kernel refuses a negative step of an unsigned dtype)
_ARANGE_WORK: dict[np.dtype, tuple[str, str]] = {
    np.dtype(np.float32): ("float", "d"), np.dtype(np.float64): ("double", "d"),
    **{np.dtype(f"{u}int{b}"): ("unsigned long long", "Q") for u in ("", "u")
       for b in (8, 16, 32, 64)}}


class Ramps(Family):
    """``linspace``, ``arange`` and ``eye`` kernels, compiled once per dtype."""

    def linspace(self, start: Any, stop: Any, num: int, dtype: Any = None,
                 endpoint: bool = True, compute_dtype: Any = None) -> Any:
        """``num`` values from ``start`` to ``stop`` (Python numbers) in ``dtype``, as
        NumPy computes them in ``compute_dtype`` (real or complex) and casts them."""
        d = np.dtype(dtype) if dtype is not None else np.dtype(np.float64)
        c = np.dtype(compute_dtype) if compute_dtype is not None else d
        out = _nd((num,), d)
        if num == 0:
            return out
        f = self._cached(("linspace", d, c), lambda: linspace_source(d, c))
        launch(f, grid_1d(num), (256, 1, 1), "Qq" + "d" * 7 + "qq", out.data.ptr, num,
               *linspace_arguments(start, stop, num, endpoint, c), stream=stream_ptr())
        return out

    def arange(self, start: Any, stop: Any = None, step: Any = 1, dtype: Any = None) -> Any:
        d = np.dtype(dtype if dtype is not None else np.int64)
        lo, hi = (0, start) if stop is None else (start, stop)
        w, code = _ARANGE_WORK.get(d, ("", ""))
        # integer dtypes: Python ints only, for the exact arithmetic
        if (dtype is None or not code or not step
                or code == "Q" and not all(type(v) is int for v in (lo, hi, step))):
            return cupy.arange(start, stop, step, dtype=dtype)
        if code == "Q":
            n = max(0, -((lo - hi) // step))  # exact: a float division misses it past 2**53
            p, args = "unsigned long long", (lo % 2**64, step % 2**64)
        else:
            n = max(0, math.ceil((hi - lo) / step))
            p, args = "double", (float(lo), float(step))
        out = _nd((n,), d)
        if not n:
            return out
        f = self._cached(("arange", d), lambda: arange_source(CTYPES[d], w, p))
        launch(f, grid_1d(n), (256, 1, 1), "Qq" + code * 2, out.data.ptr, n, *args,
               stream=stream_ptr())
        return out

    def eye(self, n_rows: int, n_cols: Any = None, k: int = 0, dtype: Any = None) -> Any:
        """``cupy.eye``'s result written by one kernel (CuPy fills zeros, then the
        diagonal: two launches and a view)."""
        d = np.dtype(dtype if dtype is not None else np.float64)
        m = n_rows if n_cols is None else n_cols
        if d not in CTYPES or n_rows * m == 0:  # CTYPES: real and bool dtypes
            return cupy.eye(n_rows, n_cols, k=k, dtype=d)
        out = _nd((n_rows, m), d)
        f = self._cached(("eye", d), lambda: eye_source(CTYPES[d]))
        k = max(-n_rows, min(k, m))  # a diagonal outside the matrix: all zeros (int64 k)
        gx = -(-m // 256)
        # a block takes several rows: one short row a block ran at half the write speed
        launch(f, (gx, max(1, min(n_rows, 65535, 8192 // gx)), 1), (256, 1, 1), "Qqqq", out.data.ptr,
               n_rows, m, k, stream=stream_ptr())
        return out


__all__ = ["Ramps"]
