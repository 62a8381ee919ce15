"""The backend layer: memory allocation and kernels, behind one small protocol."""

from __future__ import annotations

from ._protocol import KERNEL_NAMES, Backend, Capabilities
from ._sycl import SyclBackend

#: the SYCL backend; every array of this build is allocated and computed through it
sycl = SyclBackend()

__all__ = ["KERNEL_NAMES", "Backend", "Capabilities", "SyclBackend", "sycl"]
