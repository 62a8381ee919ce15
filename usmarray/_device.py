"""Devices: ``usmarray.Device``, the default device, and the placement error."""

from __future__ import annotations

import contextlib
import contextvars
import os
import warnings
from collections.abc import Iterator
from typing import Any

from . import _backend
from ._backend import Capabilities
from ._env import env_choice, setting_error

_EPE_BASES: tuple[type, ...] = (ValueError, *_backend.placement_error_bases())


class ExecutionPlacementError(*_EPE_BASES):  # type: ignore[misc]
    """Arrays of one call live on different devices, or on queues that are not equivalent.

    Compute follows data: usmarray never copies an operand to another device to make a
    call work.  Move one explicitly with ``x.to_device(d)`` or
    ``usmarray.asarray(x, device=d)``.  The message names both devices.

    Subclasses ValueError (as the standard's device rules expect) and the backends' own
    placement errors (with a SYCL runtime, the kernel provider's
    ``ExecutionPlacementError``), so any of those ``except`` clauses catches it.
    """


#: filter string -> (backend registry generation, Device): looking a string up again
#: costs the SYCL backend a new SyclDevice (a per-call cost of device="cpu")
_BY_STRING: dict[str, tuple[int, Any]] = {}


def made_from(obj: Any) -> Any:
    """The Device the filter string ``obj`` made before (what ``create_device(obj)``
    gives again), without making one: None for a string that made none yet, one of an
    older set of backends, or any other object."""
    if type(obj) is not str:
        return None
    hit = _BY_STRING.get(obj)
    return hit[1] if hit is not None and hit[0] == _backend.generation else None


class Device:
    """A device in the array API sense: a backend plus one of its queues.

    There is no public constructor: a Device comes from ``x.device``,
    ``Device.create_device(obj)`` (a filter string such as ``"cpu"``, ``"gpu"``,
    ``"cuda:0"`` or ``"numpy"``, a backend's device or queue object, or None for the
    default device) or ``__array_namespace_info__().devices()``.  Every creation function
    takes one as ``device=``.

    Two Devices are equal when they share a backend and their queues are equal (for
    SYCL: equivalent queues, with the same context, device and properties; for CUDA: the
    same stream).  ``backend`` names the backend and ``wait()`` blocks until the queue's
    work has finished; backend-specific attributes (``sycl_queue``, ``sycl_device``, ...)
    come from the backend and raise AttributeError on devices of other backends.

    Raises
    ------
    TypeError
        On a direct call ``Device(...)``.
    """

    __slots__ = ("_be", "_q")
    _be: Any
    _q: Any

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError(
            "usmarray.Device has no public constructor; use "
            "usmarray.Device.create_device(obj) or x.device"
        )

    @classmethod
    def _make(cls, be: Any, q: Any) -> Device:
        self = object.__new__(cls)
        self._be = be
        self._q = q
        return self

    @classmethod
    def create_device(cls, obj: Any = None) -> Device:
        """A Device from a filter string ("cpu", "gpu", "opencl:cpu:0", "cuda:0",
        "numpy", or a registered backend's name), a backend's native device or queue
        object (``dpctl.SyclDevice``, ``dpctl.SyclQueue``, ``cupy.cuda.Device``,
        ``cupy.cuda.Stream``), a Device, or None (the current default device)."""
        if type(obj) is Device:
            return obj
        if obj is None:
            return default_device()
        if isinstance(obj, str):
            hit = _BY_STRING.get(obj)
            if hit is not None and hit[0] == _backend.generation:
                return hit[1]
            be = _backend.get_backend(obj.split(":", 1)[0])
            if be is None:  # SYCL filter strings name no backend: "cpu", "opencl:cpu:0"
                be = _backend.get_backend("sycl")
            if be is None:  # no SYCL runtime to read it as a filter string
                raise ValueError(_backend.unknown_device(
                    obj, "no SYCL runtime here to read it as a SYCL filter string"))
            gen = _backend.generation
            d = cls._make(be, be.native_queue(obj))
            if len(_BY_STRING) < 256:  # a filter string names the same queue every time
                _BY_STRING[obj] = (gen, d)
            return d
        be = _backend.for_native(obj)
        if be is None:
            raise TypeError(
                f"cannot make a device from {type(obj).__name__}; pass a filter string "
                f"(backends: {sorted(_backend.backends())}), a backend's device or queue "
                "object, or a usmarray.Device"
            )
        return cls._make(be, be.native_queue(obj))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return self._be.device_attribute(self._q, name)

    @property
    def backend(self) -> str:
        return self._be.name

    def wait(self) -> None:
        """Block until all work submitted to this device's queue has finished."""
        self._be.wait(self._q)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Device):
            return NotImplemented
        return self._be is other._be and (self._q is other._q or self._q == other._q)

    def __hash__(self) -> int:
        return hash(self._q)

    def __repr__(self) -> str:
        return f"Device({self._be.describe(self._q)})"

    # ---- pickling: by filter string ------------------------------------------------------
    def __reduce__(self) -> tuple[Any, tuple[str, str]]:
        """Pickled as its backend's name and filter string (``describe``); unpickled with
        ``create_device``, or as the default device, with a warning, where that device
        does not exist (another machine, a sub-device, a missing runtime).  With
        ``USMARRAY_UNPICKLE_DEVICE=default`` (set by ``usmarray.cubed.configure``) everything
        unpickles onto the unpickling process' default device, without a warning."""
        return _restore_device, (self._be.name, self._be.describe(self._q))

    def __copy__(self) -> Device:
        return self

    def __deepcopy__(self, memo: Any) -> Device:
        return self


def _restore_device(backend: str, text: str) -> Device:
    if type(backend) is not str or type(text) is not str:
        raise TypeError(f"unpickling a usmarray.Device: the backend and device must be "
                        f"strs, got {type(backend).__name__} and {type(text).__name__}")
    if env_choice("USMARRAY_UNPICKLE_DEVICE", ("default",), None) == "default":
        return default_device()  # distributed executors: data moves, placement does not
    be = _backend.get_backend(backend)
    try:
        if be is None:
            raise ValueError(f"the {backend!r} backend is not available here")
        return Device._make(be, be.native_queue(text))
    except (ValueError, TypeError) as exc:
        d = default_device()
        warnings.warn(
            f"unpickling an array or Device of {backend} device {text!r}: {exc}; "
            f"using the default device {d!r} instead",
            RuntimeWarning, stacklevel=2,
        )
        return d


# ---- the default device ---------------------------------------------------------------
_override: contextvars.ContextVar[Device | None] = contextvars.ContextVar(
    "usmarray_default_device", default=None
)
#: the process-wide default (set_default_device, else chosen at first use) and why
_global_default: Device | None = None
_global_reason = ""
#: backends asked, in order, for an accelerator and then for their default device,
#: before the NumPy device
_PREFERRED = ("sycl", "cuda")
_TITLE = {"sycl": "SYCL", "cuda": "CUDA"}


def _label(be: Any, q: Any) -> str:
    """"cuda:0 (<the GPU's model name>)": the device string and, where it says more,
    the device's model name."""
    where = be.describe(q)
    try:
        name = be.device_name(q)
    except Exception:  # noqa: BLE001 - a name for a message is not worth failing over
        return where
    return f"{where} ({name})" if name and name != where else where


def _choose_default(get: Any = None) -> tuple[Device, str]:
    """The default device where none was set, and why: ``USMARRAY_DEFAULT_DEVICE``,
    else the first accelerator (a SYCL GPU, then a CUDA GPU), else the SYCL default
    device (a CPU), else the NumPy device.  ``get(name)`` returns a backend or None
    (``_backend.get_backend``; tests pass their own)."""
    env = os.environ.get("USMARRAY_DEFAULT_DEVICE", "").strip()
    if env:
        try:
            return Device.create_device(env), f"USMARRAY_DEFAULT_DEVICE={env}"
        except (ValueError, TypeError) as exc:
            raise setting_error("USMARRAY_DEFAULT_DEVICE", env,
                                f"a device found here, or unset: {exc}") from None
    get = get or _backend.get_backend
    found = [(n, get(n)) for n in _PREFERRED]
    usable = [(n, be) for n, be in found if be is not None and be.available()]
    for _, be in usable:
        q = be.accelerator_queue()
        if q is not None:
            return Device._make(be, q), f"first accelerator: {_label(be, q)}"
    if usable:
        n, be = usable[0]
        q = be.default_queue()
        why = f"no accelerator: the {_TITLE[n]} default device, {_label(be, q)}"
        return Device._make(be, q), why
    return (Device._make(_backend.numpy, _backend.numpy.default_queue()),
            "no SYCL or CUDA device: the NumPy host device")


def default_device() -> Device:
    """The device arrays are created on when no placement keyword is given: the
    innermost ``using_device`` block, else ``set_default_device``, else
    ``USMARRAY_DEFAULT_DEVICE``, else the first accelerator (a SYCL GPU, then the first
    CUDA device), else the SYCL default device, else the NumPy device.  Chosen once, at
    first use; ``default_device_reason()`` says which rule chose it."""
    d = _override.get()
    if d is not None:
        return d
    global _global_default, _global_reason
    if _global_default is None:
        _global_default, _global_reason = _choose_default()
    return _global_default


def default_device_reason() -> str:
    """Why ``default_device()`` is the device it is, in a few words (``python -m
    usmarray`` prints it): "the innermost usmarray.using_device(...) block",
    "usmarray.set_default_device(...)", "USMARRAY_DEFAULT_DEVICE=numpy", "first
    accelerator: cuda:0 (<the GPU's model name>)", "no accelerator: the SYCL default
    device, opencl:cpu:0 (AMD EPYC)", "no SYCL or CUDA device: the NumPy host device"."""
    if _override.get() is not None:
        return "the innermost usmarray.using_device(...) block"
    default_device()
    return _global_reason


def set_default_device(device: Any) -> None:
    """Make ``device`` the process-wide default device, where arrays are created without a
    placement keyword.

    Parameters
    ----------
    device : Device, str, a backend's device or queue, or None
        Anything ``Device.create_device`` takes; None: back to the rules (chosen again at
        the next use): ``USMARRAY_DEFAULT_DEVICE``, else the first accelerator, else the
        SYCL default device, else the NumPy device.

    Returns
    -------
    None

    Raises
    ------
    ValueError
        A filter string no backend knows.
    TypeError
        An object no backend can make a device of.

    Notes
    -----
    ``using_device`` blocks take precedence in their thread or task.  Not a function of
    the standard, which leaves the default device to the library.
    """
    global _global_default, _global_reason
    if device is None:  # back to the rules: chosen again at the next use
        _global_default, _global_reason = None, ""
    else:
        _global_default = Device.create_device(device)
        _global_reason = "usmarray.set_default_device(...)"


@contextlib.contextmanager
def using_device(device: Any) -> Iterator[Device]:
    """A context manager in whose block arrays are created on ``device`` by default.

    Parameters
    ----------
    device : Device, str or a backend's device or queue
        Anything ``Device.create_device`` takes.

    Returns
    -------
    contextlib.AbstractContextManager
        Entering it yields the Device; the setting holds per thread and per asyncio
        task, and blocks nest.

    Raises
    ------
    ValueError
        A filter string no backend knows.
    TypeError
        An object no backend can make a device of.

    Notes
    -----
    Only creation without ``device=`` follows the block; operations still run on their
    operands' device (compute follows data).  Not a function of the standard.
    """
    token = _override.set(Device.create_device(device))
    try:
        yield _override.get()  # type: ignore[misc]
    finally:
        _override.reset(token)


def placement_error(fname: str, d1: Any, d2: Any) -> ExecutionPlacementError:
    where = f"{d1!r} and {d2!r}"
    if repr(d1) == repr(d2):
        where += ": the same device through queues that are not equivalent"
    return ExecutionPlacementError(
        f"{fname}: arrays are on different devices ({where}); compute "
        "follows data, so move one first with x.to_device(device) or "
        "usmarray.asarray(x, device=device)"
    )


def resolve(device: Any, sycl_queue: Any) -> tuple[Any, Any]:
    """(backend, queue) named by the complementary ``device=`` and ``sycl_queue=`` keywords
    (``sycl_queue=`` is the SYCL backend's spelling of a queue, as in dpctl.tensor)."""
    if sycl_queue is not None:
        sycl = _backend.get_backend("sycl")
        if sycl is None:
            raise ValueError("sycl_queue= needs a SYCL runtime, and none is available")
        q = sycl_queue._q if type(sycl_queue) is Device else sycl.native_queue(sycl_queue)
        if device is not None and Device.create_device(device)._q != q:
            raise ValueError(
                f"device={device!r} and sycl_queue={sycl_queue!r} name different queues; "
                "pass one of them, or two that agree"
            )
        return sycl, q
    d = Device.create_device(device)
    return d._be, d._q


_QUEUE_OWNERS: dict[type, Any] = {}


def backend_of_queue(q: Any) -> Any:
    """The backend a native queue belongs to (by its type; cached)."""
    be = _QUEUE_OWNERS.get(type(q))
    if be is None:
        be = _backend.for_native(q)
        if be is None:
            raise TypeError(f"{type(q).__name__} is no backend's queue")
        _QUEUE_OWNERS[type(q)] = be
    return be


_CAPABILITIES: dict[Any, Capabilities] = {}


def capabilities(q: Any) -> Capabilities:
    """What the device of native queue ``q`` can compute in (``fp64``, ``fp16``); asked
    of its backend once per queue (every creation call without ``dtype=`` asks)."""
    try:
        return _CAPABILITIES[q]
    except KeyError:
        if len(_CAPABILITIES) >= 64:  # queues of short-lived streams: hold few of them
            _CAPABILITIES.clear()
        caps = _CAPABILITIES[q] = backend_of_queue(q).capabilities(q)
        return caps
    except TypeError:  # a queue that cannot be hashed: ask every time
        return backend_of_queue(q).capabilities(q)
