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


def _load(source: Path = Path(__file__).with_name("_core.pyx")) -> tuple[ModuleType | None, str]:
    """(the compiled core or None, why); ``source``: the ``_core.pyx`` it must match."""
    if os.environ.get(PURE_ENV, "") not in ("", "0"):
        return None, f"{PURE_ENV} is set"
    try:
        _core = importlib.import_module(f"{__package__}._core")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__package__}._core":
            raise
        return None, "no compiled core in this install"
    except ImportError as exc:  # built for another Python, or broken
        return None, f"the compiled core does not load ({exc})"
    if getattr(_core, "API", None) != API:
        return None, f"the compiled core has contract {getattr(_core, 'API', None)}, not {API}"
    if source.is_file():  # a checkout or an editable install: the build must match it
        sha = hashlib.sha256(source.read_bytes()).hexdigest()
        if sha != getattr(_core, "SOURCE_SHA256", None):
            warnings.warn(
                f"usmarray: the compiled core was built from another {source.name} than the "
                f"one in {source.parent}; the pure-Python form runs until it is rebuilt "
                "(pip install -e .)", RuntimeWarning, stacklevel=2)
            return None, f"the compiled core is older than {source.name}"
    return _core, "compiled core loaded"


#: ``usmarray._core``, or None in the pure-Python form
core, REASON = _load()
#: "compiled" or "pure"
FORM = "pure" if core is None else "compiled"
