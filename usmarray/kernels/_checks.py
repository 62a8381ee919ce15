"""Run-time checks of a kernel call's arguments, and the bounds analysis per mode."""

from __future__ import annotations

from typing import Any

from .. import _dtypes as dt
from ._signature import Param
from ._translate import Access

#: bounds modes a call accepts; None is the default, proven-safe mode
BOUNDS_MODES = (None, "clamp", "skip", "check", "unchecked")


def check_bounds_mode(bounds: Any, kname: str) -> str:
    if bounds is None:
        return "safe"
    if bounds not in BOUNDS_MODES:
        raise ValueError(
            f"{kname}: bounds={bounds!r} is not a bounds mode; use None (indices the factory "
            "can prove in range), 'clamp', 'skip', 'check' or 'unchecked'"
        )
    return bounds  # type: ignore[no-any-return]


def cast_scalar(p: Param, v: Any, kname: str) -> Any:
    """``v`` as the Python number passed for scalar parameter ``p`` (the standard's rules
    for a Python scalar meeting an array of ``p.dtype``)."""
    d = p.dtype
    if not dt.scalar_allowed(d, v):
        raise TypeError(
            f"{kname}: argument {p.name} ({p.spelled()}) must be a Python scalar the array "
            f"API allows with {d} (bool with bool; int with integer or floating; float with "
            f"floating), got {type(v).__name__}"
        )
    if d in dt.INTEGER:
        dt.check_integer_fits(d, v, f"{kname}: argument {p.name}")
        return v
    if d in dt.REAL_FLOATING:
        return float(v)
    return v


def check_writable(kname: str, what: str, a: Any) -> None:
    """ValueError unless the usm_ndarray ``a`` (``what``: how the message names it) is
    writable: the one check of every array a kernel or an elementwise call writes."""
    if not getattr(a.flags, "writable", True):
        raise ValueError(f"{kname}: {what} is written by the kernel but is read-only; pass "
                         "a writable array (a copy: usmarray.asarray(x, copy=True))")


def unprovable(accesses: list[Access]) -> list[str]:
    """Accesses whose indices the default mode cannot prove in range: anything but a
    bare index variable or a non-negative integer literal."""
    bad = []
    for a in accesses:
        if any(f[0] == "other" or (f[0] == "var" and f[2] != 0) for f in a.forms):
            bad.append(a.text)
    return bad


def not_stencil(accesses: list[Access]) -> list[str]:
    """Accesses ``bounds='skip'`` cannot handle: an index other than ``iK``, ``iK ± c``
    or a literal."""
    return [a.text for a in accesses if any(f[0] == "other" for f in a.forms)]


def coverage(params: tuple[Param, ...], accesses: list[Access]) -> list[tuple]:
    """(parameter index, axis of the array, form) for every index of every access."""
    index = {p.name: k for k, p in enumerate(params)}
    out = []
    seen = set()
    for a in accesses:
        for pos, f in enumerate(a.forms):
            item = (index[a.array], pos, f, a.text)
            key = item[:3]
            if key not in seen:
                seen.add(key)
                out.append(item)
    return out
