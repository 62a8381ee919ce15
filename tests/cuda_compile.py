"""Compile CUDA sources without a GPU, for the tests that check generated kernels: with
NVRTC through cuda-bindings where it installs (the compiler the backend uses, which
includes no header of the CUDA runtime and lacks some of nvcc's built-ins), else with
nvcc (four at a time), with the options of the CUDA backend's one compile path; the test
is skipped where neither exists.  :func:`run_host` runs generated device logic as host
C++."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

#: the CUDA backend's NVRTC options (usmarray/_backend/_cuda/kernels/_launch.py)
OPTIONS = ("-std=c++17", "-ftz=false", "-prec-div=true", "-prec-sqrt=true")
#: the architecture the sources are compiled for
ARCH = "90"
#: a host C++ compiler (None: the host tests skip)
CXX = shutil.which("g++") or shutil.which("c++") or shutil.which("clang++")


#: the start of a host C++ program that runs generated kernels as one thread of one
#: block: the CUDA qualifiers defined away, and the grid's built-in variables (x and y)
#: set for a grid of one block of one thread, so that a grid-stride loop walks it all
ONE_THREAD = """
#include <cstdio>
#include <cstring>
#include <vector>
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(n)
struct Dim { long long x, y; };
static Dim blockIdx = {0, 0}, threadIdx = {0, 0}, gridDim = {1, 1}, blockDim = {1, 1};
"""


def run_host(source: str, stdin: bytes, tmp_path: Path) -> bytes:
    """The standard output of ``source`` compiled as host C++ (no contraction into FMA,
    as the generated CUDA) and run with ``stdin``; skipped without a C++ compiler."""
    if CXX is None:
        pytest.skip("no C++ compiler here")
    src, exe = tmp_path / "host.cpp", tmp_path / "host"
    src.write_text(source)
    subprocess.run([CXX, "-O1", "-ffp-contract=off", "-o", str(exe), str(src)], check=True)
    return subprocess.run([str(exe)], input=stdin, capture_output=True, check=True).stdout


def _nvrtc_log(src: str) -> str | None:
    from cuda.bindings import nvrtc  # type: ignore[import-not-found]

    _, prog = nvrtc.nvrtcCreateProgram(src.encode(), b"k.cu", 0, [], [])
    opts = [f"--gpu-architecture=compute_{ARCH}".encode(), *(o.encode() for o in OPTIONS)]
    (err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    if err == nvrtc.nvrtcResult.NVRTC_SUCCESS:
        return None
    _, size = nvrtc.nvrtcGetProgramLogSize(prog)
    log = b" " * size
    nvrtc.nvrtcGetProgramLog(prog, log)
    return log.decode(errors="replace")


def assert_sources_compile(sources: list[str], tmp_path: Path) -> None:
    """Every source of ``sources`` compiles (the compiler's log and the source where one
    does not)."""
    try:
        import cuda.bindings.nvrtc  # type: ignore[import-not-found]  # noqa: F401
    except Exception:
        nvcc = shutil.which("nvcc")
        if nvcc is None:
            pytest.skip("no CUDA compiler here (cuda-bindings' NVRTC or nvcc)")
        procs: list[tuple[str, subprocess.Popen]] = []
        for i, src in enumerate(sources):
            f = tmp_path / f"k{i}.cu"
            f.write_text(src)
            procs.append((src, subprocess.Popen(
                [nvcc, f"-arch=sm_{ARCH}", *OPTIONS, "-c", "-o", str(f) + ".o", str(f)],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
            if len(procs) >= 4 or i == len(sources) - 1:
                for src_, proc in procs:
                    _, err = proc.communicate()
                    assert proc.returncode == 0, err + src_
                procs = []
        return
    for src in sources:
        log = _nvrtc_log(src)
        assert log is None, log
