"""DLPack import: a producer's capsule read with ctypes, validated, then viewed zero-copy.

``import_dlpack(x)`` follows the array API (2025.12) consumer protocol: it asks for
``__dlpack__(max_version=(1, 0), dl_device=..., copy=...)`` and falls back to the
legacy ``__dlpack__(stream=...)`` on TypeError.  Every field of the managed tensor is
checked before anything reads through a pointer in it:

* the capsule: named ``dltensor_versioned`` (version major 1) or ``dltensor``;
* the device: kDLCPU (id 0) or kDLOneAPI with an id naming a root SYCL device
  (its index in ``dpctl.get_devices()``, as dpctl numbers them);
* ndim 0..64, a shape of non-negative extents, strides (NULL: compact row-major);
* the dtype: one of the standard's (bool, int8..uint64, float32/64, complex64/128),
  one lane;
* the extent: byte offset, shape and strides inside the 64-bit range, data NULL only
  for an empty tensor;
* kDLCPU: the extent is mapped memory of this process (every page of a short
  extent, the first and last page of a long one);
* kDLOneAPI: the first and last byte are USM memory of that device's default
  platform context (the only context DLPack oneAPI pointers may belong to), and the
  first element is aligned for its dtype.

Errors: BufferError for what cannot be imported (device, version, foreign memory,
a copy that ``copy=False`` forbids), TypeError for the dtype, ValueError for a
malformed tensor.  A refused capsule keeps its name, so the producer's capsule
destructor releases it; an accepted one is renamed ``used_dltensor[_versioned]``
and its deleter runs once, when the last view of its memory is collected.

Read-only tensors (versioned flag bit 0) are imported as read-only views; with
``copy=True`` the result is a writable copy.
"""

from __future__ import annotations

import ctypes as C
import datetime
import math
import operator
import os
import struct
from typing import Any, NamedTuple, NoReturn

import numpy as np

from .. import _dtypes as dt
from . import _host_memory
from ._layout import check_layout_flags

KDL_CPU, KDL_ONEAPI = 1, 14
_READ_ONLY, _IS_COPIED = 1, 2
_MAX_NDIM = 64
_LIMIT = 2**62  # offsets and extents in bytes, as the provider's 64-bit index arithmetic
_CAPSULE = type(datetime.datetime_CAPI)


# the structs of dlpack.h in native layout (struct inserts C's padding), read in one go:
# DLTensor: data, device (type, id), ndim, dtype (code, bits, lanes), shape, strides,
# byte_offset; DLManagedTensor: DLTensor, manager_ctx, deleter;
# DLManagedTensorVersioned: version (major, minor), manager_ctx, deleter, flags, DLTensor
_TENSOR = "PiiiBBHPPQ"
_LEGACY = struct.Struct("@" + _TENSOR + "PP")
_VERSIONED = struct.Struct("@IIPPQ" + _TENSOR)
_RAW = {False: C.c_char * _LEGACY.size, True: C.c_char * _VERSIONED.size}
_VERSION = struct.Struct("@II")
_RAW_VERSION = C.c_char * _VERSION.size
_INT64 = [struct.Struct(f"={n}q") for n in range(65)]
_INT64_BYTES = [C.c_char * (8 * n) for n in range(65)]


# own prototypes (not the shared ctypes.pythonapi attributes, whose argtypes anyone may set);
# PYFUNCTYPE keeps the GIL, which producers' deleters may rely on
_is_valid = C.PYFUNCTYPE(C.c_int, C.py_object, C.c_char_p)(("PyCapsule_IsValid", C.pythonapi))
_get_pointer = C.PYFUNCTYPE(C.c_void_p, C.py_object, C.c_char_p)(
    ("PyCapsule_GetPointer", C.pythonapi)
)
_get_name = C.PYFUNCTYPE(C.c_char_p, C.py_object)(("PyCapsule_GetName", C.pythonapi))
_set_name = C.PYFUNCTYPE(C.c_int, C.py_object, C.c_void_p)(("PyCapsule_SetName", C.pythonapi))
_DELETER = C.PYFUNCTYPE(None, C.c_void_p)
_NAMES = {False: b"dltensor", True: b"dltensor_versioned"}


def _static_string(b: bytes) -> int:
    """A C copy of ``b`` that is never freed: PyCapsule_SetName keeps the pointer, and
    capsule destructors read the name, at interpreter exit too."""
    raw = C.PYFUNCTYPE(C.c_void_p, C.c_size_t)(("PyMem_RawMalloc", C.pythonapi))(len(b) + 1)
    if not raw:  # pragma: no cover
        raise MemoryError("usmarray: cannot allocate a capsule name")
    C.memmove(raw, b + b"\0", len(b) + 1)
    return int(raw)


_USED_NAMES = {False: _static_string(b"used_dltensor"),
               True: _static_string(b"used_dltensor_versioned")}

_DTYPES = {
    (0, 8): dt.int8, (0, 16): dt.int16, (0, 32): dt.int32, (0, 64): dt.int64,
    (1, 8): dt.uint8, (1, 16): dt.uint16, (1, 32): dt.uint32, (1, 64): dt.uint64,
    (2, 32): dt.float32, (2, 64): dt.float64, (5, 64): dt.complex64, (5, 128): dt.complex128,
    (6, 8): dt.bool,
}


class _Tensor(NamedTuple):
    """A validated managed tensor (nothing taken yet); strides and extents in elements."""

    capsule: Any
    versioned: bool
    managed: int
    deleter: int
    data: int
    device: tuple[int, int]
    dtype: np.dtype
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    byte_offset: int
    lo: int
    hi: int
    read_only: bool
    copied: bool

    @property
    def size(self) -> int:
        return math.prod(self.shape)


class _Owner:
    """Owns one managed tensor once armed; calls its deleter once, when collected."""

    __slots__ = ("_managed", "_deleter")

    def __init__(self) -> None:
        self._managed = 0
        self._deleter: Any = None

    def arm(self, t: _Tensor) -> None:
        if _set_name(t.capsule, _USED_NAMES[t.versioned]) != 0:  # pragma: no cover
            raise BufferError("from_dlpack: could not take ownership of the capsule")
        self._managed = t.managed
        self._deleter = _DELETER(t.deleter) if t.deleter else None

    def release(self) -> None:
        fn, self._deleter = self._deleter, None
        if fn is not None:
            fn(self._managed)

    def __del__(self) -> None:
        self.release()


class _HostOwner(_Owner):
    __slots__ = ("__array_interface__",)
    __array_interface__: dict[str, Any]


class _UsmOwner(_Owner):
    __slots__ = ("__sycl_usm_array_interface__",)
    __sycl_usm_array_interface__: dict[str, Any]


def _int_pair(dev: Any) -> tuple[int, int]:
    try:
        a, b = dev
        return operator.index(a), operator.index(b)
    except TypeError:
        raise TypeError(
            f"from_dlpack: __dlpack_device__() must return (device_type, device_id) ints, "
            f"got {dev!r}"
        ) from None
    except ValueError:
        raise ValueError(
            f"from_dlpack: __dlpack_device__() must return a pair, got {dev!r}"
        ) from None


def dlpack_device(x: Any) -> tuple[int, int]:
    """``x.__dlpack_device__()`` checked: a pair of ints; for kDLCPU and kDLOneAPI also
    an id this module can import (other device types are their backends' to check)."""
    dev = _int_pair(x.__dlpack_device__())
    if dev[0] in (KDL_CPU, KDL_ONEAPI):
        _check_device(dev, "__dlpack_device__()")
    return dev


def refuse_device(dev: tuple[int, int]) -> NoReturn:
    """BufferError for a producer whose device type no backend imports."""
    _check_device(dev, "__dlpack_device__()")
    raise BufferError(f"from_dlpack: device {dev} cannot be imported")  # pragma: no cover


# ---- SYCL devices by DLPack id -----------------------------------------------------------
#: the SYCL backend in use, or None (set once by the backend package: :func:`bind_sycl`)
_sycl: Any = None
_roots: list[Any] | None = None
# DLPack id -> (import queue, its SyclContext, the context's DPCTLSyclContextRef)
_targets: dict[int, tuple[Any, Any, int]] = {}


def _root_devices() -> list[Any]:
    global _roots
    if _roots is None:
        import dpctl

        _roots = list(dpctl.get_devices()) if _sycl is not None else []
    return _roots


def _target(dev_id: int) -> tuple[Any, Any, int]:
    t = _targets.get(dev_id)
    if t is None:
        import dpctl
        from dpctl._sycl_queue_manager import get_device_cached_queue

        dev = _root_devices()[dev_id]
        try:
            ctx = dev.sycl_platform.default_context
        except Exception as exc:  # noqa: BLE001 - the runtime lacks the extension
            raise BufferError(
                f"from_dlpack: the platform of {dev.filter_string} has no default context, "
                "which kDLOneAPI memory must belong to"
            ) from exc
        q = get_device_cached_queue(dev)
        if q.sycl_context != ctx:
            q = dpctl.SyclQueue(ctx, dev)
        t = _targets[dev_id] = (q, ctx, ctx.addressof_ref())
    return t


def import_queue(dev_id: int) -> Any:
    """The queue that imports kDLOneAPI memory of root device ``dev_id``: in its
    platform's default context, where DLPack oneAPI pointers live."""
    return _target(dev_id)[0]


def _load_pointer_type() -> Any:
    """dpctl's ``DPCTLUSM_GetPointerType(ptr, context)``: 0 for memory that is no USM
    allocation of the context, else 1 device, 2 shared, 3 host (None where absent)."""
    try:
        import dpctl

        lib = C.CDLL(os.path.join(os.path.dirname(dpctl.__file__), "libDPCTLSyclInterface.so"))
        fn = lib.DPCTLUSM_GetPointerType
    except (ImportError, OSError, AttributeError):  # pragma: no cover - another dpctl layout
        return None
    fn.restype = C.c_int
    fn.argtypes = (C.c_void_p, C.c_void_p)
    return fn


_pointer_type: Any = None


def bind_sycl(backend: Any) -> None:
    """Import kDLOneAPI tensors with ``backend`` (the SYCL backend) from now on."""
    global _sycl, _pointer_type
    _sycl = backend
    _pointer_type = _load_pointer_type()


_MEMORY_TYPES = {1: "MemoryUSMDevice", 2: "MemoryUSMShared", 3: "MemoryUSMHost"}


def _check_device(dev: tuple[int, int], where: str) -> None:
    kind, ident = dev
    if kind == KDL_CPU:
        if ident != 0:
            raise BufferError(f"from_dlpack: {where} names CPU device {ident}; kDLCPU uses id 0")
    elif kind == KDL_ONEAPI:
        if _sycl is None:
            raise BufferError(f"from_dlpack: {where} is a kDLOneAPI device, but no SYCL runtime "
                              "is available")
        n = len(_root_devices())
        if not 0 <= ident < n:
            raise BufferError(
                f"from_dlpack: {where} names kDLOneAPI device {ident}; the ids of this "
                f"machine's {n} SYCL root devices (dpctl.get_devices()) are 0..{n - 1}"
            )
    else:
        raise BufferError(
            f"from_dlpack: {where} names device type {kind}, which no backend here imports: "
            "kDLCPU (1), kDLOneAPI (14) with a SYCL runtime, kDLCUDA (2), kDLCUDAHost (3) "
            "and kDLCUDAManaged (13) with the CUDA backend"
        )


# ---- reading and validating a capsule ---------------------------------------------------
def open_capsule(capsule: Any) -> tuple[int, bool]:
    """(address of the managed tensor, whether it is versioned) of a DLPack capsule,
    nothing taken: TypeError for anything but a capsule, BufferError for a consumed
    one, ValueError for a capsule of another name."""
    if type(capsule) is not _CAPSULE:
        raise TypeError(
            f"from_dlpack: __dlpack__() returned {type(capsule).__name__}, not a DLPack capsule"
        )
    try:  # PyCapsule_GetPointer checks the name
        return _get_pointer(capsule, _NAMES[True]), True
    except ValueError:
        if not _is_valid(capsule, _NAMES[False]):
            name = _get_name(capsule)
            if name in (b"used_dltensor", b"used_dltensor_versioned"):
                raise BufferError("from_dlpack: the capsule was already consumed") from None
            raise ValueError(
                f"from_dlpack: a capsule named {name!r} is not a DLPack tensor"
            ) from None
    return _get_pointer(capsule, _NAMES[False]), False


def dtype_and_shape(ndim: int, code: int, bits: int, lanes: int, shape_p: int, data: int,
                    byte_offset: int) -> tuple[np.dtype, tuple[int, ...]]:
    """The dtype and shape of a managed tensor's fields, once ndim (0..64), the dtype
    (a standard one, one lane), the shape (non-negative extents below 2**62), the
    byte offset (below 2**62) and the data pointer (NULL only for an empty tensor)
    are checked: ValueError, for the dtype TypeError, otherwise."""
    if not 0 <= ndim <= _MAX_NDIM:
        raise ValueError(f"from_dlpack: ndim {ndim} is outside 0..{_MAX_NDIM}")
    d = _DTYPES.get((code, bits))
    if d is None or lanes != 1:
        raise TypeError(
            f"from_dlpack: DLPack dtype (code {code}, {bits} bits, {lanes} lanes) is not one "
            "of the standard's dtypes"
        )
    if ndim and not shape_p:
        raise ValueError(f"from_dlpack: shape is NULL for ndim {ndim}")
    shape = _INT64[ndim].unpack_from(_INT64_BYTES[ndim].from_address(shape_p)) if ndim else ()
    if ndim and (min(shape) < 0 or max(shape) >= _LIMIT):
        raise ValueError(f"from_dlpack: shape {shape} has a negative or too large extent")
    if byte_offset >= _LIMIT:
        raise ValueError(f"from_dlpack: byte_offset {byte_offset} leaves the 64-bit range")
    if 0 not in shape and not data:
        raise ValueError(f"from_dlpack: data is NULL for a tensor of shape {shape}")
    return d, shape


def _read(capsule: Any) -> _Tensor:
    addr, versioned = open_capsule(capsule)
    flags = 0
    if versioned:
        major, minor = _VERSION.unpack_from(_RAW_VERSION.from_address(addr))
        if major != 1:  # only the version field is common to all major versions
            raise BufferError(
                f"from_dlpack: DLPack {major}.{minor} tensor; this consumer reads major version 1"
            )
        _, _, _, deleter, flags, *fields = _VERSIONED.unpack_from(_RAW[True].from_address(addr))
    else:
        raw = _RAW[False].from_address(addr)
        *fields, _, deleter = _LEGACY.unpack_from(raw)
    data, dev_type, dev_id, ndim, code, bits, lanes, shape_p, strides_p, byte_offset = fields
    dev = (dev_type, dev_id)
    _check_device(dev, "the capsule")
    d, shape = dtype_and_shape(ndim, code, bits, lanes, shape_p, data, byte_offset)
    acc, compact = 1, []
    for n in reversed(shape):
        compact.append(acc)
        acc *= n
    compact.reverse()
    if ndim and strides_p:
        # a stride over an extent of 1 (or of an empty tensor) addresses nothing: the
        # compact one keeps byte-stride arithmetic downstream in range
        given = _INT64[ndim].unpack_from(_INT64_BYTES[ndim].from_address(strides_p))
        strides = tuple([c if n <= 1 or acc == 0 else st
                         for st, n, c in zip(given, shape, compact, strict=True)])
    else:
        strides = tuple(compact)
    lo = hi = 0
    if 0 not in shape:
        for st, n in zip(strides, shape, strict=True):
            if st < 0:
                lo += st * (n - 1)
            else:
                hi += st * (n - 1)
        isz = d.itemsize
        first = data + byte_offset
        if (hi - lo + 1) * isz >= _LIMIT or first + lo * isz < 0 or first + (hi + 1) * isz > 2**64:
            raise ValueError(
                f"from_dlpack: shape {shape}, strides {strides} and byte_offset {byte_offset} "
                "address memory outside the 64-bit range"
            )
        if dev_type == KDL_ONEAPI and first % (isz // 2 if d.kind == "c" else isz):
            raise BufferError(
                f"from_dlpack: the first element at {first:#x} is not aligned for {d}"
            )
    return _Tensor(capsule, versioned, addr, deleter, data, dev, d, shape, strides,
                   byte_offset, lo, hi, bool(flags & _READ_ONLY), bool(flags & _IS_COPIED))


# ---- building arrays ------------------------------------------------------------------------
def _empty(t: _Tensor, q: Any) -> Any:
    """An empty tensor needs no memory: release the producer's at once."""
    if t.device[0] == KDL_CPU:
        out = np.empty(t.shape, dtype=t.dtype)
        out.flags.writeable = not t.read_only
    else:
        out = _sycl.provider.empty(t.shape, dtype=t.dtype, sycl_queue=q)
        if t.read_only:
            out.flags.writable = False
    owner = _Owner()
    owner.arm(t)
    owner.release()
    return out


def _check_mapped(t: _Tensor) -> None:
    """BufferError unless every byte of the kDLCPU extent is readable memory of this
    process (``_host_memory.readable``)."""
    isz = t.dtype.itemsize
    first = t.data + t.byte_offset + t.lo * isz
    last = t.data + t.byte_offset + (t.hi + 1) * isz - 1
    if not _host_memory.readable(first, last):
        raise BufferError(
            f"from_dlpack: the kDLCPU tensor's bytes {first:#x}..{last:#x} are not all "
            "readable memory of this process (unmapped or protected pages)"
        )


def _host(t: _Tensor) -> np.ndarray:
    _check_mapped(t)
    isz = t.dtype.itemsize
    owner = _HostOwner()
    owner.__array_interface__ = {
        "data": (t.data + t.byte_offset, t.read_only),
        "shape": t.shape,
        "strides": tuple([s * isz for s in t.strides]),
        "typestr": t.dtype.str,
        "version": 3,
    }
    out = np.asarray(owner)
    owner.arm(t)
    return out


def _usm_memory(t: _Tensor, owner: _UsmOwner) -> Any:
    """A dpctl memory object over the tensor's extent that keeps ``owner`` alive;
    BufferError unless its first and last byte are USM memory of the device's
    default context."""
    import dpctl.memory as dpmem

    q, _, ctx_ref = _target(t.device[1])
    isz = t.dtype.itemsize
    start = t.data + t.byte_offset + t.lo * isz
    nbytes = (t.hi - t.lo + 1) * isz
    kind = 0
    if _pointer_type is not None:
        for what, ptr in (("first", start), ("last", start + nbytes - 1)):
            kind = _pointer_type(ptr, ctx_ref)
            if kind not in _MEMORY_TYPES:
                raise BufferError(
                    f"from_dlpack: the {what} byte of the kDLOneAPI tensor, at {ptr:#x}, is no "
                    f"USM memory of {q.sycl_device.filter_string} in its platform's default "
                    "context"
                )
    owner.__sycl_usm_array_interface__ = {
        "data": (start, False), "shape": (nbytes,), "strides": None, "typestr": "|u1",
        "version": 1, "syclobj": q,
    }
    try:
        return getattr(dpmem, _MEMORY_TYPES[kind])(owner) if kind else dpmem.as_usm_memory(owner)
    except (ValueError, TypeError):
        raise BufferError(
            f"from_dlpack: the kDLOneAPI tensor's memory at {start:#x} is no USM memory of "
            f"{q.sycl_device.filter_string} in its platform's default context"
        ) from None


def _overlaps(t: _Tensor) -> bool:
    """True when the extent holds exactly ``size`` elements, some of them twice: the
    provider flags some of these layouts contiguous and then reads them as a block."""
    if len(t.shape) < 2 or t.hi - t.lo + 1 != t.size:
        return False
    expect = 1
    for st, n in sorted((abs(st), n) for st, n in zip(t.strides, t.shape, strict=True) if n > 1):
        if st != expect:
            return True
        expect = st * n
    return False


def _usm(t: _Tensor, q: Any, copy: bool | None) -> tuple[Any, bool]:
    """The provider array over the tensor's memory and True; (a copy, False) where the
    provider cannot view the layout."""

    be = _sycl
    isz = t.dtype.itemsize
    owner = _UsmOwner()
    mem = _usm_memory(t, owner)
    owner.arm(t)
    raw = be.provider.usm_ndarray(t.shape, dtype=t.dtype, buffer=mem, strides=t.strides,
                                  offset=-t.lo)
    try:
        if _overlaps(t):
            check_layout_flags(raw)
    except ValueError:
        # elements overlap in a layout the provider flags as contiguous: its kernels
        # would read it as a dense block, so copy element by element through the host
        if copy is False:
            raise BufferError(
                f"from_dlpack: copy=False, but shape {t.shape} with strides {t.strides} "
                "can only be imported as a copy"
            ) from None
        host = mem.copy_to_host().view(t.dtype)
        view = np.lib.stride_tricks.as_strided(
            host[-t.lo:], t.shape, tuple([s * isz for s in t.strides])
        )
        out = be.provider.asarray(np.array(view), usm_type=mem.get_usm_type(), sycl_queue=q)
        return out, False
    if t.read_only:
        raw.flags.writable = False
    return raw, True


def import_capsule(capsule: Any, *, copy: bool | None = None, device: Any = None) -> Any:
    """The array over a DLPack capsule: a NumPy array (kDLCPU) or a provider usm_ndarray
    on the device's import queue (kDLOneAPI); zero-copy unless ``copy=True`` and the
    producer did not flag the tensor as a copy.  ``device``: the (type, id) the capsule
    must name.  Raises as the module docstring says."""
    t = _read(capsule)
    if device is not None and t.device != tuple(device):
        raise BufferError(
            f"from_dlpack: the capsule names device {t.device}, but the producer's "
            f"__dlpack_device__() said {tuple(device)}"
        )
    q = import_queue(t.device[1]) if t.device[0] == KDL_ONEAPI else None
    if t.size == 0:
        return _empty(t, q)
    if q is None:
        out = _host(t)
        return np.array(out, copy=True) if copy and not t.copied else out
    raw, view = _usm(t, q, copy)
    if copy and not t.copied and view:
        raw = _sycl.provider.copy(raw)
    return raw


def import_dlpack(
    x: Any, *, dev: tuple[int, int], copy: bool | None = None, stream: Any = None
) -> Any:
    """``x``'s data through ``__dlpack__``, on its own device ``dev`` (what its
    ``__dlpack_device__`` said): the protocol of the array API's ``from_dlpack``.
    ``stream``: the SYCL queue that will use the data (default: the import queue);
    the producer orders its pending work before it."""
    if dev[0] == KDL_ONEAPI and stream is None:
        stream = import_queue(dev[1])
    try:
        capsule = x.__dlpack__(stream=stream, max_version=(1, 0), dl_device=None, copy=copy)
    except TypeError:  # a producer of the legacy protocol
        capsule = x.__dlpack__(stream=stream)
    return import_capsule(capsule, copy=copy, device=dev)
