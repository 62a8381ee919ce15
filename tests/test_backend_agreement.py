"""One answer on every backend (NumPy, SYCL ``opencl:cpu``, and ``cuda:0`` where a GPU
exists) for what the backends' own kernels answer differently:

* creation functions check their Python int arguments against the dtype in the
  namespace: every value of an integer ``arange`` must fit its dtype (OverflowError, where
  NumPy wraps around), its length is the exact ``ceil((stop - start) / step)``; ints past
  the float64 range, ``eye``'s and ``tril``/``triu``'s ``k`` of any size;
* integers to negative integer powers are a ValueError (NumPy's rule), for scalar and
  array exponents, ``pow``, ``**``, ``**=`` and the reflected form;
* complex64 ``pow`` near float32's overflow: a part that fits float32 is finite (NumPy's
  result), whatever the provider's intermediate ``|x1| ** x2`` does;
* integer ``floor_divide`` and ``remainder`` by zero are 0 and the lowest signed integer
  floor-divided by -1 is itself, with no warning from a backend's internals;
* the SYCL direct path (``usmarray.kernels._direct``) gives the provider's bits, NaN
  signs and payloads included, on every special value, from its first call on.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from test_reliability_common import device_params

import usmarray as xp

DEVICES = device_params("numpy", "opencl:cpu", "cuda:0")
INTEGER = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]
SIGNED = [d for d in INTEGER if not d.startswith("u")]


def _host(x: xp.usm_ndarray) -> np.ndarray:
    return xp.asnumpy(x)


# ---- creation: Python ints against the dtype ---------------------------------------------
#: (arange arguments, dtype name or None for the default) whose values all fit
ARANGE_FITS = [
    ((0, 256), "uint8"),                       # stop past the dtype: not a value
    ((255, -1, -1), "uint8"),                  # a negative step of an unsigned dtype
    ((200, -1, -100), "uint8"),
    ((0, 256, 200), "uint8"),                  # a step past int8's range, two values
    ((-128, 128), "int8"),
    ((127, -129, -1), "int8"),
    ((-100, 101, 200), "int8"),
    ((0, 10, 2**70), "int8"),                  # one value, a step past every dtype
    ((3_800_000_000, 0), "int32"),             # empty: the start is no value
    ((-2**31, 2**31, 2**32 - 1), "int32"),     # the step only fits uint32
    ((0, 2**31, 2**30), "int32"),
    ((2**63 - 3, 2**63 - 1), "int64"),
    ((-2**63, -2**63 + 3), "int64"),
    ((-2**63, 2**63, 2**64 - 1), "int64"),
    ((0, 2**60 + 1, 2**59), "int64"),          # a float length division says 2
    ((0, 2**60 + 1, 2**59), None),
    ((2**64 - 3, 2**64), "uint64"),
    ((2**64 - 1, -1, -(2**62)), "uint64"),
    ((2**64 - 1, 0, -(2**63)), "uint64"),
    ((2**64 - 1, 0, -(2**64 - 2)), "uint64"),
    ((0, 2**64 - 1, 2**64 - 2), "uint64"),
    ((5, 17, 3), "uint16"),
]
#: (arange arguments, dtype name or None) with a value outside the dtype
ARANGE_OVERFLOWS = [
    ((3_800_000_000, 3_800_000_010), "int32"),  # the start
    ((0, 3_800_000_010, 100_000_000), "int32"),  # later values: NumPy wraps them
    ((-2**31 - 1, -2**31 + 3), "int32"),
    ((250, 260), "uint8"),
    ((0, -3, -1), "uint8"),
    ((100, 200, 50), "int8"),
    ((2**63 - 2, 2**63 + 1), "int64"),
    ((2**63, 2**63 + 2), None),                # the default dtype is int64
    ((2**64 - 2, 2**64 + 2), "uint64"),
    ((-1, 3), "uint32"),
]


def _standard_arange(start: int, stop: int | None = None, step: int = 1) -> list[int]:
    """The standard's values: ``start + i * step`` for ``i < ceil((stop - start) / step)``,
    exactly (Python's ``range``)."""
    return list(range(0, start) if stop is None else range(start, stop, step))


@pytest.mark.parametrize("device", DEVICES)
def test_arange_gives_every_value_that_fits_exactly(device):
    for args, dname in ARANGE_FITS:
        kw = {} if dname is None else {"dtype": getattr(xp, dname)}
        d = np.dtype(dname or "int64")
        r = xp.arange(*args, device=device, **kw)
        want = np.array(_standard_arange(*args), dtype=d)
        assert r.dtype == getattr(xp, d.name) and r.shape == want.shape, (args, dname, r.shape)
        np.testing.assert_array_equal(_host(r), want, err_msg=f"arange{args} {dname}")
        if max(map(abs, args)) < 2**31:  # where NumPy's float length is exact, its values
            np.testing.assert_array_equal(_host(r), np.arange(*args, dtype=d))


@pytest.mark.parametrize("device", DEVICES)
def test_arange_refuses_a_value_outside_its_integer_dtype(device):
    for args, dname in ARANGE_OVERFLOWS:
        kw = {} if dname is None else {"dtype": getattr(xp, dname)}
        with pytest.raises(OverflowError, match=r"arange: .* does not fit"):
            xp.arange(*args, device=device, **kw)


@pytest.mark.parametrize("device", DEVICES)
def test_creation_functions_check_python_int_arguments(device):
    big = 2**1100  # past float64
    x = xp.ones((2, 3), dtype=xp.int32, device=device)
    h = np.ones((2, 3), dtype=np.int32)
    for make in (lambda: xp.full(3, 2**40, dtype=xp.int32, device=device),
                 lambda: xp.full_like(xp.zeros(2, dtype=xp.int8, device=device), 300),
                 lambda: xp.asarray(2**40, dtype=xp.int32, device=device),
                 lambda: xp.asarray([1, 2**40], dtype=xp.int32, device=device),
                 lambda: xp.asarray([[1], [-1]], dtype=xp.uint8, device=device),
                 lambda: xp.full(2, big, device=device),
                 lambda: xp.full_like(xp.ones(2, device=device), big),
                 lambda: xp.linspace(0, big, 3, device=device),
                 lambda: xp.linspace(-big, 0, 3, dtype=xp.float32, device=device),
                 lambda: xp.arange(big, big + 1, dtype=xp.float64, device=device),
                 lambda: xp.arange(0, big, 0.5, device=device)):
        with pytest.raises(OverflowError):
            make()
    with pytest.raises(ValueError, match="non-negative"):
        xp.eye(2, -3, device=device)
    with pytest.raises(ValueError, match="non-negative"):
        xp.eye(-1, device=device)
    # a diagonal past the matrix, by any Python int: NumPy's result for the nearest one
    for k in (2**70, -2**70, 2**63, -2**63, 4, -3):
        near = max(-2, min(k, 3))
        np.testing.assert_array_equal(_host(xp.eye(2, 3, k=k, device=device)),
                                      np.eye(2, 3, k=near))
        np.testing.assert_array_equal(_host(xp.tril(x, k=k)), np.tril(h, k=near))
        np.testing.assert_array_equal(_host(xp.triu(x, k=k)), np.triu(h, k=near))
    # ints into a floating dtype: the float they stand for, as NumPy converts them
    np.testing.assert_array_equal(_host(xp.arange(0, 2**60 + 1, 2**59, dtype=xp.float64,
                                                  device=device)),
                                  np.array([0.0, 2.0**59, 2.0**60]))
    np.testing.assert_array_equal(_host(xp.linspace(0, 2**62, 5, device=device)),
                                  np.linspace(0.0, 2.0**62, 5))
    np.testing.assert_array_equal(_host(xp.full(2, 2**62 + 1, dtype=xp.float64,
                                                device=device)),
                                  np.full(2, 2**62 + 1, dtype=np.float64))


# ---- complex64 powers near overflow ---------------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
def test_complex64_powers_near_overflow_keep_the_parts_that_fit(device):
    a = np.array([2.5, 2.5, 3.0, 1 + 1j, 0], dtype=np.complex64)
    b = np.array([97 + 2j, 96.5 - 1j, 80 + 0.5j, 2 - 1j, 1 + 1j], dtype=np.complex64)
    with np.errstate(all="ignore"):
        want = np.power(a, b)
        exact = np.power(a.astype(np.complex128), b.astype(np.complex128))
    got = _host(xp.pow(xp.asarray(a, device=device), xp.asarray(b, device=device)))
    for part in (np.real, np.imag):
        g, w = part(got), part(want)
        assert np.array_equal(np.isinf(g), np.isinf(w)), (device, got, want)
        fin = np.isfinite(w)
        np.testing.assert_allclose(g[fin], part(exact)[fin].astype(np.float32), rtol=1e-5)


# ---- integer powers ------------------------------------------------------------------------
def _numpy_refuses(base: np.ndarray, exponent) -> None:
    with pytest.raises(ValueError, match="negative integer powers"):
        np.power(base, exponent)


@pytest.mark.parametrize("device", DEVICES)
def test_integers_to_negative_integer_powers_are_a_value_error(device):
    for dname in SIGNED + ["uint8", "uint64"]:
        d = np.dtype(dname)
        hb = np.array([1, 2, 3, 0], dtype=d)
        base = xp.asarray(hb, device=device)
        for e in (-1, -2, np.int64(-3)):
            if d.kind == "u":  # a negative Python int does not fit: NumPy's error
                if type(e) is int:
                    with pytest.raises(OverflowError):
                        np.power(hb, e)
                with pytest.raises(OverflowError):
                    base ** e  # noqa: B018
                continue
            _numpy_refuses(hb, e)
            with pytest.raises(ValueError, match="negative integer powers"):
                xp.pow(base, e)
            with pytest.raises(ValueError, match="negative integer powers"):
                base ** e  # noqa: B018
            y = xp.asarray(hb, device=device)
            with pytest.raises(ValueError, match="negative integer powers"):
                y **= e
            np.testing.assert_array_equal(_host(y), hb)  # nothing written
        for ename in SIGNED:
            try:  # pairs the standard promotes (NumPy promotes them alike)
                xp.result_type(getattr(xp, dname), getattr(xp, ename))
            except TypeError:
                continue
            he = np.array([2, 0, -1, 1], dtype=ename)
            expo = xp.asarray(he, device=device)
            _numpy_refuses(hb, he)
            with pytest.raises(ValueError, match=r"negative integer powers .*exponent -1"):
                xp.pow(base, expo)
            with pytest.raises(ValueError, match="negative integer powers"):
                base ** expo  # noqa: B018
            with pytest.raises(ValueError, match="negative integer powers"):
                2 ** expo  # noqa: B018  (__rpow__)
            # non-negative exponents: NumPy's values
            ok = np.abs(he.astype(np.int64)).astype(ename)
            got = xp.pow(base, xp.asarray(ok, device=device))
            np.testing.assert_array_equal(_host(got), np.power(hb, ok))
            np.testing.assert_array_equal(_host(2 ** xp.asarray(ok, device=device)),
                                          np.power(np.array(2, dtype=ename), ok))


@pytest.mark.parametrize("device", DEVICES)
def test_negative_exponents_of_large_and_broadcast_arrays(device):
    """An exponent array past the host-copy size, a broadcast one, and floating powers
    (never refused)."""
    n = (1 << 14) + 5
    he = np.zeros(n, dtype=np.int32)
    he[-1] = -1
    base = xp.ones(n, dtype=xp.int32, device=device)
    with pytest.raises(ValueError, match="exponent -1"):
        xp.pow(base, xp.asarray(he, device=device))
    he[-1] = 3
    np.testing.assert_array_equal(_host(xp.pow(base, xp.asarray(he, device=device))),
                                  np.power(np.ones(n, np.int32), he))
    row = xp.broadcast_to(xp.asarray([1, -2], dtype=xp.int16, device=device), (3, 2))
    with pytest.raises(ValueError, match="exponent -2"):
        xp.pow(xp.ones((3, 2), dtype=xp.int16, device=device), row)
    f = xp.asarray([1.0, 2.0, 4.0], device=device)
    np.testing.assert_array_equal(_host(f ** -1), np.array([1.0, 2.0, 4.0]) ** -1)
    with pytest.raises(ValueError, match="broadcast"):  # the shape error comes first
        xp.pow(xp.ones(3, dtype=xp.int8, device=device),
               xp.asarray([-1, 1], dtype=xp.int8, device=device))


# ---- integer division and remainder by zero ------------------------------------------------
def _numpy_quiet(fn, a, b):
    with np.errstate(all="ignore"):
        return fn(a, b)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dname", INTEGER)
def test_integer_division_by_zero_is_numpys_value_without_a_warning(device, dname):
    """floor_divide and remainder by 0 are 0 (NumPy's values), as functions, operators,
    reflected and in-place operators, with array and Python int divisors; no backend
    warns (warnings are errors here)."""
    d = np.dtype(dname)
    info = np.iinfo(d)
    ha = np.array([0, 1, 7, info.max, info.min, info.min + 1] +
                  ([-1, -7] if d.kind == "i" else [5, 9]), dtype=d)
    hb = np.array([0, 0, 3, 0, 0, -1 if d.kind == "i" else 1, 2, 0], dtype=d)
    zero, seven = d.type(0), d.type(7)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a, b = xp.asarray(ha, device=device), xp.asarray(hb, device=device)
        y, z = xp.asarray(ha, device=device), xp.asarray(ha, device=device)
        y //= 0
        z %= b
        checks = [
            (xp.floor_divide(a, b), np.floor_divide, ha, hb),
            (a // b, np.floor_divide, ha, hb),
            (a // 0, np.floor_divide, ha, zero),
            (7 // b, np.floor_divide, seven, hb),
            (y, np.floor_divide, ha, zero),
            (xp.remainder(a, b), np.remainder, ha, hb),
            (a % b, np.remainder, ha, hb),
            (a % 0, np.remainder, ha, zero),
            (7 % b, np.remainder, seven, hb),
            (z, np.remainder, ha, hb),
        ]
        for k, (got, npfn, h1, h2) in enumerate(checks):
            assert got.dtype == getattr(xp, dname)
            np.testing.assert_array_equal(_host(got), _numpy_quiet(npfn, h1, h2),
                                          err_msg=f"case {k}: {npfn.__name__} {dname}")


@pytest.mark.parametrize("device", DEVICES)
def test_lowest_signed_integer_over_minus_one_wraps_to_itself(device):
    """``INT_MIN // -1`` is INT_MIN (NumPy's value: the quotient wraps, as every integer
    overflow does) and ``INT_MIN % -1`` is 0, for arrays and scalars, on every backend."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for dname in SIGNED:
            d = np.dtype(dname)
            lo = int(np.iinfo(d).min)
            ha = np.array([lo, lo, -1, lo + 1], dtype=d)
            hb = np.array([-1, 1, -1, -1], dtype=d)
            a, b = xp.asarray(ha, device=device), xp.asarray(hb, device=device)
            for got, want in (
                    (a // b, _numpy_quiet(np.floor_divide, ha, hb)),
                    (a % b, _numpy_quiet(np.remainder, ha, hb)),
                    (a // -1, _numpy_quiet(np.floor_divide, ha, d.type(-1))),
                    (a % -1, _numpy_quiet(np.remainder, ha, d.type(-1))),
                    (lo // b, _numpy_quiet(np.floor_divide, d.type(lo), hb)),
                    (lo % b, _numpy_quiet(np.remainder, d.type(lo), hb))):
                np.testing.assert_array_equal(_host(got), want, err_msg=dname)
            assert int(_host(a // -1)[0]) == lo and int(_host(a % -1)[0]) == 0


# ---- the SYCL direct path: the provider's bits -------------------------------------------
def _float_specials(d: np.dtype) -> np.ndarray:
    """Signed zeros, infinities, NaNs of both signs (quiet, signaling, with payloads),
    domain edges and extremes of float dtype ``d``."""
    fi = np.finfo(d)
    u = np.dtype(f"uint{8 * d.itemsize}")
    one = d.type(1)
    edges = [np.nextafter(one, d.type(2)), np.nextafter(one, d.type(0)),
             fi.smallest_subnormal, fi.tiny, fi.max]
    values = [0.0, 1.0, 2.0, 0.5, 1.5, 3.0, 0.1, 10.0, 88.5, 89.5, 709.5, 710.5, 1e30,
              math.pi / 2, math.inf]
    with np.errstate(over="ignore"):
        fin = np.array(values, dtype=np.float64).astype(d)
    fin = np.concatenate([fin, np.array(edges, dtype=d)])
    exp = ((1 << fi.nexp) - 1) << fi.nmant
    quiet, sign = 1 << (fi.nmant - 1), 1 << (8 * d.itemsize - 1)
    nans = np.array([exp | quiet, exp | quiet | 7, exp | 3, exp | quiet | (quiet >> 3)],
                    dtype=u)
    nans = np.concatenate([nans, nans | u.type(sign)]).view(d)
    return np.concatenate([fin, -fin, nans])


def _bits(h: np.ndarray) -> np.ndarray:
    return h.view(np.dtype(f"uint{8 * h.dtype.itemsize}"))


def _same_bits(got: np.ndarray, want: np.ndarray, both_nan: np.ndarray | None, what: str):
    """Bit-equal, except that where both operands are NaN a floating result may carry
    either one's bits (IEEE 754 leaves it open), but must be a NaN."""
    diff = _bits(got) != _bits(want)
    if both_nan is not None and want.dtype.kind == "f":
        assert np.isnan(got[both_nan]).all(), what
        diff &= ~both_nan
    bad = np.nonzero(diff)[0]
    assert not bad.size, (f"{what}: {bad.size} elements differ, first at {bad[0]}: "
                          f"{_bits(got)[bad[0]]:#x} against the provider's "
                          f"{_bits(want)[bad[0]]:#x}")


_sycl = device_params("opencl:cpu")


@pytest.mark.parametrize("device", _sycl)
def test_direct_path_gives_the_providers_bits_from_the_first_call(device):
    """Every function of the direct path's table (and acos, which it leaves to the
    provider), float32 and float64, on special values: arrays, every pair of them, and
    Python float operands on either side; each of the first calls (on the provider) and
    the later ones (through the factory) has the provider kernel's bits."""
    from usmarray._array import wrap_with
    from usmarray._elementwise import BINARY, UNARY
    from usmarray.kernels import _direct

    table = sorted(set(_direct.LIMITS["sycl"]) | {"acos"})
    scalars = [0.0, -0.0, 1.0, -1.0, 2.0, 0.5, math.inf, -math.inf, math.nan, -math.nan]
    launched = _direct.stats["launched"]
    signatures = []  # the table's signatures: each must run through the factory
    for name in table:
        fn = getattr(xp, name)
        cat = {**UNARY, **BINARY}[name][0]
        for dname in ("float32", "float64"):
            d = np.dtype(dname)
            if d not in cat:
                continue
            h = _float_specials(d)
            x = xp.asarray(h, device=device)
            be = x._be
            q = be.queue_of(x._arr)
            if name in _direct.LIMITS["sycl"]:
                signatures += [(name, d, q)] if name in UNARY else [
                    (name, d, d, q), (name, d, float, q), (name, float, d, q)]
            if name in UNARY:
                cases = [((x,), (h,))]
            else:
                n = h.size
                h1, h2 = np.repeat(h, n), np.tile(h, n)
                cases = [((xp.asarray(h1, device=device), xp.asarray(h2, device=device)),
                          (h1, h2))]
                cases += [((x, s), (h, s)) for s in scalars]
                cases += [((s, x), (s, h)) for s in scalars]
            for args, hosts in cases:
                raw = [a._arr if type(a) is xp.usm_ndarray else a for a in args]
                want = _host(wrap_with(be, getattr(be, name)(*raw)))
                nans = [np.isnan(v) for v in hosts]
                both = nans[0] & nans[1] if len(nans) == 2 else None
                for call in range(_direct.COMPILE_AFTER + 2):
                    _same_bits(_host(fn(*args)), want, both,
                               f"{name} {dname} call {call + 1} "
                               f"{[type(a).__name__ if hasattr(a, 'shape') else a for a in args]}")
    assert _direct.stats["launched"] > launched  # the factory ran
    refused = [k[:-1] for k in signatures if _direct._entries.get(k) is False]
    assert not refused, f"signatures left to the provider (their bits differ): {refused}"


@pytest.mark.parametrize("device", _sycl)
def test_direct_path_refuses_a_kernel_whose_bits_differ(device, monkeypatch):
    """A signature whose factory kernel differs from the provider's on a special value
    (here: the kernel of ``positive`` for ``negative``, which differs in every sign) runs
    on the provider from its compilation on."""
    from usmarray.kernels import _direct

    build = _direct._build

    def wrong(name, operands, out_dtype, family):
        return build("positive" if name == "negative" else name, operands, out_dtype, family)

    monkeypatch.setattr(_direct, "_build", wrong)
    h = np.linspace(-2, 2, 9, dtype=np.float32)
    x = xp.asarray(h, device=device)
    key = ("negative", np.dtype("float32"), x._be.queue_of(x._arr))
    _direct._entries.pop(key, None)
    try:
        launched = _direct.stats["launched"]
        for _ in range(_direct.COMPILE_AFTER + 3):
            np.testing.assert_array_equal(_host(xp.negative(x)), -h)
        assert _direct.stats["launched"] == launched
        assert _direct._entries[key] is False
    finally:
        _direct._entries.pop(key, None)


@pytest.mark.parametrize("device", _sycl)
def test_fused_sign_and_acos_keep_the_providers_nan_bits(device):
    """The emitter serves ``usmarray.fuse`` too: a fused ``sign`` gives every NaN the
    provider's NaN, and a function with ``acos`` runs unfused on SYCL (its NaNs differ
    from OpenCL's ``acos``); both give the provider's bits on every call."""
    from usmarray._array import wrap_with

    for dname in ("float32", "float64"):
        h = _float_specials(np.dtype(dname))
        x = xp.asarray(h, device=device)
        be = x._be
        for name, fused_runs in (("sign", True), ("acos", False)):
            f = xp.fuse(getattr(xp, name))
            want = _host(wrap_with(be, getattr(be, name)(x._arr)))
            for call in range(3):
                _same_bits(_host(f(x)), want, None, f"fused {name} {dname} call {call + 1}")
            assert (f.stats["fused"] > 0) == fused_runs, (name, f.stats)
