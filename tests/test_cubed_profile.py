"""The cubed profile benchmark (``benchmarks/cubed_profile.py``) in a small
size: every configuration computes the same mean and standard deviation, and the
profile's phases account for the profiled run."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("cubed")
prof = pytest.importorskip("benchmarks.cubed_profile")


@pytest.mark.parametrize(("filename", "func", "bucket"), [
    ("/x/site-packages/zarr/core/array.py", "__getitem__", "zarr + codecs (storage)"),
    ("/x/site-packages/numcodecs/zstd.py", "decode", "zarr + codecs (storage)"),
    ("/w/usmarray/cubed.py", "call", "usmarray cubed adapter"),
    ("/w/usmarray/_placement.py", "place", "usmarray namespace + dispatch"),
    ("/x/site-packages/cubed/core/ops.py", "_partial_reduce", "cubed planner + runtime"),
    ("/x/site-packages/cloudpickle/cloudpickle.py", "dumps", "pickling"),
    ("~", "<method 'reduce' of 'numpy.ufunc' objects>", "chunk math (numpy/dpctl/dpnp)"),
    ("~", "<built-in method _pickle.loads>", "pickling"),
    ("~", "<method 'acquire' of '_thread.lock' objects>", "asyncio + threads"),
    ("~", "<built-in method builtins.len>", "other builtins"),
    ("/usr/lib/python3.11/functools.py", "wraps", "other python"),
])
def test_bucket(filename, func, bucket):
    assert prof._bucket(filename, func) == bucket


def test_small_run_agrees_across_backends(tmp_path):
    cmd = [sys.executable, "-m", "benchmarks.cubed_profile", "--n", "4e5", "--allowed-mem",
           "20MB", "--chunk", "1e5", "--repeats", "1", "--rounds", "1", "--configs",
           "numpy", "usmarray numpy", "--work-dir", str(tmp_path), "--out", str(tmp_path)]
    subprocess.run(cmd, check=True, capture_output=True, timeout=600)
    rows = json.loads((tmp_path / "profile.json").read_text())["rows"]
    assert [r["label"] for r in rows] == ["numpy", "usmarray numpy"]
    x = np.sin(np.arange(400_000, dtype=np.int32).astype(np.float32) * np.float32(1e-4))
    want = (float(np.mean(x, dtype=np.float64)), float(np.std(x, dtype=np.float64)))
    for r in rows:
        np.testing.assert_allclose(r["values"], want, rtol=1e-5, atol=1e-6)
        assert r["tasks"] >= 2  # at least one task in each of the two computes
        ph = r["phases"]
        assert ph["Zarr read (incl. decompression)"] > 0
        assert all(v >= -1e-3 for v in ph.values()), ph
        # the phases partition the profiled run (pickling aside: none in this executor)
        assert abs(sum(ph.values()) - r["profiled_s"]) < 1e-6 + ph["pickling"]
    md = (tmp_path / "profile.md").read_text()
    assert "| usmarray numpy | 1 |" in md and (tmp_path / "profile.png").exists()
