"""Read-only memory and exports: ``x.flags.writable = False`` works as in
NumPy on every backend, and the DLPack export of a read-only array and ``__dlpack__``'s
argument checks follow one rule on every backend.

Each check runs in a child interpreter (tests/test_reliability_common.py) on the SYCL
device, the NumPy backend and, with the ``gpu`` marker, CUDA (skipped without CuPy and
a GPU).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_reliability_common import assert_child_ok, begin, child_main, device_params

MOD = "test_reliability_readonly"


def _devices(with_numpy: bool = True):
    return device_params(*(["numpy"] if with_numpy else []), "opencl:cpu", "cuda:0")


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


# ---- 8., 9. DLPack exports: one rule and one set of errors on every backend ------------------
class _Legacy:
    """A producer that hands out ``arr``'s export with fixed arguments, whatever the
    consumer asks (as a consumer of DLPack < 1.0 would receive it)."""

    def __init__(self, arr, **kw):
        self.arr, self.kw = arr, kw

    def __dlpack__(self, **_ignored):
        return self.arr.__dlpack__(**self.kw)

    def __dlpack_device__(self):
        dev = self.kw.get("dl_device")
        return dev if dev is not None else self.arr.__dlpack_device__()


def _versioned_flags(cap) -> int:
    import ctypes as C

    from test_reliability_common import DLManagedTensorVersioned

    get = C.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = C.c_void_p, (C.py_object, C.c_char_p)
    return int(DLManagedTensorVersioned.from_address(get(cap, b"dltensor_versioned")).flags)


def _read_only_sources(xp, device):
    src = np.arange(6.0).reshape(2, 3)
    b = xp.broadcast_to(xp.asarray(src[0], device=device), (2, 3))
    x = xp.asarray(src, device=device)
    x.flags.writable = False
    return [("a broadcast view", b, np.broadcast_to(src[0], (2, 3))),
            ("flags.writable = False", x, src), ("a view of it", x[:, ::-2], src[:, ::-2])]


def _dlpack_read_only(device):
    import usmarray as xp

    for what, a, want in _read_only_sources(xp, device):
        before = xp.asnumpy(a).copy()
        own = tuple(int(v) for v in a.__dlpack_device__())
        for kw in ({}, {"max_version": (0, 8)}, {"copy": None}, {"copy": True}):
            begin(f"{what}: legacy export {kw} on its device gives a copy")
            r = xp.from_dlpack(_Legacy(a, **kw), device=a.device)
            np.testing.assert_array_equal(xp.asnumpy(r), want)
            if r.flags.writable:
                r[...] = -1.0
            np.testing.assert_array_equal(xp.asnumpy(a), before)
            begin(f"{what}: legacy export {kw} to the host gives a copy")
            h = np.from_dlpack(_Legacy(a, dl_device=(1, 0), **kw))
            np.testing.assert_array_equal(h, want)
            if h.flags.writeable:
                h[...] = -2.0
            np.testing.assert_array_equal(xp.asnumpy(a), before)
        for dev in (None, (1, 0), own):
            begin(f"{what}: legacy export with copy=False to {dev} is refused")
            try:
                a.__dlpack__(copy=False, dl_device=dev)
            except BufferError as exc:
                assert "read-only" in str(exc), str(exc)
            else:
                raise AssertionError(f"{what}: a zero-copy legacy capsule of a read-only array")
            begin(f"{what}: DLPack 1.0 export to {dev} carries the read-only flag")
            assert _versioned_flags(a.__dlpack__(max_version=(1, 0), dl_device=dev)) & 1
        begin(f"{what}: a writable array still exports zero-copy")
        w = xp.asarray(np.array(want), device=device)
        r = xp.from_dlpack(_Legacy(w, copy=False), device=w.device)
        r[0, 0] = 42.0
        assert float(w[0, 0]) == 42.0


def _dlpack_arguments(device):
    import usmarray as xp

    x = xp.asarray(np.arange(3.0), device=device)
    own = tuple(int(v) for v in x.__dlpack_device__())
    bad = [
        ({"copy": "yes"}, TypeError), ({"copy": 1}, TypeError), ({"copy": 0}, TypeError),
        ({"dl_device": (1,)}, ValueError), ({"dl_device": (1, 0, 0)}, ValueError),
        ({"dl_device": [1, 0]}, TypeError), ({"dl_device": ("1", 0)}, TypeError),
        ({"dl_device": (1.0, 0)}, TypeError), ({"dl_device": 1}, TypeError),
        ({"max_version": (1,)}, ValueError), ({"max_version": "1.0"}, TypeError),
        ({"dl_device": (1, 5)}, BufferError), ({"dl_device": (99, 0)}, BufferError),
        ({"dl_device": (own[0], own[1] + 7)}, BufferError),
    ]
    if own[0] != 14:
        bad.append(({"dl_device": (14, 0)}, BufferError))
    for kw, exc in bad:
        begin(f"__dlpack__({kw}) -> {exc.__name__}")
        try:
            x.__dlpack__(**kw)
        except exc as e:
            assert "__dlpack__" in str(e), str(e)
        except Exception as e:  # noqa: BLE001 - the wrong type is the failure
            raise AssertionError(f"{kw}: {type(e).__name__} {e}, not {exc.__name__}") from None
        else:
            raise AssertionError(f"{kw}: accepted")
    for kw in ({}, {"dl_device": own}, {"dl_device": (1, 0)}, {"copy": True},
               {"max_version": (1, 0), "dl_device": (1, 0), "copy": False if own == (1, 0)
                else None}):
        begin(f"__dlpack__({kw}) is accepted")
        dev = kw.get("dl_device")
        if dev == (1, 0) or own == (1, 0):
            np.testing.assert_array_equal(np.from_dlpack(_Legacy(x, **kw)), np.arange(3.0))
        else:
            x.__dlpack__(**kw)


@pytest.mark.parametrize("device", _devices())
def test_dlpack_export_of_read_only_arrays_is_one_rule(device):
    assert_child_ok(MOD, "_dlpack_read_only", device, timeout=120)


@pytest.mark.parametrize("device", _devices())
def test_dlpack_arguments_get_the_standards_errors(device):
    assert_child_ok(MOD, "_dlpack_arguments", device, timeout=120)


if __name__ == "__main__":
    child_main(globals())
