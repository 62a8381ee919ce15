"""The package's CUDA device code, ``include/usmarray/*.cuh`` (no CuPy needed, so that
tests compile generated sources without a GPU).

A kernel's source is the header's text with what varies per kernel (typedefs and
``#define``s, before the header where its code reads them) and the ``extern "C"``
entry point ``k``: at the end of a header with one kernel, a section of a
``*_entries.cuh`` file for a family of several, or generated (the elementwise engine's,
the reductions'); NVRTC then sees one translation unit and needs no include path.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

#: the directory of the package's device code
INCLUDE = Path(__file__).parent.parent / "include" / "usmarray"


@cache
def header(name: str) -> str:
    """The text of ``include/usmarray/<name>``, read once a process."""
    return (INCLUDE / name).read_text()


__all__ = ["INCLUDE", "header"]
