"""What the SYCL runtime knows about a USM pointer: its type and its allocation.

SYCL tells a pointer's USM type in a context but not the bounds of the allocation
holding it; those come from the native backend under the context:

* OpenCL: ``clGetMemAllocInfoINTEL`` (``cl_intel_unified_shared_memory``), reached
  through the ICD loader's ``clGetExtensionFunctionAddressForPlatform``;
* Level Zero: ``zeMemGetAddressRange`` (not exercised on a machine without a
  Level Zero device);
* other backends (CUDA, HIP): no query; the bounds are unknown.

The native context handle comes from libsycl's exported (ABI-internal)
``sycl::context::getNative``, resolved through dpctl's C library.  Only libraries
the process has already loaded are used.  Every failure of a query degrades to
"unknown"; nothing here raises.
"""

from __future__ import annotations

import ctypes as C
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dpctl

_NOLOAD = getattr(os, "RTLD_NOLOAD", 0) | os.RTLD_LOCAL

# cl_intel_unified_shared_memory (CL/cl_ext.h) and core OpenCL (CL/cl.h)
_CL_MEM_ALLOC_TYPE_INTEL = 0x419A
_CL_MEM_ALLOC_BASE_PTR_INTEL = 0x419B
_CL_MEM_ALLOC_SIZE_INTEL = 0x419C
_CL_TYPES = {0x4197: "host", 0x4198: "device", 0x4199: "shared"}  # 0x4196: unknown
_CL_CONTEXT_NUM_DEVICES = 0x1083
_CL_CONTEXT_DEVICES = 0x1081
_CL_DEVICE_PLATFORM = 0x1031
# DPCTLSyclUSMType: DPCTL_USM_UNKNOWN, DEVICE, SHARED, HOST
_DPCTL_TYPES = (None, "device", "shared", "host")

_GET_NATIVE = "_ZNK4sycl3_V17context9getNativeEv"  # sycl::_V1::context::getNative() const
_CL_ALLOC_INFO = C.CFUNCTYPE(
    C.c_int, C.c_void_p, C.c_void_p, C.c_uint, C.c_size_t, C.c_void_p, C.c_void_p
)

#: (usm_type, base, size) -> the runtime's answer for one pointer
Info = tuple[str | None, int, int]
_Query = Callable[[int], "Info | None"]


def _loaded(name: str) -> Any:
    try:
        return C.CDLL(name, mode=_NOLOAD)
    except OSError:
        return None


class _Runtime:
    """ctypes entry points, resolved once; a missing one is None."""

    def __init__(self) -> None:
        dpctl_lib = _loaded(str(Path(dpctl.__file__).with_name("libDPCTLSyclInterface.so")))
        self.pointer_type: Any = None
        self.get_native: Any = None
        if dpctl_lib is not None:
            fn = getattr(dpctl_lib, "DPCTLUSM_GetPointerType", None)
            if fn is not None:
                fn.restype, fn.argtypes = C.c_int, (C.c_void_p, C.c_void_p)
                self.pointer_type = fn
            # dlsym on dpctl's handle also searches libsycl, which it links
            fn = getattr(dpctl_lib, _GET_NATIVE, None)
            if fn is not None:
                fn.restype, fn.argtypes = C.c_void_p, (C.c_void_p,)
                self.get_native = fn
        self.cl = _loaded("libOpenCL.so.1")
        if self.cl is not None:
            for name, res, args in (
                ("clGetContextInfo", C.c_int, (C.c_void_p, C.c_uint, C.c_size_t, C.c_void_p, C.c_void_p)),
                ("clGetDeviceInfo", C.c_int, (C.c_void_p, C.c_uint, C.c_size_t, C.c_void_p, C.c_void_p)),
                ("clReleaseContext", C.c_int, (C.c_void_p,)),
                ("clGetExtensionFunctionAddressForPlatform", C.c_void_p, (C.c_void_p, C.c_char_p)),
            ):
                fn = getattr(self.cl, name)
                fn.restype, fn.argtypes = res, args
        self.ze_range: Any = None
        ze = _loaded("libze_loader.so.1")
        if ze is not None:
            fn = getattr(ze, "zeMemGetAddressRange", None)
            if fn is not None:
                fn.restype = C.c_int
                fn.argtypes = (C.c_void_p, C.c_void_p, C.c_void_p, C.c_void_p)
                self.ze_range = fn
        self.cl_alloc_info: dict[int, Any] = {}  # per cl_platform_id


_rt: _Runtime | None = None
_rt_tried = False
_queries: dict[Any, _Query | None] = {}  # SyclContext -> query; the key keeps it alive
_MAX_CONTEXTS = 32
_lock = threading.RLock()


def _runtime() -> _Runtime | None:
    global _rt, _rt_tried
    if not _rt_tried:
        with _lock:
            if not _rt_tried:
                try:
                    _rt = _Runtime()
                except Exception:  # an unusual dpctl layout: no queries at all
                    _rt = None
                _rt_tried = True
    return _rt


def _opencl_query(rt: _Runtime, ctx: dpctl.SyclContext) -> _Query | None:
    if rt.cl is None or rt.get_native is None:
        return None
    handle = rt.get_native(ctx.addressof_ref())
    if not handle:
        return None
    # getNative retains an OpenCL handle (SYCL 2020 interop: the caller releases it);
    # `ctx`, held as the cache key, keeps the context alive
    rt.cl.clReleaseContext(handle)
    n = C.c_uint()
    if rt.cl.clGetContextInfo(handle, _CL_CONTEXT_NUM_DEVICES, 4, C.byref(n), None) or not n.value:
        return None
    if n.value != ctx.device_count:
        return None  # not the context we asked for
    devices = (C.c_void_p * n.value)()
    if rt.cl.clGetContextInfo(handle, _CL_CONTEXT_DEVICES, C.sizeof(devices), devices, None):
        return None
    platform = C.c_void_p()
    if rt.cl.clGetDeviceInfo(devices[0], _CL_DEVICE_PLATFORM, C.sizeof(platform), C.byref(platform), None):
        return None
    fn = rt.cl_alloc_info.get(platform.value or 0)
    if fn is None:
        addr = rt.cl.clGetExtensionFunctionAddressForPlatform(platform, b"clGetMemAllocInfoINTEL")
        if not addr:
            return None
        fn = rt.cl_alloc_info[platform.value or 0] = _CL_ALLOC_INFO(addr)

    def query(ptr: int) -> Info | None:
        kind, base, size = C.c_uint(), C.c_void_p(), C.c_size_t()
        if fn(handle, ptr, _CL_MEM_ALLOC_TYPE_INTEL, 4, C.byref(kind), None):
            return None
        usm = _CL_TYPES.get(kind.value)
        if usm is None:
            return (None, 0, 0)
        if (fn(handle, ptr, _CL_MEM_ALLOC_BASE_PTR_INTEL, 8, C.byref(base), None)
                or fn(handle, ptr, _CL_MEM_ALLOC_SIZE_INTEL, 8, C.byref(size), None)):
            return (usm, 0, 0)
        return (usm, base.value or 0, size.value)

    return query


def _level_zero_query(rt: _Runtime, ctx: dpctl.SyclContext) -> _Query | None:
    ze_range = rt.ze_range
    if ze_range is None or rt.get_native is None:
        return None
    handle = rt.get_native(ctx.addressof_ref())
    if not handle:
        return None
    ref = ctx.addressof_ref

    def query(ptr: int) -> Info | None:
        usm = _dpctl_type(rt, ref(), ptr)
        if usm is None:
            return (None, 0, 0)
        base, size = C.c_void_p(), C.c_size_t()
        if ze_range(handle, ptr, C.byref(base), C.byref(size)):
            return (usm, 0, 0)
        return (usm, base.value or 0, size.value)

    return query


def _make_query(ctx: dpctl.SyclContext) -> _Query | None:
    """The bounds query for ``ctx``'s backend, or None (may raise: the caller guards)."""
    rt = _runtime()
    if rt is None:
        return None
    backend = ctx.get_devices()[0].backend
    if backend == dpctl.backend_type.opencl:
        return _opencl_query(rt, ctx)
    if backend == dpctl.backend_type.level_zero:
        return _level_zero_query(rt, ctx)
    return None


def _dpctl_type(rt: _Runtime, ctx_ref: int, ptr: int) -> str | None:
    t = rt.pointer_type(ptr, ctx_ref)
    return _DPCTL_TYPES[t] if 0 <= t < len(_DPCTL_TYPES) else None


def pointer_info(ctx: dpctl.SyclContext, ptr: int) -> Info | None:
    """``(usm_type, base, size)`` of the allocation of ``ctx`` holding the address
    ``ptr`` (``0 <= ptr < 2**64``).  ``usm_type`` is None when no USM allocation of
    ``ctx`` holds it; ``base`` and ``size`` are 0 when the backend cannot tell the
    bounds.  None when even the type cannot be asked here."""
    try:
        query = _queries[ctx]
    except KeyError:
        with _lock:
            query = _queries.get(ctx)
            if query is None and ctx not in _queries:
                try:
                    query = _make_query(ctx)
                except Exception:
                    query = None
                if len(_queries) >= _MAX_CONTEXTS:
                    del _queries[next(iter(_queries))]
                _queries[ctx] = query
    if query is not None:
        try:
            info = query(ptr)
        except Exception:
            info = None
        if info is not None:
            return info
    rt = _runtime()
    if rt is None or rt.pointer_type is None:
        return None
    try:
        return (_dpctl_type(rt, ctx.addressof_ref(), ptr), 0, 0)
    except Exception:
        return None
