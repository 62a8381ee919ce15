"""No leaks: a long mixed workload leaves RSS and the live USM allocation count flat.

The workload (``workload``) creates arrays on the SYCL device and the NumPy backend,
computes (elementwise chains, reductions, matmul, sort, unique), indexes (integer
arrays, masks, slices, assignments), migrates (to another queue of the same
context, to a sub-device's context and back, to the NumPy backend and back) and
round-trips DLPack (a device export into ``from_dlpack``, a host export into NumPy,
a NumPy array into ``from_dlpack``, and a refused export whose capsule is dropped).

Measured in a child interpreter, after ``WARMUP`` iterations (the kernel cache,
the allocator's pools and the provider's helpers settle):

* RSS (``/proc/self/statm``) may grow by at most ``RSS_TOLERANCE`` (8 MiB) over the
  remaining ``ITERATIONS - WARMUP`` iterations (ca. 20 s here), i.e. about 4.8 KB per
  iteration; leaking one 64 KiB buffer per iteration would grow it by >100 MiB.
* Stricter, and failing today (xfail): the least-squares slope of RSS over those
  iterations stays below ``MAX_SLOPE`` (256 B per iteration).
* Live USM allocations -- the ``dpctl.memory`` objects that own every allocation an
  array can reach, counted through ``gc.get_objects()`` (see
  ``live_usm_memory``) -- are exactly as many at the end as after the warm-up.

``scripts/soak.py`` runs the same workload for 10^5 iterations and prints RSS over
time (not run in CI).
"""

from __future__ import annotations

import json
import os
import time

import numpy as np
import pytest
from test_reliability_common import (
    DLPackProducer,
    _have_sycl,
    assert_child_ok,
    begin,
    child_main,
    live_usm_memory,
    needs_sycl,
    rss_bytes,
)

MOD = "test_reliability_leaks"
ITERATIONS = int(os.environ.get("USMARRAY_LEAK_ITERATIONS", "2000"))
WARMUP = 300
RSS_TOLERANCE = 8 << 20
MAX_SLOPE = 256  # bytes of RSS per iteration



def make_context():
    """The queues the workload uses: default, another queue of its context, a
    sub-device queue (another context)."""
    import dpctl

    import usmarray as xp

    q0 = xp.asarray(0).sycl_queue
    q1 = dpctl.SyclQueue(q0.sycl_context, q0.sycl_device)
    qs = dpctl.SyclQueue(dpctl.SyclDevice().create_sub_devices(partition=1)[0])
    return {"q0": q0, "q1": q1, "sub": qs}


def workload(xp, i: int, ctx: dict) -> float:
    """One iteration; returns a checksum so the work cannot be skipped."""
    n = 4096 + (i % 7) * 512
    a = xp.arange(n, dtype=xp.float64, sycl_queue=ctx["q0"])
    b = xp.reshape(xp.asarray(np.linspace(0, 1, n), sycl_queue=ctx["q0"]), (-1,))
    c = xp.sin(a) * b + xp.exp(-b) - a / (b + 1.0)
    s = float(xp.sum(c)) + float(xp.max(a))
    m = xp.reshape(a[:64 * 64], (64, 64))
    s += float(xp.sum(xp.matmul(m, m.mT)[0]))
    s += float(xp.sort(c[::-3])[0]) + int(xp.unique_values(xp.astype(a[:256], xp.int64) % 13).shape[0])
    # indexing
    idx = xp.asarray([0, n - 1, 5, 7], dtype=xp.int64, sycl_queue=ctx["q0"])
    s += float(xp.sum(c[idx]))
    mask = a > (n / 2)
    s += float(xp.sum(c[mask]))
    c[idx] = 1.0
    c[mask] = 2.0
    c[10:20] = a[:10]
    # migration
    d = c.to_device(ctx["q1"])  # same context: a view on another queue
    e = d.to_device(ctx["sub"])  # another context: a copy
    f = e.to_device(ctx["q0"])
    g = f.to_device("numpy")
    h = xp.asarray(g * 2.0, device=ctx["q0"])
    s += float(xp.sum(h[:8]))
    # DLPack
    r1 = xp.from_dlpack(DLPackProducer(c))  # device capsule
    r2 = np.from_dlpack(DLPackProducer(c[::2], host=True))  # host export
    r3 = xp.from_dlpack(np.arange(16.0))  # a NumPy producer
    s += float(r1[3]) + float(r2[1]) + float(r3[5])
    try:
        c.__dlpack__(dl_device=(2, 0))  # refused: BufferError
    except BufferError:
        pass
    return s


def _run(iterations, warmup):
    import usmarray as xp

    ctx = make_context()
    ref = None
    samples = []
    for i in range(iterations):
        if i == 0:
            begin("first iteration")
        s = workload(xp, i, ctx)
        if i % 7 == 0:  # identical inputs repeat every 7 iterations: identical results
            ref = s if ref is None else ref
            assert s == ref, f"iteration {i}: checksum {s} != {ref}"
        if i + 1 == warmup or i + 1 == iterations or (i + 1) % 100 == 0:
            samples.append((i + 1, rss_bytes(), live_usm_memory(), time.monotonic()))
    return samples


def _measure(iterations, warmup):
    samples = _run(iterations, warmup)
    print("SAMPLES", json.dumps(samples))


def _leak_detector_self_check(iterations, warmup):
    """The same measurement sees a deliberate leak of one 64 KiB allocation per iteration."""
    import usmarray as xp

    hoard = []
    orig = workload

    def leaky(xp_, i, ctx):
        hoard.append(xp.ones(8192, dtype=xp.float64))
        return orig(xp_, i, ctx)

    globals()["workload"] = leaky
    samples = _run(iterations, warmup)
    start = next(s for s in samples if s[0] == warmup)
    end = samples[-1]
    assert end[2] - start[2] >= iterations - warmup, (start, end)
    assert end[1] - start[1] >= (iterations - warmup) * 60000, (start, end)


@pytest.fixture(scope="module")
def samples():
    if not _have_sycl():
        pytest.skip("needs a SYCL runtime and device")
    """(iteration, RSS bytes, live USM allocations, time) samples from one child run."""
    proc = assert_child_ok(MOD, "_measure", ITERATIONS, WARMUP, timeout=170)
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("SAMPLES "))
    rows = json.loads(line[len("SAMPLES "):])
    start = next(i for i, r in enumerate(rows) if r[0] == WARMUP)
    return rows[start:]


def _slope(rows):
    n = len(rows)
    mx = sum(r[0] for r in rows) / n
    my = sum(r[1] for r in rows) / n
    return sum((r[0] - mx) * (r[1] - my) for r in rows) / sum((r[0] - mx) ** 2 for r in rows)


def _legacy_stack() -> bool:
    import usmarray as xp

    return xp.provider == "dpctl.tensor"


@needs_sycl
def test_mixed_workload_leaves_usm_allocations_and_rss_flat(samples, request):
    if _legacy_stack():
        request.applymarker(pytest.mark.xfail(strict=False, reason=(
            "V12 is larger on the legacy dpctl 0.21 stack: native RSS grows ~6.6 KB per "
            "iteration there (usmarray before and after this check alike), past the 8 MiB bound")))
    start, end = samples[0], samples[-1]
    grow = end[1] - start[1]
    print(f"RSS {start[1] >> 20} -> {end[1] >> 20} MiB ({grow / 2**20:+.1f} MiB over "
          f"{end[0] - start[0]} iterations, {end[3] - start[3]:.1f} s, slope "
          f"{_slope(samples):.0f} B/iteration); live USM allocations {start[2]} -> {end[2]}")
    assert all(r[2] == start[2] for r in samples), f"live USM allocations: {[r[2] for r in samples]}"
    assert grow <= RSS_TOLERANCE, f"RSS grew by {grow / 2**20:.1f} MiB (tolerance {RSS_TOLERANCE >> 20} MiB)"


@pytest.mark.xfail(strict=False, reason=(
    "native memory grew ~0.9 KB per workload iteration (~20-30 B per kernel submission or "
    "allocation), steadily over 10^5 iterations (scripts/soak.py), with Python objects "
    "(tracemalloc) and USM allocations flat and plain dpnp.tensor calls growing alike: below "
    "usmarray. Since the namespace's small elementwise calls and the factory launch through "
    "dpctl's C interface, this workload's slope measures 60-92 B/iteration run "
    "alone, under the limit, but above it in some runs of the parallel suite: not strict"))
def test_mixed_workload_rss_slope_is_below_256_bytes_per_iteration(samples):
    slope = _slope(samples)
    assert slope <= MAX_SLOPE, f"RSS slope {slope:.0f} B/iteration (limit {MAX_SLOPE})"


@needs_sycl
def test_leak_measurement_detects_a_leak():
    assert_child_ok(MOD, "_leak_detector_self_check", 60, 20, timeout=60)


_ = live_usm_memory  # re-exported for scripts/soak.py

if __name__ == "__main__":
    child_main(globals())
