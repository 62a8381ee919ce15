"""The kernel factory's safety: what a variant bakes in is in its cache key,
the default bounds mode's proof holds for anything a body can do, no body can take an
address, ``elementwise()`` writes inputs only where ``kernel()`` would, and every store
into a bool array is 0 or 1; plus a fuzz test of the factory against NumPy.

Each check runs in a child interpreter (tests/test_reliability_common.py), so a write
past an allocation fails one test instead of killing pytest.  The devices: the SYCL
OpenCL CPU device and, with the ``gpu`` marker, CUDA (skipped without CuPy and a GPU).
The NumPy backend compiles no kernels (tests/test_kernels.py checks its error).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_reliability_common import _have_sycl, assert_child_ok, begin, child_main, device_params

MOD = "test_reliability_kernels"


def _devices():
    return device_params("opencl:cpu", "cuda:0")


def _ivars(nd: int) -> str:
    return ", ".join(f"i{k}" for k in range(nd))


def _dims(nd: int) -> str:
    return ",".join([":"] * nd)


# ---- 1. the compiled-variant cache key --------------------------------------------------
@st.composite
def _view_plan(draw, nd: int):
    """(base shape, per-axis (start, stop, step), axis permutation, output plan)."""
    base = tuple(draw(st.integers(1, 5)) for _ in range(nd))
    keys = []
    for n in base:
        start = draw(st.integers(0, n - 1))
        step = draw(st.sampled_from([1, 2, -1, -2]))
        one = draw(st.booleans())                           # a length-1 axis
        if one:
            stop = start + 1 if step > 0 else start - 1
            keys.append((start, stop if stop >= 0 else None, step))
        else:
            keys.append((start, None, step))
    perm = tuple(draw(st.permutations(range(nd))))
    operm = tuple(draw(st.permutations(range(nd))))
    spread = tuple(draw(st.sampled_from([1, 2])) for _ in range(nd))
    return base, tuple(keys), perm, operm, spread


def _realize(xp, plan, device):
    """The plan as (NumPy view, usmarray view, NumPy output base, usmarray output base,
    NumPy output view, usmarray output view)."""
    base, keys, perm, operm, spread = plan
    src = np.arange(1, int(np.prod(base)) + 1, dtype=np.int32).reshape(base)
    key = tuple(slice(*k) for k in keys)
    a_np = src[key].transpose(perm)
    a = xp.permute_dims(xp.asarray(src, device=device)[key], perm)
    shape = a_np.shape
    oshape = tuple(shape[operm[k]] * spread[k] for k in range(len(shape)))
    inv = tuple(int(v) for v in np.argsort(operm))
    okey = tuple(slice(None, None, s) for s in spread)
    ob_np = np.zeros(oshape, np.int32)
    ob = xp.asarray(ob_np, device=device)
    return a_np, a, ob_np, ob, ob_np[okey].transpose(inv), xp.permute_dims(ob[okey], inv)


def _variant_key_kernels(device):
    import usmarray as xp
    from usmarray.kernels import elementwise, kernel

    ks = {nd: kernel(f"int32[{_dims(nd)}] a, int32[{_dims(nd)}] b",
                     f"b({_ivars(nd)}) = a({_ivars(nd)}) * 2 + 1;", shape="b")
          for nd in (1, 2, 4)}
    ew = elementwise("int32[] a -> int32[] b", "b = a * 3 - 1")

    @given(st.lists(st.sampled_from([1, 2, 4]).flatmap(_view_plan), min_size=2, max_size=5))
    def prop(plans):
        for plan in plans:
            nd = len(plan[0])
            begin(f"kernel nd={nd} plan={plan}")
            a_np, a, ob_np, ob, o_np, o = _realize(xp, plan, device)
            ks[nd](a, o)
            o_np[...] = a_np * 2 + 1
            np.testing.assert_array_equal(xp.asnumpy(ob), ob_np, err_msg=str(plan))
            begin(f"elementwise nd={nd} plan={plan}")
            np.testing.assert_array_equal(xp.asnumpy(ew(a)), a_np * 3 - 1, err_msg=str(plan))
            ob2 = xp.zeros(ob.shape, dtype=xp.int32, device=device)
            o2 = xp.permute_dims(ob2[tuple(slice(None, None, s) for s in plan[4])],
                                 tuple(int(v) for v in np.argsort(plan[3])))
            ew(a, out=o2)
            np.testing.assert_array_equal(xp.asnumpy(o2), a_np * 3 - 1, err_msg=str(plan))

    begin("a (1, 3) view, then a (5, 3) array with the same strides (the reported case)")
    base = np.arange(15, dtype=np.int32).reshape(5, 3)
    x = xp.asarray(base, device=device)
    y = xp.zeros((5, 3), dtype=xp.int32, device=device)
    ks[2](x[:1], y[:1])
    ks[2](x, y)
    np.testing.assert_array_equal(xp.asnumpy(y), base * 2 + 1)
    np.testing.assert_array_equal(xp.asnumpy(ew(x[:1])), base[:1] * 3 - 1)
    np.testing.assert_array_equal(xp.asnumpy(ew(x)), base * 3 - 1)
    prop()


@pytest.mark.parametrize("device", _devices())
def test_variant_cache_key_holds_everything_a_variant_bakes_in(device):
    assert_child_ok(MOD, "_variant_key_kernels", device, timeout=600)


# ---- 2., 3. the default bounds proof; no addresses ----------------------------------------
#: bodies over "float32[:,:] x, float32[:,:] y" (shape="y") that the factory must refuse:
#: each would put an index variable, or a pointer, out of the proof's reach
REFUSED = [
    # shadowing and changing index variables
    "{ int64 i0 = 6; y(i0, i1) = 1; }",
    "int64 i0 = 6; y(i0, i1) = 1;",
    "int64 k = 0, i1 = 9; y(i0, i1) = k;",
    "int64 k, i0; y(i0, i1) = 1;",
    "i0 += 4; y(i0, i1) = 1;",
    "i1 = 7; y(i0, i1) = 1;",
    "i0++; y(i0, i1) = 1;",
    "++i1; y(i0, i1) = 1;",
    "--i0; y(i0, i1) = 1;",
    "for (i0 = 0; i0 < 9; i0++) y(i0, i1) = 1;",
    "int64 *p = &i0; *p = 9; y(i0, i1) = 1;",
    # addresses of accesses, however spelled
    "float32 *p = &x(i0, i1); p[100000] = 1;",
    "float32 *p = &(x(i0, i1)); p[100000] = 1;",
    "float32 *p = & ( ( x(i0, i1) ) ); p[100000] = 1;",
    "((float32 *)&x(i0, i1))[100000] = 1;",
    "int64 a = (int64)&x(i0, i1); y(i0, i1) = a;",
    "*&y(i0, i1) = 1;",
    "y(i0, i1) = *(&x(i0, i1) + 100000);",
    "float32 t = 0; float32 *p = &t; p[100000] = 1; y(i0, i1) = t;",
    "y(i0, i1) = 1; float32 *p = &(y(i0, i1) = 2); p[100000] = 3;",
    "float32 (*p) = (float32 *)(&(y(i0, i1))); p[100000] = 3;",
    # pointers without an address: the null pointer constant, integers, builtins
    "float32 *p = 0; *p = 1; y(i0, i1) = 1;",
    "float32 a = 1, *p = 0; p[100000] = a; y(i0, i1) = a;",
    "float4 *p = 0; y(i0, i1) = 1;",
    "void (*f)(void) = 0; f(); y(i0, i1) = 1;",
    "int64 n = 4096; *(float32 *)n = 1; y(i0, i1) = 1;",
    "int64 n = (int64)&x(i0, i1) + 400000; *(float32 *)(n) = 1; y(i0, i1) = 1;",
    "float32 c; y(i0, i1) = sincos(1.0f, 0);",
    "vstore4((float4)(1.0f), 100000, 0); y(i0, i1) = 1;",
    "y(i0, i1) = vload4(100000, 0).x;",
    "atomic_add(0, 1); y(i0, i1) = 1;",
    "y(i0, i1) = __ldg(0);",
    "printf(\"%s\", 4096); y(i0, i1) = 1;",
    "printf(\"%n\", 0); y(i0, i1) = 1;",
    "y(i0, i1) = \"abc\"[100000];",
    # what would hide any of that from the translator
    "#define AT &\nfloat32 *p = AT x(i0, i1); p[100000] = 1;",
    "%:define AT &\nfloat32 *p = AT x(i0, i1); p[100000] = 1;",
    "int64 i\\\n0 = 6; y(i0, i1) = 1;",
    "typedef float32 *fp; fp p = 0; y(i0, i1) = 1;",
    "struct S { float32 v[100000]; }; y(i0, i1) = 1;",
    "y(i0, i1) = __builtin_addressof(x(i0, i1))[100000];",
    "asm(\"nop\"); y(i0, i1) = 1;",
]

#: bodies that stay accepted, with the value they give y (i0, i1 broadcast arrays)
ACCEPTED = [
    ("{ int64 k = i0 + 1; y(i0, i1) = k; }", lambda x, i0, i1: i0 + 1),
    ("float32 s = 0; for (int64 j = 0; j < 3; j++) s += j; y(i0, i1) = s;",
     lambda x, i0, i1: 3 + 0 * i0),
    ("y(i0, i1) = i0 & 1;", lambda x, i0, i1: i0 & 1),
    ("y(i0, i1) = (i0) & (i1);", lambda x, i0, i1: i0 & i1),
    ("y(i0, i1) = (i0 + 2)&(i1 + 1);", lambda x, i0, i1: (i0 + 2) & (i1 + 1)),
    ("y(i0, i1) = ((int32)x(i0, i1)) & 6;", lambda x, i0, i1: x.astype(np.int32) & 6),
    ("y(i0, i1) = i0 > 0 && i1 > 0;", lambda x, i0, i1: (i0 > 0) & (i1 > 0)),
    ("int32 m = 5; m &= 3; y(i0, i1) = m;", lambda x, i0, i1: 1 + 0 * i0),
    ("y(i0, i1) = x(i0, i1) * 2; // i0 = 5; &x(i0, i1)", lambda x, i0, i1: x * 2),
    ("float32 a = 2, b = 3; y(i0, i1) = a * b * x(i0, i1);", lambda x, i0, i1: 6 * x),
    ("int64 k = i0 * i1; y(i0, i1) = k * 2 + (i0) * (i1);", lambda x, i0, i1: 3 * i0 * i1),
    ("float32 t[3] = {1, 2, 3}; y(i0, i1) = t[i1 % 3] * x(i0, i1);",
     lambda x, i0, i1: np.array([1, 2, 3], np.float32)[i1 % 3] * x),
]


def _bounds_proof(device):
    import usmarray as xp
    from usmarray.kernels import KernelSyntaxError, kernel

    shape = (4, 5)
    for axes in (None, (False, True), (True, False)):
        for body in REFUSED:
            begin(f"refused axes={axes}: {body!r}")
            guard = xp.zeros((3 * shape[0], shape[1]), dtype=xp.float32, device=device)
            x = xp.ones(shape, dtype=xp.float32, device=device)
            y = guard[shape[0]:2 * shape[0]]
            try:  # refused at definition, else when it compiles (before any launch)
                kernel("float32[:,:] x, float32[:,:] y", body, shape="y", axes=axes)(x, y)
            except KernelSyntaxError as exc:
                assert "kernel body" in str(exc) or "does not compile" in str(exc), str(exc)
            else:
                raise AssertionError(f"accepted: {body!r} (axes={axes})")
            g = xp.asnumpy(guard)
            assert not g.any(), f"{body!r} wrote {np.argwhere(g)}"
        xv = np.arange(20, dtype=np.float32).reshape(shape)
        i0, i1 = np.indices(shape)
        for body, ref in ACCEPTED:
            begin(f"accepted axes={axes}: {body!r}")
            k = kernel("float32[:,:] x, float32[:,:] y", body, shape="y", axes=axes)
            y = xp.zeros(shape, dtype=xp.float32, device=device)
            k(xp.asarray(xv, device=device), y)
            np.testing.assert_array_equal(xp.asnumpy(y), ref(xv, i0, i1).astype(np.float32),
                                          err_msg=body)
    begin("a serial axis counter stays in range for every plan (4-D)")
    k = kernel("int32[:,:,:,:] y", "y(i0, i1, i2, i3) = i0 * 1000 + i1 * 100 + i2 * 10 + i3;",
               shape="y")
    y = xp.zeros((3, 2, 4, 5), dtype=xp.int32, device=device)
    k(y)
    i = np.indices((3, 2, 4, 5))
    np.testing.assert_array_equal(xp.asnumpy(y), i[0] * 1000 + i[1] * 100 + i[2] * 10 + i[3])


@pytest.mark.parametrize("device", _devices())
def test_default_bounds_proof_and_no_addresses(device):
    assert_child_ok(MOD, "_bounds_proof", device, timeout=600)


# ---- 4. elementwise() writes inputs only where kernel() would --------------------------------
def _elementwise_inputs(device):
    import usmarray as xp
    from usmarray.kernels import elementwise

    f = elementwise("float32[] x, float32[] w -> float32[] z", "z = x + w; x = 5")
    src = np.arange(3, dtype=np.float32)
    for name, make in [
        ("a broadcast view", lambda: xp.broadcast_to(xp.asarray(src, device=device), (2, 3))),
        ("an input the call broadcasts", lambda: xp.asarray(src, device=device)),
    ]:
        begin(f"elementwise writes {name}")
        x = make()
        w = xp.ones((2, 3), dtype=xp.float32, device=device)
        before = xp.asnumpy(x).copy()
        try:
            f(x, w)
        except ValueError as exc:
            assert "x" in str(exc), str(exc)
        else:
            raise AssertionError(f"elementwise wrote {name}")
        np.testing.assert_array_equal(xp.asnumpy(x), before)
    begin("elementwise writes a writable input of the result's shape, as kernel() does")
    x = xp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3), device=device)
    z = f(x, xp.ones((2, 3), dtype=xp.float32, device=device))
    np.testing.assert_array_equal(xp.asnumpy(z), np.arange(6).reshape(2, 3) + 1)
    np.testing.assert_array_equal(xp.asnumpy(x), np.full((2, 3), 5, np.float32))
    begin("a read-only array given as an input the body writes")
    ro = xp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3), device=device)
    ro = xp.broadcast_to(ro, (2, 3))                        # a read-only view, same shape
    assert not ro.flags.writable
    try:
        f(ro, xp.ones((2, 3), dtype=xp.float32, device=device))
    except ValueError as exc:
        assert "read-only" in str(exc), str(exc)
    else:
        raise AssertionError("elementwise wrote a read-only input")
    np.testing.assert_array_equal(xp.asnumpy(ro), np.arange(6).reshape(2, 3))


@pytest.mark.parametrize("device", _devices())
def test_elementwise_writes_inputs_only_where_kernel_would(device):
    assert_child_ok(MOD, "_elementwise_inputs", device, timeout=300)


# ---- 5. bool stores are 0 or 1 ---------------------------------------------------------
def _bool_stores(device):
    import usmarray as xp
    from usmarray.kernels import elementwise, kernel

    xv = np.array([0, 1, 4, 5, 6, 8, 12, -4], np.int32)
    want = (xv & 4) != 0
    x = xp.asarray(xv, device=device)

    def same(z, want, what):
        got = xp.asnumpy(z)
        assert got.view(np.uint8).max(initial=0) <= 1, f"{what}: stored {got.view(np.uint8)}"
        np.testing.assert_array_equal(got, want, err_msg=what)
        for op, ref in [("logical_not", np.logical_not(want)), ("~", ~want),
                        ("== True", want == True), ("^ True", want ^ True)]:  # noqa: E712
            r = {"logical_not": lambda: xp.logical_not(z), "~": lambda: ~z,
                 "== True": lambda: z == True, "^ True": lambda: z ^ True}[op]()  # noqa: E712
            np.testing.assert_array_equal(xp.asnumpy(r), ref, err_msg=f"{what}: {op}")

    for bounds in (None, "clamp", "check", "unchecked", "skip"):
        begin(f"kernel z(i0) = x(i0) & 4, bounds={bounds}")
        k = kernel("int32[:] x, bool[:] z", "z(i0) = x(i0) & 4;", shape="z")
        z = xp.zeros(xv.shape, dtype=xp.bool, device=device)
        k(x, z, bounds=bounds)
        same(z, want, f"z = x & 4 ({bounds})")
    # compound assignments: C's rule for a bool (z = (z op v) != 0), in int arithmetic
    cases = [
        ("z(i0) = 0; z(i0) |= x(i0) & 4;", want),
        ("z(i0) = 1; z(i0) &= x(i0) & 4;", (1 & (xv & 4)) != 0),
        ("z(i0) = 1; z(i0) &= (x(i0) & 4) != 0;", want),
        ("z(i0) = 0; z(i0) += x(i0) & 12;", (xv & 12) != 0),
        ("z(i0) = 1; z(i0) ^= x(i0) & 8;", (1 ^ (xv & 8)) != 0),
        ("z(i0) = 1; z(i0) ^= (x(i0) & 8) != 0;", ~((xv & 8) != 0)),
        ("z(i0) = 0; z(i0) -= (x(i0) & 4);", want),
        ("z(i0) = 0.25f * x(i0);", (0.25 * xv) != 0),
        ("z(i0) = x(i0) < 5 ? x(i0) : 2;", np.where(xv < 5, xv, 2) != 0),
        ("bool t = x(i0) & 4; z(i0) = t;", want),
        ("uint8 c = 0; c = z(i0) = x(i0) & 4; z(i0) = c == 1;", want),
        ("z(i0) = 7; z(i0) = !z(i0);", np.zeros_like(want)),
        ("z(i0) = x(i0) & 4, z(i0) = z(i0) * 3;", want),
        ("if (x(i0)) z(i0) = x(i0); else z(i0) = 2;", np.ones_like(want)),
    ]
    for body, ref in cases:
        begin(f"kernel {body!r}")
        z = xp.zeros(xv.shape, dtype=xp.bool, device=device)
        kernel("int32[:] x, bool[:] z", body, shape="z")(x, z)
        same(z, ref, body)
    begin("elementwise z = x & 4, contiguous and strided")
    e = elementwise("int32[] x -> bool[] z", "z = x & 4")
    same(e(x), want, "elementwise flat")
    same(e(x[::-2]), want[::-2], "elementwise strided")
    e2 = elementwise("int32[] x -> bool[] z, bool[] w", "z = x & 4; w = z + 1")
    z, w = e2(x)
    same(z, want, "elementwise 2 outputs z")
    same(w, np.ones_like(want), "elementwise 2 outputs w")


def _bool_increments_refused(device):
    from usmarray.kernels import KernelSyntaxError, kernel

    for body in ("z(i0)++;", "++z(i0);", "z(i0)--;", "--z(i0);"):
        begin(body)
        try:
            kernel("bool[:] z", body, shape="z")
        except KernelSyntaxError as exc:
            assert "bool" in str(exc), str(exc)
        else:
            raise AssertionError(f"accepted {body!r} on a bool array")


@pytest.mark.parametrize("device", _devices())
def test_bool_stores_are_zero_or_one(device):
    assert_child_ok(MOD, "_bool_stores", device, timeout=300)
    assert_child_ok(MOD, "_bool_increments_refused", device, timeout=60)


# ---- 6. launches past the device's work-item range ---------------------------------------
_SPACES = st.lists(st.integers(1, 9), min_size=1, max_size=4).map(tuple)


def _pieces_match_numpy(device, limit):
    """With the backend's work-item limit lowered to ``limit``, every launch larger than
    that runs in pieces; each bounds mode gives NumPy's values."""
    import usmarray as xp
    from usmarray.kernels import kernel
    from usmarray.kernels._compilers import program_module
    from usmarray.kernels._plan import stride_order

    prog = program_module(xp.zeros(1, device=device)._be)
    prog.MAX_WORK_ITEMS = limit
    ks: dict = {}

    def get(nd, mode):
        if (nd, mode) not in ks:
            iv = _ivars(nd)
            code = " + ".join(f"i{k} * {10 ** k}" for k in range(nd))
            if mode == "skip":  # a stencil: the first point of every axis is skipped
                body = f"y({iv}) = a({', '.join(f'i{k} - 1' for k in range(nd))}) + {code};"
            else:
                body = f"y({iv}) = a({iv}) + {code};"
            ks[nd, mode] = kernel(f"int64[{_dims(nd)}] a, int64[{_dims(nd)}] y", body,
                                  shape="y")
        return ks[nd, mode]

    @given(_SPACES, st.sampled_from([None, "clamp", "check", "skip", "unchecked"]),
           st.booleans())
    def prop(shape, mode, flipped):
        nd = len(shape)
        begin(f"pieces shape={shape} mode={mode} flipped={flipped} limit={limit}")
        a_np = np.arange(np.prod(shape), dtype=np.int64).reshape(shape) * 7
        a = xp.asarray(a_np, device=device)
        if flipped:
            a, a_np = xp.flip(a), np.flip(a_np)
        y = xp.full(shape, -1, dtype=xp.int64, device=device)
        k = get(nd, mode)
        k(a, y, bounds=mode)
        idx = np.indices(shape)
        code = sum(idx[k] * 10 ** k for k in range(nd))
        want = np.full(shape, -1, np.int64)
        if mode == "skip":
            inner = tuple(slice(1, None) for _ in range(nd))
            want[inner] = a_np[tuple(slice(None, -1) for _ in range(nd))] + code[inner]
        else:
            want[...] = a_np + code
        np.testing.assert_array_equal(xp.asnumpy(y), want)
        # work-items: the sizes of the parallel axes (the first three in stride order)
        sizes = [n - 1 if mode == "skip" else n for n in shape]
        strides = np.zeros(shape, np.int8).strides
        par = stride_order(shape, strides, nd)[:3]
        if np.prod([sizes[a] for a in par]) > limit and mode != "check":
            assert k._last is None, "a launch past the limit ran in one piece"

    prop()


@pytest.mark.parametrize("device", _devices())
@pytest.mark.parametrize("limit", [1, 7, 64])
def test_launches_past_the_limit_run_in_pieces(device, limit):
    assert_child_ok(MOD, "_pieces_match_numpy", device, limit, timeout=600)


def _huge_launch(device):
    """(2, 2**30) work-items: past the SYCL provider's 32-bit range; each point of the
    space is visited once (every 65536th writes its coordinates)."""
    import usmarray as xp
    from usmarray.kernels import kernel

    begin("shape=(2, 2**30)")
    k = kernel("int64[:,:] y",
               "if ((i1 & 65535) == 0) y(i0, i1 >> 16) = i0 * 100000 + (i1 >> 16) + 1;",
               shape=(2, 2**30))
    y = xp.zeros((2, 2**14), dtype=xp.int64, device=device)
    k(y, bounds="unchecked")
    want = np.arange(2)[:, None] * 100000 + np.arange(2**14) + 1
    np.testing.assert_array_equal(xp.asnumpy(y), want)
    begin("a shape entry past 2**63 - 1 is refused at definition")
    for n in (2**63, 2**64, 2**70):
        try:
            kernel("int64[:] y", "y(0) = 1;", shape=(2, n))
        except ValueError as exc:
            assert "2**63 - 1" in str(exc), str(exc)
        else:
            raise AssertionError(f"shape (2, {n}) accepted")


def _too_many_pieces(device):
    import usmarray as xp
    from usmarray.kernels import kernel

    begin("shape=(2**62,) on SYCL: more launches than the factory makes")
    k = kernel("int64[:] y", "y(0) = 1;", shape=(2**62,))
    y = xp.zeros(1, dtype=xp.int64, device=device)
    try:
        k(y)
    except ValueError as exc:
        assert "launches" in str(exc), str(exc)
    else:
        raise AssertionError("2**62 work-items ran")
    assert int(y[0]) == 0


@pytest.mark.parametrize("device", _devices())
def test_a_launch_past_two_to_the_31_work_items_runs(device):
    assert_child_ok(MOD, "_huge_launch", device, timeout=600)


@pytest.mark.skipif(not _have_sycl(), reason="needs a SYCL runtime and device")
def test_too_many_pieces_is_refused_on_sycl():
    assert_child_ok(MOD, "_too_many_pieces", "opencl:cpu", timeout=120)


# ---- the fuzz test: random bodies, random layouts, several calls per kernel -------------------
_LEAF = st.one_of(
    st.tuples(st.just("acc"), st.sampled_from("ab"), st.integers(-1, 1), st.integers(-1, 1)),
    st.tuples(st.just("lit"), st.integers(0, 9)),
    st.tuples(st.just("ivar"), st.integers(0, 1)),
)
_EXPR = st.recursive(_LEAF, lambda kids: st.one_of(
    st.tuples(st.just("bin"), st.sampled_from(["+", "-", "&", "|", "^"]), kids, kids),
    st.tuples(st.just("mul"), kids, st.integers(-3, 3)),
    st.tuples(st.just("sel"), kids, kids, kids, kids),
), max_leaves=8)


def _c(e, centred: bool) -> str:
    """``e`` as C; ``centred``: accesses at the point itself (offsets dropped)."""
    kind = e[0]
    if kind == "acc":
        offs = (0, 0) if centred else e[2:]
        idx = ", ".join(f"i{d}" if c == 0 else f"i{d} {'+' if c > 0 else '-'} {abs(c)}"
                        for d, c in enumerate(offs))
        return f"{e[1]}({idx})"
    if kind == "lit":
        return str(e[1])
    if kind == "ivar":
        return f"i{e[1]}"
    if kind == "bin":
        return f"({_c(e[2], centred)} {e[1]} {_c(e[3], centred)})"
    if kind == "mul":
        return f"({_c(e[1], centred)} * {e[2]})"
    x, y, u, v = (_c(k, centred) for k in e[1:])
    return f"(({x}) < ({y}) ? ({u}) : ({v}))"


def _offsets(e, out: set, centred: bool) -> set:
    if e[0] == "acc":
        out.add((0, 0) if centred else e[2:])
    for k in e[1:]:
        if isinstance(k, tuple):
            _offsets(k, out, centred)
    return out


def _np(e, env, centred: bool):
    """``e`` evaluated with NumPy over the whole space (int64; clamped indices)."""
    kind = e[0]
    if kind == "acc":
        offs = (0, 0) if centred else e[2:]
        arr = env[e[1]]
        i0 = np.clip(env["i"][0] + offs[0], 0, arr.shape[0] - 1)
        i1 = np.clip(env["i"][1] + offs[1], 0, arr.shape[1] - 1)
        return arr[i0, i1].astype(np.int64)
    if kind == "lit":
        return np.full(env["i"][0].shape, e[1], np.int64)
    if kind == "ivar":
        return env["i"][e[1]].astype(np.int64)
    if kind == "bin":
        x, y = _np(e[2], env, centred), _np(e[3], env, centred)
        return {"+": np.add, "-": np.subtract, "&": np.bitwise_and, "|": np.bitwise_or,
                "^": np.bitwise_xor}[e[1]](x, y)
    if kind == "mul":
        return _np(e[1], env, centred) * e[2]
    x, y, u, v = (_np(k, env, centred) for k in e[1:])
    return np.where(x < y, u, v)


@st.composite
def _layout2(draw):
    return (draw(st.booleans()), tuple(draw(st.sampled_from([1, 2])) for _ in range(2)),
            tuple(draw(st.booleans()) for _ in range(2)))


def _view2(xp, device, shape, plan, full_np):
    """A view of ``shape`` over a fresh buffer built from ``full_np``'s values, the same
    in NumPy and usmarray: (NumPy buffer, NumPy view, usmarray buffer, usmarray view)."""
    transpose, steps, flips = plan
    fshape = tuple(n * s for n, s in zip(shape, steps, strict=True))
    buf_np = full_np(fshape[::-1] if transpose else fshape)
    buf = xp.asarray(buf_np, device=device)
    v_np, v = (buf_np.T, xp.permute_dims(buf, (1, 0))) if transpose else (buf_np, buf)
    key = tuple(slice(None, None, -s if f else s) for s, f in zip(steps, flips, strict=True))
    return buf_np, v_np[key], buf, v[key]


def _fuzz(device):
    import usmarray as xp
    from usmarray.kernels import kernel

    @given(_EXPR, _EXPR, _EXPR, st.sampled_from([None, "clamp", "check", "skip", "unchecked"]),
           st.lists(st.tuples(st.tuples(st.integers(1, 6), st.integers(1, 6)),
                              st.lists(_layout2(), min_size=4, max_size=4)),
                    min_size=3, max_size=3),
           st.integers(0, 2**32 - 1))
    def prop(e1, e2, e3, mode, calls, seed):
        centred = mode in (None, "check", "unchecked")
        body = (f"int32 t = {_c(e1, centred)};\n"
                f"y(i0, i1) = {_c(e2, centred)} + t;\n"
                f"z(i0, i1) = {_c(e3, centred)};")
        begin(f"fuzz mode={mode}\n{body}")
        k = kernel("int32[:,:] a, int32[:,:] b, int32[:,:] y, bool[:,:] z", body, shape="y")
        rng = np.random.default_rng(seed)
        offs = set()
        for e in (e1, e2, e3):
            _offsets(e, offs, centred)
        for shape, plans in calls:
            begin(f"call shape={shape} layouts={plans}")
            _, a_np, _, a = _view2(xp, device, shape, plans[0],
                                   lambda s: rng.integers(-50, 51, s, dtype=np.int32))
            _, b_np, _, b = _view2(xp, device, shape, plans[1],
                                   lambda s: rng.integers(-50, 51, s, dtype=np.int32))
            yb_np, y_np, yb, y = _view2(xp, device, shape, plans[2],
                                        lambda s: np.full(s, -1, np.int32))
            zb_np, z_np, zb, z = _view2(xp, device, shape, plans[3],
                                        lambda s: np.zeros(s, np.bool_))
            k(a, b, y, z, bounds=mode)
            env = {"a": a_np, "b": b_np, "i": np.indices(shape)}
            keep = np.ones(shape, bool)
            if mode == "skip":
                for o in offs:
                    for d in range(2):
                        j = env["i"][d] + o[d]
                        keep &= (j >= 0) & (j < shape[d])
            t = _np(e1, env, centred)
            y_np[keep] = (_np(e2, env, centred) + t).astype(np.int32)[keep]
            z_np[keep] = (_np(e3, env, centred) != 0)[keep]
            np.testing.assert_array_equal(xp.asnumpy(yb), yb_np, err_msg=body)
            got_z = xp.asnumpy(zb)
            assert got_z.view(np.uint8).max(initial=0) <= 1, body
            np.testing.assert_array_equal(got_z, zb_np, err_msg=body)

    prop()


@pytest.mark.parametrize("device", _devices())
def test_fuzz_random_bodies_and_layouts_against_numpy(device):
    assert_child_ok(MOD, "_fuzz", device, timeout=600)


if __name__ == "__main__":
    child_main(globals())
