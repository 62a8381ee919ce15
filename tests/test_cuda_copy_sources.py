"""The CUDA row copies, ``repeat`` and ``roll`` (``usmarray/_backend/_cuda/kernels/
copy_source.py``), checked without a GPU: each compiles with the backend's NVRTC options
where a CUDA compiler is installed, and run as host C++ (one thread walking the whole
grid-stride loop, each grid row in turn) they give NumPy's ``np.tile`` of a row block,
``np.repeat`` and ``np.roll``, flattened and along an axis."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from cuda_compile import ONE_THREAD, assert_sources_compile, run_host

from usmarray._backend._cuda.kernels import copy_source as S

_HOST = ONE_THREAD + """
typedef long long T;
"""

_DRIVER = """
int main() {
  long long head[5];  // a case: the kernel (0 rows, 1 repeat, 2 roll), then its sizes
  while (fread(head, 8, 5, stdin) == 5) {
    const long long a = head[1], b = head[2], c = head[3], d = head[4];
    // rows: (rows, m); repeat: (total, inner, reps, source size); roll: (total, n, inner, s)
    const long long nin = head[0] == 0 ? b : head[0] == 1 ? d : a;
    const long long nout = head[0] == 0 ? a * b : a;
    std::vector<T> src(nin + 1), out(nout + 1);
    if (fread(src.data(), 8, nin, stdin) != (size_t)nin) return 1;
    if (head[0] == 0) {
      for (blockIdx.y = 0; blockIdx.y < a; blockIdx.y++) rows_of::k(src.data(), out.data(), a, b);
      blockIdx.y = 0;
    } else if (head[0] == 1) {
      repeat::k(src.data(), out.data(), a, b, c);
    } else {
      roll::k(src.data(), out.data(), a, b, c, d);
    }
    fwrite(out.data(), 8, nout, stdout);
  }
  return 0;
}
"""


def test_the_copies_compile(tmp_path: Path) -> None:
    assert_sources_compile([S.source(e, w) for e in (S.ROWS_OF, S.REPEAT, S.ROLL)
                            for w in ("unsigned char", "ulonglong2")], tmp_path)


def _case(kind: int, sizes: tuple[int, int, int, int], src: np.ndarray) -> bytes:
    return np.array([kind, *sizes], np.int64).tobytes() + src.astype(np.int64).tobytes()


def test_the_copies_give_numpys_tile_repeat_and_roll(tmp_path: Path) -> None:
    prog = (_HOST
            + "".join(f"namespace {name} {{\n" + S.source(e, "T").replace('extern "C" ', "")
                      + "\n}\n" for name, e in (("rows_of", S.ROWS_OF), ("repeat", S.REPEAT),
                                               ("roll", S.ROLL)))
            + _DRIVER)
    rng = np.random.default_rng(8)
    stdin, wants = b"", []
    for rows, m in ((1, 5), (4, 1), (3, 7)):
        row = rng.integers(-99, 99, m)
        stdin += _case(0, (rows, m, 0, 0), row)
        wants.append(np.tile(row, rows))
    a = rng.integers(-99, 99, (3, 4, 5))
    for axis in (None, 0, 1, 2):
        for reps in (1, 3):
            flat = a.reshape(-1) if axis is None else a
            ax = 0 if axis is None else axis
            want = np.repeat(a, reps, axis=axis)
            inner = int(np.prod(flat.shape[ax + 1:]))
            stdin += _case(1, (want.size, inner, reps, a.size), a)
            wants.append(want.reshape(-1))
        for shift in (0, 1, -2, 7, 61):
            if axis is None:
                n, inner, want = a.size, 1, np.roll(a, shift)
            else:
                n, inner = a.shape[axis], int(np.prod(a.shape[axis + 1:]))
                want = np.roll(a, shift, axis=axis)
            stdin += _case(2, (a.size, n, inner, shift % n), a)
            wants.append(want.reshape(-1))
    got = np.frombuffer(run_host(prog, stdin, tmp_path), np.int64)
    np.testing.assert_array_equal(got, np.concatenate(wants))
