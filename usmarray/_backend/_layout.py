"""Layout facts every backend shares: the index range, views the kernels would misread,
and the shape operands broadcast to."""

from __future__ import annotations

from typing import Any

#: byte extents, offsets and strides must stay below this (64-bit arithmetic with headroom)
INDEX_LIMIT = 2**62


def check_layout_flags(raw: Any, strides: tuple[int, ...] | None = None) -> None:
    """Refuse views the provider would misread: it flags some self-overlapping layouts
    as contiguous (shape (4, 4), strides (2, 3) is "F-contiguous" to it) and its kernels
    would then read the buffer as a dense block.  ``strides``: ``raw``'s strides in
    elements (by default ``raw.strides``, which the SYCL provider counts in elements)."""
    flags = raw.flags
    if not (flags.c_contiguous or flags.f_contiguous) or raw.size <= 1:
        return
    shape = raw.shape
    strides = raw.strides if strides is None else strides
    dims = [(n, s) for n, s in zip(shape, strides, strict=True) if n != 1]
    for order_dims in (dims[::-1], dims):  # C order: last axis fastest; then F order
        expect = 1
        for n, s in order_dims:
            if s != expect:
                break
            expect *= n
        else:
            return
    raise ValueError(
        f"usm_ndarray: shape {shape} with strides {strides} makes elements overlap in a "
        "way the kernels cannot address; use strides that give each element its own place"
    )


def broadcast_shape(*shapes: tuple[int, ...]) -> tuple[int, ...] | None:
    """The shape ``shapes`` broadcast to, or None where they do not broadcast."""
    nd = max(len(s) for s in shapes)
    out = []
    for i in range(-nd, 0):
        n = 1
        for s in shapes:
            if len(s) >= -i:
                v = s[i]
                if v != 1:
                    if n != 1 and v != n:
                        return None
                    n = v
        out.append(n)
    return tuple(out)
