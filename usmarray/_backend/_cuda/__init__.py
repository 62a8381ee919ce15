"""The CUDA backend: NVIDIA GPUs through CuPy's memory, streams and NVRTC, with
usmarray's own kernels where they measure faster, and the kernel factory's CUDA compiler.

``CudaBackend`` is imported on first use, so that the modules that need no CuPy
(:mod:`.layout`: the elementwise engine's layout plans and kernel sources) import
without it."""

from typing import Any

__all__ = ["CudaBackend"]


def __getattr__(name: str) -> Any:
    if name == "CudaBackend":
        from .backend import CudaBackend

        return CudaBackend
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
