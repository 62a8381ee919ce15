"""Whether host memory a foreign object points at can be read, before anything reads it.

A crafted ``__array_interface__`` or a kDLCPU DLPack tensor can name any address; NumPy
trusts it and a bad one kills the process.  ``readable(first, last)`` asks the kernel
instead: ``mincore`` fails for unmapped pages, and a one-byte ``write`` from the address
into a pipe fails with EFAULT for mapped pages that cannot be read (PROT_NONE), without a
signal.  Mapping is checked for every page of a short extent and the first and last page
of a long one; readability at the extent's first and last byte.
"""

from __future__ import annotations

import ctypes as C
import os
import sys
import threading
from typing import Any

import numpy as np

PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
PAGES_CHECKED = 256


def _libc() -> Any:
    if not sys.platform.startswith("linux"):  # pragma: no cover
        return None, None
    try:
        libc = C.CDLL(None, use_errno=True)
        mincore, write = libc.mincore, libc.write
    except (OSError, AttributeError):  # pragma: no cover
        return None, None
    mincore.restype, mincore.argtypes = C.c_int, (C.c_void_p, C.c_size_t, C.c_void_p)
    write.restype, write.argtypes = C.c_ssize_t, (C.c_int, C.c_void_p, C.c_size_t)
    return mincore, write


_mincore, _write = _libc()
_flags = C.create_string_buffer(PAGES_CHECKED)
_lock = threading.Lock()
_pipe: tuple[int, int] | None = None
_pipe_pid = -1


def _probe(addr: int) -> bool:
    """One byte at ``addr`` copied by the kernel into a pipe: False where it faults."""
    global _pipe, _pipe_pid
    with _lock:
        if _pipe is None or _pipe_pid != os.getpid():
            _pipe, _pipe_pid = os.pipe(), os.getpid()
        r, w = _pipe
        if _write(w, addr, 1) != 1:
            return False
        os.read(r, 1)
        return True


def readable(first: int, last: int) -> bool:
    """Whether every byte from ``first`` to ``last`` (inclusive) is readable memory of
    this process (True where the platform offers no way to ask)."""
    if _mincore is None:  # pragma: no cover
        return True
    if first < PAGE or last < first or last >= 2**63:
        return False
    lo, hi = first - first % PAGE, last - last % PAGE
    pages = (hi - lo) // PAGE + 1
    spans = [(lo, pages)] if pages <= PAGES_CHECKED else [(lo, 1), (hi, 1)]
    for start, n in spans:
        if _mincore(start, n * PAGE, _flags) != 0:
            return False
    # protection is per mapping, and mappings are what foreign buffers are carved from:
    # the first and the last byte stand for the extent (two system calls, not one a page)
    return _probe(first) and _probe(last)


def check_array_interface(iface: Any, fname: str) -> None:
    """ValueError/TypeError unless NumPy can read what ``__array_interface__`` ``iface``
    names without touching memory outside this process' readable pages."""
    if not isinstance(iface, dict):
        raise TypeError(f"{fname}: __array_interface__ must be a dict, got {type(iface).__name__}")
    data = iface.get("data")
    if not isinstance(data, tuple):
        return  # no pointer: NumPy reads the object's buffer protocol, which Python checks
    try:
        ptr = int(data[0])
        shape = tuple(int(n) for n in iface["shape"])
        dtype = np.dtype(iface["typestr"])
        strides = iface.get("strides")
        strides = None if strides is None else tuple(int(s) for s in strides)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise ValueError(f"{fname}: malformed __array_interface__ ({exc})") from None
    if any(n < 0 for n in shape) or (strides is not None and len(strides) != len(shape)):
        raise ValueError(f"{fname}: __array_interface__ shape {shape} / strides {strides} are invalid")
    if 0 in shape:
        return
    if strides is None:
        lo, hi = 0, int(np.prod(shape, dtype=object)) * dtype.itemsize - 1
    else:
        lo = sum(s * (n - 1) for s, n in zip(strides, shape, strict=True) if s < 0)
        hi = sum(s * (n - 1) for s, n in zip(strides, shape, strict=True) if s > 0)
        hi += dtype.itemsize - 1
    if not readable(ptr + lo, ptr + hi):
        raise ValueError(
            f"{fname}: __array_interface__ names bytes {ptr + lo:#x}..{ptr + hi:#x}, which "
            "are not all readable memory of this process"
        )
