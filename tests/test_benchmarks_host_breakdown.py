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
