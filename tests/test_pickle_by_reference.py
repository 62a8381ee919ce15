"""Functions a task carries (the array's operators, the namespace's functions and the
cubed adapter's wrappers) pickle by reference, as cubed's and Dask's tasks pickle them
with cloudpickle: never by value with their closures (a function's per-backend plans
hold the backend and its lock, which do not pickle, and Dask cannot tokenize them)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from test_reliability_common import device_params

import usmarray as xp
from usmarray._array import usm_ndarray

cloudpickle = pytest.importorskip("cloudpickle")


def _by_reference(f: object) -> None:
    data = cloudpickle.dumps(f)
    assert pickle.loads(data) is f
    assert len(data) < 200, (f, len(data))  # a module and a name, not a closure


@pytest.mark.parametrize("device", device_params("numpy", "cpu", "cuda:0"))
def test_operators_and_functions_pickle_by_reference(device: str) -> None:
    x = xp.asarray(np.arange(6.0), device=device)
    _ = (x * 2 + 1 < x, -x, x @ x, xp.add(x, x))  # every plan of these is made now
    for name in ("__mul__", "__add__", "__radd__", "__iadd__", "__lt__", "__neg__",
                 "__matmul__"):
        _by_reference(getattr(usm_ndarray, name))
    for f in (xp.add, xp.multiply, xp.sum, xp.linalg.matmul):
        _by_reference(f)


def test_cubed_adapter_functions_pickle_by_reference() -> None:
    uc = pytest.importorskip("usmarray.cubed")
    x = xp.asarray(np.arange(6.0))
    uc.add(x, x), uc.multiply(x, 2.0), uc.sum(x), uc.mean(x)
    for f in (uc.add, uc.multiply, uc.sum, uc.mean, uc.nansum, uc.asarray, uc.astype,
              uc.linalg.matmul, uc.fft.fft):
        _by_reference(f)
