"""Vectorized elementwise kernels for contiguous CUDA operands.

One thread handles four consecutive elements with one aligned vector load per
operand (16 bytes for 4-byte types: the ``float4`` pattern; two 16-byte loads for
8-byte types) and one vector store; the last partial vector is done element by
element by the last thread.  Kernels are generated per (operation, dtypes),
compiled once through NVRTC by CuPy's ``RawKernel`` (cached on disk by CuPy), and
kept in a dict keyed by the same tuple, so a call costs one dict lookup and one
launch.

Each ``make_*`` function returns a kernel with the array API's signature that takes
the fast path only when every operand is a C-contiguous ``cupy.ndarray`` of plain
device memory on the default stream (the all-device fast path of the backend),
with equal shapes and dtypes, aligned, and not empty; anything else goes to the
``fallback`` kernel (CuPy's strided kernels, under the backend's placement).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cupy
import numpy as np

_nd = cupy.ndarray
_BLOCK = 256
_BLOCKS = (_BLOCK,)


def _grid(n: int) -> tuple[int]:
    return (((n + 3) // 4 + _BLOCK - 1) // _BLOCK,)

_CTYPES = {
    np.dtype(np.bool_): "bool",
    np.dtype(np.int8): "signed char", np.dtype(np.uint8): "unsigned char",
    np.dtype(np.int16): "short", np.dtype(np.uint16): "unsigned short",
    np.dtype(np.int32): "int", np.dtype(np.uint32): "unsigned int",
    np.dtype(np.int64): "long long", np.dtype(np.uint64): "unsigned long long",
    np.dtype(np.float32): "float", np.dtype(np.float64): "double",
}
_REAL = frozenset(d for d in _CTYPES if d.kind in "iuf")
_FLOAT = frozenset(d for d in _CTYPES if d.kind == "f")

#: binary operations: C expression in x, y (both of the operands' type)
BINARY = {"add": "x + y", "subtract": "x - y", "multiply": "x * y", "divide": "x / y"}
#: dtypes each binary operation takes the fast path for
BINARY_DTYPES = {"add": _REAL, "subtract": _REAL, "multiply": _REAL, "divide": _FLOAT}
#: unary operations: C expression in x per input type
UNARY = {"sin": {np.dtype(np.float32): "sinf(x)", np.dtype(np.float64): "sin(x)"}}


def _align(d: np.dtype) -> int:
    return min(16, 4 * d.itemsize)


def _vec(name: str, ctype: str, d: np.dtype) -> str:
    return f"struct __align__({_align(d)}) {name} {{ {ctype} v[4]; }};\n"


def _source(ins: list[tuple[np.dtype, bool]], out: np.dtype, expr: str) -> str:
    """A kernel over inputs ``ins`` ((dtype, is_scalar) each, named x, y, c in order
    c-first for three inputs) writing ``out[i] = expr``."""
    names = ["x", "y"] if len(ins) <= 2 else ["c", "x", "y"]
    names = names[: len(ins)]
    src = []
    params = []
    loads_vec = []
    loads_one = []
    for k, ((d, scalar), nm) in enumerate(zip(ins, names, strict=True)):
        ct = _CTYPES[d]
        if scalar:
            params.append(f"const {ct} s{k}")
            loads_vec.append(f"const {ct} {nm} = s{k};")
            loads_one.append(f"const {ct} {nm} = s{k};")
        else:
            src.append(_vec(f"V{k}", ct, d))
            params.append(f"const {ct}* __restrict__ p{k}")
            loads_vec.append(f"const {ct} {nm} = v{k}.v[t];")
            loads_one.append(f"const {ct} {nm} = p{k}[j];")
    oct_ = _CTYPES[out]
    src.append(_vec("VO", oct_, out))
    vec_reads = "".join(
        f"const V{k} v{k} = reinterpret_cast<const V{k}*>(p{k})[i];\n"
        for k, (_, scalar) in enumerate(ins) if not scalar
    )
    src.append(
        f'extern "C" __global__ void k({", ".join(params)}, {oct_}* __restrict__ po, '
        "const long long n) {\n"
        "  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  long long j = i * 4;\n"
        "  if (j + 4 <= n) {\n"
        f"    {vec_reads}"
        "    VO r;\n"
        "    #pragma unroll\n"
        "    for (int t = 0; t < 4; ++t) {\n"
        f"      {' '.join(loads_vec)}\n"
        f"      r.v[t] = ({oct_})({expr});\n"
        "    }\n"
        "    reinterpret_cast<VO*>(po)[i] = r;\n"
        "  } else {\n"
        "    for (; j < n; ++j) {\n"
        f"      {' '.join(loads_one)}\n"
        f"      po[j] = ({oct_})({expr});\n"
        "    }\n"
        "  }\n"
        "}\n"
    )
    return "".join(src)


class FastKernels:
    """Cache of compiled vectorized kernels; ``make_*`` build the fast-path wrappers.

    ``is_fast(raw)``: whether a raw array is plain device memory on the default
    stream of the current device (the backend's test, one attribute read and one
    type comparison on a one-GPU machine).
    """

    def __init__(self, is_fast: Callable[[Any], bool]) -> None:
        self._cache: dict[tuple, Any] = {}
        self._is_fast = is_fast
        self.enabled = True

    def kernel(self, ins: tuple, out: np.dtype, expr: str) -> Any:
        key = (ins, out, expr)
        k = self._cache.get(key)
        if k is None:
            k = self._cache[key] = cupy.RawKernel(_source(list(ins), out, expr), "k")
        return k

    def _ok(self, a: Any, d: np.dtype) -> bool:
        return (a.flags.c_contiguous and self._is_fast(a)
                and a.data.ptr % _align(d) == 0)

    # ---- wrappers ----------------------------------------------------------------------
    def make_binary(self, name: str, fallback: Any) -> Any:
        expr = BINARY[name]
        dtypes = BINARY_DTYPES[name]
        kernel = self.kernel

        def fn(a: Any, b: Any) -> Any:
            if self.enabled and a.__class__ is _nd:
                d = a.dtype
                n = a.size
                if d in dtypes and n and self._ok(a, d):
                    if b.__class__ is _nd:
                        if b.dtype is d and b.shape == a.shape and self._ok(b, d):
                            out = _nd(a.shape, d)
                            kernel(((d, False), (d, False)), d, expr)(
                                _grid(n), _BLOCKS,
                                (a, b, out, np.int64(n)))
                            return out
                    elif b.__class__ in (int, float) and not (
                            d.kind in "iu" and b.__class__ is float):
                        try:
                            s = d.type(b)
                        except OverflowError:
                            return fallback(a, b)
                        out = _nd(a.shape, d)
                        kernel(((d, False), (d, True)), d, expr)(
                            _grid(n), _BLOCKS, (a, s, out, np.int64(n)))
                        return out
            return fallback(a, b)

        fn.__name__ = name
        return fn

    def make_unary(self, name: str, fallback: Any) -> Any:
        exprs = UNARY[name]
        kernel = self.kernel

        def fn(a: Any) -> Any:
            if self.enabled and a.__class__ is _nd:
                d = a.dtype
                expr = exprs.get(d)
                n = a.size
                if expr is not None and n and self._ok(a, d):
                    out = _nd(a.shape, d)
                    kernel(((d, False),), d, expr)(
                        _grid(n), _BLOCKS, (a, out, np.int64(n)))
                    return out
            return fallback(a)

        fn.__name__ = name
        return fn

    def make_copy(self, fallback: Any) -> Any:
        kernel = self.kernel

        def copy(a: Any, order: Any = "K") -> Any:
            if self.enabled and a.__class__ is _nd:
                d = a.dtype
                n = a.size
                if d in _CTYPES and n and self._ok(a, d):
                    out = _nd(a.shape, d)
                    kernel(((d, False),), d, "x")(
                        _grid(n), _BLOCKS, (a, out, np.int64(n)))
                    return out
            return fallback(a, order=order)

        return copy

    def make_astype(self, fallback: Any) -> Any:
        kernel = self.kernel

        def astype(a: Any, dtype: Any, copy: bool = True, **kw: Any) -> Any:
            if self.enabled and a.__class__ is _nd and not kw:
                d = a.dtype
                t = np.dtype(dtype)
                n = a.size
                if d is t and not copy:
                    return a
                if d in _CTYPES and t in _CTYPES and n and self._ok(a, d) \
                        and a.data.ptr % _align(t) == 0:
                    out = _nd(a.shape, t)
                    expr = "x != 0" if t.kind == "b" else "x"
                    kernel(((d, False),), t, expr)(
                        _grid(n), _BLOCKS, (a, out, np.int64(n)))
                    return out
            return fallback(a, dtype, copy=copy, **kw)

        return astype

    def make_where(self, fallback: Any) -> Any:
        kernel = self.kernel
        bool_ = np.dtype(np.bool_)

        def where(c: Any, x: Any, y: Any) -> Any:
            if (self.enabled and c.__class__ is _nd and x.__class__ is _nd
                    and y.__class__ is _nd):
                d = x.dtype
                n = x.size
                if (d in _CTYPES and y.dtype is d and c.dtype is bool_ and n
                        and c.shape == x.shape == y.shape and self._ok(x, d)
                        and self._ok(y, d) and self._ok(c, bool_)):
                    out = _nd(x.shape, d)
                    kernel(((bool_, False), (d, False), (d, False)), d, "c ? x : y")(
                        _grid(n), _BLOCKS,
                        (c, x, y, out, np.int64(n)))
                    return out
            return fallback(c, x, y)

        return where


__all__ = ["BINARY", "UNARY", "FastKernels"]
