"""cubed with usmarray as its chunk backend, for the test modules that run cubed in the
test process: :func:`import_cubed` sets ``CUBED_BACKEND_ARRAY_API_MODULE`` before cubed's
first import and skips the calling module where zarr or cubed is missing, or where cubed
was imported earlier with another backend (it picks its backend once per process)."""

from __future__ import annotations

import os
import sys
from typing import Any

import pytest

BACKEND = "usmarray.cubed"


def import_cubed() -> Any:
    """cubed, imported with usmarray's adapter as its backend; a module-level skip
    otherwise."""
    pytest.importorskip("zarr")
    if "cubed" not in sys.modules:
        os.environ["CUBED_BACKEND_ARRAY_API_MODULE"] = BACKEND
    cubed = pytest.importorskip("cubed")
    if cubed.backend_array_api.xp_name != BACKEND:  # pragma: no cover - test ordering
        pytest.skip(
            f"cubed was imported earlier with backend {cubed.backend_array_api.xp_name!r}",
            allow_module_level=True,
        )
    return cubed
