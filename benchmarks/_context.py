"""The libraries compared, set up once per process.

Variants (columns of every table):

``usm``
    usmarray on its default device (the SYCL queue of ``usmarray.asarray``).
``raw``
    The raw provider (``dpnp.tensor``) on the *same* queue and the *same* memory:
    its inputs are the ``_arr`` of usmarray's inputs.
``numpy``
    NumPy on host arrays holding the same values.
``strict``
    array-api-strict (a checking wrapper over NumPy), where installed.
``usm_np``
    usmarray's NumPy backend (``device="numpy"``) where usmarray provides one.
``raw_aa``
    An A/A control: the raw provider's call timed a second time as if it were a
    separate library.  ``raw_aa / raw`` shows how far two identical variants drift
    apart on this machine: a usm/raw ratio within that noise is no evidence.
"""

from __future__ import annotations

import importlib
import platform
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

LABELS = {
    "usm": "usmarray",
    "raw": "dpnp.tensor",
    "numpy": "numpy",
    "strict": "api-strict",
    "usm_np": "usm[numpy]",
    "raw_aa": "dpnp.tensor again (A/A)",
    "memcpy": "host memcpy",
    "fresh": "host alloc+copy",
}


_CREATION = frozenset({
    "asarray", "arange", "empty", "eye", "full", "linspace", "ones", "zeros",
})


class _OnDevice:
    """usmarray with its creation functions bound to one device (``device=``)."""

    def __init__(self, xp: Any, device: Any) -> None:
        self._xp = xp
        self._device = device

    def __getattr__(self, name: str) -> Any:
        fn = getattr(self._xp, name)
        if name in _CREATION:
            device = self._device

            def create(*args: Any, **kwargs: Any) -> Any:
                return fn(*args, device=device, **kwargs)

            return create
        return fn


@dataclass
class Context:
    xp: Any
    pt: Any
    strict: Any | None
    q: Any
    usm_np_device: Any | None
    progress: Callable[[str], None] = field(default=lambda label: None)
    seed: int = 1234

    @property
    def keys(self) -> list[str]:
        """Variant keys present in this process, in column order."""
        ks = ["usm", "raw", "numpy"]
        if self.strict is not None:
            ks.append("strict")
        if self.usm_np_device is not None:
            ks.append("usm_np")
        return ks

    def rng(self) -> np.random.Generator:
        return np.random.default_rng(self.seed)

    def namespaces(self) -> dict[str, Any]:
        out = {"usm": self.xp, "raw": self.pt, "numpy": np}
        if self.strict is not None:
            out["strict"] = self.strict
        if self.usm_np_device is not None:
            out["usm_np"] = _OnDevice(self.xp, self.usm_np_device)
        return out

    def place(self, key: str, h: np.ndarray, usm: Any = None) -> Any:
        """Host array ``h`` as an array of variant ``key``.

        ``raw`` reuses ``usm`` (usmarray's array of the same values) when given, so
        both SYCL variants read the same memory.
        """
        if key == "usm":
            return self.xp.asarray(h)
        if key == "raw":
            return usm._arr if usm is not None else self.pt.asarray(h, sycl_queue=self.q)
        if key == "numpy":
            return h  # inputs are never written to: the host array itself
        if key == "strict":
            return self.strict.asarray(h)
        if key == "usm_np":
            return self.xp.asarray(h, device=self.usm_np_device)
        raise KeyError(key)

    def place_all(self, keys: list[str], **hosts: np.ndarray) -> dict[str, dict[str, Any]]:
        """``{variant: {name: array}}`` for every host array given by name."""
        out: dict[str, dict[str, Any]] = {}
        usm = {name: self.xp.asarray(h) for name, h in hosts.items()}
        for k in keys:
            if k == "usm":
                out[k] = usm
            elif k == "raw":
                out[k] = {name: a._arr for name, a in usm.items()}
            else:
                out[k] = {name: self.place(k, h) for name, h in hosts.items()}
        self.q.wait()
        return out

    def sync_for(self, key: str) -> Callable[[], Any] | None:
        """What makes a call of variant ``key`` complete (the queue's wait), if anything."""
        return self.q.wait if key in ("usm", "raw") else None

    def environment(self) -> dict[str, Any]:
        dev = self.q.sycl_device
        env = {
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "machine": platform.machine(),
            "numpy": np.__version__,
            "usmarray": getattr(self.xp, "__version__", "?"),
            "provider": getattr(self.xp, "provider", self.pt.__name__),
            "device": f"{dev.name} ({dev.backend}, {dev.device_type})",
            "compute_units": dev.max_compute_units,
            "usmarray_numpy_backend": self.usm_np_device is not None,
        }
        for mod in ("dpnp", "dpctl", "array_api_strict"):
            try:
                env[mod] = importlib.import_module(mod).__version__
            except Exception:
                env[mod] = None
        try:
            import os

            env["cpu_count"] = os.cpu_count()
        except Exception:  # pragma: no cover
            pass
        return env


def detect_numpy_backend(xp: Any) -> Any | None:
    """The device object that selects usmarray's NumPy backend, or None when absent."""
    for dev in ("numpy",):
        try:
            a = xp.asarray(np.arange(3.0), device=dev)
            b = xp.add(a, a)
            if float(xp.sum(b)) != 6.0:
                continue
            return dev
        except Exception:
            continue
    return None


def make_context(seed: int = 1234, with_strict: bool = True) -> Context:
    import usmarray as xp  # configures the OpenCL device and the kernel cache

    pt = importlib.import_module(xp.provider) if hasattr(xp, "provider") else None
    if pt is None:  # pragma: no cover
        pt = xp._backend.sycl.provider
    strict = None
    if with_strict:
        try:
            import array_api_strict as strict
        except ImportError:
            strict = None
    q = xp.asarray(np.zeros(1)).sycl_queue
    return Context(
        xp=xp, pt=pt, strict=strict, q=q, usm_np_device=detect_numpy_backend(xp), seed=seed
    )
