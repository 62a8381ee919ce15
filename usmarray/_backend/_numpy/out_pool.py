"""Reused memory for the large results of the NumPy backend's elementwise kernels.

NumPy reuses a temporary operand in place (``-abs(x)`` negates the result of ``abs``
where it stands) because it sees that nothing else holds it; under usmarray every
operand is held by its ``usm_ndarray``, so each result of a chain of elementwise calls is
fresh memory, and the kernel zeroes those pages as it first touches them.  On a
chain of transcendental functions over 10 MB chunks that made the backend 1.6x
NumPy's time.  Here a result of at least :data:`LEAST` bytes is written into
a block of a dead result of the same size instead.

Contract: a block is a 1-D ``uint8`` array that only this pool names; a result is a
view of it, and so is every array derived from that result (NumPy's ``base`` is the
block).  A block is free when its reference count is the one a block held only by the
pool has (measured once, by the same code path that tests it), so no live view,
export or derived array can see its memory change.  At most ``cap`` bytes of blocks
exist (``USMARRAY_NUMPY_POOL_BYTES``, default 256 MiB; 0: no pool); a result that
does not fit is NumPy's own.  Off where ``sys.getrefcount`` does not count every
reference (free-threaded builds).
"""

from __future__ import annotations

import math
import sys
import threading
from typing import Any

import numpy as np

from ..._env import env_int

ENV_BYTES = "USMARRAY_NUMPY_POOL_BYTES"
#: the default bound of the blocks' bytes
DEFAULT_BYTES = 256 << 20
#: the smallest result pooled: below it, NumPy's allocator reuses memory itself
LEAST = 1 << 20
#: fewer elements than this cannot make LEAST bytes (16-byte elements at most): the
#: small calls' test, cheaper than ``nbytes``
_FEW = LEAST // 16

_ndarray = np.ndarray
#: Python scalars that ufunc.resolve_dtypes takes as weak operands (not bool)
_SCALARS = (int, float, complex)


def _refcount_when_free(blocks: list[Any]) -> int:
    """The reference count :meth:`OutPool._take` sees of a block that only ``blocks``
    holds (the scan's own references included)."""
    for b in blocks:
        return sys.getrefcount(b)
    raise AssertionError("no block")


class OutPool:
    """Blocks of dead results, by size; see the module docstring."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.bytes = 0
        self._blocks: dict[int, list[np.ndarray]] = {}
        self._lock = threading.Lock()
        self._free = _refcount_when_free([np.empty(8, np.uint8)])

    def _take(self, blocks: list[np.ndarray]) -> np.ndarray | None:
        free = self._free
        for b in blocks:
            if sys.getrefcount(b) == free:
                return b
        return None

    def empty(self, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray | None:
        """A C-contiguous array of ``shape`` and ``dtype`` on a free block (a new one
        while the bound allows), or None: the caller allocates as usual."""
        n = math.prod(shape) * dtype.itemsize
        if n < LEAST:
            return None
        with self._lock:
            blocks = self._blocks.get(n)
            b = self._take(blocks) if blocks else None
            if b is None:
                if self.bytes + n > self.cap and not self._release(n):
                    return None
                b = np.empty(n, np.uint8)
                self._blocks.setdefault(n, []).append(b)
                self.bytes += n
        return b.view(dtype).reshape(shape)

    def _release(self, n: int) -> bool:
        """Drop free blocks of other sizes until ``n`` more bytes fit the bound."""
        for size in list(self._blocks):
            blocks = self._blocks[size]
            while self.bytes + n > self.cap:
                b = self._take(blocks)
                if b is None:
                    break
                blocks.remove(b)
                del b
                self.bytes -= size
            if not blocks:
                del self._blocks[size]
            if self.bytes + n <= self.cap:
                return True
        return False


def make_pool() -> OutPool | None:
    """The process' pool, or None where the environment switches it off or reference
    counts cannot be trusted."""
    cap = env_int(ENV_BYTES)
    cap = DEFAULT_BYTES if cap is None else cap
    gil = getattr(sys, "_is_gil_enabled", None)
    if cap <= 0 or (gil is not None and not gil()):
        return None
    return OutPool(cap)


def pooled(uf: np.ufunc, pool: OutPool) -> Any:
    """``uf`` (an elementwise ufunc, not a generalized one: one output, one or two
    inputs) as a kernel that returns an ndarray and writes a result of at least
    :data:`LEAST` bytes into ``pool``; calls with keywords and other operands go to
    ``uf`` as they are."""
    dtypes: dict[tuple[Any, ...], np.dtype] = {}

    def out_dtype(key: tuple[Any, ...]) -> np.dtype:
        d = dtypes.get(key)
        if d is None:
            d = dtypes[key] = uf.resolve_dtypes((*key, None))[-1]
        return d

    kernel = (_unary if uf.nin == 1 else _binary)(uf, pool, out_dtype)
    kernel.__name__ = uf.__name__
    kernel.pool = pool
    return kernel


def _unary(uf: np.ufunc, pool: OutPool, out_dtype: Any) -> Any:
    def kernel(a: Any, *rest: Any, **kw: Any) -> np.ndarray:
        if rest or kw:
            r = uf(a, *rest, **kw)
        else:
            if a.__class__ is _ndarray and a.size >= _FEW:
                out = pool.empty(a.shape, out_dtype((a.dtype,)))
                if out is not None:
                    return uf(a, out=out)
            r = uf(a)
        return r if r.__class__ is _ndarray else np.asarray(r)

    return kernel


def _binary(uf: np.ufunc, pool: OutPool, out_dtype: Any) -> Any:
    def result(a: Any, b: Any, ta: type, tb: type) -> np.ndarray | None:
        if ta is _ndarray and tb is _ndarray:
            s = a.shape if a.shape == b.shape else np.broadcast_shapes(a.shape, b.shape)
            return pool.empty(s, out_dtype((a.dtype, b.dtype)))
        if ta is _ndarray and tb in _SCALARS:
            return pool.empty(a.shape, out_dtype((a.dtype, tb)))
        if tb is _ndarray and ta in _SCALARS:
            return pool.empty(b.shape, out_dtype((ta, b.dtype)))
        return None

    def kernel(a: Any, b: Any, *rest: Any, **kw: Any) -> np.ndarray:
        if rest or kw:
            r = uf(a, b, *rest, **kw)
        else:
            ta, tb = a.__class__, b.__class__
            if (ta is _ndarray and a.size >= _FEW) or (tb is _ndarray and b.size >= _FEW):
                out = result(a, b, ta, tb)
                if out is not None:
                    return uf(a, b, out=out)
            r = uf(a, b)
        return r if r.__class__ is _ndarray else np.asarray(r)

    return kernel


__all__ = ["DEFAULT_BYTES", "ENV_BYTES", "LEAST", "OutPool", "make_pool", "pooled"]
