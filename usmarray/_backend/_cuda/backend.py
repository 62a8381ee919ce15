"""The CUDA backend: CuPy arrays (``cupy.ndarray``) as raw arrays, on NVIDIA GPUs.

Queues.  A :class:`CudaQueue` pairs a CUDA device id with a CuPy stream; two are
equal when their streams are.  The default queue of a device is CuPy's null stream
on it.  Filter strings ``"cuda"`` / ``"cuda:N"``, ``cupy.cuda.Device`` and
``cupy.cuda.Stream`` objects name queues.

Memory (``usm_type``).  "device": CuPy's memory pool; "shared": managed memory
(``cudaMallocManaged``, host-accessible) from a pool of the backend's own, so freed
blocks are reused without a ``cudaFree`` (which waits for the whole device) and their
pages stay on the GPU that last touched them; "host": pinned host memory mapped into
the device's address space (``cudaHostAlloc``; kernels read it over the bus).  A raw
array's memory object tells its kind and queue at the cost of one attribute read:
plain pool memory is "device" memory on the default queue (the fast path); everything
else (managed memory, another stream, pinned host memory, imported memory) is an
``UnownedMemory`` whose owner is a :class:`~.interop.Placed` naming its queue and
kind (a ``ManagedMemory`` made elsewhere counts as "shared" too).

Kernels.  Every name of ``KERNEL_NAMES`` with the array API's calling convention
(built from CuPy by :mod:`._ndlike`), where usmarray's own kernels do not take the
call: elementwise calls, ``copy``, ``astype`` and ``full`` run on the elementwise
engine (:mod:`.elementwise`), reductions, sorts, joins and others on
:mod:`.kernels`.  Operands of plain device memory on the default queue call a kernel
directly; anything else runs on the operands' queue (device and stream) with results
allocated in the coerced memory kind (device > shared > host).

Managed memory is never requested beyond the GPU's free memory, and no request of
any kind beyond its total memory: both raise MemoryError naming the size first.
"""

from __future__ import annotations

import builtins
import contextlib
import math
import operator
import os
from collections.abc import Iterator
from functools import cache
from typing import Any

import cupy
import numpy as np
from cupy.cuda import memory as _mem
from cupy.cuda import runtime as _rt

from .. import _construct
from .._layout import INDEX_LIMIT
from .._ndlike import kernels as _ndlike_kernels
from .._protocol import BackendBase, Capabilities, LinAlgError
from . import interop as _io
from . import solver as _solver
from .elementwise import ElementwiseEngine
from .kernels import triangle as _triangle
from .kernels._launch import stream_ptr
from .kernels.broadcast import RowBroadcast
from .kernels.compact import Compactions
from .kernels.element import ElementStore
from .kernels.gather import Gathers
from .kernels.join import Joins
from .kernels.ramp import Ramps
from .kernels.reduce import NAMESPACE_OPS as REDUCTION_OPS
from .kernels.reduce import Reductions
from .kernels.scan import Scans
from .kernels.search import Searches
from .kernels.sort import Sorts
from .kernels.unique import Uniques
from .layout import CANONICAL_NAN_BODIES, FILL_BODY, convert_body
from .spare import SpareOutputs, plain_out

_nd = cupy.ndarray
_Unowned = _mem.UnownedMemory
_Managed = _mem.ManagedMemory
_Placed = _io.Placed
#: memory types of CuPy's device allocators (pool, plain, stream-ordered)
_DEVICE_MEMORY = frozenset({_mem.PooledMemory, _mem.Memory, _mem.MemoryAsync})
#: memory objects that are a whole allocation of one queue's default stream
_PLAIN = _DEVICE_MEMORY | {_Managed}
_HOST_MEMORY = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")

#: CuPy arrays have no read-only flag.  A read-only array (a broadcast view, a read-only
#: import) is a view over memory whose owner is a ``Placed`` with ``read_only`` set, so
#: every view of it, by any path, shares that memory object and is read-only too, as
#: NumPy's views inherit their base's flag; copies are writable.


def _aliases(raw: Any) -> bool:
    """Whether elements of ``raw`` share an address (a stride 0 on an axis of 2 or more;
    an empty array has none, whatever strides CuPy gave it)."""
    return raw.size > 1 and any(
        s == 0 and n > 1 for n, s in zip(raw.shape, raw.strides, strict=True))


def _view_of(raw: Any, owner: Any) -> Any:
    """A view of ``raw``'s elements over memory held by ``owner`` (a ``Placed``)."""
    return _io.view(raw.data.ptr if raw.size else 0, raw.shape, raw.dtype, raw.strides,
                    owner, owner.queue.device_id)


def _zeroed(shape: tuple, d: np.dtype) -> Any:
    """A new C-order array of zero bits: CuPy's allocation and one memset."""
    out = _nd(shape, d)
    if out.size:
        out.data.memset_async(0, out.nbytes)
    return out


def _marked(raw: Any) -> bool:
    m = raw.data.mem
    return m.__class__ is _Unowned and m._owner.__class__ is _Placed and m._owner.read_only


@cache
def _enable_peer_access(dst: int, src: int) -> None:
    """Let GPU ``dst`` reach ``src``'s memory directly (NVLink or PCIe peer-to-peer), once
    per pair; without it a peer copy is staged by the driver through the host."""
    with cupy.cuda.Device(dst):
        try:
            _rt.deviceEnablePeerAccess(src)
        except _rt.CUDARuntimeError as exc:  # already enabled (by CuPy or the user)
            if "PeerAccessAlreadyEnabled" not in str(exc):
                raise


class CudaQueue:
    """A CUDA device and a CuPy stream on it; equal (and hashed) by the stream."""

    __slots__ = ("device_id", "stream", "_key")

    def __init__(self, device_id: int, stream: Any) -> None:
        self.device_id = device_id
        self.stream = stream
        self._key = (device_id, stream.ptr)

    @property
    def is_default(self) -> bool:
        return self._key[1] == 0

    def __eq__(self, other: object) -> bool:
        return self is other or (type(other) is CudaQueue and self._key == other._key)

    def __hash__(self) -> int:
        return hash(self._key)

    def wait(self) -> None:
        """Block until all work submitted to this queue's stream has finished."""
        with cupy.cuda.Device(self.device_id):
            self.stream.synchronize()

    def __repr__(self) -> str:
        s = "" if self.is_default else f", stream={self.stream.ptr:#x}"
        return f"CudaQueue(cuda:{self.device_id}{s})"


class _PinnedHost:
    """Pinned host memory mapped into every device's address space; freed when
    collected (``cudaFreeHost`` waits for the work that uses it)."""

    __slots__ = ("ptr",)

    def __init__(self, size: int) -> None:
        try:
            self.ptr = _rt.hostAlloc(max(size, 1), _rt.hostAllocMapped | _rt.hostAllocPortable)
        except _rt.CUDARuntimeError as exc:
            raise MemoryError(f"could not allocate {size} bytes of pinned host memory "
                              f"({exc})") from None

    def __del__(self) -> None:
        ptr, self.ptr = getattr(self, "ptr", 0), 0
        if ptr:
            try:
                _rt.freeHost(ptr)
            except Exception:  # noqa: BLE001 - at interpreter exit the runtime may be gone
                pass


def _flat_arrays(args: tuple, kw: dict) -> Iterator[Any]:
    for a in (*args, *kw.values()):
        if a.__class__ is _nd:
            yield a
        elif isinstance(a, (list, tuple)):
            yield from (b for b in a if b.__class__ is _nd)


def _without_negative_strides(matmul: Any) -> Any:
    """CuPy's ``matmul`` with C-ordered copies of operands that have a negative stride
    (a flipped view): CuPy computes a stack's matrix addresses in uint64, which NumPy 2
    refuses for a negative step (OverflowError)."""
    def call(a: Any, b: Any, *args: Any, **kw: Any) -> Any:
        if any(st < 0 for st in a.strides):
            a = a.copy()
        if any(st < 0 for st in b.strides):
            b = b.copy()
        return matmul(a, b, *args, **kw)

    call.__name__ = "matmul"
    return call


class CudaBackend(BackendBase):
    """Memory and kernels on NVIDIA GPUs through CuPy (see the module docstring)."""

    name = "cuda"
    usm_types = ("device", "shared", "host")
    array_type = cupy.ndarray
    multi_queue = True
    provider_name = f"cupy {cupy.__version__}"
    alloc_errors: tuple[type[BaseException], ...] = (_mem.OutOfMemoryError,)
    dlpack_device_types = _io.DEVICE_TYPES
    #: argmax/argmin of every layout and queue are usmarray's reduction, which returns
    #: the first NaN (CuPy's own misses it along an axis: tests/test_cuda.py)
    first_nan_argmax = True
    #: cuSOLVER's direct routines and cupy.linalg copy what they overwrite
    lapack_keeps_operands = True
    #: the direct routines take R's triangle, and so does the fallback (linalg.py)
    qr_triangular = True

    def lapack_scales(self, fname: builtins.str, raw: Any) -> bool:
        return fname == "svd" and raw.dtype in _solver.REAL and _solver.on_host("svd", raw)

    def unique_nans_apart(self, raw: Any) -> bool:
        """The sorted unique family (kernels/unique.py) gives every NaN its own run."""
        return raw.dtype.kind == "f" and self.uniques.sorts(raw)
    # kernels bound per instance in __init__ (every name of KERNEL_NAMES, copy, ...)
    copy: Any
    astype: Any
    reshape: Any
    multiply: Any

    def __init__(self) -> None:
        try:
            self._ndev = _rt.getDeviceCount()
        except _rt.CUDARuntimeError as exc:  # no driver, or one too old for this CuPy
            raise ImportError(f"no usable CUDA driver: {exc}") from None
        if self._ndev < 1:
            raise ImportError("no CUDA device")
        self._defaults = [CudaQueue(i, cupy.cuda.Stream.null) for i in range(self._ndev)]
        self._props: dict[int, dict] = {}
        self._total: dict[int, int] = {}
        self._allocators: dict[tuple, Any] = {}
        #: usm_type="shared" memory, pooled (see _allocator)
        self._managed = cupy.cuda.MemoryPool(self._grow_managed)
        single = self._ndev == 1
        self._single = single
        device_memory = _DEVICE_MEMORY

        if single:
            def is_fast(raw: Any) -> bool:
                return raw.data.mem.__class__ in device_memory
        else:
            get_device = _rt.getDevice

            def is_fast(raw: Any) -> bool:
                m = raw.data.mem
                return m.__class__ in device_memory and m.device_id == get_device()

        self._is_fast = is_fast
        self.spare = SpareOutputs(single)
        new_out = self.spare.new_out
        self.engine = ElementwiseEngine(not single)
        self.elementwise_engine = self.engine.available
        self.reductions = Reductions(is_fast, single, new_out)
        c_order_copy = self.c_order_copy
        ks = _ndlike_kernels(
            cupy, host_repeats=True, fast_mean=True, signed_nans=True,
            canonical_nans=self._canonical_nans, c_order_copy=c_order_copy)
        for kname in ("argmax", "argmin"):
            ks[kname] = self.reductions.wrap_arg(kname, c_order_copy, ks[kname])
        ks["matmul"] = _without_negative_strides(ks["matmul"])
        for kname, fn in ks.items():
            ks[kname] = self._placed(fn)
        default_queue = self._defaults[0]

        def readable(raw: Any) -> bool:
            """Plain device memory, or a read-only view of it (a broadcast view) on the
            default queue of the current device: memory a kernel may read."""
            if is_fast(raw):
                return True
            o = raw.data.mem._owner if single and _marked(raw) else None
            return o is not None and o.queue == default_queue and o.usm_type == "device"

        self.row_broadcast = RowBroadcast(is_fast, single, readable)
        self._convert_run = self._convert_call()
        ks["copy"] = self._engine_copy(ks["copy"])
        placed_reshape = ks["reshape"]

        def reshape(a: Any, shape: Any, copy: Any = None, order: Any = "C") -> Any:
            """A C-contiguous array's reshape is a view: no memory, no queue to place."""
            if copy is None and order == "C" and a.__class__ is _nd and a._c_contiguous:
                return a.reshape(shape)
            return placed_reshape(a, shape, copy=copy, order=order)

        ks["reshape"] = reshape
        # a view: no kernel to place, and the method, not CuPy's two Python wrappers
        ks["permute_dims"] = _nd.transpose
        ks["tile"] = self.row_broadcast.wrap_tile(ks["tile"])
        ks["repeat"] = self.row_broadcast.wrap_repeat(ks["repeat"])
        ks["roll"] = self.row_broadcast.wrap_roll(ks["roll"])
        ks["astype"] = self._engine_astype(ks["astype"])
        self.ramps = Ramps(is_fast, single)
        self.joins = Joins(is_fast, single, new_out)
        self.gathers = Gathers(is_fast, single)
        self.compactions = Compactions(is_fast, single)
        self.sorts = Sorts(is_fast, single)
        for kname in ("sort", "argsort"):
            ks[kname] = self.sorts.wrap(kname, ks[kname])
        ks["nonzero"] = self.compactions.wrap_nonzero(ks["nonzero"])
        self.elements = ElementStore(is_fast, single)
        #: ``elements.store``, compiled where it can be
        self._store = self.engine.compiled_store(self.elements.store, self.elements.kernels,
                                                 device_memory)
        self.searches = Searches(is_fast, single)
        ks["searchsorted"] = self.searches.wrap(ks["searchsorted"])
        # placed: the sort takes every memory kind on its queue's device and stream
        self.uniques = Uniques(is_fast, single, self.compactions, c_order_copy)
        for kname in ("unique_all", "unique_counts", "unique_inverse", "unique_values"):
            ks[kname] = self._placed(self.uniques.wrap(kname, ks[kname]))
        for kname in ("tril", "triu"):
            ks[kname] = _triangle.wrap(kname, is_fast, not single, ks[kname])
        ks["concat"] = self.joins.wrap_concat(ks["concat"])
        ks["stack"] = self.joins.wrap_stack(ks["stack"])
        self.scans = Scans(is_fast, single)
        for kname in ("cumulative_sum", "cumulative_prod"):
            ks[kname] = self.scans.wrap(kname, ks[kname])
        for kname in REDUCTION_OPS:
            ks[kname] = self.reductions.wrap(kname, ks[kname])
        broadcast_to = ks["broadcast_to"]
        ks["broadcast_to"] = lambda *a, **k: self.read_only_view(broadcast_to(*a, **k))
        for kname, fn in ks.items():
            setattr(self, kname, fn)
        from .linalg import CupyLinalgKernels

        self.linalg_kernels = CupyLinalgKernels(self)

    # ---- the elementwise engine -----------------------------------------------------
    def elementwise(self, sig: Any, body: builtins.str, names: list[builtins.str],
                    arrays: list[Any], consts: list[tuple[Any, Any]],
                    out_dtype: Any, c_order: bool = False) -> Any:
        is_fast = self._is_fast
        fast = True
        for a in arrays:
            if a.__class__ is not _nd:
                return None
            if fast and not is_fast(a):
                fast = False
        if fast:  # a result on the default queue: a spare one where one is free
            return self.engine.run(sig, body, names, arrays, consts, out_dtype,
                                   self.spare.new_out, c_order=c_order)
        return self._slow(self.engine.run, (sig, body, names, arrays, consts, out_dtype,
                                            plain_out), {"c_order": c_order})

    def compiled_elementwise(self, name: builtins.str, binary: bool, slow: Any,
                             bodies: dict, stats: dict) -> Any:
        if not (self._single and self.spare.on):  # the compiled call is one GPU's
            return slow
        return self.engine.compiled_call(name, self.kernel_family, binary, slow, bodies,
                                         stats, _DEVICE_MEMORY, self.spare.new_out)

    def compiled_engine(self, slow: Any, bodies: dict, stats: dict) -> Any:
        call = self.compiled_elementwise("", False, slow, bodies, stats)
        return slow if call is slow else call.run

    def c_order_copy(self, raw: Any) -> Any:
        return self.convert(raw, raw.dtype, c_order=True)

    def convert(self, raw: Any, d: np.dtype, c_order: bool = False) -> Any:
        """``raw`` converted to dtype ``d`` (copied where ``d`` is its own) on the engine,
        a new array on ``raw``'s queue in ``raw``'s memory order (``c_order``: in C
        order); None where the engine does not take it (a complex dtype, a layout its
        loops refuse, the engine off).  A repeated conversion launches in the engine's
        compiled form where there is one."""
        s = raw.dtype
        if not self.elementwise_engine or s.kind not in "biuf" or d.kind not in "biuf":
            return None
        return self._convert_run(("convert", s.char, d.char, c_order), (raw,), ())

    def _convert_call(self) -> Any:
        """``run(sig, arrays, scalars)`` of :meth:`convert`'s signatures: the compiled
        engine's, which takes a repeated call, where there is one; the Python form
        (which records each signature's body for it) takes the others."""
        bodies: dict[tuple, tuple] = {}

        def slow(sig: tuple, arrays: Any, scalars: Any) -> Any:
            _, s, d, c_order = sig
            e = bodies.get(sig)
            if e is None:
                e = bodies[sig] = (convert_body(np.dtype(s), np.dtype(d)), ["a0"], (),
                                   np.dtype(d))
            return self.elementwise(sig, e[0], e[1], list(arrays), [], e[3], c_order)

        return self.compiled_engine(slow, bodies, {"launched": 0})

    def scaled(self, raw: Any, factor: float) -> Any:
        """``raw * factor`` for a real floating ``raw``, the factor rounded to ``raw``'s
        dtype first (NumPy's rule for a Python float), as a new array: on the engine,
        else by ``multiply``."""
        d = raw.dtype
        if self.elementwise_engine and d.kind == "f":
            out = self.elementwise(("scaled", d.char), "z = a0 * s0", ["a0"], [raw],
                                   [(d.type(factor), d)], d)
            if out is not None:
                return out
        return self.multiply(raw, factor)

    def _engine_copy(self, fallback: Any) -> Any:
        """``copy(a, order="K")``: on the engine, in ``a``'s own layout where it is C- or
        F-contiguous (a real or bool dtype; the engine's vector copy outruns the driver's
        copy where the array fits the L2 cache and matches it above); one driver copy of
        the bytes of a contiguous array of another dtype; a broadcast view of rows as
        rows of its tail; else ``fallback``."""
        rows = self.row_broadcast.copy_rows
        convert = self.convert
        is_fast = self._is_fast
        new_out = self.spare.new_out
        d2d = _rt.memcpyDeviceToDevice

        def copy(a: Any, order: Any = "K") -> Any:
            if a.__class__ is _nd and order == "K":
                c = a._c_contiguous
                if (c or a._f_contiguous) and a.size and is_fast(a):
                    out = convert(a, a.dtype)
                    if out is not None:
                        return out
                    s = stream_ptr()
                    out = new_out(a.shape if c else a.shape[::-1], a.dtype, a.size, s)
                    _rt.memcpyAsync(out.data.ptr, a.data.ptr, a.nbytes, d2d, s)
                    return out if c else out.T
                out = None if c else rows(a)
                if out is None:
                    out = convert(a, a.dtype)
                if out is not None:
                    return out
            return fallback(a, order=order)

        return copy

    def _engine_astype(self, fallback: Any) -> Any:
        """``astype(a, dtype, copy=True)`` on the engine, else ``fallback``."""
        convert = self.convert

        def astype(a: Any, dtype: Any, copy: bool = True, **kw: Any) -> Any:
            if a.__class__ is _nd and not kw:
                d = np.dtype(dtype)
                if d == a.dtype and not copy:
                    return a
                out = convert(a, d)
                if out is not None:
                    return out
            return fallback(a, dtype, copy=copy, **kw)

        return astype

    def _canonical_nans(self, fallback: Any) -> Any:
        """A C-order copy of a float array with every NaN the canonical one (sort keys,
        sorted in place), on the engine, else ``fallback``."""
        def canonical_nans(a: Any) -> Any:
            body = CANONICAL_NAN_BODIES.get(a.dtype)
            if body is not None and self.elementwise_engine:
                out = self.elementwise(("canonical_nans", a.dtype.char), body, ["a0"], [a],
                                       [], a.dtype, c_order=True)
                if out is not None:
                    return out
            return fallback(a)

        return canonical_nans

    def _fill(self, shape: tuple, value: Any, d: np.dtype, order: Any = "C") -> Any:
        """The Python scalar ``value`` in a new array in ``order`` under the current
        placement: a memset of zero bits, else the engine's store (CuPy's fill flushes
        float32 subnormals); None where neither applies."""
        if order == "F" and len(shape) > 1:
            out = self._fill(shape[::-1], value, d)
            return None if out is None else out.T
        try:
            v = d.type(value)
        except OverflowError:
            return None
        if not any(v.tobytes()):
            return _zeroed(shape, d)
        if not self.elementwise_engine or d.kind not in "biufc":
            return None
        if d.kind == "c":
            return self._fill_complex(shape, v)
        return self.engine.run(("fill", d.char), FILL_BODY, [], [], [(v, d)], d, plain_out,
                               shape)

    def _fill_complex(self, shape: tuple, v: Any) -> Any:
        """The complex scalar ``v`` in a new C-order array, moved as the 64-bit words of
        its bits (a store of integers, which no mode flushes): one word for complex64,
        the two words broadcast over a trailing axis for complex128."""
        words = np.frombuffer(v.tobytes(), dtype=np.uint64)
        u = words.dtype
        if words.size == 1:
            return self.engine.run(("fill", u.char), FILL_BODY, [], [], [(words[0], u)], u,
                                   plain_out, shape).view(v.dtype)
        pair = cupy.asarray(words)  # a copy of 16 bytes to the device, no kernel
        out = self.convert(cupy.broadcast_to(pair, (*shape, 2)), u, c_order=True)
        return out.view(v.dtype).reshape(shape)

    # ---- placement ------------------------------------------------------------------
    def _placed(self, fn: Any) -> Any:
        """``fn`` run on its operands' queue with results in their coerced memory kind;
        plain device memory on the default queue calls ``fn`` directly."""
        is_fast = self._is_fast
        slow = self._slow

        def kernel(*args: Any, **kw: Any) -> Any:
            a = args[0] if args else None
            if a.__class__ is not _nd and isinstance(a, (list, tuple)) and a:
                a = a[0]
            if a.__class__ is _nd and is_fast(a):
                return fn(*args, **kw)
            return slow(fn, args, kw)

        kernel.__name__ = getattr(fn, "__name__", "kernel")
        kernel.__wrapped__ = fn  # type: ignore[attr-defined]
        return kernel

    def _slow(self, fn: Any, args: tuple, kw: dict) -> Any:
        arrays = list(_flat_arrays(args, kw))
        q = self.queue_of(arrays[0]) if arrays else self.default_queue()
        # no arrays: "device" (the coerced kind of none)
        with self.placement(q, self.coerced_usm_type([self.usm_type_of(x) for x in arrays])):
            return fn(*args, **kw)

    @contextlib.contextmanager
    def placement(self, q: CudaQueue, usm_type: str) -> Iterator[None]:
        """Run the block on ``q``'s device and stream, allocating ``usm_type`` memory
        placed on ``q``."""
        alloc = self._allocator(q, usm_type)
        with cupy.cuda.Device(q.device_id), q.stream:
            if alloc is None:
                yield
            else:
                with cupy.cuda.using_allocator(alloc):
                    yield

    def _allocator(self, q: CudaQueue, ut: str) -> Any:
        key = (q, ut)
        if key in self._allocators:
            return self._allocators[key]
        source: Any  # size -> an object holding that many bytes at its ``ptr``
        if ut == "device":
            def source(size: int) -> Any:
                return cupy.get_default_memory_pool().malloc(size)
        elif ut == "shared":
            # managed memory comes from a pool, as CuPy pools device memory: a freed
            # block serves a later allocation on the same stream, whose pages stay where
            # the GPU last touched them, and nothing calls cudaFree (which waits for the
            # whole device) while the process runs
            source = self._managed.malloc
        elif ut == "host":
            source = _PinnedHost
        else:  # pragma: no cover - the namespace validates usm_type
            raise ValueError(f"usm_type {ut!r}")
        dev = q.device_id

        def alloc(size: int) -> Any:
            m = source(size)
            return _mem.MemoryPointer(_Unowned(m.ptr, size, _Placed(q, ut, m), dev), 0)

        # plain pool memory on the default queue: CuPy's own allocator
        out = self._allocators[key] = None if ut == "device" and q.is_default else alloc
        return out

    def total_memory(self, dev: int) -> int:
        t = self._total.get(dev)
        if t is None:
            with cupy.cuda.Device(dev):
                t = self._total[dev] = int(_rt.memGetInfo()[1])
        return t

    def _grow_managed(self, size: int) -> Any:
        """A new managed allocation of ``size`` bytes on the current device for the pool."""
        self.check_managed(size, _rt.getDevice())
        return _mem.malloc_managed(size)

    def check_managed(self, nbytes: int, dev: int) -> None:
        """MemoryError naming the size for managed memory beyond the GPU's free memory
        (oversubscribing managed memory can hang the GPU), after the idle blocks of the
        managed pool went back to the driver."""
        with cupy.cuda.Device(dev):
            free = int(_rt.memGetInfo()[0])
            if nbytes > free and self._managed.free_bytes():
                self._managed.free_all_blocks()
                free = int(_rt.memGetInfo()[0])
        if nbytes > free:
            raise MemoryError(
                f"could not allocate {nbytes} bytes of managed (usm_type='shared') memory on "
                f"cuda:{dev}: only {free} bytes of GPU memory are free, and managed memory "
                "is never requested beyond that")

    def _check_size(self, nbytes: int, ut: str, q: CudaQueue) -> None:
        limit = _HOST_MEMORY if ut == "host" else self.total_memory(q.device_id)
        if nbytes > limit:
            raise self.memory_error(nbytes, q, ut)
        if ut == "shared":
            self.check_managed(nbytes, q.device_id)

    # ---- devices ----------------------------------------------------------------------
    def default_queue(self) -> CudaQueue:
        return self._defaults[0]

    def take_checked(self, raw: Any, indices: Any, axis: int) -> tuple[Any, int | None] | None:
        return self.gathers.gather(raw, indices, axis, along=False)

    def take_along_axis_checked(self, raw: Any, indices: Any,
                                axis: int) -> tuple[Any, int | None] | None:
        return self.gathers.gather(raw, indices, axis, along=True)

    def index_out_of_range(self, i: Any, n: int) -> bool | None:
        return self.gathers.out_of_range(i, n)

    def scatter_checked(self, raw: Any, key: Any, value: Any) -> bool | None:
        return self.gathers.scatter(raw, key, value)

    def fused_reduction(self, name: str, body: str, inputs: list[tuple[int, Any]],
                        consts: list[tuple[Any, Any]], dtype: Any, axes: tuple[int, ...],
                        out_dtype: Any, keepdims: bool) -> Any:
        return self.reductions.run_fused(name, body, inputs, consts, dtype, axes, out_dtype,
                                         keepdims)

    def accelerator_queue(self) -> CudaQueue:
        """Every CUDA device is a GPU: the first one's default queue (``cuda:0``)."""
        return self._defaults[0]

    def native_queue(self, obj: Any) -> CudaQueue:
        """A queue from "cuda", "cuda:N", a cupy.cuda.Device, a cupy.cuda.Stream or a
        CudaQueue (ValueError for a string naming no GPU, TypeError for other types)."""
        if type(obj) is CudaQueue:
            return obj
        if isinstance(obj, str):
            name, sep, idx = obj.partition(":")
            if name == "cuda" and (not sep or idx.isdigit()):
                i = int(idx) if sep else 0
                if i < self._ndev:
                    return self._defaults[i]
            raise ValueError(
                f"device filter string {obj!r} names no CUDA device; available: "
                f"{[f'cuda:{i}' for i in range(self._ndev)]}")
        if isinstance(obj, cupy.cuda.Device):
            if not 0 <= obj.id < self._ndev:
                raise ValueError(f"{obj!r} is not an available CUDA device")
            return self._defaults[obj.id]
        if isinstance(obj, cupy.cuda.stream._BaseStream):
            dev = obj.device_id if obj.device_id >= 0 else _rt.getDevice()
            return self._defaults[dev] if obj.ptr == 0 else CudaQueue(dev, obj)
        raise TypeError(
            f"cannot make a CUDA device from {type(obj).__name__}; pass 'cuda', 'cuda:N', "
            "a cupy.cuda.Device, a cupy.cuda.Stream or a usmarray.Device")

    def owns_native(self, obj: Any) -> bool:
        return type(obj) is CudaQueue or isinstance(
            obj, (cupy.cuda.Device, cupy.cuda.stream._BaseStream))

    def native_stream(self, stream: Any) -> Any:
        """``to_device(stream=...)``: a CuPy stream (or a CudaQueue's) to order the move on."""
        if type(stream) is CudaQueue:
            return stream.stream
        if isinstance(stream, cupy.cuda.stream._BaseStream):
            return stream
        raise TypeError(f"to_device: stream must be None, a cupy.cuda.Stream or a CUDA "
                        f"device's queue, got {type(stream).__name__}")

    def device_attribute(self, q: Any, name: builtins.str) -> Any:
        if name == "cuda_stream":
            return q.stream
        if name == "cuda_device":
            return cupy.cuda.Device(q.device_id)
        return super().device_attribute(q, name)

    def devices(self) -> list[CudaQueue]:
        return list(self._defaults)

    def describe(self, q: CudaQueue) -> str:
        s = "" if q.is_default else f", stream {q.stream.ptr:#x}"
        return f"cuda:{q.device_id}{s}"

    def device_name(self, q: CudaQueue) -> str:
        p = self._props.get(q.device_id)
        if p is None:
            p = self._props[q.device_id] = _rt.getDeviceProperties(q.device_id)
        name = p["name"]
        return name.decode() if isinstance(name, bytes) else str(name)

    def capabilities(self, q: Any) -> Capabilities:
        return Capabilities(fp64=True, fp16=True)

    # ---- memory kinds and queues of raw arrays ----------------------------------------
    def queue_of(self, raw: Any) -> CudaQueue:
        m = raw.data.mem
        if m.__class__ is _Unowned and m._owner.__class__ is _Placed:
            return m._owner.queue
        return self._defaults[m.device_id]

    @staticmethod
    def usm_type_of(raw: Any) -> str:
        m = raw.data.mem
        t = m.__class__
        if t is _Managed:
            return "shared"
        if t is _Unowned and m._owner.__class__ is _Placed:
            return m._owner.usm_type
        return "device"  # plain device memory (CuPy's allocators), and any other

    # ---- creation kernels ---------------------------------------------------------------
    def _create(self, fn: Any, args: tuple, kw: dict, count: int, dtype: Any, ut: Any,
                q: Any) -> Any:
        q = self._defaults[0] if q is None else q
        ut = ut or "device"
        if ut == "device" and q is self._defaults[0] and self._single:
            return fn(*args, **kw)
        self._check_size(count * np.dtype(dtype or np.float64).itemsize, ut, q)
        with self.placement(q, ut):
            return fn(*args, **kw)

    def creator(self, name: builtins.str, q: Any, usm_type: builtins.str) -> Any:
        """``zeros``, ``empty`` and ``full`` of plain device memory on the default queue
        of one GPU as CuPy's allocation and a memset of zero bits or the engine's store
        straight away; the protocol's ``make`` else."""
        generic = super().creator(name, q, usm_type)
        if usm_type == "device" and q is self._defaults[0] and self._single:
            if name == "empty":
                return _nd
            if name == "full":
                fill = self._fill

                def full(shape: tuple, value: Any, d: np.dtype) -> Any:
                    out = fill(shape, value, d)
                    return generic(shape, value, d) if out is None else out

                return full
            return _zeroed
        return generic

    def empty(self, shape: Any, dtype: Any = None, order: Any = "C", usm_type: Any = None,
              queue: Any = None) -> Any:
        if ((queue is None or queue is self._defaults[0]) and self._single and order == "C"
                and (usm_type is None or usm_type == "device")):
            return _nd(shape, dtype or np.float64)  # cupy.empty's own call, without its wrapper
        return self._create(cupy.empty, (shape,), {"dtype": dtype or np.float64, "order": order},
                            math.prod(_shape_tuple(shape)), dtype, usm_type, queue)

    def zeros(self, shape: Any, dtype: Any = None, order: Any = "C", usm_type: Any = None,
              queue: Any = None) -> Any:
        return self.full(shape, 0, dtype=dtype or np.float64, order=order, usm_type=usm_type,
                         queue=queue)

    def ones(self, shape: Any, dtype: Any = None, order: Any = "C", usm_type: Any = None,
             queue: Any = None) -> Any:
        return self.full(shape, 1, dtype=dtype or np.float64, order=order, usm_type=usm_type,
                         queue=queue)

    def full(self, shape: Any, fill_value: Any, dtype: Any = None, order: Any = "C",
             usm_type: Any = None, queue: Any = None) -> Any:
        if fill_value.__class__ is _nd:
            out = self.empty(shape, dtype=dtype or fill_value.dtype, order=order,
                             usm_type=usm_type, queue=queue)
            with self.placement(self.queue_of(out), self.usm_type_of(out)):
                out[...] = fill_value
            return out
        dims = _shape_tuple(shape)
        if dtype is not None and fill_value.__class__ in (bool, int, float, complex):
            out = self._create(self._fill, (dims, fill_value, np.dtype(dtype), order), {},
                               math.prod(dims), dtype, usm_type, queue)
            if out is not None:
                return out
        return self._create(_full, (shape, fill_value), {"dtype": dtype, "order": order},
                            math.prod(dims), dtype, usm_type, queue)

    def arange(self, start: Any, stop: Any = None, step: Any = 1, dtype: Any = None,
               usm_type: Any = None, queue: Any = None) -> Any:
        lo, hi = (0, start) if stop is None else (start, stop)
        n = max(0, math.ceil((hi - lo) / step)) if step else 0
        return self._create(self.ramps.arange, (start, stop, step), {"dtype": dtype}, n, dtype,
                            usm_type, queue)

    def linspace(self, start: Any, stop: Any, num: int, dtype: Any = None, endpoint: bool = True,
                 usm_type: Any = None, queue: Any = None, compute_dtype: Any = None) -> Any:
        return self._create(self.ramps.linspace, (start, stop, num),
                            {"dtype": dtype, "endpoint": endpoint,
                             "compute_dtype": compute_dtype}, num, dtype, usm_type, queue)

    def eye(self, n_rows: int, n_cols: Any = None, k: int = 0, dtype: Any = None,
            usm_type: Any = None, queue: Any = None) -> Any:
        m = n_rows if n_cols is None else n_cols
        return self._create(self.ramps.eye, (n_rows, n_cols), {"k": k, "dtype": dtype},
                            n_rows * m, dtype, usm_type, queue)

    def _like(self, x: Any, dtype: Any, usm_type: Any, queue: Any) -> dict:
        return {"dtype": dtype or x.dtype, "usm_type": usm_type or self.usm_type_of(x),
                "queue": queue if queue is not None else self.queue_of(x)}

    def empty_like(self, x: Any, dtype: Any = None, usm_type: Any = None, queue: Any = None) -> Any:
        return self.empty(x.shape, **self._like(x, dtype, usm_type, queue))

    def zeros_like(self, x: Any, dtype: Any = None, usm_type: Any = None, queue: Any = None) -> Any:
        return self.zeros(x.shape, **self._like(x, dtype, usm_type, queue))

    def ones_like(self, x: Any, dtype: Any = None, usm_type: Any = None, queue: Any = None) -> Any:
        return self.ones(x.shape, **self._like(x, dtype, usm_type, queue))

    def full_like(self, x: Any, fill_value: Any, dtype: Any = None, usm_type: Any = None,
                  queue: Any = None) -> Any:
        return self.full(x.shape, fill_value, **self._like(x, dtype, usm_type, queue))

    # ---- the usm_ndarray constructor (usmarray/_backend/_construct.py) ---------------------
    ctor_make = _construct.make_strided

    @staticmethod
    def memory_object(obj: Any) -> bool:
        """CuPy's memory objects: a ``MemoryPointer`` (the bytes from its pointer to the
        end of its memory) or a ``BaseMemory`` (``Memory``, ``UnownedMemory``, ...)."""
        return isinstance(obj, (_mem.MemoryPointer, _mem.BaseMemory))

    def buffer_of(self, raw: Any) -> _construct.Extent:
        """The bytes of the allocation ``raw`` views, on ``raw``'s queue: those of the
        array its chain of views starts from (CuPy's ``base``, and the arrays that
        ``Placed`` owners keep), so a view's offsets count from there, as from a SYCL
        array's ``usm_data``."""
        root = raw
        while True:
            m = root.data.mem
            if root.base.__class__ is _nd:
                root = root.base
            elif (m.__class__ is _Unowned and m._owner.__class__ is _Placed
                  and m._owner.keep.__class__ is _nd):
                root = m._owner.keep
            else:
                break
        if root.size:
            lo, hi = _construct.span(root.shape, root.strides)
            ptr, nbytes = root.data.ptr + lo, hi - lo + root.itemsize
        else:
            ptr, nbytes = root.data.ptr, 0
        return _construct.Extent(ptr, nbytes, self.queue_of(raw), self.usm_type_of(raw), root)

    def ctor_memory(self, obj: Any) -> tuple[Any, int, Any] | None:
        """(extent, bytes, queue) of a CuPy memory object, once the driver confirms that
        its bytes are CUDA memory of one kind (and, with cuda-bindings, one allocation);
        ValueError otherwise.  The view keeps ``obj`` (and so its owner) alive."""
        if type(obj) is _construct.Extent:  # from buffer_of: never a user's object
            return obj, obj.nbytes, obj.queue
        if isinstance(obj, _mem.MemoryPointer):
            mem = obj.mem
            if mem is None:
                raise ValueError("usm_ndarray: a cupy MemoryPointer without its memory "
                                 "object has no known size; pass the memory object")
            ptr, nbytes = int(obj.ptr), int(mem.ptr) + int(mem.size) - int(obj.ptr)
            if not 0 <= ptr - int(mem.ptr) <= int(mem.size):
                raise ValueError(f"usm_ndarray: the MemoryPointer {ptr:#x} lies outside its "
                                 f"memory ({int(mem.ptr):#x}, {int(mem.size)} bytes)")
        elif isinstance(obj, _mem.BaseMemory):
            mem, ptr, nbytes = obj, int(obj.ptr), int(obj.size)
        else:
            return None
        dev = int(mem.device_id)
        if not 0 <= dev < self._ndev:
            raise ValueError(f"usm_ndarray: the memory object names CUDA device {dev}, "
                             f"not one of this machine's {self._ndev}")
        usm_type = "device"
        if nbytes:
            try:
                usm_type, found = _io.check_memory(ptr, ptr + nbytes - 1, self.usm_types,
                                                   None, "usm_ndarray: the buffer's memory")
            except BufferError as exc:
                raise ValueError(str(exc)) from None
            if usm_type != "host":
                dev = found
        q = self._defaults[dev]
        return _construct.Extent(ptr, nbytes, q, usm_type, obj), nbytes, q

    def check_alloc(self, nbytes: int, usm_type: builtins.str, q: Any) -> None:
        if nbytes >= INDEX_LIMIT:
            raise self.memory_error(nbytes, q, usm_type)
        self._check_size(nbytes, usm_type, q)

    def alloc_bytes(self, nbytes: int, usm_type: builtins.str, q: CudaQueue) -> Any:
        with self.placement(q, usm_type):
            return cupy.empty(nbytes, dtype=np.uint8)

    def extent_view(self, ext: _construct.Extent, byte0: int, shape: tuple, d: np.dtype,
                    strides: tuple) -> Any:
        """A cupy.ndarray whose element 0 is ``byte0`` bytes into ``ext``.  A view that
        addresses the whole extent of plain memory of its queue (a new allocation)
        keeps that memory object (kernels take their fast path) and is its own root;
        any other view is over memory whose ``Placed`` owner names the queue and kind
        and keeps the extent's owner, so ``buffer_of`` of the view finds the whole
        extent again (CuPy's views made from a memory pointer have no ``base``)."""
        k = ext.keep
        covers = False
        if (k.__class__ is _nd and k.data.mem.__class__ in _PLAIN
                and self.queue_of(k) == ext.queue and math.prod(shape)):
            lo, hi = _construct.span(shape, strides)
            covers = byte0 + lo == 0 and byte0 + hi + d.itemsize == ext.nbytes
        if covers:
            mp = _mem.MemoryPointer(k.data.mem, ext.ptr + byte0 - k.data.mem.ptr)
        else:
            owner = _Placed(ext.queue, ext.usm_type, k)
            mp = _mem.MemoryPointer(
                _Unowned(ext.ptr, ext.nbytes, owner, ext.queue.device_id), byte0)
        return cupy.ndarray(shape, d, mp, strides)

    def from_host(self, a: Any, usm_type: Any = None, q: Any = None) -> Any:
        """A raw array on ``q`` of kind ``usm_type`` holding a copy of NumPy array ``a``."""
        a = np.asarray(a)
        ut = usm_type or "device"
        q = q or self._defaults[0]
        out = self.empty(a.shape, dtype=a.dtype, usm_type=ut, queue=q)
        if a.size:
            src = a if a.flags.c_contiguous else a.copy()  # (ascontiguousarray makes 0-D 1-D)
            if ut == "host":
                np.copyto(self.host_view(out), src)
            else:
                with cupy.cuda.Device(q.device_id):
                    out.set(src, stream=q.stream)
        return out

    def to_host(self, raw: Any) -> np.ndarray:
        """A NumPy copy of ``raw`` (synchronous).  A view that is neither C- nor
        F-contiguous is first copied to C order on the engine (CuPy's ``get`` copies it
        with its own kernel, which flushes float32 subnormals)."""
        if raw.size == 0:
            return np.empty(raw.shape, dtype=raw.dtype)
        if not (raw._c_contiguous or raw._f_contiguous):
            c = self.convert(raw, raw.dtype, c_order=True)
            if c is not None:
                raw = c
        if self._is_fast(raw):
            return raw.get()
        q = self.queue_of(raw)
        with cupy.cuda.Device(q.device_id), q.stream:
            return raw.get(stream=q.stream)

    def host_view(self, raw: Any) -> np.ndarray:
        """A NumPy view of host-accessible (shared or host) memory, after the array's
        queue has finished its work; it keeps ``raw`` alive."""
        if self.usm_type_of(raw) == "device":
            raise BufferError("USM-device memory of a CUDA device is not host-accessible")
        if raw.size:
            self.queue_of(raw).wait()
        return np.asarray(_HostView(raw))

    def asarray(self, obj: Any, dtype: Any = None, copy: Any = None, usm_type: Any = None,
                queue: Any = None) -> Any:
        """The provider-level ``asarray``: CuPy arrays (moved to ``queue`` and
        ``usm_type`` where asked, copied only where needed), anything NumPy takes, in
        nested sequences with CuPy arrays too (copied).  (The namespace imports objects
        with ``__cuda_array_interface__`` through :meth:`foreign` first.)"""
        if obj.__class__ is _nd:
            src_q = self.queue_of(obj)
            q = queue or src_q
            ut = usm_type or self.usm_type_of(obj)
            moved = self.to_queue(obj, q) if src_q != q else obj
            need = dtype is not None and np.dtype(dtype) != obj.dtype
            same_kind = self.usm_type_of(moved) == ut
            if copy is False and (not same_kind or need or moved is not obj and
                                  q.device_id != src_q.device_id):
                raise ValueError("asarray: copy=False, but the array needs a copy "
                                 "(another dtype, memory kind or device)")
            if same_kind and not copy:
                return self.astype(moved, dtype, copy=False) if need else moved
            if same_kind and moved is obj and (self._is_fast(obj) or (
                    q is self._defaults[0] and ut == "device" and self._single)):
                # device memory on the default queue (plain, or a read-only view of it):
                # the kernels place it already
                return self.astype(obj, dtype) if need else self.copy(obj)
            if same_kind:
                with self.placement(q, ut):
                    return self.astype(moved, dtype) if need else self.copy(moved)
            out = self.empty(moved.shape, dtype=dtype or moved.dtype, usm_type=ut, queue=q)
            with self.placement(q, ut):
                out[...] = moved
            return out
        if copy is False:
            raise ValueError("asarray: copy=False, but host data must be copied to the GPU")
        host = np.asarray(_host_nested(obj), dtype=dtype)
        return self.from_host(host, usm_type or "device", queue or self._defaults[0])

    def to_queue(self, raw: Any, q: CudaQueue, stream: Any = None) -> Any:
        """``raw`` on queue ``q``.  Same GPU: a zero-copy view, ordered after the source
        queue's work (``q``'s stream waits on an event recorded on the source stream).
        Another GPU: a peer copy where the devices can access each other, else a copy
        through pinned host memory."""
        src = self.queue_of(raw)
        if src == q and stream is None:
            return raw
        ut = self.usm_type_of(raw)
        if src.device_id == q.device_id:
            with cupy.cuda.Device(q.device_id):
                ev = src.stream.record()
                q.stream.wait_event(ev)
                if stream is not None:
                    stream.wait_event(ev)
            if src == q:
                return raw
            return _view_of(raw, _Placed(q, ut, raw, read_only=_marked(raw)))
        return self._cross_device(raw, src, q, ut)

    def _cross_device(self, raw: Any, src: CudaQueue, q: CudaQueue, ut: str) -> Any:
        with self.placement(src, ut):
            c = raw if raw._c_contiguous else self.reshape(raw, raw.shape, copy=True)
        out = self.empty(raw.shape, dtype=raw.dtype, usm_type=ut, queue=q)
        nbytes = c.nbytes
        if not nbytes:
            return out
        if _rt.deviceCanAccessPeer(q.device_id, src.device_id):
            _enable_peer_access(q.device_id, src.device_id)
            with cupy.cuda.Device(q.device_id):
                q.stream.wait_event(src.stream.record())
                _rt.memcpyPeerAsync(out.data.ptr, q.device_id, c.data.ptr, src.device_id,
                                    nbytes, q.stream.ptr)
            return out
        staging = _PinnedHost(nbytes)
        # to the staging buffer on the source queue, then from it on ``q``
        for dst, from_ptr, on in ((staging.ptr, c.data.ptr, src), (out.data.ptr, staging.ptr, q)):
            with cupy.cuda.Device(on.device_id):
                _rt.memcpyAsync(dst, from_ptr, nbytes, _rt.memcpyDefault, on.stream.ptr)
                on.stream.synchronize()
        return out

    @staticmethod
    def may_share_memory(a: Any, b: Any) -> bool:
        """Whether the byte ranges of ``a`` and ``b`` overlap (CuPy's bounds test; one
        address space holds every device's, managed and pinned memory)."""
        if a._c_contiguous and b._c_contiguous:  # the common case, without CuPy's walk
            na, nb = a.nbytes, b.nbytes
            pa, pb = a.data.ptr, b.data.ptr
            return bool(na and nb and pa < pb + nb and pb < pa + na)
        return bool(cupy.may_share_memory(a, b))

    def memory_error(self, nbytes: int, q: Any, usm_type: builtins.str = "device") -> MemoryError:
        q = q if type(q) is CudaQueue else self._defaults[0]
        if usm_type == "host":
            return MemoryError(
                f"could not allocate {nbytes} bytes of pinned host memory for cuda:"
                f"{q.device_id} (the host has {_HOST_MEMORY} bytes)")
        return MemoryError(
            f"could not allocate {nbytes} bytes of memory on cuda:{q.device_id} "
            f"({self.device_name(q)}, {self.total_memory(q.device_id)} bytes of device memory)")

    def repr(self, raw: Any) -> builtins.str:
        body = np.array2string(self.to_host(raw), separator=", ", prefix="usm_ndarray(")
        q = self.queue_of(raw)
        return f"usm_ndarray({body}, dtype={raw.dtype.name}, device='{self.describe(q)}')"

    def str(self, raw: Any) -> builtins.str:
        return np.array2string(self.to_host(raw))

    # ---- indexing ----------------------------------------------------------------------
    def getitem(self, raw: Any, key: Any) -> Any:
        """``raw[key]`` on ``raw``'s queue (device and stream), a gather's result in the
        coerced memory kind of ``raw`` and the key's arrays."""
        if self._is_fast(raw):
            mask = key[0] if key.__class__ is tuple and len(key) == 1 else key
            if mask.__class__ is _nd:
                out = self.compactions.masked(raw, mask)
                if out is not None:
                    return out
            return raw[key]
        return self._slow(operator.getitem, (raw, key), {})

    def writable(self, raw: Any) -> bool:
        """False for read-only arrays and their views, and for views whose elements
        share an address (broadcast views, however they were made)."""
        return not _marked(raw) and (raw._c_contiguous or not _aliases(raw))

    def read_only_memory(self, raw: Any) -> bool:
        """Only a marked array's memory (a read-only import, a broadcast view, views
        of them): an unmarked array whose elements alias (a stride 0 the constructor
        was given) refuses writes itself, but its memory is plain memory."""
        return _marked(raw)

    def read_only_view(self, raw: Any) -> Any:
        """A read-only view of ``raw`` (``raw`` itself when it is read-only already or
        empty: nothing can be written into an empty array)."""
        if not raw.size or _marked(raw):
            return raw
        return _view_of(raw, _Placed(self.queue_of(raw), self.usm_type_of(raw), raw,
                                     read_only=True))

    def setitem(self, raw: Any, key: Any, value: Any) -> None:
        """``raw[key] = value`` on ``raw``'s queue (device and stream); ValueError for a
        read-only ``raw``."""
        # plain device memory is never marked, and a C-contiguous view never aliases
        fast = self._is_fast(raw)
        if not (fast and raw._c_contiguous) and not self.writable(raw):
            raise ValueError(
                "assignment destination is read-only (a broadcast view, a view of one, or "
                "a read-only import); write into a copy (asarray(x, copy=True))"
            )
        if fast:
            if not self._store(raw, key, value):
                raw[key] = value
            return
        q = self.queue_of(raw)
        with cupy.cuda.Device(q.device_id), q.stream:
            raw[key] = value

    # ---- linear algebra and FFT: cuSOLVER, cuBLAS, cuFFT ----------------------------
    def linalg(self, fname: builtins.str, *raws: Any, **kw: Any) -> Any:
        try:
            return getattr(self.linalg_kernels.linalg, fname)(*raws, **kw)
        except np.linalg.LinAlgError as exc:
            raise LinAlgError(f"{fname}: {exc}") from None

    def fft(self, fname: builtins.str, raw: Any, **kw: Any) -> Any:
        return getattr(self.linalg_kernels.fft, fname)(raw, **kw)

    # ---- interop ----------------------------------------------------------------------
    def array_attribute(self, raw: Any, name: builtins.str) -> Any:
        if name == "__cuda_array_interface__":
            return _io.cai_dict(raw, self.queue_of(raw).stream.ptr, not self.writable(raw))
        raise AttributeError(f"arrays of the CUDA backend have no attribute {name!r}")

    def dlpack_device(self, raw: Any) -> tuple[int, int]:
        ut = self.usm_type_of(raw)
        if ut == "host":
            return (_io.KDL_CUDA_HOST, 0)
        return (_io.KDL_CUDA_MANAGED if ut == "shared" else _io.KDL_CUDA,
                self.queue_of(raw).device_id)

    def dlpack(self, raw: Any, stream: Any = None, max_version: Any = None,
               dl_device: Any = None, copy: Any = None) -> Any:
        """A DLPack capsule of ``raw`` on its own device (kDLCUDA, kDLCUDAHost or
        kDLCUDAManaged), or on the host (kDLCPU: zero-copy for host-accessible
        memory, a copy otherwise, BufferError with ``copy=False``)."""
        own = self.dlpack_device(raw)
        if dl_device is not None and tuple(dl_device) != own:
            if int(dl_device[0]) != _io.KDL_CPU:
                raise BufferError(f"__dlpack__: cannot export to device {dl_device}; this "
                                  f"array is on {own} and can also go to kDLCPU (1, 0)")
            if copy is not True and self.host_accessible(raw):
                host = self.host_view(raw)
            elif copy is False:
                raise BufferError("__dlpack__: CUDA device memory is not host-accessible; "
                                  "exporting to kDLCPU needs copy=True (or None)")
            else:
                host = self.to_host(raw)
            if copy is not True and not self.writable(raw):
                host.flags.writeable = False  # read-only unless the consumer asked a copy
            return host.__dlpack__(max_version=max_version, copy=False if copy is None else copy)
        q = self.queue_of(raw)
        read_only = not copy and not self.writable(raw)
        src = raw.copy() if copy else raw
        kw: dict[builtins.str, Any] = {"stream": stream}
        if max_version is not None:
            kw["max_version"] = max_version
        with cupy.cuda.Device(q.device_id), q.stream:
            cap = src.__dlpack__(**kw)
            if read_only and not _io.set_capsule_read_only(cap):
                # DLPack before 1.0 cannot say read-only: the consumer gets a copy
                if copy is False:
                    raise BufferError(
                        "__dlpack__: this array is read-only and the consumer reads DLPack "
                        "< 1.0, which has no read-only flag; pass copy=None or True"
                    )
                cap = raw.copy().__dlpack__(**kw)
        if own[0] != _io.KDL_CUDA:
            _io.set_capsule_device(cap, *own)
        return cap

    def _wait_on_foreign(self, q: CudaQueue, handle: int) -> None:
        with cupy.cuda.Device(q.device_id):
            ext = cupy.cuda.ExternalStream(0 if handle in (1, 2) else handle)
            q.stream.wait_event(ext.record())

    def foreign(self, obj: Any) -> tuple[Any, CudaQueue] | None:
        """(raw, queue): a zero-copy view of an object with ``__cuda_array_interface__``
        (CuPy, PyTorch, Numba), on the default queue of its device and ordered after
        the producer's stream; None for objects without the interface."""
        if obj.__class__ is _nd:
            return obj, self.queue_of(obj)
        iface = _io.read_cai(obj)
        if iface is None:
            return None
        raw, q = _io.import_cai(obj, iface, self._wait_on_foreign, self._defaults.__getitem__)
        return (self.read_only_view(raw) if iface["data"][1] else raw), q

    def from_dlpack(self, x: Any, dev: tuple[int, int], q: Any, copy: Any) -> Any:
        """A raw array from a DLPack producer on a CUDA device (kDLCUDA, kDLCUDAHost,
        kDLCUDAManaged): the capsule validated, then viewed zero-copy on the
        producer's device (``q`` None) or moved to ``q`` (a copy across devices;
        BufferError then with ``copy=False``)."""
        if dev[0] == _io.KDL_CUDA_HOST:
            home = self._defaults[_rt.getDevice()]
        elif dev[0] in _io.DEVICE_TYPES and 0 <= dev[1] < self._ndev:
            home = self._defaults[dev[1]]
        else:
            raise BufferError(f"from_dlpack: DLPack device {dev} is no CUDA device of this "
                              f"machine (kDLCUDA/kDLCUDAManaged 0..{self._ndev - 1}, kDLCUDAHost)")
        target = q or home
        handle = 1 if target.is_default else target.stream.ptr
        try:
            cap = x.__dlpack__(stream=handle, max_version=(1, 0))
        except TypeError:
            cap = x.__dlpack__(stream=handle)
        t = _io.read_capsule(cap)
        if t.dev[0] != dev[0] or (dev[0] != _io.KDL_CUDA_HOST and t.dev[1] != dev[1]):
            raise BufferError(f"from_dlpack: __dlpack_device__() said {dev}, the capsule "
                              f"says {t.dev}")
        raw = _io.import_capsule(t, home)
        if t.read_only:
            raw = self.read_only_view(raw)
        if q is not None and q != home:
            if copy is False and q.device_id != home.device_id:
                raise BufferError("from_dlpack: copy=False, but the producer's data is on "
                                  f"cuda:{home.device_id}, not on {self.describe(q)}")
            raw = self.to_queue(raw, q)
        return self.copy(raw) if copy else raw


class _HostView:
    """``__array_interface__`` over host-accessible CUDA memory, keeping it alive."""

    __slots__ = ("__array_interface__", "_owner")

    def __init__(self, raw: Any) -> None:
        self._owner = raw
        self.__array_interface__ = {
            "data": (raw.data.ptr if raw.size else 0, False), "shape": raw.shape,
            "strides": raw.strides, "typestr": raw.dtype.str, "version": 3,
        }


def _shape_tuple(shape: Any) -> tuple[int, ...]:
    return tuple(shape) if isinstance(shape, (tuple, list)) else (int(shape),)


def _full(shape: Any, fill_value: Any, dtype: Any = None, order: Any = "C") -> Any:
    if dtype is not None and type(fill_value) is int and np.dtype(dtype).kind in "iu":
        out = cupy.empty(shape, dtype=dtype, order=order)
        out.fill(np.array(fill_value, dtype=dtype)[()])
        return out
    return cupy.full(shape, fill_value, dtype=dtype, order=order)


def _host_nested(obj: Any) -> Any:
    """A nested sequence with CuPy arrays replaced by host copies."""
    if obj.__class__ is _nd:
        return obj.get()
    if isinstance(obj, (list, tuple)):
        return [_host_nested(o) for o in obj]
    return obj


__all__ = ["CudaBackend", "CudaQueue"]
