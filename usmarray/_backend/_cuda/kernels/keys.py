"""Order keys of real and bool elements for the CUDA kernels' sources: an unsigned
integer of the element's width whose order is the namespace's sort order (no CuPy
needed, so that tests compile the sources that use them without a GPU)."""

from __future__ import annotations

import numpy as np

#: the unsigned key type of each element size
KEYS = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long long"}


def key_body(d: np.dtype) -> str:
    """The body of ``key_of(v)``: an unsigned key of ``d``'s width whose order is the
    namespace's (NaN last, -0.0 equal to 0.0, every bit of a subnormal counted)."""
    k = KEYS[d.itemsize]
    bits = 8 * d.itemsize
    top = f"(({k})1 << {bits - 1})"
    if d.kind == "b":
        return f"  return ({k})(v ? 1 : 0);"
    if d.kind == "u":
        return f"  return ({k})v;"
    if d.kind == "i":
        return f"  return ({k})v ^ {top};"
    # from the bits alone: GPUs may flush subnormals to zero in every float
    # comparison, whatever NVRTC's -ftz says, and a subnormal must keep its place
    as_bits = "__float_as_uint" if d.itemsize == 4 else "__double_as_longlong"
    inf = "0x7f800000u" if d.itemsize == 4 else "0x7ff0000000000000ull"
    return (f"  {k} b = ({k}){as_bits}(v);\n"
            f"  const {k} mag = b & ~{top};\n"
            f"  if (mag > {inf}) return ({k})~({k})0;\n"
            f"  if (mag == 0) b = 0;\n"
            f"  return (b & {top}) ? ({k})~b : (b | {top});")


__all__ = ["KEYS", "key_body"]
