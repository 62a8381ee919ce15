"""The backend layer: the NumPy host backend, registration of a third-party backend,
default-device selection, migration across backends, and life without SYCL."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import usmarray as xp
from usmarray import _backend


def test_numpy_device_computes_with_the_same_strictness():
    x = xp.asarray([1.0, 2.0, 3.0], device="numpy")
    assert x.device == xp.Device.create_device("numpy") and x.usm_type == "host"
    np.testing.assert_allclose(xp.asnumpy(xp.sin(x) * 2), np.sin([1.0, 2.0, 3.0]) * 2)
    with pytest.raises(TypeError):
        x + xp.asarray([1, 2, 3], device="numpy")  # float64 with int64
    with pytest.raises(TypeError):
        xp.asarray([1, 2], device="numpy") + 1.5
    assert repr(x) == "usm_ndarray([1., 2., 3.], dtype=float64, device='numpy')"


def test_sycl_only_attributes_raise_attribute_error():
    x = xp.zeros(2, device="numpy")
    for attr in ("sycl_queue", "sycl_device", "sycl_context", "usm_data",
                 "__sycl_usm_array_interface__"):
        with pytest.raises(AttributeError, match="SYCL"):
            getattr(x, attr)
    with pytest.raises(AttributeError):
        _ = x.device.sycl_queue


@pytest.mark.skipif(_backend.sycl is None, reason="needs a SYCL runtime for a second backend")
def test_migration_across_backends_keeps_dtype_and_values():
    for dtype in (xp.int8, xp.uint64, xp.float32, xp.complex128, xp.bool):
        s = xp.asarray([1, 0, 1], dtype=dtype)
        h = s.to_device("numpy")
        assert h.device.backend == "numpy" and h.dtype == dtype
        back = xp.asarray(h, device=s.device)
        assert back.device == s.device and back.dtype == dtype
        assert bool(xp.all(back == s))
    with pytest.raises(ValueError):
        xp.asarray(s, device="numpy", copy=False)


@pytest.mark.skipif(_backend.sycl is None, reason="needs a SYCL runtime for a second backend")
def test_mixing_backends_is_a_placement_error():
    with pytest.raises(xp.ExecutionPlacementError):
        xp.ones(3) + xp.ones(3, device="numpy")
    with pytest.raises(xp.ExecutionPlacementError):
        xp.concat([xp.ones(3), xp.ones(3, device="numpy")])


def test_using_device_and_set_default_device():
    with xp.using_device("numpy") as d:
        assert d.backend == "numpy"
        assert xp.arange(3).device.backend == "numpy"
        assert xp.__array_namespace_info__().default_device() == d
    before = xp.__array_namespace_info__().default_device()
    try:
        xp.set_default_device("numpy")
        assert xp.zeros(1).device.backend == "numpy"
    finally:
        xp.set_default_device(before)
    assert xp.zeros(1).device == before


class _ToyQueue:
    """The one queue of the toy backend."""

    def wait(self):
        return None


class ToyBackend:
    """A third-party backend in a few lines: NumPy kernels, counted."""

    name = "toy"
    usm_types = ("host",)
    array_type = np.ndarray
    multi_queue = False
    as_array = staticmethod(np.asarray)

    def __init__(self):
        self.calls = []
        self._q = _ToyQueue()
        kernels = vars(_backend.numpy.provider)
        for name, fn in kernels.items():
            if not name.startswith("__"):
                setattr(self, name, self._counted(name, fn))
        self.provider = self

    def _counted(self, name, fn):
        def kernel(*args, **kwargs):
            self.calls.append(name)
            return fn(*args, **kwargs)
        return kernel

    def available(self):
        return True

    def default_queue(self):
        return self._q

    def native_queue(self, obj):
        return self._q

    def devices(self):
        return [self._q]

    def describe(self, q):
        return "toy"

    def queue_of(self, raw):
        return self._q

    def usm_type_of(self, raw):
        return "host"

    def to_host(self, raw):
        return np.array(raw, copy=True)

    def from_host(self, a, usm_type, q):
        return np.array(a, copy=True)

    def to_queue(self, raw, q, stream=None):
        return raw

    repr = staticmethod(lambda raw: f"usm_ndarray({raw!r}, device='toy')")
    str = staticmethod(str)


def test_toy_backend_registered_through_the_public_api():
    toy = ToyBackend()
    xp.register_backend("toy", toy)
    x = xp.asarray([3.0, 1.0, 2.0], device="toy")
    assert x.device.backend == "toy" and repr(x.device) == "Device(toy)"
    y = xp.sort(xp.sqrt(x * x))
    assert y.device == x.device
    np.testing.assert_allclose(xp.asnumpy(y), [1.0, 2.0, 3.0])
    assert float(xp.sum(y)) == 6.0
    assert {"multiply", "sqrt", "sort", "sum"} <= set(toy.calls)
    with pytest.raises(xp.ExecutionPlacementError):
        x + xp.asarray([1.0, 1.0, 1.0], device="numpy")
    with pytest.raises(TypeError):
        xp.sqrt(xp.asarray([1, 2], device="toy"))  # the namespace's strictness, not the toy's
    with pytest.raises(ValueError):
        xp.register_backend("bad:name", toy)


def test_toy_backend_creates_through_its_own_kernels_on_every_call():
    toy = ToyBackend()
    xp.register_backend("toy", toy)
    dev = xp.asarray([0.0], device="toy").device
    for _ in range(2):  # the second call runs the cached creation plan
        for fname, want in (("zeros", np.zeros((2, 3))), ("empty", None)):
            toy.calls.clear()
            z = getattr(xp, fname)((2, 3), dtype=xp.float32, device=dev)
            assert toy.calls == [fname]
            assert z.device == dev and z.dtype == xp.float32 and z.shape == (2, 3)
            if want is not None:
                np.testing.assert_array_equal(xp.asnumpy(z), want)
    with pytest.raises(ValueError, match="negative dimensions"):
        xp.zeros(-1, device=dev)


def _run(code, env_extra=None):
    env = dict(os.environ, **(env_extra or {}))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=120)


def test_import_without_dpctl_computes_on_numpy():
    code = """
        import sys
        for name in ("dpctl", "dpnp", "cupy"):
            sys.modules[name] = None  # makes "import dpctl" raise ImportError
        import usmarray as xp
        assert xp.provider is None
        x = xp.linspace(0, 1, 5)
        assert x.device.backend == "numpy", x.device
        assert abs(float(xp.sum(x)) - 2.5) < 1e-12
        assert [d.backend for d in xp.__array_namespace_info__().devices()] == ["numpy"]
        try:
            x.sycl_queue
        except AttributeError:
            pass
        else:
            raise SystemExit("sycl_queue did not raise")
        print("ok")
    """
    out = _run(code, {"USMARRAY_DEFAULT_DEVICE": ""})  # the default order, not a GPU run's
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("ok")


def test_an_absent_backend_names_the_extra_that_installs_it():
    # the reason python -m usmarray prints speaks to an installed user (an extra of the
    # package), not to a source checkout (pip install -e)
    code = """
        import importlib.abc, sys
        class Block(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path, target=None):
                if name.split(".")[0] in ("dpctl", "dpnp", "cupy"):
                    raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        sys.meta_path.insert(0, Block())
        from usmarray import _backend
        print(_backend.ABSENT["sycl"])
        print(_backend.ABSENT["cuda"])
    """
    out = _run(code, {"USMARRAY_DEFAULT_DEVICE": ""})
    assert out.returncode == 0, out.stderr
    sycl, cuda = out.stdout.strip().splitlines()
    assert sycl == "dpctl/dpnp is not installed (No module named 'dpctl'; pip install \"usmarray[sycl]\")"
    assert cuda == "CuPy is not installed (pip install \"usmarray[cuda]\")"


def test_default_device_from_the_environment():
    out = _run("import usmarray as xp; print(xp.zeros(1).device.backend)",
               {"USMARRAY_DEFAULT_DEVICE": "numpy"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "numpy"


class _NoFp64Queue:
    """The one queue of a device without double precision."""


class _NoFp64Backend(_backend.BackendBase):
    """A backend whose only device lacks fp64 (the namespace asks, it does not guess)."""

    name = "nofp64"

    def __init__(self):
        self.q = _NoFp64Queue()

    def default_queue(self):
        return self.q

    def native_queue(self, obj):
        return self.q

    def queue_of(self, raw):
        return self.q

    def to_host(self, raw):
        return np.array(raw)

    def from_host(self, a, usm_type, q):
        return np.array(a)

    def describe(self, q):
        return "nofp64:0"

    def capabilities(self, q):
        return _backend.Capabilities(fp64=False)


def test_device_without_fp64_defaults_to_float32_and_refuses_float64():
    from usmarray import _dtypes as dt
    from usmarray._placement import check_device_dtype, default_complex, default_float

    be = _NoFp64Backend()
    xp.register_backend("nofp64", be)
    q = be.q
    assert default_float(q) is dt.float32 and default_complex(q) is dt.complex64
    with pytest.raises(ValueError, match="double precision.*nofp64:0"):
        check_device_dtype(dt.float64, q, "zeros")
    with pytest.raises(ValueError, match="double precision"):
        check_device_dtype(dt.complex128, q, "zeros")
    info = xp.__array_namespace_info__()
    assert info.default_dtypes(device="nofp64")["real floating"] == xp.float32
    assert "float64" not in info.dtypes(device="nofp64")
    check_device_dtype(dt.float32, q, "zeros")
