"""``benchmarks.host_breakdown`` on the host (NumPy device): rows, layers and the join
with a matrix run."""

from __future__ import annotations

import json

import pytest

from benchmarks import host_breakdown as hb


def test_layer_of_sorts_functions_into_layers():
    assert hb.layer_of(("/x/usmarray/_backend/_cuda/fast.py", 1, "fn")) == "backend"
    assert hb.layer_of(("/x/usmarray/_creation.py", 1, "empty")) == "namespace"
    assert hb.layer_of(("~", 0, "<built-in method cupy_backends.cuda.api.driver.launchKernel>")) \
        == "provider"
    assert hb.layer_of(("/usr/lib/python3.12/contextlib.py", 1, "__enter__")) == "python"


def test_breakdown_rows_add_up_and_join_a_matrix(tmp_path):
    rows = hb.breakdown("numpy", "reshape (view),sum all")
    assert {r["op"] for r in rows} == {"reshape (view)", "sum all"}
    for r in rows:
        assert "error" not in r, r
        assert r["host_us"] > 0 and r["waits"] is None
        assert sum(r["layers_us"].values()) == pytest.approx(r["host_us"], rel=0.05)
    m = {"peers": ["cupy", "torch"], "rows": [
        {"family": "manipulation", "op": "reshape (view)", "size": "small",
         "times_s": {"usm": 5e-6, "cupy": 3e-6, "torch": 2e-6}}]}
    path = tmp_path / "m.json"
    path.write_text(json.dumps(m))
    hb.join_matrix(rows, path)
    r = next(r for r in rows if r["op"] == "reshape (view)")
    assert r["best_peer_us"] == 2.0 and r["ratio"] == pytest.approx(2.0 / r["host_us"], rel=1e-2)
    assert "ratio" not in next(r for r in rows if r["op"] == "sum all")
    text = hb.report(rows, {"device": "numpy", "date": "d", "versions": "v"})
    assert "| manipulation/reshape (view) |" in text


def test_family_rows_time_usmarray_against_numpy_with_an_aa_column():
    rows = hb.family_rows("numpy", "x + y,sum", budget_s=0.05)
    assert [r["op"] for r in rows] == ["x + y", "sum"]
    for r in rows:
        assert all(isinstance(r[k], float) and r[k] > 0 for k in ("numpy", "usmarray", "A/A"))
        assert sum(r["layers_us"].values()) == pytest.approx(r["usmarray"], rel=0.05)
    text = hb.family_report(rows, {"device": "numpy", "versions": "v"})
    assert text.splitlines()[-2].split()[:3] == ["x", "+", "y"]


def test_families_compute_the_same_values_on_usmarray_and_numpy():
    import numpy as np

    import usmarray as xp

    ours, floor = hb.families(xp, "numpy", False), hb.families(np, None, False)
    assert ours.keys() == floor.keys()
    for key in ("x + y", "where", "sum", "x[int array]", "concat", "matmul 8x8"):
        np.testing.assert_allclose(xp.asnumpy(ours[key]()), floor[key](), err_msg=key)
