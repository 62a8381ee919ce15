"""The environment: usmarray's own variables, read and validated here, and the OpenCL
ICD loader pointed at a pip-installed CPU runtime before dpctl loads.

Every ``USMARRAY_*`` variable is read through :func:`env_flag`, :func:`env_int` or
:func:`env_choice` (or checked where it is read, with the same kind of message): a
value outside what the variable accepts raises :class:`EnvironmentSettingError` (a
ValueError) naming the variable, the value and what it accepts, when it is read.

A fresh ``pip install`` of ``intel-opencl-rt`` puts ``libintelocl.so`` under the
environment's ``lib/`` but registers it nowhere the ICD loader looks.  When the
user has not set ``OCL_ICD_FILENAMES`` (or ``OCL_ICD_VENDORS``) and no system ICD
is registered, name that library so the SYCL CPU device is visible.
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path


class EnvironmentSettingError(ValueError):
    """A usmarray environment variable holds a value it does not accept."""


def setting_error(name: str, value: str, accepts: str) -> EnvironmentSettingError:
    return EnvironmentSettingError(
        f"the environment variable {name}={value!r} is not valid: it accepts {accepts}"
    )


def env_flag(name: str, default: bool) -> bool:
    """The switch ``name``: "1" on, "0" off, unset or empty ``default``."""
    v = os.environ.get(name, "").strip()
    if not v:
        return default
    if v not in ("0", "1"):
        raise setting_error(name, v, "'1' (on) or '0' (off), or unset")
    return v == "1"


def env_int(name: str, minimum: int = 0) -> int | None:
    """The integer ``name`` (at least ``minimum``); None when unset or empty."""
    v = os.environ.get(name, "").strip()
    if not v:
        return None
    try:
        n = int(v, 10)
    except ValueError:
        n = None
    if n is None or n < minimum:
        raise setting_error(name, v, f"a decimal integer of at least {minimum}, or unset")
    return n


def env_choice(name: str, choices: tuple[str, ...], default: str | None) -> str | None:
    """One of ``choices`` in ``name``; ``default`` when unset or empty."""
    v = os.environ.get(name, "").strip()
    if not v:
        return default
    if v not in choices:
        raise setting_error(name, v, ", ".join(repr(c) for c in choices) + ", or unset")
    return v


_ICD_LIBRARY = "libintelocl.so"
_SYSTEM_ICD_DIR = Path("/etc/OpenCL/vendors")


def _system_icds_registered() -> bool:
    try:
        return any(p.suffix == ".icd" for p in _SYSTEM_ICD_DIR.iterdir())
    except OSError:
        return False


def configure_opencl_icd() -> str | None:
    """Set ``OCL_ICD_FILENAMES`` to the environment's CPU runtime; return what was set."""
    if "OCL_ICD_FILENAMES" in os.environ or "OCL_ICD_VENDORS" in os.environ:
        return None
    if _system_icds_registered():
        return None
    for prefix in dict.fromkeys((sys.prefix, sys.exec_prefix, sys.base_prefix)):
        candidate = Path(prefix) / "lib" / _ICD_LIBRARY
        if candidate.is_file():
            os.environ["OCL_ICD_FILENAMES"] = str(candidate)
            return str(candidate)
    return None


def configure_kernel_cache() -> None:
    """Keep JIT-compiled SYCL kernels on disk between processes unless told otherwise."""
    os.environ.setdefault("SYCL_CACHE_PERSISTENT", "1")


#: what to set instead of ``CUBED_BACKEND_ARRAY_API_MODULE=usmarray``
CUBED_STRICT = (
    "CUBED_BACKEND_ARRAY_API_MODULE='usmarray' makes cubed run its chunks through the "
    "strict namespace, which refuses the NumPy dtypes cubed passes to its backend; set "
    "CUBED_BACKEND_ARRAY_API_MODULE=usmarray.cubed (usmarray's adapter for cubed) before "
    "the first `import cubed`"
)


def cubed_uses_strict_namespace() -> bool:
    """Whether cubed took (or is importing) ``usmarray`` itself as its chunk backend."""
    cubed_backend = sys.modules.get("cubed.backend_array_api")
    return getattr(cubed_backend, "xp_name", None) == "usmarray"


def check_cubed_order() -> str | None:
    """Warn (and return the message) when ``CUBED_BACKEND_ARRAY_API_MODULE`` names the
    strict namespace ``usmarray`` (cubed needs ``usmarray.cubed``), or names a usmarray
    module but cubed, imported before the variable was set, kept another chunk backend:
    its results would silently be NumPy arrays."""
    wanted = os.environ.get("CUBED_BACKEND_ARRAY_API_MODULE", "")
    if wanted == "usmarray":
        warnings.warn(CUBED_STRICT, RuntimeWarning, stacklevel=3)
        return CUBED_STRICT
    cubed_backend = sys.modules.get("cubed.backend_array_api")
    if not wanted.startswith("usmarray") or cubed_backend is None:
        return None
    used = getattr(cubed_backend, "xp_name", None)
    if used == wanted:
        return None
    msg = (f"CUBED_BACKEND_ARRAY_API_MODULE={wanted!r} was set after cubed was imported: "
           f"cubed keeps {used!r} as its chunk backend, so its results are NumPy arrays, "
           "not usm_ndarrays. Set the variable before the first `import cubed` (in the "
           "shell, or at the top of the program).")
    warnings.warn(msg, RuntimeWarning, stacklevel=3)
    return msg
