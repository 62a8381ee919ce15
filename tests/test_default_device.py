"""The default device where none is set: an accelerator first (a SYCL
GPU, then a CUDA GPU), then the SYCL default device, then NumPy; the environment
variable before all of them; and the reason ``python -m usmarray`` prints.

The GPU orders are tested with fake backends standing in the "sycl" and "cuda" slots,
so they run on a machine without a GPU (and without SYCL)."""

import numpy as np
import pytest

import usmarray as xp
from usmarray import _backend, _device


class _Queue:
    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return f"_Queue({self.text})"


class _FakeBackend(_backend.BackendBase):
    """A backend with a CPU device and, if ``gpu`` names one, a GPU; counts its calls."""

    def __init__(self, name, gpu=None, cpu=True, available=True):
        self.name = name
        self.cpu = _Queue(f"{name}:cpu:0") if cpu else None
        self.gpu = _Queue(f"{name}:gpu:0") if gpu else None
        self.gpu_model = gpu
        self._available = available
        self.asked = 0

    def available(self):
        return self._available

    def default_queue(self):
        return self.cpu if self.cpu is not None else self.gpu

    def accelerator_queue(self):
        self.asked += 1
        return self.gpu

    def native_queue(self, obj):
        for q in (self.cpu, self.gpu):
            if q is not None and obj in (q, q.text):
                return q
        raise ValueError(obj)

    def describe(self, q):
        return q.text

    def device_name(self, q):
        return self.gpu_model if q is self.gpu else "Fake CPU"

    def queue_of(self, raw):
        return self.default_queue()

    def to_host(self, raw):
        return np.asarray(raw)

    def from_host(self, a, usm_type, q):
        return np.asarray(a)


@pytest.fixture
def no_env(monkeypatch):
    monkeypatch.delenv("USMARRAY_DEFAULT_DEVICE", raising=False)


def _choose(**backends):
    d, why = _device._choose_default(backends.get)
    return d, why


def test_a_sycl_gpu_comes_first(no_env):
    sycl = _FakeBackend("sycl", gpu="Fake Arc")
    cuda = _FakeBackend("cuda", gpu="Fake GPU", cpu=False)
    d, why = _choose(sycl=sycl, cuda=cuda)
    assert d._be is sycl and d._q is sycl.gpu
    assert why == "first accelerator: sycl:gpu:0 (Fake Arc)"
    assert cuda.asked == 0  # the first accelerator ends the search


def test_a_cuda_gpu_comes_before_the_sycl_cpu(no_env):
    sycl = _FakeBackend("sycl")
    cuda = _FakeBackend("cuda", gpu="Fake GPU", cpu=False)
    d, why = _choose(sycl=sycl, cuda=cuda)
    assert d._be is cuda and d._q is cuda.gpu
    assert why == "first accelerator: cuda:gpu:0 (Fake GPU)"
    assert sycl.asked == 1


def test_a_cuda_gpu_without_sycl(no_env):
    cuda = _FakeBackend("cuda", gpu="Fake GPU", cpu=False)
    assert _choose(cuda=cuda)[0]._be is cuda
    assert _choose(sycl=_FakeBackend("sycl", available=False), cuda=cuda)[0]._be is cuda


def test_without_an_accelerator_the_sycl_default_device(no_env):
    sycl = _FakeBackend("sycl")
    d, why = _choose(sycl=sycl)
    assert d._be is sycl and d._q is sycl.cpu
    assert why == "no accelerator: the SYCL default device, sycl:cpu:0 (Fake CPU)"


def test_without_sycl_or_cuda_the_numpy_device(no_env):
    for backends in ({}, {"sycl": _FakeBackend("sycl", available=False)}):
        d, why = _device._choose_default(backends.get)
        assert d == xp.Device.create_device("numpy")
        assert why == "no SYCL or CUDA device: the NumPy host device"


def test_the_environment_variable_wins_over_an_accelerator(monkeypatch):
    sycl = _FakeBackend("sycl", gpu="Fake Arc")
    monkeypatch.setenv("USMARRAY_DEFAULT_DEVICE", "numpy")
    d, why = _choose(sycl=sycl)
    assert d.backend == "numpy" and why == "USMARRAY_DEFAULT_DEVICE=numpy"
    assert sycl.asked == 0
    monkeypatch.setenv("USMARRAY_DEFAULT_DEVICE", "")  # empty: unset
    assert _choose(sycl=sycl)[0]._q is sycl.gpu


@pytest.fixture
def fresh_default(monkeypatch, no_env):
    """The process-wide default forgotten (restored afterwards), as at first use."""
    monkeypatch.setattr(_device, "_global_default", None)
    monkeypatch.setattr(_device, "_global_reason", "")


def test_registered_backends_decide_the_default_once(monkeypatch, fresh_default):
    sycl = _FakeBackend("sycl")
    cuda = _FakeBackend("cuda", gpu="Fake GPU", cpu=False)
    monkeypatch.setitem(_backend._REGISTRY, "sycl", sycl)
    monkeypatch.setitem(_backend._REGISTRY, "cuda", cuda)
    d = xp.__array_namespace_info__().default_device()
    assert d.backend == "cuda" and d._q is cuda.gpu
    assert _device.default_device_reason() == "first accelerator: cuda:gpu:0 (Fake GPU)"
    assert _device.default_device() is d and cuda.asked == 1  # chosen once, then kept


def test_the_reason_follows_the_rule_that_chose(fresh_default):
    base = _device.default_device_reason()
    assert base.startswith(("first accelerator: ", "no accelerator: ", "no SYCL or CUDA"))
    with xp.using_device("numpy"):
        assert _device.default_device_reason() == "the innermost usmarray.using_device(...) block"
    assert _device.default_device_reason() == base
    xp.set_default_device("numpy")
    assert _device.default_device_reason() == "usmarray.set_default_device(...)"
    xp.set_default_device(None)  # back to the rules
    assert _device.default_device_reason() == base


def test_protocol_defaults_name_no_accelerator():
    assert _backend.numpy.accelerator_queue() is None
    q = _backend.numpy.default_queue()
    assert _backend.numpy.device_name(q) == _backend.numpy.describe(q)

    class Minimal:  # registered without BackendBase: complete() fills the defaults in
        name = "minimal"
        q = _Queue("minimal")
        default_queue = native_queue = queue_of = lambda self, *a: self.q
        to_host = from_host = lambda self, *a: None

    be = _backend.complete(Minimal())
    assert be.accelerator_queue() is None and be.device_name(be.q) == "minimal"


@pytest.mark.skipif(_backend.sycl is None, reason="needs a SYCL runtime")
def test_sycl_accelerator_is_a_gpu_or_none():
    sycl = _backend.sycl
    q = sycl.accelerator_queue()
    if q is None:
        assert not any(d.sycl_device.is_gpu for d in sycl.devices())
    else:
        assert q.sycl_device.is_gpu
        if sycl.default_queue().sycl_device.is_gpu:
            assert q == sycl.default_queue()
    dq = sycl.default_queue()
    assert sycl.device_name(dq) == dq.sycl_device.name
