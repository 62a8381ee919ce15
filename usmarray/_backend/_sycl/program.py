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
  by value) and submits an nd-range after the work already submitted to the queue,
  through dpctl's C interface (``DPCTLQueue_SubmitRange``, what ``SyclQueue.submit``
  calls) with the arguments converted once per packing.

Nothing here imports the namespace layer.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
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


class _CApi:
    """The launch functions of dpctl's C interface (``libDPCTLSyclInterface``), which
    dpctl's own ``SyclQueue.submit`` calls: submitting through them directly skips the
    per-call conversion of a Python argument list (the factory converts a launch's
    arguments once) and waits on the launch's event (measured on the OpenCL CPU device:
    a repeated 100-element launch 0.6-1.3x a raw ``SyclQueue.submit`` of the same kernel,
    a raw submit itself varying 9-28 us with the machine's load).  ``codes`` maps a ctypes argument type to
    dpctl's ``DPCTLKernelArgType`` (stable since dpctl 0.14: later versions only
    append)."""

    def __init__(self) -> None:
        lib = ctypes.CDLL(os.path.join(os.path.dirname(dpctl.__file__),
                                       "libDPCTLSyclInterface.so"))
        vp, sz = ctypes.c_void_p, ctypes.c_size_t
        self.submit_range = lib.DPCTLQueue_SubmitRange
        self.submit_range.restype = vp
        self.submit_range.argtypes = [vp, vp, vp, vp, sz, vp, sz, vp, sz]
        self.event_delete = lib.DPCTLEvent_Delete
        self.event_delete.argtypes = [vp]
        self.event_delete.restype = None
        self.queue_wait = lib.DPCTLQueue_Wait
        self.queue_wait.argtypes = [vp]
        self.queue_wait.restype = None
        self.event_wait = lib.DPCTLEvent_Wait
        self.event_wait.argtypes = [vp]
        self.event_wait.restype = None
        c = ctypes
        self.codes: dict[type, int] = {
            c.c_char: 0, c.c_int8: 0, c.c_uint8: 1, c.c_int16: 2, c.c_uint16: 3,
            c.c_int32: 4, c.c_uint32: 5, c.c_int64: 6, c.c_uint64: 7, c.c_longlong: 6,
            c.c_ulonglong: 7, c.c_float: 8, c.c_double: 9,
        }
        self.void_ptr = 10


def _load_capi() -> _CApi | None:
    try:
        major, minor = (int(v) for v in dpctl.__version__.split(".")[:2])
        if (major, minor) < (0, 14):  # pragma: no cover - an older argument-type enum
            return None
        return _CApi()
    except (OSError, AttributeError, ValueError):  # pragma: no cover - no such library
        return None


#: the C interface, or None (an older dpctl, no library): launches then go through
#: ``SyclQueue.submit``
_CAPI = _load_capi()


class Args:
    """One launch's arguments: ``args`` in ``SyclQueue.submit``'s form (ctypes objects
    and USM memory objects, kept alive here) and, from the second launch of the same
    arguments on, ``ptrs``, the C interface's form of them (per argument the USM
    pointer itself or the address of its value).  A one-off launch goes through
    ``SyclQueue.submit_async``, whose conversion (in Cython) costs less than this
    one (in Python); a repeated one converts once and then launches with no
    conversion at all."""

    __slots__ = ("args", "ptrs", "launched")

    def __init__(self, args: list, ptrs: Any = None) -> None:
        self.args = args
        self.ptrs = ptrs
        self.launched = ptrs is not None


def _ctypes_form(args: list) -> tuple[Any, Any]:
    """(pointer array, type-code array) of a ``SyclQueue.submit`` argument list."""
    capi = _CAPI
    assert capi is not None
    n = len(args)
    ptrs = (ctypes.c_void_p * n)()
    codes = (ctypes.c_int * n)()
    table = capi.codes
    for i, a in enumerate(args):
        code = table.get(type(a))
        if code is None:  # a USM memory object
            ptrs[i] = a._pointer
            codes[i] = capi.void_ptr
        else:
            ptrs[i] = ctypes.addressof(a)
            codes[i] = code
    return ptrs, codes


class Launcher(Packer):
    """The launch path of one compiled kernel: :meth:`pack` converts the parameters' values
    (raw arrays, Python scalars) and the trailing int64 ``extra`` values (with
    ``error_record``, the raw int64 record array last) into an :class:`Args`;
    :meth:`submit` runs it (or a plain ``SyclQueue.submit`` argument list) over the
    nd-range ``gsize`` (fastest-varying dimension first).  ``scalar_slots`` lists
    (position in that list, parameter index, converter) so that a caller may re-pack
    only the scalars of a repeated call (:meth:`with_scalars`).  With ``flat``, every
    array is C-contiguous and passed as 1-D: its size is its one run-time size.

    The submission is synchronous: it waits for the work already submitted to the
    queue (dpctl's ``SequentialOrderManager``, which the kernel provider also uses;
    while an event there is not complete, the queue is waited on first, which costs
    less than a dependency) and returns when the kernel has finished, so the provider's
    later kernels need no event of it and the arguments need no keep-alive.  On this
    device a launch that returns at once measured no cheaper than one that waits."""

    __slots__ = ("kernel", "_mgr", "_kref", "_codes", "_ranges", "_flat_plan", "_flat_codes")
    int64 = _I64

    def __init__(self, kernel: Any, params: tuple[tuple, ...], error_record: bool,
                 flat: bool) -> None:
        super().__init__(params, error_record, flat, _SCALAR_CTYPES)
        self.kernel = kernel
        #: (queue, its order manager, its C reference): dpctl's look-ups cost more than
        #: the rest of a launch
        self._mgr: tuple | None = None
        self._kref = kernel.addressof_ref()
        #: the type codes of the last argument list (the same for every launch of one
        #: layout), and the C ranges of recent launch sizes
        self._codes: Any = None
        self._ranges: dict[tuple[int, ...], Any] = {}
        #: for :meth:`launch_flat`: per parameter True (an array: its pointer, then its
        #: size), False (an array: its pointer) or the scalar's converter; None when the
        #: layout has offsets or extra arguments
        self._flat_plan: tuple | None = None
        self._flat_codes: Any = None
        if (_CAPI is not None and flat and not error_record
                and all(not off for _a, _b, _c, off in self.packers)):
            self._flat_plan = tuple((bool(a) if is_array else a)
                                    for is_array, a, _c, _o in self.packers)

    @staticmethod
    def pointer(v: Any) -> Any:
        return v.usm_data

    @staticmethod
    def offset(v: Any) -> int:
        return int(v._element_offset)

    @staticmethod
    def record(v: Any) -> Any:
        return v.usm_data

    def pack(self, values: list, extra: tuple) -> Any:
        args = Packer.pack(self, values, extra)
        return args if _CAPI is None else Args(args)

    def _ptrs(self, packed: Args) -> Any:
        """``packed``'s C form (converted on first use)."""
        ptrs = packed.ptrs
        if ptrs is None:
            ptrs, codes = _ctypes_form(packed.args)
            if self._codes is None:
                self._codes = codes
            packed.ptrs = ptrs
        return ptrs

    def with_scalars(self, packed: Any, items: list[tuple[int, Any]]) -> Any:
        """``packed`` with the arguments at the given positions replaced by new values
        (converted ctypes objects); ``packed`` itself is not changed."""
        if type(packed) is not Args:
            return Packer.with_scalars(self, packed, items)
        old = self._ptrs(packed)
        args = list(packed.args)
        ptrs = (ctypes.c_void_p * len(args))()
        ctypes.memmove(ptrs, old, ctypes.sizeof(ptrs))
        for pos, v in items:
            args[pos] = v
            ptrs[pos] = ctypes.addressof(v)
        return Args(args, ptrs)

    def _queue(self, q: dpctl.SyclQueue) -> tuple:
        c = self._mgr
        if c is None or c[0] is not q:
            c = self._mgr = (q, _mgr_of(q) if _mgr_of is not None else None,
                             q.addressof_ref())
        return c

    def submit(self, q: dpctl.SyclQueue, args: Any, gsize: tuple[int, ...]) -> None:
        capi = _CAPI
        if capi is not None and type(args) is Args:
            if args.launched:
                ptrs = self._ptrs(args)
                self._enqueue(capi, q, ptrs, self._codes, len(ptrs), gsize)
                return
            args.launched = True
            args = args.args
        # a one-off launch, a plain argument list (the caller's own layout), or no C
        # interface: dpctl converts the list
        _q, mgr, qref = self._queue(q)
        if _pending(mgr):
            q.wait()
        if capi is None:
            q.submit(self.kernel, args, list(reversed(gsize)))
        else:
            q.submit_async(self.kernel, args, list(reversed(gsize)))
            capi.queue_wait(qref)

    def _enqueue(self, capi: _CApi, q: dpctl.SyclQueue, ptrs: Any, codes: Any, nargs: int,
                 gsize: tuple[int, ...]) -> None:
        """Submit through the C interface after the queue's unfinished work, and wait."""
        c = self._mgr
        if c is None or c[0] is not q:
            c = self._queue(q)
        mgr, qref = c[1], c[2]
        rng = self._ranges.get(gsize)
        if rng is None:
            if len(self._ranges) > 64:
                self._ranges.clear()
            # SYCL's last range dimension is OpenCL's dimension 0
            rng = self._ranges[gsize] = (ctypes.c_size_t * 3)(*reversed(gsize),
                                                             *(1,) * (3 - len(gsize)))
        if mgr is None or mgr.num_submitted_events and _pending(mgr):
            capi.queue_wait(qref)
        ev = capi.submit_range(self._kref, qref, ptrs, codes, nargs, rng, len(gsize), None, 0)
        if not ev:
            raise dpctl.SyclKernelSubmitError(
                f"the SYCL runtime refused the launch of a kernel over {tuple(gsize)} on "
                f"{describe(q)}")
        capi.event_wait(ev)
        capi.event_delete(ev)

    def launch_flat(self, q: dpctl.SyclQueue, values: list, size: int) -> None:
        """Launch a flat layout without offset arguments over ``size`` work-items:
        ``values`` are the parameters' values, raw arrays (C-contiguous with ``size``
        elements; each passed by the address of its first element, so an array with an
        offset needs no offset argument) and Python scalars.  The arguments are written
        straight into the C interface's form (no intermediate list)."""
        plan = self._flat_plan
        capi = _CAPI
        if plan is None or capi is None:
            raise ValueError("launch_flat: this launcher's layout has offsets or extra "
                             "arguments; use pack() and submit()")
        ptrs = (ctypes.c_void_p * (2 * len(plan)))()
        n = _I64(size)
        keep: list[Any] = [n]
        at = ctypes.addressof(n)
        i = 0
        for conv, v in zip(plan, values, strict=True):
            if conv is True:
                ptrs[i] = v._pointer
                ptrs[i + 1] = at
                i += 2
            elif conv is False:
                ptrs[i] = v._pointer
                i += 1
            else:
                c = conv(v)
                keep.append(c)
                ptrs[i] = ctypes.addressof(c)
                i += 1
        codes = self._flat_codes
        if codes is None:
            ptr, i64 = capi.void_ptr, capi.codes[_I64]
            codes = self._flat_codes = (ctypes.c_int * i)(*(
                c for conv in plan for c in ((ptr, i64) if conv is True else (ptr,)
                                             if conv is False else
                                             (capi.codes[type(conv(0))],))))
        self._enqueue(capi, q, ptrs, codes, i, (size,))

    def __call__(self, q: dpctl.SyclQueue, values: list, extra: tuple,
                 gsize: tuple[int, ...]) -> None:
        self.submit(q, self.pack(values, extra), gsize)


_mgr_of = SequentialOrderManager.__getitem__ if SequentialOrderManager is not None else None
_COMPLETE = dpctl.event_status_type.complete


def _pending(mgr: Any) -> bool:
    """Whether the queue of order manager ``mgr`` (None: unknown) has unfinished work."""
    return mgr is None or bool(mgr.num_submitted_events and any(
        e.execution_status != _COMPLETE for e in mgr.submitted_events))


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
