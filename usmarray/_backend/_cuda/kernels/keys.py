"""Order keys of real and bool elements for the CUDA kernels' sources: an unsigned
integer of the element's width whose order is the namespace's sort order (no CuPy
needed, so that tests compile the sources that use them without a GPU)."""

from __future__ import annotations

import numpy as np

from .c_types import CTYPES

#: the unsigned key dtype of each element size, and its C type
KEY_DTYPES = {n: np.dtype(f"uint{8 * n}") for n in (1, 2, 4, 8)}
KEYS = {n: CTYPES[d] for n, d in KEY_DTYPES.items()}


def key_body(d: np.dtype) -> str:
    """The body of ``key_of(v)``: an unsigned key of ``d``'s width whose order is the
    namespace's (NaN last, -0.0 equal to 0.0, every bit of a subnormal counted)."""
    k = KEYS[d.itemsize]
    top = f"(({k})1 << {8 * d.itemsize - 1})"
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


def key_source(d: np.dtype) -> str:
    """The C types ``T`` (of ``d``) and ``K`` (its key) and the device function
    ``key_of(v)`` (:func:`key_body`) that the sources of the sorts, the searches and
    the unique family start with."""
    return (f"typedef {CTYPES[d]} T; typedef {KEYS[d.itemsize]} K;\n"
            f"__device__ __forceinline__ K key_of(const T v) {{\n{key_body(d)}\n}}\n")


def value_body(d: np.dtype) -> str:
    """The body of ``value_of(k)``: the value of dtype ``d`` whose key is ``k``
    (:func:`key_body`'s inverse; the key of every zero gives +0.0, of every NaN the
    canonical NaN)."""
    k = KEYS[d.itemsize]
    top = f"(({k})1 << {8 * d.itemsize - 1})"
    if d.kind == "b":
        return "  return k != 0;"
    if d.kind == "u":
        return "  return (T)k;"
    if d.kind == "i":
        return f"  return (T)(k ^ {top});"
    as_float, nan = (("__uint_as_float", "0x7fc00000u") if d.itemsize == 4
                     else ("__longlong_as_double", "0x7ff8000000000000ull"))
    return (f"  const {k} b = k == ({k})~({k})0 ? ({k}){nan} "
            f": (k & {top}) ? (k ^ {top}) : ({k})~k;\n"
            f"  return {as_float}(b);")


__all__ = ["KEYS", "KEY_DTYPES", "key_body", "key_source", "value_body"]
