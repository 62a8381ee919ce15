"""The standard's versions usmarray implements, and a namespace that behaves as each.

``usmarray`` itself follows ``USMARRAY_API_VERSION`` (default 2025.12, the latest);
``x.__array_namespace__(api_version=v)`` returns the namespace of version ``v``: the
functions that version has (those added later are absent) with that version's
return types (before 2025.12, ``meshgrid`` and ``broadcast_arrays`` return lists and
``__array_namespace_info__().devices()`` a list).  Unknown versions raise ValueError.
"""

from __future__ import annotations

import functools
import os
import types
from collections.abc import Callable
from typing import Any

from ._info import Info

VERSIONS = ("2023.12", "2024.12", "2025.12")
LATEST = VERSIONS[-1]

#: functions each version added over the one before (from the standard's API stubs)
ADDED: dict[str, dict[str, tuple[str, ...]]] = {
    "2024.12": {
        "": ("nextafter", "reciprocal", "take_along_axis", "count_nonzero", "cumulative_prod",
             "diff"),
    },
    "2025.12": {"": ("broadcast_shapes", "isin"), "linalg": ("eig", "eigvals")},
}
#: functions that return a tuple of arrays from 2025.12 on, a list before
_SEQUENCE_RESULTS = ("meshgrid", "broadcast_arrays")


def check(version: Any, where: str = "api_version") -> str:
    if version not in VERSIONS:
        raise ValueError(
            f"{where}={version!r} is not supported; usmarray implements the array API "
            f"standard versions {list(VERSIONS)}"
        )
    return version


def configured() -> str:
    """The version ``usmarray`` itself follows: ``USMARRAY_API_VERSION`` or the latest."""
    return check(os.environ.get("USMARRAY_API_VERSION", LATEST), "USMARRAY_API_VERSION")


def _absent(version: str, sub: str) -> set[str]:
    return {
        name
        for v, added in ADDED.items() if v > version
        for name in added.get(sub, ())
    }


def _as_list(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> list:
        return list(fn(*args, **kwargs))

    return call


def info_function(version: str) -> Callable[[], Info]:
    """``__array_namespace_info__`` of the namespace of ``version``."""

    def __array_namespace_info__() -> Info:
        """The namespace's inspection object: its capabilities, devices and default dtypes.

        Returns
        -------
        Info
            An object with ``capabilities()``, ``default_device()``, ``default_dtypes()``,
            ``devices()`` and ``dtypes()``; ``devices()`` lists every device of every
            backend found (a tuple from version 2025.12 of the standard, a list before).

        Notes
        -----
        The default dtypes depend on the device: float32 and complex64 on a device without
        double precision.

        See Also
        --------
        [array_api.info.__array_namespace_info__](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.info.__array_namespace_info__.html): the standard's specification.
        """
        return Info(version)

    return __array_namespace_info__


def adapt(ns: dict[str, Any], version: str) -> None:
    """Make the module namespace ``ns`` (of ``usmarray`` or a copy) behave as ``version``."""
    for name in _absent(version, ""):
        ns.pop(name, None)
    if version < "2025.12":
        for name in _SEQUENCE_RESULTS:
            ns[name] = _as_list(ns[name])
    ns["__array_api_version__"] = version
    ns["__array_namespace_info__"] = info_function(version)
    sub = ns.get("linalg")
    gone = _absent(version, "linalg")
    if sub is not None and gone:
        lin = types.ModuleType(sub.__name__, sub.__doc__)
        lin.__dict__.update({k: v for k, v in vars(sub).items() if k not in gone})
        ns["linalg"] = lin


_CACHE: dict[str, types.ModuleType] = {}
_LATEST_NS: dict[str, Any] = {}


def remember(ns: dict[str, Any]) -> None:
    """Keep the package's namespace as assembled (the latest version), before
    ``USMARRAY_API_VERSION`` adapts it: the other versions are derived from it."""
    _LATEST_NS.update({k: v for k, v in ns.items() if k != "__builtins__"})


def namespace(base: types.ModuleType, version: str | None) -> types.ModuleType:
    """The namespace of ``version`` derived from the package module ``base`` (``base``
    itself for None or the version it follows)."""
    if version is None or version == base.__array_api_version__:
        return base
    check(version)
    mod = _CACHE.get(version)
    if mod is None:
        mod = types.ModuleType(base.__name__, base.__doc__)
        mod.__dict__.update(_LATEST_NS or {k: v for k, v in vars(base).items()
                                           if k != "__builtins__"})
        adapt(mod.__dict__, version)
        _CACHE[version] = mod
    return mod
