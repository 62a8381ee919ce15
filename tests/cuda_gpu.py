"""For CUDA test modules: CuPy, and the marks that make a module a GPU test that skips
cleanly where CuPy is missing (a module-level skip) or finds no usable GPU."""

from __future__ import annotations

from typing import Any

import pytest


def cupy_and_marks() -> tuple[Any, int, list[Any]]:
    """(the cupy module, the number of usable GPUs, the module's ``pytestmark``)."""
    cupy = pytest.importorskip("cupy")
    try:
        ngpu = cupy.cuda.runtime.getDeviceCount()
    except Exception:  # no driver
        ngpu = 0
    return cupy, ngpu, [
        pytest.mark.gpu,
        pytest.mark.skipif(ngpu < 1, reason="CuPy is installed but no CUDA GPU is usable"),
    ]
