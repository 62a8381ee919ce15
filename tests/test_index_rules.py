"""One rule for the indices and counts that functions read from integer arrays
(``usmarray/_index_rules.py``, guarantee 13), on every backend and every fast path.

Every integer dtype from int8 to uint64 at its extremes (0, max, min, -1, n, -n - 1,
2**63, 2**64 - 1 where representable): positions (``take``, ``take_along_axis``,
``x[key]``, ``x[key] = v``) in ``[-n, n)`` give NumPy's values and any other is an
IndexError naming it; a ``searchsorted`` sorter entry outside ``[0, n)`` is a ValueError
naming it; ``repeat`` counts below 0 or past 2**63 - 1 are ValueErrors.  An unsigned
element is never read as negative.  Then the fast paths that choose themselves by a
size threshold or a value window, at both sides of each edge: the host check of small
index arrays (``HOST_CHECK_MAX``), the SYCL checked kernels' launch limit, the CUDA
sort kernels' row lengths, and the CUDA presence bitmap of ``unique_*`` (its size
threshold and its window, also where the window meets the ends of a 64-bit range).

On a GPU machine the ``cuda:0`` cases run: ``python -m pytest -m gpu
tests/test_index_rules.py``; they skip without CuPy or a GPU.
"""

from __future__ import annotations

import operator

import numpy as np
import pytest
from test_reliability_common import begin, child_main, describe, device_params, run_in_child

import usmarray as xp
from usmarray import _backend
from usmarray._index_rules import HOST_CHECK_MAX, INT64_MAX

DEVICES = device_params("numpy", "cpu", "cuda:0")
INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
N = 5


def extremes(dtype: str, n: int = N) -> list[int]:
    """The values of the sweep that ``dtype`` can hold."""
    info = np.iinfo(dtype)
    wanted = [0, int(info.max), int(info.min), -1, n, -n - 1, 2**63, 2**64 - 1, n - 1, -n]
    return sorted({v for v in wanted if info.min <= v <= info.max})


def _is_position(v: int, n: int = N) -> bool:
    return -n <= v < n


def _index(values: list[int], dtype: str, device: str):
    return xp.asarray(np.array(values, dtype=dtype), device=device)


# ---- positions ---------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("device", DEVICES)
def test_take_reads_every_index_dtype_at_its_extremes(device, dtype):
    a = np.arange(3 * N, dtype=np.float64).reshape(3, N) * 10
    x, x1 = xp.asarray(a, device=device), xp.asarray(a[1], device=device)
    for v in extremes(dtype):
        ih = [1, v, 0]
        i = _index(ih, dtype, device)
        if _is_position(v):
            np.testing.assert_array_equal(xp.asnumpy(xp.take(x, i, axis=1)),
                                          np.take(a, ih, axis=1))
            np.testing.assert_array_equal(xp.asnumpy(xp.take(x1, i)), np.take(a[1], ih))
            continue
        for arr, axis in ((x, 1), (x1, None)):
            with pytest.raises(IndexError, match=rf"^take: index {v} is out of bounds for "
                                                 rf"axis {axis or 0} with size {N} \(an index "
                                                 rf"must lie in \[-{N}, {N}\)\)$"):
                xp.take(arr, i, axis=axis)


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("device", DEVICES)
def test_take_along_axis_reads_every_index_dtype_at_its_extremes(device, dtype):
    a = np.arange(3 * N, dtype=np.float64).reshape(3, N) * 10
    x = xp.asarray(a, device=device)
    for v in extremes(dtype):
        ih = np.array([[1, v, 0]] * 3, dtype=object)
        i = _index(ih.tolist(), dtype, device)
        if _is_position(v):
            want = np.take_along_axis(a, ih.astype(np.int64), axis=1)
            np.testing.assert_array_equal(xp.asnumpy(xp.take_along_axis(x, i, axis=1)), want)
            continue
        with pytest.raises(IndexError, match=rf"^take_along_axis: index {v} is out of bounds "
                                             rf"for axis 1 with size {N} "):
            xp.take_along_axis(x, i, axis=1)


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("device", DEVICES)
def test_integer_array_keys_read_every_index_dtype_at_its_extremes(device, dtype):
    a = np.arange(3 * N, dtype=np.float64).reshape(3, N) * 10
    for v in extremes(dtype):
        ih = [1, v, 0]
        i = _index(ih, dtype, device)
        rows = _index([2, 0, 1], dtype, device)
        x = xp.asarray(a, device=device, copy=True)
        x1 = xp.asarray(a[1], device=device, copy=True)
        if _is_position(v):
            np.testing.assert_array_equal(xp.asnumpy(x1[i]), a[1][ih])
            np.testing.assert_array_equal(xp.asnumpy(x[rows, i]), a[[2, 0, 1], ih])
            x1[i] = -7.0
            x[rows, i] = -8.0
            w1, w = a[1].copy(), a.copy()
            w1[ih] = -7.0
            w[[2, 0, 1], ih] = -8.0
            np.testing.assert_array_equal(xp.asnumpy(x1), w1)
            np.testing.assert_array_equal(xp.asnumpy(x), w)
            continue
        for op, args in ((operator.getitem, (x1, i)), (operator.getitem, (x, (rows, i))),
                         (operator.setitem, (x1, i, -7.0)),
                         (operator.setitem, (x, (rows, i), -8.0))):
            with pytest.raises(IndexError, match=rf"index {v} is out of bounds for axis "
                                                 rf"[01] with size {N}"):
                op(*args)
        np.testing.assert_array_equal(xp.asnumpy(x1), a[1])  # a refused write writes nothing
        np.testing.assert_array_equal(xp.asnumpy(x), a)


# ---- sorter ------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("device", DEVICES)
def test_searchsorted_sorter_entries_lie_in_zero_to_n(device, dtype):
    h1 = np.array([3.0, 1.0, 4.0, 1.5, 9.0])
    h2 = np.array([0.0, 1.2, 3.5, 4.0, 10.0])
    perm = np.argsort(h1, kind="stable")
    x1, x2 = xp.asarray(h1, device=device), xp.asarray(h2, device=device)
    for side in ("left", "right"):
        got = xp.searchsorted(x1, x2, side=side, sorter=_index(perm.tolist(), dtype, device))
        np.testing.assert_array_equal(xp.asnumpy(got),
                                      np.searchsorted(h1, h2, side=side, sorter=perm))
    for v in extremes(dtype):
        if 0 <= v < N:
            continue
        s = perm.tolist()
        s[2] = v
        with pytest.raises(ValueError, match=rf"^searchsorted: sorter holds {v}, which is not "
                                             rf"a position of x1; every element of sorter "
                                             rf"must lie in \[0, {N}\)"):
            xp.searchsorted(x1, x2, sorter=_index(s, dtype, device))


# ---- counts ------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("device", DEVICES)
def test_repeat_counts_at_the_extremes_of_every_dtype(device, dtype):
    h = np.arange(N, dtype=np.float64)
    x = xp.asarray(h, device=device)
    empty = xp.zeros((N, 0), device=device)  # large counts, nothing to allocate
    for v in extremes(dtype):
        for counts in ([v], [1, v, 0, 2, 1]):
            r = _index(counts, dtype, device)
            if v < 0:
                with pytest.raises(ValueError,
                                   match=rf"^repeat: repeats must be non-negative, got {v}$"):
                    xp.repeat(x, r)
                continue
            if v > INT64_MAX:
                with pytest.raises(ValueError, match=rf"^repeat: repeats must be below 2\*\*63 "
                                                     rf"\(a length must fit int64\), got {v}$"):
                    xp.repeat(x, r)
                continue
            total = N * v if len(counts) == 1 else sum(counts)
            if total <= 1 << 16:
                want = np.repeat(h, np.array(counts, dtype=np.int64))
                np.testing.assert_array_equal(xp.asnumpy(xp.repeat(x, r)), want)
            elif total > INT64_MAX:
                with pytest.raises(ValueError, match=rf"^repeat: the result would have {total} "
                                                     r"elements along axis 0"):
                    xp.repeat(empty, r, axis=0)
            else:
                got = xp.repeat(empty, r, axis=0)
                assert got.shape == (total, 0)


# ---- the host check's size threshold ---------------------------------------------------------
@pytest.mark.parametrize("dtype", ["int64", "uint64", "int32", "uint8"])
@pytest.mark.parametrize("device", DEVICES)
def test_index_checks_at_the_host_check_threshold(device, dtype):
    """Index arrays of HOST_CHECK_MAX elements (checked by a host copy) and one more
    (a kernel pass or two reductions, in the array's own dtype): in bounds they give
    NumPy's values, one bad element anywhere is named."""
    n = 200 if dtype == "uint8" else 3 * HOST_CHECK_MAX
    a = np.arange(n, dtype=np.float32)
    x = xp.asarray(a, device=device)
    rng = np.random.default_rng(7)
    info = np.iinfo(dtype)
    for size in (HOST_CHECK_MAX, HOST_CHECK_MAX + 1):
        ih = rng.integers(max(-n, int(info.min)), n, size=size)
        np.testing.assert_array_equal(xp.asnumpy(xp.take(x, _index(ih, dtype, device))),
                                      a[ih])
        np.testing.assert_array_equal(xp.asnumpy(x[_index(ih, dtype, device)]), a[ih])
        for bad in (n, -n - 1, int(info.max), 2**64 - 1):
            if not info.min <= bad <= info.max or -n <= bad < n:
                continue
            jh = ih.astype(object)
            jh[size // 2] = bad
            j = _index(jh.tolist(), dtype, device)
            with pytest.raises(IndexError, match=rf"^take: index {bad} is out of bounds"):
                xp.take(x, j)
            with pytest.raises(IndexError, match=rf"index {bad} is out of bounds"):
                x[j]
            with pytest.raises(IndexError, match=rf"^take_along_axis: index {bad} is out"):
                xp.take_along_axis(x, j)
        counts = np.ones(size, dtype=dtype)
        hs = np.arange(size, dtype=np.float32)
        xs = xp.asarray(hs, device=device)
        np.testing.assert_array_equal(xp.asnumpy(xp.repeat(xs, _index(counts, dtype, device))),
                                      hs)
        if info.min < 0:  # a negative count anywhere; a sorter's negative entry, which
            counts[size // 2] = -1  # [-n, n) would have let through
            with pytest.raises(ValueError, match=r"^repeat: repeats must be non-negative, "
                                                 r"got -1$"):
                xp.repeat(xs, _index(counts, dtype, device))
            s = np.argsort(hs, kind="stable").astype(object)
            s[size // 3] = -1
            with pytest.raises(ValueError, match=r"^searchsorted: sorter holds -1"):
                xp.searchsorted(xs, xs[:3], sorter=_index(s.tolist(), dtype, device))


@pytest.mark.parametrize("device", DEVICES)
def test_large_gathers_refuse_wrapped_unsigned_indices(device):
    """2**20 uint64 indices into 2**20 + 1 elements (the checked gathers of every
    backend): in range they give NumPy's values; 2**64 - 1 or 2**63 anywhere (a plain
    cast would read -1 or the minimum) is named."""
    n = (1 << 20) + 1
    a = np.arange(n, dtype=np.float32)
    x = xp.asarray(a, device=device)
    ih = np.random.default_rng(5).integers(0, n, size=n - 1).astype(np.uint64)
    i = xp.asarray(ih, device=device)
    np.testing.assert_array_equal(xp.asnumpy(xp.take(x, i)), a[ih])
    np.testing.assert_array_equal(xp.asnumpy(xp.take_along_axis(x, i)), a[ih])
    np.testing.assert_array_equal(xp.asnumpy(x[i]), a[ih])
    for at, bad in ((0, 2**64 - 1), (n // 2, 2**63), (n - 2, n)):
        jh = ih.copy()
        jh[at] = bad
        j = xp.asarray(jh, device=device)
        for fname, f in (("take", xp.take), ("take_along_axis", xp.take_along_axis)):
            with pytest.raises(IndexError, match=rf"^{fname}: index {bad} is out of bounds "
                                                 rf"for axis 0 with size {n} "):
                f(x, j)
        with pytest.raises(IndexError, match=rf"index {bad} is out of bounds for axis 0"):
            x[j]


@pytest.mark.parametrize("device", device_params("cpu"))
def test_sycl_checked_kernels_at_their_launch_limit(device, monkeypatch):
    """The SYCL take and range-check kernels run below their launch limit (``PIECE``
    elements) and give way to the provider's gather and two reductions at it: both sides
    give NumPy's values and name the same bad index (the limit lowered)."""
    from usmarray._backend._sycl import checked

    size = HOST_CHECK_MAX + 1  # past the host check, so the range kernel is asked
    a = np.arange(2 * size, dtype=np.int32)
    x = xp.asarray(a, device=device)
    ih = np.random.default_rng(3).integers(-2 * size, 2 * size, size=size)
    for limit in (size, size + 1):
        monkeypatch.setattr(checked, "PIECE", limit)
        for dtype in ("int64", "uint64"):
            h = ih % (2 * size) if dtype == "uint64" else ih
            np.testing.assert_array_equal(xp.asnumpy(xp.take(x, _index(h, dtype, device))),
                                          a[h])
            np.testing.assert_array_equal(xp.asnumpy(x[_index(h, dtype, device)]), a[h])
            bad = h.astype(object)
            bad[7] = 2**64 - 1 if dtype == "uint64" else -2 * size - 1
            j = _index(bad.tolist(), dtype, device)
            with pytest.raises(IndexError, match=rf"^take: index {bad[7]} is out of bounds"):
                xp.take(x, j)
            with pytest.raises(IndexError, match=rf"index {bad[7]} is out of bounds"):
                x[j]


# ---- values at the extremes through sort and unique -------------------------------------------
def _extreme_values(dtype: str, size: int, seed: int) -> np.ndarray:
    info = np.iinfo(dtype)
    near = [int(info.min), int(info.min) + 1, -1, 0, 1, int(info.max) - 1, int(info.max)]
    pool = np.array([v for v in near if info.min <= v <= info.max], dtype=dtype)
    return np.random.default_rng(seed).choice(pool, size=size)


def _stable_order(h: np.ndarray, descending: bool) -> np.ndarray:
    keys = [int(v) for v in h]
    return np.array(sorted(range(len(keys)), key=lambda k: -keys[k] if descending else keys[k]))


#: row lengths at each side of the CUDA sort kernels' edges (bitonic up to 512, radix up
#: to 4096, 2048 for 8-byte elements without CUB, the fallback past them)
SORT_ROWS = [2, 512, 513, 2048, 2049, 4096, 4097]


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("device", DEVICES)
def test_sort_and_argsort_order_the_extremes_at_every_row_length(device, dtype):
    for r in SORT_ROWS:
        h = _extreme_values(dtype, 2 * r, r).reshape(2, r)
        x = xp.asarray(h, device=device)
        for descending in (False, True):
            want_idx = np.stack([_stable_order(row, descending) for row in h])
            got_idx = xp.asnumpy(xp.argsort(x, descending=descending))
            np.testing.assert_array_equal(got_idx, want_idx, err_msg=f"{r} {descending}")
            got = xp.asnumpy(xp.sort(x, descending=descending))
            np.testing.assert_array_equal(got, np.take_along_axis(h, want_idx, axis=1))


def _check_unique(x, h: np.ndarray) -> None:
    v, idx, inv, cnt = np.unique(h, return_index=True, return_inverse=True, return_counts=True)
    got = xp.unique_all(x)
    for g, w in zip(got, (v, idx, inv.reshape(h.shape), cnt), strict=True):
        np.testing.assert_array_equal(xp.asnumpy(g), w)
    np.testing.assert_array_equal(xp.asnumpy(xp.unique_values(x)), v)
    c = xp.unique_counts(x)
    np.testing.assert_array_equal(xp.asnumpy(c.values), v)
    np.testing.assert_array_equal(xp.asnumpy(c.counts), cnt)
    r = xp.unique_inverse(x)
    np.testing.assert_array_equal(xp.asnumpy(r.values), v)
    np.testing.assert_array_equal(xp.asnumpy(r.inverse_indices), inv.reshape(h.shape))
    # the codes a searchsorted of the unique values gives are the inverse
    codes = xp.searchsorted(xp.unique_values(x), xp.reshape(x, (-1,)))
    np.testing.assert_array_equal(xp.asnumpy(codes), inv.reshape(-1))


#: the CUDA presence bitmap's size threshold (``kernels.unique.DENSE_MIN``), both sides
UNIQUE_SIZES = [(1 << 16) - 1, 1 << 16]


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("device", DEVICES)
def test_unique_of_the_extremes_at_the_bitmap_threshold(device, dtype):
    for size in UNIQUE_SIZES:
        _check_unique(xp.asarray(_extreme_values(dtype, size, size), device=device),
                      _extreme_values(dtype, size, size))


def _window_cases(dtype: str, half: int) -> list[tuple[str, list[int], bool]]:
    """(name, values, whether the bitmap takes them) for the first value and one other,
    at each edge of the window of ``2 * half`` keys around the first value, which never
    wraps around the ends of the dtype's range (it is moved inside them)."""
    info = np.iinfo(dtype)
    lo, hi = int(info.min), int(info.max)
    mid = lo + (hi - lo) // 2 + 12345
    span = 2 * half
    cases = [
        ("below, inside", [mid, mid - half], True),
        ("below, outside", [mid, mid - half - 1], False),
        ("above, inside", [mid, mid + half - 1], True),
        ("above, outside", [mid, mid + half], False),
        ("bottom, inside", [lo + 5, lo + span - 1], True),
        ("bottom, outside", [lo + 5, lo + span], False),
        ("top, inside", [hi - 5, hi - span + 1], True),
        ("top, outside", [hi - 5, hi - span], False),
        ("both ends", [lo + 5, hi - 2], False),
        ("both ends from the top", [hi, lo], False),
    ]
    return [c for c in cases if all(lo <= v <= hi for v in c[1])]


@pytest.mark.parametrize("dtype", ["int64", "uint64", "int32", "uint32"])
@pytest.mark.parametrize("device", device_params("cuda:0"))
def test_cuda_unique_bitmap_window_edges(device, dtype):
    """The bitmap takes an array exactly where every value's key lies in the window
    around the first value's (moved inside the dtype's range at its ends: uint64 {5,
    2**64 - 3} and int64 {min, max} are not neighbours), and ``unique_*`` give NumPy's
    values on both sides of every edge."""
    from usmarray._backend._cuda.kernels.unique import DENSE_MIN, WINDOW

    be = _backend.cuda
    half = WINDOW // 2
    for name, values, taken in _window_cases(dtype, half):
        h = np.empty(DENSE_MIN, dtype=dtype)
        h[0::2], h[1::2] = values[0], values[1]
        x = xp.asarray(h, device=device)
        assert (be.uniques.dense(x._arr) is not None) == taken, name
        _check_unique(x, h)
    # the size threshold: one element fewer goes to the sort
    h = np.zeros(DENSE_MIN, dtype=dtype)
    assert be.uniques._takes(xp.asarray(h, device=device)._arr)
    assert not be.uniques._takes(xp.asarray(h[1:], device=device)._arr)


# ---- the SYCL provider's sort of short integers ----------------------------------------------
def sort_short_integers_child() -> None:
    """Sort and argsort rows of 4097 8- and 16-bit integers on the SYCL CPU device."""
    for dtype in ("uint8", "int8", "uint16", "int16"):
        h = _extreme_values(dtype, 4097, 1)
        x = xp.asarray(h, device="cpu")
        begin(f"sort {dtype}")
        np.testing.assert_array_equal(xp.asnumpy(xp.sort(x)), np.sort(h))
        begin(f"sort {dtype} descending")
        np.testing.assert_array_equal(xp.asnumpy(xp.sort(x, descending=True)), np.sort(h)[::-1])
        begin(f"argsort {dtype}")
        np.testing.assert_array_equal(xp.asnumpy(xp.argsort(x)), np.argsort(h, kind="stable"))


@pytest.mark.parametrize("device", device_params("cpu"))
def test_sycl_sort_of_short_integers_builds_in_a_fresh_kernel_cache(device, tmp_path):
    """The provider's radix sort, its default for 1- and 2-byte integers, crashed or hung
    the OpenCL CPU compiler for rows of about 3000 elements or more; the backend sorts
    them with its merge sort there.  A fresh kernel cache makes the child build every
    kernel it runs."""
    proc = run_in_child("test_index_rules", "sort_short_integers_child", timeout=600,
                        env={"SYCL_CACHE_DIR": str(tmp_path), "SYCL_CACHE_PERSISTENT": "1"})
    assert proc.returncode == 0, describe(proc)


if __name__ == "__main__":
    child_main(globals())
