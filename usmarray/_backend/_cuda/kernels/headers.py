"""The package's CUDA device code, ``include/usmarray/*.cuh`` (no CuPy needed, so that
tests compile generated sources without a GPU).

A kernel's source is the header's text with what varies per kernel (typedefs and
``#define``s, before the header where its code reads them) and the ``extern "C"``
entry point ``k``: in the header (join, search, triangle, unique, the reductions),
a section of a ``*_entries.cuh`` file (:func:`entry`: the gathers, the copies, the
ramps), or a string of the family's module (the others, and the elementwise engine's
generated ones); NVRTC then sees one
translation unit and needs no include path.
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


@cache
def _sections(name: str) -> dict[str, str]:
    parts = header(name).split("\n// entry: ")[1:]
    return {p.split("\n", 1)[0].split(":", 1)[0].strip(): p[p.index("\nextern"):].lstrip("\n")
            for p in parts}


def entry(name: str, section: str) -> str:
    """The ``extern "C"`` entry point ``section`` of ``include/usmarray/<name>``: after
    the line ``// entry: <section>: ...``, from its first ``extern`` line to the next
    section."""
    return _sections(name)[section]


__all__ = ["INCLUDE", "entry", "header"]
