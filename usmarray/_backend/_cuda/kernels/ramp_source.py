"""The CUDA source and scalar arguments of ``linspace``'s kernel, without CuPy (tests
compile and run the formula without a GPU).

The kernel computes each value as NumPy does (``include/usmarray/linspace.cuh``): in
the computation dtype the namespace passes (NumPy's for the bounds, NEP 50), real or
complex, every operation rounded alone, then rounded once to the result dtype.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from .c_types import CTYPES

#: linspace's per-element formula (NumPy's, operation by operation)
_LINSPACE_HEADER = (Path(__file__).parent.parent / "include" / "usmarray"
                    / "linspace.cuh").read_text()
#: one kernel per (result part type P, computation type C, complex computation, parts
#: per result element W): each element's (re, im) from the header, rounded once to P
_LINSPACE = r"""
typedef {p} P; typedef {c} C;
extern "C" __global__ void __launch_bounds__(256) k(P* __restrict__ out, const long long n,
    const double start_r, const double start_i, const double stop_r, const double stop_i,
    const double scale, const double m_r, const double m_i, const long long by_div,
    const long long last_is_stop) {{
  const long long st = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += st) {{
    C re, im;
    usm_linspace_value<C, {complex}>(i, n, (C)start_r, (C)start_i, (C)stop_r, (C)stop_i,
                                     (C)scale, (C)m_r, (C)m_i, by_div, last_is_stop, &re, &im);
    out[{w} * i] = (P)re;
    if ({w} == 2) out[{w} * i + 1] = (P)im;
  }}
}}
"""


def _part(d: np.dtype) -> np.dtype:
    """The real dtype of one part of ``d`` (``d`` itself where it is real)."""
    return np.dtype(d.char.lower()) if d.kind == "c" else d


def linspace_source(d: np.dtype, c: np.dtype) -> str:
    """The kernel writing ``linspace`` in ``d`` computed in ``c`` (floating dtypes)."""
    return _LINSPACE_HEADER + _LINSPACE.format(p=CTYPES[_part(d)], c=CTYPES[_part(c)],
                            complex="true" if c.kind == "c" else "false",
                            w=2 if d.kind == "c" else 1)


def linspace_arguments(start: Any, stop: Any, num: int, endpoint: bool,
                       c: np.dtype) -> tuple:
    """The kernel's scalar arguments after ``n``: NumPy's scalars of the call in ``c``.
    ``delta = stop - start`` and ``step = delta / div``; where the step is zero (a
    subnormal step underflowed) the values are ``i / div * delta + start``; with
    ``div <= 0`` (one value, the end point included) they are ``i * delta + start``."""
    div = (num - 1) if endpoint else num
    with np.errstate(all="ignore"):
        lo, hi = c.type(start), c.type(stop)
        delta = hi - lo
        step = delta / div if div > 0 else delta
        by_div = bool(div > 0 and step == 0)
        m = delta if by_div else step
        part = _part(c).type
        # NumPy's complex division by div + 0j multiplies by 1 / (div + 0 * 0)
        scale = part(1) / part(max(div, 1)) if c.kind == "c" else part(max(div, 1))
    return (float(lo.real), float(lo.imag), float(hi.real), float(hi.imag), float(scale),
            float(m.real), float(m.imag), int(by_div), int(endpoint and num > 1))


__all__ = ["linspace_arguments", "linspace_source"]
