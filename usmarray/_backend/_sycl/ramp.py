"""``linspace`` on SYCL queues with NumPy's values, bit for bit.

The provider's ``linspace`` computes ``(start * (n - 1 - i) + stop * i) / (n - 1)``,
which rounds differently from NumPy's ``i * step + start``.  Here the values follow
NumPy's formula in the computation dtype the namespace passes: ``delta = stop - start``
and ``step = delta / div`` as NumPy's scalars, each element ``i * step + start`` (``i /
div * delta + start`` where the step underflows to zero; ``i * delta + start`` with no
step), every operation rounded (no contraction into a fused multiply-add), the last
element ``stop`` itself with ``endpoint``, and one rounding to the result dtype.

Real dtypes of at least :data:`KERNEL_MIN_ELEMENTS` elements on an OpenCL device run as
one kernel (built once per queue's device and dtype pair); shorter ones, other devices,
complex dtypes and a device that cannot build it compute the same formula with the
provider's ``arange``, ``divide``, ``multiply`` and ``add``.
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any

import dpctl
import dpctl.program as dpp
import numpy as np

from .program import has_fp64, program_key, unsupported
from .ranged import PIECE

try:
    from dpctl.utils import SequentialOrderManager
except ImportError:  # pragma: no cover - dpctl < 0.18
    SequentialOrderManager = None

_SOURCE = r"""
{ext}
#pragma OPENCL FP_CONTRACT OFF
typedef {t} T; typedef {c} C;
__kernel void linspace_k(__global T* out, const long first, const long n, const C start,
    const C stop, const C div, const C step, const C delta, const int by_div,
    const int last_is_stop) {{
  const long i = first + (long)get_global_id(0);
  // selects, not branches: the OpenCL CPU compiler vectorizes this form (2x)
  C v = by_div ? ((C)i / div) * delta + start : (C)i * step + start;
  v = (last_is_stop && i == n - 1) ? stop : v;
  out[i] = (T)v;
}}
"""

_REAL = {np.dtype(np.float32): ("float", ctypes.c_float),
         np.dtype(np.float64): ("double", ctypes.c_double)}
#: build options: single-precision division correctly rounded, as NumPy's
_COPTS = "-cl-fp32-correctly-rounded-divide-sqrt"

#: below this many elements the provider's arange/multiply/add (under a millisecond at
#: 1e5) beat the kernel, whose build from source costs 35-115 ms once per process and dtype
KERNEL_MIN_ELEMENTS = 1 << 20

_kernels: dict[Any, Any] = {}
_kernels_lock = threading.Lock()


def _kernel(q: dpctl.SyclQueue, c: np.dtype, d: np.dtype) -> Any:
    """The kernel for computation dtype ``c`` and result dtype ``d`` on ``q``, or None
    where it cannot be built there."""
    key = (program_key(q), c, d)
    k = _kernels.get(key, False)
    if k is not False:
        return k
    k = None
    double = np.dtype(np.float64) in (c, d)
    if unsupported(q) is None and (has_fp64(q) or not double):
        ext = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable" if double else ""
        src = _SOURCE.format(ext=ext, t=_REAL[d][0], c=_REAL[c][0])
        try:
            k = dpp.create_program_from_source(q, src, _COPTS).get_sycl_kernel("linspace_k")
        except dpp.SyclProgramCompilationError:  # pragma: no cover - the device's compiler
            k = None
    with _kernels_lock:
        _kernels[key] = k
    return k


def _scalars(c: np.dtype, start: Any, stop: Any, div: int) -> tuple[Any, Any, Any, Any, Any, bool]:
    """NumPy's scalars in ``c``: (start, stop, div, step, delta, by_div)."""
    with np.errstate(all="ignore"):
        lo, hi, dv = c.type(start), c.type(stop), c.type(max(div, 1))
        delta = hi - lo
        step = delta / dv if div > 0 else delta
    return lo, hi, dv, step, delta, bool(div > 0 and step == 0)


def linspace(pt: Any, start: Any, stop: Any, num: int, dtype: Any, endpoint: bool,
             usm_type: Any, queue: Any, compute_dtype: Any) -> Any:
    """``num`` values from ``start`` to ``stop`` of ``dtype``, computed in
    ``compute_dtype`` (None: the provider's own ``linspace``), on provider ``pt``."""
    if compute_dtype is None:
        return pt.linspace(start, stop, num, dtype=dtype, endpoint=endpoint,
                           usm_type=usm_type, sycl_queue=queue)
    d = np.dtype(dtype if dtype is not None else np.float64)
    c = np.dtype(compute_dtype)
    div = (num - 1) if endpoint else num
    lo, hi, dv, step, delta, by_div = _scalars(c, start, stop, div)
    last_is_stop = endpoint and num > 1
    if c in _REAL and d in _REAL and num >= KERNEL_MIN_ELEMENTS:
        out = pt.empty(num, dtype=d, usm_type=usm_type, sycl_queue=queue)
        q = out.sycl_queue
        k = _kernel(q, c, d)
        if k is not None:
            ct = _REAL[c][1]
            mem = out.usm_data
            mgr = SequentialOrderManager[q] if SequentialOrderManager is not None else None
            for first in range(0, num, PIECE):
                args = [mem, ctypes.c_longlong(first), ctypes.c_longlong(num), ct(lo), ct(hi),
                        ct(dv), ct(step), ct(delta), ctypes.c_int(by_div),
                        ctypes.c_int(last_is_stop)]
                size = min(PIECE, num - first)
                if mgr is None:  # pragma: no cover - dpctl < 0.18
                    q.submit(k, args, [size]).wait()
                else:
                    ev = q.submit_async(k, args, [size], dEvents=mgr.submitted_events)
                    mgr.add_event_pair(ev, ev)
            return out
    # the provider's scalars are Python numbers: these hold c's values exactly
    y = pt.arange(0, num, dtype=c, usm_type=usm_type, sycl_queue=queue)
    if by_div:
        y = pt.multiply(pt.divide(y, dv.item()), delta.item())
    else:
        y = pt.multiply(y, step.item())
    y = pt.add(y, lo.item())
    if last_is_stop:
        y[-1] = hi.item()
    return pt.astype(y, d, copy=False)


__all__ = ["linspace"]
