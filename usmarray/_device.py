"""Devices: ``usmarray.Device`` and the compute-follows-data placement error."""

from __future__ import annotations

from typing import Any

from . import _backend

_sycl = _backend.sycl


class ExecutionPlacementError(ValueError, _sycl.ExecutionPlacementError):  # type: ignore[misc]
    """Arrays of one call live on different devices (or queues that are not equivalent).

    Subclasses ValueError (as the standard's device rules expect) and the kernel
    provider's own ExecutionPlacementError, so either ``except`` clause catches it.
    """


class Device:
    """A device in the array API sense: a backend plus one of its queues.

    Two Devices are equal when their queues are equal (equivalent SYCL queues:
    same context, device and properties).
    """

    __slots__ = ("_be", "_q")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError(
            "usmarray.Device has no public constructor; use "
            "usmarray.Device.create_device(obj) or x.device"
        )

    @classmethod
    def _make(cls, be: Any, q: Any) -> Device:
        self = object.__new__(cls)
        self._be = be
        self._q = q
        return self

    @classmethod
    def create_device(cls, obj: Any = None) -> Device:
        """A Device from a filter string, ``dpctl.SyclDevice``, ``dpctl.SyclQueue``, a
        Device, or None (the default device)."""
        if isinstance(obj, Device):
            return obj
        if obj is None:
            return cls._make(_sycl, _sycl.default_queue())
        return cls._make(_sycl, _sycl.native_queue(obj))

    @property
    def sycl_queue(self) -> Any:
        return self._q

    @property
    def sycl_device(self) -> Any:
        return self._q.sycl_device

    @property
    def sycl_context(self) -> Any:
        return self._q.sycl_context

    @property
    def backend(self) -> str:
        return self._be.name

    def wait(self) -> None:
        """Block until all work submitted to this device's queue has finished."""
        self._q.wait()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Device):
            return NotImplemented
        return self._be is other._be and self._q == other._q

    def __hash__(self) -> int:
        return hash(self._q)

    def __repr__(self) -> str:
        return f"Device({self._be.describe(self._q)})"


def placement_error(fname: str, d1: Any, d2: Any) -> ExecutionPlacementError:
    return ExecutionPlacementError(
        f"{fname}: arrays are on different devices ({d1!r} and {d2!r}); compute "
        "follows data, so move one first with x.to_device(device) or "
        "usmarray.asarray(x, device=device)"
    )


def resolve_queue(be: Any, device: Any, sycl_queue: Any) -> Any:
    """The queue named by the complementary ``device=`` and ``sycl_queue=`` keywords."""
    if sycl_queue is not None:
        q = be.native_queue(sycl_queue) if not isinstance(sycl_queue, Device) else sycl_queue._q
        if device is not None and Device.create_device(device)._q != q:
            raise ValueError(
                f"device={device!r} and sycl_queue={sycl_queue!r} name different queues; "
                "pass one of them, or two that agree"
            )
        return q
    if device is None:
        return be.default_queue()
    return Device.create_device(device)._q
