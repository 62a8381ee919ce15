"""Allocation failures as MemoryError naming the size, for every backend.

A kernel that cannot allocate its result raises whatever its runtime raises (the
backend lists those types in ``alloc_errors``); a byte count beyond ``MAX_NBYTES``
wraps around in the providers' 64-bit size arithmetic.  Both become a MemoryError
whose message names the function, the size and the device.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any, NoReturn

#: byte counts above this wrap around in the providers' 64-bit size arithmetic
MAX_NBYTES = 2**63 - 1


def _memory_error(be: Any, where: Any, nbytes: int, fname: str) -> MemoryError:
    q = be.queue_of(where) if isinstance(where, be.array_type) else where
    return MemoryError(f"{fname}: {be.memory_error(nbytes, q)}")


def check_nbytes(be: Any, where: Any, nbytes: int, fname: str) -> None:
    """MemoryError, before any kernel sees the size, for a result of ``nbytes`` bytes
    beyond MAX_NBYTES on the device of ``where`` (a raw array or a native queue)."""
    if nbytes > MAX_NBYTES:
        raise _memory_error(be, where, nbytes, fname)


def alloc_failed(exc: Exception, be: Any, where: Any, nbytes: int, fname: str) -> NoReturn:
    """Raise for ``exc``, raised by a kernel that allocates ``nbytes`` bytes on the
    device of ``where`` (a raw array or a native queue): a MemoryError naming the size
    when ``exc`` is the backend's allocation failure, or when ``nbytes`` exceeds
    MAX_NBYTES (the provider's byte count wrapped around and something else failed);
    else ``exc`` itself.

    Call it in an ``except`` branch only, so the size costs nothing on success."""
    if isinstance(exc, MemoryError):
        if str(nbytes) in str(exc):
            raise exc
        raise _memory_error(be, where, nbytes, fname) from exc  # e.g. NumPy's, in TiB
    if isinstance(exc, getattr(be, "alloc_errors", ())) or nbytes > MAX_NBYTES:
        raise _memory_error(be, where, nbytes, fname) from exc
    raise exc


def warn_at_caller(message: str, category: type[Warning] = RuntimeWarning) -> None:
    """Warn with the location of the first frame outside the usmarray package: the
    user's line that called usmarray, not usmarray's internals."""
    level, frame = 2, sys._getframe(1)  # stacklevel 2 is the frame that called this
    while frame is not None and frame.f_globals.get("__name__", "").startswith("usmarray"):
        level, frame = level + 1, frame.f_back  # type: ignore[assignment]
    warnings.warn(message, category, stacklevel=level)
