"""Stream compaction: ``nonzero`` and boolean-mask selection ``x[mask]`` of C-contiguous
CUDA arrays, in three launches and one read-back of the count.

The flat input is cut into tiles of :data:`~.scan.TILE` elements: one launch counts
the nonzero elements of each tile, one scans the counts into each tile's first output
position (and the total, read back: the result's length depends on the data), and one
scans each tile's flags with the block scan of :mod:`.scan`, each nonzero element
writing its value (a mask) or its coordinates (``nonzero``: one row per axis) at its
position, in the input's order.  One-byte flags (bool masks, int8, uint8) take wider
kernels: sixteen flags a thread by one 16-byte load, counted a word at a time, and the
flagged positions of each 4096 staged in shared memory so that the writes of a warp
are consecutive.  The device code is ``include/usmarray/compact.cuh``.
"""

from __future__ import annotations

from typing import Any

import cupy
import numpy as np

from ._launch import WORDS, Family, grid_1d, launch, stream_ptr
from .c_types import CTYPES
from .headers import header
from .scan import TILE
from .scan import source as scan_source

_nd = cupy.ndarray
_I64 = np.dtype(np.int64)
#: axes of the inputs ``nonzero`` takes (their lengths travel as kernel arguments)
MAX_NDIM = 6


#: the kernels' entry points, after the headers and typedefs of :func:`_source` (the
#: count's: with the type of its warp totals and the suffix of its device function)
_COUNT = r"""
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ x,
    long long* __restrict__ s, const long long N, const long long tile) {
  __shared__ %s wt[8];
  usm_compact_count%s(x, s, N, tile, wt);
}
"""
_WRITE_HEAD = r"""
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ x,
    const V* __restrict__ src, V* __restrict__ out, const long long* __restrict__ offs,
    const long long N, const long long tile, const long long count, const long long nd,
    const long long s0, const long long s1, const long long s2, const long long s3,
    const long long s4, const long long s5) {"""
_WRITE = _WRITE_HEAD + r"""
  __shared__ long long wt[8];
  const usm_compact_emit<V, COORDS, MAX_NDIM> em = {src, out, count, nd,
                                                    {s0, s1, s2, s3, s4, s5}};
  usm_compact_write(x, offs, N, tile, em, wt);
}
"""
_WRITE_BYTES = _WRITE_HEAD + r"""
  __shared__ long long buf[4096];
  __shared__ int wt[8];
  const long long shape[MAX_NDIM] = {s0, s1, s2, s3, s4, s5};
  usm_compact_write_bytes<COORDS>(x, src, out, offs, N, tile, count, nd, shape, buf, wt);
}
"""
#: whole rows gathered by their flat row positions (``x[mask]`` with a mask of rows)
_ROWS = r"""
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ x,
    const long long* __restrict__ rows, T* __restrict__ out, const long long total,
    const long long inner) {
  usm_compact_rows(x, rows, out, total, inner);
}
"""
#: kind -> entry point ("1": of one-byte flags)
_ENTRIES = {"count": _COUNT % ("long long", ""), "count1": _COUNT % ("int", "_bytes"),
            "values": _WRITE, "coords": _WRITE, "values1": _WRITE_BYTES, "coords1": _WRITE_BYTES}
_ONE_BYTE: frozenset[np.dtype] = frozenset(np.dtype(c) for c in "?bB")


def _source(t: str, v: np.dtype, coords: bool, entry: str) -> str:
    """``entry`` after the headers, over flags (or elements) of the C type ``t`` and
    values of ``v`` (their coordinates put where ``coords``)."""
    return (header("scan.cuh") + header("compact.cuh")
            + f"typedef {t} T; typedef {CTYPES[v]} V;\n#define COORDS {str(coords).lower()}\n"
            f"#define MAX_NDIM {MAX_NDIM}" + entry)


class Compactions(Family):
    """``nonzero`` and ``x[mask]`` (see the module docstring) for C-contiguous operands
    of plain device memory; other operands go to the fallbacks."""

    def _function(self, kind: str, t: np.dtype, v: np.dtype) -> Any:
        def source() -> str:
            if kind == "offsets":
                return scan_source(_I64, _I64)
            flags = "unsigned char" if kind.endswith("1") else CTYPES[t]
            return _source(flags, v, kind.startswith("coords"), _ENTRIES[kind])

        return self._cached((kind, t, v), source)

    def _compact(self, kind: str, x: Any, src: Any, d: np.dtype, lead: tuple = ()) -> Any:
        """The values of ``src`` (``kind`` "values") or the coordinates ("coords") of the
        nonzero elements of the C-contiguous ``x``, in order: a new array of dtype ``d``
        and shape ``(*lead, count)``; reads the count back (a synchronization)."""
        n = x.size
        ntiles = -(-n // TILE)
        counts = _nd((ntiles,), _I64)
        offs = _nd((ntiles + 1,), _I64)
        s = stream_ptr()
        one_byte = x.dtype in _ONE_BYTE
        launch(self._function("count1" if one_byte else "count", x.dtype, _I64),
               (ntiles, 1, 1), (256, 1, 1), "QQqq", x.data.ptr, counts.data.ptr, n, TILE,
               stream=s)
        launch(self._function("offsets", _I64, _I64), (1, 1, 1), (256, 1, 1), "QQqqqq",
               counts.data.ptr, offs.data.ptr, 1, ntiles, ntiles + 1, 1, stream=s)
        count = int(offs[ntiles].get())
        out = _nd((*lead, count), d)
        if count:
            src = out if src is None else src
            dims = (*x.shape, *(1,) * (MAX_NDIM - x.ndim))
            launch(self._function(kind + "1" if one_byte else kind, x.dtype, src.dtype),
                   (ntiles, 1, 1), (256, 1, 1), "QQQQqqqq" + "q" * MAX_NDIM, x.data.ptr,
                   src.data.ptr, out.data.ptr, offs.data.ptr, n, TILE, count, x.ndim, *dims,
                   stream=s)
        return out

    def _takes(self, x: Any) -> bool:
        return (x.__class__ is _nd and x.size > 0 and x._c_contiguous
                and x.dtype in CTYPES and self._is_fast(x))

    def wrap_nonzero(self, fallback: Any) -> Any:
        def nonzero(a: Any) -> tuple[Any, ...]:
            if self._takes(a) and 0 < a.ndim <= MAX_NDIM:
                out = self._compact("coords", a, None, _I64, (a.ndim,))
                return tuple(out[d] for d in range(a.ndim))
            return fallback(a)

        return nonzero

    def masked(self, x: Any, mask: Any) -> Any | None:
        """``x[mask]`` for a bool ``mask`` of ``x``'s shape, or of its leading axes (rows
        selected: ``X[y == k]``), both C-contiguous: the selected values (rows) in C
        order; None where the kernels do not take the operands."""
        if not (self._takes(x) and self._takes(mask) and mask.dtype == np.bool_
                and 0 < mask.ndim <= x.ndim and x.ndim <= MAX_NDIM
                and mask.shape == x.shape[:mask.ndim]):
            return None
        if mask.ndim < x.ndim:
            return self._rows(x, mask)
        return self._compact("values", mask, x, x.dtype)

    def _rows(self, x: Any, mask: Any) -> Any:
        """``x[mask]`` for a mask of ``x``'s leading axes: the flat positions of the
        selected rows (as ``nonzero`` of the flat mask), then one gather of whole rows."""
        rows = self.positions(mask.reshape(mask.size))
        out = _nd((rows.size, *x.shape[mask.ndim:]), x.dtype)
        if out.size:  # empty only where no row is selected (x is not empty)
            word = x.dtype.itemsize
            f = self._cached(("rows", word), lambda: _source(WORDS[word], _I64, False, _ROWS))
            launch(f, grid_1d(out.size), (256, 1, 1), "QQQqq", x.data.ptr, rows.data.ptr,
                   out.data.ptr, out.size, out.size // rows.size, stream=stream_ptr())
        return out

    def positions(self, flags: Any) -> Any:
        """The positions of the nonzero elements of the 1-D C-contiguous ``flags``, in
        order (int64, on the current device and stream); one read-back of the count."""
        return self._compact("coords", flags, None, _I64)


__all__ = ["Compactions"]
