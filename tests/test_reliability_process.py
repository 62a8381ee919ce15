"""Process-level patterns.

* ``os.fork()`` after SYCL work (multiprocessing's default start method on Linux):
  the child's first SYCL call raises RuntimeError naming the 'spawn' and 'forkserver'
  start methods instead of hanging, even when another thread of the parent held
  usmarray's lock at the fork; NumPy-device arrays keep working in the child.
* Count-driven loops stop when the result cannot change: ``diff(x, n=10**8)``.
* Kernels past the provider's work-item range (a full reduction over 2**34 elements
  aborted the process when other work was queued): reductions and elementwise
  functions whose operands reach 2**31 elements run in pieces and give NumPy's values.

Each check runs in a child interpreter (tests/test_reliability_common.py), whose
timeout makes a hang a failure.
"""

from __future__ import annotations

import os
import threading
import time

import numpy as np
import pytest
from test_reliability_common import _have_sycl, assert_child_ok, begin, child_main

MOD = "test_reliability_process"


def _fork_after_sycl_work() -> None:
    import usmarray as xp

    x = xp.asarray(np.arange(1000.0))
    assert float(xp.sum(x * 2)) == 999000.0
    # a thread inside usmarray's lock while the process forks
    stop = threading.Event()

    def busy():
        while not stop.is_set():
            xp.sum(x + 1.0)

    t = threading.Thread(target=busy)
    t.start()
    time.sleep(0.2)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the forked child: report and leave without finalization
        msg = "ok"
        try:
            for what, call in (("a kernel on an inherited array", lambda: xp.sum(x)),
                               ("a new array on the default device", lambda: xp.asarray([1.0])),
                               ("asnumpy", lambda: xp.asnumpy(x)),
                               ("repr", lambda: repr(x))):
                try:
                    call()
                    msg = f"{what}: no error"
                    break
                except RuntimeError as exc:
                    if "spawn" not in str(exc) or "forkserver" not in str(exc):
                        msg = f"{what}: unclear message {exc}"
                        break
            if msg == "ok":
                y = xp.asarray([1.0, 2.0], device="numpy")
                if float(xp.sum(y)) != 3.0 or x.shape != (1000,):
                    msg = "numpy device or metadata broken"
        except BaseException as exc:  # noqa: BLE001
            msg = f"unexpected {type(exc).__name__}: {exc}"
        os.write(w, msg.encode())
        os._exit(0)
    os.close(w)
    stop.set()
    t.join()
    deadline = time.time() + 60
    while time.time() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, 9)
        raise AssertionError("the forked child hung")
    msg = os.read(r, 4096).decode()
    assert msg == "ok", msg
    assert float(xp.sum(x)) == 499500.0  # the parent keeps working


def _diff_loops_are_bounded(name: str) -> None:
    import usmarray as xp

    dev = xp.asarray(0).device if name == "sycl" else name
    x = xp.asarray([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]], device=dev)
    for n in (3, 4, 10**8, 2**62):
        begin(f"diff n={n}")
        t = time.perf_counter()
        r = xp.diff(x, n=n)
        assert r.shape == (2, 0) and r.dtype == xp.float64
        assert time.perf_counter() - t < 5
    r = xp.diff(x, n=10**8, axis=0, prepend=x, append=x)
    assert r.shape == (0, 3)
    np.testing.assert_array_equal(xp.asnumpy(xp.diff(x, n=2)), np.diff(xp.asnumpy(x), n=2))


def _huge_reductions_work() -> None:
    """Stride-0 views (no memory behind them) past the provider's range, with other
    work queued first, as in the issue's report: a sum over 2**34 elements, the other
    reductions just past 2**31 (each piece costs time, so CI keeps to few)."""
    import usmarray as xp

    n = 2**34
    begin("queued work, then sum over 2**34 elements")
    pending = [xp.sin(xp.ones(2**20)) for _ in range(4)]  # submitted, not waited for
    ones = xp.broadcast_to(xp.asarray(1.0, dtype=xp.float32), (2**17, n // 2**17))
    assert float(xp.sum(ones)) == float(n)
    m = 2**31
    ones = xp.broadcast_to(xp.asarray(1.0, dtype=xp.float32), (2**16, m // 2**16))
    for fn, want in (("max", 1.0), ("prod", 1.0), ("mean", 1.0)):
        begin(f"{fn} over 2**31 elements")
        assert float(getattr(xp, fn)(ones)) == want
    flags = xp.broadcast_to(xp.asarray(True), (m,))
    for fn, want in (("any", True), ("all", True), ("count_nonzero", m)):
        begin(f"{fn} over 2**31 elements")
        assert int(getattr(xp, fn)(flags)) == want
    begin("sum over axis 1 of (2, 2**31)")
    rows = xp.sum(xp.broadcast_to(xp.asarray(2, dtype=xp.int8), (2, m)), axis=1)
    assert xp.asnumpy(rows).tolist() == [2 * m] * 2
    begin("the queued work's result")
    assert abs(float(xp.sum(pending[0])) - 2**20 * np.sin(1.0)) < 1.0


@pytest.mark.skipif(not _have_sycl(), reason="needs a SYCL runtime and device")
def test_reductions_past_the_providers_range_work():
    assert_child_ok(MOD, "_huge_reductions_work", timeout=300)


def _pieces_match_numpy() -> None:
    """The pieces logic itself, with the range limit lowered to 64 elements and pieces
    of 7, on drawn values and layouts: every reduction (axes, keepdims, NaN firsts for
    argmax) and elementwise functions (broadcasting, ``out=``) give NumPy's values."""
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from test_reliability_layouts import layout, realize, shapes

    import usmarray as xp
    from usmarray._backend._sycl import ranged as _ranged

    _ranged.LIMIT, _ranged.PIECE = 64, 7
    rng = np.random.default_rng(0)

    def values(shape):
        a = rng.integers(-3, 4, size=shape).astype(np.float64)
        a[rng.random(shape) < 0.05] = np.nan
        return a

    @st.composite
    def case(draw):
        shape = draw(shapes(1, 3, 1, 9))
        plan = draw(layout(shape))
        nd = len(shape)
        axis = draw(st.one_of(st.none(), st.integers(-nd, nd - 1),
                              st.lists(st.integers(0, nd - 1), unique=True, min_size=1)
                              .map(tuple)))
        return plan, axis, draw(st.booleans())

    @settings(max_examples=150, deadline=None, database=None)
    @given(case())
    def check(c):
        plan, axis, keepdims = c
        a, x = realize(plan, values, xp, None)
        a = np.ascontiguousarray(a)
        for fn in ("sum", "prod", "max", "min", "mean", "var", "std"):
            begin(f"{fn} {a.shape} axis={axis} keepdims={keepdims}")
            got = xp.asnumpy(getattr(xp, fn)(x, axis=axis, keepdims=keepdims))
            want = getattr(np, {"max": "amax", "min": "amin"}.get(fn, fn))(
                a, axis=axis, keepdims=keepdims)
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        b, nz = np.nan_to_num(a) > 0, xp.asarray(np.nan_to_num(a) > 0)
        for fn in ("any", "all", "count_nonzero"):
            begin(f"{fn} {a.shape} axis={axis}")
            got = xp.asnumpy(getattr(xp, fn)(nz, axis=axis, keepdims=keepdims))
            want = (np.count_nonzero(b, axis=axis, keepdims=keepdims) if fn == "count_nonzero"
                    else getattr(np, fn)(b, axis=axis, keepdims=keepdims))
            np.testing.assert_array_equal(got, want)
        one = axis if axis is None or isinstance(axis, int) else axis[0]
        for fn in ("argmax", "argmin"):
            for data, ref in ((x, a), (xp.asarray(np.nan_to_num(a)), np.nan_to_num(a))):
                begin(f"{fn} {a.shape} axis={one} keepdims={keepdims}")
                got = xp.asnumpy(getattr(xp, fn)(data, axis=one, keepdims=keepdims))
                want = getattr(np, fn)(ref, axis=one, keepdims=keepdims)
                np.testing.assert_array_equal(got, want)
        begin(f"elementwise {a.shape}")
        np.testing.assert_array_equal(xp.asnumpy(x * 2 + x), a * 2 + a)
        row = xp.asarray(a[..., :1])
        np.testing.assert_array_equal(xp.asnumpy(xp.maximum(x, row)), np.maximum(a, a[..., :1]))
        y = xp.zeros(a.shape)
        y += x
        np.testing.assert_array_equal(xp.asnumpy(y), a)

    check()
    begin("a broadcast result from small operands")
    u, v = np.arange(80.0)[:, None], np.arange(3.0)
    np.testing.assert_array_equal(xp.asnumpy(xp.asarray(u) - xp.asarray(v)), u - v)


@pytest.mark.skipif(not _have_sycl(), reason="needs a SYCL runtime and device")
def test_pieces_past_the_range_give_numpys_values():
    assert_child_ok(MOD, "_pieces_match_numpy", timeout=600)


@pytest.mark.skipif(not _have_sycl(), reason="needs a SYCL runtime and device")
def test_fork_after_sycl_work_raises_in_the_child_and_never_hangs():
    assert_child_ok(MOD, "_fork_after_sycl_work", timeout=120)


@pytest.mark.parametrize("device", ["numpy", pytest.param("sycl", marks=pytest.mark.skipif(
    not _have_sycl(), reason="needs a SYCL runtime and device"))])
def test_count_driven_loops_are_bounded(device):
    assert_child_ok(MOD, "_diff_loops_are_bounded", device, timeout=60)


if __name__ == "__main__":
    child_main(globals())
