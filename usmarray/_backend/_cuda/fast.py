"""Vectorized elementwise kernels for contiguous CUDA operands.

One thread handles four consecutive elements with one aligned vector load per
operand (16 bytes for 4-byte types: the ``float4`` pattern; two 16-byte loads for
8-byte types) and one vector store, or sixteen where every array of the kernel has
one-byte elements (bool, int8, uint8: one 16-byte load each); the last partial vector
is done element by element by the last thread.  Kernels are generated per (operation, dtypes),
compiled once through NVRTC by the one compile path (``kernels._launch.compiled``), and
kept in a dict keyed by the same tuple, so a call costs one dict lookup and one
launch.

Each ``make_*`` function returns a kernel with the array API's signature that takes
the fast path only when every operand is a C-contiguous ``cupy.ndarray`` of plain
device memory on the default stream (the all-device fast path of the backend),
with equal shapes and dtypes, aligned, and not empty; anything else goes to the
``fallback`` kernel (CuPy's strided kernels, under the backend's placement).
"""

from __future__ import annotations

import math
import struct
import sys
from collections.abc import Callable
from typing import Any

import cupy
import numpy as np

from ..._env import env_flag
from .kernels._launch import SLOTS as _ARGS
from .kernels._launch import compiled
from .kernels._launch import driver_launch as _launch
from .kernels._launch import stream_ptr as _stream_ptr

_nd = cupy.ndarray
_BLOCK = 256
_BLOCKS = (_BLOCK,)
_i64 = np.int64  # the kernels' element count is a long long


#: outputs of at most this many bytes are kept for reuse (see FastKernels.new_out)
SPARE_BYTES = 4 << 20
SPARE_KEYS = 8
SPARE_PER_KEY = 2
#: (pointer, pointer, pointer, element count) little-endian into 8-byte slots
_PACK_VV = struct.Struct("<QQQq")
_SCALAR_CODES = {"?": "?", "b": "b", "B": "B", "h": "h", "H": "H", "i": "i", "I": "I", "l": "q",
                 "L": "Q", "q": "q", "Q": "Q", "f": "f", "d": "d"}


def _pack_vs(d: np.dtype) -> struct.Struct:
    """(pointer, scalar of dtype ``d`` in its own 8-byte slot, pointer, count)."""
    code = _SCALAR_CODES[d.char]
    return struct.Struct(f"<Q{code}{8 - d.itemsize}xQq")


def _free_refcounts() -> tuple[int, int]:
    """The reference counts :meth:`FastKernels.new_out` sees for an array that only
    its spare list holds, and for its memory object (which views made from its
    memory pointer hold without holding the array), measured on a real array with
    the same code shape, so they hold for this interpreter and this CuPy."""
    getrc = sys.getrefcount
    lst = [_nd((1,), np.float32)]
    for r in lst:
        return getrc(r), getrc(r.data.mem)
    return 0, 0  # pragma: no cover


def _grid(n: int, e: int = 4) -> tuple[int]:
    return (((n + e - 1) // e + _BLOCK - 1) // _BLOCK,)


def width(d: np.dtype) -> int:
    """Elements a thread handles in a kernel whose arrays all have dtype ``d``'s size:
    16 one-byte elements (one 16-byte load), else 4.  A kernel over arrays of several
    dtypes takes the smallest of their widths."""
    return 16 if d.itemsize == 1 else 4

_CTYPES: dict[np.dtype, str] = {
    np.dtype(np.bool_): "bool",
    np.dtype(np.int8): "signed char", np.dtype(np.uint8): "unsigned char",
    np.dtype(np.int16): "short", np.dtype(np.uint16): "unsigned short",
    np.dtype(np.int32): "int", np.dtype(np.uint32): "unsigned int",
    np.dtype(np.int64): "long long", np.dtype(np.uint64): "unsigned long long",
    np.dtype(np.float32): "float", np.dtype(np.float64): "double",
}
_REAL = frozenset(d for d in _CTYPES if d.kind in "iuf")
_PACK_VS = {d: _pack_vs(d) for d in _REAL}
_FLOAT = frozenset(d for d in _CTYPES if d.kind == "f")

def _align(d: np.dtype) -> int:
    """The alignment the fast path asks of an operand of dtype ``d``: the vector a thread
    reads in a kernel of only such arrays."""
    return min(16, width(d) * d.itemsize)


def _vec(name: str, ctype: str, d: np.dtype, e: int) -> str:
    return f"struct __align__({min(16, e * d.itemsize)}) {name} {{ {ctype} v[{e}]; }};\n"


def _source(ins: list[tuple[np.dtype, bool]], out: np.dtype, expr: str) -> str:
    """A kernel over inputs ``ins`` ((dtype, is_scalar) each, named x, y, c in order
    c-first for three inputs) writing ``out[i] = expr``."""
    names = ["x", "y"] if len(ins) <= 2 else ["c", "x", "y"]
    names = names[: len(ins)]
    e = min(width(d) for d in [out, *(d for d, scalar in ins if not scalar)])
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
            src.append(_vec(f"V{k}", ct, d, e))
            params.append(f"const {ct}* __restrict__ p{k}")
            loads_vec.append(f"const {ct} {nm} = v{k}.v[t];")
            loads_one.append(f"const {ct} {nm} = p{k}[j];")
    oct_ = _CTYPES[out]
    src.append(_vec("VO", oct_, out, e))
    vec_reads = "".join(
        f"const V{k} v{k} = reinterpret_cast<const V{k}*>(p{k})[i];\n"
        for k, (_, scalar) in enumerate(ins) if not scalar
    )
    src.append(
        f'extern "C" __global__ void k({", ".join(params)}, {oct_}* __restrict__ po, '
        "const long long n) {\n"
        "  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
        f"  long long j = i * {e};\n"
        f"  if (j + {e} <= n) {{\n"
        f"    {vec_reads}"
        "    VO r;\n"
        "    #pragma unroll\n"
        f"    for (int t = 0; t < {e}; ++t) {{\n"
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
    type comparison on a one-GPU machine).  Kernels are compiled into CuPy
    ``Function`` objects, kept in one dict per operation keyed by dtype (and device,
    on a machine of several GPUs), and launched on CuPy's current stream.

    ``lean`` (default; ``USMARRAY_CUDA_LEAN=0`` switches it off): the launch is the
    driver's ``cuLaunchKernel`` through CuPy's C-typed binding, with the arguments
    packed by one ``struct.pack_into`` into per-thread slots, instead of
    ``Function.__call__`` (which boxes every argument).  Outputs of at most
    ``SPARE_BYTES`` are taken from a small per-(shape, dtype, stream) spare list:
    an array kept there is reused once nothing but the list references it or its
    memory (checked by reference count, calibrated at start-up), which is the
    moment CuPy's pool would reuse its memory on the same stream; at most
    ``SPARE_KEYS * SPARE_PER_KEY`` arrays (64 MiB at most) are kept, the
    oldest key giving way to a new one.
    """

    def __init__(self, is_fast: Callable[[Any], bool], single_gpu: bool = True,
                 lean: bool | None = None, spare: bool | None = None) -> None:
        self._cache: dict[tuple, Any] = {}
        self._is_fast = is_fast
        self._single = single_gpu
        self.enabled = True
        env = env_flag("USMARRAY_CUDA_LEAN", True)
        #: launch through cuLaunchKernel with packed arguments (else CuPy's Function)
        self.lean = (env if lean is None else lean) and _launch is not None
        free_rc, mem_rc = _free_refcounts()
        gil = getattr(sys, "_is_gil_enabled", lambda: True)()
        #: reuse unreferenced small outputs (one GPU, a GIL, refcounts this code knows)
        self.spare_on = ((env if spare is None else spare) and single_gpu and gil
                         and free_rc == 3 and mem_rc == 2)
        self.free_refcounts = (free_rc, mem_rc)
        self._spare: dict[tuple, list] = {}
        spare_d = self._spare
        getrc = sys.getrefcount

        def new_out(shape: tuple, d: np.dtype, n: int, stream: int) -> Any:
            """An output array: a spare one of this shape, dtype and stream that nothing
            references any more (its earlier readers are ordered before the new
            writer on the same stream, as with CuPy's pool), else a new one."""
            if n * d.itemsize <= SPARE_BYTES and self.spare_on:
                key = (shape, d, stream)
                lst = spare_d.get(key)
                if lst is not None:
                    for r in lst:
                        if (getrc(r) <= free_rc and getrc(r.data.mem) <= mem_rc
                                and r.shape == shape):
                            return r
                    r = _nd(shape, d)
                    if len(lst) < SPARE_PER_KEY:
                        lst.append(r)
                    return r
                r = _nd(shape, d)
                if len(spare_d) >= SPARE_KEYS:  # the oldest key makes room
                    del spare_d[next(iter(spare_d))]
                spare_d[key] = [r]
                return r
            return _nd(shape, d)

        self.new_out = new_out

        launch = _launch if self.lean else None
        packs = {k: struct.Struct("<" + "Q" * k + "q").pack_into for k in (2, 3, 4)}
        slots_of = _ARGS

        def run(f: Any, n: int, stream: int, arrays: tuple, e: int = 4) -> None:
            """Launch ``f`` over ``n`` elements (``e`` per thread: see :func:`width`) on
            ``stream`` with the arrays' pointers and ``n`` as arguments."""
            if launch is None:
                f(_grid(n, e), _BLOCKS, (*arrays, _i64(n)))
                return
            slots, pp = slots_of.t
            packs[len(arrays)](slots, 0, *[a.data.ptr for a in arrays], n)
            launch(f.ptr, ((n + e - 1) // e + 255) // 256, 1, 1, 256, 1, 1, 0, stream, pp, 0)

        self.run = run

    def clear_spare(self) -> None:
        """Drop the outputs kept for reuse (their memory goes back to CuPy's pool)."""
        self._spare.clear()

    def kernel(self, ins: tuple, out: np.dtype, expr: str) -> Any:
        """The compiled ``Function`` for ``out = expr(ins)`` on the current device."""
        key = (ins, out, expr, 0 if self._single else cupy.cuda.runtime.getDevice())
        k = self._cache.get(key)
        if k is None:
            k = self._cache[key] = compiled(_source(list(ins), out, expr), "k", not self._single)
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
    def make_canonical_nans(self, fallback: Any) -> Any:
        """``canonical_nans(a)``: a copy of the float array ``a`` with every NaN the
        canonical quiet NaN (sign clear, NumPy's payload), in one pass; ``fallback(a)``
        where the fast path does not take ``a``."""
        return self._one_operand("canonical_nans", {
            np.dtype(np.float32): "(x != x) ? __int_as_float(0x7fc00000) : x",
            np.dtype(np.float64): "(x != x) ? __longlong_as_double(0x7ff8000000000000LL) : x",
        }, fallback)

    def make_copy(self, fallback: Any) -> Any:
        """``copy(a, order=...)``: every layout it takes is C order, so ``order`` only
        matters to ``fallback``."""
        c_copy = self._one_operand("copy", {d: "x" for d in _CTYPES}, fallback)
        is_fast = self._is_fast

        def copy(a: Any, *args: Any, **kw: Any) -> Any:
            # a Fortran-ordered array (a transposed matrix) keeps its layout, as order
            # "K" asks: its memory copied flat by the vectorized kernel (the reversed-axes
            # view is C-contiguous), which runs at twice a device-to-device memcpy's speed
            if (a.__class__ is _nd and self.enabled and not args and kw.get("order", "K") == "K"
                    and not a._c_contiguous and a.size and a._f_contiguous
                    and is_fast(a)):
                return c_copy(a.T).T
            return c_copy(a, *args, **kw)

        copy.__name__ = "copy"
        return copy

    def _one_operand(self, name: str, exprs: dict[np.dtype, str], fallback: Any) -> Any:
        """``fn(a, ...)``: ``exprs[a.dtype]`` of each element of ``a`` where the fast path
        takes ``a``, else ``fallback(a, ...)``."""
        run, new_out = self.run, self.new_out
        table = self._table(lambda d: self.kernel(((d, False),), d, exprs[d]))
        ok = self._ok

        def fn(a: Any, *args: Any, **kw: Any) -> Any:
            if a.__class__ is _nd and self.enabled:
                d = a.dtype
                n = a.size
                if d in exprs and n and ok(a, d):
                    s = _stream_ptr()
                    out = new_out(a.shape, d, n, s)
                    run(table(d), n, s, (a, out), width(d))
                    return out
            return fallback(a, *args, **kw)

        fn.__name__ = name
        return fn

    def make_astype(self, fallback: Any) -> Any:
        run, new_out = self.run, self.new_out
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
                    s = _stream_ptr()
                    out = new_out(a.shape, t, n, s)
                    run(table(d), n, s, (a, out), min(width(d), width(t)))
                    return out
            return fallback(a, dtype, copy=copy, **kw)

        return astype

    def _converter(self, t: np.dtype) -> Callable[[np.dtype], Any]:
        expr = "x != 0" if t.kind == "b" else "x"

        def build(s: np.dtype) -> Any:
            return self.kernel(((s, False),), t, expr)

        return build

    def make_fill(self) -> Callable[[tuple, Any, np.dtype], Any]:
        """``fill(shape, value, dtype)``: a new C-contiguous array of ``value`` on the
        current device and stream: all-zero bits by a memset (any dtype), other
        values of a real or bool dtype by one vectorized store kernel; None where
        neither applies (complex values other than zero)."""
        table = self._table(lambda d: self.kernel(((d, True),), d, "x"))
        launch = _launch if self.lean else None
        args = _ARGS
        packs = {d: struct.Struct(f"<{_SCALAR_CODES[d.char]}{8 - d.itemsize}xQq").pack_into
                 for d in _CTYPES}

        def fill(shape: tuple, value: Any, d: np.dtype) -> Any:
            vc = value.__class__
            zero = value == 0 and not (vc is float and math.copysign(1.0, value) < 0) \
                and not (vc is complex and (math.copysign(1.0, value.real) < 0
                                            or math.copysign(1.0, value.imag) < 0))
            if not zero and d not in _CTYPES:
                return None
            out = _nd(shape, d)
            n = out.size
            if not n:
                return out
            if zero:
                out.data.memset_async(0, out.nbytes)
                return out
            v = d.type(value)
            f = table(d)
            s = _stream_ptr()
            e = width(d)
            if launch is None:
                f(_grid(n, e), _BLOCKS, (v, out, _i64(n)))
                return out
            slots, pp = args.t
            packs[d](slots, 0, v, out.data.ptr, n)
            launch(f.ptr, ((n + e - 1) // e + 255) // 256, 1, 1, 256, 1, 1, 0, s, pp, 0)
            return out

        return fill


#: (value, index) pairs for argmax/argmin: NaN beats every number, and of equal values
#: (NaNs included) the lower index wins; index -1 marks the identity.  ``I`` is the
#: index type: int below 2**31 elements (8-byte pairs for float32), else long long
_ARG_PREAMBLE = r"""
template <typename T, typename I> struct usm_arg { T v; I i; };
template <typename T, typename I> __device__ usm_arg<T, I> usm_arg_make(T v, I i) {
  usm_arg<T, I> r; r.v = v; r.i = i; return r; }
template <typename T, typename I> __device__ usm_arg<T, I> usm_arg_pick(
    const usm_arg<T, I>& a, const usm_arg<T, I>& b, bool mx) {
  if (a.i < 0) return b;
  if (b.i < 0) return a;
  const bool an = a.v != a.v, bn = b.v != b.v;
  if (an || bn) { if (an && bn) return a.i < b.i ? a : b; return an ? a : b; }
  if (a.v == b.v) return a.i < b.i ? a : b;
  return ((a.v > b.v) == mx) ? a : b;
}
"""


def make_argext(name: str, fallback: Any) -> Any:
    """``argmax``/``argmin`` of float32/float64 arrays as one reduction over (value,
    index) pairs that returns the first NaN wherever there is one (the standard's
    rule, which CuPy's kernels miss along an axis); other dtypes go to ``fallback``."""
    mx = "true" if name == "argmax" else "false"

    def build(ind: str) -> Any:
        return cupy.ReductionKernel(
            "T x", "int64 y", f"usm_arg_make<T, {ind}>(x, ({ind})_J)",
            f"usm_arg_pick<T, {ind}>(a, b, {mx})", "y = a.i",
            f"usm_arg_make<T, {ind}>((T)0, ({ind})-1)",
            f"usm_{name}_{ind.replace(' ', '')}", reduce_type=f"usm_arg<T, {ind}>",
            preamble=_ARG_PREAMBLE)

    rk32, rk64 = build("int"), build("long long")
    floats = frozenset({np.dtype(np.float32), np.dtype(np.float64)})

    def fn(a: Any, axis: Any = None, keepdims: bool = False) -> Any:
        if a.__class__ is _nd and a.dtype in floats and a.size:
            if not a.flags.c_contiguous:
                # the kernel's _J counts positions in the order CuPy walks the memory,
                # which for a transposed, flipped or stepped view is not the logical order
                a = cupy.ascontiguousarray(a)
            rk = rk32 if a.size < 2**31 else rk64
            return rk(a, axis=axis, keepdims=keepdims)
        return fallback(a, axis=axis, keepdims=keepdims)

    fn.__name__ = name
    return fn


__all__ = ["FastKernels", "make_argext"]
