"""Two GPUs of one host: peer-to-peer ``to_device``, concurrent copies in both
directions on their own streams, and compute-follows-data across GPUs.

Marked ``multigpu``; skips with the reason on machines with fewer than two CUDA GPUs.
Run on a two-GPU machine with ``python -m pytest -m multigpu tests/test_multigpu.py``.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

cupy = pytest.importorskip("cupy", reason="the CUDA backend needs CuPy")

import usmarray as xp  # noqa: E402
from usmarray import _backend  # noqa: E402

be = _backend.get_backend("cuda")
pytestmark = [
    pytest.mark.multigpu,
    pytest.mark.skipif(be is None or len(be.devices()) < 2,
                       reason="needs two CUDA GPUs (one or none here)"),
]

USM = ("device", "shared", "host")
DTYPES = (np.float32, np.float64, np.int64, np.uint8, np.complex64, np.bool_)


@pytest.mark.parametrize("src_usm", USM)
@pytest.mark.parametrize("dst_usm", USM)
def test_to_device_across_gpus_keeps_everything(src_usm, dst_usm):
    rng = np.random.default_rng(0)
    for dtype in DTYPES:
        host = (rng.standard_normal((33, 17)) * 100).astype(dtype)
        x = xp.asarray(host, device="cuda:0", usm_type=src_usm)
        y = x.to_device("cuda:1")
        assert y.device == xp.Device.create_device("cuda:1")
        assert y.dtype == x.dtype and y.shape == x.shape
        assert y.usm_type == src_usm  # the kind moves with the data
        z = xp.asarray(y, device="cuda:0", usm_type=dst_usm, copy=True)
        np.testing.assert_array_equal(xp.asnumpy(z), host)
        np.testing.assert_array_equal(xp.asnumpy(x), host)  # the source is untouched
        # a strided, flipped view crosses too
        v = x[::-2, 3:11]
        np.testing.assert_array_equal(xp.asnumpy(v.to_device("cuda:1")), host[::-2, 3:11])


def test_concurrent_copies_in_both_directions_on_their_own_streams():
    n = 1 << 22
    a = xp.asarray(np.arange(n, dtype=np.float32), device="cuda:0")
    b = xp.asarray(-np.arange(n, dtype=np.float32), device="cuda:1")
    s0 = xp.Device.create_device(cupy.cuda.Stream(non_blocking=True))
    with cupy.cuda.Device(1):
        s1 = xp.Device.create_device(cupy.cuda.Stream(non_blocking=True))
    out: dict[str, object] = {}

    def move(name, x, target):
        for _ in range(8):
            out[name] = x.to_device(target)

    t = [threading.Thread(target=move, args=("ab", a, s1)),
         threading.Thread(target=move, args=("ba", b, s0))]
    for th in t:
        th.start()
    for th in t:
        th.join()
    np.testing.assert_array_equal(xp.asnumpy(out["ab"]), np.arange(n, dtype=np.float32))
    np.testing.assert_array_equal(xp.asnumpy(out["ba"]), -np.arange(n, dtype=np.float32))


def test_mixing_gpus_is_a_placement_error():
    a = xp.ones(4, device="cuda:0")
    b = xp.ones(4, device="cuda:1")
    for f in (lambda: a + b, lambda: xp.concat([a, b]), lambda: xp.matmul(a, b),
              lambda: xp.where(a > 0, a, b)):
        with pytest.raises(xp.ExecutionPlacementError):
            f()
    assert bool(xp.all(a + b.to_device(a.device) == 2))
