"""The conformance runner's skips file: every entry has a reason, and an entry marked
``@KIND`` applies only where the default device's filter starts with KIND."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.run import read_skips

_FILE = """# a comment
array_api_tests/test_a.py::test_one  # everywhere
@cuda array_api_tests/test_b.py::test_two  # on CUDA only
"""


@pytest.mark.parametrize(("device", "want"), [
    (None, ["array_api_tests/test_a.py::test_one"]),
    ("numpy", ["array_api_tests/test_a.py::test_one"]),
    ("opencl:cpu", ["array_api_tests/test_a.py::test_one"]),
    ("cuda:0", ["array_api_tests/test_a.py::test_one", "array_api_tests/test_b.py::test_two"]),
])
def test_a_device_entry_applies_to_its_kind_only(device: str | None, want: list[str],
                                                 tmp_path: Path) -> None:
    f = tmp_path / "skips.txt"
    f.write_text(_FILE)
    assert [tid for tid, _ in read_skips(f, device)] == want


def test_an_entry_without_a_reason_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "skips.txt"
    f.write_text("@cuda array_api_tests/test_b.py::test_two\n")
    with pytest.raises(SystemExit, match="has no"):
        read_skips(f, "cuda:0")


def test_the_projects_skips_file_reads_and_names_a_reason_for_each_entry() -> None:
    path = Path(__file__).resolve().parent.parent / "conformance" / "skips.txt"
    for device in (None, "numpy", "opencl:cpu", "cuda:0"):
        assert all(reason for _, reason in read_skips(path, device))
    assert not read_skips(path, "numpy") and not read_skips(path, "opencl:cpu")
