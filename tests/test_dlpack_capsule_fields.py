"""The fields of a crafted DLPack capsule as each importer reads them.

The host and SYCL importers (usmarray/_backend/_dlpack_import.py) and the CUDA one
(usmarray/_backend/_cuda/interop.py) share the reading of the capsule's name, dtype,
shape, byte offset and data pointer, and differ where their arrays differ: a stride over
an extent of 1 addresses nothing and reads as the compact stride on the host and SYCL
paths, as 0 on the CUDA path; the version refusal has each path's own words.  Every
malformed field raises the same error, word for word, on every path.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_reliability_common import (
    KDL_CPU,
    KDL_ONEAPI,
    Producer,
    device_params,
    dl_dtype,
    make_capsule,
)

import usmarray as xp

DEVICES = device_params("numpy", "cpu", "cuda:0")


def _producer(device: str, shape, strides, first: int = 0, **fields):
    """(producer, values): a crafted capsule over 12 float64 values in ``device``'s
    memory (``first``: the byte offset in elements); ``fields`` go to make_capsule."""
    vals = np.arange(12, dtype=np.float64) * 1.5
    if device == "numpy":
        owner, ptr, dev = vals, vals.ctypes.data, (KDL_CPU, 0)
    else:
        owner = xp.asarray(vals, device=device)
        dev = tuple(owner.__dlpack_device__())
        iface = (owner.__sycl_usm_array_interface__ if dev[0] == KDL_ONEAPI
                 else owner.__cuda_array_interface__)
        ptr = iface["data"][0]
    code, bits = dl_dtype(vals.dtype)
    fields = {"code": code, "bits": bits, **fields}
    ptr = fields.pop("ptr", ptr)

    def factory(max_version):
        return make_capsule(ptr, shape, strides, first * vals.itemsize, device=dev,
                            owner=owner, **fields)

    return Producer(dev, factory), vals


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("versioned", [True, False], ids=["versioned", "legacy"])
@pytest.mark.parametrize(("shape", "strides", "first", "compact", "cuda"), [
    ((2, 1), (4, 2**61), 1, (4, 1), (4, 0)),
    ((1, 3), (7, 1), 2, (3, 1), (0, 1)),
    ((1, 1), (-5, 9), 3, (1, 1), (0, 0)),
], ids=["trailing", "leading", "both"])
def test_length_one_axes_read_as_each_path_reads_them(device, versioned, shape, strides,
                                                      first, compact, cuda):
    p, vals = _producer(device, shape, strides, first, versioned=versioned)
    u = xp.from_dlpack(p)
    assert u.strides == (cuda if device.startswith("cuda") else compact)
    want = np.lib.stride_tricks.as_strided(
        vals[first:], shape, [s * vals.itemsize if n > 1 else 0
                              for s, n in zip(strides, shape, strict=True)])
    np.testing.assert_array_equal(xp.asnumpy(u), want)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("fields", "error", "message"), [
    ({"ndim": 65}, ValueError, "from_dlpack: ndim 65 is outside 0..64"),
    ({"lanes": 2}, TypeError,
     "from_dlpack: DLPack dtype (code 2, 64 bits, 2 lanes) is not one of the standard's dtypes"),
    ({"code": 2, "bits": 16}, TypeError,
     "from_dlpack: DLPack dtype (code 2, 16 bits, 1 lanes) is not one of the standard's dtypes"),
    ({"shape": (-1, 3)}, ValueError,
     "from_dlpack: shape (-1, 3) has a negative or too large extent"),
    ({"shape": (2**62, 1)}, ValueError,
     f"from_dlpack: shape ({2**62}, 1) has a negative or too large extent"),
    ({"first": 2**59}, ValueError,
     f"from_dlpack: byte_offset {2**62} leaves the 64-bit range"),
    ({"ptr": 0}, ValueError, "from_dlpack: data is NULL for a tensor of shape (2, 3)"),
    ({"name": b"used_dltensor"}, BufferError, "from_dlpack: the capsule was already consumed"),
    ({"name": b"tensor"}, ValueError,
     "from_dlpack: a capsule named b'tensor' is not a DLPack tensor"),
], ids=["ndim", "lanes", "float16", "negative extent", "huge extent", "byte offset",
        "NULL data", "consumed", "another name"])
def test_malformed_fields_raise_the_same_words_on_every_path(device, fields, error, message):
    fields = dict(fields)
    shape = fields.pop("shape", (2, 3))
    first = fields.pop("first", 0)
    p, _ = _producer(device, shape, None, first, **fields)
    with pytest.raises(error) as info:
        xp.from_dlpack(p)
    assert str(info.value) == message
    p.release()


@pytest.mark.parametrize("device", DEVICES)
def test_a_newer_major_version_is_refused_in_each_paths_words(device):
    p, _ = _producer(device, (2, 3), None, versioned=True, version=(2, 0))
    with pytest.raises(BufferError) as info:
        xp.from_dlpack(p)
    if device.startswith("cuda"):
        assert str(info.value) == "from_dlpack: DLPack 2.0; this consumer reads 1.x"
    else:
        assert str(info.value) == ("from_dlpack: DLPack 2.0 tensor; this consumer reads "
                                   "major version 1")
    p.release()


@pytest.mark.parametrize("device", DEVICES)
def test_something_else_than_a_capsule_is_a_type_error(device):
    class NotACapsule:
        def __dlpack_device__(self):
            return _producer(device, (2,), None)[0].__dlpack_device__()

        def __dlpack__(self, **kw):
            return object()

    with pytest.raises(TypeError) as info:
        xp.from_dlpack(NotACapsule())
    assert str(info.value) == "from_dlpack: __dlpack__() returned object, not a DLPack capsule"
