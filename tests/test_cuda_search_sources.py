"""``searchsorted``'s CUDA kernel (``usmarray/_backend/_cuda/kernels/search_source.py``),
checked without a GPU: it compiles for every real and bool dtype with the backend's
NVRTC options where a CUDA compiler is installed, and run as host C++ (one thread
walking the whole grid-stride loop) it gives NumPy's ``np.searchsorted`` for both sides,
through a sorter and along a strided ``x1``, over each dtype's special values: NaNs of
both signs and with a payload after every number, -0.0 equal to 0.0, subnormals of both
signs in their order, the integers' extremes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from cuda_compile import ONE_THREAD, assert_sources_compile, run_host
from test_cuda_unique_sources import special_values

from usmarray._backend._cuda.kernels import search_source as S

_REAL = [np.dtype(d) for d in ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32",
                                "int64", "uint64", "float32", "float64")]

_HOST = ONE_THREAD + """
static unsigned int __float_as_uint(float f) { unsigned int i; std::memcpy(&i, &f, 4); return i; }
static long long __double_as_longlong(double f) { long long i; std::memcpy(&i, &f, 8); return i; }
"""

_DRIVER = """
int main() {
  long long head[5];  // a case: n, m, xs, right, whether a sorter follows x
  while (fread(head, 8, 5, stdin) == 5) {
    const long long n = head[0], m = head[1], xs = head[2], right = head[3];
    T* x = new T[n * xs + 1];  // (std::vector<bool> has no data())
    T* v = new T[m + 1];
    std::vector<long long> sorter(n + 1), out(m + 1);
    if (fread(x, sizeof(T), n * xs, stdin) != (size_t)(n * xs)) return 1;
    if (head[4] && fread(sorter.data(), 8, n, stdin) != (size_t)n) return 1;
    if (fread(v, sizeof(T), m, stdin) != (size_t)m) return 1;
    k(x, head[4] ? sorter.data() : nullptr, v, out.data(), n, m, xs, right);
    fwrite(out.data(), 8, m, stdout);
    delete[] x;
    delete[] v;
  }
  return 0;
}
"""


def test_the_search_compiles_for_every_real_and_bool_dtype(tmp_path: Path) -> None:
    assert_sources_compile([S.source(d) for d in _REAL], tmp_path)


@pytest.mark.parametrize("d", _REAL, ids=str)
def test_the_search_gives_numpys_positions(d: np.dtype, tmp_path: Path) -> None:
    prog = _HOST + S.source(d).replace('extern "C" ', "") + _DRIVER
    rng = np.random.default_rng(d.itemsize + ord(d.kind))
    stdin, wants = b"", []
    for n in (0, 1, 2, 7, 40):
        x = np.sort(special_values(d, n, n))  # NumPy's order: NaNs last
        v = special_values(d, 25, n + 1)
        for right in (False, True):
            side = "right" if right else "left"
            # plain, strided (every other element of a longer array), through a sorter
            strided = np.empty(2 * n, d)
            strided[::2] = x
            perm = rng.permutation(n)
            shuffled = x[perm]
            sorter = np.argsort(perm, kind="stable")  # shuffled[sorter] == x
            for xs, data, srt in ((1, x, None), (2, strided, None), (1, shuffled, sorter)):
                head = np.array([n, v.size, xs, int(right), srt is not None], np.int64)
                stdin += head.tobytes() + data.tobytes()
                if srt is not None:
                    stdin += srt.astype(np.int64).tobytes()
                stdin += v.tobytes()
                wants.append(np.searchsorted(x, v, side=side))
    got = np.frombuffer(run_host(prog, stdin, tmp_path), np.int64)
    np.testing.assert_array_equal(got, np.concatenate(wants))
