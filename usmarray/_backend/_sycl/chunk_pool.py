"""Reused USM blocks for chunks copied in from the host.

A chunked workload (cubed reading Zarr chunks) copies one host array after another
into fresh USM allocations of the same size.  On the OpenCL CPU device USM memory is
host memory, but the runtime maps every allocation afresh, so each copy page-faults its
whole destination: a 20 MB chunk costs about ten times as long in a fresh allocation as
in one already touched (docs/scale-out.md, "Measured").  The pool keeps
the blocks of dead chunks and hands them to the next chunk of the same byte size.

Contract:

- A block is handed out only when nothing refers to it: a chunk's memory object views
  the block through a :class:`_Lease`, and every array, view or kernel keep-alive of
  the chunk holds that memory object; the lease's finalizer returns the block when the
  last of them is gone.  No live array aliases a reused block.
- The pool keeps at most ``idle_limit`` bytes of blocks that no chunk uses (per
  backend instance, i.e. per process); a block released beyond that is freed, and
  a fresh allocation first frees idle blocks of other sizes that would not fit beside
  it.  Memory in use by chunks is the chunks' own, as without the pool.
- Only host-accessible memory (any USM kind on a CPU device, ``shared`` and ``host``
  elsewhere) is pooled, and only blocks of at least ``MIN_BYTES``; the copy is a host
  copy (NumPy) into the block.
"""

from __future__ import annotations

import collections
import threading
from typing import Any

import dpctl.memory as dpmem
import numpy as np

#: smaller chunks gain little (their page faults are few) and are not pooled
MIN_BYTES = 1 << 20

_MEMORY = {"device": dpmem.MemoryUSMDevice, "shared": dpmem.MemoryUSMShared,
           "host": dpmem.MemoryUSMHost}


class _Lease:
    """One chunk's hold on a pooled block: the ``__sycl_usm_array_interface__`` the
    chunk's memory object is made from (it keeps this lease alive), and the block's
    return to the pool when the lease dies."""

    __slots__ = ("__sycl_usm_array_interface__", "_block", "_key", "_pool")

    def __init__(self, pool: ChunkPool, key: tuple, block: Any) -> None:
        self._pool = pool
        self._key = key
        self._block = block
        self.__sycl_usm_array_interface__ = {
            "data": (block._pointer, False), "shape": (block.nbytes,), "strides": None,
            "typestr": "|u1", "version": 1, "syclobj": block.sycl_queue,
        }

    def __del__(self) -> None:
        pool = self._pool
        if pool is not None:
            pool._release(self._key, self._block)


class ChunkPool:
    """Free blocks by (queue, USM kind, byte size); see the module's contract."""

    def __init__(self) -> None:
        self._free: dict[tuple, collections.deque] = {}
        # an RLock: a lease's finalizer may run inside this thread's own critical
        # section (a garbage collection triggered by an allocation there)
        self._lock = threading.RLock()
        self._limit = 0
        #: counters for tests and benchmarks: blocks reused, blocks allocated
        self.hits = 0
        self.misses = 0

    def idle_bytes(self) -> int:
        with self._lock:
            return sum(k[2] * len(d) for k, d in self._free.items())

    def clear(self) -> None:
        """Free every idle block now and zero the counters."""
        with self._lock:
            self._free.clear()
            self.hits = self.misses = 0

    def _release(self, key: tuple, block: Any) -> None:
        with self._lock:
            if self.idle_bytes() + key[2] <= self._limit:
                self._free.setdefault(key, collections.deque()).append(block)

    def _take(self, key: tuple) -> Any:
        with self._lock:
            free = self._free.get(key)
            if free:
                self.hits += 1
                return free.pop()
            # a new block: make room first by freeing idle blocks of other sizes
            for k in list(self._free):
                if self.idle_bytes() + key[2] <= self._limit:
                    break
                if k != key:
                    del self._free[k]
            self.misses += 1
            return None

    def from_host(self, provider: Any, a: np.ndarray, usm_type: str, q: Any,
                  idle_limit: int, fresh: Any) -> Any:
        """A C-contiguous array of ``provider`` on ``q`` holding a copy of the host
        array ``a``, in a reused block where one of its size is free; ``fresh(block)``
        prepares a newly allocated one (huge-page advice).  None when ``a`` is not
        pooled (too small, memory the host cannot write, a pool of 0 bytes): the caller
        copies it the usual way."""
        nbytes = a.nbytes
        self._limit = idle_limit
        if nbytes < MIN_BYTES or idle_limit < nbytes:
            return None
        if not (q.sycl_device.is_cpu or usm_type != "device"):
            return None
        key = (q, usm_type, nbytes)
        block = self._take(key)
        if block is None:
            block = _MEMORY[usm_type](nbytes, queue=q)
            fresh(block)
        lease = _Lease(self, key, block)
        mem = dpmem.as_usm_memory(lease)
        del lease  # the memory object holds it now
        out = provider.usm_ndarray(a.shape, dtype=a.dtype, buffer=mem)
        host = np.frombuffer(_host_bytes(block), dtype=a.dtype).reshape(a.shape)
        np.copyto(host, a, casting="no")
        return out


def _host_bytes(block: Any) -> Any:
    """A writable buffer over a host-accessible block, valid while the block lives
    (the caller keeps it)."""
    import ctypes

    return (ctypes.c_char * block.nbytes).from_address(block._pointer)
