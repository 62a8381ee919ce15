"""usmarray.fuse on the SYCL OpenCL CPU device (and on the NumPy backend, where it runs
the function unfused): random chains drawn with hypothesis give the unfused result bit
for bit (transcendentals included: the fused kernel calls the same device math
library as the provider's kernels), errors are the namespace's, and everything the
trace cannot fuse falls back with a debug message."""

from __future__ import annotations

import logging

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import usmarray as xp
from usmarray import _backend

sycl = pytest.mark.skipif(_backend.sycl is None or not _backend.sycl.available(),
                          reason="needs dpctl and a SYCL device")
DEVICE = "opencl:cpu"


def _cuda_usable() -> bool:
    try:
        return _backend.get_backend("cuda") is not None
    except Exception:  # no CuPy, no driver
        return False


#: the devices the fused kernel compiles for: the SYCL CPU device here, a GPU on a
#: GPU machine (``python -m pytest -m gpu tests/test_fuse.py``)
DEVICES = [
    pytest.param("opencl:cpu", marks=sycl, id="sycl"),
    pytest.param("cuda:0", id="cuda", marks=[
        pytest.mark.gpu, pytest.mark.skipif(not _cuda_usable(), reason="needs CuPy and a GPU")]),
]
on_devices = pytest.mark.parametrize("device", DEVICES)


def same_bits(r1, r2):
    """Equal dtype, shape and bits (any NaN equals any NaN)."""
    h1, h2 = xp.asnumpy(r1), xp.asnumpy(r2)
    assert h1.dtype == h2.dtype and h1.shape == h2.shape, (h1.dtype, h2.dtype, h1.shape, h2.shape)
    if h1.dtype.kind == "f":
        nan = np.isnan(h1) & np.isnan(h2)
        u = f"u{h1.itemsize}"
        ok = (h1.view(u) == h2.view(u)) | nan
    else:
        ok = h1 == h2
    assert ok.all(), (h1[~ok][:5], h2[~ok][:5])


def outcome(fn, *args):
    try:
        return fn(*args), None
    except Exception as exc:  # the comparison is the point
        return None, (type(exc), str(exc))


# ---- random chains ---------------------------------------------------------------------------
FLOAT_UNARY = ["sin", "cos", "exp", "log", "sqrt", "tanh", "abs", "negative", "square",
               "floor", "ceil", "round", "trunc", "sign", "reciprocal", "expm1", "log1p",
               "atan", "asinh", "positive"]
FLOAT_BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "pow",
                "atan2", "hypot", "copysign"]
INT_UNARY = ["abs", "negative", "square", "bitwise_invert", "sign", "positive"]
INT_BINARY = ["add", "subtract", "multiply", "maximum", "minimum", "bitwise_and",
              "bitwise_or", "bitwise_xor"]
COMPARE = ["less", "less_equal", "greater", "greater_equal", "equal", "not_equal"]
FLOAT_SCALARS = [0.0, -0.0, 0.5, -1.5, 2.0, 3.25, float("inf"), float("-inf"), float("nan"),
                 1e30, 0.1, 1]
INT_SCALARS = [0, 1, -1, 3, 7, 100, -128, 127]


def chains(kind: str):
    """Expression trees over the inputs 0, 1, 2: ("in", k), ("s", value),
    (op, child...), ("where", cmp, child, child), ("clip", child, lo, hi)."""
    unary, binary = (FLOAT_UNARY, FLOAT_BINARY) if kind == "f" else (INT_UNARY, INT_BINARY)
    scal = FLOAT_SCALARS if kind == "f" else INT_SCALARS
    leaf = st.integers(0, 2).map(lambda k: ("in", k))

    def extend(children):
        operand = st.one_of(children, st.sampled_from(scal).map(lambda v: ("s", v)))
        return st.one_of(
            st.tuples(st.sampled_from(unary), children),
            st.tuples(st.sampled_from(binary), children, operand),
            st.tuples(st.sampled_from(binary), operand, children),
            st.tuples(st.just("where"), st.tuples(st.sampled_from(COMPARE), children, operand),
                      children, operand),
            st.tuples(st.just("clip"), children, st.sampled_from(scal), st.sampled_from(scal)),
        )

    return st.recursive(leaf, extend, max_leaves=8).filter(lambda t: t[0] != "in")


def ev(tree, env):
    tag = tree[0]
    if tag == "in":
        return env[tree[1]]
    if tag == "s":
        return tree[1]
    if tag == "where":
        cmp = tree[1]
        cond = getattr(xp, cmp[0])(ev(cmp[1], env), ev(cmp[2], env))
        return xp.where(cond, ev(tree[2], env), ev(tree[3], env))
    if tag == "clip":
        lo, hi = tree[2], tree[3]
        return xp.clip(ev(tree[1], env), lo, hi)
    return getattr(xp, tag)(*(ev(t, env) for t in tree[1:]))


def _shapes():
    return hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5).flatmap(
        lambda s: st.tuples(st.just(s), hnp.broadcastable_shapes(s, min_dims=1, max_dims=len(s)),
                            hnp.broadcastable_shapes(s, min_dims=1, max_dims=len(s))))


def _float_arrays(dtype, shape):
    return hnp.arrays(dtype, shape, elements=st.floats(
        width=np.dtype(dtype).itemsize * 8, allow_subnormal=True))


def _fusable_on(device, tree, kind):
    """Whether every function of ``tree`` fuses on ``device`` (floating ``sign`` runs
    unfused on CUDA)."""
    return not (device.startswith("cuda") and kind == "f" and "'sign'" in repr(tree))


def _check_chain(tree, hosts, device, kind="f"):
    arrays = [xp.asarray(h, device=device) for h in hosts]

    def f(a, b, c):
        return ev(tree, (a, b, c))

    fused = xp.fuse(f)
    first, err1 = outcome(fused, *arrays)  # the trace: an unfused run
    ref, err0 = outcome(f, *arrays)
    assert err1 == err0
    again, err2 = outcome(fused, *arrays)  # the fused kernel (or the fallback)
    assert err2 == err0
    if err0 is None:
        same_bits(first, ref)
        same_bits(again, ref)
        # every function these chains draw is one the fused kernel emits
        if _fusable_on(device, tree, kind):
            assert fused.stats == {"traced": 1, "fused": 1, "unfused": 0}, (tree, fused.stats)
    return fused


@on_devices
@given(tree=chains("f"), shapes=_shapes(), dtype=st.sampled_from(["float32", "float64"]),
       data=st.data())
def test_random_float_chains_bit_for_bit(device, tree, shapes, dtype, data):
    hosts = [data.draw(_float_arrays(dtype, s)) for s in shapes]
    with np.errstate(all="ignore"):
        _check_chain(tree, hosts, device)


@on_devices
@given(tree=chains("i"), shapes=_shapes(),
       dtypes=st.lists(st.sampled_from(["int8", "uint8", "int16", "int32", "int64"]),
                       min_size=3, max_size=3), data=st.data())
def test_random_integer_chains_bit_for_bit(device, tree, shapes, dtypes, data):
    hosts = [data.draw(hnp.arrays(d, s)) for d, s in zip(dtypes, shapes, strict=True)]
    _check_chain(tree, hosts, device, "i")


# ---- the issue's chain, fused and launched -----------------------------------------------------
def issue_chain(a, b, c):
    return xp.clip((a * b + c) * 0.5, -1, 1) + xp.sin(a) - c


@on_devices
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_issue_chain_is_one_kernel_and_exact(device, dtype):
    rng = np.random.default_rng(1)
    a, b, c = (xp.asarray(rng.standard_normal((7, 33)).astype(dtype), device=device)
               for _ in range(3))
    f = xp.fuse(issue_chain)
    same_bits(f(a, b, c), issue_chain(a, b, c))
    same_bits(f(a, b, c), issue_chain(a, b, c))
    assert f.stats == {"traced": 1, "fused": 1, "unfused": 0}
    src = f.source(a, b, c)
    assert "FP_CONTRACT OFF" in src["opencl"]
    assert ("__fmul_rn" if dtype == "float32" else "__dmul_rn") in src["cuda"]
    # another shape, views, broadcasting: the same kernel, the same bits
    a2 = xp.asarray(rng.standard_normal((5, 40)).astype(dtype), device=device)[:, ::3]
    b2 = xp.asarray(rng.standard_normal((1, 14)).astype(dtype), device=device)
    same_bits(f(a2, b2, a2), issue_chain(a2, b2, a2))
    assert f.stats["traced"] == 2  # f(a2, b2, a2) aliases: a signature of its own
    c2 = xp.asarray(rng.standard_normal((5, 1)).astype(dtype), device=device)
    same_bits(f(a2, b2, c2), issue_chain(a2, b2, c2))  # the first signature's kernel
    assert f.stats == {"traced": 2, "fused": 2, "unfused": 0}


@on_devices
def test_no_fma_contraction(device):
    rng = np.random.default_rng(2)
    a, b, c = (xp.asarray(rng.standard_normal(4096).astype(np.float32), device=device)
               for _ in range(3))
    f = xp.fuse(lambda a, b, c: a * b + c)
    f(a, b, c)
    same_bits(f(a, b, c), a * b + c)
    assert f.stats["fused"] == 1


@on_devices
def test_trailing_reductions_run_the_namespace_reduction(device):
    rng = np.random.default_rng(3)
    x = xp.asarray(rng.standard_normal((6, 50)).astype(np.float32), device=device)
    for fn in (lambda x: xp.sum(x * x), lambda x: xp.max(xp.abs(x) - 1, axis=-1),
               lambda x: xp.mean(xp.exp(x), axis=1, keepdims=True),
               lambda x: xp.sum(xp.astype(x > 0, xp.int32), axis=-1)):
        f = xp.fuse(fn)
        f(x)
        same_bits(f(x), fn(x))
        assert f.stats["fused"] == 1


@on_devices
def test_integer_semantics(device):
    x = xp.asarray(np.array([-128, -1, 0, 1, 127], np.int8), device=device)
    y = xp.asarray(np.array([3, -7, 0, 2, 5], np.int16), device=device)
    for fn in (lambda x, y: -x + x * y, lambda x, y: xp.abs(x) * 3 - y,
               lambda x, y: x / y, lambda x, y: (x ^ y) & ~x, lambda x, y: xp.astype(x, xp.float32) * xp.astype(y, xp.float32) + xp.astype(x > y, xp.float32)):
        f = xp.fuse(fn)
        with np.errstate(all="ignore"):
            f(x, y)
            same_bits(f(x, y), fn(x, y))
        assert f.stats["fused"] == 1, fn


# ---- errors: the namespace's, on the first and on later calls ----------------------------------
@on_devices
def test_errors_are_the_namespaces(device):
    a = xp.ones((3, 4), device=device)
    f = xp.fuse(issue_chain)
    f(a, a + 1, a)
    bad = xp.ones((3, 5), device=device)
    for args in ((a, bad, a), (a, xp.ones((3, 4), dtype=xp.int32, device=device), a)):
        assert outcome(f, *args)[1] == outcome(issue_chain, *args)[1] is not None
    g = xp.fuse(lambda x: xp.sin(x))
    assert outcome(g, xp.ones(3, dtype=xp.int8, device=device))[1] == (
        TypeError, "sin is defined for floating-point dtypes only, got dtype int8")
    h = xp.fuse(lambda x: x + 300)
    assert outcome(h, xp.ones(3, dtype=xp.int8, device=device))[1][0] is OverflowError


@sycl
def test_compute_follows_data():
    a = xp.ones(3, device=DEVICE)
    b = xp.ones(3, device="numpy")
    f = xp.fuse(lambda a, b: a + b)
    assert outcome(f, a, b)[1] == outcome(lambda a, b: a + b, a, b)[1]
    assert outcome(f, a, b)[1][0] is xp.ExecutionPlacementError


# ---- what falls back ------------------------------------------------------------------------------
G = xp.ones(4, device=DEVICE) if _backend.sycl is not None and _backend.sycl.available() else None
SCALE = 2.0


@sycl
@pytest.mark.parametrize("fn, why", [
    (lambda x: x[::2] + 1, "not recorded"),
    (lambda x: x + G, "not an argument"),
    (lambda x: x / float(xp.max(x)), "float() of an array"),
    (lambda x: xp.logaddexp(x, x), "logaddexp"),
    (lambda x: xp.sum(x) + x, "sum in the middle"),
    (lambda x: (x + 1, x), "returned tuple"),
])
def test_fallback_is_logged_and_exact(fn, why, caplog):
    x = xp.asarray(np.arange(4.0), device=DEVICE)
    f = xp.fuse(fn)
    with caplog.at_level(logging.DEBUG, logger="usmarray.fuse"):
        r1 = f(x)
        r2 = f(x)
    assert f.stats == {"traced": 1, "fused": 0, "unfused": 1}
    assert any(why in rec.getMessage() for rec in caplog.records), caplog.text
    ref = fn(x)
    for r in (r1, r2):
        if isinstance(ref, tuple):
            for u, v in zip(r, ref, strict=True):
                same_bits(u, v)
        else:
            same_bits(r, ref)


@sycl
def test_in_place_writes_fall_back_and_happen_once():
    def bump(x):
        x += 1
        return x * 2

    f = xp.fuse(bump)
    x = xp.zeros(3, device=DEVICE)
    r = f(x)
    assert xp.asnumpy(x).tolist() == [1, 1, 1] and xp.asnumpy(r).tolist() == [2, 2, 2]
    r = f(x)
    assert xp.asnumpy(x).tolist() == [2, 2, 2] and f.stats["fused"] == 0
    # a read-only argument: the namespace's refusal, on the trace and after it
    ro = xp.zeros(3, device=DEVICE)
    ro.flags.writable = False
    errs = {outcome(f, ro)[1] for _ in range(2)}
    ro2 = xp.zeros(3, device=DEVICE)
    ro2.flags.writable = False
    assert errs == {outcome(bump, ro2)[1]} and next(iter(errs))[0] is ValueError
    assert xp.asnumpy(ro).tolist() == [0, 0, 0]


@sycl
def test_scalars_arguments_globals_and_aliasing():
    x = xp.asarray(np.array([1.0, -2.0, 0.0]), device=DEVICE)
    f = xp.fuse(lambda x, s: x * s)
    for s in (2.0, 3.0, -0.0, 0.0, 2.0, np.float64(-0.0), np.float32(3.0)):
        same_bits(f(x, s), x * s)
    assert f.stats["traced"] == 4 and f.stats["fused"] == 3

    def scaled(x):
        return x * SCALE

    g = xp.fuse(scaled)
    same_bits(g(x), x * 2.0)
    same_bits(g(x), x * 2.0)
    globals()["SCALE"] = 5.0
    try:
        same_bits(g(x), x * 5.0)  # a changed global scalar traces again
    finally:
        globals()["SCALE"] = 2.0
    assert g.stats["traced"] == 2

    def act(x):
        return xp.tanh(x)

    k = xp.fuse(lambda x: act(x) * 2)
    same_bits(k(x), xp.tanh(x) * 2)
    same_bits(k(x), xp.tanh(x) * 2)

    def act(x):  # noqa: F811 - the closure now reads another function
        return xp.sin(x)

    same_bits(k(x), xp.sin(x) * 2)
    assert k.stats["traced"] == 2

    h = xp.fuse(lambda a, b: a - b)
    y = xp.asarray(np.array([5.0, 6.0, 7.0]), device=DEVICE)
    same_bits(h(x, x), x - x)
    same_bits(h(x, y), x - y)
    same_bits(h(x, y), x - y)
    assert h.stats["traced"] == 2 and h.stats["fused"] == 1


@sycl
def test_dtype_axis_and_other_arguments():
    x = xp.asarray(np.arange(6.0).reshape(2, 3), device=DEVICE)
    f = xp.fuse(lambda x, d, axis: xp.sum(xp.astype(x * 2, d), axis=axis))
    for d, axis in ((xp.float32, -1), (xp.float32, -1), (xp.float64, (0,)), (xp.float64, (0,))):
        same_bits(f(x, d, axis), xp.sum(xp.astype(x * 2, d), axis=axis))
    assert f.stats == {"traced": 2, "fused": 2, "unfused": 0}
    for _ in range(2):  # a list axis: the namespace's refusal, every time
        with pytest.raises(TypeError, match=r"write axis=\(0,\)"):
            f(x, xp.float64, [0])
    with pytest.raises(TypeError, match="axis"):  # no key for an arbitrary object: unfused
        f(x, xp.float32, object())
    assert f.stats == {"traced": 2, "fused": 2, "unfused": 1}


@sycl
def test_nested_fused_functions_trace_through():
    inner = xp.fuse(lambda x: xp.exp(x) + 1)
    outer = xp.fuse(lambda x: xp.log(inner(x)))
    x = xp.asarray(np.linspace(-3, 3, 11), device=DEVICE)
    outer(x)
    same_bits(outer(x), xp.log(xp.exp(x) + 1))
    assert outer.stats["fused"] == 1


def test_numpy_backend_runs_unfused():
    x = xp.asarray(np.linspace(-1, 1, 9), device="numpy")
    f = xp.fuse(issue_chain)
    for _ in range(2):
        same_bits(f(x, x, x), issue_chain(x, x, x))
    assert f.stats == {"traced": 0, "fused": 0, "unfused": 2}


def test_fuse_takes_a_function():
    with pytest.raises(TypeError, match="expected a function"):
        xp.fuse(3)
    assert xp.fuse(issue_chain).__name__ == "issue_chain"


@pytest.mark.gpu
@pytest.mark.skipif(not _cuda_usable(), reason="needs CuPy and a GPU")
def test_cuda_flat_path_vector_loop_tails_and_unaligned_views():
    """The CUDA flat path loads 16 bytes per array and thread where every pointer is
    aligned; tails and unaligned views run the scalar loop: all give the same bits."""
    rng = np.random.default_rng(5)
    f = xp.fuse(issue_chain)
    for n in (1, 3, 4, 1003, 1 << 16):
        a, b, c = (xp.asarray(rng.standard_normal(n + 1).astype(np.float32), device="cuda:0")
                   for _ in range(3))
        for args in ((a, b, c), (a[1:], b[1:], c[1:]), (a[1:], b[:-1], c[1:])):
            f(*args)
            same_bits(f(*args), issue_chain(*args))
    plan = next(p for _, p in f._plans.values() if p != "unfused")
    sources = [v.source for v in plan.kernel._kernel(1)._variants.values()]
    assert any("_uk_vec<float, 4>" in s for s in sources), sources[:1]
    g = xp.fuse(lambda x, y: (x * 2.0 + y) > 0.5)  # float64 in, bool out: 2 per thread
    x, y = (xp.asarray(rng.standard_normal(1001), device="cuda:0") for _ in range(2))
    g(x, y)
    same_bits(g(x, y), (x * 2.0 + y) > 0.5)


REDUCTIONS = ["sum", "prod", "max", "min", "mean"]


@on_devices
@given(tree=chains("f"), shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=9),
       dtype=st.sampled_from(["float32", "float64"]), red=st.sampled_from(REDUCTIONS),
       axis=st.sampled_from([None, -1, 0, (0, -1)]), keepdims=st.booleans(), data=st.data())
def test_random_chains_with_a_trailing_reduction_bit_for_bit(device, tree, shape, dtype, red,
                                                             axis, keepdims, data):
    """A chain ending in a reduction gives the unfused result bit for bit (on CUDA the
    elements are computed in the reduction's load: the same order of merges)."""
    hosts = [data.draw(_float_arrays(dtype, shape)) for _ in range(3)]
    arrays = [xp.asarray(h, device=device) for h in hosts]

    def f(a, b, c):
        return getattr(xp, red)(ev(tree, (a, b, c)), axis=axis, keepdims=keepdims)

    fused = xp.fuse(f)
    with np.errstate(all="ignore"):
        first, err1 = outcome(fused, *arrays)
        ref, err0 = outcome(f, *arrays)
        again, err2 = outcome(fused, *arrays)
    assert err1 == err0 and err2 == err0
    if err0 is None:
        same_bits(first, ref)
        same_bits(again, ref)


def _in_load_plans(x):
    """The CUDA backend's plans of reductions that compute their elements in the load."""
    return len(x._be.reductions._fused)


@pytest.mark.gpu
@pytest.mark.skipif(not _cuda_usable(), reason="needs CuPy and a GPU")
@pytest.mark.parametrize("case", [
    ("f32 sum of squares, 2^20", "float32", (1 << 20,), lambda x, y: xp.sum(x * x)),
    ("f32 sum of squares, 1001 (scalar loads)", "float32", (1001,), lambda x, y: xp.sum(x * x)),
    ("f64 mean of a*x+y over the last axis", "float64", (64, 3000),
     lambda x, y: xp.mean(x * 0.5 + y, axis=-1)),
    ("f32 max of |x - y| over axis 0 (column pass)", "float32", (3000, 40),
     lambda x, y: xp.max(xp.abs(x - y), axis=0)),
    ("f32 min over both axes, keepdims", "float32", (300, 257),
     lambda x, y: xp.min(xp.where(x > y, x, y - 1.0), keepdims=True)),
    ("f32 prod over the last axis", "float32", (50, 40),
     lambda x, y: xp.prod(1.0 + x * 0.01, axis=-1)),
    ("int32 sum (int64 result) of a masked count", "float32", (200000,),
     lambda x, y: xp.sum(xp.astype(x > y, xp.int32) * 3)),
    ("f32 sum with dtype=float64", "float32", (4096, 8),
     lambda x, y: xp.sum(x * y, axis=0, dtype=xp.float64)),
])
def test_cuda_reduction_computes_the_elements_in_its_load(case):
    """On CUDA a fused chain ending in sum/prod/max/min/mean writes no intermediate: the
    reduction's first launch computes each element (vector loads where aligned, split
    rows, column passes); the result is the two-step one bit for bit, unaligned views
    included."""
    _, dtype, shape, fn = case
    rng = np.random.default_rng(7)
    n = int(np.prod(shape))
    hx = rng.standard_normal(n + 1).astype(dtype)
    hy = rng.standard_normal(n + 1).astype(dtype)
    f = xp.fuse(fn)
    before = None
    for sl in (slice(0, n), slice(1, n + 1)):  # aligned, then one element off
        x = xp.reshape(xp.asarray(hx, device="cuda:0")[sl], shape)
        y = xp.reshape(xp.asarray(hy, device="cuda:0")[sl], shape)
        if before is None:
            before = _in_load_plans(x)
        f(x, y)
        same_bits(f(x, y), fn(x, y))
    assert f.stats == {"traced": 1, "fused": 3, "unfused": 0}
    assert _in_load_plans(x) > before  # a plan whose first launch computes the elements


@pytest.mark.gpu
@pytest.mark.skipif(not _cuda_usable(), reason="needs CuPy and a GPU")
def test_cuda_in_load_reduction_leaves_the_rest_to_the_two_step_path():
    """Broadcast operands, a bool result summed, an empty array and shared memory take
    the two-step path, with the same results."""
    rng = np.random.default_rng(8)
    x = xp.asarray(rng.standard_normal((40, 30)).astype(np.float32), device="cuda:0")
    row = xp.asarray(rng.standard_normal(30).astype(np.float32), device="cuda:0")
    e = xp.zeros((0, 30), dtype=xp.float32, device="cuda:0")
    for fn, args in ((lambda a, b: xp.sum(a * b, axis=-1), (x, row)),
                     (lambda a, b: xp.sum(a > b), (x, x * 0.5)),
                     (lambda a, b: xp.sum(a + b, axis=0), (e, e)),
                     (lambda a, b: xp.max(a + b), (e, e))):
        f = xp.fuse(fn)
        for _ in range(2):
            r1, e1 = outcome(f, *args)
            r0, e0 = outcome(fn, *args)
            assert e1 == e0
            if e0 is None:
                same_bits(r1, r0)


@sycl
def test_the_trace_keeps_no_intermediate_alive():
    """The trace records without holding results: an intermediate freed during the
    trace is forgotten (its address may be reused by the next array)."""
    import gc
    import weakref

    seen = []

    def f(x):
        t = x * 2
        seen.append(weakref.ref(t))
        del t
        u = x + 1  # may take t's address
        return xp.sin(u)

    x = xp.asarray(np.linspace(0, 1, 16), device=DEVICE)
    g = xp.fuse(f)
    g(x)
    gc.collect()
    assert seen[0]() is None
    same_bits(g(x), xp.sin(x + 1))
    assert g.stats["fused"] == 1
