"""Importing objects that expose ``__sycl_usm_array_interface__`` (SUAI).

Validated before any memory is touched: the dictionary's types and lengths,
``version == 1``, a standard dtype, a pointer in ``[0, 2**64)``, a byte extent
(lowest to highest addressed element) inside the address space and under 2**62
bytes, no dense self-overlap, a ``syclobj`` naming a context, and a pointer that is
USM memory of that context.  Where the backend tells the bounds of the allocation
holding the pointer (OpenCL, Level Zero: ``_backend/_sycl/usm_query.py``), the extent
must lie inside them.  Elsewhere the first and last addressed bytes must be USM
memory of the context, and the producer is trusted that they belong to the
pointer's allocation.

The result is a view of exactly that extent (a ``dpctl.memory`` object that keeps
the producer alive), so negative strides and offsets read what the interface names.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import dpctl
import dpctl.memory as dpm
import numpy as np

from ... import _dtypes as dt
from .._layout import INDEX_LIMIT
from .usm_query import pointer_info

_MEMORY = {"device": dpm.MemoryUSMDevice, "shared": dpm.MemoryUSMShared, "host": dpm.MemoryUSMHost}
_ADDRESS_LIMIT = 2**64


class Interface(NamedTuple):
    """A validated interface; ``lo`` and ``hi`` are the lowest and highest addressed
    element, counted from ``ptr`` (``hi < lo`` when the view is empty)."""

    ptr: int
    readonly: bool
    shape: tuple[int, ...]
    strides: tuple[int, ...] | None
    offset: int
    dtype: np.dtype
    lo: int
    hi: int
    syclobj: Any


def _bad(why: str) -> ValueError:
    return ValueError(f"asarray: invalid __sycl_usm_array_interface__: {why}")


def check_usm_interface(iface: Any) -> Interface:
    """Check the dictionary alone (no runtime queries): TypeError for a non-dict or a
    non-standard dtype, ValueError for anything else the provider could misread."""
    if not isinstance(iface, dict):
        raise TypeError(f"asarray: __sycl_usm_array_interface__ must be a dict, got {type(iface).__name__}")
    data, shape, strides = iface.get("data"), iface.get("shape"), iface.get("strides")
    typestr, offset, version = iface.get("typestr"), iface.get("offset", 0), iface.get("version")
    if type(version) is not int or version != 1:
        raise _bad(f"'version' must be 1, got {version!r}")
    if not (isinstance(data, tuple) and len(data) == 2 and type(data[0]) is int
            and 0 <= data[0] < _ADDRESS_LIMIT):
        raise _bad(f"'data' must be (pointer, read_only) with a pointer in [0, 2**64), got {data!r}")
    if not (isinstance(shape, tuple) and all(type(n) is int and 0 <= n < INDEX_LIMIT for n in shape)):
        raise _bad(f"'shape' must be a tuple of non-negative ints, got {shape!r}")
    if strides is not None and not (
        isinstance(strides, tuple) and len(strides) == len(shape)
        and all(type(s) is int and -INDEX_LIMIT < s < INDEX_LIMIT for s in strides)
    ):
        raise _bad(f"'strides' must be None or a tuple of {len(shape)} ints, got {strides!r}")
    if type(offset) is not int or not -INDEX_LIMIT < offset < INDEX_LIMIT:
        raise _bad(f"'offset' must be an int, got {offset!r}")
    if not isinstance(typestr, str):
        raise _bad(f"'typestr' must be a string, got {typestr!r}")
    try:
        d = np.dtype(typestr)
    except TypeError:
        raise _bad(f"'typestr' {typestr!r} is not a data type") from None
    if not dt.is_np_standard(d):
        raise TypeError(f"asarray: interface typestr {typestr!r} is not one of the standard's dtypes")
    size = math.prod(shape)
    ptr, isz = data[0], d.itemsize
    if size == 0:
        return Interface(ptr, bool(data[1]), shape, strides, offset, d, 0, -1, iface.get("syclobj"))
    if strides is None:
        full, acc = [0] * len(shape), 1
        for k in range(len(shape) - 1, -1, -1):
            full[k], acc = acc, acc * shape[k]
    else:
        full = list(strides)
    lo = offset + sum(s * (n - 1) for s, n in zip(full, shape, strict=True) if s < 0)
    hi = offset + sum(s * (n - 1) for s, n in zip(full, shape, strict=True) if s > 0)
    if (hi - lo + 1) * isz >= INDEX_LIMIT:
        raise _bad(f"shape {shape}, strides {strides} and offset {offset} span 2**62 bytes or more")
    if not (0 <= ptr + lo * isz and ptr + (hi + 1) * isz <= _ADDRESS_LIMIT):
        raise _bad(
            f"pointer {ptr:#x} with offset {offset}, shape {shape} and strides {strides} "
            "addresses bytes outside the 64-bit address space"
        )
    if strides is not None and hi - lo + 1 == size:
        # a span of exactly `size` elements looks dense to the provider, which then
        # copies it as one block: that is right only when no two elements share an address
        expect = 1
        for st, n in sorted((abs(st), n) for st, n in zip(strides, shape, strict=True) if n > 1):
            if st != expect:
                raise _bad(f"strides {strides} make the elements of shape {shape} overlap")
            expect = st * n
    return Interface(ptr, bool(data[1]), shape, strides, offset, d, lo, hi, iface.get("syclobj"))


def foreign_interface(obj: Any, array_type: type) -> Any:
    """``obj``'s interface when it must be imported through it, else None: provider
    arrays (``array_type``) and objects handing one over by ``__usm_ndarray__`` (dpnp)
    need no import."""
    if isinstance(obj, array_type):
        return None
    if isinstance(getattr(obj, "__usm_ndarray__", None), array_type):
        return None
    return getattr(obj, "__sycl_usm_array_interface__", None)


def _queue_and_context(syclobj: Any, native_queue: Any) -> tuple[Any, Any]:
    """(queue or None, context) that ``syclobj`` names: a SyclQueue, SyclContext,
    SyclDevice, filter string, or a dpctl capsule of a queue or context."""
    if isinstance(syclobj, dpctl.SyclQueue):
        return syclobj, syclobj.sycl_context
    if isinstance(syclobj, dpctl.SyclContext):
        return None, syclobj
    if isinstance(syclobj, (dpctl.SyclDevice, str)):
        q = native_queue(syclobj)
        return q, q.sycl_context
    if type(syclobj).__name__ == "PyCapsule":
        # a capsule's pointer cannot be checked before dpctl dereferences it: a bogus one
        # would crash the process, so only queue/context objects are taken
        raise _bad(
            "'syclobj' is a PyCapsule; usmarray takes a dpctl.SyclQueue, SyclContext, "
            "SyclDevice or filter string there (a capsule's pointer cannot be validated)"
        )
    raise _bad(
        "'syclobj' must be a dpctl.SyclQueue, SyclContext, SyclDevice or filter string, "
        f"got {syclobj!r}"
    )


class _Extent:
    """The interface's byte extent as a 1-D byte interface for ``dpctl.memory``,
    holding the producer so that the memory object keeps it alive."""

    __slots__ = ("__sycl_usm_array_interface__", "_owner")

    def __init__(self, start: int, nbytes: int, syclobj: Any, owner: Any) -> None:
        self._owner = owner
        self.__sycl_usm_array_interface__ = {
            "data": (start, False), "shape": (nbytes,), "strides": None, "typestr": "|u1",
            "version": 1, "syclobj": syclobj,
        }


def _not_usm(what: str, addr: int, ctx: Any, fail: Any = _bad) -> ValueError:
    return fail(f"{what} {addr:#x} is not USM memory of the SYCL context named by 'syclobj' ({ctx})")


def _pointer_info(ctx: Any, syclobj: Any, addr: int) -> tuple[str | None, int, int]:
    """The runtime query, else dpctl's own check of a 1-byte view (bounds unknown)."""
    info = pointer_info(ctx, addr)
    if info is not None:
        return info
    try:
        kind = dpm.as_usm_memory(_Extent(addr, 1, syclobj, None)).get_usm_type()
    except Exception:  # dpctl refuses the pointer in some way
        kind = None
    return (kind if kind in _MEMORY else None, 0, 0)


def check_extent(
    ctx: Any, syclobj: Any, ptr: int, start: int, end: int, *, empty: bool = False,
    fail: Any = _bad,
) -> str:
    """The USM type of ``ptr``, after checking that bytes ``[start, end)`` lie in the
    allocation holding it (ValueError otherwise).  Where the runtime does not tell the
    allocation's bounds, both ends must at least be USM memory of the same kind.
    ``fail(why)`` makes the exception raised."""
    usm_type, base, size = _pointer_info(ctx, syclobj, ptr)
    if usm_type is None:
        raise _not_usm("pointer", ptr, ctx, fail)
    if size:
        if not base <= start < end <= base + size:
            raise fail(
                f"the view addresses bytes [{start:#x}, {end:#x}) but the allocation holding "
                f"its pointer is [{base:#x}, {base + size:#x})"
            )
    elif not empty:
        for what, addr in (("first addressed byte", start), ("last addressed byte", end - 1)):
            kind = _pointer_info(ctx, syclobj, addr)[0]
            if kind is None:
                raise _not_usm(what, addr, ctx, fail)
            if kind != usm_type:
                raise fail(f"the {what} {addr:#x} lies in another allocation than the pointer")
    return usm_type


def check_memory(mem: Any, what: str) -> int:
    """The bytes a ``dpctl.memory`` object claims, once the runtime confirms they lie in
    one USM allocation of its context (ValueError naming ``what`` otherwise): a memory
    object built over a crafted ``__sycl_usm_array_interface__`` can claim more than
    was allocated, and every array over it would read past the allocation.  Memory
    dpctl allocated itself (no ``reference_obj``) is its allocation and needs no query."""
    ptr, nbytes = int(mem._pointer), int(mem.nbytes)
    if nbytes and mem.reference_obj is not None:
        def fail(why: str) -> ValueError:
            return ValueError(f"{what} claims memory that is not one USM allocation: {why}")
        check_extent(mem.sycl_context, mem.sycl_queue, ptr, ptr, ptr + nbytes, fail=fail)
    return nbytes


def import_view(obj: Any, iface: Any, be: Any) -> Any:
    """A zero-copy array of the SYCL backend ``be`` over the memory ``iface`` names, on
    the queue of its ``syclobj`` (ValueError or TypeError for anything unsound; see the
    module doc)."""
    v = check_usm_interface(iface)
    q, ctx = _queue_and_context(v.syclobj, be.native_queue)
    syclobj = q if q is not None else ctx
    isz = v.dtype.itemsize
    empty = v.hi < v.lo
    start, end = (v.ptr, v.ptr + 1) if empty else (v.ptr + v.lo * isz, v.ptr + (v.hi + 1) * isz)
    usm_type = check_extent(ctx, syclobj, v.ptr, start, end, empty=empty)
    try:
        mem = _MEMORY[usm_type](_Extent(start, end - start, syclobj, obj))
    except ValueError:
        raise _not_usm("pointer", start, ctx) from None
    pt = be.provider
    if empty:
        raw = pt.usm_ndarray(v.shape, dtype=v.dtype, buffer=mem)
    else:
        # the element at index 0 sits offset - lo elements above the lowest one
        raw = pt.usm_ndarray(
            v.shape, dtype=v.dtype, buffer=mem, strides=v.strides, offset=v.offset - v.lo
        )
    if v.readonly:
        raw.flags["W"] = False
    return raw
