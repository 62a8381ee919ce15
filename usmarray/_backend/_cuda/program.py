"""Compile and launch generated CUDA C kernels with NVRTC through CuPy (the kernel
factory's CUDA side; ``usmarray.kernels`` calls only this module's functions).

- :func:`compile` builds the source with NVRTC through the backend's one compile path
  (``kernels/_launch.module``: its options, subnormals kept) for the queue's device;
  the binary is kept on disk (``USMARRAY_CUDA_CACHE_DIR``), so a second process loads
  it without compiling.  A compiler error becomes :class:`BuildFailure` with NVRTC's log.
- :func:`launcher` packs the arguments (each array's data pointer, which already
  includes the view's offset, so the element offset passed is 0; run-time sizes and
  strides in elements; scalars as NumPy scalars of the parameter's type) and launches on
  the queue's stream: grid-stride loops cover every size, so the grid is capped at
  what the hardware allows.

A queue here is the CUDA backend's queue (its ``device_id`` and ``stream``: a CuPy
stream, an external one too).  Nothing here imports the namespace layer.
"""

from __future__ import annotations

from typing import Any

import cupy
import numpy as np

from .._program_args import Packer
from .kernels._launch import CompileError, module

LANGUAGE = "cuda"
#: no limit: the kernels' parallel axes are grid-stride loops with 64-bit indices
MAX_WORK_ITEMS = None
_BLOCK = 256
_MAX_GRID_X = 2**31 - 1
_MAX_GRID_YZ = 65535


class BuildFailure(Exception):
    """NVRTC refused a program: ``args[0]`` says why, ``log`` is the compiler's log."""

    def __init__(self, message: str, log: str | None) -> None:
        super().__init__(message)
        self.log = log


def program_key(q: Any) -> Any:
    return ("cuda", q.device_id)


def max_parallel_axes(q: Any) -> int:
    return 3


def has_fp64(q: Any) -> bool:
    return True


def describe(q: Any) -> str:
    dev = q.device_id
    name = cupy.cuda.runtime.getDeviceProperties(dev)["name"]
    if isinstance(name, bytes):
        name = name.decode()
    return f"cuda:{dev} ({name})"


def unsupported(q: Any) -> str | None:
    return None


def strides(v: Any) -> tuple[int, ...]:
    """Strides in elements (CuPy's are in bytes)."""
    isz = v.itemsize
    return tuple(s // isz for s in v.strides)


def offset(raw: Any) -> int:
    """The element offset the kernel must add to the pointer passed for ``raw``."""
    return 0


def compile(q: Any, source: str, name: str) -> Any:  # noqa: A001
    with cupy.cuda.Device(q.device_id):
        try:
            return module(source).get_function(name)
        except CompileError as exc:
            raise BuildFailure(f"NVRTC rejected the kernel for {describe(q)}",
                               exc.args[0]) from None


_SCALAR = {
    "bool": np.uint8, "int8": np.int8, "uint8": np.uint8, "int16": np.int16,
    "uint16": np.uint16, "int32": np.int32, "uint32": np.uint32, "int64": np.int64,
    "uint64": np.uint64, "float32": np.float32, "float64": np.float64,
}


def _grid(gsize: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    gx = min(-(-gsize[0] // _BLOCK), _MAX_GRID_X)
    grid = (gx,) + tuple(min(n, _MAX_GRID_YZ) for n in gsize[1:])
    block = (_BLOCK,) + (1,) * (len(gsize) - 1)
    return grid, block


class Launcher(Packer):
    """The launch path of one compiled kernel (the interface of
    ``_sycl/program.Launcher``): arrays pass as CuPy arrays (their data pointer,
    offset included), sizes and strides as int64, scalars as NumPy scalars; the launch
    is asynchronous on the queue's stream (stream order is the only order CUDA needs)."""

    __slots__ = ("kernel",)
    int64 = np.int64
    strides = staticmethod(strides)

    def __init__(self, kernel: Any, params: tuple[tuple, ...], error_record: bool,
                 flat: bool) -> None:
        super().__init__(params, error_record, flat, _SCALAR)
        self.kernel = kernel

    def submit(self, q: Any, args: list, gsize: tuple[int, ...]) -> None:
        grid, block = _grid(gsize)
        with cupy.cuda.Device(q.device_id), q.stream:
            self.kernel(grid, block, tuple(args))


def launcher(kernel: Any, params: tuple[tuple, ...], n_extra: int, error_record: bool,
             flat: bool = False) -> Launcher:
    """The :class:`Launcher` of ``kernel`` for the argument layout ``params``."""
    return Launcher(kernel, params, error_record, flat)


__all__ = [
    "LANGUAGE", "MAX_WORK_ITEMS", "BuildFailure", "compile", "describe", "offset", "has_fp64", "launcher",
    "max_parallel_axes", "program_key", "strides", "unsupported",
]
