"""Which backend module compiles and launches kernels, by backend name."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

#: backend name -> the module (in the backend layer) that compiles for it
COMPILERS = {
    "sycl": "usmarray._backend._sycl.program",
    "cuda": "usmarray._backend._cuda.program",
}
_loaded: dict[str, ModuleType] = {}


def program_module(be: Any) -> ModuleType:
    """The compile-and-launch module for backend ``be``; NotImplementedError for a backend
    without a compiler (the NumPy backend)."""
    name = be.name
    mod = _loaded.get(name)
    if mod is not None:
        return mod
    path = COMPILERS.get(name)
    if path is None:
        raise NotImplementedError(
            f"usmarray.kernels: the {name!r} backend has no kernel compiler; kernels compile "
            f"for arrays on the backends {sorted(COMPILERS)} (move the data with "
            "x.to_device(...))"
        )
    mod = _loaded[name] = importlib.import_module(path)
    return mod
