"""Process-level patterns (issue 14 family 3).

* ``os.fork()`` after SYCL work (multiprocessing's default start method on Linux):
  the child's first SYCL call raises RuntimeError naming the 'spawn' and 'forkserver'
  start methods instead of hanging, even when another thread of the parent held
  usmarray's lock at the fork; NumPy-device arrays keep working in the child.
* Count-driven loops stop when the result cannot change: ``diff(x, n=10**8)``.

Each check runs in a child interpreter (tests/test_reliability_common.py), whose
timeout turns a hang into a failure.
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


@pytest.mark.skipif(not _have_sycl(), reason="needs a SYCL runtime and device")
def test_fork_after_sycl_work_raises_in_the_child_and_never_hangs():
    assert_child_ok(MOD, "_fork_after_sycl_work", timeout=120)


@pytest.mark.parametrize("device", ["numpy", pytest.param("sycl", marks=pytest.mark.skipif(
    not _have_sycl(), reason="needs a SYCL runtime and device"))])
def test_count_driven_loops_are_bounded(device):
    assert_child_ok(MOD, "_diff_loops_are_bounded", device, timeout=60)


if __name__ == "__main__":
    child_main(globals())
