"""Which form of the array's core runs: compiled or pure Python.

The compiled form is ``usmarray._core``, built from ``_core.pyx`` where the install had
a C compiler (the build is optional: see setup.py); it gives ``usm_ndarray`` a C base
whose operator and indexing slots run the lean paths without a Python frame.  The
pure-Python form is the same package without it.  Both compute with the same kernels
and raise the same errors; the compiled form is faster on small arrays only.

The pure-Python form runs where ``USMARRAY_PURE_PYTHON`` is set to anything but ``""``
or ``"0"``, where no compiled core was built, where it was built for another contract
(:data:`API`) or from another ``_core.pyx`` than the one beside it (an edit since the
build: a warning says to rebuild).  :data:`FORM` says which runs, :data:`REASON` why.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import warnings
from pathlib import Path
from types import ModuleType

#: the environment variable that forces the pure-Python form
PURE_ENV = "USMARRAY_PURE_PYTHON"
#: the contract between the compiled core and the Python modules (``_core.API``)
API = 1


def compiled_module(name: str, source: Path, api: int,
                    label: str | None = None) -> tuple[ModuleType | None, str]:
    """(compiled module ``usmarray.<name>`` or None, why): None in the pure-Python form,
    where the install has no such module, where it does not load, where its ``API`` is
    not ``api``, or where it was built from another ``source`` than the one beside it;
    ``label``: its name in the reasons and the warning (default ``name``)."""
    label = label or name
    if os.environ.get(PURE_ENV, "") not in ("", "0"):
        return None, f"{PURE_ENV} is set"
    full = f"{__package__}.{name}"
    try:
        mod = importlib.import_module(full)
    except ModuleNotFoundError as exc:
        if exc.name != full:
            raise
        return None, f"no compiled {label} in this install"
    except ImportError as exc:  # built for another Python, or broken
        return None, f"the compiled {label} does not load ({exc})"
    if getattr(mod, "API", None) != api:
        return None, f"the compiled {label} has contract {getattr(mod, 'API', None)}, not {api}"
    if source.is_file():  # a checkout or an editable install: the build must match it
        sha = hashlib.sha256(source.read_bytes()).hexdigest()
        if sha != getattr(mod, "SOURCE_SHA256", None):
            warnings.warn(
                f"usmarray: the compiled {label} was built from another {source.name} than "
                f"the one in {source.parent}; its pure-Python form runs until it is rebuilt "
                "(pip install -e .)", RuntimeWarning, stacklevel=2)
            return None, f"the compiled {label} is older than {source.name}"
    return mod, f"compiled {label} loaded"


def _load(source: Path = Path(__file__).with_name("_core.pyx")) -> tuple[ModuleType | None, str]:
    """(the compiled core or None, why); ``source``: the ``_core.pyx`` it must match."""
    return compiled_module("_core", source, API, label="core")


#: ``usmarray._core``, or None in the pure-Python form
core, REASON = _load()
#: "compiled" or "pure"
FORM = "pure" if core is None else "compiled"
