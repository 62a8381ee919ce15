"""Zero-copy exchange of CUDA arrays: ``__cuda_array_interface__`` and DLPack.

Import validates before anything reads through a pointer:

* ``__cuda_array_interface__`` (v2/v3): a dict with ``shape`` (non-negative ints),
  ``typestr`` (one of the standard's dtypes, native or no byte order), ``data``
  (``(pointer, read_only)``), ``strides`` (None or byte strides, multiples of the
  item size), ``mask`` None, ``stream`` None or a stream handle (not 0);
* a DLPack capsule (``dltensor`` or ``dltensor_versioned`` major 1): device
  kDLCUDA (2), kDLCUDAHost (3) or kDLCUDAManaged (13), ndim 0..64, a standard dtype
  of one lane, shape and strides, a data pointer (NULL only when empty);
* both: the first and last byte addressed are CUDA memory of the kind and device
  claimed (``cudaPointerGetAttributes``; with cuda-bindings, also inside one
  allocation, ``cuMemGetAddressRange``).

Errors: TypeError for a dtype or a malformed interface, ValueError for bad shapes
or strides, BufferError for memory that is not what it claims.  An accepted DLPack
capsule is renamed ``used_dltensor[_versioned]`` and its deleter runs once, when
the last view of its memory is collected.
"""

from __future__ import annotations

import ctypes as C
import math
import operator
import struct
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import cupy
import numpy as np
from cupy.cuda import memory as _mem
from cupy.cuda import runtime as _rt

from ... import _dtypes as dt
from .. import _dlpack_import as _dl
from .._construct import contiguous_strides, span
from .._layout import INDEX_LIMIT

KDL_CPU, KDL_CUDA, KDL_CUDA_HOST, KDL_CUDA_MANAGED = 1, 2, 3, 13
DEVICE_TYPES = frozenset({KDL_CUDA, KDL_CUDA_HOST, KDL_CUDA_MANAGED})
#: the usm_type of each memory type cudaPointerGetAttributes reports
_USM_OF_MEMTYPE = {1: "host", 2: "device", 3: "shared"}
_USM_OF_DLPACK = {KDL_CUDA: "device", KDL_CUDA_HOST: "host", KDL_CUDA_MANAGED: "shared"}
_DEVICE_OFFSET = {False: struct.calcsize("@P"), True: struct.calcsize("@IIPPQ") + struct.calcsize("@P")}
_FLAGS_OFFSET = struct.calcsize("@IIPP")  # DLManagedTensorVersioned.flags (uint64)


try:  # cuda-bindings tell an allocation's extent (cuMemGetAddressRange)
    from cuda.bindings import driver as _driver  # type: ignore[import-not-found]
except ImportError:
    _driver = None


def check_memory(first: int, last: int, usm_types: tuple[str, ...], device_id: int | None,
                 what: str) -> tuple[str, int]:
    """(usm_type, device id) of the CUDA memory holding bytes ``first..last``;
    BufferError unless both ends are memory of one of ``usm_types`` (on
    ``device_id`` where given) and, where the driver can tell, one allocation."""
    kinds = []
    for p in (first, last):
        try:
            attrs = _rt.pointerGetAttributes(p)
        except _rt.CUDARuntimeError as exc:
            raise BufferError(f"{what}: {p:#x} is not CUDA memory ({exc})") from None
        kinds.append((int(attrs.type), int(attrs.device)))
    (t0, d0), (t1, d1) = kinds
    usm = _USM_OF_MEMTYPE.get(t0)
    if usm is None or (t0, d0) != (t1, d1) or usm not in usm_types:
        raise BufferError(
            f"{what}: bytes {first:#x}..{last:#x} are not CUDA memory of kind "
            f"{'/'.join(usm_types)} (cudaPointerGetAttributes: type {t0}/{t1}, device {d0}/{d1})"
        )
    if usm != "host" and device_id is not None and d0 != device_id:
        raise BufferError(f"{what}: the memory is on CUDA device {d0}, not {device_id}")
    if _driver is not None and usm != "host":
        err, base, size = _driver.cuMemGetAddressRange(first)
        if int(err) == 0 and not int(base) <= last < int(base) + int(size):
            raise BufferError(
                f"{what}: bytes {first:#x}..{last:#x} run past their allocation "
                f"({int(base):#x}, {int(size)} bytes)")
    return usm, d0


@dataclass(slots=True, eq=False, repr=False)
class Placed:
    """Owner of memory that is not plain device memory on the default stream: its
    queue, its usm_type, what keeps it alive (``keep``), and whether arrays over it are
    read-only."""

    queue: Any
    usm_type: str
    keep: Any
    read_only: bool = False


def view(ptr: int, shape: tuple, dtype: np.dtype, strides: tuple, owner: Placed,
         device_id: int) -> Any:
    """A cupy.ndarray of ``shape``/``strides`` (bytes) whose first element is at
    ``ptr``, over UnownedMemory held by ``owner``."""
    if math.prod(shape) == 0:
        base, size, off = ptr, 0, 0
    else:
        lo, hi = span(shape, strides)
        base, size, off = ptr + lo, hi + dtype.itemsize - lo, -lo
    mem = _mem.UnownedMemory(base, size, owner, device_id)
    return cupy.ndarray(shape, dtype, _mem.MemoryPointer(mem, off), strides)


# ---- __cuda_array_interface__ -----------------------------------------------------------
def cai_dict(raw: Any, stream_ptr: int, read_only: bool = False) -> dict[str, Any]:
    """Version 3 of the interface for ``raw``; ``stream`` is the producer's stream (1
    for the legacy default stream)."""
    strides = None if raw.flags.c_contiguous else raw.strides
    return {
        "shape": raw.shape, "typestr": raw.dtype.str, "descr": [("", raw.dtype.str)],
        "data": (raw.data.ptr if raw.size else 0, read_only), "strides": strides,
        "version": 3, "stream": stream_ptr if stream_ptr else 1,
    }


def read_cai(obj: Any) -> dict[str, Any] | None:
    """``obj.__cuda_array_interface__`` or None when it has none; TypeError where the
    attribute raises something other than AttributeError."""
    try:
        iface = obj.__cuda_array_interface__
    except AttributeError:  # none, or a CPU tensor's refusal (PyTorch)
        return None
    if not isinstance(iface, dict):
        raise TypeError(f"__cuda_array_interface__ of {type(obj).__name__} is not a dict")
    return iface


def import_cai(obj: Any, iface: dict, wait_on: Any, queue_for: Any) -> tuple[Any, Any]:
    """(raw, queue): a zero-copy view of the memory ``iface`` describes, on the
    default queue of its device (``queue_for(device_id)``); ``wait_on(queue,
    stream_handle)`` orders that queue after the producer's stream."""
    what = "__cuda_array_interface__"
    for key in ("shape", "typestr", "data"):
        if key not in iface:
            raise TypeError(f"{what}: the required key {key!r} is missing")
    version = iface.get("version", 0)
    if type(version) is not int or version < 0:
        raise TypeError(f"{what}: version must be a non-negative int, got {version!r}")
    shape = iface["shape"]
    try:
        shape = tuple(operator.index(n) for n in shape)
    except TypeError:
        raise TypeError(f"{what}: shape must be a tuple of ints, got {shape!r}") from None
    if len(shape) > _dl._MAX_NDIM or any(n < 0 or n >= INDEX_LIMIT for n in shape):
        raise ValueError(f"{what}: shape {shape} has a negative or too large extent")
    try:
        dtype = np.dtype(iface["typestr"])
    except TypeError:
        raise TypeError(f"{what}: typestr {iface['typestr']!r} is not a dtype") from None
    if dtype.newbyteorder("=") not in dt.ANY or not dtype.isnative:
        raise TypeError(f"{what}: typestr {iface['typestr']!r} is not one of the standard's "
                        "dtypes in native byte order")
    dtype = dtype.newbyteorder("=")
    data = iface["data"]
    if (not isinstance(data, tuple) or len(data) != 2 or type(data[0]) is not int
            or data[0] < 0 or data[0] >= 2**64):
        raise TypeError(f"{what}: data must be a (pointer, read_only) tuple, got {data!r}")
    if iface.get("mask") is not None:
        raise TypeError(f"{what}: masked arrays are not supported")
    strides = iface.get("strides")
    itemsize = dtype.itemsize
    if strides is not None:
        try:
            strides = tuple(operator.index(s) for s in strides)
        except TypeError:
            raise TypeError(f"{what}: strides must be None or a tuple of ints") from None
        if len(strides) != len(shape) or any(s % itemsize for s in strides):
            raise ValueError(f"{what}: strides {strides} do not fit shape {shape} and "
                             f"item size {itemsize}")
    stream = iface.get("stream")
    if stream is not None and (type(stream) is not int or stream == 0 or stream < 0):
        raise ValueError(f"{what}: stream must be None or a positive handle, got {stream!r}")
    ptr = data[0]
    if math.prod(shape) == 0:
        return cupy.ndarray(shape, dtype), queue_for(cupy.cuda.runtime.getDevice())
    st = strides or tuple(s * itemsize for s in contiguous_strides(shape, "C"))
    lo, hi = span(shape, st)
    hi += itemsize - 1  # the last byte
    if hi - lo >= INDEX_LIMIT or ptr + lo < 0 or ptr + hi >= 2**64:
        raise ValueError(f"{what}: shape {shape} and strides {st} leave the address space")
    if ptr == 0:
        raise ValueError(f"{what}: data pointer is NULL for shape {shape}")
    usm, dev = check_memory(ptr + lo, ptr + hi, ("device", "shared", "host"), None, what)
    if usm == "host":
        dev = cupy.cuda.runtime.getDevice()
    q = queue_for(dev)
    if stream is not None:
        wait_on(q, stream)
    return view(ptr, shape, dtype, st, Placed(q, usm, obj), dev), q


# ---- DLPack export ---------------------------------------------------------------------
def set_capsule_device(capsule: Any, dev_type: int, dev_id: int) -> None:
    """Rewrite the device of a producer-made capsule (CuPy labels every pointer
    kDLCUDA; pinned host memory is kDLCUDAHost, managed memory kDLCUDAManaged)."""
    versioned = bool(_dl._is_valid(capsule, _dl._NAMES[True]))
    addr = _dl._get_pointer(capsule, _dl._NAMES[versioned])
    off = _DEVICE_OFFSET[versioned]
    C.c_int32.from_address(addr + off).value = dev_type
    C.c_int32.from_address(addr + off + 4).value = dev_id


def set_capsule_read_only(capsule: Any) -> bool:
    """Set DLPACK_FLAG_BITMASK_READ_ONLY in a versioned capsule; False for a DLPack 0.x
    capsule, which has no flags."""
    if not _dl._is_valid(capsule, _dl._NAMES[True]):
        return False
    addr = _dl._get_pointer(capsule, _dl._NAMES[True])
    C.c_uint64.from_address(addr + _FLAGS_OFFSET).value |= 1
    return True


# ---- DLPack import ---------------------------------------------------------------------
def read_capsule(capsule: Any) -> SimpleNamespace:
    """The validated fields of a DLPack capsule (nothing taken yet); a stride over an
    extent of 1 reads as 0."""
    addr, versioned = _dl.open_capsule(capsule)
    flags = 0
    if versioned:
        major, minor = struct.unpack_from("@II", C.string_at(addr, 8))
        if major != 1:
            raise BufferError(f"from_dlpack: DLPack {major}.{minor}; this consumer reads 1.x")
        _, _, _, deleter, flags, *fields = _dl._VERSIONED.unpack(C.string_at(addr, _dl._VERSIONED.size))
    else:
        *fields, _, deleter = _dl._LEGACY.unpack(C.string_at(addr, _dl._LEGACY.size))
    data, dev_type, dev_id, ndim, code, bits, lanes, shape_p, strides_p, offset = fields
    if dev_type not in DEVICE_TYPES:
        raise BufferError(f"from_dlpack: the capsule is on DLPack device type {dev_type}; "
                          "the CUDA backend imports kDLCUDA (2), kDLCUDAHost (3), "
                          "kDLCUDAManaged (13)")
    ndev = _rt.getDeviceCount()
    if dev_type != KDL_CUDA_HOST and not 0 <= dev_id < ndev:
        raise BufferError(f"from_dlpack: CUDA device {dev_id} does not exist (0..{ndev - 1})")
    dtype, shape = _dl.dtype_and_shape(ndim, code, bits, lanes, shape_p, data, offset)
    if ndim and strides_p:
        strides = struct.unpack(f"={ndim}q", C.string_at(strides_p, 8 * ndim))
        strides = tuple(s if n > 1 else 0 for s, n in zip(strides, shape, strict=True))
    else:
        strides = contiguous_strides(shape, "C")
    return SimpleNamespace(capsule=capsule, versioned=versioned, managed=addr, deleter=deleter,
                           ptr=(data or 0) + offset, dev=(dev_type, dev_id), dtype=dtype,
                           shape=shape, strides=strides, read_only=bool(flags & 1))


def import_capsule(t: SimpleNamespace, queue: Any) -> Any:
    """A zero-copy cupy.ndarray over a validated tensor ``t`` (:func:`read_capsule`),
    held by ``queue``'s placement; the capsule is consumed."""
    dtype, shape, ptr = t.dtype, t.shape, t.ptr
    isz = dtype.itemsize
    bstrides = tuple(s * isz for s in t.strides)
    dev_type, dev_id = t.dev
    usm = _USM_OF_DLPACK[dev_type]
    size = math.prod(shape)
    if size:
        lo, hi = span(shape, bstrides)
        hi += isz - 1  # the last byte
        if hi - lo >= INDEX_LIMIT or ptr + lo < 0 or ptr + hi >= 2**64:
            raise ValueError(f"from_dlpack: shape {shape} and strides {t.strides} leave "
                             "the address space")
        check_memory(ptr + lo, ptr + hi, (usm,), None if usm == "host" else dev_id,
                     "from_dlpack")
        align = isz // 2 if dtype.kind == "c" else isz
        if ptr % align:
            raise BufferError(f"from_dlpack: the first element at {ptr:#x} is not aligned "
                              f"for {dtype}")
    owner = _dl._Owner()
    owner.arm(t)  # type: ignore[arg-type]
    if not size:
        owner.release()
        return cupy.ndarray(shape, dtype)
    dev = queue.device_id if usm == "host" else dev_id
    return view(ptr, shape, dtype, bstrides, Placed(queue, usm, owner), dev)


__all__ = [
    "DEVICE_TYPES", "KDL_CPU", "KDL_CUDA", "KDL_CUDA_HOST", "KDL_CUDA_MANAGED", "Placed",
    "cai_dict", "check_memory", "import_cai", "import_capsule", "read_cai", "read_capsule",
    "set_capsule_device", "set_capsule_read_only", "view",
]
