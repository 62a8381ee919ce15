"""The source of ``searchsorted``'s kernel (:mod:`.search`), no CuPy needed, so that
tests compile it, and run its logic as host C++, without a GPU: keys.py's order key of
the dtype, then ``include/usmarray/search.cuh`` with its ``extern "C"`` entry point
``k``."""

from __future__ import annotations

import numpy as np

from .headers import header
from .keys import key_source


def source(d: np.dtype) -> str:
    """The kernel ``k`` of ``searchsorted`` for elements of dtype ``d``."""
    return key_source(d) + header("search.cuh")


__all__ = ["source"]
