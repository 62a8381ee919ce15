"""The lean call paths of small calls: the NumPy backend's small elementwise kernels,
its ufunc reductions, and the operator forms of the generated elementwise functions,
each checked against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import usmarray as xp
from usmarray import _elementwise as ew
from usmarray._backend._numpy.out_pool import LEAST

NB = xp.asarray(0.0, device="numpy")._be
_DATA = {"f": np.array([-2.5, -0.0, 0.0, 0.5, 1.5, np.inf, np.nan]),
         "i": np.array([-3, -1, 0, 1, 2, 7, 100], dtype=np.int64),
         "b": np.array([True, False, True, False, True, True, False])}


def _operand(name: str, kind: str) -> np.ndarray:
    return _DATA[kind] if kind != "b" or name.startswith(("logical", "bitwise")) else _DATA["f"]


def _plain_ufuncs(table: dict) -> list[str]:
    return [n for n in table if NB.small_kernel(n)[1]]


def test_the_numpy_backend_offers_small_kernels_below_the_pool_size() -> None:
    small = _plain_ufuncs(ew.BINARY) + _plain_ufuncs(ew.UNARY)
    assert {"add", "multiply", "less", "sin", "sqrt"} <= set(small)
    # kernels that warn, round or are not NumPy's ufunc keep the backend's own
    assert not {"floor_divide", "remainder", "round", "real", "imag"} & set(small)
    assert all(NB.small_kernel(n)[1] * 16 <= LEAST for n in small)


@pytest.mark.parametrize("name", _plain_ufuncs(ew.BINARY))
@pytest.mark.parametrize("kind", ["f", "i", "b"])
def test_small_binary_kernels_give_the_backend_kernels_result(name: str, kind: str) -> None:
    a = _operand(name, kind)
    b = a[::-1].copy()
    small, _ = NB.small_kernel(name)
    with np.errstate(all="ignore"):
        try:
            want = getattr(NB, name)(a, b)
        except (TypeError, ValueError):  # the namespace refuses these operands first
            return
        got = small(a, b)
        np.testing.assert_array_equal(got, want)
        assert got.dtype == want.dtype
        zero_d = small(a[0:1].reshape(()), b[0:1].reshape(()))
    assert type(zero_d) is np.ndarray and zero_d.shape == ()


@pytest.mark.parametrize("name", _plain_ufuncs(ew.UNARY))
def test_small_unary_kernels_give_the_backend_kernels_result(name: str) -> None:
    kind = "b" if name == "logical_not" else "i" if name == "bitwise_invert" else "f"
    a = _DATA[kind]
    small, _ = NB.small_kernel(name)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(small(a), getattr(NB, name)(a))
        assert type(small(a[0:1].reshape(()))) is np.ndarray


@pytest.mark.parametrize("shape", [(), (1,), (5,), (300,)])
def test_small_calls_match_numpy_with_arrays_and_scalars(shape: tuple) -> None:
    rng = np.random.default_rng(0)
    h1, h2 = rng.standard_normal(shape), rng.standard_normal(shape)
    x1, x2 = xp.asarray(h1, device="numpy"), xp.asarray(h2, device="numpy")
    for got, want in ((x1 + x2, h1 + h2), (x1 < x2, h1 < h2), (x1 * 2.0, h1 * 2.0),
                      (xp.sin(x1), np.sin(h1)), (3 - x1, 3 - h1), (-x1, -h1)):
        assert isinstance(got, xp.usm_ndarray) and got.shape == shape
        np.testing.assert_array_equal(xp.asnumpy(got), want)


def test_the_inline_operator_defers_to_a_foreign_operand() -> None:
    class Foreign:
        def __radd__(self, other: object) -> str:
            return "foreign"

        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = object.__hash__

    x = xp.asarray([1.0, 2.0], device="numpy")
    assert x + Foreign() == "foreign"
    assert (x == Foreign()) is True
    with pytest.raises(TypeError, match="unsupported operand of type numpy.ndarray"):
        x + np.ones(2)
    with pytest.raises(TypeError, match="unsupported operand"):
        x + "a"


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int64", "float32", "float64",
                                   "complex128"])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_sum_and_prod_are_numpys(dtype: str, axis: object, keepdims: bool) -> None:
    h = (np.arange(12) % 5 + 1).reshape(3, 4).astype(dtype)
    x = xp.asarray(h, device="numpy")
    for f, g in ((xp.sum, np.sum), (xp.prod, np.prod)):
        got = f(x, axis=axis, keepdims=keepdims)
        want = g(h, axis=axis, keepdims=keepdims,
                 dtype={"i": np.int64, "u": np.uint64}.get(h.dtype.kind))
        assert xp.asnumpy(got).dtype == want.dtype and got.shape == np.shape(want)
        np.testing.assert_array_equal(xp.asnumpy(got), want)
    got = xp.sum(xp.asarray(h[0, 0], device="numpy"))
    assert got.shape == () and xp.asnumpy(got) == h[0, 0]


def test_sum_of_float64_keeps_numpys_pairwise_rounding() -> None:
    h = np.random.default_rng(1).standard_normal(10_001) * 1e8
    assert float(xp.sum(xp.asarray(h, device="numpy"))) == float(np.sum(h))


def test_where_without_queue_reads_still_refuses_other_devices() -> None:
    pytest.importorskip("dpctl")
    try:
        y = xp.asarray([1.0, 2.0], device="cpu")
    except Exception as exc:  # noqa: BLE001 - no SYCL CPU device here
        pytest.skip(str(exc))
    c = xp.asarray([True, False], device="numpy")
    x = xp.asarray([3.0, 4.0], device="numpy")
    with pytest.raises(xp.ExecutionPlacementError):
        xp.where(c, x, y)
    with pytest.raises(xp.ExecutionPlacementError):
        xp.concat([x, y])
    np.testing.assert_array_equal(xp.asnumpy(xp.where(c, x, 0.0)), [3.0, 0.0])
