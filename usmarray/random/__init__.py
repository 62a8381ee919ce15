"""Random numbers made on the array's device: one stream on every backend, NumPy's
Philox bit for bit.

``import usmarray.random``; ``rng = usmarray.random.default_rng(seed)``; then
``rng.random(shape)``, ``rng.standard_normal(shape)``, ``rng.integers(low, high,
shape)``, ... return usm_ndarrays on the generator's device (or the call's
``device=``).  The generator is NumPy's ``Philox`` bit generator (Philox 4x64-10,
Salmon et al. 2011) run in parallel: for the same seed, integers, uniform floats,
permutations and bytes are bit-identical on the NumPy backend, SYCL devices and CUDA
devices, and ``random`` equals NumPy's ``Generator(Philox(seed)).random``.  See
docs/random.md.

This module is outside the array API standard (which has no random numbers), as
``usmarray.kernels`` is.
"""

from __future__ import annotations

from ._generator import Generator, default_rng

__all__ = ["Generator", "default_rng"]
