"""Memory exhaustion: asking for more memory than exists raises MemoryError.

Promise: a request that cannot be satisfied -- more than the device's global memory,
more than 2**62 bytes, or an operation whose result would be that large -- raises
``MemoryError`` whose message states the requested size (in bytes, or in NumPy's
"4.00 EiB" form), and the process keeps working afterwards (the same arrays and
kernels give correct results).

Only requests that the runtime refuses at once are made (above the device's
``global_mem_size`` and ``max_mem_alloc_size``), so nothing is touched or swapped.
Everything runs in a child interpreter (tests/test_reliability_common.py).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from test_reliability_common import assert_child_ok, begin, child_main, needs_sycl

MOD = "test_reliability_memory"


def _mentions_size(msg: str, nbytes: int) -> bool:
    forms = {str(nbytes), f"{nbytes:,}", f"{nbytes:_}"}
    if any(f in msg for f in forms):
        return True
    units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
    for m in re.finditer(r"(\d+(?:\.\d+)?)\s*(KiB|MiB|GiB|TiB|PiB|EiB)", msg):
        val = float(m.group(1)) * 1024 ** units.index(m.group(2))
        if abs(val - nbytes) <= 0.01 * nbytes:
            return True
    return False


GROUPS = ("creation", "elementwise", "manipulation", "indexing", "searching", "sets_sorting",
          "statistics", "linalg", "fft", "copies")


def _requests(xp, gms):
    """group -> name -> (thunk, requested bytes).

    Large operands are broadcast views of one element (no memory); sizes past 2**63 - 1
    bytes are the ones the provider's 64-bit byte count would wrap around."""
    big = 2**62
    above = gms + 1
    one = xp.zeros(1, dtype=xp.uint8)
    f8 = xp.zeros(1, dtype=xp.float64)
    n40 = 2**40
    u62 = xp.broadcast_to(one, (big,))  # 2**62 bytes
    f59 = xp.broadcast_to(f8, (2**59,))  # 2**62 bytes
    i62 = xp.broadcast_to(xp.zeros(1, dtype=xp.int64), (big,))
    mask40 = xp.broadcast_to(xp.ones(1, dtype=xp.bool), (n40,))
    square = xp.broadcast_to(xp.zeros((1, 1), dtype=xp.uint8), (2**31, 2**31))
    wide = xp.broadcast_to(xp.zeros((1, 1), dtype=xp.uint8), (n40, 2**20))
    widef = xp.broadcast_to(xp.zeros((1, 1), dtype=xp.float64), (n40, 2**20))
    col = xp.broadcast_to(xp.ones((1, 1)), (2**31, 1))
    stack = xp.broadcast_to(xp.eye(2), (n40, 2, 2))  # 2**45 bytes
    wraps = xp.asarray(np.array([big, big, big, big + 5], dtype=np.int64))
    return {
        "creation": {
            "empty((2**62,), uint8)": (lambda: xp.empty((big,), dtype=xp.uint8), big),
            "empty(global_mem_size + 1 bytes)": (
                lambda: xp.empty((above,), dtype=xp.uint8), above),
            "zeros((2**59,), float64)": (lambda: xp.zeros((2**59,), dtype=xp.float64), big),
            "ones(global_mem_size // 8 + 1 float64)": (
                lambda: xp.ones((gms // 8 + 1,), dtype=xp.float64), (gms // 8 + 1) * 8),
            "full((2**31, 2**31), 7, int8)": (
                lambda: xp.full((2**31, 2**31), 7, dtype=xp.int8), big),
            "empty((2**62,), usm_type='shared')": (
                lambda: xp.empty((big,), dtype=xp.uint8, usm_type="shared"), big),
            "empty((2**62,), usm_type='host')": (
                lambda: xp.empty((big,), dtype=xp.uint8, usm_type="host"), big),
            "usm_ndarray((2**62,), 'u1', buffer='device')": (
                lambda: xp.usm_ndarray((big,), dtype="u1", buffer="device"), big),
            # (an integer arange of 2**62 elements has values past its dtype:
            # OverflowError first; the float64 values of this one fit)
            "arange(2**59, dtype=float64)": (
                lambda: xp.arange(2**59, dtype=xp.float64), big),
            "tril((2**31, 2**31) uint8)": (lambda: xp.tril(square), big),
            "triu((2**31, 2**31) uint8)": (lambda: xp.triu(square), big),
        },
        "elementwise": {
            "broadcast_to(...) + 1 (2**62 results)": (lambda: u62 + 1, big),
            "negative(2**59 float64)": (lambda: -f59, big),
            "equal(2**62 uint8, 0)": (lambda: xp.equal(u62, 0), big),
            "clip(2**62 uint8, 0, 1)": (lambda: xp.clip(u62, 0, 1), big),
            "(2**61 + 1 float64) + 1.0 (past 2**63 bytes)": (
                lambda: xp.broadcast_to(f8, (2**61 + 1,)) + 1.0, (2**61 + 1) * 8),
        },
        "manipulation": {
            "tile(x, (2**62,))": (lambda: xp.tile(one, (big,)), big),
            "tile(float64, (2**61 + 1,)) (past 2**63 bytes)": (
                lambda: xp.tile(f8, (2**61 + 1,)), (2**61 + 1) * 8),
            "repeat(x, 2**62)": (lambda: xp.repeat(one, big), big),
            "repeat(4 elements, int64 repeats summing past 2**64)": (
                lambda: xp.repeat(xp.zeros(4, dtype=xp.uint8), wraps), 4 * big + 5),
            "concat([2**62 uint8, 1 uint8])": (lambda: xp.concat([u62, one]), big + 1),
            "concat([2**62 uint8, 1 int64], axis=None)": (
                lambda: xp.concat([u62, i62[:1]], axis=None), (big + 1) * 8),
            "stack([2**62 uint8] * 2)": (lambda: xp.stack([u62, u62]), 2 * big),
            "roll(2**62 uint8, 1)": (lambda: xp.roll(u62, 1), big),
            "reshape((2**61, 2) -> (2**62,)) (a copy)": (
                lambda: xp.reshape(xp.broadcast_to(xp.zeros(2, dtype=xp.uint8), (2**61, 2)),
                                   (big,)), big),
            "reshape(2**62 uint8, copy=True)": (
                lambda: xp.reshape(u62, (2, 2**61), copy=True), big),
            "astype(2**62 uint8, uint8) (a copy)": (lambda: xp.astype(u62, xp.uint8), big),
            "astype(2**62 uint8, float64)": (lambda: xp.astype(u62, xp.float64), 8 * big),
        },
        "indexing": {
            "take(x, 2**62 indices)": (lambda: xp.take(one, i62), big),
            "take_along_axis(x, 2**62 indices, axis=0)": (
                lambda: xp.take_along_axis(one, i62, axis=0), big),
            "x[2**40-element mask]": (
                lambda: xp.broadcast_to(one, (n40,))[mask40], n40 * 8),
            "(4, 2**40)[int array of 3]": (lambda: wide.T[xp.asarray([0, 1, 2])], 3 * n40),
        },
        "searching": {
            "nonzero(2**40 bools)": (lambda: xp.nonzero(mask40), n40 * 8),
            "where(2**62 bools, x, x)": (
                lambda: xp.where(xp.broadcast_to(mask40[:1], (big,)), one, one), big),
            "searchsorted(x, 2**40 values)": (
                lambda: xp.searchsorted(f8, xp.broadcast_to(f8, (n40,))), n40 * 8),
            "argmax((2**40, 2**20), axis=1)": (lambda: xp.argmax(wide, axis=1), n40 * 8),
            "argmin((2**40, 2**20), axis=1)": (lambda: xp.argmin(wide, axis=1), n40 * 8),
        },
        "sets_sorting": {
            "unique_values(2**62 uint8)": (lambda: xp.unique_values(u62), big),
            "unique_counts(2**62 uint8)": (lambda: xp.unique_counts(u62), big),
            "unique_inverse(2**62 uint8)": (lambda: xp.unique_inverse(u62), 8 * big),
            "unique_all(2**62 uint8)": (lambda: xp.unique_all(u62), 8 * big),
            "isin(2**62 uint8, x)": (lambda: xp.isin(u62, one), big),
            "sort(2**62 uint8)": (lambda: xp.sort(u62), big),
            "argsort(2**62 uint8)": (lambda: xp.argsort(u62), 8 * big),
        },
        "statistics": {
            "sum((2**40, 2**20) uint8, axis=1)": (lambda: xp.sum(wide, axis=1), n40 * 8),
            "prod((2**40, 2**20) uint8, axis=1)": (lambda: xp.prod(wide, axis=1), n40 * 8),
            "max((2**40, 2**20) uint8, axis=1)": (lambda: xp.max(wide, axis=1), n40),
            "min((2**40, 2**20) uint8, axis=1)": (lambda: xp.min(wide, axis=1), n40),
            "mean((2**40, 2**20) float64, axis=1)": (lambda: xp.mean(widef, axis=1), n40 * 8),
            "var((2**40, 2**20) float64, axis=1)": (lambda: xp.var(widef, axis=1), n40 * 8),
            "std((2**40, 2**20) float64, axis=1)": (lambda: xp.std(widef, axis=1), n40 * 8),
            "all((2**40, 2**20), axis=1)": (lambda: xp.all(wide, axis=1), n40),
            "any((2**40, 2**20), axis=1)": (lambda: xp.any(wide, axis=1), n40),
            "cumulative_sum(2**59 float64)": (lambda: xp.cumulative_sum(f59), big),
            "cumulative_sum(2**62 uint8) (uint64 result)": (
                lambda: xp.cumulative_sum(u62), 8 * big),
            "cumulative_prod(2**62 uint8) (uint64 result)": (
                lambda: xp.cumulative_prod(u62), 8 * big),
            "diff(2**62 uint8)": (lambda: xp.diff(u62), big - 1),
        },
        "linalg": {
            "matmul((2**20, 1), (1, 2**20))": (
                lambda: xp.matmul(col[: 2**20], xp.matrix_transpose(col[: 2**20])), 2**43),
            "matmul((2**31, 1), (1, 2**31))": (
                lambda: xp.matmul(col, xp.matrix_transpose(col)), 2**65),
            "tensordot(2**31, 2**31, axes=0)": (
                lambda: xp.tensordot(col[:, 0], col[:, 0], axes=0), 2**65),
            "vecdot((2**58, 1), (1, 1))": (
                lambda: xp.vecdot(xp.broadcast_to(xp.ones((1, 1)), (2**58, 1)), xp.ones((1, 1))),
                2**61),
            "linalg.outer(2**31, 2**31)": (lambda: xp.linalg.outer(col[:, 0], col[:, 0]), 2**65),
            "linalg.cross((2**58, 3), (3,))": (
                lambda: xp.linalg.cross(xp.broadcast_to(xp.ones(3), (2**58, 3)), xp.ones(3)),
                3 * 2**61),
            **{f"linalg.{name}(2**40 matrices)": (
                lambda name=name: getattr(xp.linalg, name)(stack), 2**45)
               for name in ("inv", "det", "slogdet", "cholesky", "qr", "eigh", "eigvalsh",
                            "eig", "svdvals", "pinv", "matrix_rank", "matrix_norm",
                            "diagonal")},
            "linalg.solve(2**40 matrices, (2, 1))": (
                lambda: xp.linalg.solve(stack, xp.ones((2, 1))), 2**45),
            "linalg.svd(2**40 matrices)": (lambda: xp.linalg.svd(stack), 2**45),
            "linalg.eigvals(2**40 matrices)": (lambda: xp.linalg.eigvals(stack), 2**45),
            "linalg.vector_norm(2**40 matrices)": (lambda: xp.linalg.vector_norm(stack), 2**45),
            "linalg.trace(2**40 matrices)": (lambda: xp.linalg.trace(stack), 2**45),
            "linalg.matrix_power(2**40 matrices, 3)": (
                lambda: xp.linalg.matrix_power(stack, 3), 2**45),
        },
        "fft": {
            "fft.fft(2**58 complex128)": (
                lambda: xp.fft.fft(xp.broadcast_to(xp.zeros(1, dtype=xp.complex128), (2**58,))),
                big),
            "fft.rfft(2**40 float64)": (
                lambda: xp.fft.rfft(xp.broadcast_to(f8, (n40,))), (2**39 + 1) * 16),
            "fft.ifft(2**58 complex128)": (
                lambda: xp.fft.ifft(xp.broadcast_to(xp.zeros(1, dtype=xp.complex128), (2**58,))),
                big),
            "fft.fftn((2**29, 2**29) complex128)": (
                lambda: xp.fft.fftn(xp.broadcast_to(xp.zeros((1, 1), dtype=xp.complex128),
                                                    (2**29, 2**29))), big),
            "fft.irfft(2**40 complex128)": (
                lambda: xp.fft.irfft(xp.broadcast_to(xp.zeros(1, dtype=xp.complex128), (n40,))),
                (n40 - 1) * 16),
            "fft.ifftshift(2**59 float64)": (lambda: xp.fft.ifftshift(f59), big),
            "fft.fft(x, n=2**62)": (
                lambda: xp.fft.fft(xp.zeros(4, dtype=xp.complex128), n=big), 16 * big),
            "fft.fftfreq(2**62)": (lambda: xp.fft.fftfreq(big), 8 * big),
            "fft.rfftfreq(2**62)": (lambda: xp.fft.rfftfreq(big), (2**61 + 1) * 8),
            "fft.fftshift(2**59 float64)": (lambda: xp.fft.fftshift(f59), big),
        },
        "copies": {
            "to_device(2**62 uint8, 'numpy')": (lambda: u62.to_device("numpy"), big),
        },
    }


def _memory_errors(group):
    import dpctl

    import usmarray as xp

    gms = dpctl.SyclDevice().global_mem_size
    problems = []
    for name, (thunk, nbytes) in _requests(xp, gms)[group].items():
        begin(name)
        try:
            thunk()
        except MemoryError as exc:
            if not _mentions_size(str(exc), nbytes):
                problems.append(f"{name}: MemoryError without the size {nbytes}: {exc}")
            continue
        except Exception as exc:  # noqa: BLE001 - the type is what is tested
            problems.append(f"{name}: {type(exc).__name__}: {exc}")
            continue
        problems.append(f"{name}: no error")
    if group == "searching":
        # no temporary of 2**62 bytes any more (the reduction runs in pieces), but 2**34
        # launches are refused with the reason
        begin("count_nonzero(2**62 uint8)")
        u62 = xp.broadcast_to(xp.asarray(1, dtype=xp.uint8), (2**62,))
        with pytest.raises(ValueError, match="kernel launches"):
            xp.count_nonzero(u62)
    assert not problems, "\n".join(problems)


def _keeps_working():
    """After every refused request, earlier arrays and new work are still correct."""
    import dpctl

    import usmarray as xp

    gms = dpctl.SyclDevice().global_mem_size
    keep = xp.asarray(np.arange(10_000, dtype=np.float64))
    cases = {n: c for group in _requests(xp, gms).values() for n, c in group.items()}
    for name, (thunk, _) in cases.items():
        begin(name)
        try:
            thunk()
        except Exception:  # noqa: BLE001, S110 - any refusal; what follows is checked
            pass
        assert float(xp.sum(keep)) == float(np.arange(10_000).sum())
        fresh = xp.ones((1 << 20,), dtype=xp.float32) * 2
        assert float(xp.sum(fresh)) == 2.0 * (1 << 20)
        np.testing.assert_array_equal(xp.asnumpy(keep[:5] + 1), np.arange(5) + 1)


def _numpy_backend():
    import usmarray as xp

    begin("empty((2**62,), device='numpy')")
    with pytest.raises(MemoryError) as info:
        xp.empty((2**62,), dtype=xp.uint8, device="numpy")
    assert _mentions_size(str(info.value), 2**62), str(info.value)
    assert float(xp.sum(xp.ones(100, device="numpy"))) == 100.0


@needs_sycl
@pytest.mark.parametrize("group", GROUPS)
def test_oversized_requests_raise_memory_error_with_the_size(group):
    assert_child_ok(MOD, "_memory_errors", group, timeout=90)


@needs_sycl
def test_process_keeps_working_after_refused_allocations():
    assert_child_ok(MOD, "_keeps_working", timeout=90)


def test_numpy_backend_raises_memory_error_with_the_size():
    assert_child_ok(MOD, "_numpy_backend", timeout=60)


if __name__ == "__main__":
    child_main(globals())
