"""Silent conversions and host escapes, on every backend.

* NumPy scalars in operators behave exactly as the Python scalar they hold; NumPy
  arrays in operators raise TypeError; NumPy never computes an operator on a usmarray
  array (the result is never a NumPy ndarray, ``y += np.float64(1)`` updates ``y`` in
  place so its other views see it).
* ``take`` / ``take_along_axis`` raise IndexError for an index outside ``[-n, n)``;
  a ``searchsorted`` sorter outside ``[0, n)`` raises ValueError (never a garbage read).
* A complex scalar into a real dtype (``asarray``, ``full``) is a TypeError; a float
  into an integer dtype that does not fit is an OverflowError (NaN: ValueError).
* Read-only is inherited by views.

Each check runs in a child interpreter (tests/test_reliability_common.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_reliability_common import _have_sycl, assert_child_ok, begin, child_main, needs_sycl

MOD = "test_reliability_conversions"


def _device(xp, name):
    return xp.asarray(0).device if name == "sycl" else name


def _numpy_values_in_operators(name: str) -> None:
    import usmarray as xp

    dev = _device(xp, name)
    x = xp.asarray([1.0, 2.0, 3.0], device=dev)
    i = xp.asarray([1, 2, 3], device=dev)
    for s, arr in ((np.float64(2.0), x), (np.float32(2.0), x), (np.int64(2), i),
                   (np.int8(2), i), (np.int64(2), x), (np.bool_(True), i > 1)):
        py = s.item()
        ops = (("__and__", "__rand__", "__or__", "__eq__", "__ne__") if arr.dtype == xp.bool
               else ("__add__", "__radd__", "__mul__", "__rmul__", "__sub__", "__rsub__",
                     "__lt__", "__eq__", "__pow__", "__truediv__", "__rtruediv__"))
        for op in ops:
            begin(f"{op} with {type(s).__name__}")
            got, want = getattr(arr, op)(s), getattr(arr, op)(py)
            assert type(got) is xp.usm_ndarray, f"{op}: a {type(got).__name__}"
            assert got.dtype == want.dtype and np.array_equal(xp.asnumpy(got), xp.asnumpy(want))
        begin(f"NumPy scalar on the left: {type(s).__name__}")
        got = s * arr if arr.dtype != xp.bool else s & arr
        assert type(got) is xp.usm_ndarray, f"{type(s).__name__} * x gave {type(got).__name__}"
    begin("in place: y += np.float64(1)")
    y = x[:]
    view = x[1:]
    y += np.float64(1)
    assert type(y) is xp.usm_ndarray
    assert np.array_equal(xp.asnumpy(view), [3.0, 4.0])
    for bad in (np.ones(3), np.asarray(2.0), np.longdouble(2)):
        begin(f"x + {type(bad).__name__}")
        with pytest.raises(TypeError):
            x + bad
        with pytest.raises(TypeError):
            bad + x
        with pytest.raises(TypeError):
            x * bad


def _indices_out_of_bounds(name: str) -> None:
    import usmarray as xp

    dev = _device(xp, name)
    x = xp.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device=dev)
    for k in (3, -4, 2**40, -(2**40)):
        idx = xp.asarray([0, k], device=dev)
        begin(f"take {k}")
        with pytest.raises(IndexError):
            xp.take(x, idx, axis=1)
        begin(f"take_along_axis {k}")
        with pytest.raises(IndexError):
            xp.take_along_axis(x, xp.reshape(xp.concat([idx, idx]), (2, 2)), axis=1)
    for k in (-1, -3):  # in range: counted from the end, as NumPy
        got = xp.take(x, xp.asarray([k], device=dev), axis=1)
        assert np.array_equal(xp.asnumpy(got), np.take(xp.asnumpy(x), [k], axis=1))
    u = xp.asarray([1, 7], dtype=xp.uint8, device=dev)
    with pytest.raises(IndexError):
        xp.take(x, u, axis=1)
    s = xp.asarray([1.0, 2.0, 3.0], device=dev)
    for sorter in ([0, 9, 2], [0, -5, 2]):
        begin(f"searchsorted sorter {sorter}")
        with pytest.raises(ValueError):
            xp.searchsorted(s, xp.asarray([2.0], device=dev), sorter=xp.asarray(sorter, device=dev))


def _scalar_conversions(name: str) -> None:
    import usmarray as xp

    dev = _device(xp, name)
    for fn in (lambda v, d: xp.asarray(v, dtype=d, device=dev),
               lambda v, d: xp.full((2,), v, dtype=d, device=dev)):
        begin("complex into real")
        for d in (xp.float64, xp.float32, xp.int32, xp.bool):
            with pytest.raises(TypeError):
                fn(1 + 2j, d)
        begin("float into integer out of range")
        for v, d in ((1e30, xp.int32), (-1.0e20, xp.int64), (3e9, xp.int32), (300.0, xp.uint8),
                     (-1.0, xp.uint8), (float("inf"), xp.int64)):
            with pytest.raises(OverflowError):
                fn(v, d)
        with pytest.raises(ValueError):
            fn(float("nan"), xp.int16)
        begin("in range: truncated toward zero, as NumPy")
        assert np.array_equal(xp.asnumpy(fn(-3.7, xp.int32)), np.full((), -3, np.int32)
                              if xp.asnumpy(fn(-3.7, xp.int32)).ndim == 0 else [-3, -3])
        assert xp.asnumpy(fn(2 + 0j, xp.complex64)).dtype == np.complex64


def _writability_inherited(name: str) -> None:
    import usmarray as xp

    dev = _device(xp, name)
    b = xp.broadcast_to(xp.asarray([1.0, 2.0], device=dev), (3, 2))
    for what, v in (("slice", b[1:]), ("flip", xp.flip(b)), ("permute_dims", b.mT),
                    ("expand_dims", xp.expand_dims(b, axis=0)), ("ellipsis", b[...])):
        begin(what)
        assert v.flags.writable is False, what
        with pytest.raises(ValueError):
            v[...] = 0.0


def _params():
    return [pytest.param("numpy")] + [pytest.param("sycl", marks=pytest.mark.skipif(
        not _have_sycl(), reason="needs a SYCL runtime and device"))]


@pytest.mark.parametrize("device", _params())
@pytest.mark.parametrize("check", ["_numpy_values_in_operators", "_indices_out_of_bounds",
                                   "_scalar_conversions", "_writability_inherited"])
def test_conversions(device, check):
    assert_child_ok(MOD, check, device, timeout=120)


if __name__ == "__main__":
    child_main(globals())


@needs_sycl
def test_read_only_is_inherited_by_constructor_views_and_host_exports():
    """A read-only array's memory stays read-only through usm_ndarray(buffer=x) and the
    host (kDLCPU) DLPack export (both were writable)."""
    import usmarray as xp

    b = xp.broadcast_to(xp.asarray([1.0, 2.0]), (3, 2))
    assert not b.flags.writable
    v = xp.usm_ndarray((2,), dtype="f8", buffer=b)
    assert not v.flags.writable
    with pytest.raises(ValueError):
        v[0] = 5.0
    assert xp.asnumpy(b).tolist() == [[1.0, 2.0]] * 3

    class HostExport:
        def __init__(self, x):
            self.x = x

        def __dlpack__(self, **kw):
            kw.pop("dl_device", None)
            return self.x.__dlpack__(dl_device=(1, 0), **kw)

        def __dlpack_device__(self):
            return (1, 0)

    h = np.from_dlpack(HostExport(v))
    assert not h.flags.writeable
