"""The source of concat and stack's copy (:mod:`.join`), no CuPy needed, so that tests
compile it, and run its logic as host C++, without a GPU: the word type and the table's
size, then ``include/usmarray/join.cuh`` with its ``extern "C"`` entry point ``k``."""

from __future__ import annotations

from .headers import header

#: the most inputs one launch takes (the table travels by value in one kernel parameter)
MAX_INPUTS = 64


def source(word: str) -> str:
    """The kernel ``k`` that moves words of C type ``word``."""
    return f"typedef {word} T; enum {{ USM_JOIN_INPUTS = {MAX_INPUTS} }};\n" + header("join.cuh")


__all__ = ["MAX_INPUTS", "source"]
