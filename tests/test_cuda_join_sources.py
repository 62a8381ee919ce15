"""concat and stack's CUDA copy (``usmarray/_backend/_cuda/kernels/join_source.py``),
checked without a GPU: it compiles for every word it moves with the backend's NVRTC
options where a CUDA compiler is installed, and run as host C++ (one thread of one
block, each grid row in turn) it lays out the inputs as ``np.concatenate`` does: joins
along the first axis (one contiguous run per input, the loop of four loads and its
tail) and along a later one (rows of each input side by side)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from cuda_compile import ONE_THREAD, assert_sources_compile, run_host

from usmarray._backend._cuda.kernels import join_source as S

#: the words of :data:`usmarray._backend._cuda.kernels._launch.WORDS`, by size
_WORDS = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int",
          8: "unsigned long long", 16: "ulonglong2"}

_HOST = ONE_THREAD + """
struct ulonglong2 { unsigned long long x, y; };
"""

_DRIVER = """
int main() {
  long long head[3];  // a case: inputs, outer, total (words); then each input's
  while (fread(head, 8, 3, stdin) == 3) {  // inner, offset and outer * inner words
    const long long n = head[0], outer = head[1], total = head[2];
    usm_join_tab<T, %(max)d> tab;
    std::vector<std::vector<T>> data(n);
    for (long long i = 0; i < n; i++) {
      long long io[2];
      if (fread(io, 8, 2, stdin) != 2) return 1;
      tab.inner[i] = io[0];
      tab.off[i] = io[1];
      data[i].resize(outer * io[0] + 1);
      if (fread(data[i].data(), sizeof(T), outer * io[0], stdin) != (size_t)(outer * io[0]))
        return 1;
      tab.p[i] = data[i].data();
    }
    std::vector<T> out(outer * total);
    for (blockIdx.y = 0; blockIdx.y < n; blockIdx.y++) k(tab, out.data(), outer, total);
    fwrite(out.data(), sizeof(T), outer * total, stdout);
  }
  return 0;
}
"""


def test_the_join_compiles_for_every_word(tmp_path: Path) -> None:
    assert_sources_compile([S.source(w) for w in _WORDS.values()], tmp_path)


@pytest.mark.parametrize("size", sorted(_WORDS))
def test_the_join_lays_out_the_inputs_as_numpy_concatenates(size: int,
                                                            tmp_path: Path) -> None:
    prog = (_HOST + S.source(_WORDS[size]).replace('extern "C" ', "")
            + f"typedef {_WORDS[size]} T;\n" + _DRIVER % {"max": S.MAX_INPUTS})
    rng = np.random.default_rng(size)
    stdin, wants = b"", []
    for outer in (1, 3):
        for inners in ([1], [5, 2], [4, 9, 13], [0, 6, 1], [17] * 5):
            blocks = [rng.integers(0, 256, (outer, w * size), dtype=np.uint8) for w in inners]
            stdin += np.array([len(inners), outer, sum(inners)], np.int64).tobytes()
            off = 0
            for w, b in zip(inners, blocks, strict=True):
                stdin += np.array([w, off], np.int64).tobytes() + b.tobytes()
                off += w
            wants.append(np.concatenate(blocks, axis=1).reshape(-1))
    got = np.frombuffer(run_host(prog, stdin, tmp_path), np.uint8)
    np.testing.assert_array_equal(got, np.concatenate(wants))
