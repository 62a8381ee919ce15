"""The SYCL backend's hooks of the ``usm_ndarray`` constructor.

The arguments are validated and bounds-checked once for every backend in
``usmarray/_backend/_construct.py``; here the provider's own constructor makes the
view, over USM memory it allocates (``dpctl.memory.MemoryUSM*`` of the kind) or over
an existing memory object, whose size the runtime confirms first.
"""

from __future__ import annotations

from typing import Any

from .._layout import INDEX_LIMIT


def ctor_memory(_sycl: Any, obj: Any) -> tuple[Any, int, Any] | None:
    """(memory object, its bytes, its queue) for a ``dpctl.memory.MemoryUSM*`` object
    or a raw provider array (its ``usm_data``); None for anything else."""
    if isinstance(obj, _sycl.provider.usm_ndarray):
        obj = obj.usm_data
    elif not _sycl.memory_object(obj):
        return None
    from .suai import check_memory  # dpctl: only a SYCL backend constructs

    return obj, check_memory(obj, "usm_ndarray: the buffer's memory object"), obj.sycl_queue


def ctor_queue(_sycl: Any, q: Any) -> Any:
    if not isinstance(q, type(_sycl.default_queue())):
        raise TypeError(
            f"usm_ndarray: buffer_ctor_kwargs['queue'] must be a dpctl.SyclQueue, got "
            f"{type(q).__name__}"
        )
    return q


def check_alloc(_sycl: Any, nbytes: int, usm_type: str, q: Any) -> None:
    """A new allocation must be representable and fit the device, before the provider's
    64-bit size arithmetic sees it (it wraps around silently)."""
    if nbytes >= INDEX_LIMIT or nbytes > q.sycl_device.global_mem_size:
        raise _sycl.memory_error(nbytes, q)


def ctor_make(_sycl: Any, shape: tuple, d: Any, strides: Any, offset: int, order: str,
              buffer: Any, q: Any, kwargs: dict) -> Any:
    """The provider's ``usm_ndarray`` over ``buffer`` (a kind: new memory on ``q``)."""
    if isinstance(buffer, str):
        kwargs = {**kwargs, "queue": q}
    return _sycl.provider.usm_ndarray(
        shape, dtype=d, strides=strides, buffer=buffer, offset=offset, order=order,
        buffer_ctor_kwargs=kwargs,
    )
