"""Crafted inputs, on every backend: self-referencing and too
deeply nested lists, more than 64 dimensions, slice bounds and steps near 2**63 each
give NumPy's result or the standard's error, never a RecursionError, an
OverflowError from below or a crash.  Each check runs in a child interpreter."""

from __future__ import annotations

import numpy as np
import pytest
from test_reliability_common import (
    Producer,
    _have_sycl,
    assert_child_ok,
    begin,
    child_main,
    make_capsule,
    needs_sycl,
)

MOD = "test_reliability_crafted"


def _crafted(name: str) -> None:
    import usmarray as xp

    dev = xp.asarray(0).device if name == "sycl" else name
    begin("self-referencing list")
    selfref: list = [1.0]
    selfref.append(selfref)
    with pytest.raises(ValueError):
        xp.asarray(selfref, device=dev)
    deep: list = [1.0]
    for _ in range(70):
        deep = [deep]
    begin("list nested 71 deep")
    with pytest.raises(ValueError):
        xp.asarray(deep, device=dev)
    for what, call in (("zeros", lambda: xp.zeros((1,) * 65, device=dev)),
                       ("reshape", lambda: xp.reshape(xp.zeros(1, device=dev), (1,) * 65)),
                       ("broadcast_to", lambda: xp.broadcast_to(xp.zeros(1, device=dev),
                                                                (1,) * 65)),
                       ("expand_dims", lambda: xp.expand_dims(xp.zeros((1,) * 64, device=dev),
                                                              axis=0))):
        begin(f"65 dimensions: {what}")
        with pytest.raises((ValueError, IndexError)):
            call()
    a = np.arange(10)
    x = xp.asarray(a, device=dev)
    big = 2**63
    for key in (slice(None, None, big - 1), slice(None, None, -(big - 1)), slice(big - 1, None),
                slice(-big, None), slice(None, -big), slice(-big, big - 1, 3),
                slice(big - 1, -big, -(big - 1)), slice(big, None, -1),
                slice(-(2**70), 2**70)):
        begin(f"x[{key}]")
        np.testing.assert_array_equal(xp.asnumpy(x[key]), a[key])
    with pytest.raises(ValueError):
        x[::0]


def _getitem_past_64_dims() -> None:
    import usmarray as xp

    a = np.arange(10)
    np.testing.assert_array_equal(xp.asnumpy(xp.asarray(a)[::2**63]), a[::2**63])
    with pytest.raises((ValueError, IndexError)):
        xp.zeros((1,) * 64)[None]


_DEVICES = ["numpy", pytest.param("sycl", marks=pytest.mark.skipif(
    not _have_sycl(), reason="needs a SYCL runtime and device"))]


@pytest.mark.parametrize("device", _DEVICES)
def test_crafted_inputs_get_clear_errors(device):
    assert_child_ok(MOD, "_crafted", device, timeout=60)


@pytest.mark.skipif(not _have_sycl(), reason="needs a SYCL runtime and device")
def test_getitem_past_64_dimensions_is_refused():
    assert_child_ok(MOD, "_getitem_past_64_dims", timeout=60)



def _protected_pages() -> int:
    """Two mapped pages that cannot be read (PROT_NONE)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long)
    return libc.mmap(None, 8192, 0, 0x22, -1, 0)  # PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS


def _holed_pages() -> int:
    """Three pages whose first and last can be read and whose middle one cannot."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long)
    libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    page = 4096
    base = libc.mmap(None, 3 * page, 3, 0x22, -1, 0)  # PROT_READ | PROT_WRITE
    assert libc.mprotect(base + page, page, 0) == 0
    return base


def _past_end_of_file() -> tuple[int, object]:
    """A shared mapping of four pages over a one-page file: reading its last pages
    raises SIGBUS.  Returns the address and the file, which must stay open."""
    import ctypes
    import tempfile

    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long)
    f = tempfile.TemporaryFile()
    f.write(b"\0" * 4096)
    f.flush()
    return libc.mmap(None, 4 * 4096, 1, 1, f.fileno(), 0), f  # PROT_READ, MAP_SHARED


def _foreign_memory(device: str) -> None:
    """Crafted host pointers (a made-up address, protected pages) in __array_interface__
    and in kDLCPU DLPack tensors: a clear exception, never a crash."""
    import usmarray as xp

    class AI:
        def __init__(self, iface):
            self.__array_interface__ = iface

    bad = _protected_pages()
    for name, ptr in (("made-up address", 16), ("protected pages", bad)):
        begin(f"asarray(__array_interface__ over {name})")
        iface = {"data": (ptr, False), "shape": (100,), "typestr": "<f8", "version": 3}
        with pytest.raises(ValueError, match="readable"):
            xp.asarray(AI(iface), device=device)
    holed = _holed_pages()
    eof, keep = _past_end_of_file()
    for name, ptr in (("a protected middle page", holed), ("a file mapping past its end", eof)):
        begin(f"asarray(__array_interface__ over {name})")
        iface = {"data": (ptr, False), "shape": (3 * 512,), "typestr": "<f8", "version": 3}
        with pytest.raises(ValueError, match="readable"):
            xp.asarray(AI(iface), device=device)
    for name, ptr in (("protected pages", bad), ("a protected middle page", holed),
                      ("a file mapping past its end", eof)):
        begin(f"from_dlpack(kDLCPU over {name})")
        p = Producer((1, 0), lambda mv, ptr=ptr: make_capsule(ptr, (3 * 512,), None, 0, 2, 64))
        with pytest.raises(BufferError):
            xp.from_dlpack(p, device=device)
    begin("asarray(__array_interface__ of the readable first page of the holed mapping)")
    iface = {"data": (holed, False), "shape": (512,), "typestr": "<f8", "version": 3}
    assert xp.asnumpy(xp.asarray(AI(iface), device=device)).tolist() == [0.0] * 512
    keep.close()
    good = np.arange(4.0)
    begin("asarray(__array_interface__ of a NumPy array)")
    assert xp.asnumpy(xp.asarray(AI(good.__array_interface__), device=device)).tolist() == [
        0.0, 1.0, 2.0, 3.0]


@pytest.mark.parametrize("device", _DEVICES)
def test_foreign_host_pointers_are_checked_before_reading(device):
    assert_child_ok(MOD, "_foreign_memory", device if device == "numpy" else None, timeout=60)


def _sycl_crafted() -> None:
    """A capsule as SUAI ``syclobj`` (its pointer cannot be validated) and alignments near
    2**64 get ValueError, not a crash or an OverflowError."""
    import ctypes

    import usmarray as xp

    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)
    y = xp.zeros(4)
    iface = dict(y.__sycl_usm_array_interface__)
    iface["syclobj"] = new(ctypes.c_void_p(0x1234), b"SyclQueueRef", None)

    class S:
        __sycl_usm_array_interface__ = iface

    begin("asarray(SUAI with a bogus syclobj capsule)")
    with pytest.raises(ValueError, match="PyCapsule"):
        xp.asarray(S())
    for a in (2**62, 2**63, 2**64 - 1, 2**64):
        begin(f"usm_ndarray(alignment={a})")
        with pytest.raises(ValueError, match="alignment"):
            xp.usm_ndarray((4,), dtype="f4", buffer="device", buffer_ctor_kwargs={"alignment": a})


def _sycl_overclaiming_memory() -> None:
    """A dpctl memory object built over a crafted SUAI claims more bytes than its USM
    allocation holds: every way in (``usm_ndarray(buffer=)``, ``asarray`` of a provider
    array over it, ``asarray`` of the memory itself) is a ValueError naming the
    allocation, before anything reads past it."""
    import dpctl.memory as dm

    import usmarray as xp
    from usmarray._backend import get_backend

    q = xp.asarray(0).sycl_queue
    real = dm.MemoryUSMShared(64, queue=q)

    class Liar:
        __sycl_usm_array_interface__ = {"data": (real._pointer, False), "shape": (1 << 30,),
                                        "typestr": "|u1", "version": 1, "syclobj": q}

    big = dm.MemoryUSMShared(Liar())
    assert big.nbytes == 1 << 30  # dpctl believes the claim
    begin("usm_ndarray(buffer=over-claiming memory)")
    with pytest.raises(ValueError, match="allocation"):
        xp.usm_ndarray((1 << 27,), dtype="float64", buffer=big)
    begin("asarray(provider array over over-claiming memory)")
    raw = get_backend("sycl").provider.usm_ndarray((1 << 27,), dtype="f8", buffer=big)
    with pytest.raises(ValueError, match="allocation"):
        xp.asarray(raw)
    begin("asarray(over-claiming memory)")
    with pytest.raises(ValueError, match="allocation"):
        xp.asarray(big)
    begin("usm_ndarray(buffer=memory that tells the truth)")
    ok = xp.usm_ndarray((8,), dtype="float64", buffer=real)
    assert ok.shape == (8,)


@needs_sycl
def test_sycl_memory_objects_that_over_claim_are_refused():
    assert_child_ok(MOD, "_sycl_overclaiming_memory", timeout=60)


@needs_sycl
def test_sycl_crafted_capsules_and_alignments_raise():
    assert_child_ok(MOD, "_sycl_crafted", timeout=60)


if __name__ == "__main__":
    child_main(globals())
