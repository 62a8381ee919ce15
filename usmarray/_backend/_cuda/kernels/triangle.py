"""``tril``/``triu`` of real CUDA arrays in one launch, and the triangles that the
direct solvers return (a factor read through any strides: transposed, column-major).

Element ``(b, i, j)`` of the C-contiguous result is ``src[b*sb + i*si + j*sj]`` (strides
in elements, any sign) where ``j - i <= k`` (lower) or ``j - i >= k`` (upper), else
zero (``include/usmarray/triangle.cuh``; the kernel's source is
:mod:`.triangle_source`).  CuPy's ``tril``/``triu`` build a mask with ``tri`` and then
``where``: two launches and a temporary.
"""

from __future__ import annotations

from typing import Any

import cupy

from ._launch import cached, grid_1d, launch, stream_ptr
from .c_types import CTYPES
from .triangle_source import source

_nd = cupy.ndarray

_fns: dict[Any, Any] = {}


def triangle(src: Any, shape: tuple[int, ...], strides: tuple[int, int, int], k: int,
             lower: bool, multi_gpu: bool) -> Any:
    """A new C-contiguous array of ``shape`` (``(..., rows, cols)``) and ``src``'s dtype:
    the lower (``lower``) or upper triangle about diagonal ``k`` of the matrices that
    start at ``src``'s first element with element strides ``(batch, row, col)``."""
    out = _nd(shape, src.dtype)
    total = out.size
    if total:
        f = cached(_fns, src.dtype, multi_gpu, lambda: source(CTYPES[src.dtype]))
        launch(f, grid_1d(total), (256, 1, 1), "QQqqqqqqqq", src.data.ptr, out.data.ptr,
               total, *shape[-2:], *strides, k, int(lower), stream=stream_ptr())
    return out


def wrap(name: str, is_fast: Any, multi_gpu: bool, fallback: Any) -> Any:
    """``tril``/``triu`` (``name``) by :func:`triangle` for real arrays of plain device
    memory with one batch axis at most; anything else to ``fallback``."""
    lower = name == "tril"

    def tri(a: Any, k: int = 0) -> Any:
        if (a.__class__ is _nd and 2 <= a.ndim <= 3 and a.size and a.dtype in CTYPES
                and is_fast(a) and k.__class__ is int and abs(k) < 2**62):
            it = a.dtype.itemsize
            st = a.strides
            if all(s % it == 0 for s in st):
                sb = st[0] // it if a.ndim == 3 else 0
                return triangle(a, a.shape, (sb, st[-2] // it, st[-1] // it), k, lower,
                                multi_gpu)
        return fallback(a, k=k)

    tri.__name__ = name
    return tri


__all__ = ["triangle", "wrap"]
