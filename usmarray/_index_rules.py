"""Indices and counts read from integer arrays: one rule on every backend and path.

An element of an index, sorter or count array is read as the integer it holds, whatever
its dtype: an unsigned element is never negative (uint64 ``2**64 - 1`` is
``18446744073709551615``, not ``-1``), and no element is cast to another dtype before it
is checked.  Then:

* a **position** along an axis of length ``n`` (``take``, ``take_along_axis``, integer
  arrays in ``x[key]`` and ``x[key] = v``) lies in ``[-n, n)``, a negative one counting
  from the end; any other is an IndexError;
* a **sorter entry** (``searchsorted``) lies in ``[0, n)``: it names a position of
  ``x1`` as ``argsort`` gives it; any other is a ValueError;
* a **count** (``repeat``) lies in ``[0, 2**63)``; any other is a ValueError.

The error names the offending value (the largest one past the top, else the smallest
below the bottom) and the range that would be right.  Every path checks through
:func:`bad_index`, :func:`check_positions`, :func:`check_sorter` or
:func:`check_counts`, and hands kernels the array of :func:`signed_indices`, which
keeps every out-of-range value out of range (a plain cast would make uint64
``2**64 - 1`` the valid index ``-1``).
"""

from __future__ import annotations

from typing import Any

from . import _dtypes as dt

#: index arrays of up to this many elements are checked through one copy to the host:
#: cheaper than two reductions and their two read-backs
HOST_CHECK_MAX = 1 << 14
#: the largest int64: a count or length past it has no dtype, an index past it no position
INT64_MAX = 2**63 - 1


def _one_copy(be: Any, i: Any) -> Any:
    """``i`` with each broadcast axis (stride 0) cut to one copy of its values."""
    strides = be.element_strides(i)
    if 0 in strides:
        i = i[tuple([slice(0, 1) if s == 0 else slice(None) for s in strides])]
    return i


def value_range(be: Any, i: Any) -> tuple[int, int]:
    """``(min, max)`` of the non-empty raw integer array ``i`` as Python ints, exact for
    every dtype (read in ``i``'s own dtype, never cast)."""
    i = _one_copy(be, i)
    if i.size <= HOST_CHECK_MAX:
        h = be.to_host(i)
        return int(h.min()), int(h.max())
    return int(be.scalar(be.min(i))), int(be.scalar(be.max(i)))


def bad_index(be: Any, i: Any, n: int, negative: bool = True) -> int | None:
    """An element of the raw integer array ``i`` outside ``[-n, n)`` (``[0, n)`` when
    not ``negative``): the largest one ``>= n``, else the smallest one below; None when
    every element lies inside."""
    if not i.size:
        return None
    i = _one_copy(be, i)
    if (negative and i.size > HOST_CHECK_MAX and i.dtype.kind == "i"
            and be.index_out_of_range(i, n) is False):  # one pass, where the backend has it
        return None
    lo, hi = value_range(be, i)
    if hi >= n:
        return hi
    if lo < (-n if negative else 0):
        return lo
    return None


def bounds_error(fname: str, bad: int, axis: int, n: int) -> IndexError:
    """The IndexError for the position ``bad`` outside ``[-n, n)`` on ``axis``."""
    return IndexError(
        f"{fname}: index {bad} is out of bounds for axis {axis} with size {n} "
        f"(an index must lie in [{-n}, {n}))"
    )


def check_positions(be: Any, i: Any, n: int, axis: int, fname: str) -> None:
    """IndexError unless every element of the raw integer array ``i`` is a position
    along an axis of length ``n`` (in ``[-n, n)``)."""
    bad = bad_index(be, i, n)
    if bad is not None:
        raise bounds_error(fname, bad, axis, n)


def check_sorter(be: Any, s: Any, n: int, fname: str) -> None:
    """ValueError unless every element of the raw integer array ``s`` lies in
    ``[0, n)``, a position of the ``n`` elements it sorts."""
    bad = bad_index(be, s, n, negative=False)
    if bad is not None:
        raise ValueError(
            f"{fname}: sorter holds {bad}, which is not a position of x1; every element "
            f"of sorter must lie in [0, {n}) (the order argsort(x1) gives)"
        )


def check_count(c: int, fname: str) -> int:
    """``c`` (a Python int: a count, or a bound of an array of counts), after a
    ValueError unless it lies in ``[0, 2**63)``."""
    if c < 0:
        raise ValueError(f"{fname}: repeats must be non-negative, got {c}")
    if c > INT64_MAX:
        raise ValueError(
            f"{fname}: repeats must be below 2**63 (a length must fit int64), got {c}"
        )
    return c


def check_counts(be: Any, r: Any, fname: str) -> int:
    """The largest element of the raw integer array of counts ``r`` (0 when empty),
    after a ValueError unless every element lies in ``[0, 2**63)``."""
    if not r.size:
        return 0
    lo, hi = value_range(be, r)
    check_count(lo, fname)
    return check_count(hi, fname)


def signed_indices(be: Any, i: Any) -> Any:
    """The raw integer array ``i`` as kernels read indices, signed: a signed ``i`` as it
    is, uint8 to uint32 as int64 (every value kept), uint64 as int64 with every value
    past ``2**63 - 1`` saturated to ``2**63 - 1``.  A value of ``i`` lies in ``[-n, n)``
    or ``[0, n)`` exactly when its signed value does, for every ``n`` an axis can have,
    so a check inside a kernel decides as :func:`bad_index` on ``i``; name the
    offending value from ``i`` itself."""
    d = i.dtype
    if d not in dt.UNSIGNED:
        return i
    if d.itemsize == 8:
        top = be.full((), INT64_MAX, dtype=d, usm_type=be.usm_type_of(i), queue=be.queue_of(i))
        i = be.minimum(i, top)
    return be.astype(i, dt.int64)


__all__ = [
    "HOST_CHECK_MAX", "INT64_MAX", "bad_index", "bounds_error", "check_count", "check_counts",
    "check_positions", "check_sorter", "signed_indices", "value_range",
]
