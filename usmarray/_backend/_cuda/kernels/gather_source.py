"""Sources of the gathers and scatters of :mod:`.gather`, no CuPy needed, so that tests
compile them, and run their logic as host C++, without a GPU.  Each is the text of
``include/usmarray/gather.cuh``, the typedefs and the flag its entry point reads, and
the entry point ``k``, a section of ``include/usmarray/gather_entries.cuh``; the types
are the C spellings of :data:`.c_types.CTYPES`."""

from __future__ import annotations

from .headers import entry, header


def _source(name: str, b: bool, t: str = "char", v: str = "char", i: str = "int") -> str:
    return (header("gather.cuh") + f"typedef {t} T; typedef {v} V; typedef {i} I; "
            f"enum : bool {{ B = {str(b).lower()} }};\n" + entry("gather_entries.cuh", name))


def take_source(t: str, i: str, along: bool) -> str:
    """``take`` of elements of C type ``t`` at indices of C type ``i`` (``along``:
    ``take_along_axis``)."""
    return _source("take", along, t=t, i=i)


def take4_source(t: str, i: str, aligned: bool, checked: bool = False) -> str:
    """``take`` of one axis four elements a thread (``aligned``: the four load at once;
    ``checked``: with its range check in the same launch)."""
    return _source("take4_checked" if checked else "take4", aligned, t=t, i=i)


def in_range_source(i: str, aligned: bool) -> str:
    """The range pass of indices of C type ``i`` (``aligned``: four load at a time)."""
    return _source("in_range", aligned, i=i)


def range_source(i: str) -> str:
    """The exact range report of indices of C type ``i``."""
    return _source("range", False, i=i)


def put_source(scalar: bool, t: str, v: str, i: str, checked: bool = False) -> str:
    """``x[idx] = v`` into elements of C type ``t`` of values of C type ``v`` (``scalar``:
    one value passed by its bits) at indices of C type ``i`` (``checked``: of one axis by
    one block, with its range check in the same launch)."""
    return _source("put_checked" if checked else "put", scalar, t, v, i)


__all__ = ["in_range_source", "put_source", "range_source", "take4_source", "take_source"]
