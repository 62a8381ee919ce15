"""The OpenCL ICD set-up done at import: found on a fresh install, never overriding the user."""

import os
import subprocess
import sys

from usmarray import _env


def test_user_value_is_never_overridden(monkeypatch):
    monkeypatch.setenv("OCL_ICD_FILENAMES", "/my/own.so")
    assert _env.configure_opencl_icd() is None
    assert os.environ["OCL_ICD_FILENAMES"] == "/my/own.so"


def test_pip_runtime_is_found(monkeypatch, tmp_path):
    monkeypatch.delenv("OCL_ICD_FILENAMES", raising=False)
    monkeypatch.delenv("OCL_ICD_VENDORS", raising=False)
    (tmp_path / "lib").mkdir()
    lib = tmp_path / "lib" / "libintelocl.so"
    lib.write_bytes(b"")
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    monkeypatch.setattr(_env, "_system_icds_registered", lambda: False)
    assert _env.configure_opencl_icd() == str(lib)
    assert os.environ["OCL_ICD_FILENAMES"] == str(lib)


def test_fresh_process_finds_a_sycl_device():
    env = {k: v for k, v in os.environ.items() if k not in ("OCL_ICD_FILENAMES", "OCL_ICD_VENDORS")}
    code = "import usmarray as xp; print(len(xp.__array_namespace_info__().devices()))"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.strip()) >= 1
