"""The kernel factory (usmarray.kernels) on the SYCL OpenCL CPU device: the seed's
examples against NumPy, the run-time checks, the bounds modes, the compile cache and
the elementwise helper.  Backend-free parts (signature and body errors) run anywhere."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import usmarray as xp
from usmarray import _backend
from usmarray.kernels import KernelSyntaxError, elementwise, kernel
from usmarray.kernels import _kernel as kmod

sycl = pytest.mark.skipif(_backend.sycl is None or not _backend.sycl.available(),
                          reason="needs dpctl and a SYCL device")


def _sycl_dev():
    return xp.Device.create_device("opencl:cpu")


def arr(a):
    return xp.asarray(np.asarray(a), device=_sycl_dev())


# ---- signature and body errors (no device needed) ------------------------------------------
@pytest.mark.parametrize("sig, exc, match", [
    ("float32[:] x, complex64 c", TypeError, "complex64 is not supported"),
    ("float16[:] x", TypeError, "unknown dtype 'float16'"),
    ("float32[:, a] x", ValueError, "shape entry 'a'"),
    ("float32[] x", ValueError, "at least one axis"),
    ("float32[:] x, int64 x", ValueError, "used twice"),
    ("float32 w", ValueError, "declares no array"),
    ("float32[:] i0", ValueError, "reserved"),
    ("float32[:] _uk_x", ValueError, "reserved"),
    ("float32[:] for", ValueError, "reserved"),
    ("float32[:] 2x", ValueError, "not a C identifier"),
    ("", ValueError, "empty"),
    ("float32[:]", ValueError, "'\\[:\\]' is not a C identifier"),
])
def test_signature_errors(sig, exc, match):
    with pytest.raises(exc, match=match):
        kernel(sig, "", shape=(1,))


@pytest.mark.parametrize("body, match", [
    ("y(i0) = x;", "must be indexed as x\\(i0\\)"),
    ("y(i0) = x(i0, 1);", "needs 1 indices"),
    ("y(i0) = x();", "needs 1 indices"),
    ("return;", "'return' is not allowed"),
    ("float _uk_t = 1; y(i0) = _uk_t;", "reserved"),
    ("y(i0) = x(i1);", "i1 is not an index variable"),
    ("y(i0) = x.shape[1];", "x has 1 axes"),
    ("y(i0) = x.size;", "x.size is not supported"),
    ("y(i0) = x.shape[k];", "integer literal"),
    ("y(i0) = *&x(i0);", "address-of operator &"),
    ("float *p = 0; y(i0) = *p;", "pointer declarations"),
    ("y(i0) = x(i0;", "unbalanced"),
])
def test_body_misuse_is_reported_at_definition(body, match):
    with pytest.raises(KernelSyntaxError, match=match):
        kernel("float32[:] x, float32[:] y", body, shape="y")


@pytest.mark.parametrize("shape, axes, exc", [
    ("w", None, ValueError), ("nope", None, ValueError), ((), None, TypeError),
    ((3, -1), None, TypeError), ([3], None, TypeError),
    ((3, 4), (True,), ValueError), ((3, 4), (False, False), ValueError),
    ((3, 4), (1, 0), TypeError), ((2, 2, 2, 2), (True,) * 4, ValueError),
])
def test_shape_and_axes_errors(shape, axes, exc):
    with pytest.raises(exc):
        kernel("float32[:,:] y, float32 w", "y(i0, i1) = w;", shape=shape, axes=axes)


def test_numpy_backend_has_no_compiler():
    k = kernel("float64[:] y", "y(i0) = 1;", shape="y")
    y = xp.zeros(3, device="numpy")
    with pytest.raises(NotImplementedError, match=r"'numpy' backend has no kernel compiler.*sycl"):
        k(y)


# ---- the seed's examples --------------------------------------------------------------------
@sycl
def test_nd_indexing_on_views_with_negative_strides_and_offsets():
    base = np.arange(7 * 9, dtype=np.float64).reshape(7, 9)
    a_np = base[5:0:-2, 8:1:-3]            # offset, negative strides on both axes
    out_base = np.zeros((4, 6))
    k = kernel("float64[:,:] a, float64[:,:] b",
               "b(i0, i1) = 2 * a(i0, i1) + 10 * i0 + i1;", shape="a")
    A = arr(base)[5:0:-2, 8:1:-3]
    B_full = arr(out_base)
    B = B_full[::-1, 1::2][:3]             # a strided, reversed output view
    assert A.strides[0] < 0 and A.strides[1] < 0
    k(A, B)
    want_b = out_base.copy()
    view = want_b[::-1, 1::2][:3]
    view[...] = 2 * a_np + 10 * np.arange(3)[:, None] + np.arange(3)[None, :]
    np.testing.assert_array_equal(xp.asnumpy(B_full), want_b)


@sycl
def test_outer_product():
    x_np = np.linspace(-1, 1, 13, dtype=np.float32)
    y_np = np.arange(5, dtype=np.float32)
    outer = kernel("float32[:] x, float32[:] y, float32[:,:] out",
                   "out(i0, i1) = x(i0) * y(i1);", shape="out")
    out = xp.zeros((13, 5), dtype=xp.float32, device=_sycl_dev())
    outer(arr(x_np), arr(y_np), out)
    np.testing.assert_allclose(xp.asnumpy(out), np.outer(x_np, y_np), rtol=1e-6)


BLUR = ("dst(i0, i1) = w * src(i0, i1) + (1 - w) * 0.25f * (src(i0 - 1, i1) + src(i0 + 1, i1)"
        " + src(i0, i1 - 1) + src(i0, i1 + 1));")


def _blur_ref(a, w):
    p = np.pad(a, 1, mode="edge")
    return w * a + (1 - w) * 0.25 * (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:])


@sycl
@pytest.mark.parametrize("axes", [None, (False, True), (True, False), (True, True)])
def test_stencil_clamp_and_skip(axes):
    rng = np.random.default_rng(0)
    a_np = rng.random((9, 11)).astype(np.float32)
    blur = kernel("float32[:,:] src, float32[:,:] dst, float32 w", BLUR, shape="dst", axes=axes)
    a = arr(a_np)
    b = xp.zeros((9, 11), dtype=xp.float32, device=_sycl_dev())
    blur(a, b, 0.25, bounds="clamp")
    np.testing.assert_allclose(xp.asnumpy(b), _blur_ref(a_np, 0.25), rtol=1e-5)
    c = xp.full((9, 11), -1.0, dtype=xp.float32, device=_sycl_dev())
    blur(a, c, 0.25, bounds="skip")
    want = np.full((9, 11), -1.0, dtype=np.float32)
    want[1:-1, 1:-1] = _blur_ref(a_np, 0.25)[1:-1, 1:-1]
    np.testing.assert_allclose(xp.asnumpy(c), want, rtol=1e-5)


@sycl
def test_stencil_needs_a_bounds_mode_and_check_reports_the_access():
    blur = kernel("float32[:,:] src, float32[:,:] dst, float32 w", BLUR, shape="dst")
    a = arr(np.ones((4, 5), np.float32))
    b = xp.zeros((4, 5), dtype=xp.float32, device=_sycl_dev())
    with pytest.raises(ValueError, match=r"src\(i0 - 1, i1\).*bounds="):
        blur(a, b, 0.5)
    # work-items run in parallel: whichever out-of-range access is recorded first is
    # reported, and what the message says of it must be true
    with pytest.raises(IndexError) as info:
        blur(a, b, 0.5, bounds="check")
    m = re.match(r"kernel: src\(i0( [-+] 1)?, i1( [-+] 1)?\): index (-?\d+) is out of bounds "
                 r"for axis ([01]) of src with size (\d+) \(at i0=(\d+), i1=(\d+)\)",
                 str(info.value))
    assert m, str(info.value)
    d0, d1, index, axis, size, p0, p1 = m.groups()
    axis, index, size, p0, p1 = int(axis), int(index), int(size), int(p0), int(p1)
    shift = (d0 if axis == 0 else d1) or ""
    assert (d0 is None) != (d1 is None) and shift.strip()  # one axis shifted: that one
    assert size == (4, 5)[axis] and not 0 <= index < size
    assert index == (p0, p1)[axis] + (1 if "+" in shift else -1)
    # in range: check mode passes and computes
    inner = kernel("float32[:,:] src, float32[:,:] dst", "dst(i0, i1) = src(i0 + 1, i1);",
                   shape="dst")
    s = arr(np.arange(20, dtype=np.float32).reshape(4, 5))
    d = xp.zeros((3, 5), dtype=xp.float32, device=_sycl_dev())
    inner(s, d, bounds="check")
    np.testing.assert_array_equal(xp.asnumpy(d), np.arange(5, 20, dtype=np.float32).reshape(3, 5))


@sycl
def test_fixed_and_run_time_sizes_the_seed_product():
    """The seed's 'funky product' (with its loop counters initialised), smaller."""
    sig = "float64[4,5] result, uint32[:,4,5] foo, uint32[3,4,5] bar, float32 scalar"
    body = """
    float64 r = 0;
    for (uint32 i = 0; i < foo.shape[0]; i++)
        for (uint32 j = 0; j < bar.shape[0]; j++)
            r += foo(i, i0, i1) * bar(j, i0, i1) * scalar;
    result(i0, i1) = r;
    """
    k = kernel(sig, body, shape=(4, 5), axes=(False, True))
    rng = np.random.default_rng(1)
    foo = rng.integers(0, 9, (6, 4, 5)).astype(np.uint32)
    bar = rng.integers(0, 9, (3, 4, 5)).astype(np.uint32)
    res = xp.zeros((4, 5), dtype=xp.float64, device=_sycl_dev())
    # the loop counters index the axes they run over: provable, no bounds=
    src = k.source(res, arr(foo), arr(bar), 0.5)
    want = (foo.astype(np.float64).sum(0) * bar.astype(np.float64).sum(0) * 0.5)
    np.testing.assert_allclose(xp.asnumpy(res), want)
    # fixed sizes are constants, ':' sizes kernel arguments; dtype names are C types
    assert "const _uk_i _uk_bar_n0 = 3;" in src and "_uk_i _uk_foo_n0," in src
    assert "double r = 0" in src and "((uint)_uk_lc0)" in src  # a counter read: a value
    assert "for (_uk_i _uk_ix0 = " in src and "get_global_id(0)" in src
    # a second array of another leading size reuses the compiled program
    n = kmod.stats["compiled"]
    foo2 = rng.integers(0, 9, (2, 4, 5)).astype(np.uint32)
    k(res, arr(foo2), arr(bar), 2.0, bounds="unchecked")
    assert kmod.stats["compiled"] == n
    np.testing.assert_allclose(
        xp.asnumpy(res), foo2.astype(np.float64).sum(0) * bar.astype(np.float64).sum(0) * 2.0)


@sycl
@pytest.mark.parametrize("axes, n_par, n_loops", [
    (None, 3, 1), ((True, False, False, True), 2, 2), ((False, False, False, True), 1, 3),
    ((True, True, True, False), 3, 1),
])
def test_parallel_serial_override_4d(axes, n_par, n_loops):
    shape = (2, 3, 4, 5)
    k = kernel("int64[:,:,:,:] out",
               "out(i0, i1, i2, i3) = i0 * 1000 + i1 * 100 + i2 * 10 + i3;",
               shape="out", axes=axes)
    out = xp.zeros(shape, dtype=xp.int64, device=_sycl_dev())
    src = k.source(out)
    idx = np.indices(shape)
    np.testing.assert_array_equal(xp.asnumpy(out),
                                  idx[0] * 1000 + idx[1] * 100 + idx[2] * 10 + idx[3])
    assert src.count("get_global_id(") == n_par
    assert src.count("for (_uk_i _uk_ix") == n_loops
    if axes is None or axes[3]:  # the unit-stride axis is the fastest hardware dimension
        assert "_uk_ix3 = _uk_lo3 + (_uk_i)get_global_id(0)" in src


@sycl
def test_default_plan_follows_the_unit_stride_axis():
    k = kernel("int64[:,:] out", "out(i0, i1) = i0 * 100 + i1;", shape="out")
    base = xp.zeros((6, 4), dtype=xp.int64, device=_sycl_dev())
    t = base.T                                     # axis 0 has unit stride now
    src = k.source(t)
    assert "_uk_ix0 = _uk_lo0 + (_uk_i)get_global_id(0)" in src
    np.testing.assert_array_equal(xp.asnumpy(t), np.add.outer(np.arange(4) * 100, np.arange(6)))


# ---- run-time checks --------------------------------------------------------------------------
@sycl
def test_runtime_checks():
    k = kernel("float32[:,3] x, float32[:] y, float32 w, int8 n", "y(i0) = w * x(i0, 0) + n;",
               shape="y")
    d = _sycl_dev()
    x = xp.ones((4, 3), dtype=xp.float32, device=d)
    y = xp.zeros(4, dtype=xp.float32, device=d)
    k(x, y, 2, 3)
    np.testing.assert_array_equal(xp.asnumpy(y), np.full(4, 5.0, np.float32))
    with pytest.raises(TypeError, match="takes 4 arguments"):
        k(x, y, 2.0)
    with pytest.raises(TypeError, match="argument x .* must be a usmarray.usm_ndarray"):
        k(np.ones((4, 3), np.float32), y, 2.0, 1)
    with pytest.raises(TypeError, match="argument y must have dtype float32"):
        k(x, xp.zeros(4, dtype=xp.float64, device=d), 2.0, 1)
    with pytest.raises(ValueError, match=r"argument x must have 2 dimensions .* got shape \(12,\)"):
        k(xp.ones(12, dtype=xp.float32, device=d), y, 2.0, 1)
    with pytest.raises(ValueError, match=r"argument x must have size 3 on axis 1 .* \(4, 4\)"):
        k(xp.ones((4, 4), dtype=xp.float32, device=d), y, 2.0, 1)
    with pytest.raises(ValueError, match=r"x\(i0, 0\) indexes axis 0 of x \(size 2\)"):
        k(xp.ones((2, 3), dtype=xp.float32, device=d), y, 2.0, 1)
    with pytest.raises(TypeError, match="argument w .* got complex"):
        k(x, y, 1j, 1)
    with pytest.raises(TypeError, match="argument w .* got bool"):
        k(x, y, True, 1)
    with pytest.raises(TypeError, match="argument n .* got float"):
        k(x, y, 1.0, 1.5)
    with pytest.raises(TypeError, match="argument n .* got float64"):
        k(x, y, 1.0, np.float64(1))
    with pytest.raises(OverflowError, match="argument n: Python int 200 does not fit int8"):
        k(x, y, 1.0, 200)
    with pytest.raises(ValueError, match="bounds='wrap' is not a bounds mode"):
        k(x, y, 1.0, 1, bounds="wrap")


@sycl
def test_placement_and_writability():
    import dpctl

    k = kernel("float32[:] x, float32[:] y", "y(i0) = x(i0);", shape="y")
    d = _sycl_dev()
    x = xp.ones(4, dtype=xp.float32, device=d)
    other = xp.Device.create_device(dpctl.SyclQueue(d.sycl_context, d.sycl_device))
    y_other = xp.zeros(4, dtype=xp.float32, device=other)
    with pytest.raises(xp.ExecutionPlacementError, match="different devices"):
        k(x, y_other)
    with pytest.raises(xp.ExecutionPlacementError):
        k(x, xp.zeros(4, dtype=xp.float32, device="numpy"))
    # the program is shared by equivalent queues: no new compilation on the other queue
    n = kmod.stats["compiled"]
    k(x, xp.zeros(4, dtype=xp.float32, device=d))
    n = kmod.stats["compiled"]
    k(xp.ones(4, dtype=xp.float32, device=other), y_other)
    assert kmod.stats["compiled"] == n
    np.testing.assert_array_equal(xp.asnumpy(y_other), np.ones(4, np.float32))
    ro = xp.zeros(4, dtype=xp.float32, device=d)
    ro._arr.flags.writable = False
    with pytest.raises(ValueError, match="argument y is written by the kernel but is read-only"):
        k(x, ro)
    k(ro, xp.zeros(4, dtype=xp.float32, device=d))  # read-only inputs are fine
    bound = kernel("float32[:] x, float32[:] y", "y(i0) = x(i0);", shape="y", device=other)
    with pytest.raises(xp.ExecutionPlacementError):
        bound(x, xp.zeros(4, dtype=xp.float32, device=d))


@sycl
def test_compiler_error_carries_source_and_log():
    k = kernel("float32[:] y", "y(i0) = no_such_name + 1;", shape="y")
    y = xp.zeros(3, dtype=xp.float32, device=_sycl_dev())
    with pytest.raises(KernelSyntaxError) as info:
        k(y)
    err = info.value
    assert "__kernel void uk_kernel(" in err.source
    assert err.log is not None and "no_such_name" in err.log
    assert "--- generated source ---" in str(err) and "--- compiler log ---" in str(err)


@sycl
def test_float64_needs_fp64(monkeypatch):
    from usmarray._backend._sycl import program as _program_sycl

    monkeypatch.setattr(_program_sycl, "has_fp64", lambda q: False)
    k = kernel("float32[:] y", "float64 t = 2; y(i0) = (float32)t;", shape="y")
    y = xp.zeros(3, dtype=xp.float32, device=_sycl_dev())
    with pytest.raises(TypeError, match="uses float64.*no double precision"):
        k(y)
    k2 = kernel("float32[:] y", "y(i0) = 2.0f;", shape="y")
    k2(y)
    np.testing.assert_array_equal(xp.asnumpy(y), np.full(3, 2, np.float32))


@sycl
def test_empty_iteration_space_launches_nothing():
    k = kernel("float32[:] y", "y(i0) = 1;", shape="y")
    k(xp.zeros(0, dtype=xp.float32, device=_sycl_dev()))


@sycl
def test_every_kernel_dtype_round_trips():
    for name in ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
                 "uint64", "float32", "float64"):
        k = kernel(f"{name}[:] x, {name}[:] y, {name} s",
                   "y(i0) = x(i0) == s ? s : x(i0);" if name == "bool"
                   else f"y(i0) = ({name})(x(i0) + s);", shape="y")
        dt = getattr(xp, name)
        x_np = (np.arange(6) % 2 == 0) if name == "bool" else np.arange(6).astype(name)
        y = xp.zeros(6, dtype=dt, device=_sycl_dev())
        s = True if name == "bool" else (3 if name[0] in "iu" else 0.5)
        k(arr(x_np), y, s)
        want = x_np if name == "bool" else (x_np + np.asarray(s)).astype(name)
        np.testing.assert_array_equal(xp.asnumpy(y), want)


# ---- ordering and lifetime with the provider's kernels ------------------------------------------
@sycl
def test_kernels_order_with_provider_work():
    k = kernel("float32[:] x, float32[:] y", "y(i0) = 2 * x(i0) + 1;", shape="y")
    d = _sycl_dev()
    for _ in range(20):
        x = xp.arange(10_000, dtype=xp.float32, device=d) * 3.0   # provider kernels, async
        y = xp.empty(10_000, dtype=xp.float32, device=d)
        k(x, y)
        del x                                                     # kept alive by the launch
        total = xp.sum(y, dtype=xp.float64)                       # provider reads the result
        assert float(total) == float(np.sum(2.0 * (np.arange(10_000) * 3.0) + 1))


# ---- the cache ---------------------------------------------------------------------------------
@sycl
def test_second_call_and_identical_kernels_do_not_recompile():
    body = "y(i0) = x(i0) * 7;"
    k = kernel("int32[:] x, int32[:] y", body, shape="y")
    x = arr(np.arange(5, dtype=np.int32))
    y = xp.zeros(5, dtype=xp.int32, device=_sycl_dev())
    k(x, y)
    n = kmod.stats["compiled"]
    k(x, y)
    kernel("int32[:] x, int32[:] y", body, shape="y")(x, y)   # same source, same device
    k(arr(np.arange(9, dtype=np.int32)), xp.zeros(9, dtype=xp.int32, device=_sycl_dev()))
    assert kmod.stats["compiled"] == n
    k(x[::2], y[:3])                                           # strided: another variant
    assert kmod.stats["compiled"] == n + 1
    np.testing.assert_array_equal(xp.asnumpy(y)[:3], np.arange(0, 5, 2) * 7)


# ---- random views: the stride arithmetic against NumPy ------------------------------------------
@st.composite
def views(draw):
    nd = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(1, 5)) for _ in range(nd))
    keys = []
    for n in shape:
        start = draw(st.integers(0, n - 1))
        step = draw(st.sampled_from([1, 2, -1, -2]))
        keys.append(slice(start, None, step) if step > 0 else slice(start, None, step))
    return shape, tuple(keys)


@sycl
@given(views())
def test_copy_kernel_on_random_views(case):
    shape, key = case
    nd = len(shape)
    ivars = ", ".join(f"i{k}" for k in range(nd))
    dims = ",".join([":"] * nd)
    k = kernel(f"int32[{dims}] a, int32[{dims}] b", f"b({ivars}) = a({ivars}) * 2 + 1;",
               shape="a")
    base = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    a_np = base[key]
    a = arr(base)[key]
    b = xp.zeros(a_np.shape, dtype=xp.int32, device=_sycl_dev())
    bt = xp.permute_dims(b, tuple(reversed(range(nd))))      # a transposed output view
    bt_np = np.zeros(a_np.shape, np.int32).transpose(tuple(reversed(range(nd))))
    k2 = kernel(f"int32[{dims}] a, int32[{dims}] b", f"b({ivars}) = a({ivars}) * 2 + 1;",
                shape="a")
    k(a, b)
    np.testing.assert_array_equal(xp.asnumpy(b), a_np * 2 + 1)
    at = xp.permute_dims(a, tuple(reversed(range(nd))))
    k2(at, bt)
    bt_np[...] = a_np.transpose(tuple(reversed(range(nd)))) * 2 + 1
    np.testing.assert_array_equal(xp.asnumpy(bt), bt_np)


# ---- the elementwise helper ---------------------------------------------------------------------
@sycl
def test_elementwise_axpy_contiguous_strided_broadcast_and_out():
    axpy = elementwise("float32 a, float32[] x, float32[] y -> float32[] z", "z = a * x + y")
    d = _sycl_dev()
    x_np = np.arange(12, dtype=np.float32).reshape(3, 4)
    y_np = np.linspace(0, 1, 4, dtype=np.float32)
    x, y = arr(x_np), arr(y_np)
    z = axpy(2.0, x, y)                                        # broadcast: strided kernel
    assert z.shape == (3, 4) and z.dtype == xp.float32 and z.device == d
    np.testing.assert_allclose(xp.asnumpy(z), 2 * x_np + y_np)
    z2 = axpy(3, x, x)                                         # contiguous: the flat kernel
    np.testing.assert_allclose(xp.asnumpy(z2), 4 * x_np)
    z3 = axpy(1.0, x[::-1, ::2], x[:, 1::2])                   # views
    np.testing.assert_allclose(xp.asnumpy(z3), x_np[::-1, ::2] + x_np[:, 1::2])
    out = xp.zeros((3, 4), dtype=xp.float32, device=d)
    assert axpy(1.0, x, y, out=out) is out
    np.testing.assert_allclose(xp.asnumpy(out), x_np + y_np)
    s = axpy(2.0, arr(np.float32(3)), arr(np.float32(1)))      # 0-D
    assert s.shape == () and float(s) == 7.0


@sycl
def test_elementwise_two_outputs_ints_bools():
    divmod_ = elementwise("int64[] a, int64[] b -> int64[] q, int64[] r, bool[] neg",
                          "q = a / b; r = a % b; neg = a < 0")
    a_np = np.array([7, -7, 9, 100], np.int64)
    b_np = np.array([2, 3, 4, 7], np.int64)
    q, r, neg = divmod_(arr(a_np), arr(b_np))
    np.testing.assert_array_equal(xp.asnumpy(q), np.trunc(a_np / b_np).astype(np.int64))
    np.testing.assert_array_equal(xp.asnumpy(r), np.fmod(a_np, b_np))
    np.testing.assert_array_equal(xp.asnumpy(neg), a_np < 0)
    assert neg.dtype == xp.bool


@sycl
def test_elementwise_errors():
    f = elementwise("float32[] x, float32 w -> float32[] y", "y = w * x")
    d = _sycl_dev()
    x = xp.ones(4, dtype=xp.float32, device=d)
    with pytest.raises(TypeError, match="x must have dtype float32, got float64"):
        f(xp.ones(4, dtype=xp.float64, device=d), 1.0)
    with pytest.raises(TypeError, match="takes 2 inputs"):
        f(x)
    with pytest.raises(TypeError, match="argument w"):
        f(x, 1j)
    with pytest.raises(ValueError, match=r"out y has shape \(5,\)"):
        f(x, 1.0, out=xp.zeros(5, dtype=xp.float32, device=d))
    with pytest.raises(ValueError, match="do not broadcast"):
        elementwise("float32[] a, float32[] b -> float32[] c", "c = a + b")(
            x, xp.ones(3, dtype=xp.float32, device=d))
    with pytest.raises(ValueError, match="'->'"):
        elementwise("float32[] x", "x = 1")
    with pytest.raises(ValueError, match="must be arrays"):
        elementwise("float32[] x -> float32 y", "y = x")
    with pytest.raises(ValueError, match="any rank"):
        elementwise("float32[:] x -> float32[] y", "y = x")
    with pytest.raises(KernelSyntaxError, match="reserved"):
        elementwise("float32[] x -> float32[] y", "y = _uk_x")
