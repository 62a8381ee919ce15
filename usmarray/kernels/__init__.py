"""User kernels from one source, on every backend that compiles: the nd-aware kernel
factory (``kernel``) and an elementwise helper on top of it (``elementwise``).

See docs/kernels.md.  This package is namespace layer: it checks arguments and emits
OpenCL C or CUDA C; compiling and launching is the backend layer's
(``usmarray/_backend/_sycl/program.py``, ``_cuda/program.py``).
"""

from __future__ import annotations

from ._elementwise import ElementwiseKernel, elementwise
from ._errors import KernelSyntaxError
from ._fuse import FusedFunction, fuse
from ._kernel import Kernel, kernel

__all__ = ["ElementwiseKernel", "FusedFunction", "Kernel", "KernelSyntaxError", "elementwise", "fuse",
           "kernel"]
