"""Where usmarray works around its providers: argmax/argmin's NaN search, the index
bounds checks of take/take_along_axis/setitem, the 2-norm and the layout copies kept
for the SYCL provider, with the same results and errors as NumPy."""

import math

import numpy as np
import pytest

import usmarray as xp
from usmarray import _backend

DEVICES = ["numpy"] + (["cpu"] if _backend.sycl is not None else [])
sycl_only = pytest.mark.skipif(_backend.sycl is None, reason="needs a SYCL device")


def _nan_cases(rng):
    """(float array with none, one, several or only NaNs; a view function that works
    on NumPy and usmarray arrays alike): C order and two strided views."""
    for shape in [(1,), (17,), (4097,), (33, 65), (5, 7, 9)]:
        for k in (0, 1, 3, -1):
            a = rng.standard_normal(shape).astype(np.float32)
            flat = a.reshape(-1)
            if k == -1:
                flat[:] = np.nan
            elif k:
                flat[rng.integers(0, flat.size, size=k)] = np.nan
            yield a, lambda b: b
            if a.ndim > 1:
                rev = tuple(range(a.ndim))[::-1]
                yield a, lambda b, rev=rev: (np if isinstance(b, np.ndarray) else xp).permute_dims(b, rev)
                yield a, lambda b: b[..., ::2]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fname", ["argmax", "argmin"])
def test_arg_extremum_takes_the_first_nan_as_numpy(device, fname):
    rng = np.random.default_rng(31)
    for base, view in _nan_cases(rng):
        a, x = view(base), view(xp.asarray(base, device=device))
        for ax in [None, *range(a.ndim), -1]:
            for keep in (False, True):
                got = xp.asnumpy(getattr(xp, fname)(x, axis=ax, keepdims=keep))
                want = getattr(np, fname)(a, axis=ax, keepdims=keep)
                assert got.shape == want.shape
                np.testing.assert_array_equal(got, want, err_msg=f"{a.shape} axis={ax}")


@sycl_only
@pytest.mark.parametrize("fname", ["argmax", "argmin"])
def test_sycl_provider_picks_a_nan_wherever_one_is_present(fname):
    # The SYCL backend's ``nan_argmax`` rests on this: the provider's arg-reduction lands
    # on some NaN (not always the first, hence the namespace's fix-up) whenever one is
    # present.  If a provider update breaks it, this fails before results go wrong.
    be = _backend.sycl
    assert be.nan_argmax and not be.first_nan_argmax
    pt = be.provider
    q = xp.Device.create_device("cpu").sycl_queue
    rng = np.random.default_rng(7)
    for _ in range(40):
        a = rng.standard_normal((int(rng.integers(1, 40)), int(rng.integers(1, 3000))))
        a = a.astype(np.float32)
        a[rng.random(a.shape) < rng.choice([1e-4, 1e-2, 0.3])] = np.nan
        d = pt.asarray(a, sycl_queue=q)
        for ax in (None, 0, 1):
            r = pt.asnumpy(getattr(pt, fname)(d, axis=ax))
            if ax is None:
                assert np.isnan(a.reshape(-1)[r]) == np.isnan(a).any()
            else:
                picked = np.take_along_axis(a, np.expand_dims(r, ax), ax).squeeze(ax)
                assert (np.isnan(picked) == np.isnan(a).any(axis=ax)).all()


# ---- bounds checks: one kernel pass (SYCL) or the backend's own check (NumPy) ------------
def _bad(i, n):
    """The index a check before the call names: the largest >= n, else the smallest < -n."""
    hi, lo = int(i.max()), int(i.min())
    return hi if hi >= n else (lo if lo < -n else None)


TAKE_DTYPES = ["bool", "int8", "uint16", "int32", "uint64", "float32", "float64",
               "complex64", "complex128"]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", TAKE_DTYPES)
def test_take_values_and_errors_as_numpy(device, dtype):
    rng = np.random.default_rng(5)
    a = (rng.standard_normal((6, 7, 5)) * 10).astype(dtype)
    x = xp.asarray(a, device=device)
    for axis in (0, 1, 2, -1):
        n = a.shape[axis]
        for idt in ("int8", "int16", "int32", "int64", "uint8"):
            lo = 0 if idt == "uint8" else -n
            i = rng.integers(lo, n, size=40).astype(idt)
            got = xp.take(x, xp.asarray(i, device=device), axis=axis)
            want = np.take(a, i, axis=axis)
            assert got.dtype == x.dtype and xp.asnumpy(got).tobytes() == want.tobytes()
        # a strided index view, and every index outside [-n, n) on either side
        i = rng.integers(-n, n, size=80)
        iv = xp.asarray(i, device=device)[::3]
        np.testing.assert_array_equal(xp.asnumpy(xp.take(x, iv, axis=axis)),
                                      np.take(a, i[::3], axis=axis))
        for bad in ([0, n], [-n - 1, 1], [n + 5, -n - 9, n], [-n - 2, -n - 7]):
            b = np.array(bad)
            msg = f"take: index {_bad(b, n)} is out of bounds for axis {axis % 3} with size {n}"
            with pytest.raises(IndexError, match=msg):
                xp.take(x, xp.asarray(b, device=device), axis=axis)


@sycl_only
def test_sycl_take_kernel_keeps_the_usm_type_and_takes_views():
    pt = _backend.sycl.provider
    for usm in ("device", "shared", "host"):
        x = xp.asarray(np.arange(12.0).reshape(3, 4), device="cpu", usm_type=usm)
        i = xp.asarray([2, -1], device="cpu", usm_type="device")
        got = xp.take(x, i, axis=1)
        ref = pt.take(x._arr, i._arr, axis=1, mode="wrap")
        assert got.usm_type == ref.usm_type
        np.testing.assert_array_equal(xp.asnumpy(got), pt.asnumpy(ref))
    # an offset, non-contiguous source: the kernel declines, the provider gathers
    base = xp.asarray(np.arange(60.0).reshape(6, 10), device="cpu")
    np.testing.assert_array_equal(
        xp.asnumpy(xp.take(base[1:, ::2], xp.asarray([4, 0, -5], device="cpu"), axis=1)),
        np.take(np.arange(60.0).reshape(6, 10)[1:, ::2], [4, 0, -5], axis=1))
    v = base[2:]  # C-contiguous with an element offset: the kernel reads from it
    assert v._arr.flags.c_contiguous and v._arr._element_offset == 20
    np.testing.assert_array_equal(
        xp.asnumpy(xp.take(v, xp.asarray([3, -1], device="cpu"), axis=0)),
        np.arange(60.0).reshape(6, 10)[2:][[3, -1]])


@sycl_only
@pytest.mark.parametrize("idt", ["int8", "int16", "int32", "int64"])
def test_sycl_index_range_kernel_against_numpy(idt):
    be = _backend.sycl
    rng = np.random.default_rng(11)
    n = 100
    for shape in [(50000,), (300, 200), (40, 30, 50), (6, 7, 8, 9)]:
        h = rng.integers(-n, n, size=shape).astype(idt)
        views = [lambda b: b, lambda b: b[..., ::2], lambda b: b[::-1],
                 lambda b: (np if isinstance(b, np.ndarray) else _backend.sycl.provider)
                 .broadcast_to(b[:1], (3,) + b.shape[1:])]
        for view in views:
            for k, v in [(None, None), (0, n), (-1, -n - 1), (len(h.reshape(-1)) // 2, n + 3)]:
                hh = h.copy()
                if k is not None:
                    hh.reshape(-1)[k] = v
                d = xp.asarray(hh, device="cpu")._arr
                want = view(hh)
                got = be.index_out_of_range(view(d), n)
                assert got == bool(((want < -n) | (want >= n)).any()), (shape, k)
    # past four dimensions that do not merge, the kernel declines (None)
    h = xp.asarray(np.zeros((6,) * 5, np.int64), device="cpu")._arr[::2, ::2, ::2, ::2, ::2]
    assert be.index_out_of_range(h, 5) is None


@sycl_only
def test_sycl_nan_at_kernel_against_numpy():
    be = _backend.sycl
    rng = np.random.default_rng(3)
    for dtype in ("float32", "float64"):
        a = rng.standard_normal((20, 30, 40)).astype(dtype)
        a[rng.random(a.shape) < 0.002] = np.nan
        a[0, 0, :] = np.inf  # infinities are not NaN
        d = xp.asarray(a, device="cpu")._arr
        for ax in range(3):
            pick = rng.integers(0, a.shape[ax], size=a.shape[:ax] + a.shape[ax + 1:])
            p = xp.asarray(pick, device="cpu")._arr
            want = np.isnan(np.take_along_axis(a, np.expand_dims(pick, ax), ax)).any()
            assert be.nan_at(d, ax, p) == bool(want)
            assert be.nan_at(d, ax, _backend.sycl.provider.expand_dims(p, axis=ax)) == bool(want)


@pytest.mark.parametrize("device", DEVICES)
def test_take_along_axis_and_setitem_errors_as_before(device):
    a = np.arange(24.0).reshape(4, 6)
    x = xp.asarray(a, device=device)
    i = np.array([[0, 5], [-6, 1], [2, 3], [1, 1]])
    np.testing.assert_array_equal(
        xp.asnumpy(xp.take_along_axis(x, xp.asarray(i, device=device), axis=1)),
        np.take_along_axis(a, i, 1))
    for bad, named in [(6, 6), (-7, -7)]:
        j = i.copy()
        j[2, 1] = bad
        with pytest.raises(IndexError, match=f"take_along_axis: index {named} is out of "
                                             "bounds for axis 1 with size 6"):
            xp.take_along_axis(x, xp.asarray(j, device=device), axis=1)
    # setitem: the error names the index, the target is untouched, and a bad index
    # wins over a bad value (dtype, read-only target) as the check before the write did
    big = np.arange(40000, dtype=np.int64) % 9  # past the host-copy size of the check
    for idx in (np.array([0, 3, 9, 1]), np.where(big == 8, 9, big), np.array([-10, 2])):
        t = xp.asarray(np.arange(9.0), device=device)
        named = _bad(idx, 9)
        msg = f"integer array index {named} is out of bounds for axis 0 with size 9"
        with pytest.raises(IndexError, match=msg):
            t[xp.asarray(idx, device=device)] = 1.0
        with pytest.raises(IndexError, match=msg):
            t[xp.asarray(idx, device=device)] = xp.ones(idx.shape, dtype=xp.complex64,
                                                       device=device)
        with pytest.raises(IndexError, match=msg.replace("axis 0", "axis 1")):
            xp.broadcast_to(t, (2, 9))[:, xp.asarray(idx, device=device)] = 1.0
        with pytest.raises(IndexError, match=msg):
            t[xp.asarray(idx, device=device)]
        assert xp.asnumpy(t).tolist() == list(np.arange(9.0))
    # index arrays that broadcast to nothing are still checked (NumPy would not)
    t = xp.asarray(a, device=device)
    e = xp.asarray(np.zeros(0, np.int64), device=device)
    with pytest.raises(IndexError, match="index 9 is out of bounds for axis 0 with size 4"):
        t[xp.asarray([9], device=device), e]
    with pytest.raises(IndexError, match="index 9 is out of bounds for axis 0 with size 4"):
        t[xp.asarray([9], device=device), e] = 1.0


# ---- the 2-norm: NumPy's plain sum of squares where it is safe, scaled elsewhere --------
def _hypot_rows(a):
    """math.hypot of each row (overflow- and underflow-safe, correctly rounded-ish)."""
    return np.array([math.hypot(*map(abs, map(complex, r))) if np.iscomplexobj(r)
                     else math.hypot(*map(float, r)) for r in a])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
def test_vector_norm_safe_and_accurate(device, dtype):
    rng = np.random.default_rng(2)
    fi = np.finfo(dtype)
    rows = rng.standard_normal((12, 9)).astype(dtype)
    big, small = np.sqrt(fi.max) * 4, np.sqrt(fi.tiny) / 64
    rows[1] *= big  # its squares overflow
    rows[2] *= small  # its squares underflow into subnormals
    rows[3] = 0
    rows[4, :2] = fi.smallest_subnormal
    rows[4, 2:] = 0
    rows[5, 3] = np.inf
    rows[6, 4] = np.nan
    rows[7, 0] = fi.max  # one element at the top of the range
    got = xp.asnumpy(xp.linalg.vector_norm(xp.asarray(rows, device=device), axis=1))
    want = _hypot_rows(rows).astype(got.dtype)  # rounded to the result's precision
    assert np.isnan(got[6]) and np.isinf(got[5])
    keep = [k for k in range(12) if k not in (5, 6)]
    tol = {"rtol": 4 * fi.eps, "atol": fi.smallest_subnormal}
    np.testing.assert_allclose(got[keep], want[keep], **tol)
    # the same rows as a Frobenius norm of 3x3 matrices
    m = xp.asarray(rows[keep].reshape(-1, 3, 3), device=device)
    np.testing.assert_allclose(xp.asnumpy(xp.linalg.matrix_norm(m)), want[keep], **tol)


# ---- per-call paths: the same answers through the shorter ways ---------------------------
@pytest.mark.parametrize("fname", ["any", "all"])
def test_numpy_backend_any_all_as_numpy(fname):
    be = _backend.numpy
    cases = [np.array([0.0, np.nan]), np.zeros(0, bool), np.zeros((2, 0)),
             np.array([[1, 0], [1, 1]], np.int8), np.array(3.0), np.array([1 + 0j, 0j]),
             np.random.default_rng(0).random((3, 4, 5)) > 0.3]
    for a in cases:
        for ax in [None, *range(a.ndim)] + ([(0, -1)] if a.ndim > 1 else []):
            for keep in (False, True):
                got = getattr(be, fname)(a, axis=ax, keepdims=keep)
                want = np.asarray(getattr(np, fname)(a, axis=ax, keepdims=keep))
                assert type(got) is np.ndarray and got.dtype == want.dtype
                assert got.shape == want.shape and np.array_equal(got, want)


def test_device_strings_are_cached_until_a_backend_is_registered():
    from tests.toy_backend import ToyBackend

    a, b = ToyBackend(), ToyBackend()
    xp.register_backend("toy", a)
    d1 = xp.Device.create_device("toy")
    assert d1._be is a and xp.Device.create_device("toy") is d1
    xp.register_backend("toy", b)  # the same name, another backend: no stale hit
    d2 = xp.Device.create_device("toy")
    assert d2._be is b and d2 != d1
    assert xp.Device.create_device("numpy") == xp.asarray(1, device="numpy").device


# ---- the SYCL layout copies, audited -----------------------------------------------
# a correct child exits in seconds once its kernels are cached; a hung one is a misread
_PROVIDER_CHILD_LIMIT_S = 180

_PROVIDER_ROLL = """
import sys, numpy as np, usmarray as xp
pt = xp._backend.sycl.provider
q = xp.Device.create_device("cpu").sycl_queue
b = np.arange({size}, dtype=np.float32).reshape({bshape})
v = ({view})(pt, pt.asarray(b, sycl_queue=q))
got = pt.asnumpy(pt.roll(v, 3))  # the provider's flattened roll, no copy first
sys.exit(0 if np.array_equal(got, np.roll(({view})(np, b), 3)) else 3)
"""


@sycl_only
@pytest.mark.parametrize("size,bshape,view", [
    (90, (5, 18), "lambda m, b: b[:, ::3]"),  # stepped on the last axis: a segfault
    (20, (1, 4, 5), "lambda m, b: m.broadcast_to(b, (3, 4, 5))"),  # heap corruption
])
def test_sycl_flat_roll_copy_is_still_needed(size, bshape, view):
    # the provider's axis=None roll misreads these layouts (a crash, a hang after the heap
    # is corrupted, or wrong values, in a child process); when this fails, the provider is
    # fixed and the copy can go
    import subprocess
    import sys

    code = _PROVIDER_ROLL.format(size=size, bshape=bshape, view=view)
    try:
        r = subprocess.run([sys.executable, "-c", code], capture_output=True,
                           timeout=_PROVIDER_CHILD_LIMIT_S)
        misread = r.returncode != 0
    except subprocess.TimeoutExpired:
        misread = True  # a corrupted heap can deadlock the child instead of crashing it
    assert misread, "the provider's flattened roll now reads this layout"
    # usmarray copies first and gets NumPy's values
    b = np.arange(size, dtype=np.float32).reshape(bshape)
    make = eval(view)
    got = xp.roll(make(xp, xp.asarray(b, device="cpu")), 3)
    np.testing.assert_array_equal(xp.asnumpy(got), np.roll(make(np, b), 3))


@sycl_only
def test_sycl_where_copy_is_still_needed_for_negative_strides_only(monkeypatch):
    pt = _backend.sycl.provider
    q = xp.Device.create_device("cpu").sycl_queue
    rng = np.random.default_rng(0)
    a = rng.standard_normal((7, 8)).astype(np.float32)
    c = rng.random((7, 8)) > 0.5
    d, dc = pt.asarray(a, sycl_queue=q), pt.asarray(c, sycl_queue=q)
    # the provider itself, no copy: flipped condition and operand beside a 0-d view
    got = pt.asnumpy(pt.where(dc[::-1], d[::-1], d[1, 2]))
    assert not np.array_equal(got, np.where(c[::-1], a[::-1], a[1, 2])), \
        "the provider's where now reads negative strides: the copy can go"
    x, xc = xp.asarray(a, device="cpu"), xp.asarray(c, device="cpu")
    np.testing.assert_array_equal(xp.asnumpy(xp.where(xc[::-1], x[::-1], x[1, 2])),
                                  np.where(c[::-1], a[::-1], a[1, 2]))
    # no copy for the layouts the provider reads: stepped, transposed, broadcast
    copies = []
    real = pt.copy
    monkeypatch.setattr(pt, "copy", lambda *a, **k: copies.append(1) or real(*a, **k))
    xf = xp.permute_dims(xp.asarray(np.ascontiguousarray(a.T), device="cpu"), (1, 0))
    cases = [(xc[:, ::2], x[:, ::2], xf[:, 1::2]),
             (xp.broadcast_to(xc[:1], (7, 8)), x.mT.mT, xp.broadcast_to(x[:, :1], (7, 8)))]
    for cc, v1, v2 in cases:
        want = np.where(xp.asnumpy(cc), xp.asnumpy(v1), xp.asnumpy(v2))
        copies.clear()
        got = xp.where(cc, v1, v2)
        assert not copies
        np.testing.assert_array_equal(xp.asnumpy(got), want)
    # the per-axis roll copies nothing either
    bc = xp.broadcast_to(xp.reshape(x[0], (1, 1, 8)), (3, 4, 8))
    copies.clear()
    got = xp.roll(bc, (2, -3), axis=(1, 2))
    assert not copies
    np.testing.assert_array_equal(
        xp.asnumpy(got), np.roll(np.broadcast_to(a[0], (3, 4, 8)), (2, -3), axis=(1, 2)))


@pytest.mark.parametrize("device", DEVICES)
def test_unsigned_keys_are_still_checked_before_the_call(device):
    # NumPy reads a uint64 index of 2**64 - 1 as -1; the check before the call refuses it
    x = xp.arange(5, dtype=xp.int32, device=device)
    key = xp.asarray([2**64 - 1], dtype=xp.uint64, device=device)
    with pytest.raises(IndexError, match="index 18446744073709551615 is out of bounds"):
        x[key]
    with pytest.raises(IndexError, match="index 18446744073709551615 is out of bounds"):
        x[key] = 1
    assert xp.asnumpy(x).tolist() == [0, 1, 2, 3, 4]
