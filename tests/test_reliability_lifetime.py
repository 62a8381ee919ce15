"""Lifetime: whatever still refers to memory keeps it alive; nothing else does.

For each way of sharing memory (views, a constructor view over another array's
memory, ``to_device`` on the same context and across contexts and backends, DLPack
exports to the host and to the device, an unconsumed capsule) the test drops every
other reference (``del``, ``gc.collect()``), then allocates and fills arrays of the same
size (so freed memory would be reused and overwritten), then reads the survivor: it
must still hold the original data.  When the survivor goes too, the live USM
allocation count returns to where it was.  Finally, a process that still holds all
of these at exit ends with status 0.

Each check runs in a child interpreter (tests/test_reliability_common.py): a
use-after-free that crashes fails its test only.
"""

from __future__ import annotations

import gc

import numpy as np
import pytest
from test_reliability_common import (
    DLPackProducer,
    assert_child_ok,
    begin,
    child_main,
    describe,
    live_usm_memory,
    needs_sycl,
    run_in_child,
)

MOD = "test_reliability_lifetime"
N = 1 << 18  # 2 MiB of float64: big enough that the allocator reuses freed blocks


def _pattern():
    return np.arange(N, dtype=np.float64) * 3 + 1


def _churn(xp, count=6):
    """Allocate and overwrite memory of the size that was just released."""
    junk = [xp.full((N,), -7.0, dtype=xp.float64) for _ in range(count)]
    junk[-1].sycl_queue.wait()
    return junk


def _fresh(xp, usm_type="device", **kw):
    return xp.asarray(_pattern(), usm_type=usm_type, **kw)



def _survivors(xp, dpctl, sub_queue):
    """name -> (make(x) -> survivor, read(survivor) -> NumPy, expected(pattern))."""
    def same_ctx_queue(x):
        return dpctl.SyclQueue(x.sycl_context, x.sycl_device)

    return {
        "basic view x[::3]": (lambda x: x[::3], xp.asnumpy, lambda p: p[::3]),
        "flip + reshape view": (lambda x: xp.reshape(xp.flip(x), (512, -1)), xp.asnumpy,
                                lambda p: p[::-1].reshape(512, -1)),
        "0-D element view": (lambda x: x[N // 2], lambda s: float(s), lambda p: float(p[N // 2])),
        "usm_ndarray(buffer=x) view": (
            lambda x: xp.usm_ndarray((N // 2,), dtype="f8", buffer=x, strides=(-2,), offset=N - 1),
            xp.asnumpy, lambda p: p[::-2]),
        "to_device same context (zero copy)": (lambda x: x.to_device(same_ctx_queue(x)), xp.asnumpy,
                                               lambda p: p),
        "to_device other context": (lambda x: x.to_device(sub_queue), xp.asnumpy, lambda p: p),
        "to_device numpy backend": (lambda x: x.to_device("numpy"), xp.asnumpy, lambda p: p),
        "DLPack to host, np.from_dlpack": (lambda x: np.from_dlpack(DLPackProducer(x, host=True)), np.asarray,
                                           lambda p: p),
        "DLPack to host of a view": (lambda x: np.from_dlpack(DLPackProducer(x[::-2], host=True)), np.asarray,
                                     lambda p: p[::-2]),
        "DLPack to host, legacy capsule": (
            lambda x: np.from_dlpack(_LegacyHost(x)), np.asarray, lambda p: p),
        "DLPack on device, from_dlpack": (lambda x: xp.from_dlpack(DLPackProducer(x)), xp.asnumpy,
                                          lambda p: p),
        "unconsumed capsule, consumed later": (
            lambda x: _Deferred(x.__dlpack__()), lambda d: xp.asnumpy(xp.from_dlpack(d)),
            lambda p: p),
    }


class _LegacyHost(DLPackProducer):
    """A consumer that asks for kDLCPU with no other keyword (an older protocol)."""

    def __init__(self, x):
        super().__init__(x, host=True)

    def __dlpack__(self, **kw):
        return self.x.__dlpack__(dl_device=(1, 0))


class _Deferred:
    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack_device__(self):
        return (14, 0)

    def __dlpack__(self, **kw):
        return self.capsule


def _keep_alive(name, usm_type):
    import dpctl

    import usmarray as xp

    sub_queue = dpctl.SyclQueue(dpctl.SyclDevice().create_sub_devices(partition=1)[0])
    make, read, want = _survivors(xp, dpctl, sub_queue)[name]
    before = None
    for rnd in range(2):  # pass 0 warms up: the provider's first-use allocations stay
        begin(f"{name} ({usm_type}), pass {rnd}")
        x = _fresh(xp, usm_type)
        survivor = make(x)
        if hasattr(survivor, "sycl_queue"):
            survivor.sycl_queue.wait()
        del x
        gc.collect()
        junk = _churn(xp)
        got = read(survivor)
        np.testing.assert_array_equal(got, want(_pattern()))
        del survivor, got, junk
        after = live_usm_memory()
        if before is not None:
            assert after <= before, f"{after - before} USM allocations outlive every reference"
        before = after


def _clean_exit():
    """Live views, exports and cross-context copies at interpreter exit: exit status 0."""
    import dpctl

    import usmarray as xp

    sub_queue = dpctl.SyclQueue(dpctl.SyclDevice().create_sub_devices(partition=1)[0])
    keep = []
    for name, (make, _, _) in _survivors(xp, dpctl, sub_queue).items():
        begin(name)
        keep.append(make(_fresh(xp, "shared")))
    keep.append(_fresh(xp).__dlpack__())  # a capsule nobody consumes
    _ = (xp.ones(1000) + 1) * 2  # work still queued at exit
    globals()["_KEEP_AT_EXIT"] = keep


_clean_exit.normal_exit = True

_CASES = [
    ("basic view x[::3]", "device"), ("flip + reshape view", "shared"),
    ("0-D element view", "host"), ("usm_ndarray(buffer=x) view", "device"),
    ("to_device same context (zero copy)", "device"), ("to_device other context", "shared"),
    ("to_device numpy backend", "device"), ("DLPack to host, np.from_dlpack", "device"),
    ("DLPack to host, np.from_dlpack", "host"), ("DLPack to host of a view", "shared"),
    ("DLPack to host, legacy capsule", "device"), ("DLPack on device, from_dlpack", "device"),
    ("unconsumed capsule, consumed later", "device"),
]


def _all_keep_alive(first, last):
    for name, usm_type in _CASES[first:last]:
        _keep_alive(name, usm_type)


@needs_sycl
@pytest.mark.parametrize("half", [0, 1])
def test_survivors_keep_memory_alive_and_release_it(half):
    mid = len(_CASES) // 2
    first, last = (0, mid) if half == 0 else (mid, len(_CASES))
    assert_child_ok(MOD, "_all_keep_alive", first, last, timeout=150)


@needs_sycl
def test_process_exits_cleanly_with_live_views_and_exports():
    proc = run_in_child(MOD, "_clean_exit", timeout=120)
    assert proc.returncode == 0, describe(proc)


if __name__ == "__main__":
    child_main(globals())
