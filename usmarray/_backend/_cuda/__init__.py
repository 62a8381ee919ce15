"""The CUDA backend: NVIDIA GPUs through CuPy's memory, streams and NVRTC, with
usmarray's own kernels where they measure faster, and the kernel factory's CUDA compiler."""

from .backend import CudaBackend

__all__ = ["CudaBackend"]
