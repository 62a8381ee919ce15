"""The compiled form of the CUDA engine's repeated call (``_engine_calls.EngineCall``),
without a GPU: its operands are stand-ins with CuPy's attributes, its launch a recording
function in the place of ``cuLaunchKernel``.  A call it takes must launch the plan's
kernel with the bytes the Python form packs (``layout.pack_format``); every call it
does not take must reach the Python form with its arguments unchanged."""

from __future__ import annotations

import ctypes
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from usmarray import _form
from usmarray._backend._cuda import layout as L

SOURCE = Path(L.__file__).with_name("_engine_calls.pyx")
calls_module, REASON = _form.compiled_module("_backend._cuda._engine_calls", SOURCE, 3)
pytestmark = pytest.mark.skipif(calls_module is None, reason=REASON)

ALIGN = L.ALIGN_KEY
_LAUNCH = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint,
                           ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
                           ctypes.c_uint, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)


class Mem:
    """Device memory."""


class OtherMem:
    """Memory of another kind (managed, or another owner's)."""


class Data:
    def __init__(self, ptr: int, mem: Any) -> None:
        self.ptr = ptr
        self.mem = mem


class Raw:
    """A stand-in for a CuPy array: what the compiled call reads."""

    def __init__(self, shape: tuple, dtype: Any, ptr: int, mem_cls: type = Mem) -> None:
        self.shape = shape
        self.dtype = np.dtype(dtype)
        self.strides = tuple(int(s) for s in np.empty(shape, self.dtype).strides)
        self.data = Data(ptr, mem_cls())
        self.ndim = len(shape)
        self.transposed: Any = None
        self.order = "C"

    def transpose(self, axes: tuple) -> Any:
        self.transposed = axes
        return self


class Plan:
    """A stand-in for the engine's planned call (``elementwise._Call``)."""

    def __init__(self, n: int, blocks: int = 3, layout: bytes = b"",
                 inverse: Any = None, fn: Any = "kernel", f_shape: Any = None) -> None:
        self.n = n
        self.blocks = blocks
        self.mem_shape = (n,)
        self.inverse = inverse
        self.f_shape = f_shape
        self.layout = layout
        self.fn = None if fn is None else type("Fn", (), {"ptr": 0xF00D})()


class Setup:
    """One EngineCall with recording stand-ins for everything it calls."""

    def __init__(self, name: str = "add", binary: bool = True, rc: int = 0) -> None:
        self.bodies: dict = {}
        self.plans: dict = {}
        self.refused = object()
        self.stats = {"launched": 0}
        self.launches: list[dict] = []
        self.slow_calls: list[tuple] = []
        self.outs: list[Raw] = []
        self.rc = rc

        def launch(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra):  # noqa: ANN001
            first = ctypes.cast(params, ctypes.POINTER(ctypes.c_void_p))[0]
            self.launches.append({"f": f, "grid": (gx, gy, gz), "block": (bx, by, bz),
                                  "shared": shared, "stream": stream,
                                  "bytes": ctypes.string_at(first, 256)})
            return self.rc

        self._cb = _LAUNCH(launch)  # kept alive while the call may run

        def new_out(shape: tuple, d: Any, n: int, stream: int, order: str = "C") -> Raw:
            out = Raw(shape, d, 0x7000 + 256 * len(self.outs))
            out.order = order
            self.outs.append(out)
            return out

        def slow(*args: Any) -> str:
            self.slow_calls.append(args)
            return "slow"

        self.call = calls_module.EngineCall(
            name, "cuda", binary, slow, self.bodies, self.plans, self.refused, Raw,
            frozenset({Mem}), new_out, lambda: 0x5EA, ctypes.cast(self._cb, ctypes.c_void_p).value,
            L.SCALAR_CODES, self.stats, 256, ALIGN)

    def entry(self, key: tuple, scalars: list, out: Any) -> None:
        self.bodies[key] = ("z = a0;", ["a0"], [np.dtype(d) for d in scalars], np.dtype(out))

    def plan(self, sig: tuple, *arrays: Raw, plan: Plan) -> None:
        # the keys of ``ElementwiseEngine.run``: flat for one or two arrays, a tuple an
        # array for more
        key: tuple = (sig,)
        for a in arrays:
            at = (a.shape, a.strides, a.data.ptr % ALIGN)
            key += at if len(arrays) <= 2 else (at,)
        self.plans[key] = plan


def test_a_repeated_binary_call_launches_the_python_forms_bytes():
    s = Setup()
    a, b = Raw((5,), "float32", 0x1000), Raw((5,), "float32", 0x2010)
    sig = ("add", "f", "f", "cuda")
    s.entry(sig, [], "float32")
    s.plan(sig, a, b, plan=Plan(5, blocks=7))
    out = s.call(a, b)
    assert out is s.outs[0] and s.slow_calls == [] and s.stats["launched"] == 1
    (got,) = s.launches
    assert got["f"] == 0xF00D and got["grid"] == (7, 1, 1) and got["block"] == (256, 1, 1)
    assert got["stream"] == 0x5EA and got["shared"] == 0
    want = struct.pack(L.pack_format(2, []), 0x1000, 0x2010, out.data.ptr, 5)
    assert got["bytes"][: len(want)] == want


@pytest.mark.parametrize("left", [False, True])
@pytest.mark.parametrize(("value", "dtype"), [(0.1, "float32"), (1e300, "float64"),
                                               (-3, "int32"), (2**40, "int64"),
                                               (True, "bool"), (7, "uint32")])
def test_a_python_scalar_is_packed_as_struct_packs_it(left, value, dtype):
    s = Setup()
    a = Raw((3, 4), dtype, 0x3000)
    t = type(value)
    sig = ("add", t, a.dtype.char, "cuda") if left else ("add", a.dtype.char, t, "cuda")
    s.entry(sig, [dtype], dtype)
    s.plan(sig, a, plan=Plan(12))
    out = s.call(value, a) if left else s.call(a, value)
    assert s.slow_calls == [], "the compiled form handed a packable scalar to Python"
    want = struct.pack(L.pack_format(1, [np.dtype(dtype)]), 0x3000, value, out.data.ptr, 12)
    assert s.launches[0]["bytes"][: len(want)] == want


@settings(max_examples=200, deadline=None)
@given(code=st.sampled_from(["f", "d", "i", "q", "I", "Q", "l", "L", "?"]),
       value=st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                       st.integers(-2**70, 2**70), st.booleans()))
def test_every_scalar_either_packs_as_struct_does_or_goes_to_python(code, value):
    d = np.dtype(code)
    if d.kind != "f" and type(value) is float:
        return  # the namespace never hands an integer kernel a float
    s = Setup()
    a = Raw((2,), d, 0x4000)
    sig = ("add", a.dtype.char, type(value), "cuda")
    s.entry(sig, [d], d)
    s.plan(sig, a, plan=Plan(2))
    fmt = L.pack_format(1, [d])
    try:
        want = struct.pack(fmt, 0x4000, value, 0x7000, 2)
    except (struct.error, OverflowError):
        want = None
    r = s.call(a, value)
    if d.char in "bBhH" or want is None:
        assert r == "slow" and s.launches == []
    elif r == "slow":
        pytest.fail(f"{value!r} as {code}: struct packs it, the compiled form did not")
    else:
        assert s.launches[0]["bytes"][: len(want)] == want


def test_a_strided_plans_layout_follows_the_count_and_an_inverse_transposes():
    s = Setup("negative", binary=False)
    a = Raw((4, 3), "float64", 0x1008)
    sig = ("negative", "d", "cuda")
    s.entry(sig, [], "float64")
    layout = struct.pack("<4q", 4, 3, 8, 32)
    s.plan(sig, a, plan=Plan(12, layout=layout, inverse=(1, 0)))
    out = s.call(a)
    assert out.transposed == (1, 0) and s.stats["launched"] == 1
    want = struct.pack(L.pack_format(1, []), 0x1008, out.data.ptr, 12) + layout
    assert s.launches[0]["bytes"][: len(want)] == want


def test_a_result_in_f_order_is_allocated_so_and_not_transposed():
    s = Setup("negative", binary=False)
    a = Raw((4, 3), "float64", 0x1008)
    sig = ("negative", "d", "cuda")
    s.entry(sig, [], "float64")
    s.plan(sig, a, plan=Plan(12, inverse=(1, 0), f_shape=(4, 3)))
    out = s.call(a)
    assert (out.shape, out.order, out.transposed) == ((4, 3), "F", None)
    want = struct.pack(L.pack_format(1, []), 0x1008, out.data.ptr, 12)
    assert s.launches[0]["bytes"][: len(want)] == want


@pytest.mark.parametrize("case", ["no body", "refused body", "no plan", "refused plan",
                                  "not compiled", "other memory", "driver error",
                                  "complex scalar", "foreign operand", "int8 scalar"])
def test_what_the_compiled_form_does_not_take_reaches_python_unchanged(case):
    s = Setup(rc=1 if case == "driver error" else 0)
    a = Raw((5,), "int8" if case == "int8 scalar" else "float32", 0x1000,
            OtherMem if case == "other memory" else Mem)
    b: Any = Raw((5,), "float32", 0x2000)
    if case == "complex scalar":
        b = 1j
    elif case == "foreign operand":
        b = [1.0] * 5
    elif case == "int8 scalar":
        b = 3
    sig = ("add", a.dtype.char, b.dtype.char if isinstance(b, Raw) else type(b), "cuda")
    if case != "no body":
        if case == "refused body":
            s.bodies[sig] = False
        else:
            s.entry(sig, ["int8"] if case == "int8 scalar" else [], a.dtype)
    plan = Plan(5, fn=None if case == "not compiled" else "kernel")
    if case == "refused plan":
        s.plans[(sig, a.shape, a.strides, a.data.ptr % ALIGN, b.shape, b.strides,
                 b.data.ptr % ALIGN)] = s.refused
    elif case != "no plan":
        s.plan(sig, *[x for x in (a, b) if isinstance(x, Raw)], plan=plan)
    assert s.call(a, b) == "slow"
    assert s.slow_calls == [(a, b)]
    assert s.stats["launched"] == 0
    assert len(s.launches) == (1 if case == "driver error" else 0)


def test_run_takes_three_arrays_as_the_engines_key_and_pack_say():
    s = Setup("", binary=False)
    c = Raw((6,), "bool", 0x1001)
    a, b = Raw((6,), "float64", 0x2000), Raw((6,), "float64", 0x3008)
    sig = ("where", "?", "d", "d", "cuda")
    s.entry(sig, [], "float64")
    s.plan(sig, c, a, b, plan=Plan(6, blocks=2))
    out = s.call.run(sig, [c, a, b], [])
    assert out is s.outs[0] and s.slow_calls == [] and s.stats["launched"] == 1
    want = struct.pack(L.pack_format(3, []), 0x1001, 0x2000, 0x3008, out.data.ptr, 6)
    assert s.launches[0]["bytes"][: len(want)] == want
    assert s.launches[0]["grid"] == (2, 1, 1)


def test_run_packs_every_scalar_in_order():
    s = Setup("", binary=False)
    a = Raw((4,), "float32", 0x1000)
    sig = ("clip", "f", float, float, "cuda")
    s.entry(sig, ["float32", "float32"], "float32")
    s.plan(sig, a, plan=Plan(4))
    out = s.call.run(sig, [a], [-1.5, 2.25])
    assert s.slow_calls == []
    f32 = np.dtype("float32")
    want = struct.pack(L.pack_format(1, [f32, f32]), 0x1000, -1.5, 2.25, out.data.ptr, 4)
    assert s.launches[0]["bytes"][: len(want)] == want


@pytest.mark.parametrize("case", ["no body", "no plan", "scalar count", "four arrays",
                                  "no arrays", "foreign operand"])
def test_what_run_does_not_take_reaches_python_unchanged(case):
    s = Setup("", binary=False)
    arrays: list = [Raw((3,), "float32", 0x1000 + 0x100 * k) for k in range(
        4 if case == "four arrays" else 0 if case == "no arrays" else 2)]
    if case == "foreign operand":
        arrays[1] = [1.0, 2.0, 3.0]
    scalars = [1.0, 2.0] if case == "scalar count" else []
    sig = ("op", "cuda")
    if case != "no body":
        s.entry(sig, [], "float32")
    if case not in ("no plan", "foreign operand") and arrays:
        s.plan(sig, *arrays, plan=Plan(3))
    assert s.call.run(sig, arrays, scalars) == "slow"
    assert s.slow_calls == [(sig, arrays, scalars)]
    assert s.stats["launched"] == 0 and s.launches == []


class StoreSetup:
    """One ScalarStore with recording stand-ins; kernels compiled for every size."""

    def __init__(self, rc: int = 0) -> None:
        self.launches: list[dict] = []
        self.slow_calls: list[tuple] = []
        self.rc = rc

        def launch(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra):  # noqa: ANN001
            slots = ctypes.cast(params, ctypes.POINTER(ctypes.c_void_p))
            self.launches.append({"f": f, "grid": (gx, gy, gz), "block": (bx, by, bz),
                                  "stream": stream,
                                  "args": [ctypes.string_at(slots[i], 8) for i in range(2)]})
            return self.rc

        self._cb = _LAUNCH(launch)

        def slow(*args: Any) -> str:
            self.slow_calls.append(args)
            return "slow"

        self.kernels: dict = {n: type("Fn", (), {"ptr": 0xE000 + n})() for n in (1, 2, 4, 8)}
        f64 = np.dtype("float64")
        self.kernels[(f64, np.dtype("float32"))] = type("Fn", (), {"ptr": 0xC0B4})()
        self.store = calls_module.ScalarStore(
            slow, self.kernels, Raw, frozenset({Mem}), lambda: 0x5EA,
            ctypes.cast(self._cb, ctypes.c_void_p).value, L.SCALAR_CODES)


@pytest.mark.parametrize(("shape", "key"), [((5,), 3), ((5,), -1), ((4, 6), (2, 5)),
                                            ((4, 6), (-4, 0)), ((), ())])
def test_a_store_writes_the_elements_address_and_the_values_bits(shape, key):
    s = StoreSetup()
    a = Raw(shape, "float64", 0x10000)
    assert s.store(a, key, 2.5) is True and s.slow_calls == []
    (got,) = s.launches
    keys = key if isinstance(key, tuple) else (key,)
    want = 0x10000 + 8 * int(np.ravel_multi_index(keys, shape, mode="wrap")) if shape else 0x10000
    assert got["args"][0] == struct.pack("<Q", want)
    assert got["args"][1] == struct.pack("<d", 2.5)
    assert got["f"] == 0xE008 and got["grid"] == (1, 1, 1) and got["block"] == (1, 1, 1)
    assert got["stream"] == 0x5EA


@settings(max_examples=300, deadline=None)
@given(dtype=st.sampled_from(["float32", "float64", "int32", "int64", "uint32", "uint64",
                              "bool", "int8", "uint16"]),
       value=st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                       st.integers(-2**70, 2**70), st.booleans()))
def test_a_stored_value_has_numpys_bits_or_goes_to_python(dtype, value):
    d = np.dtype(dtype)
    if (d.kind != "f" and type(value) is float) or (d.kind == "b" and type(value) is not bool):
        return  # the namespace hands the store neither
    try:
        with np.errstate(over="ignore"):
            want = np.asarray(value, dtype=d).tobytes().ljust(8, b"\0")
    except (OverflowError, ValueError):
        want = None
    s = StoreSetup()
    r = s.store(Raw((3,), d, 0x2000), 1, value)
    if r == "slow":
        assert s.launches == [] and s.slow_calls
        assert d.itemsize < 4 or want is None or (d.char == "f" and np.isinf(
            np.frombuffer(want[:4], d)[0]) and not np.isinf(value)), (
            f"{value!r} into {dtype}: NumPy converts it, the compiled store did not")
    else:
        assert want is not None and s.launches[0]["args"][1] == want


@pytest.mark.parametrize("case", ["float key", "out of range", "too few keys", "slice key",
                                  "other memory", "no kernel", "complex value",
                                  "array value", "driver error", "foreign array"])
def test_what_the_store_does_not_take_reaches_python_unchanged(case):
    s = StoreSetup(rc=1 if case == "driver error" else 0)
    a: Any = Raw((4, 4), "float32", 0x3000, OtherMem if case == "other memory" else Mem)
    key: Any = {"float key": (1.0, 2), "out of range": (4, 0), "too few keys": 1,
                "slice key": (slice(0, 2), 1)}.get(case, (1, 2))
    value: Any = {"complex value": 1j, "array value": Raw((), "float32", 0x9000)}.get(case, 1.5)
    if case == "no kernel":
        del s.kernels[4]
    if case == "foreign array":
        a = np.zeros((4, 4), np.float32)
    assert s.store(a, key, value) == "slow"
    assert s.slow_calls == [(a, key, value)]
    assert len(s.launches) == (1 if case == "driver error" else 0)


def test_a_0d_arrays_element_is_copied_by_the_dtype_pairs_kernel():
    s = StoreSetup()
    a = Raw((4, 4), "float64", 0x20000)
    v = Raw((), "float32", 0x9100)
    assert s.store(a, (2, 1), v) is True and s.slow_calls == []
    (got,) = s.launches
    assert got["f"] == 0xC0B4
    assert got["args"] == [struct.pack("<Q", 0x20000 + 8 * 9), struct.pack("<Q", 0x9100)]


@pytest.mark.parametrize("case", ["1-D value", "other memory", "no kernel for the pair"])
def test_a_0d_value_the_store_does_not_take_reaches_python(case):
    s = StoreSetup()
    a = Raw((4,), "float64", 0x20000)
    v = Raw((1,) if case == "1-D value" else (), "float64" if case == "no kernel for the pair"
            else "float32", 0x9100, OtherMem if case == "other memory" else Mem)
    assert s.store(a, 1, v) == "slow" and s.launches == []
