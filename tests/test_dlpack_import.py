"""``from_dlpack`` through usmarray's own capsule reader (usmarray/_dlpack_import.py).

Sound capsules from NumPy, dpnp.tensor, PyTorch and crafted producers (versioned and
legacy, read-only, negative strides, empty, 0-D, every standard dtype) import with
the producer's values, zero-copy where the standard asks for it, and release the
producer's tensor exactly once.  Flawed capsules are in tests/test_reliability_views.py,
where each runs in a child interpreter.
"""

from __future__ import annotations

import gc

import numpy as np
import pytest
from test_reliability_common import KDL_CPU, KDL_ONEAPI, Producer, dl_dtype, make_capsule

import usmarray as xp

SYCL = xp.__array_namespace_info__().default_device()
HOST = xp.Device.create_device("numpy")
needs_sycl = pytest.mark.skipif(SYCL.backend != "sycl", reason="no SYCL device in this environment")
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float32", "float64", "complex64", "complex128"]
LAYOUTS = {  # shape, strides in elements (None: compact row-major), byte offset in elements
    "1-D": ((6,), (1,), 0),
    "NULL strides 2-D": ((2, 3), None, 0),
    "transposed": ((3, 2), (1, 3), 0),
    "negative strides": ((2, 3), (-3, -1), 5),
    "mixed signs, offset": ((2, 2), (3, -2), 2),
    "broadcast (stride 0)": ((3, 2), (0, 1), 0),
    "overlapping dense span": ((3, 3), (2, 2), 0),
    "0-D": ((), (), 4),
    "empty": ((0, 3), (3, 1), 0),
    "empty, wild strides": ((2, 0), (2**62, -(2**62)), 0),
    "extent 1, wild stride": ((2, 1), (4, 2**61), 1),
}


def sample(dtype: str, n: int = 12) -> np.ndarray:
    if dtype == "bool":
        return np.arange(n) % 3 == 0
    v = (np.arange(n) * 5 % 11).astype(dtype)
    return v + 1j * v[::-1] if np.dtype(dtype).kind == "c" else v


def usm_ptr(a) -> int:
    s = a.__sycl_usm_array_interface__
    return s["data"][0] + s.get("offset", 0) * np.dtype(s["typestr"]).itemsize


def host_ptr(u) -> int:
    return np.from_dlpack(u).__array_interface__["data"][0]


def expected(buf: np.ndarray, shape, strides, first: int) -> np.ndarray:
    if 0 in shape:
        return np.empty(shape, buf.dtype)
    if strides is None:
        return buf[first:first + int(np.prod(shape))].reshape(shape)
    isz = buf.itemsize
    byte_strides = [s * isz if n > 1 else 0 for s, n in zip(strides, shape, strict=True)]
    return np.lib.stride_tricks.as_strided(buf[first:], shape, byte_strides)


def _crafted(where, dtype, layout, *, versioned, flags=0):
    """(producer, base values, buffer) for a crafted capsule over a 12-element buffer."""
    shape, strides, first = LAYOUTS[layout]
    vals = sample(dtype)
    if where == "cpu":
        owner, ptr, dev = vals, vals.ctypes.data, (KDL_CPU, 0)
    else:
        owner = xp.asarray(vals, device=SYCL)
        ptr, dev = owner.__sycl_usm_array_interface__["data"][0], (KDL_ONEAPI, 0)
    code, bits = dl_dtype(vals.dtype)

    def factory(max_version):
        v = versioned and max_version is not None and max_version[0] >= 1
        return make_capsule(ptr, shape, strides, first * vals.itemsize, code, bits, device=dev,
                            versioned=v, flags=flags, owner=owner)

    return Producer(dev, factory), vals, owner


def _released_once(p: Producer) -> None:
    gc.collect()
    p.release()
    assert p.deleter_calls() == [1] * len(p.issued)


# ---- crafted capsules ----------------------------------------------------------------------
WHERE = ["cpu", pytest.param("oneapi", marks=needs_sycl)]


@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("versioned", [True, False], ids=["versioned", "legacy"])
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_crafted_layouts_read_the_producers_elements(where, versioned, layout):
    p, vals, _ = _crafted(where, "float64", layout, versioned=versioned)
    u = xp.from_dlpack(p)
    assert u.device == (HOST if where == "cpu" else SYCL)
    shape, strides, first = LAYOUTS[layout]
    want = expected(vals, shape, strides, first)
    got = xp.asnumpy(u)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    del u
    _released_once(p)


@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("dtype", DTYPES)
def test_crafted_capsules_of_every_standard_dtype(where, dtype):
    p, vals, _ = _crafted(where, dtype, "negative strides", versioned=True)
    u = xp.from_dlpack(p)
    assert xp.asnumpy(u).dtype == np.dtype(dtype)
    np.testing.assert_array_equal(xp.asnumpy(u), expected(vals, (2, 3), (-3, -1), 5))
    del u
    _released_once(p)


@pytest.mark.parametrize("where", WHERE)
def test_zero_copy_and_the_protocol_call(where):
    p, vals, buf = _crafted(where, "float64", "1-D", versioned=True)
    u = xp.from_dlpack(p)
    call = p.calls[-1]
    assert call["max_version"] == (1, 0) and call["copy"] is None and call["dl_device"] is None
    if where == "cpu":
        assert call["stream"] is None
        assert host_ptr(u) == vals.ctypes.data
        vals[0] = -1.0  # the producer's memory, seen through the import
    else:
        assert call["stream"] == SYCL.sycl_queue
        assert usm_ptr(u) == usm_ptr(buf)
        u[0] = -1.0
    assert float(u[0]) == -1.0
    del u
    _released_once(p)


@pytest.mark.parametrize("where", WHERE)
def test_read_only_tensors_import_read_only_or_as_a_writable_copy(where):
    p, vals, _ = _crafted(where, "float64", "1-D", versioned=True, flags=1)
    u = xp.from_dlpack(p)
    with pytest.raises(ValueError):
        u[0] = 5.0
    with pytest.raises(ValueError):
        u += 1.0
    np.testing.assert_array_equal(xp.asnumpy(u), vals[:6])
    c = xp.from_dlpack(p, copy=True)  # the crafted producer ignores copy: usmarray copies
    c[0] = 5.0
    assert float(c[0]) == 5.0 and float(u[0]) == vals[0]
    del u, c
    _released_once(p)


@needs_sycl
def test_overlapping_dense_span_is_copied_not_misread():
    """(3, 3) with strides (2, 2) spans 9 elements, some twice: the provider would flag
    the view contiguous, so the importer copies; copy=False cannot be satisfied."""
    p, vals, _ = _crafted("oneapi", "float64", "overlapping dense span", versioned=True)
    u = xp.from_dlpack(p)
    want = expected(vals, (3, 3), (2, 2), 0)
    for read in (xp.asnumpy(u), xp.asnumpy(xp.asarray(u, copy=True)), xp.asnumpy(xp.negative(-u))):
        np.testing.assert_array_equal(read, want)
    with pytest.raises(BufferError):
        xp.from_dlpack(p, copy=False)
    del u
    _released_once(p)


def test_a_legacy_only_producer_is_asked_the_legacy_way():
    a = np.arange(5.0)

    class Legacy:
        def __dlpack_device__(self):
            return (KDL_CPU, 0)

        def __dlpack__(self, stream=None):
            return a.__dlpack__(stream=stream)

    u = xp.from_dlpack(Legacy())
    assert host_ptr(u) == a.ctypes.data
    c = xp.from_dlpack(Legacy(), copy=True)
    assert host_ptr(c) != a.ctypes.data
    np.testing.assert_array_equal(xp.asnumpy(c), a)


# ---- real producers ------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_round_trip(dtype):
    a = sample(dtype).reshape(3, 4)[:, ::-2]
    u = xp.from_dlpack(a)
    assert u.device == HOST and host_ptr(u) == a.__array_interface__["data"][0]
    np.testing.assert_array_equal(xp.asnumpy(u), a)
    np.testing.assert_array_equal(np.from_dlpack(u), a)
    for b in (np.asarray(sample(dtype)[3]), sample(dtype)[:0].reshape(0, 2)):  # 0-D, empty
        np.testing.assert_array_equal(xp.asnumpy(xp.from_dlpack(b)), b)


def test_numpy_read_only_arrays_stay_read_only():
    a = np.arange(4.0)
    a.flags.writeable = False
    u = xp.from_dlpack(a)
    with pytest.raises(ValueError):
        u[0] = 1.0


@needs_sycl
@pytest.mark.parametrize("dtype", DTYPES)
def test_dpnp_tensor_round_trip(dtype):
    dt = pytest.importorskip("dpnp.tensor")
    base = dt.asarray(sample(dtype), sycl_queue=SYCL.sycl_queue)
    for t, want in ((base, sample(dtype)), (dt.reshape(base, (3, 4))[::-1, 1::2],
                                            sample(dtype).reshape(3, 4)[::-1, 1::2]),
                    (base[5], sample(dtype)[5]), (base[:0], sample(dtype)[:0])):
        u = xp.from_dlpack(t)
        assert u.device == SYCL
        if t.size:
            assert usm_ptr(u) == usm_ptr(t)
        np.testing.assert_array_equal(xp.asnumpy(u), want)
    h = xp.from_dlpack(base, device="numpy")
    assert h.device == HOST
    np.testing.assert_array_equal(xp.asnumpy(h), sample(dtype))


@needs_sycl
def test_dpnp_tensor_copy_keyword():
    dt = pytest.importorskip("dpnp.tensor")
    t = dt.arange(6.0)
    c = xp.from_dlpack(t, copy=True)
    assert usm_ptr(c) != usm_ptr(t)
    c[0] = 9.0
    assert float(t[0]) == 0.0
    assert usm_ptr(xp.from_dlpack(t, copy=False)) == usm_ptr(t)
    with pytest.raises(BufferError):
        xp.from_dlpack(t, device="numpy", copy=False)


@needs_sycl
def test_placement_on_sycl_devices():
    import dpctl

    dt = pytest.importorskip("dpnp.tensor")
    t = dt.arange(5.0)
    q = SYCL.sycl_queue
    other_queue = xp.Device.create_device(dpctl.SyclQueue(q.sycl_context, q.sycl_device))
    u = xp.from_dlpack(t, device=other_queue, copy=False)  # same device and context: a view
    assert u.device == other_queue and usm_ptr(u) == usm_ptr(t)
    try:
        sub = SYCL.sycl_device.create_sub_devices(partition=1)[0]
    except Exception:  # noqa: BLE001
        return
    elsewhere = xp.Device.create_device(dpctl.SyclQueue(sub))
    with pytest.raises(BufferError):
        xp.from_dlpack(t, device=elsewhere, copy=False)
    v = xp.from_dlpack(t, device=elsewhere)
    assert v.device == elsewhere
    np.testing.assert_array_equal(xp.asnumpy(v), np.arange(5.0))


TORCH_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "float32", "float64",
                "complex64", "complex128"]


@pytest.mark.parametrize("dtype", TORCH_DTYPES)
def test_torch_round_trip(dtype):
    torch = pytest.importorskip("torch")
    t = torch.from_numpy(sample(dtype).reshape(3, 4))
    for src in (t, t.T, t[1], t[:0], t.flip(0)):  # flip(0) copies in torch; views otherwise
        u = xp.from_dlpack(src)
        assert u.device == HOST
        np.testing.assert_array_equal(xp.asnumpy(u), src.numpy())
        assert host_ptr(u) == src.data_ptr() or src.numel() == 0
    back = torch.from_dlpack(xp.from_dlpack(t))
    assert back.data_ptr() == t.data_ptr()
