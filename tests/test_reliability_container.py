"""Crafted views through the ``usm_ndarray`` constructor on every backend.

The promise of tests/test_reliability_views.py (guarantee 1 of docs/guarantees.md),
checked with backend-neutral means on the SYCL device, the NumPy backend and a CUDA
GPU: a view that is accepted reads (and writes) exactly the elements that
``buf[offset + sum(strides[k] * i[k])]`` names; any other input raises ValueError or
TypeError (MemoryError for an allocation too large), never a crash and never a read
outside the buffer.  The buffers are arrays of bytes with a known pattern (whole, or
a slice of one: offsets then count from the start of the whole allocation), CuPy
memory objects on CUDA, and new allocations of every kind the device has, which hold
exactly the elements the view addresses, the lowest one first (as the SYCL provider
allocates them).

Every check runs in a child interpreter (tests/test_reliability_common.py), so a
segfault fails the test with the last input begun instead of killing pytest.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_reliability_common import (
    ALLOWED_VIEW_ERRORS,
    assert_child_ok,
    begin,
    child_main,
    device_params,
)
from test_reliability_views import (
    BAD_DTYPES,
    DTYPES,
    contiguous_strides,
    dense_overlap,
    extent,
    model_read,
    pattern_bytes,
    same_bytes,
    scalar_for,
)

MOD = "test_reliability_container"
DEVICES = device_params("opencl:cpu", "numpy", "cuda:0")


def _aliases(shape, strides) -> bool:
    return any(s == 0 and n > 1 for n, s in zip(shape, strides, strict=True)) and \
        int(np.prod(shape)) > 1


def _make_buffer(xp, kind, nbytes, dtype, device):
    """(buffer argument, read() -> the allocation's bytes now, byte model)."""
    pat = pattern_bytes(nbytes, dtype)
    if kind in ("mem_pointer", "mem_unowned", "mem_managed"):
        import cupy

        owner = cupy.asarray(pat) if kind != "mem_managed" else None
        if kind == "mem_pointer":
            buf = owner.data  # a MemoryPointer over pool memory: its chunk may be larger
            size = owner.data.mem.size - (owner.data.ptr - owner.data.mem.ptr)
            model = np.concatenate([pat, np.zeros(size - nbytes, np.uint8)])
            cupy.ndarray((size,), cupy.uint8, buf)[nbytes:] = 0
            return buf, lambda: cupy.ndarray((size,), cupy.uint8, buf).get(), model
        if kind == "mem_unowned":
            buf = cupy.cuda.UnownedMemory(owner.data.ptr, nbytes, owner)
            return buf, lambda: owner.get(), pat
        mp = cupy.cuda.malloc_managed(nbytes)
        view = cupy.ndarray((nbytes,), cupy.uint8, mp)
        view.set(pat)
        return mp, lambda: view.get(), pat
    usm_type = {"array": "device", "array_slice": "shared"}[kind]
    if usm_type not in xp.Device.create_device(device)._be.usm_types:
        usm_type = None
    arr = xp.asarray(pat, dtype=xp.uint8, device=device, usm_type=usm_type)
    read = lambda: xp.asnumpy(arr)  # noqa: E731
    if kind == "array_slice":
        return arr[nbytes // 3:][::2], read, pat
    return arr, read, pat


def _check_accepted_view(xp, a, read, model, dtype, shape, strides, eff_off, backend):
    want = model_read(model, dtype, shape, strides, eff_off)
    got = xp.asnumpy(a)
    assert same_bytes(got, want), (got, want)
    copied = xp.asnumpy(xp.asarray(a, copy=True))  # the backend's copy kernel
    assert same_bytes(copied, want), (copied, want)
    if not a.size:
        return
    idx = tuple(n - 1 for n in shape)
    assert same_bytes(xp.asnumpy(a[idx]), want[idx])
    if not a.flags.writable:
        # CUDA arrays whose elements share an address are read-only (docs/guarantees.md
        # guarantee 12); nothing else may be
        assert backend == "cuda" and _aliases(shape, strides), "a crafted view is read-only"
        return
    # a write lands on exactly the element the formula names, nowhere else
    v = scalar_for(dtype)
    a[idx] = v
    a.device.wait()
    e = eff_off + sum(s * i for s, i in zip(strides, idx, strict=True))
    isz = np.dtype(dtype).itemsize
    expect = model.copy()
    expect[e * isz:(e + 1) * isz] = np.frombuffer(np.array(v, dtype=dtype).tobytes(), np.uint8)
    assert np.array_equal(read(), expect), "a write through the view touched other bytes"


def _prop_constructor(device):
    from hypothesis import assume, given, settings
    from hypothesis import strategies as st

    import usmarray as xp

    xp.set_default_device(device)
    be = xp.Device.create_device(device)._be
    kinds = ["array", "array_slice", *be.usm_types]
    if be.name == "cuda":
        kinds += ["mem_pointer", "mem_unowned", "mem_managed"]

    @settings(max_examples=settings.default.max_examples * 10)
    @given(st.data())
    def check(data):
        kind = data.draw(st.sampled_from(kinds), "buffer")
        dtype = data.draw(st.sampled_from(DTYPES), "dtype")
        isz = np.dtype(dtype).itemsize
        ndim = data.draw(st.integers(0, 4), "ndim")
        shape = tuple(data.draw(st.lists(st.integers(0, 5), min_size=ndim, max_size=ndim), "shape"))
        allocating = kind in be.usm_types
        big = 2**63 - 1 if not allocating else 8
        small = st.integers(-9, 9)
        stride_el = small if allocating else st.one_of(small, st.integers(-big, big))
        strides = data.draw(st.one_of(st.none(), st.lists(stride_el, min_size=ndim, max_size=ndim)
                                      .map(tuple)), "strides")
        off_st = st.integers(-3, 60) if allocating else st.one_of(st.integers(-3, 60), st.integers(-big, big))
        offset = data.draw(off_st, "offset")
        order = data.draw(st.sampled_from(["C", "F"]), "order")
        nbytes = 16 * data.draw(st.integers(1, 20), "nbytes / 16")
        if strides is not None:
            assume(not dense_overlap(shape, strides))
        begin(f"usm_ndarray({shape}, {dtype!r}, buffer={kind}[{nbytes} B], strides={strides}, "
              f"offset={offset}, order={order!r}) on {device}")
        if allocating:
            buffer, read, model = kind, None, None
        else:
            buffer, read, model = _make_buffer(xp, kind, nbytes, dtype, device)
        full = strides if strides is not None else contiguous_strides(shape, order)
        if 0 in shape:
            valid, eff = offset >= 0, offset
        else:
            lo, hi = extent(shape, full)
            eff = -lo if (strides is not None and offset == 0 and lo < 0) else offset
            cap = None if allocating else model.size
            valid = eff + lo >= 0 and (cap is None or (eff + hi + 1) * isz <= cap)
        try:
            a = xp.usm_ndarray(shape, dtype=dtype, buffer=buffer, strides=strides, offset=offset,
                               order=order)
        except ALLOWED_VIEW_ERRORS as exc:
            huge = any(abs(v) >= 2**62 for v in (*shape, *(strides or ()), offset))
            assert not valid or 0 in shape or huge, f"a valid view was refused: {exc!r}"
            tally["refused"] += 1
            return
        assert valid, "an out-of-bounds view was accepted"
        tally["accepted"] += 1
        assert a.shape == shape and a.dtype == getattr(xp, np.dtype(dtype).name)
        assert a.device == xp.Device.create_device(device)
        if 0 in shape:
            assert xp.asnumpy(a).shape == shape
            return
        if strides is not None:
            assert a.strides == strides
        if allocating:
            assert a.usm_type == kind
            # the allocation holds the addressed elements, the lowest first: fill it
            # through a flat byte view, then check the view against that model
            lo, hi = extent(shape, full)
            span = (hi - lo + 1) * isz
            whole = xp.usm_ndarray((span,), dtype="u1", buffer=a)
            model = pattern_bytes(span, dtype)
            whole[...] = xp.asarray(model, device=a.device)
            read, eff = (lambda: xp.asnumpy(whole)), -lo
        _check_accepted_view(xp, a, read, model, dtype, shape, full, eff, be.name)

    tally = {"accepted": 0, "refused": 0}
    check()
    print("SUMMARY", tally)


def _prop_constructor_garbage(device):
    from hypothesis import given, settings
    from hypothesis import strategies as st

    import usmarray as xp

    xp.set_default_device(device)
    be = xp.Device.create_device(device)._be
    junk = st.sampled_from([None, "x", 1.5, -1, [1, 2], (1.0,), object(), b"ab", np.float64(2.0),
                            (2, -1), (2, None), ((2,),), True, (True, 2)])

    @settings(max_examples=settings.default.max_examples * 10)
    @given(st.data())
    def check(data):
        base = dict(shape=(2, 3), dtype="f8", buffer=be.usm_types[0], strides=None, offset=0,
                    order="C")
        for _ in range(data.draw(st.integers(1, 3), "n_bad")):
            key = data.draw(st.sampled_from(["shape", "dtype", "buffer", "strides", "offset", "order",
                                             "buffer_ctor_kwargs"]), "which")
            if key == "shape":
                val = data.draw(st.one_of(junk, st.tuples(st.integers(-5, -1))))
            elif key == "dtype":
                val = data.draw(st.one_of(st.sampled_from(BAD_DTYPES), junk))
            elif key == "buffer":
                val = data.draw(st.one_of(st.sampled_from(["bogus", "", "DEVICE", bytearray(16),
                                                           np.zeros(8), [0] * 8]), junk))
            elif key == "strides":
                val = data.draw(st.one_of(junk, st.tuples(st.integers(-3, 3)),
                                          st.tuples(st.integers(-3, 3), st.integers(-3, 3),
                                                    st.integers(-3, 3))))
            elif key == "offset":
                val = data.draw(st.one_of(st.sampled_from([1.5, None, "1", (1,)]), st.just(np.float32(1))))
            elif key == "order":
                val = data.draw(st.sampled_from(["K", "A", "c", None, 0, "CF"]))
            else:
                val = data.draw(st.sampled_from([5, "queue", {"queue": 5}, {"bogus": 1},
                                                 {"queue": "cpu"}, [("queue", None)],
                                                 {"copy": "yes"}, {"alignment": -4}]))
            base[key] = val
        shape = base.pop("shape")
        begin(f"usm_ndarray({shape!r}, **{base!r}) on {device}")
        try:
            a = xp.usm_ndarray(shape, **base)
        except ALLOWED_VIEW_ERRORS:
            return
        # accepted only where every argument was meaningful; then the view is sound: its
        # allocation holds the elements it addresses, and it reads
        assert a.device._be is be, "placed on another backend"
        if a.size:
            lo, hi = extent(a.shape, a.strides)
            xp.usm_ndarray((hi - lo + 1,), dtype=a.dtype, buffer=a)
        xp.asnumpy(a)

    check()


def _overflowing_allocations(device):
    """Constructors whose extent overflows 64 bits, and sound views with ints beyond
    int64: refused (ValueError, TypeError or MemoryError), never accepted or crashed."""
    import usmarray as xp

    xp.set_default_device(device)
    problems = []
    for shape, dtype, strides in [((3,), "f8", (2**60,)), ((2**31, 2**31, 4), "u1", None),
                                  ((2,), "f8", (2**63,)), ((2**63,), "u1", None)]:
        begin(f"usm_ndarray({shape}, {dtype!r}, strides={strides}) on {device}")
        try:
            a = xp.usm_ndarray(shape, dtype=dtype, strides=strides)
        except (*ALLOWED_VIEW_ERRORS, MemoryError):
            continue
        except Exception as exc:  # noqa: BLE001 - the type is what is tested
            problems.append(f"{shape} strides={strides}: {type(exc).__name__}: {exc}")
            continue
        problems.append(f"{shape} strides={strides}: accepted, size={a.size}")
    mem = xp.zeros(64, dtype=xp.uint8)
    for shape, dtype, strides, offset in [((1,), "f8", (2**63,), 0), ((0,), "f8", None, 2**63)]:
        begin(f"usm_ndarray({shape}, {dtype!r}, strides={strides}, offset={offset}, buffer=mem)")
        try:
            xp.usm_ndarray(shape, dtype=dtype, strides=strides, offset=offset, buffer=mem)
        except Exception as exc:  # noqa: BLE001
            if not isinstance(exc, ALLOWED_VIEW_ERRORS):
                problems.append(f"{shape} strides={strides} offset={offset}: "
                                f"{type(exc).__name__}: {exc}")
    assert not problems, "\n".join(problems)


def _dense_overlapping_views(device):
    """Views that address exactly size elements, some twice: every read path gives the
    strided formula's elements, or the view is refused."""
    import usmarray as xp

    xp.set_default_device(device)
    vals = np.arange(16, dtype=np.int32)
    problems = []
    for shape, strides in [((4, 4), (2, 3)), ((3, 3), (2, 2)), ((2, 2, 2), (1, 3, 3))]:
        begin(f"usm_ndarray({shape}, 'i4', strides={strides}) over 16 int32 on {device}")
        buf = xp.asarray(vals)
        try:
            a = xp.usm_ndarray(shape, dtype="i4", buffer=buf, strides=strides)
        except ALLOWED_VIEW_ERRORS:
            continue
        want = model_read(vals.view(np.uint8), "i4", shape, strides, 0)
        for name, read in {
            "asnumpy": lambda a=a: xp.asnumpy(a),
            "asarray(copy=True)": lambda a=a: xp.asnumpy(xp.asarray(a, copy=True)),
            "negative(negative(x))": lambda a=a: xp.asnumpy(xp.negative(xp.negative(a))),
            "astype(int64)": lambda a=a: xp.asnumpy(xp.astype(a, xp.int64)).astype(np.int32),
        }.items():
            begin(f"{shape} strides {strides}: {name}")
            got = read()
            if not np.array_equal(got, want):
                problems.append(f"{shape} strides {strides}: {name} read {got.ravel().tolist()}, "
                                f"want {want.ravel().tolist()}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("device", DEVICES)
def test_constructor_views_read_and_write_what_the_formula_names(device):
    assert_child_ok(MOD, "_prop_constructor", device, timeout=240)


@pytest.mark.parametrize("device", DEVICES)
def test_constructor_refuses_garbage_arguments(device):
    assert_child_ok(MOD, "_prop_constructor_garbage", device, timeout=120)


@pytest.mark.parametrize("device", DEVICES)
def test_constructor_refuses_allocations_whose_extent_overflows(device):
    assert_child_ok(MOD, "_overflowing_allocations", device, timeout=60)


@pytest.mark.parametrize("device", DEVICES)
def test_dense_overlapping_views_read_the_formula(device):
    assert_child_ok(MOD, "_dense_overlapping_views", device, timeout=60)


if __name__ == "__main__":
    child_main(globals())
