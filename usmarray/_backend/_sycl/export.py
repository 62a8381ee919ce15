"""DLPack export: on the array's own SYCL device (kDLOneAPI), or to the host (kDLCPU).

The provider exports only on the array's device.  A consumer asking for kDLCPU
gets a zero-copy view where the memory is host-accessible (any USM kind on a CPU
device; "host" and "shared" memory elsewhere), after the queue has finished all
submitted work; otherwise a copy, or BufferError when ``copy=False``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

KDL_CPU = 1


class _HostView:
    """An ``__array_interface__`` over host-accessible USM memory that keeps it alive."""

    __slots__ = ("__array_interface__", "_owner")

    def __init__(self, raw: Any) -> None:
        iface = raw.__sycl_usm_array_interface__
        itemsize = raw.itemsize
        strides = iface["strides"]
        self._owner = raw.usm_data
        self.__array_interface__ = {
            "data": (iface["data"][0] + iface["offset"] * itemsize, False),
            "shape": iface["shape"],
            # the stride of an axis of one element is never used and may be anything
            # (x[::2**63 - 1]): 0 there keeps NumPy's C long from overflowing
            "strides": None if strides is None else tuple(
                s * itemsize if n > 1 else 0
                for n, s in zip(iface["shape"], strides, strict=True)),
            "typestr": iface["typestr"],
            "version": 3,
        }


def host_accessible(raw: Any) -> bool:
    return raw.sycl_device.is_cpu or raw.usm_type != "device"


def export(raw: Any, be: Any, stream: Any, max_version: Any, dl_device: Any, copy: Any) -> Any:
    if dl_device is None or tuple(dl_device) == tuple(raw.__dlpack_device__()):
        return raw.__dlpack__(stream=stream, max_version=max_version, copy=copy)
    if int(dl_device[0]) != KDL_CPU:
        raise BufferError(
            f"__dlpack__: cannot export to device {dl_device}; this array lives on "
            f"{raw.__dlpack_device__()} and can also be exported to the host (kDLCPU, 0)"
        )
    raw.sycl_queue.wait()
    if copy is not True and host_accessible(raw):
        host = np.asarray(_HostView(raw))
        if not raw.flags.writable:  # a read-only array exports read-only (or not at all)
            host.flags.writeable = False
    elif copy is False:
        raise BufferError(
            "__dlpack__: USM-device memory of a non-CPU device is not host-accessible; "
            "exporting to kDLCPU needs copy=True (or None)"
        )
    else:
        host = be.to_host(raw)
    return host.__dlpack__(max_version=max_version, copy=False if copy is None else copy)
