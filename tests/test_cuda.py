"""The CUDA backend (CuPy) on an NVIDIA GPU: placement, memory kinds, coercion,
streams, migration, interop and kernel values against NumPy.

Skips (with the reason) where CuPy or a GPU is missing; run on a GPU machine with
``USMARRAY_DEFAULT_DEVICE=cuda:0 python -m pytest -m gpu tests/test_cuda.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

cupy = pytest.importorskip("cupy", reason="the CUDA backend needs CuPy")

import usmarray as xp  # noqa: E402
from usmarray import _backend  # noqa: E402

be = _backend.cuda
pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(be is None, reason="CuPy is installed but no CUDA GPU is usable"),
]

USM = ("device", "shared", "host")
REAL = [np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64, np.float32, np.float64]
FLOAT = [np.float32, np.float64]


def arr(values, dtype=None, usm_type="device", device="cuda:0"):
    return xp.asarray(np.asarray(values, dtype=dtype), device=device, usm_type=usm_type)


# ---- devices and queues ---------------------------------------------------------------------
def test_filter_strings_and_native_objects():
    d0 = xp.Device.create_device("cuda:0")
    assert d0 == xp.Device.create_device("cuda")
    assert repr(d0) == "Device(cuda:0)"
    assert be.native_queue(cupy.cuda.Device(0)) == be.default_queue()
    assert be.native_queue(cupy.cuda.Stream.null) == be.default_queue()
    s = cupy.cuda.Stream(non_blocking=True)
    q = be.native_queue(s)
    assert q != be.default_queue() and q == be.native_queue(s) and hash(q) == hash(be.native_queue(s))
    assert "stream" in be.describe(q)
    with pytest.raises(ValueError, match="names no CUDA device"):
        be.native_queue(f"cuda:{be._ndev}")
    with pytest.raises(ValueError):
        be.native_queue("cuda:x")
    with pytest.raises(TypeError):
        be.native_queue(3.5)
    assert be.multi_queue is True and be.lock is None
    assert be.devices()[0] == be.default_queue()


@pytest.mark.parametrize("usm_type", USM)
def test_creation_placement_and_usm_type(usm_type):
    q = be.default_queue()
    for raw in (
        be.empty((3, 4), dtype=np.float32, usm_type=usm_type, queue=q),
        be.zeros((5,), dtype=np.int64, usm_type=usm_type, queue=q),
        be.full((2, 2), 7, dtype=np.uint64, usm_type=usm_type, queue=q),
        be.arange(0, 10, 2, dtype=np.int32, usm_type=usm_type, queue=q),
        be.linspace(0, 1, 5, dtype=np.float64, usm_type=usm_type, queue=q),
        be.eye(3, 4, k=1, dtype=np.float32, usm_type=usm_type, queue=q),
    ):
        assert type(raw) is cupy.ndarray
        assert be.usm_type_of(raw) == usm_type
        assert be.queue_of(raw) == q
    x = xp.ones((4,), dtype=xp.float32, device="cuda:0", usm_type=usm_type)
    assert x.usm_type == usm_type and x.device == xp.Device.create_device("cuda:0")
    np.testing.assert_array_equal(xp.asnumpy(x), np.ones(4, np.float32))


def test_full_uint64_max_exact():
    raw = be.full((3,), 2**64 - 1, dtype=np.uint64)
    assert be.to_host(raw).tolist() == [2**64 - 1] * 3


@pytest.mark.parametrize("u1", USM)
@pytest.mark.parametrize("u2", USM)
def test_coercion_table(u1, u2):
    a = arr([1.0, 2.0, 3.0], np.float32, u1)
    b = arr([4.0, 5.0, 6.0], np.float32, u2)
    expect = USM[min(USM.index(u1), USM.index(u2))]
    for r in (a + b, xp.multiply(a, b), xp.where(a > 1, a, b), xp.concat([a, b])):
        assert r.usm_type == expect, (u1, u2, r.usm_type)
    np.testing.assert_allclose(xp.asnumpy(a + b), [5, 7, 9])
    assert xp.sin(a).usm_type == u1 and xp.sum(a).usm_type == u1


def test_shared_and_host_memory_is_host_accessible():
    for ut in ("shared", "host"):
        raw = be.from_host(np.arange(6, dtype=np.float64), ut, be.default_queue())
        view = be.host_view(raw)
        np.testing.assert_array_equal(view, np.arange(6))
        view[0] = 42.0  # a view, not a copy
        assert float(be.to_host(raw)[0]) == 42.0
    with pytest.raises(BufferError):
        be.host_view(be.zeros((2,)))


def test_memory_kind_is_read_from_the_memory_object():
    raw = be.zeros((8,), dtype=np.float32)
    assert type(raw.data.mem) in (cupy.cuda.memory.PooledMemory, cupy.cuda.memory.Memory)
    assert be._is_fast(raw)
    assert not be._is_fast(be.zeros((8,), usm_type="shared"))


def test_shared_memory_is_pooled_and_stays_shared():
    # a freed managed block serves the next allocation of its size on the same stream
    # (no cudaFree, which waits for the whole device); the reused block is still
    # "shared" memory, host-readable, and holds the new array's values
    raw = be.from_host(np.arange(1 << 18, dtype=np.float32), "shared", be.default_queue())
    ptr = raw.data.ptr
    del raw
    again = be.from_host(np.full(1 << 18, 3.0, np.float32), "shared", be.default_queue())
    assert again.data.ptr == ptr
    assert be.usm_type_of(again) == "shared" and be.queue_of(again) == be.default_queue()
    np.testing.assert_array_equal(be.host_view(again), np.full(1 << 18, 3.0, np.float32))
    x = xp.asarray(np.arange(10.0), device="cuda:0", usm_type="shared")
    y = xp.sin(x) * 2
    assert y.usm_type == "shared"
    np.testing.assert_allclose(np.asarray(y), np.sin(np.arange(10.0)) * 2, rtol=1e-12)


def test_oversize_requests_raise_memory_error_naming_the_size():
    import os

    total = be.total_memory(0)
    host = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    for ut in USM:
        n = max(total, host) // 4 + 1024  # 2x the larger of GPU and host memory, in float64
        with pytest.raises(MemoryError, match=str(n * 8)):
            xp.empty((n,), dtype=xp.float64, device="cuda:0", usm_type=ut)
    with pytest.raises(MemoryError, match="managed"):
        be.check_managed(total * 2, 0)


# ---- streams and migration ----------------------------------------------------------------
def test_to_device_between_streams_is_zero_copy_and_ordered():
    s = cupy.cuda.Stream(non_blocking=True)
    other = xp.Device.create_device("cuda:0")
    x = xp.arange(0, 1 << 20, dtype=xp.float32, device="cuda:0")
    dev_s = xp.Device._make(be, be.native_queue(s))
    y = x.to_device(dev_s)
    assert y.device == dev_s and y.device != other
    assert y._arr.data.ptr == x._arr.data.ptr  # zero-copy
    z = y * 2  # runs on stream s, after x's producer (event wait)
    assert z.device == dev_s
    np.testing.assert_array_equal(xp.asnumpy(z), np.arange(1 << 20, dtype=np.float32) * 2)
    with pytest.raises(ValueError):  # compute follows data (ExecutionPlacementError)
        x + y
    back = z.to_device(other)
    assert back.device == other
    np.testing.assert_array_equal(xp.asnumpy(back)[:4], [0, 2, 4, 6])


@pytest.mark.parametrize("ut", USM)
def test_to_device_keeps_usm_type_and_values_on_another_stream(ut):
    q = be.native_queue(cupy.cuda.Stream())
    x = arr(np.arange(10), np.int32, ut)
    y = be.to_queue(x._arr, q)
    assert be.queue_of(y) == q and be.usm_type_of(y) == ut
    r = be.add(y, y)
    assert be.queue_of(r) == q and be.usm_type_of(r) == ut
    np.testing.assert_array_equal(be.to_host(r), np.arange(10) * 2)


def test_to_device_numpy_and_back():
    x = arr([1.5, 2.5], np.float64)
    h = x.to_device("numpy")
    assert h.device == xp.Device.create_device("numpy")
    g = h.to_device("cuda:0")
    np.testing.assert_array_equal(xp.asnumpy(g), [1.5, 2.5])
    assert g.usm_type == "host"  # the NumPy device's kind, which the CUDA backend has too
    assert xp.asarray(h, device="cuda:0", usm_type="device").usm_type == "device"


def test_to_device_sycl_when_present():
    if _backend.sycl is None:
        pytest.skip("no SYCL runtime on this machine")
    x = arr([1, 2, 3], np.int64)
    s = x.to_device("cpu")
    np.testing.assert_array_equal(xp.asnumpy(s.to_device("cuda:0")), [1, 2, 3])


def test_cross_device_path_through_pinned_host():
    # one GPU: exercise the copy of _cross_device directly with a fake second queue
    q = be.default_queue()
    raw = be.arange(0, 1000, 1, dtype=np.int64)[::3]
    out = be._cross_device(raw, q, q, "device")
    np.testing.assert_array_equal(be.to_host(out), np.arange(0, 1000, 3))


# ---- interop --------------------------------------------------------------------------------
@pytest.mark.parametrize("ut", USM)
def test_cuda_array_interface_and_dlpack_export(ut):
    x = arr(np.arange(12).reshape(3, 4), np.float32, ut)
    iface = be.array_attribute(x._arr, "__cuda_array_interface__")
    assert iface["version"] == 3 and iface["shape"] == (3, 4) and iface["stream"] == 1
    with pytest.raises(AttributeError):
        be.array_attribute(x._arr, "sycl_queue")
    want = {"device": (2, 0), "shared": (13, 0), "host": (3, 0)}[ut]
    assert be.dlpack_device(x._arr) == want
    if ut != "host":
        c = cupy.from_dlpack(_Exporter(be, x._arr))
        np.testing.assert_array_equal(cupy.asnumpy(c), np.arange(12).reshape(3, 4))
    cpu = np.from_dlpack(_Exporter(be, x._arr, dl_device=(1, 0)))
    np.testing.assert_array_equal(cpu, np.arange(12).reshape(3, 4))
    if ut == "device":
        with pytest.raises(BufferError):
            be.dlpack(x._arr, dl_device=(1, 0), copy=False)


class _Exporter:
    def __init__(self, be, raw, dl_device=None):
        self.be, self.raw, self.dl_device = be, raw, dl_device

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        return self.be.dlpack(self.raw, stream=stream, max_version=max_version,
                              dl_device=self.dl_device or dl_device, copy=copy)

    def __dlpack_device__(self):
        return self.dl_device or self.be.dlpack_device(self.raw)


def test_foreign_cupy_and_torch_zero_copy():
    c = cupy.arange(10, dtype=cupy.float32)
    raw, q = be.foreign(c)
    assert raw is c and q == be.default_queue()
    x = xp.asarray(c)
    assert x.device == xp.Device.create_device("cuda:0")
    torch = pytest.importorskip("torch")
    t = torch.arange(6, dtype=torch.float64, device="cuda").reshape(2, 3)
    raw, q = be.foreign(t)
    assert raw.data.ptr == t.data_ptr()
    t[0, 0] = 100.0
    np.testing.assert_array_equal(be.to_host(raw)[0], [100.0, 1.0, 2.0])
    y = xp.asarray(t)
    np.testing.assert_array_equal(xp.asnumpy(y), t.cpu().numpy())
    # and back: torch takes our arrays through DLPack
    z = torch.from_dlpack(_Exporter(be, be.add(raw, raw)))
    assert torch.equal(z.cpu(), (t * 2).cpu())


def test_from_dlpack_cupy_torch_jax():
    c = cupy.arange(8, dtype=cupy.int32)
    raw = be.from_dlpack(c, c.__dlpack_device__(), None, None)
    np.testing.assert_array_equal(be.to_host(raw), np.arange(8))
    torch = pytest.importorskip("torch")
    t = torch.linspace(0, 1, 5, device="cuda")
    raw = be.from_dlpack(t, t.__dlpack_device__(), None, None)
    assert raw.data.ptr == t.data_ptr()
    np.testing.assert_allclose(be.to_host(raw), t.cpu().numpy())
    copied = be.from_dlpack(t, t.__dlpack_device__(), None, True)
    assert copied.data.ptr != t.data_ptr()
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return
    if not any(d.platform == "gpu" for d in jax.devices()):
        return
    j = jnp.arange(4.0)
    raw = be.from_dlpack(j, j.__dlpack_device__(), None, None)
    np.testing.assert_array_equal(be.to_host(raw), np.arange(4.0))


class _BadCAI:
    def __init__(self, iface):
        self.__cuda_array_interface__ = iface


@pytest.mark.parametrize("iface, exc", [
    ({"shape": (2,), "typestr": "<f4"}, TypeError),  # no data
    ({"shape": (-1,), "typestr": "<f4", "data": (1, False)}, ValueError),
    ({"shape": (2,), "typestr": "<f2", "data": (1, False)}, TypeError),
    ({"shape": (2,), "typestr": ">f4", "data": (1, False)}, TypeError),
    ({"shape": (2,), "typestr": "<f4", "data": "x"}, TypeError),
    ({"shape": (2,), "typestr": "<f4", "data": (0, False)}, ValueError),
    ({"shape": (4,), "typestr": "<f4", "data": (4096, False)}, BufferError),  # not CUDA memory
    ({"shape": (2,), "typestr": "<f4", "data": (1, False), "strides": (3,)}, ValueError),
    ({"shape": (2,), "typestr": "<f4", "data": (1, False), "mask": 1}, TypeError),
    ({"shape": (2,), "typestr": "<f4", "data": (1, False), "stream": 0}, ValueError),
])
def test_bad_cuda_array_interfaces_raise(iface, exc):
    with pytest.raises(exc):
        be.foreign(_BadCAI(iface))


def test_interface_past_its_allocation_is_refused():
    c = cupy.zeros(4, dtype=cupy.float32)
    iface = dict(c.__cuda_array_interface__, shape=(1 << 40,))
    with pytest.raises((BufferError, ValueError)):
        be.foreign(_BadCAI(iface))


def test_host_pointer_interface_is_refused():
    h = np.zeros(1024, dtype=np.float32)
    iface = {"shape": (1024,), "typestr": "<f4", "data": (h.ctypes.data, False), "version": 3}
    with pytest.raises(BufferError):
        be.foreign(_BadCAI(iface))


class _BadDL:
    def __init__(self, capsule, dev=(2, 0)):
        self.capsule, self.dev = capsule, dev

    def __dlpack__(self, **kw):
        return self.capsule

    def __dlpack_device__(self):
        return self.dev


def test_bad_capsules_raise_never_crash():
    import datetime

    with pytest.raises(TypeError):
        be.from_dlpack(_BadDL(object()), (2, 0), None, None)
    with pytest.raises(ValueError):
        be.from_dlpack(_BadDL(datetime.datetime_CAPI), (2, 0), None, None)
    # a CPU capsule to the CUDA importer
    with pytest.raises(BufferError):
        be.from_dlpack(_BadDL(np.arange(3).__dlpack__()), (2, 0), None, None)
    # a consumed capsule
    c = cupy.arange(3)
    cap = c.__dlpack__()
    be.from_dlpack(_BadDL(cap), (2, 0), None, None)
    with pytest.raises(BufferError, match="consumed"):
        be.from_dlpack(_BadDL(cap), (2, 0), None, None)
    with pytest.raises(BufferError):
        be.from_dlpack(_BadDL(cupy.arange(3).__dlpack__()), (2, 7), None, None)


# ---- kernels against NumPy ------------------------------------------------------------------
@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("name", ["add", "subtract", "multiply"])
@pytest.mark.parametrize("n", [1, 3, 4, 5, 1000, 4099])
def test_fast_binary_values(dtype, name, n):
    rng = np.random.default_rng(0)
    a = (rng.random(n) * 100).astype(dtype)
    b = (rng.random(n) * 100).astype(dtype)
    ga, gb = be.from_host(a, "device", None), be.from_host(b, "device", None)
    with np.errstate(over="ignore"):
        want = getattr(np, name)(a, b)
        np.testing.assert_array_equal(be.to_host(getattr(be, name)(ga, gb)), want)
        np.testing.assert_array_equal(be.to_host(getattr(be, name)(ga, 3)), getattr(np, name)(a, dtype(3)))


@pytest.mark.parametrize("dtype", FLOAT)
def test_fast_divide_sin_where_astype_copy(dtype):
    rng = np.random.default_rng(1)
    a = rng.standard_normal(4101).astype(dtype)
    b = rng.standard_normal(4101).astype(dtype)
    ga, gb = be.from_host(a, "device", None), be.from_host(b, "device", None)
    np.testing.assert_array_equal(be.to_host(be.divide(ga, gb)), a / b)
    np.testing.assert_allclose(be.to_host(be.sin(ga)), np.sin(a), rtol=4 * np.finfo(dtype).eps)
    c = a > 0
    gc = be.from_host(c, "device", None)
    np.testing.assert_array_equal(be.to_host(be.where(gc, ga, gb)), np.where(c, a, b))
    np.testing.assert_array_equal(be.to_host(be.copy(ga)), a)
    for t in (np.float32, np.float64, np.int32, np.bool_):
        with np.errstate(invalid="ignore"):
            want = a.astype(t) if t is not np.int32 else a.astype(t)
        np.testing.assert_array_equal(be.to_host(be.astype(ga, t)), want)
    # strided and misaligned operands take CuPy's kernels, same values
    np.testing.assert_array_equal(be.to_host(be.add(ga[1:], gb[1:])), a[1:] + b[1:])
    np.testing.assert_array_equal(be.to_host(be.add(ga[::2], gb[::2])), a[::2] + b[::2])


def test_fast_path_subnormals_as_cupy():
    # on the GPUs these tests ran on, every CUDA kernel (CuPy's too, and NVRTC kernels
    # built with -ftz=false) returned 0 for 2**-149 + 2**-149: the fast path must at
    # least agree with CuPy's own kernel
    a = be.from_host(np.full(9, 1.4e-45, np.float32), "device", None)
    np.testing.assert_array_equal(be.to_host(be.add(a, a)), cupy.asnumpy(cupy.add(a, a)))


def test_fast_path_special_values():
    a = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-30], np.float32)
    b = np.array([np.inf, 1.0, 2.0, -0.0, -0.0, 1e-30], np.float32)
    ga, gb = be.from_host(a, "device", None), be.from_host(b, "device", None)
    with np.errstate(all="ignore"):
        for name in ("add", "subtract", "multiply", "divide"):
            got = be.to_host(getattr(be, name)(ga, gb))
            want = getattr(np, name)(a, b)
            msg = f"{name}({a.tolist()}, {b.tolist()}): {got.tolist()} != {want.tolist()}"
            np.testing.assert_array_equal(got, want, err_msg=msg)
            ok = ~np.isnan(want)  # a NaN's sign is the hardware's (x86: set, CUDA: clear)
            np.testing.assert_array_equal(np.signbit(got)[ok], np.signbit(want)[ok], err_msg=msg)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
def test_reductions_sort_search_values(dtype):
    rng = np.random.default_rng(2)
    a = (rng.standard_normal((37, 53)) * 50).astype(dtype)
    x = xp.asarray(a, device="cuda:0")
    np.testing.assert_allclose(xp.asnumpy(xp.sum(x, axis=1)), a.sum(axis=1, dtype=np.result_type(dtype, np.int64) if np.dtype(dtype).kind == "i" else dtype), rtol=1e-5)
    np.testing.assert_array_equal(xp.asnumpy(xp.max(x, axis=0)), a.max(axis=0))
    np.testing.assert_array_equal(xp.asnumpy(xp.argmax(x, axis=1)), a.argmax(axis=1))
    np.testing.assert_array_equal(xp.asnumpy(xp.sort(x, axis=1)), np.sort(a, axis=1))
    np.testing.assert_array_equal(xp.asnumpy(xp.sort(x, axis=1, descending=True)), -np.sort(-a, axis=1))
    np.testing.assert_array_equal(xp.asnumpy(xp.argsort(x, axis=0, stable=True)), np.argsort(a, axis=0, kind="stable"))
    if np.dtype(dtype).kind == "f":
        np.testing.assert_allclose(xp.asnumpy(xp.mean(x)), a.mean(), rtol=1e-5)
        np.testing.assert_allclose(xp.asnumpy(xp.std(x, correction=1)), a.std(ddof=1), rtol=1e-4)
    cs = xp.asnumpy(xp.cumulative_sum(x, axis=1, include_initial=True))
    assert cs.shape == (37, 54) and not cs[:, 0].any()
    np.testing.assert_allclose(cs[:, 1:], np.cumsum(a, axis=1, dtype=cs.dtype), rtol=1e-5,
                               atol=1e-3)
    u = xp.unique_counts(x)
    vals, counts = np.unique(a, return_counts=True)
    np.testing.assert_array_equal(xp.asnumpy(u.values), vals)
    np.testing.assert_array_equal(xp.asnumpy(u.counts), counts)


def test_results_are_arrays_not_scalars():
    x = arr([1.0, 2.0], np.float32)
    for r in (be.sum(x._arr), be.max(x._arr), be.argmax(x._arr), x._arr[0]):
        assert type(r) is cupy.ndarray and r.ndim == 0


def test_linalg_and_fft_on_the_gpu():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 5, 5))
    spd = a @ np.swapaxes(a, -1, -2) + 5 * np.eye(5)
    x = xp.asarray(spd, device="cuda:0")
    np.testing.assert_allclose(xp.asnumpy(xp.linalg.inv(x)), np.linalg.inv(spd), rtol=1e-8)
    np.testing.assert_allclose(xp.asnumpy(xp.linalg.cholesky(x, upper=True)),
                               np.swapaxes(np.linalg.cholesky(spd), -1, -2), rtol=1e-8)
    np.testing.assert_allclose(xp.asnumpy(xp.linalg.det(x)), np.linalg.det(spd), rtol=1e-8)
    np.testing.assert_allclose(xp.asnumpy(xp.linalg.svdvals(x)), np.linalg.svd(spd, compute_uv=False), rtol=1e-8)
    w = xp.linalg.eigvals(xp.asarray(a[0], device="cuda:0"))
    np.testing.assert_allclose(np.sort_complex(xp.asnumpy(w)), np.sort_complex(np.linalg.eigvals(a[0])), rtol=1e-8)
    with pytest.raises(xp.linalg.LinAlgError):
        xp.linalg.cholesky(xp.asarray(-spd, device="cuda:0"))
    s = rng.standard_normal(64).astype(np.float32)
    np.testing.assert_allclose(xp.asnumpy(xp.fft.rfft(xp.asarray(s, device="cuda:0"))), np.fft.rfft(s), rtol=1e-4, atol=1e-4)
    m = xp.matmul(xp.asarray(a[0], device="cuda:0"), xp.asarray(a[1], device="cuda:0"))
    np.testing.assert_allclose(xp.asnumpy(m), a[0] @ a[1], rtol=1e-12)
    assert m.device == xp.Device.create_device("cuda:0")


def test_fixups_table_entry_exists():
    from usmarray._special_cases import FIXUPS

    assert "cuda" in FIXUPS


def test_special_cases_cuda_fixups():
    inf, nan = np.inf, np.nan
    z = xp.asarray(np.array([complex(inf, nan), complex(nan, inf), complex(0.0, inf),
                             complex(0.0, nan)], np.complex128), device="cuda:0")
    got = xp.asnumpy(xp.log(z))
    assert np.isinf(got[:2].real).all() and np.isnan(got[:2].imag).all()
    t = xp.asnumpy(xp.tanh(z))[2:]
    assert (t.real == 0).all() and not np.signbit(t.real).any() and np.isnan(t.imag).all()
    x1 = xp.asarray([0.0, -0.0, 3.0, 3.0, -3.0, -3.0], device="cuda:0")
    x2 = xp.asarray([-2.0, -2.0, inf, -inf, inf, -inf], device="cuda:0")
    r = xp.asnumpy(xp.remainder(x1, x2))
    np.testing.assert_array_equal(r, [-0.0, -0.0, 3.0, -inf, inf, -3.0])
    assert np.signbit(r[:2]).all()
    np.testing.assert_array_equal(xp.asnumpy(x1 % 2.0), np.remainder([0.0, -0.0, 3, 3, -3, -3], 2.0))


# ---- argmax/argmin: the backend's kernels return the first NaN ---------------------------
@pytest.mark.parametrize("dtype", FLOAT)
@pytest.mark.parametrize("n", [7, 1000, 1 << 16, (1 << 22) + 3])
def test_argmax_argmin_kernels_return_the_first_nan(dtype, n):
    # first_nan_argmax=True lets the namespace skip its own NaN search: CuPy's kernels
    # must give the first NaN's index whole-array and along an axis, wherever the NaNs
    # sit (several per block, in different blocks, the first one late)
    assert be.first_nan_argmax is True
    rng = np.random.default_rng(n)
    for trial in range(4):
        a = rng.standard_normal(n).astype(dtype)
        k = max(1, n // 1000)
        where = np.sort(rng.choice(n, size=min(k + trial, n), replace=False))
        a[where] = np.nan
        g = be.from_host(a, "device", None)
        for name in ("argmax", "argmin"):
            got = int(be.to_host(getattr(be, name)(g, axis=None, keepdims=False)))
            assert got == int(where[0]), (name, n, trial, got, int(where[0]))
        if n % 7 == 0 or n == 1000:
            m = a.reshape(-1, 8 if n % 8 == 0 else 1)
            gm = be.from_host(m, "device", None)
            for name in ("argmax", "argmin"):
                np.testing.assert_array_equal(
                    be.to_host(getattr(be, name)(gm, axis=0, keepdims=False)),
                    getattr(np, name)(m, axis=0))
        x = xp.asarray(a, device="cuda:0")
        assert int(xp.argmax(x)) == int(where[0]) == int(xp.argmin(x))
        if n == 1000:  # 2-D, transposed, keepdims: against NumPy
            m2 = a.reshape(40, 25)
            for v in (m2, m2.T):
                g2 = xp.asarray(np.ascontiguousarray(v), device="cuda:0")
                g2 = g2 if v is m2 else xp.asarray(m2, device="cuda:0").mT
                for name in ("argmax", "argmin"):
                    f = getattr(xp, name)
                    assert int(f(g2)) == int(getattr(np, name)(v))
                    for ax in (0, 1):
                        np.testing.assert_array_equal(
                            xp.asnumpy(f(g2, axis=ax, keepdims=True)),
                            getattr(np, name)(v, axis=ax, keepdims=True))
        b = rng.standard_normal(n).astype(dtype)  # no NaN: ties go to the lower index
        b[n // 2:] = b.max() if n > 1 else b
        gb = xp.asarray(b, device="cuda:0")
        assert int(xp.argmax(gb)) == int(np.argmax(b))
        assert int(xp.argmin(gb)) == int(np.argmin(b))


# ---- the spare outputs -------------------------------------------------------------------
def test_spare_outputs_are_never_live():
    """Elementwise results come from the spare list of the default queue: a result that
    is still referenced (directly, by a view, or by a view of its memory alone) is never
    handed out again."""
    assert be.spare.free_refcounts == (3, 2), be.spare.free_refcounts
    u = xp.asarray(np.arange(100, dtype=np.float32), device="cuda:0")
    kept = [u + u for _ in range(5)]  # all alive: five distinct arrays
    assert len({id(r) for r in kept}) == 5
    assert len({r._arr.data.ptr for r in kept}) == 5
    v = kept[0][1:]  # a view keeps its base in use
    p = cupy.ndarray((99,), np.float32, memptr=kept[1]._arr.data + 4)  # memory-only view
    base_ptrs = {kept[0]._arr.data.ptr, kept[1]._arr.data.ptr}
    del kept
    for _ in range(6):
        r = u + 1.0
        assert r._arr.data.ptr not in base_ptrs
        np.testing.assert_array_equal(xp.asnumpy(r), np.arange(100, dtype=np.float32) + 1)
        np.testing.assert_array_equal(xp.asnumpy(v), (np.arange(100, dtype=np.float32) * 2)[1:])
        np.testing.assert_array_equal(be.to_host(p), (np.arange(100, dtype=np.float32) * 2)[1:])
    # a dropped result is reused, and the reuse leaves every live result intact
    outs = []
    for i in range(20):
        y = u + float(i)
        if i % 3 == 0:
            outs.append((i, y))
    for i, y in outs:
        np.testing.assert_array_equal(xp.asnumpy(y), np.arange(100, dtype=np.float32) + i)


def test_engine_runs_on_the_current_stream():
    # a slow writer on a non-blocking stream s, then elementwise calls under ``with s``:
    # they must run after it on s (CuPy's kernels run on the current stream; so does
    # the elementwise engine)
    s = cupy.cuda.Stream(non_blocking=True)
    late = cupy.RawKernel(_WRITE_LATE, "late")
    for dtype, n in ((np.float32, 64), (np.float32, 4096)):
        u = xp.asarray(np.zeros(n, dtype), device="cuda:0")
        cupy.cuda.Device().synchronize()
        late((1,), (1,), (np.int64(100_000_000), u._arr, np.int64(n), np.float32(7.0)), stream=s)
        with s:
            r = u + u
            r2 = u + 1.0
            r3 = xp.sin(u[::-1])
        s.synchronize()
        np.testing.assert_array_equal(xp.asnumpy(r), np.full(n, 14, dtype))
        np.testing.assert_array_equal(xp.asnumpy(r2), np.full(n, 8, dtype))
        np.testing.assert_allclose(xp.asnumpy(r3), np.full(n, np.sin(7.0), dtype), rtol=1e-6)


_WRITE_LATE = r'''extern "C" __global__ void late(long long cycles, float* x, long long n, float v) {
    long long t0 = clock64(); while (clock64() - t0 < cycles) {}
    for (long long i = 0; i < n; ++i) x[i] = v; }'''


# ---- indexing on the array's own stream ---------------------------------------------------------
def test_python_scalars_read_after_the_arrays_stream():
    """float()/int()/bool() of a 0-D array on a busy non-blocking stream wait for that
    stream (CuPy's own conversion reads on the current stream, before the result)."""
    s = cupy.cuda.Stream(non_blocking=True)
    dev_s = xp.Device._make(be, be.native_queue(s))
    x = xp.zeros(64, dtype=xp.float32, device="cuda:0").to_device(dev_s)
    be.wait(be.queue_of(x._arr))
    late = cupy.RawKernel(_WRITE_LATE, "late")
    late((1,), (1,), (np.int64(100_000_000), x._arr, np.int64(64), np.float32(3.0)), stream=s)
    total = xp.sum(x)
    assert float(total) == 192.0
    assert int(xp.max(x)) == 3 and bool(xp.all(x == 3.0))


def test_indexing_runs_on_the_arrays_stream():
    s = cupy.cuda.Stream(non_blocking=True)
    dev_s = xp.Device._make(be, be.native_queue(s))
    x = xp.zeros(64, dtype=xp.float32, device="cuda:0").to_device(dev_s)
    be.wait(be.queue_of(x._arr))
    late = cupy.RawKernel(_WRITE_LATE, "late")
    # a slow writer on s: indexing that ran on another stream would read zeros or be
    # overwritten by it
    late((1,), (1,), (np.int64(100_000_000), x._arr, np.int64(64), np.float32(7.0)), stream=s)
    idx = xp.asarray(np.array([3, 1, 60], dtype=np.int64), device="cuda:0").to_device(dev_s)
    g = x[idx]
    assert g.device == dev_s
    np.testing.assert_array_equal(xp.asnumpy(g), [7.0, 7.0, 7.0])
    late((1,), (1,), (np.int64(100_000_000), x._arr, np.int64(64), np.float32(5.0)), stream=s)
    x[idx] = 1.0
    x[xp.asarray(np.arange(64) % 2 == 0, device="cuda:0").to_device(dev_s)] = 2.0
    want = np.full(64, 5.0, np.float32)
    want[::2] = 2.0
    want[[3, 1]] = 1.0
    np.testing.assert_array_equal(xp.asnumpy(x), want)
    x += 1.0  # the in-place write-back runs on s too
    np.testing.assert_array_equal(xp.asnumpy(x), want + 1)


# ---- read-only arrays: CuPy has no flag, the backend keeps one ----------
def test_broadcast_views_and_their_views_are_read_only():
    base = arr([1.0, 2.0, 3.0])
    views = {
        "broadcast_to": xp.broadcast_to(base, (2, 3)),
        "broadcast_to, same shape": xp.broadcast_to(base, (3,)),
        "a row of a broadcast view": xp.broadcast_to(base, (2, 3))[0],
        "a transposed broadcast view": xp.permute_dims(xp.broadcast_to(base, (2, 3)), (1, 0)),
        "x.mT of a broadcast view": xp.broadcast_to(base, (2, 3)).mT,
        "expand_dims of a row of one": xp.expand_dims(xp.broadcast_to(base, (2, 3))[1], axis=0),
    }
    for what, v in views.items():
        assert v.flags.writable is False, what
        with pytest.raises(ValueError, match="read-only"):
            v[...] = 7.0
        with pytest.raises(ValueError, match="read-only"):
            v += 1.0
    np.testing.assert_array_equal(xp.asnumpy(base), [1.0, 2.0, 3.0])
    c = xp.asarray(views["broadcast_to"], copy=True)
    assert c.flags.writable
    c[0, 0] = 9.0
    assert xp.asnumpy(c)[1, 0] == 1.0


def test_read_only_travels_through_dlpack_and_cuda_array_interface():
    ro = xp.broadcast_to(arr([1.0, 2.0, 3.0]), (2, 3))
    assert ro.__cuda_array_interface__["data"][1] is True
    assert arr([1.0]).__cuda_array_interface__["data"][1] is False
    # DLPack 1.x carries the flag: a usmarray consumer gets a read-only array
    back = xp.from_dlpack(_Producer(ro, legacy=False))
    assert back.flags.writable is False
    with pytest.raises(ValueError, match="read-only"):
        back[0, 0] = 5.0

    class CAI:  # a producer that says its memory is read-only
        def __init__(self, a):
            d = dict(a.__cuda_array_interface__)
            d["data"] = (d["data"][0], True)
            self.__cuda_array_interface__ = d
            self._keep = a

    src = arr([1.0, 2.0])
    imported = xp.asarray(CAI(src))
    assert imported.flags.writable is False
    with pytest.raises(ValueError, match="read-only"):
        imported[0] = 3.0
    # a DLPack 0.x consumer cannot be told: it gets a copy (or BufferError with copy=False)
    legacy = cupy.from_dlpack(_Producer(ro, legacy=True))
    legacy[0, 0] = 9.0
    assert xp.asnumpy(ro)[0, 0] == 1.0
    with pytest.raises(BufferError):
        ro.__dlpack__(copy=False)


class _Producer:
    """``a``'s DLPack export, as a foreign producer: DLPack 0.x only with ``legacy``."""

    def __init__(self, a, legacy):
        self._a, self._legacy = a, legacy

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()

    def __dlpack__(self, stream=None, max_version=None, **kw):
        if self._legacy:
            return self._a.__dlpack__(stream=stream)
        return self._a.__dlpack__(stream=stream, max_version=max_version, **kw)


@pytest.mark.parametrize("route", ["host", "device"])
@pytest.mark.parametrize("dtype", FLOAT)
@pytest.mark.parametrize("n", [1, 8, 33, 300])
def test_direct_cusolver_routes_match_numpy(n, dtype, route, monkeypatch):
    """cholesky, solve, inv, eigh, qr and svd of one real matrix go to cuSOLVER directly
    (_cuda/solver.py, one status read per call) or, up to solver.HOST_MAX, to host
    LAPACK: values as NumPy's, errors as LinAlgError, on either route."""
    from usmarray._backend._cuda import solver

    if route == "device":
        for k in solver.HOST_MAX:
            monkeypatch.setitem(solver.HOST_MAX, k, 0)
    hosted = []
    real = solver._on_host
    monkeypatch.setattr(solver, "_on_host", lambda *a: hosted.append(1) or real(*a))
    rng = np.random.default_rng(n)
    tol = 2e-3 if dtype == np.float32 else 1e-9
    a = rng.standard_normal((n, n)).astype(dtype)
    spd = (a @ a.T + n * np.eye(n)).astype(dtype)
    x = xp.asarray(spd, device="cuda:0")
    low = np.linalg.cholesky(spd.astype(np.float64))
    np.testing.assert_allclose(xp.asnumpy(xp.linalg.cholesky(x)), low, rtol=tol, atol=tol)
    np.testing.assert_allclose(xp.asnumpy(xp.linalg.cholesky(x, upper=True)), low.T, rtol=tol, atol=tol)
    assert np.all(np.triu(xp.asnumpy(xp.linalg.cholesky(x)), 1) == 0)
    b = rng.standard_normal((n, 3)).astype(dtype)
    sol = xp.asnumpy(xp.linalg.solve(x, xp.asarray(b, device="cuda:0")))
    np.testing.assert_allclose(spd.astype(np.float64) @ sol, b, rtol=tol * 10, atol=tol * 10)
    inv = xp.asnumpy(xp.linalg.inv(x))
    np.testing.assert_allclose(inv @ spd.astype(np.float64), np.eye(n), atol=tol * 10)
    for shape in [(n, n), (n + 5, n), (n, n + 5)]:
        m = rng.standard_normal(shape).astype(dtype)
        xm = xp.asarray(m, device="cuda:0")
        for full in (False, True):
            u, s, vh = (xp.asnumpy(r) for r in xp.linalg.svd(xm, full_matrices=full))
            k = min(shape)
            assert u.shape == ((shape[0], shape[0]) if full else (shape[0], k))
            assert vh.shape == ((shape[1], shape[1]) if full else (k, shape[1]))
            np.testing.assert_allclose((u[:, :k] * s) @ vh[:k], m, rtol=tol * 10, atol=tol * 10)
            assert np.all(np.diff(s) <= 0)
        np.testing.assert_allclose(xp.asnumpy(xp.linalg.svdvals(xm)),
                                   np.linalg.svd(m.astype(np.float64), compute_uv=False),
                                   rtol=tol * 10, atol=tol * 10)
    with pytest.raises(xp.linalg.LinAlgError):
        xp.linalg.cholesky(xp.asarray(-spd, device="cuda:0"))
    if n > 1:
        sing = spd.copy()
        sing[-1] = 0  # an exact zero pivot, whatever the pivoting order
        sing[:, -1] = 0
        with pytest.raises(xp.linalg.LinAlgError):
            xp.linalg.solve(xp.asarray(sing, device="cuda:0"), xp.asarray(b, device="cuda:0"))
        with pytest.raises(xp.linalg.LinAlgError):
            xp.linalg.inv(xp.asarray(sing, device="cuda:0"))
    w, v = (xp.asnumpy(r).astype(np.float64) for r in xp.linalg.eigh(x))
    np.testing.assert_allclose(w, np.linalg.eigvalsh(spd.astype(np.float64)), rtol=tol * 10)
    np.testing.assert_allclose(v @ np.diag(w) @ v.T, spd, rtol=tol * 10, atol=tol * 10 * n)
    np.testing.assert_allclose(xp.asnumpy(xp.linalg.eigvalsh(x)), w, rtol=tol * 10)
    for shape in [(n + 5, n), (n, n + 5)]:
        m = rng.standard_normal(shape).astype(dtype)
        for mode in ("reduced", "complete"):
            q, r = (xp.asnumpy(t).astype(np.float64)
                    for t in xp.linalg.qr(xp.asarray(m, device="cuda:0"), mode=mode))
            q0, r0 = np.linalg.qr(m.astype(np.float64), mode=mode)
            assert q.shape == q0.shape and r.shape == r0.shape
            assert np.all(np.tril(r, -1) == 0)
            np.testing.assert_allclose(q @ r, m, rtol=tol * 10, atol=tol * 10)
            np.testing.assert_allclose(q.T @ q, np.eye(q.shape[1]), atol=tol * 10)
    assert bool(hosted) == (route == "host" and n <= 64)


def test_solve_with_many_right_hand_sides_stays_on_the_device(monkeypatch):
    """A small matrix with more right-hand-side elements than the host route's largest
    matrix holds is solved on the device (no round trip of a large b), with NumPy's
    values."""
    from usmarray._backend._cuda import solver

    hosted = []
    real = solver._on_host
    monkeypatch.setattr(solver, "_on_host", lambda *a: hosted.append(1) or real(*a))
    rng = np.random.default_rng(3)
    n = 8
    a = rng.standard_normal((n, n)) + n * np.eye(n)
    k = solver.HOST_MAX["solve"] ** 2 // n + 1
    b = rng.standard_normal((n, k))
    x = xp.linalg.solve(xp.asarray(a, device="cuda:0"), xp.asarray(b, device="cuda:0"))
    np.testing.assert_allclose(xp.asnumpy(x), np.linalg.solve(a, b), rtol=1e-9, atol=1e-9)
    assert not hosted
    xp.linalg.solve(xp.asarray(a, device="cuda:0"), xp.asarray(b[:, :3], device="cuda:0"))
    assert hosted


def _thin_svd_shape(kind):
    from usmarray._backend._cuda import solver

    big = solver.HOST_MAX["svd"] + 36  # a square factor too large for the host route
    ratio = solver.CHOLQR_RATIO
    return {"tall": (2**16, 40), "wide": (40, 2**16), "tall-4": (600000, 4),
            "wide-33": (33, 70000), "at-ratio": (ratio * 1024, 1024),
            "tall-device-r": (2**15, big), "wide-device-r": (big, 2**15 + 3)}[kind]


@pytest.mark.parametrize("dtype", FLOAT)
@pytest.mark.parametrize("deficient", [False, True])
@pytest.mark.parametrize("kind", ["tall", "wide", "tall-4", "wide-33", "at-ratio",
                                  "tall-device-r", "wide-device-r"])
def test_thin_svd_through_cholesky_qr_matches_numpy(kind, deficient, dtype, monkeypatch):
    """A matrix much taller than wide (or wider than tall) takes its thin SVD through a
    Cholesky QR (solver.CHOLQR_RATIO), its square factor on the host or, past
    solver.HOST_MAX["svd"], on the device; a rank-deficient one may fall back to Jacobi.
    Either way the factors reconstruct it, U and V are orthonormal and the singular
    values are NumPy's; full_matrices=True (tried where U or V fits) keeps the Jacobi
    route."""
    from usmarray._backend._cuda import solver

    shape = _thin_svd_shape(kind)
    assert max(shape) >= solver.CHOLQR_RATIO * min(shape)
    assert max(shape) > solver.HOST_MAX["svd"]
    assert shape[0] * shape[1] >= solver.CHOLQR_MIN_ELEMENTS
    taken = []
    real = solver._cholesky_qr
    monkeypatch.setattr(solver, "_cholesky_qr", lambda a: taken.append(real(a)) or taken[-1])
    rng = np.random.default_rng(shape[0])
    tol = 2e-4 if dtype == np.float32 else 1e-11
    m = rng.standard_normal(shape).astype(dtype)
    if deficient and shape[0] > shape[1]:  # rank deficient: one singular value is 0
        m[:, 1] = m[:, 0] * 2
    elif deficient:
        m[1] = m[0] * 2
    xm = xp.asarray(m, device="cuda:0")
    ref = np.linalg.svd(m.astype(np.float64), compute_uv=False)
    k = min(shape)
    for full in (False, True) if max(shape) <= 4096 else (False,):
        u, s, vh = (xp.asnumpy(r).astype(np.float64) for r in xp.linalg.svd(xm, full_matrices=full))
        assert u.shape == ((shape[0], shape[0]) if full else (shape[0], k))
        assert vh.shape == ((shape[1], shape[1]) if full else (k, shape[1]))
        np.testing.assert_allclose((u[:, :k] * s) @ vh[:k], m, atol=tol * 10 * ref[0])
        np.testing.assert_allclose(u.T @ u, np.eye(u.shape[1]), atol=tol * 10)
        np.testing.assert_allclose(vh @ vh.T, np.eye(vh.shape[0]), atol=tol * 10)
        np.testing.assert_allclose(s, ref, atol=tol * ref[0])
    np.testing.assert_allclose(xp.asnumpy(xp.linalg.svdvals(xm)), ref, atol=tol * ref[0])
    assert len(taken) == 2  # the thin svd and svdvals
    if not deficient:  # a deficient one may take either route
        assert all(t is not None for t in taken)


@pytest.mark.parametrize("shape", [(5, 5), (40, 6), (6, 200), (40000, 70), (70, 40000)])
def test_svd_of_a_nan_matrix_is_the_jacobi_routes(shape, monkeypatch):
    """Where host LAPACK does not converge or the Cholesky QR fails (a NaN), a matrix
    gets what the Jacobi routes give it: the same values, or the same LinAlgError."""
    from usmarray._backend._cuda import solver

    m = np.random.default_rng(0).standard_normal(shape)
    m[1, 2] = np.nan
    xm = xp.asarray(m, device="cuda:0")

    def outcome():
        try:
            return [xp.asnumpy(r) for r in xp.linalg.svd(xm, full_matrices=False)]
        except xp.linalg.LinAlgError as exc:
            return type(exc)

    here = outcome()
    monkeypatch.setitem(solver.HOST_MAX, "svd", 0)
    monkeypatch.setattr(solver, "CHOLQR_RATIO", float("inf"))
    there = outcome()
    if isinstance(here, list):
        for h, t in zip(here, there, strict=True):
            np.testing.assert_array_equal(h, t)
    else:
        assert here is there


def test_batched_small_svd_matches_numpy():
    rng = np.random.default_rng(7)
    for shape in [(6, 8, 8), (3, 20, 12), (3, 12, 20)]:
        m = rng.standard_normal(shape)
        u, s, vh = (xp.asnumpy(r) for r in xp.linalg.svd(xp.asarray(m, device="cuda:0"),
                                                          full_matrices=False))
        np.testing.assert_allclose((u * s[..., None, :]) @ vh, m, atol=1e-9)
        np.testing.assert_allclose(s, np.linalg.svd(m, compute_uv=False), atol=1e-9)


@pytest.mark.parametrize("dtype", FLOAT)
def test_fast_pow_matches_cupy_bit_for_bit(dtype):
    """pow on the elementwise engine gives CuPy's own kernel's bits, special
    values included, with array and scalar exponents."""
    rng = np.random.default_rng(11)
    a = np.concatenate([rng.uniform(0, 4, 1021), [0.0, -0.0, np.inf, -np.inf, np.nan, -2.0, 1.0]])
    b = np.concatenate([rng.uniform(-3, 3, 1021), [0.5, -1.0, 0.0, 3.0, 1.0, 3.0, np.nan]])
    ga, gb = be.from_host(a.astype(dtype), "device", None), be.from_host(b.astype(dtype), "device", None)
    got = be.to_host(be.pow(ga, gb))
    want = cupy.asnumpy(cupy.power(ga, gb))
    np.testing.assert_array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}"))
    x = xp.asarray(a.astype(dtype), device="cuda:0")
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(xp.asnumpy(x ** 2.5), a.astype(dtype) ** dtype(2.5), rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.float32, np.float64, np.complex128])
def test_layout_copies_values(dtype):
    """A Fortran-ordered copy (asarray(permute_dims(x), copy=True)) keeps its layout and
    values; broadcast copies move whole rows in the widest words that fit."""
    rng = np.random.default_rng(5)
    for shape in [(7, 5), (64, 48), (3, 4, 6)]:
        a = (rng.standard_normal(shape) * 10).astype(dtype)
        x = xp.asarray(a, device="cuda:0")
        t = xp.permute_dims(x, tuple(reversed(range(len(shape)))))
        c = xp.asarray(t, copy=True)
        np.testing.assert_array_equal(xp.asnumpy(c), np.transpose(a))
        c[(0,) * len(shape)] = 0  # a copy: the source is untouched
        assert xp.asnumpy(x)[(0,) * len(shape)] == a[(0,) * len(shape)]
    for m in [1, 3, 4, 8, 17, 64, 250]:
        row = (rng.standard_normal(m) * 10).astype(dtype)
        v = xp.asarray(row, device="cuda:0")
        for src in (v, v[1:] if m > 1 else v):
            want = np.broadcast_to(xp.asnumpy(src), (9, src.shape[0]))
            got = xp.asarray(xp.broadcast_to(xp.expand_dims(src, axis=0), (9, src.shape[0])), copy=True)
            np.testing.assert_array_equal(xp.asnumpy(got), want)


def test_first_gpu_call_of_a_worker_thread():
    """A thread whose first CUDA call is one of the project's own kernel launches (the
    driver API, which needs a current context) computes, as joblib's threads do in
    scikit-learn's pairwise_distances(n_jobs=2)."""
    import threading

    x = xp.asarray(np.arange(4096, dtype=np.float32), device="cuda:0")
    got: list = []

    def work() -> None:
        try:
            got.append(xp.asnumpy(xp.sum(x + x, axis=0)))
        except Exception as exc:  # reported in the main thread
            got.append(exc)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [float(g) if not isinstance(g, Exception) else g for g in got] == [4096 * 4095.0] * 3


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.float32, np.float64, np.complex128])
def test_roll_kernel_matches_numpy(dtype):
    rng = np.random.default_rng(9)
    for shape in [(1,), (7,), (1000,), (6, 5), (3, 4, 5)]:
        a = (rng.standard_normal(shape) * 100).astype(dtype)
        x = xp.asarray(a, device="cuda:0")
        for shift in (0, 1, -1, 3, -7, 1234, -(2**62)):
            np.testing.assert_array_equal(xp.asnumpy(xp.roll(x, shift)), np.roll(a, shift))
            for ax in range(len(shape)):
                np.testing.assert_array_equal(xp.asnumpy(xp.roll(x, shift, axis=ax)),
                                              np.roll(a, shift, axis=ax))
        if len(shape) > 1:
            np.testing.assert_array_equal(xp.asnumpy(xp.roll(x, (1, -2), axis=(0, 1))),
                                          np.roll(a, (1, -2), axis=(0, 1)))
    # a strided view takes the general path, with the same values
    a = np.arange(40, dtype=dtype).reshape(8, 5)
    x = xp.asarray(a, device="cuda:0")
    np.testing.assert_array_equal(xp.asnumpy(xp.roll(x[:, ::2], 1, axis=1)), np.roll(a[:, ::2], 1, axis=1))


@pytest.mark.parametrize("dtype", FLOAT)
def test_linspace_kernel_matches_numpy_bit_for_bit(dtype):
    """linspace computes in double precision as NumPy does and rounds once."""
    cases = [(0, 1, 100, True), (0, 1, 100, False), (-3.5, 7.25, 1001, True), (5, 5, 7, True),
             (1e-300, 2e-300, 9, True), (0, 1e-320, 5, True), (2.0, -1.0, 1, True),
             (2.0, -1.0, 1, False), (0, 1, 2, True), (1, 0, 3, False), (0, 2**60, 33, True)]
    for start, stop, num, endpoint in cases:
        got = xp.asnumpy(xp.linspace(start, stop, num, endpoint=endpoint, dtype=xp.float64 if dtype == np.float64 else xp.float32, device="cuda:0"))
        want = np.linspace(start, stop, num, endpoint=endpoint).astype(dtype)
        np.testing.assert_array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}"),
                                      err_msg=f"linspace({start}, {stop}, {num}, endpoint={endpoint})")
    assert xp.linspace(0, 1, 0, device="cuda:0").shape == (0,)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
def test_arange_kernel_matches_cupy(dtype):
    for start, stop, step in [(0, 100, 1), (5, -7, -2), (3, 1000, 7), (0, 10, 3)]:
        got = xp.asnumpy(xp.arange(start, stop, step, dtype=getattr(xp, np.dtype(dtype).name), device="cuda:0"))
        np.testing.assert_array_equal(got, cupy.asnumpy(cupy.arange(start, stop, step, dtype=dtype)))
        np.testing.assert_array_equal(got, np.arange(start, stop, step, dtype=dtype))
    if np.dtype(dtype).kind == "f":
        got = xp.asnumpy(xp.arange(0.1, 7.3, 0.7, dtype=getattr(xp, np.dtype(dtype).name), device="cuda:0"))
        want = cupy.asnumpy(cupy.arange(0.1, 7.3, 0.7, dtype=dtype))
        np.testing.assert_array_equal(got, want)
        np.testing.assert_allclose(got, np.arange(0.1, 7.3, 0.7, dtype=dtype), rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int64, np.float32, np.float64])
def test_unique_values_kernel_matches_numpy(dtype):
    """unique_values by sort, run flags and compaction: NumPy's values (each NaN its own
    value, -0.0 and 0.0 one value), for short rows (the bitonic sort) and long ones."""
    rng = np.random.default_rng(4)
    for n in (1, 2, 100, 4096, 4097, 100_000):
        a = rng.integers(0, 50, n).astype(dtype)
        if np.dtype(dtype).kind == "f":
            a[rng.random(n) < 0.1] = np.nan
            a[rng.random(n) < 0.1] = -0.0
        got = xp.asnumpy(xp.unique_values(xp.asarray(a.reshape(-1, 1) if n % 2 else a, device="cuda:0")))
        want = np.unique(a, equal_nan=False)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.int32, np.int64, np.float32, np.float64])
def test_radix_row_sort_matches_bitonic_and_numpy(dtype):
    """Rows longer than BITONIC_MAX go to CUB's block radix sort: the bitonic kernel's
    results bit for bit (both orders, sort and argsort, NaNs and signed zeros), and
    NumPy's stable ascending sort."""
    from usmarray._backend._cuda.kernels import sort as ks
    if be.sorts.cub is None:
        pytest.skip("CuPy ships no CCCL headers here")
    rng = np.random.default_rng(8)
    for R in (ks.BITONIC_MAX + 1, 1000, 2048, 4096):
        a = (rng.standard_normal((3, R)) * 20).astype(dtype)
        if np.dtype(dtype).kind == "f":
            a[0, rng.random(R) < 0.05] = np.nan
            a[1, rng.random(R) < 0.2] = -0.0
            a[1, rng.random(R) < 0.2] = 0.0
        g = be.from_host(a, "device", None)
        for descending in (False, True):
            for name in ("sort", "argsort"):
                got = be.to_host(getattr(be, name)(g, axis=-1, descending=descending))
                if R <= ks.MAX_ROW // (2 if a.itemsize == 8 else 1):
                    saved, be.sorts.cub = be.sorts.cub, None
                    try:
                        ref = be.to_host(getattr(be, name)(g, axis=-1, descending=descending))
                    finally:
                        be.sorts.cub = saved
                    np.testing.assert_array_equal(got.view(np.uint8), ref.view(np.uint8))
                if not descending:
                    want = np.argsort(a, axis=-1, kind="stable") if name == "argsort" else np.sort(a, axis=-1)
                    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", FLOAT)
def test_det_slogdet_kernel_matches_numpy(dtype):
    """det and slogdet of one real matrix from cuSOLVER's LU and one kernel: NumPy's
    values, signs (pivots included), zeros of singular matrices, NaN and overflow."""
    rng = np.random.default_rng(12)
    tol = 2e-4 if dtype == np.float32 else 1e-10
    cases = [rng.standard_normal((n, n)) for n in (1, 2, 5, 64, 300)]
    cases += [np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([[1.0, 2.0], [2.0, 4.0]]),
              np.zeros((3, 3)), np.diag([1e30, 1e30, -1e30]), np.array([[np.nan, 1.0], [1.0, 2.0]]),
              -np.eye(3)]
    for m in cases:
        m = m.astype(dtype)
        x = xp.asarray(m, device="cuda:0")
        with np.errstate(all="ignore"):
            s_want, l_want = np.linalg.slogdet(m.astype(np.float64))
            d_want = np.linalg.det(m).astype(dtype)
        sign, logabs = xp.linalg.slogdet(x)
        if np.isnan(m).any():  # the sign of a NaN matrix is the pivoting's (unspecified)
            assert np.isnan(float(logabs)) and np.isnan(float(xp.linalg.det(x)))
            continue
        assert float(sign) == s_want, (m, float(sign), s_want)
        np.testing.assert_allclose(float(logabs), l_want, rtol=tol, atol=tol * 50)
        d = float(xp.linalg.det(x))
        np.testing.assert_allclose(d, d_want, rtol=tol * 50, atol=tol)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64])
def test_index_range_kernel(dtype):
    rng = np.random.default_rng(13)
    for size in (1, 100, 70_000):
        i = rng.integers(-50, 50, size).astype(dtype)
        g = be.from_host(i, "device", None)
        assert be.index_out_of_range(g, 50) is False
        assert be.index_out_of_range(g, 51) is False
        tight = max(-int(i.min()), int(i.max()) + 1)  # the smallest n that holds every index
        assert be.index_out_of_range(g, tight) is False
        assert be.index_out_of_range(g, tight - 1) is True
        j = i.copy()
        j[size // 2] = 50
        assert be.index_out_of_range(be.from_host(j, "device", None), 50) is True
        j[size // 2] = -51
        assert be.index_out_of_range(be.from_host(j, "device", None), 50) is True
    assert be.index_out_of_range(be.from_host(np.arange(3, dtype=np.uint8), "device", None), 3) is None
