"""A minimal third-party backend, as docs/backends.md describes: a queue of its own
(no SYCL in sight), NumPy memory, and the kernels of the NumPy backend's kernel
namespace.  ``USMARRAY_TEST_BACKEND=toy python -m pytest <files>`` registers it and
makes it the default device, so the NumPy-backend test selection runs on it."""

from __future__ import annotations

from typing import Any

import numpy as np

from usmarray import _backend


class ToyQueue:
    """The toy backend's one queue: equal only to itself, with nothing to wait for."""

    def __repr__(self) -> str:
        return "ToyQueue()"


class ToyBackend(_backend.BackendBase):
    """NumPy arrays on a device called "toy"; every kernel call is counted."""

    name = "toy"
    kernel_family = "numpy"  # NumPy's kernels: NumPy's special-case fix-ups apply
    usm_types = ("host",)
    array_type = np.ndarray
    provider_name = "toy (NumPy kernels)"

    def __init__(self) -> None:
        self.queue = ToyQueue()
        self.calls: list[str] = []
        for kname, fn in vars(_backend.numpy.provider).items():
            if not kname.startswith("__"):
                setattr(self, kname, self._counted(kname, fn))

    def _counted(self, kname: str, fn: Any) -> Any:
        def kernel(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(kname)
            return fn(*args, **kwargs)

        kernel.__name__ = kname
        return kernel

    def default_queue(self) -> ToyQueue:
        return self.queue

    def native_queue(self, obj: Any) -> ToyQueue:
        if obj in ("toy", "toy:0") or obj is self.queue:
            return self.queue
        raise ValueError(f"the toy backend has one device, 'toy'; got {obj!r}")

    def describe(self, q: Any) -> str:
        return "toy"

    def queue_of(self, raw: Any) -> ToyQueue:
        return self.queue

    def as_array(self, obj: Any) -> np.ndarray:
        return np.asarray(obj)

    def asarray(self, obj: Any, *, dtype: Any = None, copy: Any = None, usm_type: Any = None,
                queue: Any = None) -> np.ndarray:
        return np.asarray(obj, dtype=dtype, copy=copy)

    def to_host(self, raw: np.ndarray) -> np.ndarray:
        return np.array(raw, copy=True)

    def from_host(self, a: np.ndarray, usm_type: str, q: Any) -> np.ndarray:
        return np.array(a, copy=True)

    def host_accessible(self, raw: Any) -> bool:
        return True

    def repr(self, raw: np.ndarray) -> str:
        return f"usm_ndarray({np.array2string(raw, separator=', ')}, dtype={raw.dtype}, device='toy')"

    def linalg(self, fname: str, *raws: Any, **kw: Any) -> Any:
        return _backend.numpy.linalg(fname, *raws, **kw)

    def fft(self, fname: str, raw: Any, **kw: Any) -> Any:
        return _backend.numpy.fft(fname, raw, **kw)

    def eig(self, raw: Any, vectors: bool) -> Any:
        return _backend.numpy.eig(raw, vectors)
