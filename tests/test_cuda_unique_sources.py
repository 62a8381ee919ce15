"""The CUDA sorted unique family's kernels (``usmarray/_backend/_cuda/kernels/
unique_source.py``), checked without a GPU: every kernel of every real and bool dtype
compiles with the backend's NVRTC options where a CUDA compiler is installed, and the
kernels run as host C++ (each launch as its 256 threads of one block, CuPy's radix
sort as ``std::sort`` of the packed words, the compaction as a loop) give NumPy's
``np.unique`` bit for bit: subnormals of both signs apart from ±0, -0.0 and 0.0 one
value (+0.0), every NaN its own value (the canonical NaN), last, in order; with
positions (the packed sort) and without (the keys sorted alone)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from cuda_compile import assert_sources_compile, run_host

from usmarray._backend._cuda.kernels import unique_source as U
from usmarray._backend._cuda.kernels.c_types import CTYPES
from usmarray._backend._cuda.kernels.keys import KEYS

_REAL = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
         "float32", "float64"]

_HOST = """
#include <cstdio>
#include <cstring>
#include <vector>
#include <algorithm>
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(n)
struct Dim { long long x; };
static Dim blockIdx = {0}, threadIdx = {0}, gridDim = {1};
static unsigned int __float_as_uint(float f) { unsigned int i; std::memcpy(&i, &f, 4); return i; }
static long long __double_as_longlong(double f) { long long i; std::memcpy(&i, &f, 8); return i; }
static float __uint_as_float(unsigned int i) { float f; std::memcpy(&f, &i, 4); return f; }
static double __longlong_as_double(long long i) { double f; std::memcpy(&f, &i, 8); return f; }
#define RUN(call) for (threadIdx.x = 0; threadIdx.x < 256; threadIdx.x++) call
"""

_DRIVER = """
typedef %(t)s E;
typedef %(k)s K;
int main() {
  long long n;
  if (fread(&n, sizeof n, 1, stdin) != 1) return 1;
  E* x = new E[n];  // (std::vector<bool> has no data())
  if (fread(x, sizeof(E), n, stdin) != (size_t)n) return 1;
  const long long shifts[] = {%(shifts)s};
  std::vector<std::vector<unsigned long long>> passes;
  for (long long shift : shifts) {
    passes.emplace_back(n);
    const unsigned long long* prev = passes.size() > 1 ? passes[passes.size() - 2].data() : nullptr;
    RUN(pack::k(x, prev, passes.back().data(), n, shift));
    std::sort(passes.back().begin(), passes.back().end());
  }
  const unsigned long long* prev = passes.size() > 1 ? passes[0].data() : nullptr;
  std::vector<long long> perm(n);
  bool* f = new bool[n];
  RUN(flags::k(x, passes.back().data(), prev, perm.data(), f, n));
  std::vector<long long> starts;
  for (long long m = 0; m < n; m++) if (f[m]) starts.push_back(m);
  const long long c = (long long)starts.size();
  E* values = new E[c];
  std::vector<long long> first(c), counts(c), inv(n);
  RUN(finish::k(x, perm.data(), starts.data(), values, first.data(),
                counts.data(), c, n));
  RUN(inverse::k(perm.data(), starts.data(), inv.data(), c, n));
  fwrite(&c, sizeof c, 1, stdout);
  fwrite(values, sizeof(E), c, stdout);
  fwrite(first.data(), 8, c, stdout);
  fwrite(counts.data(), 8, c, stdout);
  fwrite(inv.data(), 8, n, stdout);
  // the path without positions: the keys sorted as they are
  std::vector<K> keys(n);
  RUN(keys::k(x, keys.data(), n));
  std::sort(keys.begin(), keys.end());
  RUN(key_flags::k(keys.data(), f, n));
  starts.clear();
  for (long long m = 0; m < n; m++) if (f[m]) starts.push_back(m);
  const long long c2 = (long long)starts.size();
  E* values2 = new E[c2];
  std::vector<long long> counts2(c2);
  RUN(key_finish::k(keys.data(), starts.data(), values2, counts2.data(), c2, n));
  fwrite(&c2, sizeof c2, 1, stdout);
  fwrite(values2, sizeof(E), c2, stdout);
  fwrite(counts2.data(), 8, c2, stdout);
  delete[] f; delete[] x; delete[] values; delete[] values2;
  return 0;
}
"""


def _host_source(d: np.dtype) -> str:
    """The kernels of ``d``, each in a namespace of its name, and the driver."""
    parts = [_HOST]
    for kind in U.KINDS:
        parts.append(f"namespace {kind} {{\n"
                     + U.source(kind, d).replace('extern "C" ', "") + "\n}\n")
    parts.append(_DRIVER % {"t": CTYPES[d], "k": KEYS[d.itemsize],
                            "shifts": ", ".join(str(s) for s in U.shifts(d))})
    return "".join(parts)


def special_values(d: np.dtype, n: int, seed: int) -> np.ndarray:
    """``n`` values of ``d`` drawn with repeats from its special values: for floats
    subnormals of both signs, ±0, NaNs of both signs and with a payload, ±inf, the
    smallest normal and a few plain numbers; for integers their extremes and small
    numbers."""
    rng = np.random.default_rng(seed)
    if d.kind == "f":
        tiny = np.finfo(d).smallest_subnormal
        bits = np.dtype(f"u{d.itemsize}")
        payload = np.array(0x7FC00001 if d.itemsize == 4 else 0x7FF8000000000001,
                           dtype=bits).view(d)
        pool = np.array([0.0, -0.0, tiny, -tiny, 2 * tiny, -3 * tiny, np.finfo(d).tiny,
                         np.inf, -np.inf, np.nan, -np.nan, payload, 1.0, -1.0, 0.5],
                        dtype=d)
    elif d.kind == "b":
        pool = np.array([False, True])
    else:
        info = np.iinfo(d)
        pool = np.array(sorted({int(info.min), int(info.max), 0, 1, 2, int(info.max) - 1}),
                        dtype=d)
    return rng.choice(pool, size=n)


def numpy_unique(h: np.ndarray) -> tuple[np.ndarray, ...]:
    """NumPy's (values, first indices, inverse of ``h``'s shape, counts) of ``h`` in C
    order: a stable sort (``return_index``), every NaN its own value."""
    v, i, inv, c = np.unique(h.reshape(-1), return_index=True, return_inverse=True,
                             return_counts=True, equal_nan=False)
    return v, i, inv.reshape(h.shape), c


def canonical(v: np.ndarray) -> np.ndarray:
    """``v`` with every zero +0.0 and every NaN the canonical one, as the kernels make
    each value from its key."""
    if v.dtype.kind != "f":
        return v
    v = v.copy()
    v[v == 0] = 0
    v[np.isnan(v)] = np.nan
    return v


def bits(a: np.ndarray) -> np.ndarray:
    """The bits of ``a``'s elements (bool and integers as they are)."""
    return a.view(f"u{a.dtype.itemsize}") if a.dtype.kind == "f" else a


@pytest.mark.parametrize("dtype", ["float32", "float64", "int16", "uint64", "bool"])
def test_kernels_on_the_host_give_numpys_unique(dtype: str, tmp_path: Path) -> None:
    d = np.dtype(dtype)
    cases = [special_values(d, n, seed) for seed, n in enumerate((1, 2, 17, 300, 5000))]
    src = _host_source(d)
    for h in cases:
        out = run_host(src, np.int64(h.size).tobytes() + h.tobytes(), tmp_path)
        c = int(np.frombuffer(out[:8], np.int64)[0])
        rest = out[8:]
        values = np.frombuffer(rest[:c * d.itemsize], d)
        ints = np.frombuffer(rest[c * d.itemsize:c * d.itemsize + 8 * (2 * c + h.size)],
                             np.int64)
        first, counts, inv = ints[:c], ints[c:2 * c], ints[2 * c:]
        v, i, want_inv, want_counts = numpy_unique(h)
        np.testing.assert_array_equal(bits(values), bits(canonical(v)))
        np.testing.assert_array_equal(first, i)
        np.testing.assert_array_equal(counts, want_counts)
        np.testing.assert_array_equal(inv, want_inv)
        rest = rest[c * d.itemsize + 8 * (2 * c + h.size):]
        c2 = int(np.frombuffer(rest[:8], np.int64)[0])
        values2 = np.frombuffer(rest[8:8 + c2 * d.itemsize], d)
        counts2 = np.frombuffer(rest[8 + c2 * d.itemsize:], np.int64)
        np.testing.assert_array_equal(bits(values2), bits(canonical(v)))
        np.testing.assert_array_equal(counts2, want_counts)


def test_sources_compile(tmp_path: Path) -> None:
    assert_sources_compile([U.source(k, np.dtype(d)) for d in _REAL for k in U.KINDS],
                           tmp_path)
