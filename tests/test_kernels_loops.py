"""The kernel factory's loop-bound inference: the seed's idiom
``for (T j = 0; j < x.shape[k]; j++) ... x(i0, j)`` runs with no ``bounds=``; whatever
could take the counter outside the array is still refused, asking for a mode."""

from __future__ import annotations

import numpy as np
import pytest

import usmarray as xp
from usmarray import _backend
from usmarray.kernels import kernel
from usmarray.kernels._signature import parse_signature
from usmarray.kernels._translate import find_loops, tokenize

sycl = pytest.mark.skipif(_backend.sycl is None or not _backend.sycl.available(),
                          reason="needs dpctl and a SYCL device")
SIG = "float64[:,:] x, float64[:,:] y, float64[:] out"


def loops(body):
    params = {p.name: p for p in parse_signature(SIG) if p.is_array}
    return [(lp.var, lp.array, lp.axis) for lp in find_loops(tokenize(body), params)]


@pytest.mark.parametrize("body, found", [
    ("for (int j = 0; j < x.shape[1]; j++) a += x(i0, j);", [("j", "x", 1)]),
    ("for (int64 j = 0; j < y.shape[0]; ++j) { a += x(i0, j); }", [("j", "y", 0)]),
    ("for (uint32 k = 0; k < x.shape[1]; k += 1) { a += x(i0, k); }", [("k", "x", 1)]),
    # the counter changed, declared again or taken from a member: not inferred
    ("for (int j = 0; j < x.shape[1]; j++) { a += x(i0, j); j++; }", []),
    ("for (int j = 0; j < x.shape[1]; j++) { j = 2; }", []),
    ("for (int j = 0; j < x.shape[1]; j++) { int j = 2; a += x(i0, j); }", []),
    ("for (int j = 0; j < x.shape[1]; j += 2) a += x(i0, j);", []),
    ("for (int j = 1; j < x.shape[1]; j++) a += x(i0, j);", []),
    ("for (int j = 0; j <= x.shape[1]; j++) a += x(i0, j);", []),
    ("for (int j = 0; j < x.shape[1]; j++) a += x(i0, j); goto end; end: ;", []),
])
def test_which_loops_are_inferred(body, found):
    assert loops(body) == found


def _refused(k, *args):
    with pytest.raises(ValueError, match="pass bounds=|bounds='clamp'"):
        k(*args)


@sycl
def test_the_seeds_idiom_runs_without_bounds():
    d = xp.Device.create_device("opencl:cpu")
    h = np.arange(12.0).reshape(3, 4)
    x = xp.asarray(h, device=d)
    out = xp.empty(3, device=d)
    row_sum = kernel("float64[:,:] x, float64[:] out",
                     "float64 acc = 0;\nfor (int j = 0; j < x.shape[1]; j++) acc += x(i0, j);\n"
                     "out(i0) = acc;", shape="out")
    row_sum(x, out)
    np.testing.assert_array_equal(xp.asnumpy(out), h.sum(axis=1))
    # another array indexed by the counter must cover the loop, checked per call
    k = kernel(SIG, "float64 acc = 0;\nfor (int j = 0; j < x.shape[1]; j++) acc += y(i0, j);\n"
                    "out(i0) = acc;", shape="out")
    with pytest.raises(ValueError, match=r"runs to x.shape\[1\] - 1 = 3"):
        k(x, xp.ones((3, 2), device=d), out)
    k(x, xp.ones((3, 5), device=d), out)
    np.testing.assert_array_equal(xp.asnumpy(out), [4.0, 4.0, 4.0])
    # a counter type too narrow for the size
    big = xp.ones((1, 300), device=d)
    narrow = kernel("float64[:,:] x, float64[:] out",
                    "float64 acc = 0;\nfor (uint8 j = 0; j < x.shape[1]; j++) acc += x(i0, j);\n"
                    "out(i0) = acc;", shape="out")
    with pytest.raises(ValueError, match="past the largest value of its type"):
        narrow(big, xp.empty(1, device=d))
    # the counter after its loop is another variable: unproven
    after = kernel("float64[:,:] x, float64[:] out",
                   "float64 acc = 0;\nfor (int j = 0; j < x.shape[1]; j++) { acc += x(i0, j); }\n"
                   "int64 j = 7;\nout(i0) = acc + x(i0, j);", shape="out")
    _refused(after, x, out)
