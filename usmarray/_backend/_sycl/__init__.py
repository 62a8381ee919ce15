"""The SYCL backend: dpctl.tensor kernels (from dpnp.tensor or dpctl), oneMKL linalg/fft,
the seed-000 constructor, SUAI/USM imports and the kernel factory's SYCL compiler."""

from .backend import SyclBackend

__all__ = ["SyclBackend"]
