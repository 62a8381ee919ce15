"""``unique_values``, ``unique_counts``, ``unique_inverse`` and ``unique_all`` of real and
bool arrays: integers whose values lie in a narrow window without a sort, everything
else by a stable sort of order keys (:mod:`.unique_source`).  The kernels of both are
``include/usmarray/unique.cuh``.

The sort: the array in C order (a copy on the elementwise engine where it is a view),
its order keys sorted by CuPy's radix sort (alone for ``unique_values`` and
``unique_counts``; packed with their positions for the others, one pass for elements
of up to 4 bytes, two for 8), the first of each run of equal keys flagged (every NaN a
run of its own: NaNs last, each its own value; -0.0 and 0.0 one value), the flags
compacted into the runs' starts (one read-back of their count), then one launch writes
the values (each made from its key: +0.0, the canonical NaN), first positions and
counts and one the inverse.  No float is compared, so float32 subnormals keep their
own values and counts.

The window.  Class labels, categories and counts take few distinct values close together.  For an
integer array of at least :data:`DENSE_MIN` elements, one launch marks each value's
presence in a bitmap of :data:`WINDOW` bits centred on the first element (each block
builds its own bitmap in shared memory, then ORs its non-zero words into the global
one).  Values are read as order-preserving unsigned keys (the sign bit flipped for
signed dtypes), and the window is moved inside the dtype's range where it would pass
one of its ends, so it never wraps around: uint64 5 and 2**64 - 3, or int64's minimum
and maximum, are never neighbours.  One block converts the set bits into the sorted values (a block scan of the
words' bit counts gives each thread its output position, and each word's first
position is kept).  For the inverse, counts and first indices one more pass gives each
element its rank (its bit's position among the set bits) and writes, counts or keeps
the smallest position by it.  One read-back brings the
count and whether any value fell outside the window; then, and only then, the caller
sorts as before.  Trying costs two launches, a read-back and, where values spread
wide, a thread's elements up to its first one outside the window: about a tenth more
than the sort alone (the host's work after the read-back leaves the GPU idle), against
several times less where the values are labels (figures in docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cupy
import numpy as np

from ..._ndlike import UniqueAll, UniqueCounts, UniqueInverse
from ._launch import Family, grid_1d, launch, sm_count, stream_ptr
from .c_types import CTYPES
from .headers import header
from .keys import KEY_DTYPES
from .unique_source import shifts, source

_nd = cupy.ndarray
_I64 = np.dtype(np.int64)
#: bits of the presence map (8192 words: 32 KiB of shared memory a block)
WINDOW = 1 << 18
#: smaller arrays keep the sort (one launch fewer and no second read-back to try)
DENSE_MIN = 1 << 16
#: the sort packs positions into 32 bits; longer arrays go to the fallback
SORT_MAX = 1 << 32

_SIGN = 1 << 63


def _source(d: np.dtype, kind: str, want: tuple[bool, bool, bool] = (False,) * 3) -> str:
    """The window's kernel ``kind`` (``MARK``, ``COMPACT`` or ``RANK``) for the integer
    dtype ``d``; ``want``: what the rank writes (inverse, counts, first positions)."""
    # the lowest and the highest key of ``d``, keys as ``key_of`` makes them: unsigned
    # values as they are, signed ones plus 2**63 (their sign bit flipped)
    info = np.iinfo(d)
    flip = _SIGN if d.kind == "i" else 0
    lokey, hikey = int(info.min) + flip, int(info.max) + flip
    return (f"typedef {CTYPES[d]} T;\n#define WORDS {WINDOW // 32}\n"
            f"#define HALF {WINDOW // 2}ULL\n#define LOKEY {lokey}ULL\n"
            f"#define TOPBASE {max(lokey, hikey - (WINDOW - 1))}ULL\n"
            f"#define FLIP {flip}ULL\n#define UNIQUE_{kind}\n"
            f"#define WANT_INV {want[0]:d}\n#define WANT_CNT {want[1]:d}\n"
            f"#define WANT_FIRST {want[2]:d}\n" + header("unique.cuh"))


class Uniques(Family):
    """The unique family of real and bool arrays (see the module docstring): the window
    for C-contiguous integer arrays of plain device memory whose values fit it, the
    sort for every other real or bool array of up to :data:`SORT_MAX` elements on the
    current device and stream (the caller places it); anything else to the fallback."""

    def __init__(self, is_fast: Callable[[Any], bool], single_gpu: bool,
                 compactions: Any, c_order_copy: Callable[[Any], Any]) -> None:
        super().__init__(is_fast, single_gpu)
        self._compactions = compactions
        #: a C-order copy of an array (None where the engine does not take it)
        self._c_order_copy = c_order_copy
        #: __match_any_sync (the rank pass) needs compute capability 7.0
        self.enabled = int(cupy.cuda.Device().compute_capability) >= 70

    def dense(self, a: Any, inverse: bool = False, counts: bool = False,
              first: bool = False) -> tuple[Any, Any, Any, Any] | None:
        """(values, first indices, inverse indices, counts) of the integer array ``a``
        (any shape, C-contiguous; the values sorted, the inverse of ``a``'s shape, the
        rest int64; those not asked for None), or None where a value lies outside the
        window around the first element.  One read-back either way."""
        d = a.dtype
        n = a.size
        s = stream_ptr()
        words = WINDOW // 32
        m = min(n, WINDOW)
        per = m if (counts or first) else 0
        # the bitmap, head (flag and count), each word's first position, counts, firsts
        scratch = _nd((words + 4 + words + 4 * per,), np.uint32)
        bits = scratch.data.ptr
        cupy.cuda.runtime.memsetAsync(bits, 0, (words + 4) * 4, s)  # the bitmap and head
        head = bits + 4 * words
        wpre = head + 16
        cnt = wpre + 4 * words
        fst = cnt + 8 * per
        if per:
            cupy.cuda.runtime.memsetAsync(cnt, 0, 16 * per, s)
        out = _nd((m,), d)
        mark = self._cached(("mark", d), lambda: _source(d, "MARK"))
        grid = max(1, min(-(-n // 4096), 4 * sm_count()))
        launch(mark, (grid, 1, 1), (256, 1, 1), "QQQq", a.data.ptr, bits, head, n, stream=s)
        comp = self._cached(("compact", d), lambda: _source(d, "COMPACT"))
        launch(comp, (1, 1, 1), (1024, 1, 1), "QQQQQ", bits, a.data.ptr, out.data.ptr, head,
               wpre, stream=s)
        inv = _nd(a.shape, _I64) if inverse else None
        if inverse or per:
            want = (inverse, counts, first)
            rank = self._cached(("rank", d, want), lambda: _source(d, "RANK", want))
            launch(rank, (grid, 1, 1), (256, 1, 1), "QQQQQQQq", a.data.ptr, bits, wpre, head,
                   0 if inv is None else inv.data.ptr, cnt, fst, n, stream=s)
        flag, count = (int(v) for v in scratch[words:words + 4].view(np.uint64).get())
        if flag:
            return None
        c = f = None
        if per:
            tail = scratch[2 * words + 4:].view(np.uint64)
            c = tail[:count].view(_I64) if counts else None
            f = (n - tail[per:per + count].view(_I64)) if first else None
        return out[:count], f, inv, c

    def _takes(self, a: Any) -> bool:
        """Whether the window takes ``a`` (which :meth:`_unique` found real)."""
        return (self.enabled and a.dtype.kind in "iu" and a.size >= DENSE_MIN
                and a._c_contiguous and self._is_fast(a))

    def _kernel(self, kind: str, d: np.dtype) -> Any:
        return self._cached((kind, d), lambda: source(kind, d))

    def by_sort(self, a: Any, inverse: bool = False, counts: bool = False,
                first: bool = False) -> tuple[Any, Any, Any, Any]:
        """(values, first indices, inverse indices, counts) of the non-empty real or
        bool array ``a`` of any layout, as :meth:`dense` gives them, by the sort."""
        x = a.reshape(-1) if a._c_contiguous else self._c_order_copy(a)
        if x is None:  # a layout the engine refuses (or the engine off): CuPy's copy
            x = cupy.ascontiguousarray(a)
        x = x.reshape(-1)
        d, n = a.dtype, a.size
        s = stream_ptr()
        grid, block = grid_1d(n), (256, 1, 1)
        if not (inverse or first):
            return self._by_keys(x, counts, s)
        words: Any = None  # the last pass's sorted words, and the pass's before
        prev: Any = None
        for shift in shifts(d):
            packed = _nd((n,), np.uint64)
            launch(self._kernel("pack", d), grid, block, "QQQqq", x.data.ptr,
                   0 if words is None else words.data.ptr, packed.data.ptr, n, shift,
                   stream=s)
            packed.sort()  # CuPy's radix sort: integers only
            prev, words = words, packed
        perm = _nd((n,), _I64)
        flags = _nd((n,), np.bool_)
        launch(self._kernel("flags", d), grid, block, "QQQQQq", x.data.ptr,
               words.data.ptr, 0 if prev is None else prev.data.ptr, perm.data.ptr,
               flags.data.ptr, n, stream=s)
        starts = self._compactions.positions(flags)
        m = starts.size
        values = _nd((m,), d)
        f = _nd((m,), _I64) if first else None
        c = _nd((m,), _I64) if counts else None
        launch(self._kernel("finish", d), grid_1d(m), block, "QQQQQQqq", x.data.ptr,
               perm.data.ptr, starts.data.ptr, values.data.ptr, 0 if f is None else f.data.ptr,
               0 if c is None else c.data.ptr, m, n, stream=s)
        inv = None
        if inverse:
            inv = _nd(a.shape, _I64)
            launch(self._kernel("inverse", d), grid, block, "QQQqq", perm.data.ptr,
                   starts.data.ptr, inv.data.ptr, m, n, stream=s)
        return values, f, inv, c

    def _by_keys(self, x: Any, counts: bool, s: int) -> tuple[Any, Any, Any, Any]:
        """(values, None, None, counts or None) of the flat C-order ``x`` by a sort of
        its keys alone (one radix sort of keys of the element's width)."""
        d, n = x.dtype, x.size
        grid, block = grid_1d(n), (256, 1, 1)
        keys = _nd((n,), KEY_DTYPES[d.itemsize])
        launch(self._kernel("keys", d), grid, block, "QQq", x.data.ptr, keys.data.ptr, n,
               stream=s)
        keys.sort()  # CuPy's radix sort: integers only
        flags = _nd((n,), np.bool_)
        launch(self._kernel("key_flags", d), grid, block, "QQq", keys.data.ptr,
               flags.data.ptr, n, stream=s)
        starts = self._compactions.positions(flags)
        m = starts.size
        values = _nd((m,), d)
        c = _nd((m,), _I64) if counts else None
        launch(self._kernel("key_finish", d), grid_1d(m), block, "QQQQqq", keys.data.ptr,
               starts.data.ptr, values.data.ptr, 0 if c is None else c.data.ptr, m, n,
               stream=s)
        return values, None, None, c

    @staticmethod
    def sorts(a: Any) -> bool:
        """Whether the family takes ``a`` (the window or the sort; the window only for
        integers)."""
        return a.__class__ is _nd and a.dtype in CTYPES and 0 < a.size <= SORT_MAX

    def _unique(self, a: Any, inverse: bool, counts: bool,
                first: bool) -> tuple[Any, Any, Any, Any] | None:
        """The window's result where it takes ``a``, else the sort's; None where
        neither takes it."""
        if not self.sorts(a):
            return None
        r = self.dense(a, inverse, counts, first) if self._takes(a) else None
        return self.by_sort(a, inverse, counts, first) if r is None else r

    def wrap(self, kind: str, fallback: Any) -> Any:
        """``unique_values``/``unique_all``/``unique_counts``/``unique_inverse`` (``kind``)
        by :meth:`_unique` where it takes ``a`` (the last three as the namedtuples of the
        fallback's kind), else ``fallback``."""
        inverse = kind in ("unique_all", "unique_inverse")
        counts = kind in ("unique_all", "unique_counts")
        first = kind == "unique_all"

        def fn(a: Any) -> Any:
            r = self._unique(a, inverse, counts, first)
            if r is None:
                return fallback(a)
            v, f, inv, c = r
            if kind == "unique_values":
                return v
            if kind == "unique_all":
                return UniqueAll(v, f, inv, c)
            return UniqueCounts(v, c) if counts else UniqueInverse(v, inv)

        fn.__name__ = kind
        return fn


__all__ = ["DENSE_MIN", "SORT_MAX", "WINDOW", "Uniques"]
