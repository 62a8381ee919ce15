"""The usm_ndarray container on every backend: the specification's constructor
examples, out-of-bounds views, bad arguments, placement, read-only inheritance and
lifetime, with the same expected values on the SYCL device, the NumPy backend and a
CUDA GPU (``cuda:0`` is marked ``gpu`` and skips without CuPy and a GPU).

Every check here is backend-neutral: the buffer an allocation holds is observed
through the constructor itself (a flat view of ``n`` elements over an array is
accepted exactly when its allocation holds ``n`` elements).  The SYCL-only checks of
the same examples (``usm_data``, ``__sycl_usm_array_interface__``, ``MemoryUSM*``
objects) stay in tests/test_array.py; CuPy's memory objects are tested below.
"""

from __future__ import annotations

import gc

import numpy as np
import pytest
from test_reliability_common import device_params

import usmarray as xp
from usmarray import usm_ndarray

DEVICES = device_params("opencl:cpu", "numpy", "cuda:0")


@pytest.fixture(params=DEVICES)
def device(request):
    with xp.using_device(request.param) as dev:
        yield dev


def kind(dev, wanted: str) -> str:
    """The specification's memory kind where the device has it, else the device's only kind (the
    NumPy backend has "host" memory only)."""
    kinds = dev._be.usm_types
    return wanted if wanted in kinds else kinds[0]


def holds(a, n: int, dtype) -> bool:
    """Whether the allocation under ``a`` holds ``n`` elements of ``dtype`` (a flat
    view of them over ``a`` is accepted)."""
    try:
        usm_ndarray((n,), dtype=dtype, buffer=a)
    except ValueError:
        return False
    return True


def flat(a, n: int, dtype):
    """The first ``n`` elements of the allocation under ``a``, as NumPy values."""
    return xp.asnumpy(usm_ndarray((n,), dtype=dtype, buffer=a))


def test_c_contiguous_allocation(device):
    a = usm_ndarray((2, 3), dtype="u2", buffer=kind(device, "device"))
    assert a.device == device and a.usm_type == kind(device, "device")
    assert a.shape == (2, 3) and a.strides == (3, 1) and a.dtype == xp.uint16
    assert a.flags.c_contiguous and a.flags.writable
    assert holds(a, 6, "u2") and not holds(a, 7, "u2")  # 12 bytes
    a[...] = xp.reshape(xp.arange(6, dtype=xp.uint16), (2, 3))
    assert flat(a, 6, "u2").tolist() == [0, 1, 2, 3, 4, 5]


def test_strided_allocation(device):
    a = usm_ndarray((2, 3), dtype="i8", buffer=kind(device, "shared"), strides=(6, 1))
    assert a.strides == (6, 1) and a.usm_type == kind(device, "shared")
    assert not a.flags.c_contiguous
    assert holds(a, 9, "i8") and not holds(a, 10, "i8")  # 9 * 8 bytes
    a[...] = xp.asarray([[1, 2, 3], [4, 5, 6]], dtype=xp.int64)
    got = flat(a, 9, "i8")
    assert got[[0, 1, 2, 6, 7, 8]].tolist() == [1, 2, 3, 4, 5, 6]


def test_negative_strides_offset_is_computed(device):
    a = usm_ndarray((2, 2), dtype="u1", buffer=kind(device, "host"), strides=(2, -1))
    assert a.strides == (2, -1) and a.usm_type == kind(device, "host")
    assert holds(a, 4, "u1") and not holds(a, 5, "u1")
    a[...] = xp.asarray([[10, 11], [12, 13]], dtype=xp.uint8)
    # buf_flat = {a[0, 1], a[0, 0], a[1, 1], a[1, 0]}: the offset was computed to be 1
    assert flat(a, 4, "u1").tolist() == [11, 10, 13, 12]


def test_view_of_memory_with_negative_strides_and_offset(device):
    mem = xp.zeros(64, dtype=xp.uint8, usm_type=kind(device, "shared"))  # 8 doubles
    a = usm_ndarray((4,), dtype="f8", buffer=mem, strides=(-2,), offset=7)
    assert a.device == device and a.usm_type == mem.usm_type
    a[...] = xp.asarray([0.0, 1.0, 2.0, 3.0])
    got = flat(mem, 8, "f8")
    np.testing.assert_array_equal(got[[7, 5, 3, 1]], [0.0, 1.0, 2.0, 3.0])
    np.testing.assert_array_equal(got[[0, 2, 4, 6]], 0.0)  # the other elements untouched


def test_view_over_an_array_shares_its_memory(device):
    w = usm_ndarray((4, 2), dtype="i4", buffer=kind(device, "device"), strides=(-5, -2))
    w[...] = xp.reshape(xp.arange(8, dtype=xp.int32), (4, 2))
    w2 = usm_ndarray(w.shape, dtype=w.dtype, buffer=w, strides=w.strides)
    assert w2.strides == w.strides and w2.device == w.device and w2.usm_type == w.usm_type
    np.testing.assert_array_equal(xp.asnumpy(w2), np.arange(8).reshape(4, 2))
    w2[3, 1] = -1  # one buffer: the write shows through w
    assert int(w[3, 1]) == -1 and int(xp.sum(w)) == 20


@pytest.mark.parametrize(
    "shape, strides, offset",
    [((4,), (3,), 0), ((4,), (-2,), 5), ((2, 2), (1, 1), 7), ((3,), (1,), -1), ((9,), None, 0),
     ((2, 3), (-3, 1), 2), ((1,), None, 8)],
)
def test_out_of_bounds_views_are_refused(device, shape, strides, offset):
    mem = xp.zeros(64, dtype=xp.uint8)  # 8 float64 elements
    with pytest.raises(ValueError, match="buffer|negative"):
        usm_ndarray(shape, dtype="f8", buffer=mem, strides=strides, offset=offset)


@pytest.mark.parametrize(
    "shape, strides, offset, addresses",
    [((4,), (2,), 1, [1, 3, 5, 7]), ((4,), (-2,), 7, [7, 5, 3, 1]), ((8,), None, 0, list(range(8))),
     ((2, 2), (-1, 4), 0, [1, 5, 0, 4]), ((3,), (0,), 7, [7, 7, 7]), ((0, 5), (9, 9), 3, [])],
)
def test_accepted_views_read_the_formula(device, shape, strides, offset, addresses):
    """``a[i] == buf_flat[offset + sum(strides[k] * i[k])]`` (offset auto-computed to the
    lowest element where it is 0 and a stride is negative)."""
    mem = xp.asarray(np.arange(8, dtype=np.float64) + 0.5)
    a = usm_ndarray(shape, dtype="f8", buffer=mem, strides=strides, offset=offset)
    want = (np.arange(8) + 0.5)[addresses]
    np.testing.assert_array_equal(xp.asnumpy(a).ravel(), want)
    np.testing.assert_array_equal(xp.asnumpy(xp.asarray(a, copy=True)).ravel(), want)


def test_bad_constructor_arguments(device):
    with pytest.raises(TypeError):
        usm_ndarray((2,), dtype="f2")  # not a standard dtype
    with pytest.raises(ValueError, match="'device', 'shared' or 'host'"):
        usm_ndarray((2,), buffer="pinned")
    with pytest.raises(ValueError):
        usm_ndarray((-1,))
    with pytest.raises(TypeError):
        usm_ndarray((2,), buffer=object())
    with pytest.raises(TypeError):
        usm_ndarray((2,), buffer=np.zeros(8))  # host memory of no backend's array
    with pytest.raises(ValueError):
        usm_ndarray((2, 2), strides=(1,))
    with pytest.raises(ValueError):
        usm_ndarray((2,), order="K")
    with pytest.raises(TypeError):
        usm_ndarray((2,), buffer_ctor_kwargs={"bogus": 1})
    with pytest.raises(ValueError):
        usm_ndarray((2,), buffer_ctor_kwargs={"alignment": 3})
    with pytest.raises((TypeError, ValueError)):
        usm_ndarray((2,), buffer_ctor_kwargs={"queue": 5})
    with pytest.raises(MemoryError, match=str(2**62)):
        usm_ndarray((2**62,), dtype="u1")


def test_offsets_count_from_the_start_of_the_allocation(device):
    """A view of a view counts from the start of the memory both share (on SYCL the
    ``usm_data``), not from the first element of the array given as buffer."""
    x = xp.asarray(np.arange(8.0) * 10)
    v = usm_ndarray((2,), dtype="f8", buffer=x, offset=4)
    assert xp.asnumpy(usm_ndarray((1,), dtype="f8", buffer=v)).tolist() == [0.0]
    assert xp.asnumpy(usm_ndarray((8,), dtype="f8", buffer=v[::-1])).tolist() == list(
        np.arange(8.0) * 10)
    n = usm_ndarray((3,), dtype="f8", buffer=kind(device, "device"))
    n[...] = xp.asarray([1.0, 2.0, 3.0])
    w = usm_ndarray((2,), dtype="f8", buffer=n, strides=(-1,), offset=2)  # a view of new memory
    assert xp.asnumpy(usm_ndarray((3,), dtype="f8", buffer=w)).tolist() == [1.0, 2.0, 3.0]


def test_alignment_is_honoured(device):
    a = usm_ndarray((3,), dtype="u1", buffer_ctor_kwargs={"alignment": 4096})
    a[...] = xp.asarray([1, 2, 3], dtype=xp.uint8)
    assert xp.asnumpy(a).tolist() == [1, 2, 3]
    # the allocation a later view counts from starts at the aligned first element
    assert xp.asnumpy(usm_ndarray((3,), dtype="u1", buffer=a)).tolist() == [1, 2, 3]
    assert not holds(a, 4, "u1")
    if device._be.name == "numpy":
        assert a._arr.ctypes.data % 4096 == 0
    elif device._be.name == "cuda":
        assert a._arr.data.ptr % 4096 == 0


def test_numpy_device_has_host_memory_only():
    with xp.using_device("numpy"):
        a = usm_ndarray((3,), dtype="f4")  # the default buffer: the device's default kind
        assert a.device == xp.Device.create_device("numpy") and a.usm_type == "host"
        assert usm_ndarray((3,), dtype="f4", buffer="host").usm_type == "host"
        for k in ("device", "shared"):
            with pytest.raises(ValueError, match="not available on the 'numpy' backend"):
                usm_ndarray((3,), dtype="f4", buffer=k)


@pytest.mark.parametrize("other", DEVICES)
def test_placement_follows_the_buffer_then_the_default_device(other):
    """A view goes to its buffer's device whatever the default device is; a new
    allocation goes to the default device; never to another backend."""
    b = xp.asarray(np.arange(8.0), device="numpy")
    with xp.using_device(other) as dev:
        v = usm_ndarray((3,), "f8", buffer=b, strides=(-2,), offset=5)
        assert v.device == b.device
        assert xp.asnumpy(v).tolist() == [5.0, 3.0, 1.0]
        assert usm_ndarray((3,), "f4").device == dev
    with xp.using_device("numpy"):
        o = xp.asarray(np.arange(4.0), device=other)
        w = usm_ndarray((2,), "f8", buffer=o, offset=2)
        assert w.device == o.device and xp.asnumpy(w).tolist() == [2.0, 3.0]


@pytest.mark.parametrize("other", DEVICES)
def test_a_queue_keyword_names_the_backend(other):
    numpy_dev = xp.Device.create_device("numpy")
    with xp.using_device(other):
        a = usm_ndarray((2,), dtype="f8", buffer="host", buffer_ctor_kwargs={"queue": numpy_dev._q})
        assert a.device == numpy_dev
    with xp.using_device("numpy"):
        with pytest.raises((TypeError, ValueError)):
            usm_ndarray((2,), buffer_ctor_kwargs={"queue": 5})
        dev = xp.Device.create_device(other)
        b = usm_ndarray((2,), dtype="f8", buffer_ctor_kwargs={"queue": dev._q})
        assert b.device == dev


def test_read_only_is_inherited(device):
    b = xp.broadcast_to(xp.asarray([1.0, 2.0]), (3, 2))
    v = usm_ndarray((2,), dtype="f8", buffer=b)
    assert not v.flags.writable
    with pytest.raises(ValueError):
        v[0] = 5.0
    c = xp.asarray([1.0, 2.0, 3.0])
    c.flags.writable = False
    r = usm_ndarray((2,), dtype="f8", buffer=c, offset=1)
    assert not r.flags.writable and xp.asnumpy(r).tolist() == [2.0, 3.0]
    with pytest.raises(ValueError):
        r[0] = 0.0
    assert xp.asnumpy(c).tolist() == [1.0, 2.0, 3.0]


def test_the_view_keeps_its_buffer_alive(device):
    x = xp.asarray(np.arange(4096, dtype=np.float64))
    v = usm_ndarray((2048,), dtype="f8", buffer=x[::3], strides=(-2,), offset=4095)
    del x
    gc.collect()
    junk = [xp.full((4096,), -7.0) for _ in range(6)]  # reuse the freed memory, if any
    np.testing.assert_array_equal(xp.asnumpy(v), np.arange(4096.0)[::-2])
    del junk


def test_empty_views_take_any_sound_offset(device):
    mem = xp.zeros(8, dtype=xp.uint8)
    e = usm_ndarray((0, 3), dtype="f8", buffer=mem, offset=100)
    assert e.shape == (0, 3) and xp.asnumpy(e).shape == (0, 3)
    with pytest.raises(ValueError, match="negative"):
        usm_ndarray((0,), dtype="f8", buffer=mem, offset=-1)


@pytest.mark.parametrize("cuda", device_params("cuda:0"))
def test_cuda_memory_objects_as_buffers(cuda):
    """buffer= takes CuPy's memory objects, as SYCL takes dpctl's MemoryUSM*: the bytes
    are checked with the driver, the view keeps the memory alive, and kinds carry over."""
    import cupy

    with xp.using_device(cuda) as dev:
        mp = cupy.cuda.alloc(64)
        cupy.ndarray((8,), cupy.float64, mp)[...] = cupy.arange(8.0)
        a = usm_ndarray((4,), dtype="f8", buffer=mp, strides=(-2,), offset=7)
        assert a.device == dev and a.usm_type == "device"
        assert xp.asnumpy(a).tolist() == [7.0, 5.0, 3.0, 1.0]
        del mp
        gc.collect()
        _ = [cupy.full(64, 255, dtype=cupy.uint8) for _ in range(4)]
        assert xp.asnumpy(a).tolist() == [7.0, 5.0, 3.0, 1.0]  # kept alive by the view

        managed = cupy.cuda.malloc_managed(64)
        m = usm_ndarray((8,), dtype="f8", buffer=managed)
        assert m.usm_type == "shared"
        m[...] = xp.arange(8.0)
        dev.wait()
        assert cupy.ndarray((8,), cupy.float64, managed).get().tolist() == list(range(8))

        base = cupy.arange(8, dtype=cupy.float64)
        um = cupy.cuda.UnownedMemory(base.data.ptr + 8, 48, base)
        u = usm_ndarray((6,), dtype="f8", buffer=um)
        assert xp.asnumpy(u).tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
        with pytest.raises(ValueError, match="buffer"):
            usm_ndarray((7,), dtype="f8", buffer=um)
        with pytest.raises(ValueError, match="not aligned"):
            usm_ndarray((2,), dtype="f8", buffer=cupy.cuda.MemoryPointer(base.data.mem, 4))
        with pytest.raises(ValueError):  # claims bytes that are no CUDA memory
            usm_ndarray((1,), dtype="u1", buffer=cupy.cuda.UnownedMemory(8, 16, None, 0))

