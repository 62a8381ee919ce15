"""Pickling and copying, on every backend.

Arrays of every layout the shared generator draws (tests/test_reliability_layouts.py:
flipped, stepped, transposed, broadcast, 0-d, empty), their dtypes and Devices pickle
(protocols 2 and 5) and deep-copy: values, dtype, shape, device and usm_type survive; a
copy is a new, writable, C-ordered array on the same Device that mixes with the original.
The scikit-learn round trip through joblib in a fresh process is
tests/test_clients_namespace.py::test_fitted_estimator_survives_pickle_and_joblib_in_a_fresh_process.
Each check runs in a child interpreter (tests/test_reliability_common.py).
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_reliability_common import _have_sycl, assert_child_ok, begin, child_main
from test_reliability_layouts import _values, layout, realize, shapes

MOD = "test_reliability_pickling"


def _round_trips(name: str) -> None:
    import usmarray as xp

    dev = xp.asarray(0).device if name == "sycl" else name

    @given(shapes(), st.data(), st.sampled_from(["f", "i", "b", "c"]), st.integers(0, 2**32 - 1))
    def prop(shape, data, kind, seed):
        plan = data.draw(layout(shape))
        a, x = realize(plan, _values(kind, np.random.default_rng(seed)), xp, dev)
        begin(f"{kind} {plan}")
        for y in [pickle.loads(pickle.dumps(x, protocol=p)) for p in (2, 5)] + [
                copy.deepcopy(x), copy.copy(x)]:
            assert type(y) is xp.usm_ndarray
            assert y.shape == x.shape and y.dtype == x.dtype and y.device == x.device
            assert y.usm_type == x.usm_type
            np.testing.assert_array_equal(xp.asnumpy(y), a)
            assert y.flags.writable
            assert bool(xp.all(xp.equal(y, x))), "the copy does not mix with the original"
        assert pickle.loads(pickle.dumps(x.dtype)) == x.dtype
        assert pickle.loads(pickle.dumps(x.device)) == x.device

    prop()


def _params():
    return [pytest.param("numpy")] + [pytest.param("sycl", marks=pytest.mark.skipif(
        not _have_sycl(), reason="needs a SYCL runtime and device"))]


@pytest.mark.parametrize("device", _params())
def test_every_layout_pickles_and_copies(device):
    assert_child_ok(MOD, "_round_trips", device, timeout=180)


if __name__ == "__main__":
    child_main(globals())
