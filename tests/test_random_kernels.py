"""usmarray.random's device kernels: the CUDA sources compile (without a GPU, where the
CUDA toolkit is installed), and draws that cross the CUDA kernel's tiles of 256 blocks,
start inside a block or end inside one are the NumPy backend's, bit for bit, on every
device."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from cuda_compile import assert_sources_compile
from test_reliability_common import device_params

import usmarray as xp
import usmarray.random as ur
from usmarray.random import _kernels

#: one kernel of each kind, and each size of a block's elements (4 to 32 bytes)
_SOURCES = [("f", "float32"), ("f", "float64"), ("uniform", "float32"),
            ("normal", "float32"), ("normal", "float64"), ("exp", "float32"),
            ("exp", "float64"),
            ("int", "int8"), ("int", "int16"), ("int", "int32"), ("int2", "int64"),
            ("u8", "uint8"), ("u64", "uint64")]


def test_the_cuda_sources_compile(tmp_path) -> None:
    sources = [_kernels.cuda_source(kind, d, low) for kind, d in _SOURCES
               for low in (False, True)]
    for (kind, d), (e, _src) in zip([s for s in _SOURCES for _ in (0, 1)], sources, strict=True):
        assert e == _kernels.elements_per_block(kind, np.dtype(d))
    assert_sources_compile([src for _e, src in sources], tmp_path)


#: (name, call): each reads a different number of bytes per element
_CALLS = {
    "random32": lambda g, n: g.random(n, dtype=xp.float32),
    "random64": lambda g, n: g.random(n),
    "int8": lambda g, n: g.integers(-5, 100, n, dtype=xp.int8),
    "int16": lambda g, n: g.integers(0, 1000, n, dtype=xp.int16),
    "int2": lambda g, n: g.integers(0, 3 * 2**40, n),
    "bytes": lambda g, n: g.bytes(n),
    "normal32": lambda g, n: g.standard_normal(n, dtype=xp.float32),
    "uniform64": lambda g, n: g.uniform(-2.0, 3.0, n),
}
#: a tile is 256 blocks: 2048 float32, 1024 int8 elements (4 a block), ...
_SPLITS = [(3, 2048 * 3 + 5), (0, 2048), (1, 1), (5, 1024 * 5 - 9)]


@pytest.mark.parametrize("device", device_params("numpy", "opencl:cpu", "cuda:0"))
@pytest.mark.parametrize("name", sorted(_CALLS))
def test_draws_across_tiles_and_inside_blocks_are_the_numpy_backends(device, name):
    call = _CALLS[name]
    for head, n in _SPLITS:
        want_g = ur.default_rng(21, device="numpy")
        got_g = ur.default_rng(21, device=device)
        call(want_g, head)
        a = call(got_g, head)
        assert a.shape == (head,)
        want = xp.asnumpy(call(want_g, n))
        got = call(got_g, n)
        assert got.device == xp.Device.create_device(device)
        assert got.shape == (n,)
        assert np.array_equal(xp.asnumpy(got), want), (name, head, n)
        # the stream goes on where the call ended
        assert np.array_equal(xp.asnumpy(call(got_g, 7)), xp.asnumpy(call(want_g, 7)))


@pytest.mark.parametrize("device", device_params("numpy", "opencl:cpu", "cuda:0"))
def test_a_draw_of_any_shape_is_c_contiguous_in_stream_order(device):
    g, h = ur.default_rng(5, device=device), ur.default_rng(5, device="numpy")
    g.random(3, dtype=xp.float32)
    h.random(3, dtype=xp.float32)
    got = g.random((3, 5, 7), dtype=xp.float32)
    want = xp.asnumpy(h.random(105, dtype=xp.float32)).reshape(3, 5, 7)
    assert got.shape == (3, 5, 7)
    assert np.array_equal(xp.asnumpy(got), want)


# ---- the CUDA kernels, run on the host ---------------------------------------------------------
#: CUDA's names for a C++ compiler: a thread per CUDA thread (std::thread), a barrier for
#: __syncthreads, static storage for __shared__ (one CUDA block runs at a time), and the
#: intrinsics as the IEEE operations they are
_HARNESS = r"""
#include <barrier>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
using std::log; using std::sqrt;
struct usm_dim { long long x, y, z; };
thread_local usm_dim threadIdx, blockIdx;
usm_dim gridDim, blockDim;
std::barrier<> *usm_bar;
#define __global__
#define __launch_bounds__(x)
#define __shared__ static
#define __restrict__
#define __align__(n) alignas(n)
#define __syncthreads() usm_bar->arrive_and_wait()
struct uint4 { unsigned x, y, z, w; };
static unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64); }
static double __dmul_rn(double a, double b) { return a * b; }
static double __dadd_rn(double a, double b) { return a + b; }
static double __dsub_rn(double a, double b) { return a - b; }
static double __ddiv_rn(double a, double b) { return a / b; }
static float __fmul_rn(float a, float b) { return a * b; }
static float __fadd_rn(float a, float b) { return a + b; }
static float __fsub_rn(float a, float b) { return a - b; }
static float __fsqrt_rn(float a) { return std::sqrt(a); }
static float __ull2float_rn(unsigned long long u) { return (float)u; }
static unsigned __float_as_uint(float x) { unsigned u; memcpy(&u, &x, 4); return u; }
static float __uint_as_float(unsigned u) { float x; memcpy(&x, &u, 4); return x; }
static long long __double_as_longlong(double x) { long long u; memcpy(&u, &x, 8); return u; }
static double __longlong_as_double(long long u) { double x; memcpy(&x, &u, 8); return x; }
"""
#: (kind, dtype, call, the kernel's parameters): each size of a block's elements
_EMULATED = [
    ("f", "float32", lambda g, n: g.random(n, dtype=xp.float32), ()),
    ("f", "float64", lambda g, n: g.random(n), ()),
    ("int", "int8", lambda g, n: g.integers(-5, 100, n, dtype=xp.int8), (2**64 - 5, 105)),
    ("int2", "int64", lambda g, n: g.integers(0, 3 * 2**40, n), (0, 3 * 2**40)),
    ("u8", "uint8", lambda g, n: g.bytes(n), ()),
    ("normal", "float64", lambda g, n: g.normal(0.5, 2.0, n), (0.5, 2.0)),
    ("normal", "float32", lambda g, n: g.normal(0.5, 2.0, n, dtype=xp.float32), (0.5, 2.0)),
    ("exp", "float32", lambda g, n: g.exponential(3.0, n, dtype=xp.float32), (3.0,)),
    ("uniform", "float32", lambda g, n: g.uniform(-2.0, 3.0, n, dtype=xp.float32), (-2.0, 5.0)),
]


def _host_program(low: bool) -> str:
    """One C++ program holding every emulated kernel (each in a namespace; ``low``: the
    variants for one-word counters); its ``main`` runs kernel ``argv[1]`` over grid
    ``argv[10]`` with the arguments that follow and writes the ``n`` elements to stdout."""
    parts, cases = [_HARNESS], []
    for i, (kind, d, _call, params) in enumerate(_EMULATED):
        body = _kernels.cuda_source(kind, d, low)[1].replace('extern "C" ', "")
        parts.append(f"namespace k{i} {{\n{body}\n}}")
        conv = "".join(f", strtoull(argv[{11 + j}], 0, 10)" if isinstance(p, int)
                       else f", strtod(argv[{11 + j}], 0)" for j, p in enumerate(params))
        cases.append(f"""  if (which == {i}) {{
    std::vector<k{i}::{d}> out(n);
    run([&] {{ k{i}::uk_kernel(out.data(), a[0], a[1], a[2], a[3], a[4], a[5], first, n{conv}); }});
    fwrite(out.data(), sizeof(k{i}::{d}), n, stdout);
  }}""")
    main = """
template <class F> static void run(F f) {
  for (long long bx = 0; bx < gridDim.x; bx++) {
    std::vector<std::thread> ts;
    for (int t = 0; t < 256; t++)
      ts.emplace_back([&, t, bx] { threadIdx = {t, 0, 0}; blockIdx = {bx, 0, 0}; f(); });
    for (auto &th : ts) th.join();
  }
}
int main(int argc, char **argv) {
  int which = atoi(argv[1]);
  unsigned long long a[6];
  for (int i = 0; i < 6; i++) a[i] = strtoull(argv[2 + i], 0, 10);
  long long first = atoll(argv[8]), n = atoll(argv[9]);
  gridDim = {atoll(argv[10]), 1, 1}; blockDim = {256, 1, 1};
  std::barrier<> bar(256); usm_bar = &bar;
""" + "\n".join(cases) + "\n}\n"
    return "\n".join(parts) + main


@pytest.mark.parametrize("low", [False, True], ids=["any-counter", "one-word-counter"])
def test_the_cuda_kernels_run_on_the_host_give_the_numpy_backends_draws(tmp_path, low) -> None:
    """The CUDA kernels' sources, compiled by the host's C++ compiler with a thread per
    CUDA thread: tiles, the grid's loop over them (grids smaller than the tiles), calls
    that start or end inside a block, and the 16-byte stores of whole tiles give the
    NumPy backend's draws."""
    cxx = shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no C++ compiler here")
    src = tmp_path / "kernels.cpp"
    src.write_text(_host_program(low))
    exe = tmp_path / "kernels"
    done = subprocess.run([cxx, "-std=c++20", "-O1", "-ffp-contract=off", "-w", "-o", str(exe),
                           str(src), "-lpthread"], capture_output=True, text=True)
    if done.returncode != 0 and "barrier" in done.stderr:
        pytest.skip("the C++ compiler has no std::barrier (C++20)")
    assert done.returncode == 0, done.stderr
    for i, (kind, d, call, params) in enumerate(_EMULATED):
        e = _kernels.elements_per_block(kind, np.dtype(d))
        for head, n, grid in [(3, 2048 * 3 + 5, 2), (0, 2048, 1), (1, 1, 1), (5, 1024 * 5 - 9, 1)]:
            g = ur.default_rng(21, device="numpy")
            call(g, head)
            a0 = g._reserve(_kernels.unit_bytes(kind, np.dtype(d).itemsize), 0)
            want = xp.asnumpy(call(g, n))
            b0, first = divmod(a0, e)
            args = [i, *g.key, *_kernels.counter_words(b0), first, n, grid, *params]
            out = subprocess.run([str(exe), *(repr(a) for a in args)], capture_output=True,
                                 check=True).stdout
            assert np.array_equal(np.frombuffer(out, dtype=d), want), (kind, d, head, n)


@pytest.mark.parametrize("device", device_params("opencl:cpu", "cuda:0"))
def test_counters_past_one_word_are_the_numpy_backends(device):
    """Calls that cross block 2**64 - 1 (their counters need a second word, with a carry)
    or start past block 2**128 (the third word) run the kernels for any counter."""
    for block in (2**64 - 40, 2**128 + 5):
        for name in ("random32", "normal32", "int2"):
            want, got = (_CALLS[name](ur.Generator._make(None, (3, 4), block * 32,
                                                         xp.Device.create_device(dev)), 3001)
                         for dev in ("numpy", device))
            assert np.array_equal(xp.asnumpy(got), xp.asnumpy(want)), (block, name)
