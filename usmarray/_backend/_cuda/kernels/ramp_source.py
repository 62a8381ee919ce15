"""The source and scalar arguments of ``linspace``'s CUDA kernel, and the sources of
``arange``'s and ``eye``'s (``include/usmarray/ramp.cuh``), without CuPy (tests compile
and run them without a GPU); the entry points are ``include/usmarray/ramp_entries.cuh``'s.

The kernel (``include/usmarray/linspace.cuh``) computes each value as NumPy does: in
the computation dtype the namespace passes (NumPy's for the bounds, NEP 50), real or
complex, every operation rounded alone, then rounded once to the result dtype.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .c_types import CTYPES
from .headers import entry, header


def arange_source(t: str, w: str, p: str) -> str:
    """``arange`` into elements of C type ``t``, computed in ``w`` from arguments of
    ``p``."""
    return (header("ramp.cuh") + f"typedef {t} T; typedef {w} W; typedef {p} P;\n"
            + entry("ramp_entries.cuh", "arange"))


def eye_source(t: str) -> str:
    """``eye`` into elements of C type ``t``."""
    return header("ramp.cuh") + f"typedef {t} T;\n" + entry("ramp_entries.cuh", "eye")


def _part(d: np.dtype) -> np.dtype:
    """The real dtype of one part of ``d`` (``d`` itself where it is real)."""
    return np.dtype(d.char.lower()) if d.kind == "c" else d


def linspace_source(d: np.dtype, c: np.dtype) -> str:
    """The kernel writing ``linspace`` in ``d`` computed in ``c`` (floating dtypes)."""
    return (header("linspace.cuh") + f"typedef {CTYPES[_part(d)]} P; typedef "
            f"{CTYPES[_part(c)]} C; enum : bool {{ CX = {str(c.kind == 'c').lower()} }}; "
            f"enum {{ W = {2 if d.kind == 'c' else 1} }};\n"
            + entry("ramp_entries.cuh", "linspace"))


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


__all__ = ["arange_source", "eye_source", "linspace_arguments", "linspace_source"]
