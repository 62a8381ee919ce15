"""``tril``/``triu``'s CUDA kernel (``usmarray/_backend/_cuda/kernels/
triangle_source.py``), checked without a GPU: it compiles for a sample of dtypes with the
backend's NVRTC options where a CUDA compiler is installed, and run as host C++ (one
thread walking the whole grid-stride loop) it gives NumPy's ``np.tril``/``np.triu`` for
every diagonal, batched, through C, transposed and reversed strides."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from cuda_compile import ONE_THREAD, assert_sources_compile, run_host

from usmarray._backend._cuda.kernels import triangle_source as S
from usmarray._backend._cuda.kernels.c_types import CTYPES

_HOST = ONE_THREAD

_DRIVER = """
int main() {
  long long head[9];  // a case: batch, rows, cols, sb, si, sj, diag, lower, base offset
  while (fread(head, 8, 9, stdin) == 9) {
    const long long b = head[0], rows = head[1], cols = head[2];
    const long long total = b * rows * cols;
    std::vector<T> src(total), dst(total);
    if (fread(src.data(), sizeof(T), total, stdin) != (size_t)total) return 1;
    k(src.data() + head[8], dst.data(), total, rows, cols, head[3], head[4], head[5],
      head[6], head[7]);
    fwrite(dst.data(), sizeof(T), total, stdout);
  }
  return 0;
}
"""


def test_the_triangle_compiles_for_a_sample_of_dtypes(tmp_path: Path) -> None:
    assert_sources_compile([S.source(CTYPES[np.dtype(d)])
                            for d in ("bool", "int16", "uint64", "float32", "float64")], tmp_path)


def _views(a: np.ndarray) -> list[np.ndarray]:
    """``a`` (batch, rows, cols) as C order, each matrix transposed, and reversed in
    every axis: views of ``a``'s buffer."""
    return [a, np.swapaxes(a, 1, 2), a[::-1, ::-1, ::-1]]


@pytest.mark.parametrize("dtype", ["int32", "float64"])
def test_the_triangle_gives_numpys_tril_and_triu(dtype: str, tmp_path: Path) -> None:
    t = np.dtype(dtype)
    prog = _HOST + S.source(CTYPES[t]).replace('extern "C" ', "") + "typedef " + CTYPES[t] \
        + " T;\n" + _DRIVER
    rng = np.random.default_rng(9)
    stdin, wants = b"", []
    for shape in ((1, 4, 4), (2, 3, 5), (3, 6, 2), (1, 1, 7)):
        base = (rng.integers(1, 100, shape)).astype(t)
        for view in _views(base):
            it = t.itemsize
            sb, si, sj = (s // it for s in view.strides)
            # the view's first element, as an offset into the base buffer
            off = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // it
            bb, rows, cols = view.shape
            for diag in (-9, -1, 0, 1, 2, 9):
                for lower in (False, True):
                    head = np.array([bb, rows, cols, sb, si, sj, diag, int(lower), off], np.int64)
                    stdin += head.tobytes() + base.tobytes()
                    wants.append((np.tril if lower else np.triu)(view, k=diag).reshape(-1))
    got = np.frombuffer(run_host(prog, stdin, tmp_path), t)
    np.testing.assert_array_equal(got, np.concatenate(wants))
