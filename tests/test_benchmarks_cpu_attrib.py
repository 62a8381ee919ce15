"""The tools that attribute CPU-matrix rows: ``benchmarks.cpu_calls``
(which provider kernels one call runs, usmarray against its provider),
``benchmarks.percall_steps`` (the per-call cost of a call's steps) and the matrix's
``--trials``/``--op-budget`` for re-runs of noisy rows."""

import json
from collections import Counter

import pytest

cpu_calls = pytest.importorskip("benchmarks.cpu_calls")
percall_steps = pytest.importorskip("benchmarks.percall_steps")
cpu_matrix = pytest.importorskip("benchmarks.cpu_matrix")


def test_differences_lists_only_functions_called_a_different_number_of_times():
    usm = Counter({"_sum_over_axis": 1, "wait": 2, "_divide_by_scalar": 1})
    prov = Counter({"_sum_over_axis": 1, "wait": 1, "_copy": 1})
    assert cpu_calls.differences(usm, prov) == [
        ("_copy", 0, 1), ("_divide_by_scalar", 1, 0), ("wait", 2, 1)]
    assert cpu_calls.differences(usm, usm) == []


def test_cpu_calls_tells_same_work_from_different_work(capsys):
    # flip is NumPy's reversing slice on both sides; the norm's overflow guard adds
    # reductions NumPy's vector_norm does not run
    assert cpu_calls.main(["--backend", "numpy", "--only", "flip,vector_norm", "--calls", "2"]) == 0
    out = capsys.readouterr().out
    flip = next(line for line in out.splitlines() if line.startswith("== flip"))
    assert flip.endswith("the same provider/runtime calls")
    norm = out[out.index("== linalg.vector_norm"):]
    assert "called differently" in norm.splitlines()[0]
    assert "reduce" in norm


def test_percall_steps_times_every_step(capsys):
    assert percall_steps.main(["--rounds", "1"]) == 0
    out = capsys.readouterr().out
    for title in ("== empty", "== reshape", "== flip", "== vecdot", "== asarray"):
        assert title in out
    assert out.count(" us   (fastest ") == 25  # every case of the five calls


def test_cpu_matrix_trials_and_op_budget_reach_the_run(tmp_path):
    assert cpu_matrix.main(["--smoke", "--backend", "numpy", "--only", "flip", "--trials", "4",
                            "--op-budget", "0.2", "--out", str(tmp_path), "--no-plot"]) == 0
    doc = json.loads((tmp_path / "cpu_matrix_numpy.json").read_text())
    assert doc["config"]["trials"] == 4 and doc["config"]["small_trials"] == 4
    assert doc["config"]["op_budget_s"] == 0.2
