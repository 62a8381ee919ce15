"""``benchmarks.report_performance``: docs/performance.md's tables are the ones the
current results in benchmarks/results/ give, and the command notices when they are not."""

import json

import pytest

from benchmarks import report_performance as rp


def test_the_committed_page_is_what_the_results_give() -> None:
    assert rp.main(["--check"]) == 0, "run: python -m benchmarks.report_performance"


def test_results_hold_one_folder_per_machine_kind() -> None:
    folders = sorted(p.name for p in rp.RESULTS.iterdir() if p.is_dir())
    assert folders, "benchmarks/results/ is empty"
    for name in folders:
        assert name.startswith(("nvidia-", "cpu-")), f"{name}: not a machine kind"
        assert not any(p.is_dir() for p in (rp.RESULTS / name).iterdir()), f"{name} has sub-folders"


def test_a_stale_block_is_found_and_rewritten(tmp_path, monkeypatch) -> None:
    kind = tmp_path / "results" / "nvidia-test"
    kind.mkdir(parents=True)
    row = {"op": "add", "family": "elementwise", "size": "large", "shape": [4], "errors": {},
           "times_s": {"usm": 1e-5, "cupy": 2e-5}, "ratios": {"best": 2.0, "A/A": 1.0}}
    small = dict(row, size="small", ratios={"best": 0.5, "A/A": 1.0})
    (kind / "gpu_matrix.json").write_text(json.dumps(
        {"gpu": "a GPU", "cuda_runtime": 13020, "versions": {}, "peers": ["cupy"],
         "rows": [row, small]}))
    page = tmp_path / "performance.md"
    page.write_text("text\n<!-- begin: gpu-summary -->\nold table\n<!-- end: gpu-summary -->\nmore\n")
    monkeypatch.setattr(rp, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(rp, "PAGE", page)
    assert rp.main(["--check"]) == 1
    assert "old table" in page.read_text()  # --check writes nothing
    assert rp.main([]) == 0
    text = page.read_text()
    assert text.startswith("text\n<!-- begin: gpu-summary -->\n\n| machine kind")
    assert "| `nvidia-test` | large (device time) | **2.00** | 1.00 | 0 of 1 |" in text
    assert "| `nvidia-test` | small (host time per call) | **0.50** | 1.00 | 1 of 1 |" in text
    assert text.endswith("\n\n<!-- end: gpu-summary -->\nmore\n")
    assert rp.main(["--check"]) == 0


def test_an_unknown_block_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown block 'nosuch'.*gpu-summary"):
        rp.block("nosuch")
