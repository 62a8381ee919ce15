"""Placement keywords of creation functions (``device=``, ``usm_type=``, and the SYCL
backend's ``sycl_queue=``) and the default dtypes of a device."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _dtypes as dt
from ._backend._construct import ALLOC_KINDS, check_usm_type
from ._device import Device, backend_of_queue, capabilities, resolve

USM_TYPES = ALLOC_KINDS


def placement(device: Any, usm_type: Any, sycl_queue: Any, fname: str) -> tuple[Any, Any, str]:
    """(backend, queue, usm_type) named by the placement keywords; usm_type defaults to
    the backend's first kind ("device" for SYCL, "host" for NumPy)."""
    if sycl_queue is None and type(device) is Device:
        be, q = device._be, device._q
    else:
        be, q = resolve(device, sycl_queue)
    if usm_type is None:
        return be, q, be.usm_types[0]
    return be, q, check_usm_type(be, usm_type, f"{fname}: usm_type")


def has_fp64(q: Any) -> bool:
    """Whether the device of queue ``q`` computes in double precision."""
    return capabilities(q).fp64


def default_float(q: Any) -> np.dtype:
    return dt.float64 if has_fp64(q) else dt.float32


def default_complex(q: Any) -> np.dtype:
    return dt.complex128 if has_fp64(q) else dt.complex64


def scalar_default_dtype(value: Any, q: Any) -> np.dtype:
    """The dtype a Python scalar gets on the device of queue ``q`` with no ``dtype=``."""
    t = type(value)
    if t is bool:
        return dt.bool
    if t is int:
        return dt.int64
    if t is float:
        return default_float(q)
    if t is complex:
        return default_complex(q)
    raise TypeError(f"expected a Python bool, int, float or complex, got {t.__name__}")


def check_device_dtype(d: np.dtype, q: Any, fname: str) -> None:
    """A device without fp64 refuses double-precision dtypes."""
    if (d is dt.float64 or d is dt.complex128) and not has_fp64(q):
        raise ValueError(
            f"{fname}: dtype {d} needs double precision, which device "
            f"{backend_of_queue(q).describe(q)} does not support; use float32/complex64"
        )


def optional_dtype(dtype: Any, fname: str) -> np.dtype | None:
    if dtype is None:
        return None
    return dt.check_dtype(dtype)
