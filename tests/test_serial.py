"""usmarray/_serial.py: every public call that may submit or wait runs under one lock."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import usmarray as xp
from usmarray import _serial
from usmarray._operators import python_form

pytestmark = pytest.mark.skipif(
    _serial.LOCK is None or xp.__array_namespace_info__().default_device().backend != "sycl",
    reason="no backend with a runtime lock (SYCL) is the default device here",
)


def _public_functions(mod):
    # Python functions, and the compiled core's lean fronts of some of them
    return {n: f for n, f in vars(mod).items()
            if not n.startswith("_") and _serial.is_namespace_function(f)}


@pytest.mark.parametrize("mod", [xp, xp.linalg, xp.fft], ids=lambda m: m.__name__)
def test_every_public_function_is_serialized(mod):
    funcs = _public_functions(mod)
    assert len(funcs) > (100 if mod is xp else 10)
    kinds = {n: getattr(f, "_usmarray_lock", None) for n, f in funcs.items()}
    missing = sorted(n for n, k in kinds.items() if k not in ("wrapper", "self", "none"))
    assert not missing, f"not serialized: {missing}"
    assert {n for n, k in kinds.items() if k == "none"} <= _serial.VIEW_ONLY
    if mod is xp:
        assert kinds["add"] == kinds["sin"] == "self" and kinds["sum"] == "wrapper"
        assert kinds["permute_dims"] == "none"


def test_operators_and_submitting_methods_are_serialized():
    names = [f"__{p}{n}__" for n in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow",
                                     "and", "or", "xor", "lshift", "rshift", "matmul")
             for p in ("", "r", "i")]
    names += ["__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__", "__neg__", "__pos__",
              "__abs__", "__invert__", "__setitem__", "__dlpack__", "to_device", "__bool__",
              "__float__", "__int__", "__complex__", "__index__", "__array__", "__repr__"]
    missing = [n for n in names  # (the compiled core's slots: their Python forms)
               if getattr(python_form(n), "_usmarray_lock", None) not in ("wrapper", "self")]
    assert not missing, f"not serialized: {missing}"


def test_wrapped_functions_keep_name_and_signature():
    import inspect

    assert xp.add.__name__ == "add"
    assert list(inspect.signature(xp.add).parameters) == ["x1", "x2"]
    assert list(inspect.signature(xp.linalg.svd).parameters) == ["x", "full_matrices"]


def _blocked_while_locked(call):
    """Whether ``call`` waits while another thread holds the lock, then completes."""
    done = threading.Event()
    out = []

    def run():
        out.append(call())
        done.set()

    with _serial.LOCK:
        t = threading.Thread(target=run, daemon=True)
        t.start()
        blocked = not done.wait(0.3)
    assert done.wait(30), "the call never completed after the lock was released"
    t.join()
    return blocked, out[0]


def test_calls_wait_for_the_lock_and_then_run():
    a = xp.arange(10)
    blocked, res = _blocked_while_locked(lambda: xp.asnumpy(a + 1))
    assert blocked
    assert res.tolist() == list(range(1, 11))
    blocked, res = _blocked_while_locked(lambda: a[xp.asarray([3, 1])])
    assert blocked
    assert xp.asnumpy(res).tolist() == [3, 1]


def test_creation_and_setitem_lock_themselves_around_the_backend_call():
    a = xp.arange(10)
    v = xp.asarray([7, 8])

    def assign():
        a[2:4] = v
        return xp.asnumpy(a)

    for f, want in ((assign, [0, 1, 7, 8, 4, 5, 6, 7, 8, 9]),
                    (lambda: xp.asnumpy(xp.zeros(3)), [0.0, 0.0, 0.0]),
                    (lambda: xp.asnumpy(xp.concat([v, v])), [7, 8, 7, 8]),
                    (lambda: xp.asnumpy(xp.stack([v, v])).tolist(), [[7, 8], [7, 8]]),
                    (lambda: xp.asnumpy(xp.full(2, 1.5)).tolist(), [1.5, 1.5]),
                    (lambda: xp.asnumpy(xp.asarray(1.5)).tolist(), 1.5),
                    (lambda: xp.empty((2, 2)).shape, (2, 2))):
        blocked, res = _blocked_while_locked(f)
        assert blocked
        assert (res.tolist() if isinstance(res, np.ndarray) else res) == want
    with _serial.LOCK:  # reentrant: a call under the lock runs
        assert xp.asnumpy(xp.zeros(2)).tolist() == [0.0, 0.0]


def test_basic_slicing_and_view_only_functions_do_not_take_the_lock():
    a = xp.arange(10)
    blocked, res = _blocked_while_locked(lambda: a[2:5])
    assert not blocked
    assert res.shape == (3,)
    m = xp.reshape(a, (2, 5))
    for f in (lambda: xp.permute_dims(m, (1, 0)), lambda: xp.expand_dims(m, axis=0),
              lambda: xp.flip(m), lambda: xp.broadcast_to(a, (3, 10)), lambda: m.mT):
        blocked, res = _blocked_while_locked(f)
        assert not blocked


def test_view_only_functions_share_memory_with_their_input():
    from usmarray._serial import VIEW_ONLY

    a = xp.reshape(xp.arange(12), (3, 4))
    views = {"permute_dims": xp.permute_dims(a, (1, 0)), "expand_dims": xp.expand_dims(a, axis=0),
             "squeeze": xp.squeeze(xp.expand_dims(a, axis=0), axis=0),
             "broadcast_to": xp.broadcast_to(a, (2, 3, 4)), "flip": xp.flip(a),
             "moveaxis": xp.moveaxis(a, 0, 1), "matrix_transpose": xp.matrix_transpose(a)}
    views["unstack"] = xp.unstack(a)[1]
    views["broadcast_arrays"] = xp.broadcast_arrays(a, xp.ones((2, 1, 1)))[0]
    assert {n for n in VIEW_ONLY if callable(getattr(xp, n))} >= set(views)
    a[...] = a + 1000
    for name, v in views.items():  # views: the write shows through every one
        assert bool(xp.all(v >= 1000)), name


def test_lock_free_backends_do_not_take_the_lock():
    a = xp.arange(10, device="numpy")
    idx = xp.asarray([3, 1], device="numpy")
    for f in (lambda: a + 1, lambda: xp.sum(a), lambda: a[idx], lambda: xp.sort(a),
              lambda: xp.sin(xp.astype(a, xp.float64)), lambda: a.to_device("numpy"),
              lambda: a.__setitem__(slice(0, 2), idx), lambda: xp.zeros(3, device="numpy"),
              lambda: xp.empty(3, device=a.device), lambda: xp.concat([a, a]),
              lambda: xp.stack([a, a]), lambda: xp.full(3, 1.5, device=a.device),
              lambda: xp.asarray(1.5, device=a.device), lambda: xp.reshape(a, (2, -1))):
        blocked, _ = _blocked_while_locked(f)
        assert not blocked


def _lock_is_free() -> bool:
    """Whether another thread can take the lock now (so this one does not hold it)."""
    got = []

    def probe():
        ok = _serial.LOCK.acquire(timeout=2)
        got.append(ok)
        if ok:
            _serial.LOCK.release()

    t = threading.Thread(target=probe)
    t.start()
    t.join()
    return got[0]


class _Producer:
    """A DLPack producer that records whether its code ran under usmarray's lock."""

    def __init__(self):
        self.a = np.arange(4.0)
        self.free: list[bool] = []

    def __dlpack__(self, **kwargs):
        self.free.append(_lock_is_free())
        return self.a.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return (1, 0)


def test_producer_code_never_runs_under_the_lock():
    p = _Producer()
    x = xp.from_dlpack(p, device=xp.__array_namespace_info__().default_device())
    assert xp.asnumpy(x).tolist() == [0.0, 1.0, 2.0, 3.0]
    assert p.free == [True]
    y = xp.asarray(xp.zeros(2))

    class Suai:
        free: list[bool] = []

        @property
        def __sycl_usm_array_interface__(self):
            self.free.append(_lock_is_free())
            return y.__sycl_usm_array_interface__

    s = Suai()
    assert xp.asnumpy(xp.asarray(s)).tolist() == [0.0, 0.0]
    assert s.free and all(s.free)


def test_the_lock_is_reentrant_for_nested_calls():
    with _serial.LOCK:
        assert float(xp.linalg.vector_norm(xp.asarray([3.0, 4.0]))) == 5.0


def test_serialization_can_be_turned_off():
    code = ("import usmarray as xp; "
            "print(getattr(xp.sum, '_usmarray_lock', None), "
            "getattr(xp.usm_ndarray.__bool__, '_usmarray_lock', None))")
    env = dict(os.environ, USMARRAY_SERIALIZE="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["None", "None"]
