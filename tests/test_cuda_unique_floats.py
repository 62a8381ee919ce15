"""The unique family of float32 and float64 arrays on a CUDA device: subnormals of both
signs, ±0, NaNs (of both signs, with a payload), infinities and repeats, in C order and
in views (stepped, reversed, transposed, sliced 2-D) and in shared memory, give NumPy's
``np.unique`` (``return_index``, a stable sort; ``equal_nan=False``) bit for bit: a
subnormal is never merged with 0 (CuPy's kernels, compiled to flush float32
subnormals, merged them), -0.0 and 0.0 are one value (+0.0), every NaN is its own
value (the canonical NaN), last.  Only usmarray's kernels, memsets and CUB's radix sort
run."""

from __future__ import annotations

import numpy as np
import pytest
from cuda_gpu import cupy_and_marks
from test_cuda_unique_sources import bits, canonical, numpy_unique, special_values

import usmarray as xp

cupy, _, pytestmark = cupy_and_marks()

DEV = "cuda:0"

#: a view of a base array (NumPy or usmarray, the same indexing), and the base's shape
VIEWS = {
    "C-1d": (lambda a: a, (1000,)),
    "C-2d": (lambda a: a, (37, 29)),
    "long": (lambda a: a, (70001,)),
    "stepped": (lambda a: a[::3], (1000,)),
    "reversed": (lambda a: a[::-1], (999,)),
    "transposed": (lambda a: a.T, (31, 45)),
    "sliced-2d": (lambda a: a[1:, ::2], (33, 40)),
    "one": (lambda a: a, (1,)),
}


def _pair(view: str, dtype: str, usm_type: str = "device"):
    f, shape = VIEWS[view]
    h = special_values(np.dtype(dtype), int(np.prod(shape)), 3).reshape(shape)
    return f(h), f(xp.asarray(h, device=DEV, usm_type=usm_type))


def _check(u: xp.usm_ndarray, h: np.ndarray) -> None:
    v, i, inv, c = numpy_unique(h)
    v = canonical(v)
    host = xp.asnumpy
    np.testing.assert_array_equal(bits(host(xp.unique_values(u))), bits(v))
    got = xp.unique_all(u)
    np.testing.assert_array_equal(bits(host(got.values)), bits(v))
    np.testing.assert_array_equal(host(got.indices), i)
    np.testing.assert_array_equal(host(got.inverse_indices), inv)
    np.testing.assert_array_equal(host(got.counts), c)
    uc = xp.unique_counts(u)
    np.testing.assert_array_equal(bits(host(uc.values)), bits(v))
    np.testing.assert_array_equal(host(uc.counts), c)
    ui = xp.unique_inverse(u)
    np.testing.assert_array_equal(bits(host(ui.values)), bits(v))
    np.testing.assert_array_equal(host(ui.inverse_indices), inv)
    for r in (got.indices, got.inverse_indices, got.counts):
        assert r.dtype == xp.int64


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unique_family_keeps_every_value(view: str, dtype: str) -> None:
    h, u = _pair(view, dtype)
    _check(u, h)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int16", "bool"])
def test_unique_family_in_shared_memory(dtype: str) -> None:
    h, u = _pair("transposed", dtype, "shared")
    _check(u, h)
    assert xp.unique_values(u).usm_type == "shared"


def test_float32_subnormal_apart_from_zero() -> None:
    tiny = np.finfo(np.float32).smallest_subnormal
    h = np.array([tiny, 0.0, -0.0, tiny, -tiny], dtype=np.float32)
    _check(xp.asarray(h, device=DEV), h)
    assert xp.unique_values(xp.asarray(h, device=DEV)).shape == (3,)


def test_only_usmarrays_kernels_run() -> None:
    """The floating unique family launches usmarray's own kernels (all named ``k``),
    memsets and copies and CUB's radix sort, never a CuPy elementwise or reduction
    kernel."""
    torch = pytest.importorskip("torch")
    from torch.profiler import ProfilerActivity, profile

    arrays = [_pair(view, dtype)[1] for view in ("C-2d", "transposed", "long")
              for dtype in ("float32", "float64")]
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for u in arrays:
            xp.unique_values(u)
            xp.unique_counts(u)
            xp.unique_inverse(u)
            xp.unique_all(u)
        torch.cuda.synchronize()
    names = {e.name for e in prof.events() if e.device_type.name == "CUDA"}
    others = {n for n in names if n != "k" and "RadixSort" not in n
              and not n.lower().startswith(("memcpy", "memset"))}
    assert not others, sorted(others)
    assert "k" in names
