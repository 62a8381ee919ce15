"""The namespace's elementwise functions through the kernel factory on the SYCL OpenCL
CPU device (usmarray.kernels._direct): every function of the dispatch table, on every
real dtype it takes, gives the provider's kernel's result bit for bit on special
values (NaN, signed zeros, infinities, integer extremes), with array and Python-scalar
operands; layouts and dtypes outside the fast path run on the provider; a signature
compiles only after COMPILE_AFTER calls; errors are the namespace's."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import usmarray as xp
from usmarray import _backend
from usmarray._elementwise import BINARY, UNARY
from usmarray._special_cases import FIXUPS
from usmarray.kernels import _direct, _kernel

pytestmark = pytest.mark.skipif(_backend.sycl is None or not _backend.sycl.available(),
                                reason="needs dpctl and a SYCL device")
DEVICE = "opencl:cpu"
TABLE = sorted(_direct.LIMITS["sycl"])

_FLOAT_SPECIALS = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 1e-40, -1e-40, 1e30, -1e30,
                   np.inf, -np.inf, np.nan, -np.nan, 0.1, 7.0, 1e300, -1e-310, 2.0, -0.5]


def _values(dtype: np.dtype, n: int, seed: int) -> np.ndarray:
    """``n`` values of ``dtype``: the dtype's special values first, then random ones."""
    rng = np.random.default_rng(seed)
    if dtype.kind == "b":
        return rng.random(n) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        special = np.array([0, 1, 2, 3, info.max, info.min, info.max - 1, info.min + 1]
                           + ([-1, -2, -7] if dtype.kind == "i" else []), dtype=object)
        rand = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        out = rand.copy()
        k = min(n, len(special))
        out[:k] = np.array(list(special[:k]), dtype=dtype)
        return out
    with np.errstate(over="ignore"):
        special = np.array(_FLOAT_SPECIALS, dtype=np.float64).astype(dtype)
    rand = rng.standard_normal(n).astype(dtype) * dtype.type(4)
    rand[: len(special)] = special[:n]
    return rng.permutation(rand)


def _dtypes_for(name: str) -> list[str]:
    cats = {**UNARY, **BINARY}[name][0]
    names = ["bool", "int8", "uint8", "int16", "int32", "int64", "uint64", "float32",
             "float64"]
    return [n for n in names if np.dtype(n) in cats]


def _bits(a: xp.usm_ndarray) -> np.ndarray:
    h = xp.asnumpy(a)
    if h.dtype.kind == "f":  # any NaN equals any NaN (the payload is not specified)
        h = np.where(np.isnan(h), np.nan, h)
    return h.view(np.uint8)


def _has_fixup(name: str, dtype: np.dtype) -> bool:
    fx = FIXUPS.get("sycl")
    if fx is None:
        return False
    table = fx[0] if name in UNARY else fx[1]
    return name in table and dtype in table[name][0]


def _wrap(be, raw):
    from usmarray._array import wrap_with

    return wrap_with(be, raw)


def _through_factory(fn, *args):
    """``fn(*args)`` called until its signature runs through the factory; the result of
    that call and whether it went through the factory."""
    for _ in range(_direct.COMPILE_AFTER):
        fn(*args)
    before = _direct.stats["launched"]
    r = fn(*args)
    return r, _direct.stats["launched"] > before


def _powers(name: str, values: np.ndarray) -> np.ndarray:
    """``values`` as an operand of ``name`` that may be an exponent: integer ``pow`` takes
    no negative exponents (the namespace raises ValueError before any kernel runs)."""
    if name == "pow" and values.dtype.kind == "i":
        return np.where(values < 0, values.dtype.type(0), values)
    return values


@pytest.mark.parametrize("name", TABLE)
def test_every_table_function_matches_the_provider_bit_for_bit(name):
    fn = getattr(xp, name)
    ran = 0
    for dname in _dtypes_for(name):
        d = np.dtype(dname)
        x = xp.asarray(_values(d, 64, 1), device=DEVICE)
        args = (x,) if name in UNARY else (
            x, xp.asarray(_powers(name, _values(d, 64, 2)), device=DEVICE))
        r, direct = _through_factory(fn, *args)
        ref = _wrap(x._be, getattr(x._be, name)(*(a._arr for a in args)))
        if _has_fixup(name, d):
            assert not direct, f"{name} {dname} has a fix-up and must run on the provider"
            continue
        assert r.dtype == ref.dtype and r.shape == ref.shape
        assert r.device == ref.device
        np.testing.assert_array_equal(_bits(r), _bits(ref), err_msg=f"{name} {dname}")
        ran += direct
    assert ran, f"{name}: no dtype went through the factory"


SCALARS = {"f": [0.0, -0.0, 2.5, -1.5, np.inf, -np.inf, np.nan, 1e300, 0.1],
           "i": [0, 1, -1, 7, -128, 127], "u": [0, 1, 7, 255], "b": [True, False]}


@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
@pytest.mark.parametrize("name,dname", [
    (n, dn) for n in sorted(n for n in TABLE if n in BINARY)
    for dn in ("int8", "uint8", "int64", "float32", "float64", "bool")
    if np.dtype(dn) in BINARY[n][0]])  # the dtypes each function takes
def test_python_scalar_operands_match_the_provider(name, dname):
    d = np.dtype(dname)
    fn = getattr(xp, name)
    x = xp.asarray(_powers(name, _values(d, 32, 3)), device=DEVICE)
    be = x._be
    ran = 0
    for s in SCALARS[d.kind]:
        for args in ((x, s), (s, x)):
            if name == "pow" and d.kind == "i" and args[1] is s and s < 0:
                continue  # integers to negative integer powers: the namespace's ValueError
            r, direct = _through_factory(fn, *args)
            ran += direct
            raw = [a._arr if type(a) is xp.usm_ndarray else a for a in args]
            ref = _wrap(be, getattr(be, name)(*raw))
            assert r.dtype == ref.dtype
            np.testing.assert_array_equal(_bits(r), _bits(ref),
                                          err_msg=f"{name} {dname} {args[0]!r} {args[1]!r}")
    refused = any(v is False and k[0] == name and d in k for k, v in _direct._entries.items())
    assert ran or _has_fixup(name, d) or (refused and name == "pow" and d.kind in "iu"), (
        f"{name} {dname}: no scalar call went through the factory")


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from([n for n in TABLE if n in BINARY]),
       d1=st.sampled_from(["int8", "int16", "int32", "uint8", "uint16", "float32", "float64",
                           "bool"]),
       d2=st.sampled_from(["int8", "int16", "int32", "uint8", "uint16", "float32", "float64",
                           "bool"]),
       n=st.integers(1, 40), seed=st.integers(0, 2**16))
def test_mixed_dtypes_and_sizes_match_the_provider(name, d1, d2, n, seed):
    """Random operand dtypes (promotion included) and sizes: the namespace's result
    through the factory equals the provider's kernel, or both raise the same error."""
    x = xp.asarray(_values(np.dtype(d1), n, seed), device=DEVICE)
    y = xp.asarray(_values(np.dtype(d2), n, seed + 1), device=DEVICE)
    assume(np.dtype(d1).kind == np.dtype(d2).kind or {d1, d2} <= {"int8", "int16", "int32",
                                                               "uint8", "uint16"})
    fn = getattr(xp, name)
    try:
        fn(x, y)
    except TypeError:  # no promotion or a dtype outside the function's category: the
        return         # namespace refuses it before any kernel runs
    except ValueError:  # integers to negative integer powers, refused alike
        assert name == "pow"
        return
    r, _ = _through_factory(fn, x, y)
    ref = _wrap(x._be, getattr(x._be, name)(x._arr, y._arr))
    if _has_fixup(name, r._arr.dtype):
        return
    assert r.dtype == ref.dtype
    np.testing.assert_array_equal(_bits(r), _bits(ref))


def test_other_layouts_and_dtypes_run_on_the_provider():
    x = xp.asarray(np.arange(40, dtype=np.float32), device=DEVICE)
    cases = [
        (x[::2], x[1::2]),                       # strided
        (xp.reshape(x, (4, 10)), x[:10]),         # broadcast
        (xp.reshape(x, (4, 10)).mT, xp.reshape(x, (10, 4))),  # not C-contiguous
        (xp.astype(x, xp.complex64), xp.astype(x, xp.complex64)),  # complex
        (x, 3),                                  # an int scalar with a float array
    ]
    for a, b in cases:
        for _ in range(_direct.COMPILE_AFTER + 2):
            before = _direct.stats["launched"]
            r = xp.add(a, b)
            assert _direct.stats["launched"] == before, (a.shape, b)
        ha = xp.asnumpy(a)
        hb = xp.asnumpy(b) if type(b) is xp.usm_ndarray else b
        np.testing.assert_array_equal(xp.asnumpy(r), ha + hb)


def test_views_with_offsets_and_zero_d_arrays_go_through_the_factory():
    h = np.arange(50, dtype=np.float64)
    x = xp.asarray(h, device=DEVICE)
    r, direct = _through_factory(xp.multiply, x[7:30], x[20:43])
    assert direct
    np.testing.assert_array_equal(xp.asnumpy(r), h[7:30] * h[20:43])
    s = xp.asarray(2.5, device=DEVICE)
    r, direct = _through_factory(xp.subtract, s, s)
    assert direct and r.shape == () and float(r) == 0.0


def test_a_signature_compiles_only_after_compile_after_calls():
    x = xp.asarray(np.arange(10, dtype=np.int16), device=DEVICE)
    y = xp.asarray(np.arange(10, dtype=np.uint8), device=DEVICE)
    key = ("bitwise_xor", np.dtype("int16"), np.dtype("uint8"), x._be.queue_of(x._arr))
    _direct._entries.pop(key, None)
    compiled = _kernel.stats["compiled"]
    for _ in range(_direct.COMPILE_AFTER):
        xp.bitwise_xor(x, y)
    assert _kernel.stats["compiled"] == compiled
    r, direct = _through_factory(xp.bitwise_xor, x, y)
    assert direct and r.dtype == xp.int16
    np.testing.assert_array_equal(xp.asnumpy(r), np.arange(10, dtype=np.int16) ^
                                  np.arange(10, dtype=np.uint8))


def test_the_result_usm_type_is_coerced_as_the_provider_does():
    be = _backend.sycl
    q = be.native_queue(DEVICE)
    a = be.from_host(np.arange(8.0), "shared", q)
    b = be.from_host(np.arange(8.0), "device", q)
    c = be.from_host(np.arange(8.0), "host", q)
    for u, v in ((a, b), (a, c), (b, c), (c, c)):
        xu, xv = _wrap(be, u), _wrap(be, v)
        r, direct = _through_factory(xp.add, xu, xv)
        assert direct
        assert r._arr.usm_type == be.add(u, v).usm_type


def test_errors_are_the_namespaces():
    x = xp.asarray(np.arange(6, dtype=np.float32), device=DEVICE)
    y = xp.asarray(np.arange(4, dtype=np.float32), device=DEVICE)
    for _ in range(_direct.COMPILE_AFTER + 1):
        xp.add(x, x)
    with pytest.raises(ValueError):
        xp.add(x, y)
    with pytest.raises(TypeError):
        xp.add(x, xp.asarray(np.arange(6, dtype=np.int32), device=DEVICE))
    with pytest.raises(TypeError):
        xp.bitwise_and(x, x)
    i8 = xp.asarray(np.arange(6, dtype=np.int8), device=DEVICE)
    with pytest.raises(OverflowError):
        xp.add(i8, 1000)


def test_repeated_kernel_calls_repack_their_scalars():
    from usmarray.kernels import kernel

    h = np.linspace(-3, 3, 17).astype(np.float32)
    x = xp.asarray(h, device=DEVICE)
    k = kernel("float32[:] x, float32[:] y, float32 s, int8 t", "y(i0) = x(i0) * s + t;",
               shape="y")
    y = xp.empty(17, dtype=xp.float32, device=DEVICE)
    for s, t in ((2.0, 1), (3.0, -7), (-1.0, 127), (0.5, -128)):
        k(x, y, s, t)
        np.testing.assert_array_equal(xp.asnumpy(y), h * np.float32(s) + np.float32(t))


def test_launches_without_dpctls_c_interface(monkeypatch):
    """Where dpctl's C library cannot be used, kernels launch through SyclQueue.submit
    and the namespace's functions run on the provider (no flat launcher)."""
    from usmarray._backend._sycl import program
    from usmarray.kernels import elementwise, kernel

    monkeypatch.setattr(program, "_CAPI", None)
    h = np.linspace(-3, 3, 33)
    x = xp.asarray(h, device=DEVICE)
    ew = elementwise("float64[] a, float64 s -> float64[] z", "z = a * s - 0.25")
    np.testing.assert_array_equal(xp.asnumpy(ew(x, 2.0)), h * 2.0 - 0.25)
    k = kernel("float64[:] x, float64[:] y, float64 s", "y(i0) = x(i0) * s + 0.5;",
               shape="y")
    y = xp.empty(33, dtype=xp.float64, device=DEVICE)
    for s in (2.0, 3.0, -1.0):  # repeated calls re-pack only the scalar
        k(x, y, s)
        np.testing.assert_array_equal(xp.asnumpy(y), h * s + 0.5)
    key = ("hypot", np.dtype("float64"), np.dtype("float64"), x._be.queue_of(x._arr))
    _direct._entries.pop(key, None)
    before = _direct.stats["launched"]
    for _ in range(_direct.COMPILE_AFTER + 2):
        r = xp.hypot(x, x)
    assert _direct.stats["launched"] == before
    np.testing.assert_allclose(xp.asnumpy(r), np.hypot(h, h))
    _direct._entries.pop(key, None)


class _EngineStub:
    """A backend with an elementwise engine that records its calls (``refuse``: the
    engine gives None, as for a layout its loops do not take)."""

    name = "engine-stub"
    kernel_family = "cuda"
    elementwise_engine = True
    lock = None

    def __init__(self, refuse: bool = False) -> None:
        self.refuse = refuse
        self.calls: list[tuple] = []

    def elementwise(self, key, body, names, arrays, consts, out):
        self.calls.append((key, arrays, consts, out))
        return None if self.refuse else ("ran", key)


def test_engine_calls_name_their_operands_by_dtype_and_scalar_type() -> None:
    """The engine's key holds each array's dtype code and each Python scalar's type in
    call order, scalars travel as kernel arguments of the generator's dtype, and a call
    the generator or the engine refuses comes back as None (the backend's kernel then
    runs), for the namespace's calls of every size and the compiled core's small ones."""
    be = _EngineStub()
    x = np.zeros(5, np.float32)
    f32 = np.dtype(np.float32)
    assert _direct.binary(be, "add", 0, x, x, f32, f32) == ("ran", ("add", "f", "f", "cuda"))
    assert be.calls[-1][1:] == ([x, x], [], f32)
    assert _direct.binary(be, "subtract", 0, x, 2.0, f32, None)[1] == (
        "subtract", "f", float, "cuda")
    assert be.calls[-1][1] == [x] and be.calls[-1][2] == [(2.0, f32)]
    assert _direct.binary(be, "subtract", 0, 3, x, None, f32)[1] == (
        "subtract", int, "f", "cuda")
    assert be.calls[-1][1] == [x] and be.calls[-1][2][0][0] == 3
    assert _direct.binary(be, "less", 0, x, x, f32, f32)[1] == ("less", "f", "f", "cuda")
    assert be.calls[-1][3] == np.dtype(bool)
    assert _direct.unary(be, "sin", 0, x, f32) == ("ran", ("sin", "f", "cuda"))
    n = len(be.calls)
    z = np.zeros(5, np.complex64)
    c64 = np.dtype(np.complex64)
    assert _direct.binary(be, "add", 0, z, 1j, c64, None) is None  # complex: not generated
    assert _direct.binary(be, "add", 0, z, z, c64, c64) is None
    assert len(be.calls) == n
    refusing = _EngineStub(refuse=True)
    launched = _direct.stats["launched"]
    assert _direct.binary(refusing, "add", 0, x, x, f32, f32) is None
    small = _direct.engine_kernel(refusing, "add", lambda a, b: "kernel", True)
    assert small(x, x) == "kernel" and small(x, 1j) == "kernel"
    assert _direct.engine_kernel(be, "sin", lambda a: "kernel", False)(x)[0] == "ran"
    assert _direct.stats["launched"] == launched + 1
