"""``__array_namespace_info__()``: capabilities, devices and default dtypes."""

from __future__ import annotations

from typing import Any

from . import _backend
from . import _dtypes as dt
from ._device import Device, default_device
from ._placement import default_complex, default_float, has_fp64

_KINDS = dt.KINDS


def _queue(device: Any) -> Any:
    return Device.create_device(device)._q


class Info:
    """The namespace inspection object of the array API standard, for one version of it
    (``devices()`` returns a list before 2025.12, a tuple from then on)."""

    __module__ = "usmarray"
    __slots__ = ("_version",)

    def __init__(self, version: str = "2025.12") -> None:
        self._version = version

    def capabilities(self) -> dict[str, Any]:
        return {
            "boolean indexing": True,
            "data-dependent shapes": True,
            "max dimensions": 64,
        }

    def default_device(self) -> Device:
        return default_device()

    def default_dtypes(self, *, device: Any = None) -> dict[str, Any]:
        q = _queue(device)
        return {
            "real floating": dt.public(default_float(q)),
            "complex floating": dt.public(default_complex(q)),
            "integral": dt.public(dt.int64),
            "indexing": dt.public(dt.int64),
        }

    def devices(self) -> tuple[Device, ...] | list[Device]:
        """Every device of every backend: the SYCL devices, then the NumPy host device
        and those of registered backends."""
        out: list[Device] = []
        for be in _backend.backends().values():
            if be.available():
                out.extend(Device._make(be, q) for q in be.devices())
        return out if self._version < "2025.12" else tuple(out)

    def dtypes(self, *, device: Any = None, kind: Any = None) -> dict[str, Any]:
        q = _queue(device)
        allowed = [d for d in dt.ALL_DTYPES if has_fp64(q) or d not in (dt.float64, dt.complex128)]
        if kind is None:
            selected = set(allowed)
        else:
            kinds = kind if isinstance(kind, tuple) else (kind,)
            selected = set()
            for k in kinds:
                if isinstance(k, str):
                    if k not in _KINDS:
                        raise ValueError(f"dtypes: unknown kind {k!r}; use one of {sorted(_KINDS)}")
                    selected |= _KINDS[k]
                else:
                    selected.add(dt.check_dtype(k, "kind"))
        return {d.name: dt.public(d) for d in allowed if d in selected}

