"""The CUDA elementwise engine's layout plans and kernel sources, without a GPU.

A plan is checked by doing what its kernel does, in NumPy: walk the merged axes with
each operand's merged strides from its first element, and compare with the operand
broadcast to the call's shape and laid out in the plan's memory order.  The generated
sources compile with the CUDA toolkit where one is installed (nvcc, or NVRTC through
cuda-bindings)."""

from __future__ import annotations

import shutil

import numpy as np
from cuda_compile import assert_sources_compile
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.lib.stride_tricks import as_strided

from usmarray._backend._cuda import layout as L
from usmarray.kernels._direct import _engine_body


def _operand(a: np.ndarray) -> L.Operand:
    return L.Operand(a.shape, a.strides, a.itemsize, a.__array_interface__["data"][0])


def _kernel_view(a: np.ndarray, p: L.LayoutPlan, k: int) -> np.ndarray:
    """Operand ``k`` as the kernel reads it: the merged axes, its merged strides."""
    strides = [s * a.itemsize for s in p.strides[k]]
    return as_strided(a, shape=p.shape, strides=strides).reshape(-1)


def _check_plan(ops: list[np.ndarray], out_itemsize: int = 4) -> L.LayoutPlan:
    p = L.plan([_operand(a) for a in ops], out_itemsize)
    assert p is not None
    shape = np.broadcast_shapes(*(a.shape for a in ops))
    assert p.out_shape == shape
    assert p.n == int(np.prod(shape))
    assert sorted(p.order) == list(range(len(shape)))
    assert p.mem_shape == tuple(shape[i] for i in p.order)
    for k, a in enumerate(ops):
        want = np.broadcast_to(a, shape).transpose(p.order).reshape(-1)
        np.testing.assert_array_equal(_kernel_view(a, p, k), want)
        assert p.broadcast[k] == (not any(p.strides[k]))
    # the result, written in flat order over mem_shape and transposed back
    flat = np.arange(p.n).reshape(p.mem_shape)
    back = flat if p.inverse is None else flat.transpose(p.inverse)
    assert back.shape == shape
    np.testing.assert_array_equal(back.transpose(p.order), flat)
    # the loops' preconditions
    if p.loop in ("vector", "flat"):
        assert len(p.shape) == 1 and all(s[0] in (0, 1) for s in p.strides)
    if p.loop == "vector":
        for a, b in zip(ops, p.broadcast, strict=True):
            assert b or _operand(a).ptr % (p.width * a.itemsize) == 0
    if p.loop == "rows":
        m = p.shape[1]
        assert len(p.shape) == 2 and m % p.width == 0
        for a, s in zip(ops, p.strides, strict=True):
            assert s in ((m, 1), (0, 1), (1, 0), (0, 0))
            assert s[1] == 0 or _operand(a).ptr % (p.width * a.itemsize) == 0
    assert len(p.shape) <= L.MAX_DIMS
    span = max([p.n] + [sum(abs(x) * (m - 1) for x, m in zip(s, p.shape, strict=True)) + 1
                        for s in p.strides])
    assert (p.index_type == "int") == (span < L.INT32_SPAN)
    per = L.BLOCK * (p.width if p.loop in ("vector", "rows") else L.UNROLL)
    assert p.blocks * per >= p.n
    return p


_DTYPES = st.sampled_from(["bool", "int8", "int16", "float32", "float64"])


@st.composite
def _views(draw: st.DrawFn) -> list[np.ndarray]:
    """Two or three operands of one broadcast shape: slices with steps and offsets,
    reversals, transposes, length-1 axes, 0-D arrays."""
    nd = draw(st.integers(0, 4))
    shape = tuple(draw(st.integers(1, 5)) for _ in range(nd))
    ops = []
    for _ in range(draw(st.integers(1, 3))):
        dtype = draw(_DTYPES)
        # a base with room for a step and an offset on every axis
        base = np.arange(int(np.prod([2 * n + 2 for n in shape])) or 1).astype(dtype)
        base = base.reshape([2 * n + 2 for n in shape]) if nd else base[:1].reshape(())
        key = []
        for n in shape:
            step = draw(st.sampled_from([1, 2, -1]))
            start = draw(st.integers(0, 1)) if step > 0 else 2 * n
            key.append(slice(start, start + step * n, step) if step > 0
                       else slice(start, start - n if start - n >= 0 else None, -1))
        v = base[tuple(key)] if nd else base
        if nd and draw(st.booleans()):  # a permuted copy viewed back in order
            perm = draw(st.permutations(range(nd)))
            v = np.ascontiguousarray(v.transpose(perm)).transpose(np.argsort(perm))
        # broadcast: drop leading axes or make some length 1
        if nd and draw(st.booleans()):
            v = v[(0,) * draw(st.integers(0, nd))]
        if v.ndim and draw(st.booleans()):
            i = draw(st.integers(0, v.ndim - 1))
            v = v[(slice(None),) * i + (slice(0, 1),)]
        assert v.shape == shape[nd - v.ndim:] or 1 in v.shape
        ops.append(v)
    return ops


@settings(deadline=None)
@given(_views(), st.sampled_from([1, 4, 8]))
def test_plans_address_what_numpy_broadcasts(ops: list[np.ndarray], out_itemsize: int) -> None:
    _check_plan(ops, out_itemsize)


@settings(deadline=None)
@given(_views(), st.integers(0, 2), st.booleans())
def test_results_are_laid_out_as_numpys_ufuncs(ops: list[np.ndarray], lead: int,
                                               widen: bool) -> None:
    """A call whose first operand has the call's shape writes its result as NumPy's
    ufuncs lay out ``negative(that operand)``: the same stride on every axis longer than
    1 (transposes, reversals and steps in memory order, broadcast axes in place)."""
    x = np.broadcast_to(ops[0], (2,) * lead + ops[0].shape)
    if widen:  # length-1 axes broadcast: stride 0 between the others
        x = np.broadcast_to(x, tuple(3 if n == 1 else n for n in x.shape))
    p = L.plan([_operand(x)], x.itemsize)
    assert p is not None
    out = np.empty(p.mem_shape, x.dtype)
    got = out if p.inverse is None else out.transpose(p.inverse)
    want = np.negative(x) if x.dtype.kind != "b" else np.logical_not(x)
    for n, g, w in zip(x.shape, got.strides, want.strides, strict=True):
        assert n == 1 or g == w, (x.shape, x.strides, got.strides, want.strides)


def _aligned(n: int, dtype: str) -> np.ndarray:
    """n zeros whose first element sits at a multiple of 256 bytes (as CuPy's pool
    gives)."""
    d = np.dtype(dtype)
    raw = np.zeros(n * d.itemsize + 256, np.uint8)
    skip = -raw.__array_interface__["data"][0] % 256
    return raw[skip:skip + n * d.itemsize].view(d)


def test_layout_classes() -> None:
    x = _aligned(1 << 12, "float32")
    assert _check_plan([x, x]).loop == "vector"
    assert _check_plan([x, x]).width == 4  # one float4 a thread
    assert _check_plan([x, x], 1).width == 8  # float32 -> bool: eight, an 8-byte store
    assert _check_plan([x[2:], x[:-2]]).width == 2  # aligned to 8 bytes only
    assert _check_plan([x[1:], x[:-1]]).loop == "flat"  # diff: unaligned by one element
    assert _check_plan([x[4:], x[:-4]]).width == 4  # aligned to 16 bytes
    a = _aligned(64 * 32, "float32").reshape(64, 32)
    p = _check_plan([a.T, a.T])
    assert (p.loop, p.inverse) == ("vector", (1, 0))  # transposed: memory order
    row, col = _aligned(32, "float32"), _aligned(64, "float32").reshape(64, 1)
    p = _check_plan([a, row])
    assert p.loop == "rows" and p.shape == (64, 32) and p.strides[1] == (0, 1)
    assert L.row_kinds(p) == ("full", "row") and p.width == 4
    p = _check_plan([col, a, row])  # where(column, A, row)
    assert p.loop == "rows" and L.row_kinds(p) == ("column", "full", "row")
    assert _check_plan([a[:, 1:31], row[1:31]]).loop == "strided"  # rows with gaps
    assert _check_plan([a, _aligned(33, "float32")[1:]]).loop == "strided"  # row unaligned
    odd = _aligned(62 * 31, "float32").reshape(62, 31)
    assert _check_plan([odd, _aligned(31, "float32")]).loop == "strided"  # 31 % width
    assert _check_plan([a, np.zeros((), np.float32)]).loop == "vector"  # 0-D: an element
    assert _check_plan([a[:, ::2], a[:, ::2]]).loop == "strided"
    b = np.zeros((0, 3), np.float32)
    assert _check_plan([b, b]).n == 0
    bools = _aligned(1 << 12, "bool")
    assert _check_plan([bools, bools], 1).width == 16  # bools only: one 16-byte vector
    assert _check_plan([bools, x], 1).width == 8  # float32 and bool: two float4 loads


def test_refusals() -> None:
    a = np.zeros((4, 3), np.float32)
    assert L.plan([_operand(a), _operand(np.zeros(4, np.float32))], 4) is None  # no broadcast
    odd = as_strided(np.zeros(16, np.uint8).view(np.float32), shape=(3,), strides=(5,))
    assert L.plan([_operand(odd)], 4) is None  # a stride of a fraction of an element
    many = np.zeros((2,) * 10, np.float32)[(slice(None, None, -1),) * 10]
    p = L.plan([_operand(many), _operand(many.transpose(list(range(9, -1, -1))))], 4)
    assert p is None or len(p.shape) <= L.MAX_DIMS


def test_index_width_at_the_edge() -> None:
    """32-bit arithmetic below INT32_SPAN elements and offsets, 64-bit from it on."""
    for n in (L.INT32_SPAN - 1, L.INT32_SPAN):
        op = L.Operand((n,), (1,), 1, 0)
        assert L.plan([op], 1).index_type == ("int" if n < L.INT32_SPAN else "long long")
    # few elements, a large stride
    op = L.Operand((3,), (L.INT32_SPAN // 2,), 1, 0)
    assert L.plan([op], 1).index_type == "long long"


_SIGS = [
    ("greater", np.dtype("float32"), float), ("subtract", np.dtype("float32"),
                                              np.dtype("float32")),
    ("add", np.dtype("int32"), np.dtype("int64")), ("maximum", np.dtype("float64"),
                                                    np.dtype("float64")),
    ("sin", np.dtype("float32")), ("logical_and", np.dtype("bool"), np.dtype("bool")),
    ("isnan", np.dtype("float64")), ("multiply", np.dtype("uint8"), int),
    ("where", np.dtype("bool"), np.dtype("float32"), np.dtype("float64")),
    ("equal", np.dtype("bool"), bool),
    ("floor_divide", np.dtype("int8"), np.dtype("int8")),
    ("floor_divide", np.dtype("float64"), float),
    ("remainder", np.dtype("float32"), np.dtype("float32")),
    ("remainder", np.dtype("int64"), int),
    ("bitwise_left_shift", np.dtype("int16"), np.dtype("int16")),
    ("bitwise_right_shift", np.dtype("int64"), np.dtype("uint8")),
    ("bitwise_right_shift", np.dtype("uint32"), int),
    ("pow", np.dtype("int32"), np.dtype("int32")), ("pow", np.dtype("uint8"), int),
    ("logaddexp", np.dtype("float32"), np.dtype("float32")),
    ("nextafter", np.dtype("float64"), np.dtype("float64")),
    ("sign", np.dtype("float32")), ("real", np.dtype("int16")),
]


def _sources() -> list[str]:
    x = np.zeros((64, 48), np.float32)
    layouts = [[x, x], [x[:, 1:], x[:, 1:]], [x, x[0]], [x.T, x.T[:, :1]]]
    out = []
    for i, sig in enumerate(_SIGS):
        e = _engine_body((*sig, "cuda"), "cuda")
        assert e is not False, sig
        body, names, cdts, rd = e
        dts = [o for o in sig[1:] if isinstance(o, np.dtype)]
        # every signature in one layout, every layout in some signature
        for views in (layouts[i % len(layouts)], layouts[(i + 1) % len(layouts)]):
            ops = [_operand(views[k % len(views)].astype(d, copy=False)
                            if d == np.float32 else views[k % len(views)])
                   for k, d in enumerate(dts)]
            ops = [L.Operand(o.shape, tuple(s // 4 * d.itemsize for s in o.strides),
                             d.itemsize, o.ptr) for o, d in zip(ops, dts, strict=True)]
            p = L.plan(ops, rd.itemsize)
            assert p is not None
            out.append(L.kernel_source(body, names, dts, cdts, rd, p))
    return out


def test_sources_compile(tmp_path) -> None:
    sources = _sources()
    assert len(sources) == 2 * len(_SIGS)
    # nvcc takes seconds a source: every other one covers each loop and signature kind
    assert_sources_compile(sources[::2] if shutil.which("nvcc") else sources, tmp_path)


#: dtypes whose elementwise calls the generator leaves to the CUDA backend's own kernels
#: (CuPy's), with the reason; docs/cuda.md lists them.  Every other function and dtype of
#: the standard runs on the engine.
ENGINE_REFUSES = {
    # complex arithmetic and math are not in the generator (CuPy's thrust::complex and
    # the namespace's fix-ups of its special values)
    np.dtype("complex64"), np.dtype("complex128"),
}


def test_engine_takes_every_other_signature() -> None:
    """The generator gives the CUDA engine a body for every elementwise function and
    dtype of the standard except the documented ones: a change of the set is a
    deliberate one (docs/cuda.md)."""
    from usmarray._elementwise import BINARY, UNARY
    from usmarray.kernels._direct import _ENGINE_FUNCTIONS

    refused = []
    for name, (cat, _) in {**UNARY, **BINARY}.items():
        for d in map(np.dtype, cat):
            key = (name, d.char, "cuda") if name in UNARY else (name, d.char, d.char, "cuda")
            if name not in _ENGINE_FUNCTIONS or _engine_body(key, "cuda") is False:
                refused.append((name, d.name))
    assert {np.dtype(d) for _, d in refused} <= ENGINE_REFUSES, refused


@settings(deadline=None)
@given(_views())
def test_a_kernel_key_holds_everything_its_source_assumes(ops: list[np.ndarray]) -> None:
    """Two calls whose kernel keys are equal compile the same source: the cache can
    never hand a call a kernel written for another layout (the views drawn here are
    taken in turn, so each is the call after one of another shape)."""
    seen: dict[tuple, str] = {}
    for views in (ops, ops[::-1], [ops[0]], [o[..., :1] if o.ndim else o for o in ops]):
        dts = [v.dtype for v in views]
        names = [f"a{k}" for k in range(len(views))]
        p = L.plan([_operand(v) for v in views], 1)
        if p is None:
            continue
        body = "z = " + " + ".join(f"({n} != 0)" for n in names)
        key = L.kernel_key(body, names, dts, [], np.dtype(bool), p)
        src = L.kernel_source(body, names, dts, [], np.dtype(bool), p)
        assert seen.setdefault(key, src) == src


#: the bool functions the vector loop runs on words of four bools
LANE_WISE = ["logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and",
             "bitwise_or", "bitwise_xor", "bitwise_invert"]


def _bool_signatures() -> list[tuple]:
    out = []
    for name in LANE_WISE:
        if name in ("logical_not", "bitwise_invert"):
            out.append((name, "?", "cuda"))
        else:
            out += [(name, "?", "?", "cuda"), (name, "?", bool, "cuda"), (name, bool, "?", "cuda")]
    return out


def _chain_body() -> str:
    """The generator's body of the fused chain ``(a0 | a1) & !a2 ^ a0`` of bools."""
    from usmarray.kernels._fuse import _Emitter, _Node

    b = np.dtype(bool)
    nodes = [_Node("arg", (k,), b, ()) for k in range(3)] + [
        _Node("logical_or", (0, 1), b, ()), _Node("logical_not", (2,), b, ()),
        _Node("logical_and", (3, 4), b, ()), _Node("bitwise_xor", (5, 0), b, ())]
    return _Emitter(nodes, "cuda", "cuda").body(len(nodes) - 1, b)


def test_word_bodies_give_each_lane_the_byte_bodys_value(tmp_path) -> None:
    """On every word of four bools (each 0 or 1), the word form of a lane-wise body (each
    bool function's, and a fused chain's) gives in each byte the byte body's value for
    that lane (host C++ of both bodies)."""
    from cuda_compile import run_host

    bodies = [_engine_body(sig, "cuda")[:3] for sig in _bool_signatures()]
    bodies.append((_chain_body(), ["a0", "a1", "a2"], []))
    funcs, calls = [], []
    for i, (body, names, cdts) in enumerate(bodies):
        word = L.word_body(body)
        assert word is not None, body
        args = names + [f"s{j}" for j in range(len(cdts))]
        for fn, t, b in ((f"byte{i}", "bool", body), (f"word{i}", "uint32", word)):
            params = ", ".join(f"{t} {a}" for a in args)
            funcs.append(f"{t} {fn}({params}) {{ {t} z; {{ {b}; }} return z; }}")
        calls.append((i, len(args)))
    loops = []
    for i, nargs in calls:
        # every operand any word of four 0/1 lanes: 16 ** nargs cases
        loops.append(
            f"for (unsigned c = 0; c < {16 ** nargs}u; ++c) {{ uint32 w[{nargs}]; "
            f"bool b[{nargs}][4]; for (int k = 0; k < {nargs}; ++k) {{ w[k] = 0; "
            "for (int l = 0; l < 4; ++l) { b[k][l] = (c >> (4 * k + l)) & 1; "
            "w[k] |= (uint32)b[k][l] << (8 * l); } } "
            f"uint32 got = word{i}(" + ", ".join(f"w[{k}]" for k in range(nargs)) + "); "
            "for (int l = 0; l < 4; ++l) { uint32 want = (uint32)"
            f"byte{i}(" + ", ".join(f"b[{k}][l]" for k in range(nargs)) + "); "
            f"if (((got >> (8 * l)) & 0xffu) != want) {{ std::printf(\"{i} %u %d\\n\", c, l); "
            "bad = 1; } } }")
    src = ("#include <cstdio>\ntypedef unsigned int uint32;\n" + "\n".join(funcs)
           + "\nint main() { int bad = 0;\n" + "\n".join(loops)
           + '\nstd::printf(bad ? "bad\\n" : "ok\\n"); return 0; }\n')
    assert run_host(src, b"", tmp_path).decode().splitlines()[-1] == "ok"


def test_only_lane_wise_bodies_take_words() -> None:
    """Bodies with a comparison, a short-circuit, a negation of an expression, a literal
    or another type stay per element."""
    for body in ["bool t0 = a0;\nbool t1 = a1;\nbool t2 = (t0 == t1);\nz = t2",
                 "z = a0 && a1", "z = a0 || a1", "z = (a0 != 0)", "z = !(a0 & a1)",
                 "z = a0 ^ 1", "float32 t0 = a0; z = t0", "z = a0 + a1", "z = a0 < a1"]:
        assert L.word_body(body) is None, body
    for sig in [("equal", "?", "?", "cuda"), ("not_equal", "?", "?", "cuda"),
                ("add", "f", "f", "cuda")]:
        assert L.word_body(_engine_body(sig, "cuda")[0]) is None, sig


def test_word_and_two_vector_sources_compile(tmp_path) -> None:
    """The vector loop on words of bools (arrays, broadcast elements and scalars) and the
    loop that moves two vectors a thread compile; their plans cover the call."""
    sources = []
    base, flags = _aligned(4096, "float32"), _aligned(4096, "bool")
    for k, sig in enumerate(_bool_signatures()[:4] + [("logical_and", "?", "?", "cuda")]):
        body, names, cdts, rd = _engine_body(sig, "cuda")
        arrays = [flags] * len(names)
        if k == 4:
            arrays = [flags, flags[:1].reshape(())]  # a 0-D operand: a broadcast element
        p = L.plan([_operand(a) for a in arrays], 1)
        assert p is not None and p.loop == "vector" and p.width % 4 == 0
        src = L.kernel_source(body, names, [a.dtype for a in arrays], cdts, rd, p)
        assert "usm_word" in src
        sources.append(src)
    for name in ("acosh", "atanh", "asinh", "sin"):
        body, names, cdts, rd = _engine_body((name, "f", "cuda"), "cuda")
        p = L.plan([_operand(base)], 4, per_thread=L.vectors(body))
        assert p is not None and p.loop == "vector"
        assert p.width == (4 if name == "sin" else 8)
        assert p.blocks * L.BLOCK * p.width >= p.n
        sources.append(L.kernel_source(body, names, [base.dtype], cdts, rd, p))
    assert_sources_compile(sources, tmp_path)


_HOST_SHIMS = """
#include <cstdio>
#include <vector>
struct usm_dim { unsigned x, y, z; };
static usm_dim blockIdx, threadIdx, blockDim, gridDim;
#define __global__
#define __device__
#define __forceinline__ inline
#define __restrict__
"""


def test_the_rows_loop_gives_numpys_values(tmp_path) -> None:
    """The ``rows`` kernel, run as host C++ over every thread of a small grid, gives
    ``A * 2 + row - column`` for full, row and column operands, vectors of 4 and 2."""
    from cuda_compile import run_host

    f32 = np.dtype("float32")
    rng = np.random.default_rng(7)
    for rows, m, width in ((5, 8, 4), (3, 12, 4), (4, 6, 2)):
        a = rng.standard_normal((rows, m)).astype(f32)
        row, col = rng.standard_normal(m).astype(f32), rng.standard_normal((rows, 1)).astype(f32)
        ops = [L.Operand(a.shape, a.strides, 4, 0), L.Operand(row.shape, row.strides, 4, 0),
               L.Operand(col.shape, col.strides, 4, 0)]
        p = L.plan(ops, 4)._replace(width=width)  # the width the pointers would allow
        assert p.loop == "rows" and L.row_kinds(p) == ("full", "row", "column")
        src = L.kernel_source("z = a0 * 2.0f + a1 - a2", ["a0", "a1", "a2"], [f32] * 3, [],
                              f32, p)
        n = a.size
        main = f"""
int main() {{
  std::vector<float> a({n}), row({m}), col({rows}), z({n}, -1.0f);
  fread(a.data(), 4, {n}, stdin); fread(row.data(), 4, {m}, stdin);
  fread(col.data(), 4, {rows}, stdin);
  blockDim.x = 3; gridDim.x = 2;
  for (unsigned b = 0; b < gridDim.x; ++b)
    for (unsigned t = 0; t < blockDim.x; ++t) {{
      blockIdx.x = b; threadIdx.x = t;
      k(a.data(), row.data(), col.data(), z.data(), {n}, {m});
    }}
  fwrite(z.data(), 4, {n}, stdout);
}}
"""
        out = run_host(_HOST_SHIMS + src + main, a.tobytes() + row.tobytes() + col.tobytes(),
                       tmp_path)
        got = np.frombuffer(out, f32).reshape(rows, m)
        np.testing.assert_array_equal(got, a * np.float32(2.0) + row - col)
