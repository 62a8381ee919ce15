"""The CUDA elementwise engine: one operation body on any layout the namespace allows.

The body comes from the kernel generator that ``usmarray.fuse`` and the kernel factory
use; :mod:`.layout` decides the loop and writes the kernel; this module caches both
and launches.  A kernel's cache key holds exactly what its code assumes: the body, the
dtypes, the loop, the vector width, the number of merged axes, the index width and
which operands are broadcast elements.  A call's plan is cached by its signature and
its operands' shapes, strides and pointer alignment, so a repeated call costs a dict
lookup, one argument pack and one driver launch.
"""

from __future__ import annotations

import ctypes
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cupy
import numpy as np

from ..._env import env_flag
from ..._form import compiled_module
from . import layout as _layout
from .kernels._launch import (
    SLOTS,
    compiled,
    driver_launch,
    launch_address,
    raw_launch,
    stream_ptr,
)

#: the compiled form of a repeated call (``_engine_calls.pyx``), or None; and why
calls_module, CALLS_REASON = compiled_module(
    "_backend._cuda._engine_calls", Path(__file__).with_name("_engine_calls.pyx"), 3)

#: plans kept (a dict: cleared when full)
MAX_PLANS = 4096

_ALIGN = _layout.ALIGN_KEY
_BLOCK = _layout.BLOCK


class _Call:
    """A planned call: its kernel (once compiled), the result's memory shape and axis
    order, the launch geometry, the argument packer and the packed layout."""

    __slots__ = ("source", "kernel_key", "mem_shape", "inverse", "f_shape", "blocks", "n",
                 "pack", "layout", "layout_at", "fn")

    def __init__(self, p: _layout.LayoutPlan, source: str, kernel_key: tuple,
                 narrays: int, scalars: list[np.dtype]) -> None:
        self.source = source
        self.kernel_key = kernel_key
        self.mem_shape = p.mem_shape
        self.inverse = p.inverse
        #: the result's shape where its memory order reverses every axis (the result is
        #: allocated in F order, no transposed view made), else None
        self.f_shape = p.mem_shape[::-1] if p.inverse is not None and tuple(
            p.inverse) == tuple(range(len(p.inverse) - 1, -1, -1)) else None
        self.blocks = p.blocks
        self.n = p.n
        self.pack = struct.Struct(_layout.pack_format(narrays, scalars)).pack_into
        self.layout = _layout.loop_arguments(p, narrays)
        self.layout_at = 8 * (narrays + len(scalars) + 2)
        #: the compiled kernel, once known (one GPU: a call runs on one device)
        self.fn: Any = None


#: the plan of a layout the loops do not take
_REFUSED: Any = object()


class ElementwiseEngine:
    """Runs generated elementwise bodies on CUDA arrays of any layout.

    ``run(sig, body, names, arrays, consts, out_dtype, alloc)``: ``sig`` a hashable
    name of the body (its operation and operand types) and of the result's order,
    ``names`` the generator's name of each array operand, ``arrays`` raw CuPy arrays,
    ``consts`` the scalar arguments as (value, dtype), ``alloc(shape, dtype, size,
    stream, order="C")`` the result's allocator (on the operands' queue and memory kind,
    under the caller's placement); ``shape`` the result's shape where ``arrays`` is empty (a
    fill); ``c_order``: a C-order result (else the operands' memory order).  Returns
    the raw result, or None where the layout is outside what the loops take (then the
    caller computes it another way).
    """

    def __init__(self, multi_gpu: bool) -> None:
        #: False with USMARRAY_CUDA_ENGINE=0 (callers then compute elementwise calls
        #: another way)
        self.available = env_flag("USMARRAY_CUDA_ENGINE", True)
        self._multi = multi_gpu
        self._calls: dict[tuple, Any] = {}
        self._kernels: dict[tuple, Any] = {}

    def run(self, sig: Any, body: str, names: list[str], arrays: list[Any],
            consts: list[tuple[Any, np.dtype]], out_dtype: np.dtype, alloc: Any,
            shape: tuple[int, ...] | None = None, c_order: bool = False) -> Any:
        if len(arrays) == 1:
            a = arrays[0]
            p0 = a.data.ptr
            ptrs: Any = (p0,)
            key: tuple = (sig, a.shape, a.strides, p0 % _ALIGN)
        elif len(arrays) == 2:  # the common binary call: no comprehension
            a, b = arrays
            p0, p1 = a.data.ptr, b.data.ptr
            ptrs = (p0, p1)
            key = (sig, a.shape, a.strides, p0 % _ALIGN, b.shape, b.strides, p1 % _ALIGN)
        elif arrays:
            ptrs = [a.data.ptr for a in arrays]
            key = (sig, *[(a.shape, a.strides, p % _ALIGN)
                          for a, p in zip(arrays, ptrs, strict=True)])
        else:
            ptrs = ()
            key = (sig, shape)
        calls = self._calls
        c = calls.get(key)
        if c is None:
            if len(calls) >= MAX_PLANS:
                calls.clear()
            c = calls[key] = self._plan(body, names, arrays, [d for _, d in consts],
                                        out_dtype, shape, c_order)
        if c is _REFUSED:
            return None
        s = stream_ptr()
        fs = c.f_shape
        out = alloc(c.mem_shape, out_dtype, c.n, s) if fs is None else alloc(
            fs, out_dtype, c.n, s, "F")
        if c.n:
            f = c.fn or self._kernel(c)
            t = SLOTS
            if consts:
                c.pack(t.slots, 0, *ptrs, *[v for v, _ in consts], out.data.ptr, c.n)
            else:
                c.pack(t.slots, 0, *ptrs, out.data.ptr, c.n)
            if c.layout:
                ctypes.memmove(t.base + c.layout_at, c.layout, len(c.layout))
            try:
                raw_launch(f.ptr, c.blocks, 1, 1, _BLOCK, 1, 1, 0, s, t.pp, 0)
            except Exception:  # no context current on this thread, or a failed launch
                driver_launch(f.ptr, c.blocks, 1, 1, _BLOCK, 1, 1, 0, s, t.pp, 0)
        return out if fs is not None or c.inverse is None else out.transpose(c.inverse)

    def compiled_call(self, name: str, fam: str, binary: bool, slow: Callable[..., Any],
                      bodies: dict, stats: dict, device_memory: frozenset,
                      new_out: Callable[..., Any]) -> Callable[..., Any]:
        """Elementwise ``name``'s call in its compiled form (``_engine_calls.EngineCall``:
        a repeated call on plain device memory launches without a Python frame, every
        other goes to ``slow``), or ``slow`` itself where there is no compiled form, the
        driver's launch is not found or the machine has several GPUs."""
        address = launch_address() if calls_module is not None and not self._multi else 0
        if not address:
            return slow
        return calls_module.EngineCall(  # type: ignore[union-attr]
            name, fam, binary, slow, bodies, self._calls, _REFUSED, cupy.ndarray,
            device_memory, new_out, stream_ptr, address, _layout.SCALAR_CODES, stats, _BLOCK, _ALIGN)

    def compiled_store(self, slow: Callable[..., Any], kernels: dict,
                       device_memory: frozenset) -> Callable[..., Any]:
        """``ElementStore.store`` (``slow``, whose compiled kernels are ``kernels``) in
        its compiled form (``_engine_calls.ScalarStore``: a Python scalar or a 0-D array
        written under int keys launches without a Python frame), or ``slow`` itself,
        as :meth:`compiled_call` decides."""
        address = launch_address() if calls_module is not None and not self._multi else 0
        if not address:
            return slow
        return calls_module.ScalarStore(  # type: ignore[union-attr]
            slow, kernels, cupy.ndarray, device_memory, stream_ptr, address,
            _layout.SCALAR_CODES)

    def _plan(self, body: str, names: list[str], arrays: list[Any], scalars: list[np.dtype],
              out: np.dtype, shape: tuple[int, ...] | None, c_order: bool) -> Any:
        ops = [_layout.Operand(a.shape, a.strides, a.itemsize, a.data.ptr) for a in arrays]
        p = _layout.plan(ops, out.itemsize, shape, c_order, _layout.vectors(body))
        if p is None:
            return _REFUSED
        dts = [a.dtype for a in arrays]
        source = _layout.kernel_source(body, names, dts, scalars, out, p)
        kernel_key = _layout.kernel_key(body, names, dts, scalars, out, p)
        return _Call(p, source, kernel_key, len(arrays), scalars)

    def _kernel(self, c: _Call) -> Any:
        if self._multi:
            return compiled(c.source, "k", True)
        f = self._kernels.get(c.kernel_key)
        if f is None:
            f = self._kernels[c.kernel_key] = compiled(c.source, "k", False)
        c.fn = f
        return f


__all__ = ["ElementwiseEngine"]
