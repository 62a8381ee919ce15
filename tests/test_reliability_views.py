"""Crafted views: the constructor, ``__sycl_usm_array_interface__`` and DLPack imports.

Promise: a view that is accepted reads (and writes) exactly the elements that
``buf[offset + sum(strides[k] * i[k])]`` names; any other input raises ValueError or
TypeError (DLPack: also BufferError, the standard's error for an impossible
exchange), never a crash and never a read outside the buffer.

Every check runs in a child interpreter (tests/test_reliability_common.py), so a
segfault fails the test with the last input begun instead of killing pytest.  The
generators are hypothesis strategies; the model of each buffer is a NumPy byte
array with a known pattern.

Conventions of the constructor that the model follows (they are documented in
usmarray/_array.py and tests/test_array.py): offsets and strides count elements;
with a memory object or an array as buffer, offsets count from the start of the
whole allocation (an array's ``usm_data``), not from the array's first element;
``offset=0`` with negative strides puts the lowest addressed element at the
buffer's start.
"""

from __future__ import annotations

import gc
import itertools

import numpy as np
from test_reliability_common import (
    ALLOWED_VIEW_ERRORS,
    KDL_CPU,
    KDL_ONEAPI,
    Producer,
    assert_child_ok,
    begin,
    child_main,
    dl_dtype,
    make_capsule,
    needs_sycl,
)

MOD = "test_reliability_views"
DTYPES = ["?", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f4", "f8", "c8", "c16"]
BAD_DTYPES = ["f2", "V8", "O", "M8[s]", "U1", "S2", "g"]
ALLOC_KINDS = ("device", "shared", "host")


# ---- model helpers ----------------------------------------------------------------------
def pattern_bytes(nbytes: int, dtype: str) -> np.ndarray:
    """nbytes bytes holding distinct valid values of dtype (then filler bytes)."""
    d = np.dtype(dtype)
    n = nbytes // d.itemsize + 1
    if d.kind == "b":
        vals = (np.arange(n) % 3 == 1)
    else:
        vals = (np.arange(n) * 7 + 3).astype(d)
    raw = np.frombuffer(vals.tobytes(), dtype=np.uint8)
    return raw[:nbytes].copy()


def extent(shape, strides):
    lo = sum(s * (n - 1) for s, n in zip(strides, shape, strict=True) if s < 0)
    hi = sum(s * (n - 1) for s, n in zip(strides, shape, strict=True) if s > 0)
    return lo, hi


def dense_overlap(shape, strides) -> bool:
    """True when the view addresses exactly size elements but some twice (so it is no
    permuted contiguous layout): the provider misflags these as contiguous (xfail below)."""
    dims = [(n, st) for n, st in zip(shape, strides, strict=True) if n != 1]
    if not dims or any(n == 0 for n, _ in dims):
        return False
    size = int(np.prod([n for n, _ in dims]))
    lo, hi = extent([n for n, _ in dims], [st for _, st in dims])
    if hi - lo + 1 != size:
        return False
    acc = 1
    for n, st in sorted(dims, key=lambda d: abs(d[1])):
        if abs(st) != acc:
            return True
        acc *= n
    return False


def contiguous_strides(shape, order):
    out, acc = [], 1
    dims = range(len(shape) - 1, -1, -1) if order == "C" else range(len(shape))
    for k in dims:
        out.append((k, acc))
        acc *= max(shape[k], 1)
    st = [0] * len(shape)
    for k, s in out:
        st[k] = s
    return tuple(st)


def model_read(buf: np.ndarray, dtype: str, shape, strides, elem_offset: int, byte_base: int = 0):
    """The elements that the strided formula names, read from the byte model ``buf``."""
    d = np.dtype(dtype)
    out = np.empty(shape, dtype=d)
    for idx in itertools.product(*(range(n) for n in shape)):
        e = elem_offset + sum(s * i for s, i in zip(strides, idx, strict=True))
        b = byte_base + e * d.itemsize
        out[idx] = np.frombuffer(buf[b:b + d.itemsize].tobytes(), dtype=d)[0]
    return out


def same_bytes(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and (
        np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()
    )


def same_values(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal as values (a copy may canonicalise bool bytes and NaN payloads)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if same_bytes(a, b):
        return True
    if a.dtype.kind == "b":
        return np.array_equal(a.view(np.uint8) != 0, b.view(np.uint8) != 0)
    return a.dtype.kind in "fc" and np.array_equal(a, b, equal_nan=True)


def _note(problems: list, text: str) -> None:
    print("PROBLEM", text, flush=True)  # visible in the report even if a later case crashes
    problems.append(text)


def scalar_for(dtype: str):
    k = np.dtype(dtype).kind
    return {"b": True, "i": 42, "u": 42, "f": 42.5, "c": complex(4.5, -2.0)}[k]


# ---- child: the constructor ---------------------------------------------------------------
def _make_buffer(kind, nbytes, dtype, sub_queue):
    """(buffer argument, memory object that holds it, byte model) for a buffer kind."""
    import dpctl.memory as dpm

    import usmarray as xp

    pat = pattern_bytes(nbytes, dtype)
    if kind.startswith("mem_"):
        cls = {"device": dpm.MemoryUSMDevice, "shared": dpm.MemoryUSMShared,
               "host": dpm.MemoryUSMHost, "other": dpm.MemoryUSMShared}[kind[4:]]
        mem = cls(nbytes, queue=sub_queue) if kind == "mem_other" else cls(nbytes)
        mem.copy_from_host(pat)
        return mem, mem, pat
    usm_type = {"array": "device", "array_slice": "shared", "array_raw": "host"}[kind]
    arr = xp.asarray(pat, dtype=xp.uint8, usm_type=usm_type)
    if kind == "array_slice":
        return arr[nbytes // 3:][::2], arr.usm_data, pat
    if kind == "array_raw":
        return arr._arr, arr.usm_data, pat
    return arr, arr.usm_data, pat


def _check_accepted_view(a, mem, model, dtype, shape, strides, eff_off):
    import usmarray as xp

    want = model_read(model, dtype, shape, strides, eff_off)
    got = xp.asnumpy(a)
    assert same_bytes(got, want), (got, want)
    copied = xp.asnumpy(xp.asarray(a, copy=True))  # the provider's copy kernel
    assert same_bytes(copied, want), (copied, want)
    if a.size:
        idx = tuple(n - 1 for n in shape)
        assert same_bytes(xp.asnumpy(a[idx]), want[idx])
        # a write lands on exactly the element the formula names, nowhere else
        v = scalar_for(dtype)
        a[idx] = v
        a.sycl_queue.wait()
        e = eff_off + sum(s * i for s, i in zip(strides, idx, strict=True))
        isz = np.dtype(dtype).itemsize
        expect = model.copy()
        expect[e * isz:(e + 1) * isz] = np.frombuffer(np.array(v, dtype=dtype).tobytes(), np.uint8)
        after = np.asarray(mem.copy_to_host(), dtype=np.uint8)
        assert np.array_equal(after, expect), "a write through the view touched other bytes"


def _prop_constructor():
    import dpctl
    from hypothesis import assume, given, settings
    from hypothesis import strategies as st

    import usmarray as xp

    sub_queue = dpctl.SyclQueue(dpctl.SyclDevice().create_sub_devices(partition=1)[0])
    kinds = ["mem_device", "mem_shared", "mem_host", "mem_other", "array", "array_slice",
             "array_raw", *ALLOC_KINDS]

    @settings(max_examples=settings.default.max_examples * 10)
    @given(st.data())
    def check(data):
        kind = data.draw(st.sampled_from(kinds), "buffer")
        dtype = data.draw(st.sampled_from(DTYPES), "dtype")
        isz = np.dtype(dtype).itemsize
        ndim = data.draw(st.integers(0, 4), "ndim")
        shape = tuple(data.draw(st.lists(st.integers(0, 5), min_size=ndim, max_size=ndim), "shape"))
        allocating = kind in ALLOC_KINDS
        # int64-range magnitudes for memory buffers (ints beyond int64 and the allocating
        # kinds' big extents are the xfail test below)
        big = 2**63 - 1 if not allocating else 8
        small = st.integers(-9, 9)
        stride_el = small if allocating else st.one_of(small, st.integers(-big, big))
        strides = data.draw(st.one_of(st.none(), st.lists(stride_el, min_size=ndim, max_size=ndim)
                                      .map(tuple)), "strides")
        off_st = st.integers(-3, 60) if allocating else st.one_of(st.integers(-3, 60), st.integers(-big, big))
        offset = data.draw(off_st, "offset")
        order = data.draw(st.sampled_from(["C", "F"]), "order")
        # whole multiples of 16 bytes (a ragged tail is the xfail test below)
        nbytes = 16 * data.draw(st.integers(1, 20), "nbytes / 16")
        if strides is not None:
            assume(not dense_overlap(shape, strides))  # the xfail test below
        begin(f"usm_ndarray({shape}, {dtype!r}, buffer={kind}[{nbytes} B], strides={strides}, "
              f"offset={offset}, order={order!r})")
        if allocating:
            buffer, mem, model = kind, None, None
        else:
            buffer, mem, model = _make_buffer(kind, nbytes, dtype, sub_queue)
        # the model's verdict
        full = strides if strides is not None else contiguous_strides(shape, order)
        if 0 in shape:
            valid, eff = offset >= 0, offset
        else:
            lo, hi = extent(shape, full)
            eff = -lo if (strides is not None and offset == 0 and lo < 0) else offset
            cap = None if allocating else mem.nbytes
            valid = eff + lo >= 0 and (cap is None or (eff + hi + 1) * isz <= cap)
        try:
            a = xp.usm_ndarray(shape, dtype=dtype, buffer=buffer, strides=strides, offset=offset,
                               order=order)
        except ALLOWED_VIEW_ERRORS as exc:
            # refusing a view that addresses nothing, or one with ints of 2**62 or more, is
            # safe (the constructor keeps its index arithmetic well inside int64)
            huge = any(abs(v) >= 2**62 for v in (*shape, *(strides or ()), offset))
            assert not valid or 0 in shape or huge, f"a valid view was refused: {exc!r}"
            tally["refused"] += 1
            return
        assert valid, "an out-of-bounds view was accepted"
        tally["accepted"] += 1
        assert a.shape == shape and a.dtype == getattr(xp, np.dtype(dtype).name)
        if 0 in shape:
            assert xp.asnumpy(a).shape == shape
            return
        if allocating:
            # the allocation is the implementation's: fill it, then check the view against it
            mem = a.usm_data
            eff = a.__sycl_usm_array_interface__["offset"]
            lo, hi = extent(shape, a.strides)
            assert eff + lo >= 0 and (eff + hi + 1) * isz <= mem.nbytes, "view exceeds its allocation"
            model = pattern_bytes(mem.nbytes, dtype)
            mem.copy_from_host(model)
        if strides is not None:
            assert a.strides == strides
        _check_accepted_view(a, mem, model, dtype, shape, full, eff)

    tally = {"accepted": 0, "refused": 0}
    check()
    print("SUMMARY", tally)


def _prop_constructor_garbage():
    from hypothesis import assume, given, settings
    from hypothesis import strategies as st

    import usmarray as xp

    junk = st.sampled_from([None, "x", 1.5, -1, [1, 2], (1.0,), object(), b"ab", np.float64(2.0),
                            (2, -1), (2, None), ((2,),), True, (True, 2)])

    @settings(max_examples=settings.default.max_examples * 10)
    @given(st.data())
    def check(data):
        base = dict(shape=(2, 3), dtype="f8", buffer="device", strides=None, offset=0, order="C")
        n_bad = data.draw(st.integers(1, 3), "n_bad")
        for _ in range(n_bad):
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
                                                 {"queue": "cpu"}, [("queue", None)]]))
            base[key] = val
        shape = base.pop("shape")
        kw = base.get("buffer_ctor_kwargs")
        if base["dtype"] is None and isinstance(kw, dict) and "queue" in kw:
            assume(False)  # a non-queue 'queue' with the default dtype: the xfail test below
        begin(f"usm_ndarray({shape!r}, **{base!r})")
        try:
            a = xp.usm_ndarray(shape, **base)
        except ALLOWED_VIEW_ERRORS:
            return
        # accepted: only if every argument was in fact meaningful (e.g. shape (True, 2),
        # an int-like shape); then the view must be sound
        lo, hi = extent(a.shape, a.strides) if a.size else (0, -1)
        off = a.__sycl_usm_array_interface__["offset"]
        assert off + lo >= 0 and (off + hi + 1) * a.itemsize <= a.usm_data.nbytes
        xp.asnumpy(a)

    check()


def _overflowing_allocations():
    """Constructors whose extent overflows 64 bits: must be refused."""
    import dpctl.memory as dpm

    import usmarray as xp

    cases = [
        ((3,), "f8", (2**60,)),            # 2*2**60+1 elements: 2**64 + 8 bytes wrap to 8
        ((2**31, 2**31, 4), "u1", None),   # 2**64 elements: size and nbytes wrap to 0
        ((2,), "f8", (2**63,)),            # stride beyond int64
        ((2**63,), "u1", None),            # extent beyond int64
    ]
    mem = dpm.MemoryUSMShared(64)
    mem_cases = [  # sound views whose ints do not fit int64: ValueError, not OverflowError
        ((1,), "f8", (2**63,), 0),
        ((0,), "f8", None, 2**63),
    ]
    problems = []
    for shape, dtype, strides in cases:
        begin(f"usm_ndarray({shape}, {dtype!r}, strides={strides}, buffer='device')")
        try:
            a = xp.usm_ndarray(shape, dtype=dtype, strides=strides, buffer="device")
        except (ValueError, TypeError, MemoryError):
            continue
        except Exception as exc:  # noqa: BLE001 - the type is what is tested
            _note(problems, f"{shape} strides={strides}: {type(exc).__name__}: {exc}")
            continue
        lo, hi = extent(a.shape, a.strides) if 0 not in a.shape else (0, -1)
        off = a.__sycl_usm_array_interface__["offset"]
        _note(problems,
            f"{shape} strides={strides}: accepted, size={a.size}, addresses bytes "
            f"{(off + lo) * a.itemsize}..{(off + hi + 1) * a.itemsize - 1} of a "
            f"{a.usm_data.nbytes}-byte allocation"
        )
    for shape, dtype, strides, offset in mem_cases:
        begin(f"usm_ndarray({shape}, {dtype!r}, strides={strides}, offset={offset}, buffer=mem)")
        try:
            xp.usm_ndarray(shape, dtype=dtype, strides=strides, offset=offset, buffer=mem)
        except Exception as exc:  # noqa: BLE001
            if not isinstance(exc, ALLOWED_VIEW_ERRORS):
                _note(problems, f"{shape} strides={strides} offset={offset} over a memory "
                                f"object: {type(exc).__name__}: {exc}")
    assert not problems, "\n".join(problems)


def _dense_overlapping_views():
    """Views that address exactly size elements, some twice (legal, as with NumPy's
    as_strided): every read path gives the strided formula's elements, or the view is
    refused with ValueError/TypeError."""
    import usmarray as xp

    problems = []
    vals = np.arange(16, dtype=np.int32)
    for shape, strides in [((4, 4), (2, 3)), ((3, 3), (2, 2)), ((2, 2, 2), (1, 3, 3))]:
        begin(f"usm_ndarray({shape}, 'i4', strides={strides})")
        try:  # refusing the view is safe too
            a = xp.usm_ndarray(shape, dtype="i4", buffer="device", strides=strides)
        except ALLOWED_VIEW_ERRORS:
            continue
        a.usm_data.copy_from_host(vals[: a.usm_data.nbytes // 4].view(np.uint8))
        want = model_read(vals.view(np.uint8), "i4", shape, strides, 0)
        reads = {
            "asnumpy": lambda a=a: xp.asnumpy(a),
            "asarray(copy=True)": lambda a=a: xp.asnumpy(xp.asarray(a, copy=True)),
            "negative(negative(x))": lambda a=a: xp.asnumpy(xp.negative(xp.negative(a))),
            "astype(int64)": lambda a=a: xp.asnumpy(xp.astype(a, xp.int64)).astype(np.int32),
        }
        for name, read in reads.items():
            begin(f"{shape} strides {strides}: {name}")
            got = read()
            if not np.array_equal(got, want):
                _note(problems, f"{shape} strides {strides} (flags C={a.flags.c_contiguous} "
                                f"F={a.flags.f_contiguous}): {name} read {got.ravel().tolist()}, "
                                f"want {want.ravel().tolist()}")
    base = xp.asarray(vals)
    iface = dict(data=(base.__sycl_usm_array_interface__["data"][0], False), shape=(4, 4),
                 strides=(2, 3), typestr="<i4", version=1, syclobj=base.sycl_queue)
    begin("asarray of that interface")
    want = model_read(vals.view(np.uint8), "i4", (4, 4), (2, 3), 0)
    try:
        got = xp.asnumpy(xp.asarray(_Suai(iface)))
    except ALLOWED_VIEW_ERRORS:
        got = want  # refused: safe
    if not np.array_equal(got, want):
        _note(problems, f"asarray(__sycl_usm_array_interface__ (4, 4) strides (2, 3)): read "
                        f"{got.ravel().tolist()}")
    assert not problems, "\n".join(problems)


def _ragged_buffer():
    """A sound view of a buffer whose size is no multiple of the itemsize."""
    import dpctl.memory as dpm

    import usmarray as xp

    mem = dpm.MemoryUSMDevice(3)
    mem.copy_from_host(np.array([1, 0, 7], dtype=np.uint8))
    begin("usm_ndarray((), 'i2', buffer=<3-byte MemoryUSMDevice>)")
    a = xp.usm_ndarray((), dtype="i2", buffer=mem)
    assert int(xp.asnumpy(a)) == 1


def _bad_queue_default_dtype():
    import usmarray as xp

    problems = []
    for q in (5, "cpu"):
        begin(f"usm_ndarray((2, 3), buffer_ctor_kwargs={{'queue': {q!r}}})")
        try:
            xp.usm_ndarray((2, 3), buffer_ctor_kwargs={"queue": q})
        except ALLOWED_VIEW_ERRORS:
            continue
        except Exception as exc:  # noqa: BLE001
            _note(problems, f"queue={q!r}: {type(exc).__name__}: {exc}")
            continue
        _note(problems, f"queue={q!r}: accepted")
    assert not problems, "\n".join(problems)


def _bad_alignment():
    import usmarray as xp

    begin("usm_ndarray((2,), 'i8', buffer='device', buffer_ctor_kwargs={'alignment': 3})")
    try:
        xp.usm_ndarray((2,), dtype="i8", buffer="device", buffer_ctor_kwargs={"alignment": 3})
    except ALLOWED_VIEW_ERRORS:
        return
    except Exception as exc:  # noqa: BLE001
        raise AssertionError(f"alignment=3 raised {type(exc).__name__}: {exc}") from None
    raise AssertionError("alignment=3 (not a power of two) was accepted")


@needs_sycl
def test_constructor_views_read_and_write_what_the_formula_names():
    assert_child_ok(MOD, "_prop_constructor", timeout=170)


@needs_sycl
def test_constructor_refuses_garbage_arguments():
    assert_child_ok(MOD, "_prop_constructor_garbage", timeout=120)


@needs_sycl
def test_constructor_refuses_allocations_whose_extent_overflows():
    assert_child_ok(MOD, "_overflowing_allocations", timeout=60)


@needs_sycl
def test_dense_overlapping_views_read_the_formula():
    assert_child_ok(MOD, "_dense_overlapping_views", timeout=60)


@needs_sycl
def test_view_of_a_ragged_buffer_reads():
    assert_child_ok(MOD, "_ragged_buffer", timeout=60)


def test_constructor_refuses_a_bad_queue_with_the_default_dtype():
    assert_child_ok(MOD, "_bad_queue_default_dtype", timeout=60)


def test_constructor_refuses_bad_alignment():
    assert_child_ok(MOD, "_bad_alignment", timeout=60)


# ---- child: __sycl_usm_array_interface__ ------------------------------------------------------
class _Suai:
    def __init__(self, iface):
        self.__sycl_usm_array_interface__ = iface


_TYPESTRS = {"?": "|b1", "i1": "|i1", "u1": "|u1", "i2": "<i2", "u2": "<u2", "i4": "<i4", "u4": "<u4",
             "i8": "<i8", "u8": "<u8", "f4": "<f4", "f8": "<f8", "c8": "<c8", "c16": "<c16"}
_BAD_TYPESTRS = ["<f3", "|O8", ">f8", "<f2", "xyz", 5, "<V8", "<M8"]  # None: xfail test below


def _prop_suai():
    import dpctl
    from hypothesis import assume, given, settings
    from hypothesis import strategies as st

    import usmarray as xp

    sub_queue = dpctl.SyclQueue(dpctl.SyclDevice().create_sub_devices(partition=1)[0])

    @settings(max_examples=settings.default.max_examples * 10)
    @given(st.data())
    def check(data):
        where = data.draw(st.sampled_from(["device", "shared", "host", "other_context"]), "memory")
        dtype = data.draw(st.sampled_from(DTYPES), "dtype")
        isz = np.dtype(dtype).itemsize
        cap = data.draw(st.integers(16, 256), "capacity")
        pat = pattern_bytes(cap, dtype)
        if where == "other_context":
            owner = xp.asarray(pat, dtype=xp.uint8, sycl_queue=sub_queue)
        else:
            owner = xp.asarray(pat, dtype=xp.uint8, usm_type=where)
        base = owner.__sycl_usm_array_interface__["data"][0]
        assert owner.usm_data.nbytes == cap  # the model's bytes are the whole allocation
        delta = data.draw(st.integers(0, cap - 1), "pointer delta")
        ndim = data.draw(st.integers(0, 3), "ndim")
        shape = tuple(data.draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim), "shape"))
        # strides may be negative or zero, and the offset may put the lowest element
        # before the pointer
        strides = data.draw(st.one_of(st.none(), st.lists(st.integers(-6, 6), min_size=ndim,
                                                          max_size=ndim).map(tuple)), "strides")
        offset = data.draw(st.integers(-4, 20), "offset")
        full = strides if strides is not None else contiguous_strides(shape, "C")
        assume(not dense_overlap(shape, full))  # test_dense_overlapping_views_read_the_formula
        lo, hi = extent(shape, full) if 0 not in shape else (0, -1)
        if 0 not in shape and data.draw(st.booleans(), "keep inside"):
            # the offsets that put [lowest, highest element] inside the allocation
            low, high = -(delta // isz), (cap - (hi - lo + 1) * isz - delta) // isz
            if low <= high:
                offset = data.draw(st.integers(low, high), "lowest element") - lo
            elif ndim:
                shape, lo, hi = (0,) + shape[1:], 0, -1
        # otherwise the extent may run past either end of the allocation: refused
        first, end = delta + (offset + lo) * isz, delta + (offset + hi + 1) * isz
        bad = data.draw(st.sampled_from([None] * 6 + ["typestr", "neg_shape", "strides_len",
                                                         "version", "no_data", "syclobj"]), "flaw")
        iface = dict(data=(base + delta, False), shape=shape, strides=strides,
                     typestr=_TYPESTRS[dtype], version=1, syclobj=owner.sycl_queue, offset=offset)
        if bad == "typestr":
            iface["typestr"] = data.draw(st.sampled_from(_BAD_TYPESTRS))
        elif bad == "neg_shape":
            iface["shape"] = (-1,) + tuple(shape[1:])
        elif bad == "strides_len":
            iface["strides"] = (1,) * (ndim + 1)
        elif bad == "version":
            iface["version"] = 2
        elif bad == "no_data":
            del iface["data"]
        elif bad == "syclobj":  # a queue of another context than the pointer's
            iface["syclobj"] = xp.asarray(0).sycl_queue if where == "other_context" else sub_queue
        begin(f"asarray(iface={iface!r} over {cap} B {where})")
        # an empty view addresses nothing: accepting or refusing it are both safe
        sound = bad is None and (0 in shape or first >= 0 and end <= cap)
        try:
            a = xp.asarray(_Suai(iface))
        except ALLOWED_VIEW_ERRORS as exc:
            assert not sound or 0 in shape, f"a sound interface was refused: {exc!r}"
            tally["refused"] += 1
            return
        assert sound, "a flawed interface was accepted"
        tally["accepted"] += 1
        assert a.shape == shape and a.dtype == getattr(xp, np.dtype(dtype).name)
        if 0 in shape:
            return
        # NumPy's view of the same bytes
        want = np.ndarray(shape, dtype=dtype, buffer=pat, offset=delta + offset * isz,
                          strides=tuple(s * isz for s in full))
        assert same_values(xp.asnumpy(a), want), (xp.asnumpy(a), want)

    tally = {"accepted": 0, "refused": 0}
    check()
    print("SUMMARY", tally)


def _suai_overruns():
    import dpctl

    import usmarray as xp

    sub_queue = dpctl.SyclQueue(dpctl.SyclDevice().create_sub_devices(partition=1)[0])
    own = xp.asarray(np.arange(16, dtype=np.float64))
    other = xp.asarray(np.arange(16, dtype=np.float64), sycl_queue=sub_queue)
    p, q = (a.__sycl_usm_array_interface__["data"][0] for a in (own, other))
    cases = {
        "17 elements of a 16-element allocation": dict(data=(p, False), shape=(17,)),
        "offset 15, 2 elements": dict(data=(p, False), shape=(2,), offset=15),
        "pointer at element 8, 9 elements": dict(data=(p + 64, False), shape=(9,)),
        "other context, 100 elements of 16": dict(data=(q, False), shape=(100,), syclobj=sub_queue),
        "negative pointer": dict(data=(-8, False), shape=(1,)),
        "stride 2**60 (extent wraps 64 bits; crashes: last)": dict(data=(p, False), shape=(3,),
                                                                  strides=(2**60,)),
    }
    problems = []
    for name, kw in cases.items():
        iface = dict(strides=None, typestr="<f8", version=1, syclobj=own.sycl_queue, offset=0)
        iface.update(kw)
        begin(f"{name}: {iface}")
        try:
            a = xp.asarray(_Suai(iface))
        except ALLOWED_VIEW_ERRORS:
            continue
        except Exception as exc:  # noqa: BLE001
            _note(problems, f"{name}: {type(exc).__name__}: {exc}")
            continue
        _note(problems, f"{name}: accepted, read {xp.asnumpy(a)[-3:]} from outside the allocation")
    assert not problems, "\n".join(problems)


def _suai_negative_strides():
    """Sound interfaces with negative strides (what a flipped array exports)."""
    import usmarray as xp

    base = xp.asarray(np.arange(16, dtype=np.uint8))
    p = base.__sycl_usm_array_interface__["data"][0]
    problems = []
    for shape, strides, offset in [((2,), (-1,), 1), ((3,), (-2,), 4), ((2, 2), (2, -1), 1)]:
        iface = dict(data=(p, False), shape=shape, strides=strides, typestr="|u1", version=1,
                     syclobj=base.sycl_queue, offset=offset)
        begin(str(iface))
        want = model_read(np.arange(16, dtype=np.uint8), "u1", shape, strides, offset)
        try:
            got = xp.asnumpy(xp.asarray(_Suai(iface)))
        except Exception as exc:  # noqa: BLE001
            _note(problems, f"{shape} {strides} offset {offset}: {type(exc).__name__}: {exc}")
            continue
        if not np.array_equal(got, want):
            _note(problems, f"{shape} {strides} offset {offset}: read {got}, want {want}")
    flipped = xp.flip(base)
    begin("the interface of flip(x)")
    try:
        got = xp.asnumpy(xp.asarray(_Suai(flipped.__sycl_usm_array_interface__)))
        assert np.array_equal(got, np.arange(16)[::-1])
    except Exception as exc:  # noqa: BLE001
        _note(problems, f"flip(x): {type(exc).__name__}: {exc}")
    assert not problems, "\n".join(problems)


def _suai_typestr_none():
    import usmarray as xp

    base = xp.asarray(np.arange(16, dtype=np.uint8))
    iface = dict(data=(base.__sycl_usm_array_interface__["data"][0], False), shape=(2,),
                 strides=None, typestr=None, version=1, syclobj=base.sycl_queue)
    begin(str(iface))
    try:
        a = xp.asarray(_Suai(iface))
    except ALLOWED_VIEW_ERRORS:
        return
    raise AssertionError(f"typestr None was accepted as {a.dtype}: {xp.asnumpy(a)}")


@needs_sycl
def test_suai_views_read_what_the_interface_names():
    assert_child_ok(MOD, "_prop_suai", timeout=170)


@needs_sycl
def test_suai_typestr_none_is_refused():
    assert_child_ok(MOD, "_suai_typestr_none", timeout=60)


@needs_sycl
def test_suai_negative_strides_are_read():
    assert_child_ok(MOD, "_suai_negative_strides", timeout=60)


@needs_sycl
def test_suai_extent_past_the_allocation_is_refused():
    assert_child_ok(MOD, "_suai_overruns", timeout=60)


# ---- child: DLPack -------------------------------------------------------------------------------
def _dl_source(where, nbytes, dtype="f8"):
    """(pointer, owner, byte model, device tuple) of a buffer for a crafted capsule."""
    import usmarray as xp

    pat = pattern_bytes(nbytes, dtype)
    if where == "cpu":
        host = pat.copy()
        return host.ctypes.data, host, pat, (KDL_CPU, 0)
    arr = xp.asarray(pat, dtype=xp.uint8)
    dev = arr.__dlpack_device__()
    return arr.__sycl_usm_array_interface__["data"][0], arr, pat, (int(dev[0]), int(dev[1]))


def _import_and_release(producer, **kw):
    """from_dlpack(producer); returns (result as NumPy or exception, deleter calls)."""
    import usmarray as xp

    try:
        r = xp.from_dlpack(producer, **kw)
        out = xp.asnumpy(r)
        del r
    except Exception as exc:  # noqa: BLE001 - classified by the caller
        out = exc.with_traceback(None)  # its frames would keep the imported tensor alive
    gc.collect()
    producer.release()
    return out, producer.deleter_calls()


def _prop_dlpack():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=settings.default.max_examples * 10)
    @given(st.data())
    def check(data):
        where = data.draw(st.sampled_from(["cpu", "oneapi"]), "device")
        dtype = data.draw(st.sampled_from(DTYPES), "dtype")
        isz = np.dtype(dtype).itemsize
        nbytes = data.draw(st.integers(64, 1024), "nbytes")
        ptr, owner, pat, device = _dl_source(where, nbytes, dtype)
        ndim = data.draw(st.integers(0, 3), "ndim")
        shape = tuple(data.draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim), "shape"))
        strides = tuple(data.draw(st.lists(st.integers(-5, 5), min_size=ndim, max_size=ndim), "strides"))
        lo, hi = extent(shape, strides) if 0 not in shape else (0, -1)
        # byte_offset places the lowest element inside; shrink the shape if the rest does not fit
        room = nbytes // isz
        if 0 not in shape and hi - lo + 1 > room:  # ndim >= 1 here: room >= 4 elements
            shape, lo, hi = (0,) + shape[1:], 0, -1
        first = data.draw(st.integers(0, max(0, room - (hi - lo + 1))), "first element")
        byte_offset = (first - lo) * isz
        versioned = data.draw(st.booleans(), "versioned")
        read_only = versioned and data.draw(st.booleans(), "read_only")
        code, bits = dl_dtype(dtype)

        def factory(max_version):
            use_v = versioned and max_version is not None and max_version[0] >= 1
            return make_capsule(ptr, shape, strides, byte_offset, code, bits, device=device,
                                versioned=use_v, flags=1 if read_only else 0, owner=owner)

        begin(f"from_dlpack({where}, {dtype}, shape={shape}, strides={strides}, "
              f"byte_offset={byte_offset}, versioned={versioned}, read_only={read_only})")
        out, calls = _import_and_release(Producer(device, factory))
        if isinstance(out, Exception):
            raise AssertionError(f"a sound capsule was refused: {out!r}")
        want = model_read(pat, dtype, shape, strides, 0, byte_base=byte_offset) if 0 not in shape \
            else np.empty(shape, dtype)
        assert same_values(out, want), (out, want)
        assert calls == [1], f"deleter called {calls} times"

    check()


def _dl_flawed(n_case):
    """One flawed producer: must raise TypeError/ValueError/BufferError and call the deleter
    of every capsule it took exactly once."""
    name, where, kw = _FLAWS[n_case]
    ptr, owner, pat, device = _dl_source(where, 128)
    spec = dict(shape=(4,), strides=(1,), byte_offset=0, code=2, bits=64, lanes=1, device=device,
                versioned=True)
    spec.update(kw)
    if spec.pop("null_ptr", False):
        ptr = 0
    keep = np.zeros(16)
    if spec.pop("host_ptr", False):
        ptr = keep.ctypes.data

    def factory(max_version):
        s = dict(spec)
        return make_capsule(ptr, s.pop("shape"), s.pop("strides"), s.pop("byte_offset"),
                            s.pop("code"), s.pop("bits"), owner=owner, **s)

    begin(f"{name}: {spec}")
    out, calls = _import_and_release(Producer(spec.pop("announce", device), factory))
    if not isinstance(out, (TypeError, ValueError, BufferError)):
        raise AssertionError(f"{name}: got {out!r} (type {type(out).__name__})")
    assert all(c == 1 for c in calls), f"{name}: deleter calls {calls} (0 = leaked producer memory)"
    del keep


_FLAWS = [
    ("cpu: negative extent", "cpu", dict(shape=(-1,))),
    ("cpu: ndim -1", "cpu", dict(ndim=-1)),
    ("cpu: float16", "cpu", dict(bits=16)),
    ("cpu: DLPack 2.0", "cpu", dict(version=(2, 0))),
    ("cpu: device type 99", "cpu", dict(device=(99, 0), announce=(99, 0))),
    ("oneapi: type code 99", "oneapi", dict(code=99)),
    ("oneapi: 12-bit elements", "oneapi", dict(bits=12)),
    ("oneapi: 2 lanes", "oneapi", dict(lanes=2)),
    ("oneapi: float16", "oneapi", dict(bits=16)),
    ("oneapi: DLPack 2.0", "oneapi", dict(version=(2, 0))),
    ("oneapi: CUDA device", "oneapi", dict(device=(2, 0), announce=(2, 0))),
    ("oneapi: host pointer", "oneapi", dict(host_ptr=True)),
    ("oneapi: NULL data, 4 elements", "oneapi", dict(null_ptr=True)),
    # these crashed or leaked while the provider's importers read capsules unchecked
    ("cpu: type code 99", "cpu", dict(code=99)),
    ("cpu: 12-bit elements", "cpu", dict(bits=12)),
    ("cpu: 2 lanes", "cpu", dict(lanes=2)),
    ("oneapi: device id 5", "oneapi", dict(device=(KDL_ONEAPI, 5), announce=(KDL_ONEAPI, 5))),
    ("oneapi: negative extent", "oneapi", dict(shape=(-1,))),
    ("oneapi: ndim -1", "oneapi", dict(ndim=-1)),
    ("oneapi: stride 2**60", "oneapi", dict(shape=(3,), strides=(2**60,))),
    ("oneapi: byte_offset 2**62", "oneapi", dict(byte_offset=2**62)),
    ("cpu: stride 2**60", "cpu", dict(shape=(3,), strides=(2**60,))),
    ("cpu: NULL data, 4 elements", "cpu", dict(null_ptr=True)),
    ("cpu: device id 3", "cpu", dict(device=(KDL_CPU, 3))),
    ("oneapi: capsule device differs, id 7", "oneapi", dict(device=(KDL_ONEAPI, 7))),
    ("oneapi: ndim 65", "oneapi", dict(ndim=65)),
    ("oneapi: misaligned float64", "oneapi", dict(byte_offset=3)),
    ("oneapi: bool of 16 bits", "oneapi", dict(code=6, bits=16)),
    ("oneapi: bfloat16", "oneapi", dict(code=4, bits=16)),
    ("oneapi: extent past the allocation's end", "oneapi", dict(shape=(1 << 40,))),
    ("cpu: byte_offset into unmapped memory", "cpu", dict(byte_offset=2**62 - 64)),
    ("cpu: capsule on the host, kDLOneAPI announced", "cpu", dict(announce=(KDL_ONEAPI, 0))),
    ("oneapi: capsule on oneAPI, kDLCPU announced", "oneapi", dict(announce=(KDL_CPU, 0))),
]


def _dl_flawed_all(first, last):
    for i in range(first, last):
        _dl_flawed(i)


def _dl_null_strides():
    """strides == NULL means compact row-major (DLPack); must import, not crash."""
    import usmarray as xp

    for where in ("cpu", "oneapi"):
        ptr, owner, pat, device = _dl_source(where, 96)

        def factory(max_version, ptr=ptr, owner=owner, device=device):
            return make_capsule(ptr, (3, 4), None, 0, 2, 64, device=device, versioned=True,
                                owner=owner)

        begin(f"{where}: 3x4 float64 with strides NULL")
        out, calls = _import_and_release(Producer(device, factory))
        assert not isinstance(out, Exception), out
        assert same_bytes(out, np.frombuffer(pat.tobytes(), np.float64).reshape(3, 4))
        assert calls == [1]
    _ = xp


def _dl_empty_null_data():
    """DLPack asks for data == NULL when the tensor has no elements."""
    for where in ("cpu", "oneapi"):
        _, owner, _, device = _dl_source(where, 16)

        def factory(max_version, owner=owner, device=device):
            return make_capsule(0, (0,), (1,), 0, 2, 64, device=device, versioned=True, owner=owner)

        begin(f"{where}: empty tensor, data NULL")
        out, calls = _import_and_release(Producer(device, factory))
        assert not isinstance(out, Exception), f"{where}: {out!r}"
        assert out.shape == (0,) and calls == [1]


def _dl_producers():
    """Objects whose __dlpack__ / __dlpack_device__ misbehave: TypeError/ValueError/BufferError."""
    import usmarray as xp

    x = xp.arange(4)

    class Odd:
        def __init__(self, dev, result):
            self.dev, self.result = dev, result

        def __dlpack_device__(self):
            if isinstance(self.dev, Exception):
                raise self.dev
            return self.dev

        def __dlpack__(self, **kw):
            if isinstance(self.result, Exception):
                raise self.result
            return self.result(kw) if callable(self.result) else self.result

    used = x.__dlpack__()
    xp.from_dlpack(Odd((KDL_ONEAPI, 0), used))
    cases = {
        "returns an int": Odd((KDL_ONEAPI, 0), 5),
        "returns None": Odd((KDL_CPU, 0), None),
        "raises BufferError": Odd((KDL_ONEAPI, 0), BufferError("no")),
        "device ('a', 0)": Odd(("a", 0), 5),
        "device (1,)": Odd((1,), 5),
        "device None": Odd(None, 5),
        "device raises": Odd(ValueError("no"), 5),
        "capsule used twice": Odd((KDL_ONEAPI, 0), used),
        "no __dlpack__": object(),
    }
    problems = []
    for name, obj in cases.items():
        begin(name)
        try:
            xp.from_dlpack(obj)
        except (TypeError, ValueError, BufferError):
            continue
        except Exception as exc:  # noqa: BLE001
            _note(problems, f"{name}: {type(exc).__name__}: {exc}")
            continue
        _note(problems, f"{name}: accepted")
    assert not problems, "\n".join(problems)


def _dl_oneapi_producer_to_host():
    """A oneAPI producer with only __dlpack__ (no __sycl_usm_array_interface__), device="numpy"."""
    import usmarray as xp

    x = xp.arange(5, dtype=xp.int32)

    class OnlyDlpack:
        def __dlpack_device__(self):
            return x.__dlpack_device__()

        def __dlpack__(self, **kw):
            return x.__dlpack__(**kw)

    begin("from_dlpack(oneAPI producer, device='numpy')")
    r = xp.from_dlpack(OnlyDlpack(), device="numpy")
    np.testing.assert_array_equal(xp.asnumpy(r), np.arange(5))


@needs_sycl
def test_dlpack_sound_capsules_read_the_right_elements_and_are_released():
    assert_child_ok(MOD, "_prop_dlpack", timeout=170)


@needs_sycl
def test_dlpack_flawed_capsules_raise_and_release():
    assert_child_ok(MOD, "_dl_flawed_all", 0, len(_FLAWS), timeout=90)


@needs_sycl
def test_dlpack_null_strides_are_compact_row_major():
    assert_child_ok(MOD, "_dl_null_strides", timeout=60)


@needs_sycl
def test_dlpack_empty_tensor_with_null_data_imports():
    assert_child_ok(MOD, "_dl_empty_null_data", timeout=60)


@needs_sycl
def test_dlpack_misbehaving_producers_raise():
    assert_child_ok(MOD, "_dl_producers", timeout=60)


def test_dlpack_oneapi_producer_to_numpy_device():
    assert_child_ok(MOD, "_dl_oneapi_producer_to_host", timeout=60)


if __name__ == "__main__":
    child_main(globals())
