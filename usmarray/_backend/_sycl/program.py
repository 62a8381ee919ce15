"""Compile and launch generated OpenCL C kernels on SYCL queues (the kernel factory's
SYCL side; the factory itself is ``usmarray.kernels``, which calls only this module's
functions and never dpctl).

- :func:`compile` builds a program with ``dpctl.program.create_program_from_source`` for
  the queue's context and device (OpenCL devices only: dpctl builds source programs
  through OpenCL).  dpctl reports a failed build without the compiler's log, so the log
  is fetched by building the same source once more through the OpenCL API (ctypes on
  the ICD loader) for a device of the same name; that runs only when a build failed.
- Programs built from source are cached in memory only: dpctl builds them with
  ``clBuildProgram`` directly, so ``SYCL_CACHE_PERSISTENT`` does not apply, the OpenCL
  CPU runtime keeps no program cache of its own, and dpctl can load only source or
  SPIR-V (no program binaries).  Measured here: 50-100 ms per build from source.
- :func:`launcher` returns the :class:`Launcher` of one compiled kernel: it packs the
  arguments (USM pointer, element offset, run-time sizes and strides per array; scalars
  by value) and submits an nd-range after the work already submitted to the queue.

Nothing here imports the namespace layer.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from typing import Any

import dpctl
import dpctl.program as dpp

from .._program_args import Packer
from .ranged import PIECE

try:
    from dpctl.utils import SequentialOrderManager
except ImportError:  # pragma: no cover - dpctl < 0.18
    SequentialOrderManager = None

LANGUAGE = "opencl"
NAME = "sycl"
#: work-items per launch: the provider's runtime counts them in 32 bits, so a larger
#: nd-range runs in pieces of this many (the built-in kernels' piece size)
MAX_WORK_ITEMS = PIECE


class BuildFailure(Exception):
    """The runtime refused a program: ``args[0]`` says why, ``log`` is the compiler's log
    (None when it could not be obtained)."""

    def __init__(self, message: str, log: str | None) -> None:
        super().__init__(message)
        self.log = log


def program_key(q: dpctl.SyclQueue) -> Any:
    """Queues that can share one compiled program (same context and device)."""
    return (q.sycl_context, q.sycl_device)


def max_parallel_axes(q: dpctl.SyclQueue) -> int:
    return int(q.sycl_device.max_work_item_dims)


def has_fp64(q: dpctl.SyclQueue) -> bool:
    return bool(q.sycl_device.has_aspect_fp64)


def describe(q: dpctl.SyclQueue) -> str:
    d = q.sycl_device
    return f"{d.filter_string} ({d.name})"


def unsupported(q: dpctl.SyclQueue) -> str | None:
    """Why kernels cannot be compiled for ``q``'s device, or None when they can."""
    if q.sycl_device.backend != dpctl.backend_type.opencl:
        return (f"{describe(q)} is a {q.sycl_device.backend.name} device; dpctl compiles "
                "kernels from source for OpenCL devices only (use an 'opencl:' device)")
    return None


def strides(raw: Any) -> tuple[int, ...]:
    """Strides in elements."""
    return raw.strides


def offset(raw: Any) -> int:
    """The element offset the kernel must add to the pointer passed for ``raw``."""
    return raw._element_offset


def compile(q: dpctl.SyclQueue, source: str, name: str) -> Any:  # noqa: A001
    """The kernel ``name`` of ``source`` built for ``q``; BuildFailure with the log."""
    try:
        prog = dpp.create_program_from_source(q, source)
    except dpp.SyclProgramCompilationError as exc:
        log = _build_log(q, source)
        raise BuildFailure(
            f"the OpenCL compiler rejected the kernel for {describe(q)} ({exc or 'build failed'})",
            log,
        ) from None
    if not prog.has_sycl_kernel(name):  # pragma: no cover - the emitter names it
        raise BuildFailure(f"the program has no kernel {name!r}", None)
    return prog.get_sycl_kernel(name)


# ---- launching ---------------------------------------------------------------------------
_I64 = ctypes.c_longlong
_SCALAR_CTYPES: dict[str, Any] = {
    # dpctl takes c_char (not c_byte) for 8-bit signed arguments
    "bool": ctypes.c_uint8, "int8": lambda v: ctypes.c_char(v & 0xFF), "uint8": ctypes.c_uint8,
    "int16": ctypes.c_int16, "uint16": ctypes.c_uint16, "int32": ctypes.c_int32,
    "uint32": ctypes.c_uint32, "int64": ctypes.c_int64, "uint64": ctypes.c_uint64,
    "float32": ctypes.c_float, "float64": ctypes.c_double,
}
class Launcher(Packer):
    """The launch path of one compiled kernel: :meth:`pack` turns the parameters' values
    (raw arrays, Python scalars) and the trailing int64 ``extra`` values (with
    ``error_record``, the raw int64 record array last) into dpctl's argument list;
    :meth:`submit` runs it over the nd-range ``gsize`` (fastest-varying dimension
    first).  ``scalar_slots`` lists (position in that list, parameter index, converter)
    so that a caller may re-pack only the scalars of a repeated call.  With ``flat``,
    every array is C-contiguous and passed as 1-D: its size is its one run-time size.

    The submission is synchronous: it waits for the work already submitted to the
    queue (dpctl's ``SequentialOrderManager``, which the kernel provider also uses;
    only events not yet complete are passed, since every dependency costs the runtime
    several microseconds) and returns when the kernel has finished, so the provider's
    later kernels need no event of it and the arguments need no keep-alive.  On this
    device a launch that returns at once measured no cheaper than one that waits."""

    __slots__ = ("kernel", "_mgr")
    int64 = _I64

    def __init__(self, kernel: Any, params: tuple[tuple, ...], error_record: bool,
                 flat: bool) -> None:
        super().__init__(params, error_record, flat, _SCALAR_CTYPES)
        self.kernel = kernel
        #: (queue, its order manager): dpctl's look-up costs more than the rest of a launch
        self._mgr: tuple | None = None

    @staticmethod
    def pointer(v: Any) -> Any:
        return v.usm_data

    @staticmethod
    def offset(v: Any) -> int:
        return int(v._element_offset)

    @staticmethod
    def record(v: Any) -> Any:
        return v.usm_data

    def submit(self, q: dpctl.SyclQueue, args: list, gsize: tuple[int, ...]) -> None:
        rng = list(reversed(gsize))  # SYCL's last range dimension is OpenCL's dimension 0
        if _mgr_of is None:  # pragma: no cover - old dpctl: no order manager
            q.wait()
            q.submit(self.kernel, args, rng)
            return
        c = self._mgr
        if c is not None and c[0] is q:
            mgr = c[1]
        else:
            mgr = _mgr_of(q)
            self._mgr = (q, mgr)
        deps = ([e for e in mgr.submitted_events if e.execution_status != _COMPLETE]
                if mgr.num_submitted_events else None)
        if deps:
            q.submit(self.kernel, args, rng, None, deps)
        else:
            q.submit(self.kernel, args, rng)

    def __call__(self, q: dpctl.SyclQueue, values: list, extra: tuple,
                 gsize: tuple[int, ...]) -> None:
        self.submit(q, self.pack(values, extra), gsize)


_mgr_of = SequentialOrderManager.__getitem__ if SequentialOrderManager is not None else None
_COMPLETE = dpctl.event_status_type.complete


def launcher(kernel: Any, params: tuple[tuple, ...], n_extra: int, error_record: bool,
             flat: bool = False) -> Launcher:
    """The :class:`Launcher` of ``kernel`` for the argument layout ``params``."""
    return Launcher(kernel, params, error_record, flat)


# ---- the compiler's log through the OpenCL API (only after a failed build) -------------------
def _build_log(q: dpctl.SyclQueue, source: str) -> str | None:
    try:
        return _opencl_build_log(q.sycl_device.name, source)
    except Exception as exc:  # the log is a courtesy: never fail the report for it
        return f"(no compiler log: {exc})"


def _opencl_build_log(device_name: str, source: str) -> str | None:
    path = ctypes.util.find_library("OpenCL") or "libOpenCL.so.1"
    cl = ctypes.CDLL(path)
    u32, vp, sz = ctypes.c_uint32, ctypes.c_void_p, ctypes.c_size_t
    nplat = u32()
    if cl.clGetPlatformIDs(0, None, ctypes.byref(nplat)) != 0 or not nplat.value:
        return None
    plats = (vp * nplat.value)()
    cl.clGetPlatformIDs(nplat.value, plats, None)
    for plat in plats:
        ndev = u32()
        if cl.clGetDeviceIDs(vp(plat), ctypes.c_uint64(0xFFFFFFFF), 0, None,
                             ctypes.byref(ndev)) != 0:
            continue
        devs = (vp * ndev.value)()
        cl.clGetDeviceIDs(vp(plat), ctypes.c_uint64(0xFFFFFFFF), ndev.value, devs, None)
        for dev in devs:
            buf = ctypes.create_string_buffer(1024)
            cl.clGetDeviceInfo(vp(dev), u32(0x102B), sz(1024), buf, None)  # CL_DEVICE_NAME
            if buf.value.decode(errors="replace") != device_name:
                continue
            return _log_for(cl, vp(dev), source)
    return None


def _log_for(cl: Any, dev: Any, source: str) -> str | None:
    vp, sz = ctypes.c_void_p, ctypes.c_size_t
    err = ctypes.c_int32()
    cl.clCreateContext.restype = vp
    ctx = cl.clCreateContext(None, 1, ctypes.byref(dev), None, None, ctypes.byref(err))
    if not ctx:
        return None
    try:
        src = ctypes.c_char_p(source.encode())
        cl.clCreateProgramWithSource.restype = vp
        prog = cl.clCreateProgramWithSource(vp(ctx), 1, ctypes.byref(src), None,
                                            ctypes.byref(err))
        if not prog:
            return None
        try:
            cl.clBuildProgram(vp(prog), 1, ctypes.byref(dev), None, None, None)
            n = sz()
            cl.clGetProgramBuildInfo(vp(prog), dev, ctypes.c_uint32(0x1183), sz(0), None,
                                     ctypes.byref(n))  # CL_PROGRAM_BUILD_LOG
            buf = ctypes.create_string_buffer(max(n.value, 1))
            cl.clGetProgramBuildInfo(vp(prog), dev, ctypes.c_uint32(0x1183), n, buf, None)
            return buf.value.decode(errors="replace")
        finally:
            cl.clReleaseProgram(vp(prog))
    finally:
        cl.clReleaseContext(vp(ctx))


__all__ = [
    "LANGUAGE", "MAX_WORK_ITEMS", "NAME", "BuildFailure", "compile", "describe", "offset", "has_fp64", "launcher",
    "max_parallel_axes", "program_key", "strides", "unsupported",
]
