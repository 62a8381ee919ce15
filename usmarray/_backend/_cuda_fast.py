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
_i64 = np.int64  # the kernels' element count is a long long


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
    stream of the current device (the backend's test: one attribute read and one
    type comparison on a one-GPU machine).  Kernels are kept as CuPy ``Function``
    objects (the launch below CuPy's ``RawKernel.__call__``) in one dict per
    operation keyed by dtype (and device, on a machine of several GPUs).
    """

    def __init__(self, is_fast: Callable[[Any], bool], single_gpu: bool = True) -> None:
        self._cache: dict[tuple, Any] = {}
        self._is_fast = is_fast
        self._single = single_gpu
        self.enabled = True

    def kernel(self, ins: tuple, out: np.dtype, expr: str) -> Any:
        """The compiled ``Function`` for ``out = expr(ins)`` on the current device."""
        key = (ins, out, expr, 0 if self._single else cupy.cuda.runtime.getDevice())
        k = self._cache.get(key)
        if k is None:
            k = self._cache[key] = cupy.RawKernel(_source(list(ins), out, expr), "k").kernel
        return k

    def _table(self, build: Callable[[np.dtype], Any]) -> Callable[[np.dtype], Any]:
        """dtype -> Function, built on first use (per device on several GPUs)."""
        table: dict[Any, Any] = {}
        single = self._single

        def get(d: np.dtype) -> Any:
            key = d if single else (d, cupy.cuda.runtime.getDevice())
            f = table.get(key)
            if f is None:
                f = table[key] = build(d)
            return f

        return get

    def _ok(self, a: Any, d: np.dtype) -> bool:
        return a._c_contiguous and self._is_fast(a) and not a.data.ptr % _align(d)

    # ---- wrappers ----------------------------------------------------------------------
    def make_binary(self, name: str, fallback: Any) -> Any:
        expr = BINARY[name]
        dtypes = BINARY_DTYPES[name]
        vv = self._table(lambda d: self.kernel(((d, False), (d, False)), d, expr))
        vs = self._table(lambda d: self.kernel(((d, False), (d, True)), d, expr))
        ok = self._ok

        def fn(a: Any, b: Any) -> Any:
            if a.__class__ is _nd and self.enabled:
                d = a.dtype
                n = a.size
                if d in dtypes and n and ok(a, d):
                    bc = b.__class__
                    if bc is _nd:
                        if b.dtype is d and b.shape == a.shape and ok(b, d):
                            out = _nd(a.shape, d)
                            vv(d)(_grid(n), _BLOCKS, (a, b, out, _i64(n)))
                            return out
                    elif (bc is float and d.kind == "f") or bc is int:
                        try:
                            sc = d.type(b)
                        except OverflowError:
                            return fallback(a, b)
                        out = _nd(a.shape, d)
                        vs(d)(_grid(n), _BLOCKS, (a, sc, out, _i64(n)))
                        return out
            return fallback(a, b)

        fn.__name__ = name
        return fn

    def make_unary(self, name: str, fallback: Any) -> Any:
        exprs = UNARY[name]
        table = self._table(lambda d: self.kernel(((d, False),), d, exprs[d]))
        ok = self._ok

        def fn(a: Any) -> Any:
            if a.__class__ is _nd and self.enabled:
                d = a.dtype
                n = a.size
                if d in exprs and n and ok(a, d):
                    out = _nd(a.shape, d)
                    table(d)(_grid(n), _BLOCKS, (a, out, _i64(n)))
                    return out
            return fallback(a)

        fn.__name__ = name
        return fn

    def make_copy(self, fallback: Any) -> Any:
        table = self._table(lambda d: self.kernel(((d, False),), d, "x"))
        ok = self._ok

        def copy(a: Any, order: Any = "K") -> Any:
            if a.__class__ is _nd and self.enabled:
                d = a.dtype
                n = a.size
                if d in _CTYPES and n and ok(a, d):
                    out = _nd(a.shape, d)
                    table(d)(_grid(n), _BLOCKS, (a, out, _i64(n)))
                    return out
            return fallback(a, order=order)

        return copy

    def make_astype(self, fallback: Any) -> Any:
        tables: dict[np.dtype, Any] = {}
        ok = self._ok

        def astype(a: Any, dtype: Any, copy: bool = True, **kw: Any) -> Any:
            if a.__class__ is _nd and self.enabled and not kw:
                d = a.dtype
                t = np.dtype(dtype)
                n = a.size
                if d is t and not copy:
                    return a
                if d in _CTYPES and t in _CTYPES and n and ok(a, d) \
                        and not a.data.ptr % _align(t):
                    table = tables.get(t)
                    if table is None:
                        table = tables[t] = self._table(self._converter(t))
                    out = _nd(a.shape, t)
                    table(d)(_grid(n), _BLOCKS, (a, out, _i64(n)))
                    return out
            return fallback(a, dtype, copy=copy, **kw)

        return astype

    def _converter(self, t: np.dtype) -> Callable[[np.dtype], Any]:
        expr = "x != 0" if t.kind == "b" else "x"

        def build(s: np.dtype) -> Any:
            return self.kernel(((s, False),), t, expr)

        return build

    def make_where(self, fallback: Any) -> Any:
        bool_ = np.dtype(np.bool_)
        table = self._table(
            lambda d: self.kernel(((bool_, False), (d, False), (d, False)), d, "c ? x : y"))
        ok = self._ok

        def where(c: Any, x: Any, y: Any) -> Any:
            if (c.__class__ is _nd and x.__class__ is _nd and y.__class__ is _nd
                    and self.enabled):
                d = x.dtype
                n = x.size
                if (d in _CTYPES and y.dtype is d and c.dtype is bool_ and n
                        and c.shape == x.shape == y.shape and ok(x, d)
                        and ok(y, d) and ok(c, bool_)):
                    out = _nd(x.shape, d)
                    table(d)(_grid(n), _BLOCKS, (c, x, y, out, _i64(n)))
                    return out
            return fallback(c, x, y)

        return where


__all__ = ["BINARY", "UNARY", "FastKernels"]
