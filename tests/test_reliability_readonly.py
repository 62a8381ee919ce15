"""Read-only memory and exports (issue 26): ``x.flags.writable = False`` works as in
NumPy on every backend, and the DLPack export of a read-only array and ``__dlpack__``'s
argument checks follow one rule on every backend.

Each check runs in a child interpreter (tests/test_reliability_common.py) on the SYCL
device, the NumPy backend and, with the ``gpu`` marker, CUDA (skipped without CuPy and
a GPU).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_reliability_common import _have_cuda, _have_sycl, assert_child_ok, begin, child_main

MOD = "test_reliability_readonly"


def _devices(with_numpy: bool = True):
    out = []
    if with_numpy:
        out.append(pytest.param("numpy"))
    out.append(pytest.param("opencl:cpu", marks=[] if _have_sycl() else [
        pytest.mark.skip(reason="needs a SYCL runtime and device")]))
    out.append(pytest.param("cuda:0", marks=[pytest.mark.gpu] + ([] if _have_cuda() else [
        pytest.mark.skip(reason="needs CuPy and a CUDA GPU")])))
    return out


def _refused(what: str, fn, exc=ValueError) -> None:
    try:
        fn()
    except exc:
        return
    raise AssertionError(f"{what}: no {exc.__name__}")


# ---- 7. flags.writable is settable, never ignored ---------------------------------------------
WRITES = [
    ("x[0, 0] = v", lambda a: a.__setitem__((0, 0), 9.0)),
    ("x[...] = v", lambda a: a.__setitem__(..., 1.0)),
    ("x += v", lambda a: a.__iadd__(1.0)),
]
VIEWS = [
    ("x[0]", lambda xp, a: a[0]), ("x.mT", lambda xp, a: a.mT), ("flip", lambda xp, a: xp.flip(a)),
    ("x[:, ::2]", lambda xp, a: a[:, ::2]),
    ("expand_dims", lambda xp, a: xp.expand_dims(a, axis=0)),
]


def _writable_flag(device):
    import usmarray as xp

    a_np = np.arange(6.0).reshape(2, 3)
    setters = {
        "flags.writable": lambda f, v: setattr(f, "writable", v),
        "flags.writeable": lambda f, v: setattr(f, "writeable", v),
        'flags["W"]': lambda f, v: f.__setitem__("W", v),
    }
    for name, put in setters.items():
        begin(f"{name} = False")
        x = xp.asarray(a_np, device=device)
        earlier = x[0]                    # made before: keeps its own flag, as in NumPy
        put(x.flags, False)
        ref = a_np.copy()
        ref_earlier = ref[0]
        ref.flags.writeable = False
        assert x.flags.writable is ref.flags.writeable is False
        assert x.flags["W"] is False and x.flags.writeable is False
        assert earlier.flags.writable is ref_earlier.flags.writeable is True

        for what, write in WRITES:
            begin(f"{name}: {what} on a read-only array")
            _refused(what, lambda w=write, a=x: w(a))
            np.testing.assert_array_equal(xp.asnumpy(x), a_np)
        for what, view in VIEWS:
            begin(f"{name}: a view made afterwards ({what}) is read-only")
            v = view(xp, x)
            assert v.flags.writable is False, what
            _refused(f"write through {what}", lambda v=v: v.__setitem__(..., 5.0))
        np.testing.assert_array_equal(xp.asnumpy(x), a_np)
        begin(f"{name}: a view made before stays writable")
        earlier[0] = 7.0
        assert float(x[0, 0]) == 7.0
        begin(f"{name} = True undoes it")
        put(x.flags, True)
        assert x.flags.writable is True
        x[0, 1] = 8.0
        assert xp.asnumpy(x)[0, 1] == 8.0
    begin("a broadcast view cannot be made writable")
    b = xp.broadcast_to(xp.asarray(a_np[0], device=device), (2, 3))
    _refused("broadcast view writable = True", lambda: setattr(b.flags, "writable", True))
    assert b.flags.writable is False
    begin("a view of an array made read-only cannot be made writable itself")
    x = xp.asarray(a_np, device=device)
    x.flags.writable = False
    v = x[1:]
    _refused("view writable = True", lambda: setattr(v.flags, "writable", True))
    begin("other flags and values are refused")
    f = x.flags
    _refused("c_contiguous = False", lambda: setattr(f, "c_contiguous", False), AttributeError)
    _refused('flags["C"] = False', lambda: f.__setitem__("C", False), AttributeError)
    _refused('flags["X"]', lambda: f.__setitem__("X", False), KeyError)
    _refused('writable = "no"', lambda: setattr(f, "writable", "no"), TypeError)
    _refused("writable = 2", lambda: setattr(f, "writable", 2), TypeError)
    begin("0-d arrays")
    s = xp.asarray(3.0, device=device)
    s.flags.writable = False
    _refused("0-d write", lambda: s.__setitem__((), 1.0))
    s.flags.writable = True
    s[()] = 4.0
    assert float(s) == 4.0


def _writable_flag_kernels(device):
    import usmarray as xp
    from usmarray.kernels import elementwise, kernel

    begin("a kernel that writes an array made read-only is refused")
    x = xp.zeros(4, dtype=xp.float32, device=device)
    x.flags.writable = False
    k = kernel("float32[:] y", "y(i0) = 1;", shape="y")
    _refused("kernel writes read-only", lambda: k(x))
    e = elementwise("float32[] a -> float32[] z", "z = a + 1")
    _refused("elementwise out= read-only", lambda: e(xp.ones(4, dtype=xp.float32,
                                                             device=device), out=x))
    assert not xp.asnumpy(x).any()


@pytest.mark.parametrize("device", _devices())
def test_flags_writable_is_settable_as_in_numpy(device):
    assert_child_ok(MOD, "_writable_flag", device, timeout=120)


@pytest.mark.parametrize("device", _devices(with_numpy=False))
def test_kernels_refuse_arrays_made_read_only(device):
    assert_child_ok(MOD, "_writable_flag_kernels", device, timeout=120)


if __name__ == "__main__":
    child_main(globals())
