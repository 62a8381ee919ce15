"""The CUDA gathers' kernels (``usmarray/_backend/_cuda/kernels/gather_source.py``),
checked without a GPU: a sample of every entry point compiles with the backend's NVRTC
options where a CUDA compiler is installed, and the kernels run as host C++ (one thread
of one block walking the whole grid-stride loop) give NumPy's answers.

- The range pass flags exactly the index arrays with an index outside ``[-n, n)``, at
  an aligned start (four indices a load) and an unaligned one, for every length of the
  tail; it writes the call's number into the device word and 1 into the host word, and
  nothing where every index is in range.
- The exact report names the largest index ``>= n``, else the smallest below ``-n``.
- ``take`` and ``take_along_axis`` read NumPy's elements, zero for an index out of range;
  so does the take of one axis four elements a thread, at an aligned start of the
  indices and an unaligned one, for every length of the tail.
- The scatter writes NumPy's elements, and nothing where the device word holds its
  call's number.
- The take of one axis and the scatter of one axis with their range check in the same
  launch give the same elements, report an index out of range in the host word, and
  write the call's number into the done word last (the scatter: nothing written where
  an index is out of range)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from cuda_compile import ONE_THREAD, assert_sources_compile, run_host

from usmarray._backend._cuda.kernels import gather_source as G
from usmarray._backend._cuda.kernels.c_types import CTYPES

_HOST = ONE_THREAD + """
static bool __syncthreads_or(bool b) { return b; }
static unsigned long long atomicMax(unsigned long long* p, unsigned long long v) {
  unsigned long long o = *p; if (v > o) *p = v; return o; }
static long long atomicMin(long long* p, long long v) {
  long long o = *p; if (v < o) *p = v; return o; }
static void __syncthreads() {}
static void __threadfence_system() {}
static unsigned int atomicAdd(unsigned int* p, unsigned int v) {
  unsigned int o = *p; *p += v; return o; }
struct uint4 { unsigned int x, y, z, w; };
template <typename W> static W __ldcs(const W* p) { return *p; }
template <typename W> static void __stcs(W* p, W w) { *p = w; }
"""

_DRIVER = """
template <typename X> static std::vector<X> read(long long n) {
  std::vector<X> v(n);
  if (n && fread(v.data(), sizeof(X), n, stdin) != (size_t)n) throw 1;
  return v;
}
int main() {
  long long head[4];  // a case: indices, the axis length n, the gen of the call, its offset
  while (fread(head, 8, 4, stdin) == 4) {
    const long long m = head[0], n = head[1], gen = head[2], off = head[3];
    std::vector<I> idx = read<I>(m + off);
    long long flag = 0, host = 0;
    in_range::k(idx.data() + off, m, n, gen, &flag, &host);
    long long report[3] = {0, 0, 0};
    exact::k(idx.data() + off, report, m, n);
    fwrite(&flag, 8, 1, stdout);
    fwrite(&host, 8, 1, stdout);
    fwrite(report, 8, 3, stdout);
  }
  return 0;
}
"""

_SAMPLE = [np.dtype(d) for d in ("int8", "int16", "int32", "int64")]


def _range_program(i: np.dtype, aligned: bool) -> str:
    c = CTYPES[i]
    return (_HOST
            + "namespace in_range {\n"
            + G.in_range_source(c, aligned).replace('extern "C" ', "") + "\n}\n"
            + "namespace exact {\n" + G.range_source(c).replace('extern "C" ', "") + "\n}\n"
            + f"typedef {c} I;\n" + _DRIVER)


def test_a_sample_of_the_gather_sources_compiles(tmp_path: Path) -> None:
    sources = [G.take_source(CTYPES[np.dtype(t)], CTYPES[np.dtype(i)], along)
               for t, i, along in (("float32", "int64", False), ("float64", "int32", True),
                                   ("bool", "int8", False), ("uint64", "int16", True))]
    sources += [G.take4_source(CTYPES[np.dtype(t)], CTYPES[np.dtype(i)], a)
                for t, i, a in (("float32", "int64", True), ("float64", "int32", False),
                                ("bool", "int8", True), ("int16", "int16", False))]
    sources += [G.take4_source(CTYPES[np.dtype(t)], CTYPES[np.dtype(i)], a, checked=True)
                for t, i, a in (("float32", "int64", True), ("bool", "int8", False))]
    sources += [G.put_source(s, CTYPES[np.dtype(t)], CTYPES[np.dtype(v)],
                             CTYPES[np.dtype(i)], checked=True)
                for s, t, v, i in ((True, "float32", "float32", "int64"),
                                   (False, "int16", "bool", "int32"))]
    sources += [G.in_range_source(CTYPES[i], a) for i in _SAMPLE[::3] for a in (False, True)]
    sources += [G.range_source(CTYPES[np.dtype("int64")])]
    sources += [G.put_source(s, CTYPES[np.dtype(t)], CTYPES[np.dtype(v)], CTYPES[np.dtype(i)])
                for s, t, v, i in ((True, "float32", "float32", "int64"),
                                   (False, "float64", "float32", "int32"),
                                   (False, "uint8", "bool", "int8"))]
    assert_sources_compile(sources, tmp_path)


def _case(idx: np.ndarray, n: int, gen: int, off: int) -> bytes:
    """One case of the range driver: its head, then ``off`` indices before ``idx``."""
    head = np.array([idx.size, n, gen, off], np.int64)
    return head.tobytes() + np.concatenate([np.zeros(off, idx.dtype), idx]).tobytes()


@pytest.mark.parametrize("i", _SAMPLE, ids=str)
def test_the_range_pass_flags_exactly_the_arrays_with_an_index_out_of_range(
        i: np.dtype, tmp_path: Path) -> None:
    rng = np.random.default_rng(int(i.itemsize))
    n = 50
    cases: dict[bool, list[tuple[np.ndarray, int]]] = {False: [], True: []}
    for m in (0, 1, 3, 4, 5, 8, 13, 64):
        for bad in sorted({-1, 0, m // 2, m - 1}):
            if bad >= 0 and m == 0:
                continue
            idx = rng.integers(-n, n, m).astype(i)
            if bad >= 0:
                idx[bad] = rng.choice([n, n + 7, -n - 1, -n - 9] if i.itemsize > 1 else [n, -n - 1])
            for aligned, off in ((True, 0), (False, 1), (False, 0)):
                cases[aligned].append((idx, off))
    for aligned, todo in cases.items():
        prog = _range_program(i, aligned)
        got = np.frombuffer(run_host(prog, b"".join(_case(idx, n, 7, off) for idx, off in todo),
                                     tmp_path), np.int64).reshape(-1, 5)
        assert len(got) == len(todo)
        for (idx, off), (flag, host, r0, hi, lo) in zip(todo, got, strict=True):
            bad = (idx < -n) | (idx >= n)
            want_flag = bool(bad.any())
            assert (flag, host) == ((7, 1) if want_flag else (0, 0)), (idx, off, aligned)
            assert r0 == int(want_flag)
            if want_flag:
                big = idx[idx >= n]
                named = int(big.max()) if big.size else int(idx[idx < -n].min())
                assert (hi if hi >= n else lo) == named


_TAKE_DRIVER = """
int main() {
  long long head[5];  // a case: total, outer, n, kk, inner
  while (fread(head, 8, 5, stdin) == 5) {
    const long long total = head[0], outer = head[1], n = head[2], kk = head[3];
    const long long inner = head[4];
    std::vector<T> src(outer * n * inner);
    std::vector<I> idx(ALONG ? total : kk);
    if (fread(src.data(), sizeof(T), src.size(), stdin) != src.size()) return 1;
    if (fread(idx.data(), sizeof(I), idx.size(), stdin) != idx.size()) return 1;
    std::vector<T> out(total);
    take::k(src.data(), idx.data(), out.data(), total, outer, n, kk, inner);
    fwrite(out.data(), sizeof(T), total, stdout);
  }
  return 0;
}
"""


@pytest.mark.parametrize("along", [False, True])
def test_take_reads_numpys_elements_and_zero_out_of_range(along: bool, tmp_path: Path) -> None:
    t, i = np.dtype("float64"), np.dtype("int32")
    prog = (_HOST + "namespace take {\n"
            + G.take_source(CTYPES[t], CTYPES[i], along).replace('extern "C" ', "")
            + f"\n}}\ntypedef {CTYPES[t]} T; typedef {CTYPES[i]} I;\n"
            + f"#define ALONG {int(along)}\n" + _TAKE_DRIVER)
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 7, 4))
    stdin, wants = b"", []
    for axis in range(3):
        n = a.shape[axis]
        outer, inner = int(np.prod(a.shape[:axis])), int(np.prod(a.shape[axis + 1:]))
        if along:
            shape = a.shape[:axis] + (5,) + a.shape[axis + 1:]
            idx = rng.integers(-n - 2, n + 2, shape).astype(i)
            ok = (idx >= -n) & (idx < n)
            want = np.where(ok, np.take_along_axis(a, np.where(ok, idx, 0).astype(np.int64),
                                                   axis), 0.0)
            kk = 5
        else:
            idx = rng.integers(-n - 2, n + 2, 6).astype(i)
            ok = (idx >= -n) & (idx < n)
            want = np.take(a, np.where(ok, idx, 0).astype(np.int64), axis=axis)
            mask = np.reshape(ok, (1,) * axis + (6,) + (1,) * (2 - axis))
            want = np.where(mask, want, 0.0)
            kk = 6
        head = np.array([want.size, outer, n, kk, inner], np.int64)
        stdin += head.tobytes() + a.tobytes() + idx.tobytes()
        wants.append(want)
    out = np.frombuffer(run_host(prog, stdin, tmp_path), t)
    np.testing.assert_array_equal(out, np.concatenate([w.reshape(-1) for w in wants]))


def _program(td: np.dtype, id_: np.dtype, driver: str, **kernels: str) -> str:
    """A host program: each kernel's source in a namespace of its name, the element
    and index types as T and I, then ``driver``."""
    return (_HOST + "".join(f"namespace {name} {{\n" + src.replace('extern "C" ', "")
                            + "\n}\n" for name, src in kernels.items())
            + f"typedef {CTYPES[td]} T; typedef {CTYPES[id_]} I;\n" + driver)


_TAKE4_DRIVER = """
#include <cstdlib>
int main() {
  long long head[3];  // a case: the number of indices m, the axis length n, their offset
  while (fread(head, 8, 3, stdin) == 3) {
    const long long m = head[0], n = head[1], off = head[2];
    // the buffers aligned as the device's (a quad of indices or elements moves at once)
    T* src = (T*)aligned_alloc(64, 64 * (n / 8 + 1) * sizeof(T));
    I* idx = (I*)aligned_alloc(64, 64 * ((m + off) / 8 + 1) * sizeof(I));
    T* out = (T*)aligned_alloc(64, 64 * (m / 8 + 1) * sizeof(T));
    memset(src, 0x5a, 64 * (n / 8 + 1) * sizeof(T));  // past the axis: not zero
    if (fread(src, sizeof(T), n, stdin) != (size_t)n) return 1;
    if (fread(idx, sizeof(I), m + off, stdin) != (size_t)(m + off)) return 1;
    take4::k(src, idx + off, out, m, n);
    fwrite(out, sizeof(T), m, stdout);
    free(src); free(idx); free(out);
  }
  return 0;
}
"""


@pytest.mark.parametrize(("t", "i"), [("float32", "int64"), ("float64", "int32"),
                                      ("bool", "int16"), ("uint8", "int8")])
def test_the_take_of_one_axis_four_a_thread_reads_numpys_elements(
        t: str, i: str, tmp_path: Path) -> None:
    td, id_ = np.dtype(t), np.dtype(i)
    rng = np.random.default_rng(5)
    n = 40
    src = (rng.standard_normal(n) * 50).astype(td)
    for aligned in (True, False):
        prog = _program(td, id_, _TAKE4_DRIVER,
                        take4=G.take4_source(CTYPES[td], CTYPES[id_], aligned))
        stdin, wants = b"", []
        for m in range(0, 14):  # every tail length after whole quads
            for off in ((0, 4) if aligned else (1, 2, 3)):
                idx = rng.integers(-n - 3, n + 3, m).astype(id_)
                ok = (idx >= -n) & (idx < n)
                wants.append(np.where(ok, src[np.where(ok, idx, 0)], np.zeros((), td)))
                stdin += (np.array([m, n, off], np.int64).tobytes() + src.tobytes()
                          + np.concatenate([np.zeros(off, id_), idx]).tobytes())
        out = np.frombuffer(run_host(prog, stdin, tmp_path), td)
        np.testing.assert_array_equal(out, np.concatenate(wants))


_PUT_DRIVER = """
int main() {
  long long head[4];  // a case: n, k, the call's gen, the device word
  while (fread(head, 8, 4, stdin) == 4) {
    const long long n = head[0], k = head[1], gen = head[2], flag = head[3];
    std::vector<T> x(n);
    std::vector<I> idx(k);
    std::vector<V> v(k);
    if (fread(x.data(), sizeof(T), n, stdin) != (size_t)n) return 1;
    if (fread(idx.data(), sizeof(I), k, stdin) != (size_t)k) return 1;
    if (fread(v.data(), sizeof(V), k, stdin) != (size_t)k) return 1;
    put::k(x.data(), idx.data(), v.data(), (T)0, &flag, gen, k, 1, n, k, 1, 0, 1, 0);
    fwrite(x.data(), sizeof(T), n, stdout);
  }
  return 0;
}
"""


def test_the_scatter_writes_numpys_elements_unless_its_call_was_flagged(
        tmp_path: Path) -> None:
    t, v, i = np.dtype("float64"), np.dtype("float32"), np.dtype("int64")
    prog = (_HOST + "namespace put {\n"
            + G.put_source(False, CTYPES[t], CTYPES[v], CTYPES[i]).replace('extern "C" ', "")
            + f"\n}}\ntypedef {CTYPES[t]} T; typedef {CTYPES[v]} V; typedef {CTYPES[i]} I;\n"
            + _PUT_DRIVER)
    rng = np.random.default_rng(4)
    x = rng.standard_normal(20)
    idx = rng.permutation(20)[:8] - rng.integers(0, 2, 8) * 20  # distinct, some negative
    vals = rng.standard_normal(8).astype(v)
    want = x.copy()
    want[idx] = vals
    cases = ((3, want), (5, x), (0, want))  # the word holds the call's gen 5: refused
    stdin = b"".join(np.array([20, 8, 5, flag], np.int64).tobytes() + x.tobytes()
                     + idx.tobytes() + vals.tobytes() for flag, _ in cases)
    out = np.frombuffer(run_host(prog, stdin, tmp_path), t).reshape(3, 20)
    for got, (_, expect) in zip(out, cases, strict=True):
        np.testing.assert_array_equal(got, expect)


_CHECKED_DRIVER = """
#include <cstdlib>
int main() {
  long long head[4];  // a case: the number of indices m, the axis length n, their offset, gen
  while (fread(head, 8, 4, stdin) == 4) {
    const long long m = head[0], n = head[1], off = head[2], gen = head[3];
    T* src = (T*)aligned_alloc(64, 64 * (n / 8 + 1) * sizeof(T));
    I* idx = (I*)aligned_alloc(64, 64 * ((m + off) / 8 + 1) * sizeof(I));
    T* out = (T*)aligned_alloc(64, 64 * (m / 8 + 1) * sizeof(T));
    if (fread(src, sizeof(T), n, stdin) != (size_t)n) return 1;
    if (fread(idx, sizeof(I), m + off, stdin) != (size_t)(m + off)) return 1;
    long long host[2] = {0, 0};
    unsigned int counter = 0;
    take::k(src, idx + off, out, m, n, gen, host, &counter);
    fwrite(host, 8, 2, stdout);
    fwrite(&counter, 4, 1, stdout);
    fwrite(out, sizeof(T), m, stdout);
    // the scatter of the same indices, values src[0 .. m) into a copy of src
    T* x = (T*)aligned_alloc(64, 64 * (n / 8 + 1) * sizeof(T));
    memcpy(x, src, n * sizeof(T));
    long long h2[2] = {0, 0};
    counter = 0;
    put::k(x, idx + off, src, (T)0, m, n, 1, gen, h2, &counter);
    fwrite(h2, 8, 2, stdout);
    fwrite(x, sizeof(T), n, stdout);
    free(src); free(idx); free(out); free(x);
  }
  return 0;
}
"""


@pytest.mark.parametrize(("t", "i"), [("float32", "int64"), ("uint8", "int16")])
def test_the_takes_and_scatters_checked_in_their_own_launch_match_numpy(
        t: str, i: str, tmp_path: Path) -> None:
    td, id_ = np.dtype(t), np.dtype(i)
    rng = np.random.default_rng(6)
    n = 40
    src = (rng.standard_normal(n) * 50).astype(td)
    for aligned in (True, False):
        prog = _program(
            td, id_, _CHECKED_DRIVER,
            take=G.take4_source(CTYPES[td], CTYPES[id_], aligned, checked=True),
            put=G.put_source(False, CTYPES[td], CTYPES[td], CTYPES[id_], checked=True))
        stdin, cases = b"", []
        for m in range(0, 14):
            for bad in (False, True):
                if bad and not m:
                    continue
                for off in ((0, 4) if aligned else (1, 3)):
                    idx = rng.permutation(2 * n)[:m] - n  # distinct, in [-n, n)
                    if bad:
                        idx[rng.integers(0, m)] = rng.choice([n, n + 3, -n - 1])
                    idx = idx.astype(id_)
                    cases.append((m, idx))
                    stdin += (np.array([m, n, off, 9], np.int64).tobytes() + src.tobytes()
                              + np.concatenate([np.zeros(off, id_), idx]).tobytes())
        out = run_host(prog, stdin, tmp_path)
        at = 0
        for m, idx in cases:
            host = np.frombuffer(out, np.int64, 2, at)
            counter = np.frombuffer(out, np.uint32, 1, at + 16)[0]
            at += 20
            got = np.frombuffer(out, td, m, at)
            at += m * td.itemsize
            h2 = np.frombuffer(out, np.int64, 2, at)
            at += 16
            x = np.frombuffer(out, td, n, at)
            at += n * td.itemsize
            ok = (idx >= -n) & (idx < n)
            bad = not ok.all()
            assert list(host) == [int(bad), 9] and counter == 0, (idx, aligned)
            np.testing.assert_array_equal(
                got, np.where(ok, src[np.where(ok, idx, 0)], np.zeros((), td)))
            assert list(h2) == [int(bad), 9]
            want = src.copy()
            if not bad:
                want[idx.astype(np.int64)] = src[:m]
            np.testing.assert_array_equal(x, want)
        assert at == len(out)
