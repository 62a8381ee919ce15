"""``arange``'s and ``eye``'s CUDA kernels (``usmarray/_backend/_cuda/kernels/
ramp_source.py``), checked without a GPU: each compiles for every dtype the backend
gives it where a CUDA compiler is installed, and run as host C++ (one thread walking
the whole grid-stride loop, each grid row in turn) ``arange`` of every integer dtype
gives NumPy's values from the arguments the backend passes (start and step modulo
2**64, computed in unsigned 64-bit arithmetic), negative steps and the dtypes' extremes
included, and ``eye`` gives ``np.eye`` for every diagonal."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from cuda_compile import ONE_THREAD, assert_sources_compile, run_host

from usmarray._backend._cuda.kernels import ramp_source as S
from usmarray._backend._cuda.kernels.c_types import CTYPES

_INTS = [np.dtype(f"{u}int{b}") for u in ("", "u") for b in (8, 16, 32, 64)]
_U64 = "unsigned long long"

_HOST = ONE_THREAD

_ARANGE_DRIVER = """
int main() {
  unsigned long long head[3];  // a case: n, start and step modulo 2**64
  while (fread(head, 8, 3, stdin) == 3) {
    std::vector<T> out(head[0] + 1);
    arange::k(out.data(), (long long)head[0], head[1], head[2]);
    fwrite(out.data(), sizeof(T), head[0], stdout);
  }
  return 0;
}
"""

_EYE_DRIVER = """
int main() {
  long long head[3];  // a case: rows, cols, the diagonal
  while (fread(head, 8, 3, stdin) == 3) {
    T* out = new T[head[0] * head[1] + 1];  // (std::vector<bool> has no data())
    for (blockIdx.y = 0; blockIdx.y < head[0]; blockIdx.y++)
      for (threadIdx.x = 0; threadIdx.x < head[1]; threadIdx.x++)
        eye::k(out, head[0], head[1], head[2]);
    blockIdx.y = threadIdx.x = 0;
    fwrite(out, sizeof(T), head[0] * head[1], stdout);
    delete[] out;
  }
  return 0;
}
"""


def test_arange_and_eye_compile(tmp_path: Path) -> None:
    sources = [S.arange_source(CTYPES[d], _U64, _U64) for d in _INTS[::3]]
    sources += [S.arange_source("float", "float", "double"),
                S.arange_source("double", "double", "double")]
    sources += [S.eye_source(CTYPES[np.dtype(d)]) for d in ("bool", "int32", "float64")]
    assert_sources_compile(sources, tmp_path)


def _program(source: str, t: str, driver: str, name: str) -> str:
    return (_HOST + f"namespace {name} {{\n" + source.replace('extern "C" ', "") + "\n}\n"
            + f"typedef {t} T;\n" + driver)


@pytest.mark.parametrize("d", _INTS, ids=str)
def test_integer_arange_gives_numpys_values(d: np.dtype, tmp_path: Path) -> None:
    info = np.iinfo(d)
    lo, hi = int(info.min), int(info.max)
    cases = [(0, 10, 1), (3, 20, 4), (10, 0, -1), (5, -5, -3), (lo, lo + 5, 1),
             (hi, hi - 7, -2), (lo, hi, max(1, (hi - lo) // 6)), (hi, lo, -max(1, (hi - lo) // 5))]
    stdin, wants = b"", []
    for start, stop, step in cases:
        want = list(range(start, stop, step))  # exact (NumPy's object arange is not)
        if not all(lo <= v <= hi for v in want):
            continue  # the namespace refuses values that do not fit the dtype
        n = max(0, -((start - stop) // step))  # the backend's exact length
        assert n == len(want)
        stdin += np.array([n, start % 2**64, step % 2**64], np.uint64).tobytes()
        wants.append(np.array(want, d))
    prog = _program(S.arange_source(CTYPES[d], _U64, _U64), CTYPES[d], _ARANGE_DRIVER,
                    "arange")
    got = np.frombuffer(run_host(prog, stdin, tmp_path), d)
    np.testing.assert_array_equal(got, np.concatenate(wants))


@pytest.mark.parametrize("dtype", ["bool", "int16", "float32"])
def test_eye_gives_numpys_matrix(dtype: str, tmp_path: Path) -> None:
    d = np.dtype(dtype)
    stdin, wants = b"", []
    for rows, cols in ((1, 1), (3, 3), (2, 5), (5, 2)):
        for k in (-6, -2, -1, 0, 1, 3, 6):
            kk = max(-rows, min(k, cols))  # the backend's clamp of a diagonal outside
            stdin += np.array([rows, cols, kk], np.int64).tobytes()
            wants.append(np.eye(rows, cols, k=k, dtype=d).reshape(-1))
    prog = _program(S.eye_source(CTYPES[d]), CTYPES[d], _EYE_DRIVER, "eye")
    got = np.frombuffer(run_host(prog, stdin, tmp_path), d)
    np.testing.assert_array_equal(got, np.concatenate(wants))
