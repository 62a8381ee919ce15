"""The argument layout both kernel-factory launchers share (``_program_sycl``,
``_program_cuda``): per parameter, how its value is packed, and where each scalar
sits among the kernel's arguments."""

from __future__ import annotations

from typing import Any


def arg_layout(params: tuple[tuple, ...], flat: bool,
               scalar_types: dict[str, Any]) -> tuple[tuple, tuple]:
    """(packers, scalar_slots) for ``params`` (("array", shape, strides, has_offset) or
    ("scalar", dtype) entries): an array takes its pointer, its offset if it has one,
    its run-time sizes and (unless ``flat``) its strides; a scalar one converted slot."""
    packers: list[Any] = []
    slots = []
    pos = 0
    for k, entry in enumerate(params):
        if entry[0] == "array":
            packers.append((True, entry[1], entry[2], entry[3]))
            pos += 1 + entry[3] + len(entry[1]) + (0 if flat else len(entry[2]))
        else:
            conv = scalar_types[entry[1].name]
            packers.append((False, conv, None, False))
            slots.append((pos, k, conv))
            pos += 1
    return tuple(packers), tuple(slots)
