"""Sources of the gathers and scatters of :mod:`.gather`, no CuPy needed, so that tests
compile them, and run their logic as host C++, without a GPU.  Each is the text of
``include/usmarray/gather.cuh`` and one ``extern "C"`` entry point ``k``; the types are
the C spellings of :data:`.c_types.CTYPES`."""

from __future__ import annotations

from .headers import header

#: the entry points of ``include/usmarray/gather.cuh``'s take (its last field: 1 for
#: take_along_axis), take of one axis four elements a thread (its last field: 1 where
#: the indices load four at a time), the same with its range check (likewise), range
#: pass (likewise), exact range report, scatter and the scatter of one axis with its
#: range check (their first field: 1 for a scalar value)
TAKE = """typedef %s T; typedef %s I;
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ src,
    const I* __restrict__ idx, T* __restrict__ out, const long long total,
    const long long outer, const long long n, const long long kk, const long long inner) {
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += step)
    usm_take<%d>(src, idx, out, e, outer, n, kk, inner);
}
"""
TAKE4 = """typedef %s T; typedef %s I;
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ src,
    const I* __restrict__ idx, T* __restrict__ out, const long long total,
    const long long n) {
  const long long step = 4LL * gridDim.x * blockDim.x;
  for (long long b = 4LL * ((long long)blockIdx.x * blockDim.x + threadIdx.x); b < total;
       b += step)
    usm_take4<%d>(src, idx, out, b, total, n);
}
"""
TAKE4_CHECKED = """typedef %s T; typedef %s I;
extern "C" __global__ void __launch_bounds__(256) k(const T* __restrict__ src,
    const I* __restrict__ idx, T* __restrict__ out, const long long total,
    const long long n, const long long gen, long long* __restrict__ host,
    unsigned int* __restrict__ counter) {
  usm_take4_checked<%d>(src, idx, out, total, n, gen, host, counter);
}
"""
PUT_CHECKED = """const bool S = %d; typedef %s T; typedef %s V; typedef %s I;
extern "C" __global__ void __launch_bounds__(256) k(T* __restrict__ x,
    const I* __restrict__ idx, const V* __restrict__ v, const T s, const long long kk,
    const long long n, const long long vj, const long long gen,
    long long* __restrict__ host, unsigned int* __restrict__ counter) {
  usm_put_checked<S>(x, idx, v, s, kk, n, vj, gen, host, counter);
}
"""
IN_RANGE = """typedef %s I;
extern "C" __global__ void __launch_bounds__(256) k(const I* __restrict__ idx,
    const long long total, const long long n, const long long gen,
    long long* __restrict__ flag, long long* __restrict__ host) {
  usm_in_range<%d>(idx, total, n, gen, flag, host);
}
"""
RANGE = """typedef %s I;
extern "C" __global__ void __launch_bounds__(256) k(const I* __restrict__ idx,
    long long* __restrict__ report, const long long total, const long long n) {
  usm_out_of_range(idx, report, total, n);
}
"""
PUT = """const bool S = %d; typedef %s T; typedef %s V; typedef %s I;
extern "C" __global__ void __launch_bounds__(256) k(T* __restrict__ x,
    const I* __restrict__ idx, const V* __restrict__ v, const T s,
    const long long* __restrict__ flag, const long long gen, const long long total,
    const long long outer, const long long n, const long long kk, const long long inner,
    const long long vo, const long long vj, const long long vi) {
  if (*flag == gen) return;
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += step)
    usm_put<S>(x, idx, v, s, e, outer, n, kk, inner, vo, vj, vi);
}
"""


def take_source(t: str, i: str, along: bool) -> str:
    """``take`` of elements of C type ``t`` at indices of C type ``i`` (``along``:
    ``take_along_axis``)."""
    return header("gather.cuh") + TAKE % (t, i, along)


def take4_source(t: str, i: str, aligned: bool) -> str:
    """``take`` of one axis (outer and inner 1) four elements a thread, of elements of C
    type ``t`` at indices of C type ``i`` (``aligned``: the four load at once)."""
    return header("gather.cuh") + TAKE4 % (t, i, aligned)


def take4_checked_source(t: str, i: str, aligned: bool) -> str:
    """``take`` of one axis four elements a thread with its range check in the same
    launch (``aligned``: the four indices load at once)."""
    return header("gather.cuh") + TAKE4_CHECKED % (t, i, aligned)


def put_checked_source(scalar: bool, t: str, v: str, i: str) -> str:
    """``x[idx] = v`` of one axis by one block with its range check in the same launch
    (types and ``scalar`` as :func:`put_source`)."""
    return header("gather.cuh") + PUT_CHECKED % (scalar, t, v, i)


def in_range_source(i: str, aligned: bool) -> str:
    """The range pass of indices of C type ``i`` (``aligned``: four load at a time)."""
    return header("gather.cuh") + IN_RANGE % (i, aligned)


def range_source(i: str) -> str:
    """The exact range report of indices of C type ``i``."""
    return header("gather.cuh") + RANGE % i


def put_source(scalar: bool, t: str, v: str, i: str) -> str:
    """``x[idx] = v`` into elements of C type ``t`` of values of C type ``v`` (``scalar``:
    one value passed by its bits) at indices of C type ``i``."""
    return header("gather.cuh") + PUT % (scalar, t, v, i)


__all__ = ["in_range_source", "put_checked_source", "put_source", "range_source",
           "take4_checked_source", "take4_source", "take_source"]
