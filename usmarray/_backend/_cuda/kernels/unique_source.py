"""Sources of the sorted unique family of real and bool arrays (:mod:`.unique`), no CuPy
needed, so that tests compile them without a GPU.  The kernels are the sort's part of
``include/usmarray/unique.cuh``; a source defines what varies by dtype and the kind.

Every element becomes its order key (:func:`.keys.key_body`: -0.0 the key of 0.0,
every NaN the largest key, a subnormal's bits kept).  Where no position is asked for
(``unique_values``, ``unique_counts``) the keys themselves are sorted (``keys``,
``key_flags``, ``key_finish``).  Otherwise they are sorted stably as packed words
``digit << 32 | position``, 32 bits of the key a pass, the low digit first (one pass
for keys of up to 4 bytes, two for 8: ``pack``, ``flags``, ``finish``, ``inverse``).
CuPy's radix sort moves bits and compares integers only, and the kernels here never
compare floats, so no flush-to-zero mode of any compiler or GPU can merge a subnormal
with 0.  Each value is made from its key (:func:`.keys.value_body`): +0.0 for a run of
zeros, the canonical NaN for each NaN, in every function of the family alike.
"""

from __future__ import annotations

import numpy as np

from .headers import header
from .keys import key_source, value_body

#: the kernels of the family (see the module docstring)
KINDS = ("pack", "flags", "finish", "inverse", "keys", "key_flags", "key_finish")


def source(kind: str, d: np.dtype) -> str:
    """The kernel ``k`` of ``kind`` (one of :data:`KINDS`) for elements of dtype ``d``."""
    return (f"{key_source(d)}#define NAN_LAST {int(d.kind == 'f')}\n#define UNIQUE_{kind.upper()}\n"
            f"__device__ __forceinline__ T value_of(const K k) {{\n{value_body(d)}\n}}\n"
            + header("unique.cuh"))


def shifts(d: np.dtype) -> tuple[int, ...]:
    """The first key bit of each sort pass of ``d``'s keys, the low digit first."""
    return (0, 32) if d.itemsize == 8 else (0,)


__all__ = ["KINDS", "shifts", "source"]
