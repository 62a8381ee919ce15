"""The SYCL backend: memory and kernels from the dpctl.tensor API.

The kernel provider is resolved once, at import: ``dpnp.tensor`` (dpnp >= 0.20)
when importable, else the legacy ``dpctl.tensor`` (dpctl <= 0.21).
"""

from __future__ import annotations

import builtins
import functools
import importlib
import inspect
import math
import operator
import os
import sys
import threading
from types import ModuleType
from typing import Any

import dpctl
import dpctl.memory as dpmem
import numpy as np
from dpctl._sycl_device_factory import _cached_default_device
from dpctl._sycl_queue_manager import get_device_cached_queue

from ..._env import env_flag
from .. import _dlpack_import
from .._errors import warn_at_caller
from .._protocol import (
    CREATION_KERNELS,
    ELEMENTWISE_KERNELS,
    KERNEL_NAMES,
    REDUCTION_KERNELS,
    BackendBase,
    Capabilities,
)
from . import checked as _checked
from . import construct as _construct
from . import onemkl as _onemkl
from . import ramp as _ramp
from . import ranged as _ranged
from . import suai as _suai
from .export import _HostView, export, host_accessible

_INT64_MAX = 2**63 - 1
_PAGE = 4096
_HUGE_ADVICE_MIN_BYTES = 1 << 22
_MADV_HUGEPAGE = 14


def _libc_madvise() -> Any:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.madvise
        fn.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
        return fn
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        return None


_madvise = _libc_madvise() if sys.platform.startswith("linux") else None


def advise_huge_pages(raw: Any) -> None:
    """Ask Linux for transparent huge pages on a large fresh CPU-device allocation.

    USM memory of the OpenCL CPU runtime is ordinary host memory; with THP in
    "madvise" mode its first touch costs four times a NumPy buffer's (measured:
    a 64 MB host copy into fresh USM memory 58 ms, 9 ms after this advice).
    """
    if _madvise is None or raw.nbytes < _HUGE_ADVICE_MIN_BYTES:
        return
    ptr = raw.__sycl_usm_array_interface__["data"][0]
    start = -(-ptr // _PAGE) * _PAGE
    length = (ptr + raw.nbytes - start) // _PAGE * _PAGE
    if length > 0:
        _madvise(start, length, _MADV_HUGEPAGE)


def _span(raw: Any) -> tuple[int, int]:
    """(first, count): the elements from the lowest to the highest that ``raw``
    addresses, counted from the start of its allocation."""
    lo = hi = raw._element_offset
    for n, s in zip(raw.shape, raw.strides, strict=True):
        if s < 0:
            lo += s * (n - 1)
        else:
            hi += s * (n - 1)
    return lo, hi - lo + 1


def _resolve_provider() -> ModuleType:
    errors = []
    for name in ("dpnp.tensor", "dpctl.tensor"):
        try:
            return importlib.import_module(name)
        except ImportError as exc:  # pragma: no cover - depends on the stack
            errors.append(f"{name}: {exc}")
    raise ImportError(
        "no SYCL kernel provider: install dpnp>=0.20 (dpnp.tensor) or dpctl<=0.21 "
        "(dpctl.tensor); tried " + "; ".join(errors)
    )


_prod = math.prod


#: USMARRAY_SERIALIZE=0 switches the runtime lock off (see :attr:`SyclBackend.lock`)
SERIALIZE = env_flag("USMARRAY_SERIALIZE", True)


def _placed(fn: Any) -> Any:
    """A provider creation function taking the protocol's ``queue=`` keyword."""

    @functools.wraps(fn)
    def kernel(*args: Any, queue: Any = None, **kwargs: Any) -> Any:
        return fn(*args, sycl_queue=queue, **kwargs)

    return kernel


#: provider kernels that misread some strided layouts, each with the
#: wrapper that copies only the layouts it misreads (audited: a dense copy a
#: kernel does not need is a regression).  tests/test_reliability_layouts.py checks
#: every public function on every layout; tests/test_provider_workarounds.py shows per kept copy
#: that the provider still misreads that layout.
def _roll_dense_flat(fn: Any, pt: Any) -> Any:
    """``fn`` (the provider's roll) with a C-order copy of ``x`` only for the flattened
    roll (``axis=None``) of a layout that is not C-contiguous: that path's 1-D kernel
    segfaults, corrupts the heap or returns wrong values for views stepped on the last
    axis and for broadcast views of two or more dimensions.  The per-axis roll takes
    every layout (3000 random views, stepped, flipped, transposed and broadcast, gave
    NumPy's values), so it gets no copy."""

    @functools.wraps(fn)
    def kernel(x: Any, shift: Any, *, axis: Any = None) -> Any:
        if axis is None and not x.flags.c_contiguous:
            x = pt.copy(x, order="C")
        return fn(x, shift, axis=axis)

    return kernel


def _where_no_negative_strides(fn: Any, pt: Any) -> Any:
    """``fn`` (the provider's where) with C-order copies of the operands that have a
    negative stride: beside them (a 0-d operand, a broadcast or otherwise strided one)
    the kernel reads from the wrong positions (30 of 5000 random layout triples, every
    one with a negative stride).  None of the triples without a negative stride went
    wrong, so stepped, transposed and broadcast operands go through as they are."""

    at = pt.usm_ndarray

    def fix(a: Any) -> Any:  # scalars pass as they are
        if type(a) is at and builtins.min(a.strides, default=0) < 0:
            return pt.copy(a, order="C")
        return a

    @functools.wraps(fn)
    def kernel(condition: Any, x1: Any, x2: Any) -> Any:
        return fn(fix(condition), fix(x1), fix(x2))

    return kernel


LAYOUT_SENSITIVE = {"roll": _roll_dense_flat, "where": _where_no_negative_strides}


def _merge_sort_on_cpus(fn: Any) -> Any:
    """``fn`` (the provider's sort or argsort) with its merge sort for 1- and 2-byte
    integers on CPU devices.  Its default for them, the radix sort, crashes or hangs the
    OpenCL CPU device's compiler the first time it is built (the pass
    "sycl-kernel-reduce-cross-barrier-values", or a double free): sort for rows of about
    3000 elements or more every time, argsort of 4097 in about one build of six; its
    unique already takes the merge sort."""
    if "kind" not in inspect.signature(fn).parameters:  # no radix sort to avoid
        return fn
    cpu: dict[Any, bool] = {}

    @functools.wraps(fn)
    def kernel(x: Any, axis: int = -1, descending: bool = False, stable: bool = True) -> Any:
        if x.dtype.itemsize <= 2:
            d = x.sycl_device
            on_cpu = cpu.get(d)
            if on_cpu is None:
                on_cpu = cpu[d] = d.is_cpu
            if on_cpu:
                return fn(x, axis=axis, descending=descending, stable=stable,
                          kind="mergesort")
        return fn(x, axis=axis, descending=descending, stable=stable)

    return kernel


def _read_only(fn: Any) -> Any:
    """``fn`` (the provider's broadcast_to) with its view marked read-only, as NumPy's:
    a write into a broadcast view would land in the source and in every element that
    shares its address.  Views of it inherit the flag."""

    @functools.wraps(fn)
    def kernel(*args: Any, **kwargs: Any) -> Any:
        out = fn(*args, **kwargs)
        out.flags.writable = False
        return out

    return kernel


def _independent(fn: Any, pt: Any) -> Any:
    """``fn`` (the provider's meshgrid, which returns broadcast views) returning
    independent C-order arrays, as NumPy's meshgrid and the NumPy backend do."""

    @functools.wraps(fn)
    def kernel(*args: Any, **kwargs: Any) -> Any:
        return [pt.copy(m, order="C") for m in fn(*args, **kwargs)]

    return kernel


#: what a forked child may no longer call: every kernel and every member that reaches
#: the SYCL runtime (metadata such as shape, dtype and ``queue_of`` stays readable)
_RUNTIME_MEMBERS = (*KERNEL_NAMES, "default_queue", "accelerator_queue", "native_queue",
                    "native_stream", "devices", "device_name", "describe", "capabilities",
                    "wait", "device_attribute", "from_host", "chunk_from_host", "to_host",
                    "asarray",
                    "to_queue", "may_share_memory", "repr", "str", "dlpack", "from_dlpack",
                    "ctor_memory", "ctor_queue", "check_alloc", "ctor_make", "memory_object",
                    "buffer_of", "linalg", "fft", "gemm", "eig",
                    "take_checked", "index_out_of_range", "nan_at")

FORK_MESSAGE = (
    "this process was started by os.fork() from a process that had loaded the SYCL "
    "runtime, which cannot be used after a fork (its first call would hang); start "
    "worker processes with multiprocessing's 'spawn' or 'forkserver' start method "
    "(multiprocessing.get_context('spawn'), or concurrent.futures.ProcessPoolExecutor("
    "mp_context=...)); arrays on the 'numpy' device still work in this process"
)


def _forked(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError(f"usmarray (SYCL backend): {FORK_MESSAGE}")


def _after_fork_in_child(backend: Any) -> None:
    """os.register_at_fork hook: in a forked child every runtime
    member of the SYCL backend raises RuntimeError naming spawn/forkserver instead of
    hanging; the parent pays nothing (instance attributes shadow the methods)."""
    for name in _RUNTIME_MEMBERS:
        setattr(backend, name, _forked)
    reinit = getattr(backend.lock, "_at_fork_reinit", None)
    if reinit is not None:  # held by a thread of the parent: it would never be released
        reinit()
    backend.forked = True


_ARRAY_ATTRIBUTES = frozenset({
    "sycl_queue", "sycl_device", "sycl_context", "usm_data", "__sycl_usm_array_interface__",
})
_DEVICE_ATTRIBUTES: dict[str, Any] = {
    "sycl_queue": lambda q: q,
    "sycl_device": operator.attrgetter("sycl_device"),
    "sycl_context": operator.attrgetter("sycl_context"),
}


class SyclBackend(BackendBase):
    """Allocates USM memory and runs the provider's SYCL kernels on raw arrays.

    Kernel names (``KERNEL_NAMES``) are bound as instance attributes, so the
    namespace layer reaches a kernel with one attribute lookup.  Native devices
    are ``dpctl.SyclQueue`` objects.

    ``lock`` serializes usmarray's calls into the DPC++ runtime shipped with dpnp 0.20 /
    dpctl 0.22, which deadlocks under this interleaving: thread A, holding the GIL,
    submits a command group that enters the scheduler and waits for its write lock;
    thread B waits on an event under the scheduler's read lock; that event depends on
    one of the provider's host tasks, which needs the GIL to release Python objects
    (intel/llvm #22993 fixes the runtime side).  A thread blocked on this lock has
    released the GIL, so while calls are serialized the cycle cannot close.
    ``USMARRAY_SERIALIZE=0`` switches it off.
    """

    name = "sycl"
    kernel_family = "sycl"
    #: the provider's arg-reductions propagate NaN (any NaN wins), though not always the
    #: first one (tests/test_provider_workarounds.py checks both halves of that)
    nan_argmax = True
    usm_types = ("device", "shared", "host")
    #: arrays of one backend may still sit on different queues: compare them per call
    multi_queue = True
    dlpack_device_types = frozenset({_dlpack_import.KDL_ONEAPI})
    queue_of = staticmethod(operator.attrgetter("sycl_queue"))  # type: ignore[assignment]
    usm_type_of = staticmethod(operator.attrgetter("usm_type"))  # type: ignore[assignment]
    element_strides = staticmethod(operator.attrgetter("strides"))  # type: ignore[assignment]
    repr = staticmethod(builtins.repr)  # type: ignore[assignment]
    str = staticmethod(builtins.str)  # type: ignore[assignment]

    def __init__(self) -> None:
        pt = _resolve_provider()
        self.provider = pt
        self.provider_name = pt.__name__
        self.array_type = pt.usm_ndarray
        self.lock = threading.RLock() if SERIALIZE else None
        epe: Any = getattr(pt, "ExecutionPlacementError", None)
        if epe is None:  # dpctl.tensor keeps it in dpctl.utils
            import dpctl.utils

            epe = dpctl.utils.ExecutionPlacementError
        self.ExecutionPlacementError = epe
        for kname in KERNEL_NAMES:
            fn = getattr(pt, kname, None)
            if fn is not None and kname not in type(self).__dict__:  # methods here win
                if kname in LAYOUT_SENSITIVE:
                    fn = LAYOUT_SENSITIVE[kname](fn, pt)
                elif kname == "broadcast_to":
                    fn = _read_only(fn)
                elif kname == "meshgrid":
                    fn = _independent(fn, pt)
                elif kname in ("sort", "argsort"):
                    fn = _merge_sort_on_cpus(fn)
                elif kname in ELEMENTWISE_KERNELS:  # the provider's range: see ranged
                    fn = _ranged.elementwise(fn, pt)
                elif kname in REDUCTION_KERNELS:
                    fn = _ranged.reduction(kname, fn, pt)
                setattr(self, kname, _placed(fn) if kname in CREATION_KERNELS else fn)
        try:
            from dpctl.utils import get_coerced_usm_type
        except ImportError:  # pragma: no cover
            get_coerced_usm_type = pt.get_coerced_usm_type
        self.coerced_usm_type = get_coerced_usm_type  # type: ignore[method-assign]
        self._checked = _checked.Checked(pt, get_coerced_usm_type)
        self._default_queue: dpctl.SyclQueue | None = None
        self._caps: dict[Any, Capabilities] = {}
        _onemkl.bind_sycl(self)
        _dlpack_import.bind_sycl(self)
        #: True in a child forked from this process (see _after_fork_in_child)
        self.forked = False
        os.register_at_fork(after_in_child=functools.partial(_after_fork_in_child, self))

    # ---- checked gathers and probes (see checked.py) ---------------------------
    def take_checked(self, raw: Any, indices: Any, axis: int) -> tuple[Any, int | None] | None:
        return self._checked.take_checked(raw, indices, axis)

    def index_out_of_range(self, i: Any, n: int) -> bool | None:
        return self._checked.out_of_range(i, n)

    def nan_at(self, a: Any, axis: int, picked: Any) -> bool | None:
        return self._checked.nan_at(a, axis, picked)

    # ---- devices ---------------------------------------------------------
    #: set by the registry: the message for a device string no backend knows, which
    #: lists every backend's devices and why missing backends are missing
    unknown_device: Any = None
    _no_device_warned = False

    def available(self) -> bool:
        """Whether the runtime lists a device; the first time it lists none, a
        RuntimeWarning names the likely cause (usmarray then falls back to other
        backends, and ``python -m usmarray`` shows the same reason)."""
        try:
            found = bool(dpctl.get_devices())
        except Exception:  # pragma: no cover
            found = False
        if not found and not SyclBackend._no_device_warned:
            SyclBackend._no_device_warned = True
            warn_at_caller(f"usmarray: no SYCL device: {self.no_device_reason()}")
        return found

    def no_device_reason(self) -> builtins.str:
        """Why the SYCL runtime lists no device, as far as the environment tells."""
        icd = os.environ.get("OCL_ICD_FILENAMES")
        selector = os.environ.get("ONEAPI_DEVICE_SELECTOR")
        if icd and not all(os.path.isfile(p) for p in icd.split(":") if p):
            why = (f"OCL_ICD_FILENAMES={icd!r} names a file that does not exist; unset it "
                   "to use the pip-installed OpenCL CPU runtime (libintelocl.so)")
        elif icd:
            why = f"the OpenCL runtime OCL_ICD_FILENAMES={icd!r} names offers no device"
        elif selector:
            why = f"ONEAPI_DEVICE_SELECTOR={selector!r} selects no device"
        else:
            why = ("the SYCL runtime found no OpenCL or Level Zero platform (is "
                   "intel-opencl-rt installed in this environment?)")
        return why + "; arrays go to the other backends' devices (NumPy at the least)"

    def linspace(self, start: Any, stop: Any, num: int, dtype: Any = None, endpoint: bool = True,
                 usm_type: Any = None, queue: Any = None, sycl_queue: Any = None,
                 compute_dtype: Any = None) -> Any:
        """NumPy's values, computed in ``compute_dtype`` (see ramp.py)."""
        return _ramp.linspace(self.provider, start, stop, num, dtype, endpoint,
                              usm_type or "device", queue or sycl_queue, compute_dtype)

    def default_queue(self) -> dpctl.SyclQueue:
        if self._default_queue is None:
            self._default_queue = get_device_cached_queue(_cached_default_device())
        return self._default_queue

    def accelerator_queue(self) -> dpctl.SyclQueue | None:
        """The SYCL default device where it is a GPU, else the first GPU dpctl lists,
        else None (CPU devices and SYCL "accelerator" devices such as FPGA emulators are
        not accelerators here)."""
        gpus = [d for d in dpctl.get_devices() if d.is_gpu]
        if not gpus:
            return None
        q = self.default_queue()
        return q if q.sycl_device.is_gpu else get_device_cached_queue(gpus[0])

    def device_name(self, q: dpctl.SyclQueue) -> builtins.str:
        return builtins.str(q.sycl_device.name)

    def owns_native(self, obj: Any) -> bool:
        return isinstance(obj, (dpctl.SyclQueue, dpctl.SyclDevice))

    def native_queue(self, obj: Any) -> dpctl.SyclQueue:
        """A filter string, SyclDevice or SyclQueue as a SyclQueue (ValueError if none)."""
        if isinstance(obj, dpctl.SyclQueue):
            return obj
        if isinstance(obj, dpctl.SyclDevice):
            return get_device_cached_queue(obj)
        if isinstance(obj, builtins.str):
            try:
                return get_device_cached_queue(dpctl.SyclDevice(obj))
            except Exception as exc:
                if self.unknown_device is not None:
                    raise ValueError(self.unknown_device(obj, builtins.str(exc))) from None
                raise ValueError(
                    f"device filter string {obj!r} names no available SYCL device ({exc}); "
                    f"available: {[d.filter_string for d in dpctl.get_devices()]}"
                ) from None
        raise TypeError(
            f"cannot make a SYCL device from {type(obj).__name__}; pass a filter string "
            "such as 'cpu' or 'opencl:cpu:0', a dpctl.SyclDevice, a dpctl.SyclQueue or a "
            "usmarray.Device"
        )

    def native_stream(self, stream: Any) -> dpctl.SyclQueue:
        if not isinstance(stream, dpctl.SyclQueue):
            raise TypeError(
                f"to_device: stream must be None or a dpctl.SyclQueue, got {type(stream).__name__}"
            )
        return stream

    def devices(self) -> list[dpctl.SyclQueue]:
        return [get_device_cached_queue(d) for d in dpctl.get_devices()]

    def in_order_queues(self, obj: Any, parts: int = 0) -> list[dpctl.SyclQueue]:
        """New in-order queues (optional protocol method, used by usmarray.cubed's placement):
        one on the device ``obj`` names (``parts=0``), or one on each of ``parts``
        sub-devices of equal compute units; ValueError when the device has fewer compute
        units than ``parts``."""
        dev = self.native_queue(obj).sycl_device
        if parts == 0:
            return [dpctl.SyclQueue(dev, property="in_order")]
        cu = dev.max_compute_units
        if parts > cu:
            raise ValueError(
                f"{dev.name} has {cu} compute units, so at most {cu} sub-devices, not {parts}"
            )
        subs = dev.create_sub_devices(partition=[cu // parts] * parts) if cu > 1 else [dev]
        return [dpctl.SyclQueue(d, property="in_order") for d in subs]

    def describe(self, q: dpctl.SyclQueue) -> builtins.str:
        d = q.sycl_device
        if d.parent_device is None:
            return d.filter_string
        return f"sub-device of {d.parent_device.filter_string}: {d.name}"

    def capabilities(self, q: dpctl.SyclQueue) -> Capabilities:
        caps = self._caps.get(q)
        if caps is None:
            d = q.sycl_device
            caps = self._caps[q] = Capabilities(fp64=d.has_aspect_fp64, fp16=d.has_aspect_fp16)
        return caps

    def wait(self, q: dpctl.SyclQueue) -> None:
        q.wait()

    def device_attribute(self, q: Any, name: builtins.str) -> Any:
        get = _DEVICE_ATTRIBUTES.get(name)
        if get is None:
            return super().device_attribute(q, name)
        return get(q)

    def placement_error_bases(self) -> tuple[type[BaseException], ...]:
        return (self.ExecutionPlacementError,)

    # ---- memory ------------------------------------------------------------
    alloc_errors: tuple[type[BaseException], ...] = (dpmem.USMAllocationError,)

    @staticmethod
    def memory_error(nbytes: int, q: Any) -> MemoryError:
        d = q.sycl_device
        return MemoryError(
            f"could not allocate {nbytes} bytes of USM memory on {d.filter_string} "
            f"({d.name}, {d.global_mem_size} bytes of global memory)"
        )

    def full(self, shape: Any, fill_value: Any, dtype: Any = None, queue: Any = None,
             **kw: Any) -> Any:
        """The provider's full, except for Python ints beyond int64, which the legacy
        dpctl.tensor rounds through float64: those are filled from an exact host value."""
        if type(fill_value) is int and fill_value > _INT64_MAX and dtype is not None:
            out = self.provider.empty(shape, dtype=dtype, sycl_queue=queue, **kw)
            out[...] = self.provider.asarray(
                np.asarray(fill_value, dtype=dtype), sycl_queue=queue, **kw
            )
            return out
        return self.provider.full(shape, fill_value, dtype=dtype, sycl_queue=queue, **kw)

    def from_host(self, a: np.ndarray, usm_type: builtins.str, q: Any) -> Any:
        try:
            return self.provider.asarray(a, usm_type=usm_type, sycl_queue=q)
        except self.alloc_errors as exc:
            raise self.memory_error(a.nbytes, q) from exc

    def chunk_from_host(self, a: np.ndarray, usm_type: builtins.str, q: Any,
                        idle_limit: int) -> Any:
        """``from_host`` for a stream of chunks of one size (cubed's Zarr reads): the
        copy lands in a block of a dead chunk of the same size where one is free, so
        it writes touched pages; ``idle_limit`` bounds the bytes of free blocks kept
        (see chunk_pool.py for the contract).  Memory that is not pooled: ``from_host``."""
        pool = self.__dict__.get("_chunk_pool")
        if pool is None:
            from .chunk_pool import ChunkPool

            pool = self.__dict__.setdefault("_chunk_pool", ChunkPool())
        try:
            out = pool.from_host(self.provider, a, usm_type, q, idle_limit, advise_huge_pages)
        except self.alloc_errors as exc:
            raise self.memory_error(a.nbytes, q) from exc
        return self.from_host(a, usm_type, q) if out is None else out

    def reshape(self, a: Any, shape: Any, copy: Any = None, order: Any = "C") -> Any:
        """The provider's ``reshape``; a C-contiguous array reshaped in C order to a
        shape of its size (one -1 resolved here) becomes a view at once, where the
        provider spends ~20 µs in Python stride arithmetic."""
        if order == "C" and copy is not True and type(shape) is tuple and a.flags.c_contiguous:
            n, size = _prod(shape), a.size
            if n < 0 and shape.count(-1) == 1 and min(shape) == -1 and size % n == 0:
                i = shape.index(-1)  # n is minus the product of the other entries
                shape, n = shape[:i] + (size // -n,) + shape[i + 1:], size
            if n == size and (not shape or min(shape) >= 0):
                return self.array_type(shape, dtype=a.dtype, buffer=a, offset=a._element_offset)
        return self.provider.reshape(a, shape, copy=copy, order=order)

    def to_host(self, raw: Any) -> np.ndarray:
        """A NumPy copy of ``raw`` read from the elements it addresses, never from the
        rest of its allocation.  Host-accessible memory is copied by NumPy once the queue
        is idle (a compact copy); a view with elements addressed twice (a broadcast) and
        other memory get a copy of its span, viewed with its strides."""
        if raw.size == 0:
            return np.empty(raw.shape, dtype=raw.dtype)
        q = raw.sycl_queue
        on_host = host_accessible(raw)
        if on_host:
            q.wait()
            flags = raw.flags
            if flags.c_contiguous or flags.f_contiguous:
                return np.asarray(_HostView(raw)).copy(order="K")
        start, count = _span(raw)
        if on_host and raw.size <= count:
            return np.array(np.asarray(_HostView(raw)), copy=True)
        itemsize = raw.itemsize
        part = self.provider.usm_ndarray(
            (count,), dtype=raw.dtype, buffer=raw.usm_data, offset=start
        )
        host = np.empty(count, dtype=raw.dtype)
        if on_host:
            np.copyto(host, np.asarray(_HostView(part)))
        else:
            q.wait()
            q.memcpy(host, dpmem.as_usm_memory(part), count * itemsize)
        return np.ndarray(
            raw.shape, dtype=raw.dtype, buffer=host,
            offset=(raw._element_offset - start) * itemsize,
            strides=tuple(s * itemsize for s in raw.strides),
        )

    host_accessible = staticmethod(host_accessible)

    @staticmethod
    def scalar(raw: Any) -> Any:
        """The raw 0-D array itself: its own conversions wait for its queue."""
        return raw

    def asarray(self, obj: Any, *, dtype: Any = None, copy: Any = None, usm_type: Any = None,
                queue: Any = None) -> Any:
        """The provider's asarray on ``queue``; a raw array of another queue first moves
        there: zero-copy in the same context, else one copy (ValueError if ``copy=False``)."""
        if isinstance(obj, self.array_type) and queue is not None and obj.sycl_queue != queue:
            if obj.sycl_context == queue.sycl_context:
                obj = self.to_queue(obj, queue)  # a view, ordered after obj's queue
            elif copy is False:
                raise ValueError(
                    f"asarray: copy=False, but the array's memory belongs to another SYCL "
                    f"context than the target {self.describe(queue)}; that needs a copy"
                )
            else:
                obj, copy = self.to_queue(obj, queue), None
            queue = None
        return self.provider.asarray(
            obj, dtype=dtype, copy=copy, usm_type=usm_type, sycl_queue=queue
        )

    @staticmethod
    def as_array(r: Any) -> Any:
        return r

    @staticmethod
    def may_share_memory(a: Any, b: Any) -> bool:
        """Whether two raw arrays view one USM allocation."""
        return bool(a.usm_data._pointer == b.usm_data._pointer)

    def memory_object(self, obj: Any) -> bool:
        """Whether the constructor views ``obj``: a ``dpctl.memory.MemoryUSM*`` object or
        a raw provider array."""
        return isinstance(obj, (dpmem.MemoryUSMDevice, dpmem.MemoryUSMShared, dpmem.MemoryUSMHost,
                                self.array_type))

    # the usm_ndarray constructor's hooks (usmarray/_backend/_construct.py)
    def ctor_memory(self, obj: Any) -> tuple[Any, int, Any] | None:
        return _construct.ctor_memory(self, obj)

    def ctor_queue(self, q: Any) -> Any:
        return _construct.ctor_queue(self, q)

    def check_alloc(self, nbytes: int, usm_type: builtins.str, q: Any) -> None:
        _construct.check_alloc(self, nbytes, usm_type, q)

    def ctor_make(self, *args: Any) -> Any:
        return _construct.ctor_make(self, *args)

    def buffer_of(self, raw: Any) -> Any:
        """The memory object a ``usm_ndarray(buffer=x)`` shares."""
        return raw.usm_data

    def array_attribute(self, raw: Any, name: builtins.str) -> Any:
        if name in _ARRAY_ATTRIBUTES:
            return getattr(raw, name)
        if name == "__usm_ndarray__":
            return raw[...]
        return super().array_attribute(raw, name)

    def to_queue(self, raw: Any, q: Any, stream: Any = None) -> Any:
        """Same context: zero-copy view on ``q``, whose later work waits for the work
        already submitted to ``raw``'s queue (the provider's view does not order the
        two queues: a read on ``q`` could see memory that a kernel on the source queue
        had not written yet).  Across contexts: one host-side copy when both
        allocations are host-accessible (any USM kind on a CPU device), else the
        provider's copy through host memory."""
        if raw.sycl_context == q.sycl_context or stream is not None:
            src = raw.sycl_queue
            if stream is None and src != q:
                # a barrier on the source queue ends after its pending work; one on q
                # that depends on it holds q's later work back: no host wait
                q.submit_barrier([src.submit_barrier()])
            return raw.to_device(q, stream=stream)
        try:
            if not (raw.sycl_device.is_cpu and q.sycl_device.is_cpu):
                return raw.to_device(q)
            out = self.provider.empty(
                raw.shape, dtype=raw.dtype, usm_type=raw.usm_type, sycl_queue=q
            )
        except self.alloc_errors as exc:
            raise self.memory_error(raw.size * raw.itemsize, q) from exc
        advise_huge_pages(out)
        raw.sycl_queue.wait()
        np.copyto(np.asarray(_HostView(out)), np.asarray(_HostView(raw)))
        return out

    # ---- interchange ----------------------------------------------------------
    @staticmethod
    def dlpack_device(raw: Any) -> tuple[int, int]:
        return raw.__dlpack_device__()

    def dlpack(self, raw: Any, stream: Any, max_version: Any, dl_device: Any, copy: Any) -> Any:
        return export(raw, self, stream, max_version, dl_device, copy)

    def foreign(self, obj: Any) -> tuple[Any, Any] | None:
        """A zero-copy view of a foreign SYCL array: a ``__sycl_usm_array_interface__``
        (validated: see ``suai``) or a dpnp/dpctl array, with its queue."""
        iface = _suai.foreign_interface(obj, self.array_type)
        if iface is not None:
            raw = _suai.import_view(obj, iface, self)
            return raw, raw.sycl_queue
        inner = obj if isinstance(obj, self.array_type) else getattr(obj, "__usm_ndarray__", None)
        if isinstance(inner, self.array_type):
            _suai.check_memory(inner.usm_data, f"asarray: the {type(obj).__name__}'s memory object")
            return inner, inner.sycl_queue
        return None

    def from_dlpack(self, x: Any, dev: tuple[int, int], q: Any, copy: Any) -> Any:
        """A kDLOneAPI producer's data: on its import queue (``q`` None), else on ``q``
        (zero-copy where ``q`` shares the import queue's device and context)."""
        if q is None:
            return _dlpack_import.import_dlpack(x, dev=dev, copy=copy)
        home = _dlpack_import.import_queue(dev[1])
        if q is home or q.sycl_device == home.sycl_device and q.sycl_context == home.sycl_context:
            return _dlpack_import.import_dlpack(x, dev=dev, copy=copy, stream=q).to_device(q)
        if copy is False:
            raise BufferError(
                f"from_dlpack: copy=False, but the producer's data lives on "
                f"{home.sycl_device.filter_string} (default context), not on the target "
                f"{self.describe(q)}"
            )
        raw = _dlpack_import.import_dlpack(x, dev=dev)
        if q.sycl_device == home.sycl_device:
            return self.to_queue(raw, q)
        return self.from_host(self.to_host(raw), raw.usm_type, q)

    # ---- linear algebra and FFT: oneMKL through dpnp (see onemkl) --------------
    @staticmethod
    def linalg(fname: builtins.str, *raws: Any, **kw: Any) -> Any:
        return _onemkl.linalg(fname, *raws, **kw)

    @staticmethod
    def fft(fname: builtins.str, raw: Any, **kw: Any) -> Any:
        return _onemkl.fft(fname, raw, **kw)

    @staticmethod
    def gemm(fname: builtins.str, a1: Any, a2: Any, **kw: Any) -> Any:
        return _onemkl.gemm(fname, a1, a2, **kw)

    @staticmethod
    def eig(raw: Any, vectors: bool) -> Any:
        return _onemkl.eig(raw, vectors)
