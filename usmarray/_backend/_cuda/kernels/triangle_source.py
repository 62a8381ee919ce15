"""The source of ``tril``/``triu``'s kernel (:mod:`.triangle`), no CuPy needed, so that
tests compile it, and run its logic as host C++, without a GPU: the element type, then
``include/usmarray/triangle.cuh`` with its ``extern "C"`` entry point ``k``."""

from __future__ import annotations

from .headers import header


def source(t: str) -> str:
    """The kernel ``k`` of ``tril``/``triu`` for elements of C type ``t``."""
    return f"typedef {t} T;\n" + header("triangle.cuh")


__all__ = ["source"]
