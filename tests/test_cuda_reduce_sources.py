"""The CUDA reductions' generated code, checked without a GPU
(``usmarray/_backend/_cuda/kernels/reduce_source.py``).

* argmax/argmin: the operation's ``ident``, ``load``, ``merge`` and ``fin`` as
  generated, run as host C++ over arrays of special values, merged in the orders a
  kernel may merge them (one after another, as a tree of pairs, as random trees of
  shuffled partial results with identities among them), must give NumPy's index: the
  first NaN, else the first extremum, -0.0 equal to 0.0, subnormals distinct from zero.
* A sample of whole kernel sources (row and column passes, vector loads, split and
  fused passes, a fused elementwise prologue) compiles with the backend's NVRTC options
  where a CUDA compiler is installed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from cuda_compile import assert_sources_compile, run_host

from usmarray._backend._cuda.kernels import reduce_source as R

_HOST = """
#include <cstdio>
#include <cstdint>
#include <cstring>
#define __device__
#define __forceinline__ inline
static float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
static double __longlong_as_double(long long i) { double f; std::memcpy(&f, &i, 8); return f; }
"""
#: the merge orders: sequential, pairs, and this many random trees
_TREES = 6
_DRIVER = """
static unsigned long long rng = 88172645463325252ull;
static unsigned long long next_rand() { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }
static T x[1 << 13];
static A parts[1 << 14];
int main() {
  long long n;
  while (fread(&n, sizeof n, 1, stdin) == 1) {
    fread(x, sizeof(T), n, stdin);
    A a = ident();
    for (long long j = 0; j < n; ++j) a = merge(a, load(x[j], j));
    long long r = (long long)fin(a, n, 0.0);
    fwrite(&r, sizeof r, 1, stdout);
    long long m = n;
    for (long long j = 0; j < n; ++j) parts[j] = load(x[j], j);
    while (m > 1) {
      long long k = 0;
      for (long long j = 0; j + 1 < m; j += 2) parts[k++] = merge(parts[j], parts[j + 1]);
      if (m % 2) parts[k++] = parts[m - 1];
      m = k;
    }
    r = (long long)fin(parts[0], n, 0.0);
    fwrite(&r, sizeof r, 1, stdout);
    for (int t = 0; t < TREES; ++t) {
      m = 0;
      for (long long j = 0; j < n; ++j) {
        parts[m++] = load(x[j], j);
        if (next_rand() % 4 == 0) parts[m++] = ident();
      }
      for (long long j = m - 1; j > 0; --j) {
        long long i = next_rand() % (j + 1);
        A s = parts[i]; parts[i] = parts[j]; parts[j] = s;
      }
      while (m > 1) {
        long long i = next_rand() % m, j = next_rand() % (m - 1);
        if (j >= i) ++j;
        parts[i] = (next_rand() % 2) ? merge(parts[i], parts[j]) : merge(parts[j], parts[i]);
        parts[j] = parts[--m];  // the merged one moves to j where it was last
      }
      r = (long long)fin(parts[0], n, 0.0);
      fwrite(&r, sizeof r, 1, stdout);
    }
  }
  return 0;
}
"""


def _cases(d: np.dtype, rng: np.random.Generator) -> list[np.ndarray]:
    """Arrays whose argmax and argmin test every rule the merge has."""
    if d.kind in "iu":
        info = np.iinfo(d)
        out = [rng.integers(0, 3, 200).astype(d),  # ties everywhere
               np.array([info.max, info.min, info.max, 0, info.min], dtype=d),
               np.full(37, info.min, dtype=d), np.array([5], dtype=d),
               rng.integers(info.min, info.max, 1000, dtype=d, endpoint=True)]
        return out
    tiny = np.finfo(d).smallest_subnormal
    nan = np.array(np.nan, dtype=d)
    neg_nan = (-nan).astype(d)
    out = [np.array([0.0, tiny], dtype=d), np.array([0.0, -tiny], dtype=d),
           np.array([tiny, 2 * tiny, tiny], dtype=d), np.array([-0.0, 0.0, -0.0], dtype=d),
           np.array([0.0, -0.0], dtype=d), np.array([-np.inf, np.inf, 1.0], dtype=d),
           np.array([np.inf, np.inf, -np.inf, -np.inf], dtype=d),
           np.full(9, np.nan, dtype=d), np.array([1.0], dtype=d),
           rng.integers(-2, 3, 500).astype(d)]
    for k in range(4):
        a = rng.standard_normal(300 + 97 * k).astype(d)
        where = rng.choice(a.size, size=k + 1, replace=False)
        a[where] = np.where(rng.random(where.size) < 0.5, nan, neg_nan)
        out.append(a)
    b = rng.standard_normal(4000).astype(d)
    b[2000:] = b.max()
    b[:10] = b.min()
    out.append(b)
    return out


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "int16", "uint32", "int64",
                                   "uint64"])
def test_arg_merge_gives_numpys_index_in_every_merge_order(name: str, dtype: str,
                                                           tmp_path: Path) -> None:
    d = np.dtype(dtype)
    o = np.dtype(np.int64)
    src = (_HOST + R.op_source(R.OPS[name], d, R.accum_dtype(name, d, o), o)
           + f"#define TREES {_TREES}\n" + _DRIVER)
    cases = _cases(d, np.random.default_rng(7))
    blob = b"".join(np.int64(a.size).tobytes() + a.tobytes() for a in cases)
    got = np.frombuffer(run_host(src, blob, tmp_path), dtype=np.int64)
    got = got.reshape(len(cases), 2 + _TREES)
    for a, g in zip(cases, got, strict=True):
        want = getattr(np, name)(a)
        assert (g == want).all(), (name, a[:12], want, g)


def _sources() -> list[str]:
    f32, f64, i8, u64, i64 = (np.dtype(c) for c in ("float32", "float64", "int8", "uint64",
                                                    "int64"))
    elem = R.Elem("z = a0 * s0 + (float32)a1", ((0, f32, True), (1, i8, False)), (f32,))
    keys = [
        # (name, t, o, in_acc, final, kind, width, vec, fused, elem); a fused pass
        # writes partial accumulators and finishes them itself (final False)
        ("argmax", f32, i64, False, True, "row", 32, 4, False, None),
        ("argmax", f32, i64, False, False, "row", 256, 4, False, None),
        ("argmax", f32, i64, True, True, "row", 8, 1, False, None),
        ("argmin", f64, i64, False, False, "row", 256, 2, True, None),
        ("argmin", f64, i64, False, True, "col", 32, 1, False, None),
        ("argmax", i8, i64, False, True, "col", 4, 1, False, None),
        ("argmin", u64, i64, False, True, "row", 2, 1, False, None),
        ("sum", f32, f32, False, False, "row", 256, 4, True, elem),
        ("var", f64, f64, False, True, "col", 16, 1, False, None),
        ("hypot32", f32, f32, False, True, "row", 32, 4, False, None),
        ("max", f32, f32, False, True, "row", 32, 1, False, None),
        ("count_nonzero", i8, i64, False, False, "row", 256, 16, True, None),
    ]
    return [R.kernel_source(n, t, R.accum_dtype(n, t, o), o, *rest)
            for n, t, o, *rest in keys]


def test_sources_compile(tmp_path: Path) -> None:
    assert_sources_compile(_sources(), tmp_path)
