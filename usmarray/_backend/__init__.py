"""The backend layer: memory allocation and kernels, behind one small protocol.

Backends: "sycl" (the dpctl.tensor kernels, when a SYCL runtime is importable and
has a device), "numpy" (always), and any registered through
:func:`register_backend` or the ``usmarray.backends`` entry-point group.
"""

from __future__ import annotations

import warnings
from typing import Any

from .._env import EnvironmentSettingError
from ._numpy import NumpyBackend
from ._protocol import (
    KERNEL_NAMES,
    Backend,
    BackendBase,
    Capabilities,
    HostFallbackWarning,
    LinAlgError,
    complete,
)

#: why a built-in backend is absent (or present without a device): name -> reason
ABSENT: dict[str, str] = {}


def _not_installed(exc: ImportError, packages: tuple[str, ...]) -> bool:
    """Whether ``exc`` says only that one of ``packages`` is not installed (an expected
    absence), rather than that an installed runtime failed to load."""
    return (isinstance(exc, ModuleNotFoundError)
            and (exc.name or "").split(".")[0] in packages)


def _load_sycl() -> Any:
    try:
        from ._sycl import SyclBackend

        return SyclBackend()
    except ImportError as exc:
        if _not_installed(exc, ("dpctl", "dpnp")):
            ABSENT["sycl"] = f"dpctl/dpnp is not installed ({exc}; pip install \"usmarray[sycl]\")"
        else:  # installed but broken: say so once, here, not at the first array
            _sycl_failed(exc)
        return None
    except EnvironmentSettingError:  # the user's setting, not the stack: say so
        raise
    except Exception as exc:  # a broken SYCL stack must not break import usmarray
        _sycl_failed(exc)
        return None


def _sycl_failed(exc: BaseException) -> None:
    ABSENT["sycl"] = f"the SYCL runtime failed to load: {exc!r}"
    warnings.warn(f"usmarray: no SYCL backend, {ABSENT['sycl']}", RuntimeWarning, stacklevel=3)


def _load_cuda() -> Any:
    try:
        from ._cuda import CudaBackend

        return CudaBackend()
    except ImportError as exc:  # no CuPy, no driver, no GPU: no CUDA backend
        ABSENT["cuda"] = ("CuPy is not installed (pip install \"usmarray[cuda]\")"
                          if _not_installed(exc, ("cupy",)) else str(exc))
        return None
    except EnvironmentSettingError:  # the user's setting, not the stack: say so
        raise
    except Exception as exc:  # a broken CUDA stack must not break import usmarray
        ABSENT["cuda"] = f"the CUDA backend could not start: {exc!r}"
        warnings.warn(f"usmarray: {ABSENT['cuda']}", stacklevel=2)
        return None


#: the SYCL backend, or None when dpctl / a kernel provider cannot be imported
sycl: Any = _load_sycl()
#: the CUDA backend (CuPy), or None without CuPy or a usable GPU
cuda: Any = _load_cuda()
#: the NumPy host backend (always present)
numpy = NumpyBackend()


def absent() -> dict[str, str]:
    """Each built-in backend that is missing or has no device here, with the reason."""
    out = dict(ABSENT)
    if sycl is not None and not sycl.available():
        out["sycl"] = sycl.no_device_reason()
    return out


def catalogue(said: str | None = None) -> str:
    """Every backend's devices by filter string, then why each missing backend (but
    ``said``, explained already) is missing: the list an error about an unknown device
    string ends with."""
    parts = []
    for name, be in backends().items():
        try:
            names = [be.describe(q) for q in be.devices()]
        except Exception as exc:  # a backend that cannot list its devices says why
            names = [f"? ({exc})"]
        parts.append(f"{name}: {names}")
    text = "available devices: " + "; ".join(parts)
    missing = {n: why for n, why in absent().items() if n != said}
    if missing:
        text += "; " + "; ".join(f"no {n} backend: {why}" for n, why in missing.items())
    return text


def unknown_device(text: str, why: str) -> str:
    """The message for a device string no backend knows (``why``: the SYCL runtime's
    answer to it as a filter string): what went wrong, then :func:`catalogue`."""
    prefix = text.split(":", 1)[0]
    missing = absent()
    if prefix in missing:
        head = (f"device {text!r}: the {prefix} backend is not available here: "
                f"{missing[prefix]}; nor does a SYCL device match {text!r} ({why})")
    else:
        head = f"device {text!r} names no backend and no available SYCL device ({why})"
    return f"{head}; {catalogue(prefix)}"


if sycl is not None:
    sycl.unknown_device = unknown_device

_REGISTRY: dict[str, Any] = {"sycl": sycl} if sycl is not None else {}
if cuda is not None:
    _REGISTRY["cuda"] = cuda
_REGISTRY["numpy"] = numpy
_entry_points_loaded = False
#: counts registrations: a cache of name look-ups is valid while this is unchanged
generation = 0


def register_backend(name: str, backend: Any) -> None:
    """Make ``backend`` available under ``name``: ``Device.create_device(name)`` and
    ``device=name`` then select it.

    Parameters
    ----------
    name : str
        A non-empty name without ``":"`` (filter strings are ``name:...``), not one of
        the built-in ``"sycl"``, ``"cuda"`` and ``"numpy"``.
    backend : object
        An object implementing the backend protocol (usmarray/_backend/_protocol.py,
        docs/backends.md).

    Returns
    -------
    None

    Raises
    ------
    ValueError
        An empty name, one with ``":"``, or a built-in backend's name.
    TypeError
        A ``backend`` that lacks part of the protocol.

    Notes
    -----
    Backends can also register through the ``usmarray.backends`` entry-point group.  Not
    a function of the standard.
    """
    if not isinstance(name, str) or not name or ":" in name:
        raise ValueError(f"register_backend: name must be a non-empty string without ':', got {name!r}")
    if name in ("sycl", "cuda", "numpy") and _REGISTRY.get(name) is not backend:
        raise ValueError(f"register_backend: {name!r} is a built-in backend")
    try:
        complete(backend)
    except TypeError as exc:
        raise TypeError(f"register_backend: {exc}") from None
    global generation
    _REGISTRY[name] = backend
    generation += 1


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    from importlib.metadata import entry_points

    for ep in entry_points(group="usmarray.backends"):
        if ep.name in _REGISTRY:
            continue
        try:
            obj = ep.load()
            register_backend(ep.name, obj() if isinstance(obj, type) else obj)
        except Exception as exc:  # a broken plug-in must not break import usmarray
            warnings.warn(f"usmarray backend entry point {ep.name!r} failed: {exc}", stacklevel=2)


def get_backend(name: str) -> Any | None:
    be = _REGISTRY.get(name)
    if be is None:
        _load_entry_points()
        be = _REGISTRY.get(name)
    return be


def backends() -> dict[str, Any]:
    _load_entry_points()
    return dict(_REGISTRY)


def for_native(obj: Any) -> Any | None:
    """The backend whose native device or queue object ``obj`` is, or None."""
    for be in backends().values():
        if be.owns_native(obj):
            return be
    return None


def for_dlpack_device(kind: int) -> Any | None:
    """The backend that imports DLPack tensors of device type ``kind``, or None."""
    for be in backends().values():
        if kind in be.dlpack_device_types:
            return be
    return None


def placement_error_bases() -> tuple[type[BaseException], ...]:
    """The backends' own placement-error classes (usmarray's subclasses them all)."""
    out: list[type[BaseException]] = []
    for be in _REGISTRY.values():
        out.extend(b for b in be.placement_error_bases() if b not in out)
    return tuple(out)


__all__ = [
    "ABSENT", "KERNEL_NAMES", "Backend", "BackendBase", "Capabilities", "HostFallbackWarning",
    "LinAlgError", "absent", "catalogue", "unknown_device", "NumpyBackend", "backends", "cuda", "for_dlpack_device", "for_native",
    "get_backend", "numpy", "placement_error_bases", "register_backend", "sycl",
]
