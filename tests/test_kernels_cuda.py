"""The kernel factory on an NVIDIA GPU (the CUDA backend, NVRTC through CuPy): the seed's
examples against NumPy, the checks, the compile log, the elementwise helper, stream
placement and CuPy's on-disk cache (a second process compiles nothing).

Skips (with the reason) without CuPy or a GPU; on a GPU machine:
``python -m pytest -m gpu tests/test_kernels_cuda.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

cupy = pytest.importorskip("cupy", reason="the CUDA backend needs CuPy")

import usmarray as xp  # noqa: E402
from usmarray import _backend  # noqa: E402
from usmarray.kernels import KernelSyntaxError, elementwise, kernel  # noqa: E402
from usmarray.kernels import _kernel as kmod  # noqa: E402

be = _backend.get_backend("cuda")
pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(be is None, reason="CuPy is installed but no CUDA GPU is usable"),
]


def arr(a, device="cuda:0"):
    return xp.asarray(np.asarray(a), device=device)


BLUR = ("dst(i0, i1) = w * src(i0, i1) + (1 - w) * 0.25f * (src(i0 - 1, i1) + src(i0 + 1, i1)"
        " + src(i0, i1 - 1) + src(i0, i1 + 1));")


def _blur_ref(a, w):
    p = np.pad(a, 1, mode="edge")
    return w * a + (1 - w) * 0.25 * (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:])


def test_views_with_negative_strides_and_offsets():
    base = np.arange(7 * 9, dtype=np.float64).reshape(7, 9)
    k = kernel("float64[:,:] a, float64[:,:] b", "b(i0, i1) = 2 * a(i0, i1) + 10 * i0 + i1;",
               shape="a")
    A = arr(base)[5:0:-2, 8:1:-3]
    out = np.zeros((4, 6))
    B_full = arr(out)
    B = B_full[::-1, 1::2][:3]
    k(A, B)
    want = out.copy()
    want[::-1, 1::2][:3] = 2 * base[5:0:-2, 8:1:-3] + 10 * np.arange(3)[:, None] + np.arange(3)
    np.testing.assert_array_equal(xp.asnumpy(B_full), want)


def test_outer_product_and_stencil():
    x_np = np.linspace(-1, 1, 130, dtype=np.float32)
    y_np = np.arange(70, dtype=np.float32)
    outer = kernel("float32[:] x, float32[:] y, float32[:,:] out",
                   "out(i0, i1) = x(i0) * y(i1);", shape="out")
    out = xp.zeros((130, 70), dtype=xp.float32, device="cuda:0")
    outer(arr(x_np), arr(y_np), out)
    np.testing.assert_allclose(xp.asnumpy(out), np.outer(x_np, y_np), rtol=1e-6)
    a_np = np.random.default_rng(0).random((33, 65)).astype(np.float32)
    for axes in (None, (False, True), (True, False)):
        blur = kernel("float32[:,:] src, float32[:,:] dst, float32 w", BLUR, shape="dst",
                      axes=axes)
        b = xp.zeros((33, 65), dtype=xp.float32, device="cuda:0")
        blur(arr(a_np), b, 0.25, bounds="clamp")
        np.testing.assert_allclose(xp.asnumpy(b), _blur_ref(a_np, 0.25), rtol=1e-5)
        c = xp.full((33, 65), -1.0, dtype=xp.float32, device="cuda:0")
        blur(arr(a_np), c, 0.25, bounds="skip")
        want = np.full((33, 65), -1.0, np.float32)
        want[1:-1, 1:-1] = _blur_ref(a_np, 0.25)[1:-1, 1:-1]
        np.testing.assert_allclose(xp.asnumpy(c), want, rtol=1e-5)
    with pytest.raises(IndexError, match=r"src\(i0 - 1, i1\): index -1 is out of bounds"):
        blur(arr(a_np), c, 0.25, bounds="check")


def test_fixed_and_run_time_sizes_and_4d_override():
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
    res = xp.zeros((4, 5), dtype=xp.float64, device="cuda:0")
    src = k.source(res, arr(foo), arr(bar), 0.5, bounds="unchecked")
    # dtype names are C types; a loop counter is read as a value of its type
    assert 'extern "C" __global__ void uk_kernel(' in src and "((unsigned int)_uk_lc0)" in src
    np.testing.assert_allclose(xp.asnumpy(res), foo.astype(float).sum(0) * bar.sum(0) * 0.5)
    shape = (3, 70000, 2, 300)   # axis 1 is longer than a grid's y dimension
    for axes in (None, (True, True, False, True), (False, False, False, True)):
        k4 = kernel("int64[:,:,:,:] out", "out(i0, i1, i2, i3) = ((i0 * 70000 + i1) * 2 + i2) "
                    "* 300 + i3;", shape="out", axes=axes)
        o = xp.empty(shape, dtype=xp.int64, device="cuda:0")
        k4(o)
        assert bool(xp.all(o == xp.reshape(xp.arange(o.size, dtype=xp.int64, device="cuda:0"),
                                           shape)))


def test_checks_and_compile_log():
    k = kernel("float32[:] x, float32[:] y", "y(i0) = x(i0);", shape="y")
    x = xp.ones(4, dtype=xp.float32, device="cuda:0")
    with pytest.raises(TypeError, match="dtype float32"):
        k(xp.ones(4, dtype=xp.float64, device="cuda:0"), x)
    q2 = be.native_queue(cupy.cuda.Stream(non_blocking=True))
    other = xp.Device._make(be, q2)
    with pytest.raises(xp.ExecutionPlacementError):
        k(x, xp.zeros(4, dtype=xp.float32, device=other))
    y2 = xp.zeros(4, dtype=xp.float32, device=other)
    k(xp.ones(4, dtype=xp.float32, device=other), y2)          # runs on that stream
    np.testing.assert_array_equal(xp.asnumpy(y2), np.ones(4, np.float32))
    bad = kernel("float32[:] y", "y(i0) = no_such_name + 1;", shape="y")
    with pytest.raises(KernelSyntaxError) as info:
        bad(x)
    assert "no_such_name" in info.value.log and "__global__" in info.value.source


_LATE = r'''extern "C" __global__ void late(long long cycles, float* x, long long n, float v) {
    long long t0 = clock64(); while (clock64() - t0 < cycles) {}
    for (long long i = 0; i < n; ++i) x[i] = v; }'''


def test_kernels_run_on_an_external_streams_queue():
    """A queue made from a cupy.cuda.ExternalStream launches the factory's kernels on
    that stream, after a slow writer queued there (the current stream, a legacy null
    stream, would not wait for it: the kernel would read the zeros)."""
    s = cupy.cuda.Stream(non_blocking=True)
    dev = xp.Device._make(be, be.native_queue(cupy.cuda.ExternalStream(s.ptr)))
    n = 64
    u = xp.zeros(n, dtype=xp.float32, device=dev)
    y = xp.zeros(n, dtype=xp.float32, device=dev)
    s.synchronize()
    cupy.RawKernel(_LATE, "late")((1,), (1,), (np.int64(100_000_000), u._arr, np.int64(n),
                                                np.float32(7.0)), stream=s)
    kernel("float32[:] x, float32[:] y", "y(i0) = x(i0) + 1;", shape="y")(u, y)
    s.synchronize()
    np.testing.assert_array_equal(xp.asnumpy(y), np.full(n, 8, np.float32))


def test_elementwise_contiguous_strided_and_large():
    axpy = elementwise("float32 a, float32[] x, float32[] y -> float32[] z", "z = a * x + y")
    n = 1 << 22
    x_np = np.arange(n, dtype=np.float32) % 1000
    x, y = arr(x_np), xp.ones(n, dtype=xp.float32, device="cuda:0")
    np.testing.assert_allclose(xp.asnumpy(axpy(2.0, x, y)), 2 * x_np + 1)
    X = xp.reshape(x[: 1024 * 64], (1024, 64))
    np.testing.assert_allclose(xp.asnumpy(axpy(1.0, X[::-3, ::2], y[:32])),
                               x_np[: 1024 * 64].reshape(1024, 64)[::-3, ::2] + 1)


def test_second_process_loads_from_the_disk_cache(tmp_path):
    script = textwrap.dedent("""
        import sys, cupy, numpy as np, usmarray as xp
        from usmarray.kernels import kernel
        if sys.argv[1] == "warm":
            from usmarray._backend._cuda.kernels import _launch
            def refuse(*a, **k):
                raise AssertionError("NVRTC ran in the warm process")
            _launch._cubin = refuse                       # a cache miss compiles here
        k = kernel("float32[:] x, float32[:] y", "y(i0) = x(i0) * 3 + 1;", shape="y")
        x = xp.asarray(np.arange(5, dtype=np.float32), device="cuda:0")
        y = xp.empty(5, dtype=xp.float32, device="cuda:0")
        k(x, y)
        assert xp.asnumpy(y).tolist() == [1, 4, 7, 10, 13]
        print("ok")
    """)
    env = dict(os.environ, USMARRAY_CUDA_CACHE_DIR=str(tmp_path))
    for mode in ("cold", "warm"):
        r = subprocess.run([sys.executable, "-c", script, mode], env=env, capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0 and "ok" in r.stdout, r.stderr[-2000:]
    assert any(tmp_path.iterdir())


def test_second_call_does_not_recompile():
    k = kernel("int32[:] x, int32[:] y", "y(i0) = x(i0) * 7;", shape="y")
    x = arr(np.arange(5, dtype=np.int32))
    y = xp.zeros(5, dtype=xp.int32, device="cuda:0")
    k(x, y)
    n = kmod.stats["compiled"]
    k(x, y)
    k(arr(np.arange(9, dtype=np.int32)), xp.zeros(9, dtype=xp.int32, device="cuda:0"))
    assert kmod.stats["compiled"] == n
