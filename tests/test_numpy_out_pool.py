"""The NumPy backend's pool of result memory (``usmarray/_backend/_numpy/out_pool.py``):
large elementwise results equal NumPy's, a block is reused only once nothing holds a
view of it, derived views and exported arrays keep theirs, concurrent threads never
share one, and ``USMARRAY_NUMPY_POOL_BYTES`` bounds or switches it off."""

from __future__ import annotations

import subprocess
import sys
import threading

import numpy as np
import pytest

import usmarray as xp
from usmarray._backend._numpy import out_pool

N = out_pool.LEAST // 4 + 1000  # float32 results just over the pooled size


def _u(a):
    return xp.asarray(a, device="numpy")


def _np(x):
    return np.asarray(x)


def _ptr(x):
    return _np(x).__array_interface__["data"][0]


rng = np.random.default_rng(7)
A = rng.standard_normal(N).astype(np.float32)
B = rng.standard_normal(N).astype(np.float32)


@pytest.mark.parametrize("name, fn, ref", [
    ("sin", lambda u, v: xp.sin(u), lambda a, b: np.sin(a)),
    ("abs of a temporary", lambda u, v: -xp.abs(u), lambda a, b: -np.abs(a)),
    ("array + scalar", lambda u, v: u + 2.5, lambda a, b: a + np.float32(2.5)),
    ("scalar - array", lambda u, v: 2.5 - u, lambda a, b: np.float32(2.5) - a),
    ("array * array", lambda u, v: u * v, lambda a, b: a * b),
    ("comparison", lambda u, v: u < v, lambda a, b: a < b),
    ("int // int", lambda u, v: xp.astype(u * 100, xp.int32) // 7,
     lambda a, b: (a * 100).astype(np.int32) // 7),
    ("int / int", lambda u, v: xp.astype(u * 100, xp.int32) / xp.astype(v * 100 + 500, xp.int32),
     lambda a, b: (a * 100).astype(np.int32) / (b * 100 + 500).astype(np.int32)),
    ("broadcast", lambda u, v: xp.reshape(u[:1024], (1024, 1)) + xp.reshape(v[:1024], (1, 1024)),
     lambda a, b: a[:1024].reshape(1024, 1) + b[:1024].reshape(1, 1024)),
    ("long chain", lambda u, v: xp.exp(-xp.abs(u)) * xp.tanh(v) + xp.sqrt(xp.abs(xp.sin(3.0 * u))),
     lambda a, b: np.exp(-np.abs(a)) * np.tanh(b) + np.sqrt(np.abs(np.sin(np.float32(3.0) * a)))),
])
def test_large_results_equal_numpys(name, fn, ref):
    for _ in range(3):  # the second and third rounds run on reused blocks
        got = fn(_u(A), _u(B))
        want = ref(A, B)
        assert got.dtype == xp.asarray(want).dtype
        np.testing.assert_array_equal(_np(got), want)


def test_a_block_is_reused_only_when_nothing_views_it():
    u = _u(A)
    first = xp.sin(u)
    p = _ptr(first)
    second = xp.sin(u)
    assert _ptr(second) != p  # first is alive
    view = first[::2]
    exported = np.asarray(first)
    del first
    third = xp.cos(u)
    assert _ptr(third) != p  # a view and an exported array hold it
    del view
    fourth = xp.cos(u)
    assert _ptr(fourth) != p  # the exported NumPy array still does
    np.testing.assert_array_equal(exported, np.sin(A))
    del exported
    reused = {_ptr(xp.tan(u)) for _ in range(4)}
    assert p in reused  # now free: taken again
    np.testing.assert_array_equal(_np(second), np.sin(A))
    np.testing.assert_array_equal(_np(third), np.cos(A))


def test_a_derived_view_keeps_its_values():
    u = _u(A)
    y = xp.exp(u)
    tail = y[N // 2:]
    del y
    others = [xp.exp(u + float(k)) for k in range(6)]
    np.testing.assert_array_equal(_np(tail), np.exp(A)[N // 2:])
    assert all(_ptr(o) != _ptr(tail) - (N // 2) * 4 for o in others)


def test_threads_never_share_a_block():
    errors: list[str] = []

    def work(k: int) -> None:
        u = _u(A + np.float32(k))
        for _ in range(20):
            r = xp.sin(u) * 2.0 + xp.cos(u)
            want = np.sin(A + np.float32(k)) * np.float32(2.0) + np.cos(A + np.float32(k))
            if not np.array_equal(_np(r), want):
                errors.append(f"thread {k}")
                return

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_the_bound_holds_and_a_full_pool_falls_back():
    pool = out_pool.OutPool(cap=3 * out_pool.LEAST)
    d = np.dtype(np.float32)
    shape = (out_pool.LEAST // 4,)
    held = [pool.empty(shape, d) for _ in range(3)]
    assert all(h is not None for h in held) and pool.bytes == 3 * out_pool.LEAST
    assert pool.empty(shape, d) is None  # full, every block in use
    del held[0]
    again = pool.empty(shape, d)
    assert again is not None and pool.bytes == 3 * out_pool.LEAST
    small = pool.empty((10,), d)
    assert small is None  # below LEAST: NumPy's own
    del held, again
    other = pool.empty((out_pool.LEAST // 2,), d)  # another size: free blocks are dropped
    assert other is not None and pool.bytes <= 3 * out_pool.LEAST


@pytest.mark.parametrize("value, pooled", [("0", False), ("", True)])
def test_the_environment_turns_it_off(value, pooled):
    code = ("import usmarray as xp, numpy as np; x = xp.asarray(np.ones(300000, np.float32), "
            "device='numpy'); print(getattr(x._be.sin, 'pool', None) is not None)")
    env = {"USMARRAY_NUMPY_POOL_BYTES": value}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**__import__("os").environ, **env}, timeout=120, check=True)
    assert out.stdout.strip() == str(pooled)


def test_a_bad_setting_names_the_variable():
    code = "import usmarray as xp; xp.asarray([1.0], device='numpy')"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**__import__("os").environ, "USMARRAY_NUMPY_POOL_BYTES": "lots"},
                         timeout=120)
    assert out.returncode != 0 and "USMARRAY_NUMPY_POOL_BYTES" in out.stderr


@pytest.mark.parametrize("layout", ["flipped", "stepped", "transposed", "broadcast row",
                                    "one-element axis", "empty", "0-D"])
def test_odd_layouts_and_alternating_shapes(layout):
    """Operands of any layout, and calls that alternate between shapes and dtypes, get
    NumPy's values (the pooled result is always a fresh C-contiguous block)."""
    m = rng.standard_normal((2048, 256)).astype(np.float32)
    views = {
        "flipped": lambda a: a[::-1, ::-1],
        "stepped": lambda a: a[::2, ::3],
        "transposed": lambda a: a.T,
        "broadcast row": lambda a: np.broadcast_to(a[0], (4096, 256)),
        "one-element axis": lambda a: a[:, None, :][: 2048, :, :],
        "empty": lambda a: a[:0],
        "0-D": lambda a: a[0, 0],
    }
    v = views[layout](m)
    uv = views[layout](_u(m)) if layout != "broadcast row" else xp.broadcast_to(_u(m)[0], (4096, 256))
    for other in (np.float32(1.5), np.arange(2, dtype=np.int64)):  # alternate dtypes and shapes
        np.testing.assert_array_equal(_np(xp.sin(uv)), np.sin(v))
        np.testing.assert_array_equal(_np(uv * 2.0), v * np.float32(2.0))
        np.testing.assert_array_equal(_np(xp.exp(uv) - uv), np.exp(v) - v)
        small = _u(np.asarray(other))
        np.testing.assert_array_equal(_np(small + small), np.asarray(other) + np.asarray(other))
