"""Emitters: OpenCL C (SYCL backend) and CUDA C (CUDA backend) from one translated body.

The generated kernel takes, per signature parameter in order: an array as its pointer,
its element offset, its run-time sizes (``:`` axes) and its run-time strides (axes
whose stride is not specialised as 0 or 1); a scalar by value.  Then, in a ranged
variant, the low and high index of every axis (the part of the space a
``bounds="skip"`` call keeps, or one piece of a launch too large for one go); in
``bounds="check"`` mode, the error record.  :class:`ArgLayout` tells the backend's launcher the same.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._plan import Plan
from ._signature import Param
from ._translate import Translation

KERNEL_NAME = "uk_kernel"

OPENCL_TYPES = {
    "bool": "bool", "int8": "char", "uint8": "uchar", "int16": "short", "uint16": "ushort",
    "int32": "int", "uint32": "uint", "int64": "long", "uint64": "ulong",
    "float32": "float", "float64": "double",
}
CUDA_TYPES = {
    "bool": "bool", "int8": "signed char", "uint8": "unsigned char", "int16": "short",
    "uint16": "unsigned short", "int32": "int", "uint32": "unsigned int",
    "int64": "long long", "uint64": "unsigned long long", "float32": "float",
    "float64": "double",
}


@dataclass(frozen=True)
class Target:
    language: str
    types: dict[str, str]
    #: the type bool arrays and scalars are stored as (OpenCL allows no bool pointers)
    bool_storage: str
    index_type: str
    global_q: str
    func_q: str
    kernel_q: str


OPENCL = Target("opencl", OPENCL_TYPES, "uchar", "long", "__global ", "inline ", "__kernel void")
CUDA = Target("cuda", CUDA_TYPES, "unsigned char", "long long", "", "__device__ inline ",
              'extern "C" __global__ void')
TARGETS = {"opencl": OPENCL, "cuda": CUDA}


@dataclass(frozen=True)
class ArgLayout:
    """What the backend passes, per parameter: ("array", run-time size axes, run-time
    stride axes, offset passed) or ("scalar", dtype); then ``n_extra`` int64 values; then the error
    record when ``error_record``."""

    params: tuple[tuple, ...]
    n_extra: int
    error_record: bool


def ctype(t: Target, d: np.dtype) -> str:
    return t.bool_storage if d.kind == "b" else t.types[d.name]


def error_record_len(ndim: int) -> int:
    """int64 cells of the check-mode record: flag, site, axis, index, size, the point,
    then two cells of scratch that out-of-range accesses are redirected to."""
    return 5 + ndim + 2


def vector_width(params: tuple[Param, ...], tr: Translation, vtr: Translation,
                 body_words: set[str]) -> int:
    """Elements per thread of the CUDA flat path's vector loop (16-byte accesses for the
    widest array), or 0 when the body does not allow one: every access must be ``x(i0)``,
    a written array accessed once (its store), and no ``continue``/``break``/``goto``
    (a point that skips its store would store the vector's unset element)."""
    if body_words & {"continue", "break", "goto"}:
        return 0
    counts: dict[str, int] = {}
    for a in tr.accesses:
        if a.forms != (("var", 0, 0),):
            return 0
        counts[a.array] = counts.get(a.array, 0) + 1
    if any(counts.get(n, 0) != 1 for n in tr.written):
        return 0
    if len(vtr.accesses) != len(tr.accesses):  # pragma: no cover - one translator
        return 0
    widest = max((p.dtype.itemsize for p in params if p.is_array), default=0)
    return 16 // widest if widest and 16 // widest >= 2 else 0


def emit(t: Target, params: tuple[Param, ...], tr: Translation, plan: Plan, bounds: str,
         stride_classes: tuple[tuple[int | None, ...] | None, ...],
         extents: tuple[tuple, ...], ranged: bool = False,
         offsets: tuple[bool, ...] | None = None,
         vector: tuple[Translation, int] | None = None) -> tuple[str, ArgLayout]:
    """The kernel source and its argument layout.

    ``stride_classes[k]`` is, for array parameter k, a tuple per axis of 0 or 1 (a
    stride fixed at compile time) or None (passed at run time); ``extents[a]`` is
    ("const", n) or ("param", name, axis) for iteration axis a; ``ranged``: the low
    and high index of every axis are arguments (else 0 and the extent).  ``vector``
    (CUDA, the flat unchecked variant only): the body translated in "vector" mode and
    the elements per thread V; each thread then loads V consecutive elements of every
    array it reads with one aligned access (16 bytes for the widest dtype), runs the
    body V times and stores its outputs the same way, while every pointer is aligned;
    the rest (a tail, or unaligned views) runs the scalar loop."""
    ndim = plan.ndim
    I = t.index_type  # noqa: E741
    G = t.global_q
    lines: list[str] = []
    if tr.uses_fp64 and t.language == "opencl":
        lines.append("#pragma OPENCL EXTENSION cl_khr_fp64 : enable")
    lines.append(f"typedef {I} _uk_i;")
    if bounds == "clamp":
        lines.append(f"{t.func_q}_uk_i _uk_clamp(_uk_i i, _uk_i n) "
                     "{ return i < 0 ? 0 : (i >= n ? n - 1 : i); }")
    if bounds == "check":
        pts = ", ".join(f"_uk_i p{k}" for k in range(ndim))
        cas = ("atomic_cmpxchg((volatile __global int *)err, 0, 1) == 0"
               if t.language == "opencl" else "atomicCAS((int *)err, 0, 1) == 0")
        sets = " ".join(f"err[{5 + k}] = p{k};" for k in range(ndim))
        lines.append(
            f"{t.func_q}void _uk_fail({G}long *err, int site, int axis, _uk_i i, _uk_i n, {pts})"
            f" {{ if ({cas}) {{ err[1] = site; err[2] = axis; err[3] = i; err[4] = n; {sets} }} }}"
            if t.language == "opencl" else
            f"{t.func_q}void _uk_fail(long long *err, int site, int axis, _uk_i i, _uk_i n, "
            f"{pts}) {{ if ({cas}) {{ err[1] = site; err[2] = axis; err[3] = i; err[4] = n; "
            f"{sets} __threadfence(); }} }}"
        )
    err_t = f"{G}long" if t.language == "opencl" else "long long"
    ivars = ", ".join(f"_uk_ix{k}" for k in range(ndim))
    kparams: list[str] = []
    prologue: list[str] = []
    layout: list[list[Any]] = []
    arr_k = 0
    for p in params:
        ct = ctype(t, p.dtype)
        if not p.is_array:
            kparams.append(f"{ct} {p.name}")
            layout.append(["scalar", p.dtype])
            continue
        assert p.shape is not None
        sc = stride_classes[arr_k]
        assert sc is not None
        has_off = offsets is None or offsets[arr_k]
        arr_k += 1
        const = "" if p.name in tr.written else "const "
        kparams.append(f"{G}{const}{ct} *{p.name}")
        if has_off:
            kparams.append(f"_uk_i _uk_{p.name}_off")
            prologue.append(f"{p.name} += _uk_{p.name}_off;")
        rt_dims = []
        for d, n in enumerate(p.shape):
            if n is None:
                kparams.append(f"_uk_i _uk_{p.name}_n{d}")
                rt_dims.append(d)
            else:
                prologue.append(f"const _uk_i _uk_{p.name}_n{d} = {n};")
        rt_strides = []
        for d, c in enumerate(sc):
            if c is None:
                kparams.append(f"_uk_i _uk_{p.name}_s{d}")
                rt_strides.append(d)
            else:
                prologue.append(f"const _uk_i _uk_{p.name}_s{d} = {c};")
        layout.append(["array", rt_dims, tuple(rt_strides), has_off])
        if bounds == "check":
            nd = p.ndim
            es = ", ".join(f"_uk_i e{d}" for d in range(nd))
            ns = ", ".join(f"_uk_i n{d}" for d in range(nd))
            ss = ", ".join(f"_uk_i s{d}" for d in range(nd))
            cond = " && ".join(f"e{d} >= 0 && e{d} < n{d}" for d in range(nd))
            which = "".join(f"!(e{d} >= 0 && e{d} < n{d}) ? {d} : " for d in range(nd - 1)) + str(nd - 1)
            bad_i = "".join(f"!(e{d} >= 0 && e{d} < n{d}) ? e{d} : " for d in range(nd - 1)) + f"e{nd - 1}"
            bad_n = "".join(f"!(e{d} >= 0 && e{d} < n{d}) ? n{d} : " for d in range(nd - 1)) + f"n{nd - 1}"
            off = " + ".join(f"e{d} * s{d}" for d in range(nd))
            ptr = f"{G}{const}{ct} *"
            lines.append(
                f"{t.func_q}{ptr}_uk_at1_{p.name}({ptr}p, {ns}, {ss}, {es}, int site, "
                f"{err_t} *err, {', '.join(f'_uk_i p{k}' for k in range(ndim))}) {{\n"
                f"  if ({cond}) return p + {off};\n"
                f"  _uk_fail(err, site, {which}, {bad_i}, {bad_n}, "
                f"{', '.join(f'p{k}' for k in range(ndim))});\n"
                f"  return ({ptr})(err + {5 + ndim});\n}}"
            )
            # the call site form used by the translator: _uk_at_x(x, e..., site)
            nn = ", ".join(f"_uk_{p.name}_n{d}" for d in range(nd))
            sn = ", ".join(f"_uk_{p.name}_s{d}" for d in range(nd))
            eargs = ", ".join(f"e{d}" for d in range(nd))
            lines.append(
                f"#define _uk_at_{p.name}(p, {eargs}, site) _uk_at1_{p.name}(p, {nn}, {sn}, "
                f"{eargs}, site, _uk_err, {ivars})"
            )
    n_extra = 0
    ext_lines = []
    if ranged:
        for a in range(ndim):
            kparams.append(f"_uk_i _uk_lo{a}")
            kparams.append(f"_uk_i _uk_hi{a}")
        n_extra = 2 * ndim
    else:
        for a, e in enumerate(extents):
            hi = e[1] if e[0] == "const" else f"_uk_{e[1]}_n{e[2]}"
            ext_lines.append(f"const _uk_i _uk_lo{a} = 0; const _uk_i _uk_hi{a} = {hi};")
    if bounds == "check":
        kparams.append(f"{err_t} *_uk_err")
    body = "do {\n" + _indent(tr.code.strip("\n"), 2) + "\n} while (0);"
    for a in reversed(plan.serial):
        body = (f"for (_uk_i _uk_ix{a} = _uk_lo{a}; _uk_ix{a} < _uk_hi{a}; ++_uk_ix{a}) "
                f"{{\n{_indent(body, 2)}\n}}")
    if t.language == "opencl":
        heads = [f"const _uk_i _uk_ix{a} = _uk_lo{a} + (_uk_i)get_global_id({h});"
                 for h, a in enumerate(plan.parallel)]
        inner = "\n".join(heads) + "\n" + body
    elif vector is not None:
        inner = _vector_loops(t, params, tr, vector, body)
    else:
        inner = body
        hw = ("x", "y", "z")
        for h, a in enumerate(plan.parallel):
            if h == 0:
                head = (f"for (_uk_i _uk_ix{a} = _uk_lo{a} + (_uk_i)blockIdx.x * blockDim.x + "
                        f"threadIdx.x; _uk_ix{a} < _uk_hi{a}; "
                        f"_uk_ix{a} += (_uk_i)blockDim.x * gridDim.x)")
            else:
                head = (f"for (_uk_i _uk_ix{a} = _uk_lo{a} + (_uk_i)blockIdx.{hw[h]}; "
                        f"_uk_ix{a} < _uk_hi{a}; _uk_ix{a} += gridDim.{hw[h]})")
            inner = f"{head} {{\n{_indent(inner, 2)}\n}}"
    code = "\n".join(lines + prologue + ext_lines) + inner
    # size arguments the code never reads are not passed
    used = []
    for entry, p in zip(layout, [p for p in params], strict=False):
        if entry[0] == "array":
            keep = [d for d in entry[1] if re.search(rf"\b_uk_{p.name}_n{d}\b", code)]
            for d in entry[1]:
                if d not in keep:
                    kparams.remove(f"_uk_i _uk_{p.name}_n{d}")
            entry[1] = tuple(keep)
        used.append(tuple(entry))
    if vector is not None:
        lines.append("template <typename T, int V> struct alignas(sizeof(T) * V) _uk_vec "
                     "{ T v[V]; };")
    src = "\n".join(lines)
    src += f"\n{t.kernel_q} {KERNEL_NAME}(\n    " + ",\n    ".join(kparams) + ")\n{\n"
    src += _indent("\n".join(prologue + ext_lines), 2) + "\n"
    src += _indent(inner, 2) + "\n}\n"
    return src, ArgLayout(tuple(used), n_extra, bounds == "check")


def _vector_loops(t: Target, params: tuple[Param, ...], tr: Translation,
                  vector: tuple[Translation, int], body: str) -> str:
    """The CUDA flat path with V elements per thread (see :func:`emit`): a vector loop
    over the whole vectors while every array is aligned, then the scalar loop."""
    vtr, V = vector  # noqa: N806 - the width's usual name
    read = {a.array for a in tr.accesses} - set(tr.written)
    arrays = [p for p in params if p.is_array and (p.name in read or p.name in tr.written)]
    aligned = " && ".join(
        f"((unsigned long long)({p.name}) % {p.dtype.itemsize * V}) == 0" for p in arrays) or "true"
    loads, stores, vars_ = [], [], []
    for p in arrays:
        vt = f"_uk_vec<{ctype(t, p.dtype)}, {V}>"
        if p.name in read:
            loads.append(f"const {vt} _uk_{p.name}_v = ((const {vt} *){p.name})[_uk_j];")
        else:
            vars_.append(f"{vt} _uk_{p.name}_v;")
            stores.append(f"(({vt} *){p.name})[_uk_j] = _uk_{p.name}_v;")
    vbody = "do {\n" + _indent(vtr.code.strip("\n"), 2) + "\n} while (0);"
    step = "(_uk_i)blockDim.x * gridDim.x"
    start = "(_uk_i)blockIdx.x * blockDim.x + threadIdx.x"
    return "\n".join([
        f"const _uk_i _uk_nv = ({aligned}) ? (_uk_hi0 - _uk_lo0) / {V} : 0;",
        f"for (_uk_i _uk_j = {start}; _uk_j < _uk_nv; _uk_j += {step}) {{",
        _indent("\n".join(loads + vars_), 2),
        "  #pragma unroll",
        f"  for (int _uk_k = 0; _uk_k < {V}; ++_uk_k) {{",
        f"    const _uk_i _uk_ix0 = _uk_lo0 + _uk_j * {V} + _uk_k;",
        _indent(vbody, 4),
        "  }",
        _indent("\n".join(stores), 2),
        "}",
        f"for (_uk_i _uk_ix0 = _uk_lo0 + _uk_nv * {V} + {start}; _uk_ix0 < _uk_hi0; "
        f"_uk_ix0 += {step}) {{",
        _indent(body, 2),
        "}",
    ])


def _indent(text: str, n: int) -> str:
    pad = " " * n
    return "\n".join(pad + line if line.strip() else line for line in text.split("\n"))
