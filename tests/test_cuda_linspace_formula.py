"""The CUDA ``linspace`` kernel's formula (``include/usmarray/linspace.cuh`` with the
scalars ``ramp_source.linspace_arguments`` passes) gives NumPy's bits, checked without
a GPU: the header is compiled as host C++ (CUDA's round-to-nearest intrinsics as plain
IEEE operations, which they are) and run over drawn bounds, lengths and dtypes, real and
complex; every kernel variant also compiles as CUDA."""

from __future__ import annotations

import struct
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest
from cuda_compile import CXX, assert_sources_compile
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from usmarray._backend._cuda.kernels import ramp_source

FLOATING = [np.dtype(n) for n in ("float32", "float64", "complex64", "complex128")]

_INTRINSICS = "".join(
    f"static inline {t} __{p}{op}_rn({t} a, {t} b) {{ return a {sym} b; }}\n"
    for p, t in (("f", "float"), ("d", "double"))
    for op, sym in (("add", "+"), ("sub", "-"), ("mul", "*"), ("div", "/")))

#: one case on stdin: variant, n, the seven double arguments, by_div, last_is_stop;
#: out: n (re, im) pairs as doubles
_MAIN = """
#include <cstdio>
template <typename C, bool Z>
static void run(long long n, const double* a, long long by_div, long long last) {
  for (long long i = 0; i < n; ++i) {
    C re, im;
    usm_linspace_value<C, Z>(i, n, (C)a[0], (C)a[1], (C)a[2], (C)a[3], (C)a[4], (C)a[5],
                             (C)a[6], by_div, last, &re, &im);
    double v[2] = {(double)re, (double)im};
    fwrite(v, sizeof v, 1, stdout);
  }
}
int main() {
  long long head[2], tail[2];
  double a[7];
  while (fread(head, sizeof head, 1, stdin) == 1) {
    fread(a, sizeof a, 1, stdin);
    fread(tail, sizeof tail, 1, stdin);
    switch (head[0]) {
      case 0: run<float, false>(head[1], a, tail[0], tail[1]); break;
      case 1: run<double, false>(head[1], a, tail[0], tail[1]); break;
      case 2: run<float, true>(head[1], a, tail[0], tail[1]); break;
      default: run<double, true>(head[1], a, tail[0], tail[1]); break;
    }
  }
  return 0;
}
"""


@pytest.fixture(scope="module")
def formula(tmp_path_factory: pytest.TempPathFactory):
    """Runs the header's formula on the host: (c, num, endpoint, start, stop) -> the
    values in c's parts, as (re, im) float64 pairs."""
    if CXX is None:
        pytest.skip("no C++ compiler here")
    tmp = tmp_path_factory.mktemp("linspace")
    header = (Path(ramp_source.__file__).parent.parent / "include" / "usmarray"
              / "linspace.cuh").read_text()
    src, exe = tmp / "linspace.cpp", tmp / "linspace"
    src.write_text("#define __device__\n" + _INTRINSICS + header + _MAIN)
    # no contraction into FMA, as the CUDA intrinsics
    subprocess.run([CXX, "-O1", "-ffp-contract=off", "-o", str(exe), str(src)], check=True)

    def call(c: np.dtype, num: int, endpoint: bool, start, stop) -> np.ndarray:
        args = ramp_source.linspace_arguments(start, stop, num, endpoint, c)
        variant = {"f": 0, "d": 1, "F": 2, "D": 3}[c.char]
        blob = struct.pack("<qq7dqq", variant, num, *args)
        out = subprocess.run([str(exe)], input=blob, capture_output=True, check=True).stdout
        return np.frombuffer(out, dtype=np.float64).reshape(num, 2)

    return call


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint8)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), num=st.integers(1, 40), endpoint=st.booleans(),
       c=st.sampled_from(FLOATING), d=st.sampled_from(FLOATING))
def test_formula_gives_numpys_bits(formula, data, num, endpoint, c, d) -> None:
    if c.kind == "c" and d.kind != "c":
        d = c  # complex values need a complex result (the namespace refuses the rest)
    width = 32 if c.char in "fF" else 64
    part = st.floats(width=width, min_value=-2.0**60, max_value=2.0**60) | st.sampled_from(
        [0.0, -0.0, 1e-300 if width == 64 else 1e-40, 2.0**-1074 if width == 64 else 1e-45])
    if c.kind == "c":
        start, stop = (complex(data.draw(part), data.draw(part)) for _ in range(2))
    else:
        start, stop = data.draw(part), data.draw(part)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        want = np.linspace(c.type(start), c.type(stop), num, endpoint=endpoint, dtype=d)
        pairs = formula(c, num, endpoint, start, stop)
        if d.kind == "c":  # each part rounds alone, as the kernel's casts do
            part_t = np.float32 if d == np.complex64 else np.float64
            got = np.empty(num, d)
            got.real, got.imag = pairs[:, 0].astype(part_t), pairs[:, 1].astype(part_t)
        else:
            got = pairs[:, 0].astype(d)
    assert _bits(got).tolist() == _bits(want).tolist(), (start, stop, got, want)


def test_every_variant_compiles_as_cuda(tmp_path: Path) -> None:
    assert_sources_compile([ramp_source.linspace_source(d, c) for c in FLOATING
                            for d in FLOATING if c.kind != "c" or d.kind == "c"], tmp_path)
