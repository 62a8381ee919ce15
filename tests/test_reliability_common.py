"""Shared machinery of the tests/test_reliability_*.py files, with self-tests.

* ``run_in_child`` runs one function of a test module in a fresh interpreter
  (``python tests/<module>.py <function> <json args>``), so a segfault or an abort
  fails one test instead of killing pytest.  The child prints ``CASE <text>``
  before each risky step; a crash report names the last case it began.
* ``live_usm_memory`` counts live USM allocations: every allocation that an array
  can reach is owned by a ``dpctl.memory`` object (``MemoryUSMDevice`` /
  ``MemoryUSMShared`` / ``MemoryUSMHost``, subclasses of ``_Memory``).  Those
  objects cannot be weak-referenced, but they are tracked by Python's cyclic GC,
  so ``gc.get_objects()`` finds every live one.  (Temporary allocations that a
  kernel frees itself never get such an owner; RSS covers them.)
* ``rss_bytes`` reads the resident set size from /proc/self/statm.
* A DLPack producer written with ctypes (``make_capsule``, ``Producer``) crafts
  legacy (``dltensor``) and versioned (``dltensor_versioned``) capsules with any
  metadata, and counts calls of the tensor's deleter.  The capsules carry no
  capsule destructor (a Python destructor would run while the consumer's
  exception is pending); ``Producer.release`` plays its part after the call.
"""

from __future__ import annotations

import ctypes as C
import gc
import json
import os
import subprocess
import sys
import traceback

import pytest

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TESTS_DIR)
ALLOWED_VIEW_ERRORS = (ValueError, TypeError)


# ---- crash isolation -------------------------------------------------------------------
def run_in_child(module: str, func: str, *args, timeout: float = 120, env: dict | None = None):
    """Run ``module.func(*args)`` in a fresh interpreter; return the CompletedProcess.

    Raises ``pytest.fail`` on timeout (the child is killed), so a hang is a failure too.
    Timeouts are for the "ci" hypothesis profile; "dev" (about seven times the examples)
    gets eight times as long.
    """
    if os.environ.get("HYPOTHESIS_PROFILE") == "dev":
        timeout *= 8
    path = os.path.join(TESTS_DIR, module + ".py")
    e = dict(os.environ)
    e.setdefault("HYPOTHESIS_PROFILE", "ci")
    e["PYTHONFAULTHANDLER"] = "1"
    if env:
        e.update(env)
    cmd = [sys.executable, path, func, json.dumps(list(args))]
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=e, cwd=ROOT)
    except subprocess.TimeoutExpired as exc:
        out = (exc.stdout or b"")[-3000:]
        pytest.fail(f"{module}.{func}{args} did not finish in {timeout} s (deadlock or hang); "
                    f"last output:\n{out!r}")


def describe(proc) -> str:
    cases = [ln for ln in proc.stdout.splitlines() if ln.startswith("CASE ")]
    last = cases[-1] if cases else "(no case begun)"
    kind = f"killed by signal {-proc.returncode}" if proc.returncode < 0 else f"exit {proc.returncode}"
    return (f"child {kind}; last case begun: {last}\n--- stdout tail ---\n"
            f"{proc.stdout[-2500:]}\n--- stderr tail ---\n{proc.stderr[-4000:]}")


def _have_sycl() -> bool:
    import conftest  # noqa: F401  (in a child: USMARRAY_TEST_WITHOUT_SYCL before usmarray loads)

    from usmarray import _backend

    return _backend.sycl is not None and _backend.sycl.available()


def _have_cuda() -> bool:
    import conftest  # noqa: F401

    from usmarray import _backend

    return _backend.get_backend("cuda") is not None


def device_params(*devices: str) -> list:
    """pytest parameters for ``devices``: ``"numpy"``; ``"cuda:0"`` (marked ``gpu``,
    skipped without CuPy and a GPU); anything else a SYCL device (skipped without a SYCL
    runtime)."""
    out = []
    for dev in devices:
        if dev == "numpy":
            marks = []
        elif dev.startswith("cuda"):
            marks = [pytest.mark.gpu] + ([] if _have_cuda() else [
                pytest.mark.skip(reason="needs CuPy and a CUDA GPU")])
        else:
            marks = [] if _have_sycl() else [
                pytest.mark.skip(reason="needs a SYCL runtime and device")]
        out.append(pytest.param(dev, marks=marks))
    return out


#: for checks of SYCL USM memory (the constructor, SUAI, kDLOneAPI, USM allocation counts)
needs_sycl = pytest.mark.skipif(not _have_sycl(), reason="needs a SYCL runtime and device")


def assert_child_ok(module: str, func: str, *args, timeout: float = 120):
    proc = run_in_child(module, func, *args, timeout=timeout)
    assert proc.returncode == 0, describe(proc)
    return proc


def child_main(namespace: dict) -> None:
    """Entry point of a test module run as a child: ``<func> <json args>``."""
    import conftest  # noqa: F401  (registers and loads the hypothesis profile)

    func = namespace[sys.argv[1]]
    args = json.loads(sys.argv[2]) if len(sys.argv) > 2 else []
    try:
        func(*args)
    except BaseException:
        traceback.print_exc()
        code = 1
    else:
        code = 0
    sys.stdout.flush()
    sys.stderr.flush()
    if getattr(func, "normal_exit", False):
        sys.exit(code)  # the function tests interpreter finalisation itself
    # otherwise leave without finalisation: a failed check may have left a crafted
    # capsule's memory owned by a consumer, and tearing ctypes down under it would crash
    # at exit; clean exits are tested on their own (test_reliability_lifetime.py)
    os._exit(code)


def begin(text: str) -> None:
    print("CASE", text, flush=True)


# ---- resources -------------------------------------------------------------------------
def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def live_usm_memory() -> int:
    from dpctl.memory._memory import _Memory

    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, _Memory))


# ---- DLPack producer in ctypes -----------------------------------------------------------
class DLDevice(C.Structure):
    _fields_ = [("device_type", C.c_int32), ("device_id", C.c_int32)]


class DLDataType(C.Structure):
    _fields_ = [("code", C.c_uint8), ("bits", C.c_uint8), ("lanes", C.c_uint16)]


class DLTensor(C.Structure):
    _fields_ = [
        ("data", C.c_void_p), ("device", DLDevice), ("ndim", C.c_int32), ("dtype", DLDataType),
        ("shape", C.POINTER(C.c_int64)), ("strides", C.POINTER(C.c_int64)),
        ("byte_offset", C.c_uint64),
    ]


_DELETER = C.CFUNCTYPE(None, C.c_void_p)


class DLManagedTensor(C.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", C.c_void_p), ("deleter", _DELETER)]


class DLPackVersion(C.Structure):
    _fields_ = [("major", C.c_uint32), ("minor", C.c_uint32)]


class DLManagedTensorVersioned(C.Structure):
    _fields_ = [
        ("version", DLPackVersion), ("manager_ctx", C.c_void_p), ("deleter", _DELETER),
        ("flags", C.c_uint64), ("dl_tensor", DLTensor),
    ]


KDL_CPU, KDL_ONEAPI = 1, 14
DL_INT, DL_UINT, DL_FLOAT, DL_COMPLEX, DL_BOOL = 0, 1, 2, 5, 6
DL_CODES = {"i": DL_INT, "u": DL_UINT, "f": DL_FLOAT, "c": DL_COMPLEX, "b": DL_BOOL}
CAPSULE_NAMES = (b"dltensor", b"dltensor_versioned")

_api = C.pythonapi
_api.PyCapsule_New.restype = C.py_object
_api.PyCapsule_New.argtypes = (C.c_void_p, C.c_char_p, C.c_void_p)
_api.PyCapsule_GetName.restype = C.c_char_p
_api.PyCapsule_GetName.argtypes = (C.py_object,)

_LIVE: dict[int, tuple] = {}
DELETED: list = []  # tokens of deleted tensors; ("unknown", addr) for a second deletion
_TOKENS = iter(range(1, 1 << 62))


def _on_delete(addr: int) -> None:
    entry = _LIVE.pop(addr, None)
    DELETED.append(entry[-1] if entry is not None else ("unknown", addr))


_deleter = _DELETER(_on_delete)


def make_capsule(ptr, shape, strides, byte_offset, code, bits, lanes=1, device=(KDL_CPU, 0),
                 versioned=False, version=(1, 0), flags=0, ndim=None, name=None, owner=None):
    """A capsule over ``ptr`` with the given metadata; returns (capsule, token)."""
    sh = (C.c_int64 * max(len(shape), 1))(*shape)
    st = None if strides is None else (C.c_int64 * max(len(strides), 1))(*strides)
    m = DLManagedTensorVersioned() if versioned else DLManagedTensor()
    if versioned:
        m.version = DLPackVersion(*version)
        m.flags = flags
    t = m.dl_tensor
    t.data = ptr
    t.device = DLDevice(*device)
    t.ndim = len(shape) if ndim is None else ndim
    t.dtype = DLDataType(code, bits, lanes)
    t.shape = C.cast(sh, C.POINTER(C.c_int64))
    t.strides = None if st is None else C.cast(st, C.POINTER(C.c_int64))
    t.byte_offset = byte_offset
    m.deleter = _deleter
    addr = C.addressof(m)
    token = next(_TOKENS)
    _LIVE[addr] = (m, sh, st, owner, token)
    cname = name if name is not None else CAPSULE_NAMES[1 if versioned else 0]
    return _api.PyCapsule_New(addr, cname, None), (addr, token)


class Producer:
    """An object with ``__dlpack__``/``__dlpack_device__`` handing out crafted capsules.

    ``factory(max_version)`` returns what ``make_capsule`` returns.  ``release()`` does what a
    capsule destructor does for capsules the consumer did not take (name unchanged):
    it calls the deleter.  ``deleter_calls()`` counts deleter calls per capsule.
    """

    def __init__(self, device, factory):
        self._device = device
        self._factory = factory
        self.calls: list[dict] = []
        self.issued: list[tuple] = []

    def __dlpack_device__(self):
        return self._device

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        self.calls.append(dict(stream=stream, max_version=max_version, dl_device=dl_device, copy=copy))
        cap, (addr, token) = self._factory(max_version)
        self.issued.append((cap, addr, token))
        return cap

    def release(self) -> list[bytes]:
        names = []
        for cap, addr, token in self.issued:
            name = _api.PyCapsule_GetName(cap)
            names.append(name)
            if name in CAPSULE_NAMES and _LIVE.get(addr, (None,))[-1] == token:
                _on_delete(addr)
        return names

    def deleter_calls(self) -> list[int]:
        """Deleter calls per issued capsule (a second call on a deleted tensor counts too)."""
        return [DELETED.count(token) + DELETED.count(("unknown", addr))
                for _, addr, token in self.issued]


def dl_dtype(np_dtype) -> tuple[int, int]:
    import numpy as np

    d = np.dtype(np_dtype)
    return DL_CODES[d.kind], d.itemsize * 8


# ---- self-tests ----------------------------------------------------------------------------
def _child_segfault():
    import signal

    begin("raise SIGSEGV")
    os.kill(os.getpid(), signal.SIGSEGV)


def _child_sleep(seconds):
    import time

    time.sleep(seconds)


def _child_noop():
    begin("nothing")


def test_runner_reports_a_crash_with_its_last_case():
    proc = run_in_child("test_reliability_common", "_child_segfault", timeout=60)
    assert proc.returncode != 0
    assert "raise SIGSEGV" in describe(proc)


def test_runner_turns_a_hang_into_a_failure():
    with pytest.raises(pytest.fail.Exception, match="did not finish"):
        run_in_child("test_reliability_common", "_child_sleep", 60, timeout=2)


def test_crafted_capsule_imports_into_numpy_and_is_deleted_once():
    import numpy as np

    host = np.arange(6, dtype=np.int32)
    code, bits = dl_dtype(host.dtype)

    def factory(max_version):
        versioned = max_version is not None and max_version[0] >= 1
        return make_capsule(host.ctypes.data, (2, 3), (1, 2), 0, code, bits,
                            versioned=versioned, owner=host)

    p = Producer((KDL_CPU, 0), factory)
    got = np.from_dlpack(p)
    np.testing.assert_array_equal(got, host.reshape(3, 2).T)
    del got
    gc.collect()
    p.release()
    assert p.deleter_calls() == [1]


@needs_sycl
def test_live_usm_memory_counts_allocations():
    import usmarray as xp

    xp.ones(10)  # first use allocates the provider's long-lived helpers
    before = live_usm_memory()
    arrays = [xp.ones(10) for _ in range(5)]
    assert live_usm_memory() >= before + 5
    del arrays
    assert live_usm_memory() <= before


if __name__ == "__main__":
    child_main(globals())


class DLPackProducer:
    """Re-exports an array through DLPack: on its own device, or (``host=True``) as a
    kDLCPU export, the way a host consumer such as NumPy would ask for it."""

    def __init__(self, x, host=False):
        self.x, self.host = x, host

    def __dlpack_device__(self):
        return (1, 0) if self.host else self.x.__dlpack_device__()

    def __dlpack__(self, **kw):
        if self.host:
            kw["dl_device"] = (1, 0)
        return self.x.__dlpack__(**kw)
