"""The CPU ops matrix (``benchmarks/cpu_matrix.py``) in its smoke mode: both
backends run a few ops at tiny sizes and write their tables; an op the SYCL provider
lacks is a row that says why instead of a timing."""

import json

import pytest

from usmarray import _backend

cpu_matrix = pytest.importorskip("benchmarks.cpu_matrix")
#: the backends the smoke run covers here (SYCL where its runtime is present)
BACKENDS = ("sycl", "numpy") if _backend.sycl is not None else ("numpy",)


def test_cpu_matrix_smoke_runs_both_backends(tmp_path, capsys):
    ops = "sum all,take n/4,add x+y,ifft c64"
    backend_arg = "both" if len(BACKENDS) == 2 else "numpy"
    assert cpu_matrix.main(["--smoke", "--only", ops, "--backend", backend_arg,
                            "--out", str(tmp_path), "--no-plot"]) == 0
    for backend in BACKENDS:
        doc = json.loads((tmp_path / f"cpu_matrix_{backend}.json").read_text())
        assert doc["backend"] == backend and doc["peers"] == ["prov"]
        rows = {(r["op"], r["size"]): r for r in doc["rows"]}
        assert len(rows) == 8  # 4 ops x (large, small)
        for r in rows.values():
            if backend == "sycl" and r["family"] == "fft":  # dpnp.tensor has no fft
                assert "no peer has it" in r["errors"]["all"] and not r["times_s"]
                continue
            assert set(r["times_s"]) == {"usm", "prov", "prov A/A", "usm A/A"}, r
            assert set(r["ratios"]) >= {"best", "A/A", "prov A/A"}
        text = (tmp_path / f"cpu_matrix_{backend}.txt").read_text()
        assert "below 0.95" in text and "prov A/A geometric mean" in text
    if len(BACKENDS) == 2:
        assert "== both backends ==" in capsys.readouterr().out
