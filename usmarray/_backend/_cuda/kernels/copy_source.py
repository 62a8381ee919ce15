"""The sources of the row copies, ``repeat`` and ``roll`` (:mod:`.broadcast`), no CuPy
needed, so that tests compile them, and run their logic as host C++, without a GPU:
``include/usmarray/copy.cuh``, the word type and one ``extern "C"`` entry point ``k`` of
``include/usmarray/copy_entries.cuh`` each."""

from __future__ import annotations

from .headers import entry, header

#: the entry points of ``include/usmarray/copy.cuh``'s copies (sections of
#: ``copy_entries.cuh``)
ROWS_OF, REPEAT, ROLL = "rows_of", "repeat", "roll"


def source(name: str, word: str) -> str:
    """The kernel ``name`` (:data:`ROWS_OF`, :data:`REPEAT` or :data:`ROLL`) moving
    elements as words of C type ``word``."""
    return header("copy.cuh") + f"typedef {word} T;\n" + entry("copy_entries.cuh", name)


__all__ = ["REPEAT", "ROLL", "ROWS_OF", "source"]
