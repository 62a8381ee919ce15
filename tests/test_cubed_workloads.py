"""The two cubed workloads (``benchmarks/cubed_workloads.py``) in a small size, the
code path the GPU script runs: every configuration computes the right value, a
configuration that cannot run is reported and the others still run, and the table,
figure and peak-memory columns are written."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import usmarray as xp

pytest.importorskip("cubed")
wl = pytest.importorskip("benchmarks.cubed_workloads")

HAS_SYCL = xp.provider is not None


def _run(tmp_path, workload, n, configs, *extra):
    cmd = [sys.executable, "-m", "benchmarks.cubed_workloads", "--workload", workload,
           "--n", str(n), "--chunk", str(n // 4), "--allowed-mem", "20MB", "--workers", "2",
           "--repeats", "1", "--timeout", "300", "--configs", *configs,
           "--work-dir", str(tmp_path), "--out", str(tmp_path), *extra]
    subprocess.run(cmd, check=True, capture_output=True, timeout=900)
    return json.loads((tmp_path / f"{workload}.json").read_text())


def _missing_gpu():
    try:
        xp.Device.create_device("cuda:0")
    except ValueError:
        return ["usmarray cuda:0", "usmarray all-cuda"]
    return []


def test_chain_reference_is_the_plan_in_float64():
    n = 1000
    x = np.arange(n, dtype=np.float32) * np.float32(20.0 / n) - np.float32(10.0)
    x = x.astype(np.float64)
    f = (np.sin(x) * np.cos(x / 2) + np.exp(-abs(x)) * np.tanh(x) + np.log1p(x ** 2)
         + np.sqrt(abs(np.sin(3 * x))) + np.arctan(x))
    assert wl.chain_reference(n) == pytest.approx(f.mean(), rel=1e-12)


def test_chain_runs_on_every_backend_and_a_missing_device_is_reported(tmp_path):
    configs = ["numpy", "usmarray numpy"] + (["usmarray sycl-cpu"] if HAS_SYCL else [])
    missing = _missing_gpu()
    res = _run(tmp_path, "chain", 400_000, configs + missing)
    rows = {r["label"]: r for r in res["rows"]}
    want = wl.chain_reference(400_000)
    for c in configs:
        r = rows[c]
        assert "error" not in r, r
        assert r["value"] == pytest.approx(want, rel=2e-4)
        assert len(r["times"]) == 1 and r["first_s"] > 0 and r["best_s"] == r["times"][0]
        assert r["peak_rss"] >= r["rss_before"] > 0
        assert r["device_peak"] is None  # measured on CUDA devices only
        if c != "numpy":  # usmarray's recipe: the device store, bounded
            assert 0 <= r["store_peak"] <= 4 << 30 and r.get("store_spilled", 0) == 0
    for m in missing:
        assert "cuda" in rows[m]["error"].lower()
    md = (tmp_path / "chain.md").read_text()
    assert "| numpy | 2 |" in md and "yes" in md and (tmp_path / "chain.png").exists()
    for m in missing:
        assert f"| {m} | - | failed:" in md


@pytest.mark.gpu
@pytest.mark.skipif(bool(_missing_gpu()), reason="needs CuPy and a CUDA GPU")
def test_every_gpu_of_the_host_runs_and_records_device_memory(tmp_path):
    import cupy

    res = _run(tmp_path, "meanstd-gen", 400_000, ["numpy", "usmarray cuda:0",
                                                  "usmarray all-cuda"], "--device-workers", "1")
    want = wl.meanstd_reference(400_000)
    rows = {r["label"]: r for r in res["rows"]}
    ngpu = cupy.cuda.runtime.getDeviceCount()
    for label, count in (("usmarray cuda:0", 1), ("usmarray all-cuda", ngpu)):
        r = rows[label]
        assert "error" not in r, r
        np.testing.assert_allclose(r["value"], want, rtol=1e-5, atol=1e-6)
        assert r["workers"] == count and len(r["devices"]) == count
        assert all(d["in_use_peak"] >= d["in_use_before"] > 0 and d["pool_held_peak"] > 0
                   for d in r["devices"])


def test_meanstd_of_generated_data_is_one_plan_with_the_right_values(tmp_path):
    configs = ["numpy", "usmarray numpy"] + (["usmarray sycl-cpu"] if HAS_SYCL else [])
    res = _run(tmp_path, "meanstd-gen", 200_000, configs, "--store", "zarr")
    for r in res["rows"]:
        assert "error" not in r, r
        np.testing.assert_allclose(r["value"], wl.meanstd_reference(200_000), rtol=1e-5,
                                   atol=1e-6)
        assert "store_peak" not in r  # --store zarr: intermediates in the work directory


def test_several_workloads_in_one_command_and_the_beyond_device_defaults(tmp_path):
    cmd = [sys.executable, "-m", "benchmarks.cubed_workloads", "--workload", "chain",
           "chain-blocks", "--n", "100000", "--chunk", "25000", "--allowed-mem", "20MB",
           "--workers", "2", "--repeats", "1", "--configs", "usmarray numpy", "--name", "r",
           "--no-plot", "--work-dir", str(tmp_path), "--out", str(tmp_path)]
    subprocess.run(cmd, check=True, capture_output=True, timeout=600)
    for w in ("chain", "chain-blocks"):
        row = json.loads((tmp_path / f"r_{w}.json").read_text())["rows"][0]
        assert row["value"] == pytest.approx(wl.chain_reference(100_000), rel=2e-4)
    out = subprocess.run([sys.executable, "-m", "benchmarks.cubed_workloads", "--help"],
                         capture_output=True, text=True, check=True).stdout
    assert "--beyond-device" in out and wl.BEYOND_DEVICE_N == "4e10"


def test_meanstd_runs_the_profile_plan_on_zarr_input(tmp_path):
    configs = ["numpy"] + (["usmarray sycl-cpu"] if HAS_SYCL else ["usmarray numpy"])
    res = _run(tmp_path, "meanstd", 200_000, configs)
    x = np.sin(np.arange(200_000, dtype=np.int32).astype(np.float32) * np.float32(1e-4))
    want = [float(np.mean(x, dtype=np.float64)), float(np.std(x, dtype=np.float64))]
    for r in res["rows"]:
        assert "error" not in r, r
        np.testing.assert_allclose(r["value"], want, rtol=1e-5, atol=1e-6)
    assert "value agrees" in (tmp_path / "meanstd.md").read_text()


def _finalized(plan, optimize_function):
    from cubed.core.plan import arrays_to_plan

    return arrays_to_plan(plan)._finalize(optimize_graph=True,
                                          optimize_function=optimize_function)


def _stored(plan, optimize_function):
    return _finalized(plan, optimize_function).total_intermediate_narrays


def test_wide_fusion_stores_less_and_blocks_store_nothing(tmp_path):
    import cubed

    spec = cubed.Spec(work_dir=str(tmp_path), allowed_mem=int(2e8))
    n, chunk = 400_000, 100_000
    wide = wl.optimize_function("wide")
    default = _stored(wl.chain_plan(n, chunk, spec), wl.optimize_function("cubed"))
    assert default == _stored(wl.chain_plan(n, chunk, spec), None)  # cubed's default
    fused = _stored(wl.chain_plan(n, chunk, spec), wide)
    assert fused < default
    assert _stored(wl.chain_plan(n, chunk, spec, blocks=True), wide) == 0
    # usmarray's optimizer: one task per 4 chunks, here the whole mean: nothing stored
    assert _stored(wl.chain_plan(n, chunk, spec), wl.optimize_function("usmarray")) == 0
    want = wl.chain_reference(n)
    for blocks in (False, True):
        v = float(wl.chain_plan(n, chunk, spec, blocks=blocks).compute(optimize_function=wide))
        assert v == pytest.approx(want, rel=2e-4)


def _largest_stored(plan, optimize_function) -> int:
    """Elements of the largest array the optimized ``plan`` keeps in storage."""
    fin = _finalized(plan, optimize_function)
    sizes = [math.prod(d["target"].shape) for _, d in fin.dag.nodes(data=True)
             if d.get("type") == "array" and type(d.get("target")).__name__ == "LazyZarrArray"]
    return max(sizes, default=0)


def test_the_beyond_device_plan_keeps_no_full_size_array():
    """At the ``--beyond-device`` defaults (4e10 float32 from int64 indices, the recipe's
    ``allowed_mem`` of 2 GB) usmarray's optimizer fuses the chain into the mean's first
    step: only the mean's partial results are stored, never the data (chunks of 5e7
    left three 4e10-element arrays to the store, which spilled them to disk)."""
    import cubed

    spec = cubed.Spec(allowed_mem="2GB")
    n, chunk = int(float(wl.BEYOND_DEVICE_N)), int(float(wl.BEYOND_DEVICE_CHUNK))
    opt = wl.optimize_function("usmarray")
    assert _largest_stored(wl.chain_plan(n, chunk, spec), opt) < n // chunk
    assert _largest_stored(wl.chain_plan(n, int(5e7), spec), opt) == n


def test_chain_f_runs_in_the_chunk_namespace():
    x = np.linspace(-10, 10, 1001, dtype=np.float32)
    got = wl.chain_f(xp.asarray(x))
    assert isinstance(got, xp.usm_ndarray) and got.dtype == xp.float32
    np.testing.assert_allclose(np.asarray(xp.asarray(got, device=xp.Device.create_device("numpy"))),
                               wl.chain_f(x), rtol=2e-6, atol=1e-6)


def test_dedupe_reads_reads_each_chunk_once_a_task_and_keeps_the_value(tmp_path):
    """Run in a child: the experiment patches cubed for the rest of its process.  In the
    fused chain one task per chunk reads ``x``'s chunk: eight times before (seven operations; ``x * x`` twice), once after."""
    code = f"""
from collections import Counter
import cubed, cubed.primitive.blockwise as bw
from benchmarks import cubed_workloads as wl
spec = cubed.Spec(work_dir={str(tmp_path)!r}, allowed_mem=int(2e8))
n, chunk = 400_000, 100_000
wide = wl.optimize_function("wide")
reads = Counter()
def count(fn):
    def inner(in_key, config):
        reads[(in_key.name, tuple(in_key.coords))] += 1
        return fn(in_key, config)
    return inner
bw.get_chunk = count(bw.get_chunk)
def most():  # the largest read count of one chunk of an array of 4 chunks (x)
    names = Counter(name for name, _ in reads)
    return max(c for (name, _), c in reads.items() if names[name] == n // chunk)
v0 = float(wl.chain_plan(n, chunk, spec).compute(optimize_function=wide))
first = most(); reads.clear()
wl.dedupe_chunk_reads()
v1 = float(wl.chain_plan(n, chunk, spec).compute(optimize_function=wide))
print(first, most(), v0, v1, wl.chain_reference(n))
"""
    env = {**os.environ, "CUBED_BACKEND_ARRAY_API_MODULE": "numpy"}
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True, timeout=300, env=env)
    before, after, v0, v1, want = out.stdout.split()
    assert (int(before), int(after)) == (8, 1)
    assert float(v0) == float(v1) == pytest.approx(float(want), rel=2e-4)
