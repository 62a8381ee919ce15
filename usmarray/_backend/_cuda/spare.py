"""Results of the default queue's kernels, reused once nothing references them.

A small result costs more host time to allocate from CuPy's pool than its kernel takes
to launch.  :class:`SpareOutputs` keeps the outputs of at most :data:`SPARE_BYTES` in a
short list per (shape, dtype, stream) and hands one out again once nothing but the
list references it or its memory (checked by reference count, calibrated at
start-up), which is the moment CuPy's pool would reuse its memory on the same stream:
the earlier readers are ordered before the new writer on that stream.
"""

from __future__ import annotations

import sys
from typing import Any

import cupy
import numpy as np

from ..._env import env_flag

_nd = cupy.ndarray
#: outputs of at most this many bytes are kept for reuse
SPARE_BYTES = 4 << 20
#: (shape, dtype, stream) keys kept; the oldest gives way to a new one
SPARE_KEYS = 8
#: arrays kept per key (at most SPARE_KEYS * SPARE_PER_KEY * SPARE_BYTES: 64 MiB)
SPARE_PER_KEY = 2


def plain_out(shape: tuple, d: np.dtype, n: int, stream: int, order: str = "C") -> Any:
    """``new_out`` without spares: a new result in memory order ``order`` ("C" or "F")
    from the current allocator (the caller's placement)."""
    return _nd(shape, d, order=order)


def _free_refcounts() -> tuple[int, int]:
    """The reference counts ``new_out`` sees for an array that only its spare list
    holds, and for its memory object (which views made from its memory pointer hold
    without holding the array), measured on a real array with the same code shape, so
    they hold for this interpreter and this CuPy."""
    getrc = sys.getrefcount
    lst = [_nd((1,), np.float32)]
    for r in lst:
        return getrc(r), getrc(r.data.mem)
    return 0, 0  # pragma: no cover


class SpareOutputs:
    """``new_out(shape, dtype, size, stream, order="C")``: a result in memory order
    ``order`` ("C" or "F") for the current device and allocator, a spare one where one
    is free.

    On (``on``) with one GPU, a GIL and the reference counts this code knows; off with
    ``USMARRAY_CUDA_LEAN=0``."""

    def __init__(self, single_gpu: bool) -> None:
        free_rc, mem_rc = _free_refcounts()
        gil = getattr(sys, "_is_gil_enabled", lambda: True)()
        self.on = (env_flag("USMARRAY_CUDA_LEAN", True) and single_gpu and gil
                   and free_rc == 3 and mem_rc == 2)
        self.free_refcounts = (free_rc, mem_rc)
        spare: dict[tuple, list] = {}
        getrc = sys.getrefcount
        enabled = self.on

        def new_out(shape: tuple, d: np.dtype, n: int, stream: int, order: str = "C") -> Any:
            if not enabled or n * d.itemsize > SPARE_BYTES:
                return _nd(shape, d, order=order)
            key = (shape, d, stream, order)
            lst = spare.get(key)
            if lst is not None:
                for r in lst:
                    if getrc(r) <= free_rc and getrc(r.data.mem) <= mem_rc and r.shape == shape:
                        return r
                r = _nd(shape, d, order=order)
                if len(lst) < SPARE_PER_KEY:
                    lst.append(r)
                return r
            r = _nd(shape, d, order=order)
            if len(spare) >= SPARE_KEYS:  # the oldest key makes room
                del spare[next(iter(spare))]
            spare[key] = [r]
            return r

        self.new_out = new_out


__all__ = ["SPARE_BYTES", "SpareOutputs", "plain_out"]
