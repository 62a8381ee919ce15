"""usmarray.random's device kernels: the CUDA sources compile (without a GPU, where the
CUDA toolkit is installed), and draws that cross the CUDA kernel's tiles of 256 blocks,
start inside a block or end inside one are the NumPy backend's, bit for bit, on every
device."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from test_reliability_common import device_params

import usmarray as xp
import usmarray.random as ur
from usmarray.random import _kernels

#: one kernel of each kind, and each size of a block's elements (4 to 32 bytes)
_SOURCES = [("f", "float32"), ("f", "float64"), ("uniform", "float32"),
            ("normal", "float32"), ("normal", "float64"), ("exp", "float64"),
            ("int", "int8"), ("int", "int16"), ("int", "int32"), ("int2", "int64"),
            ("u8", "uint8"), ("u64", "uint64")]


def _nvrtc_log(src: str) -> str | None:
    from cuda.bindings import nvrtc  # type: ignore[import-not-found]

    _, prog = nvrtc.nvrtcCreateProgram(src.encode(), b"k.cu", 0, [], [])
    opts = [b"--gpu-architecture=compute_90", b"-std=c++17", b"-ftz=false",
            b"-prec-div=true", b"-prec-sqrt=true"]
    (err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    if err == nvrtc.nvrtcResult.NVRTC_SUCCESS:
        return None
    _, size = nvrtc.nvrtcGetProgramLogSize(prog)
    log = b" " * size
    nvrtc.nvrtcGetProgramLog(prog, log)
    return log.decode(errors="replace")


def test_the_cuda_sources_compile(tmp_path) -> None:
    sources = [_kernels.cuda_source(kind, d) for kind, d in _SOURCES]
    for (kind, d), (e, _src) in zip(_SOURCES, sources, strict=True):
        assert e == _kernels.elements_per_block(kind, np.dtype(d))
    nvcc = shutil.which("nvcc")
    if nvcc is not None:
        procs = []
        for i, (_e, src) in enumerate(sources):
            f = tmp_path / f"k{i}.cu"
            f.write_text(src)
            procs.append((src, subprocess.Popen(
                [nvcc, "-arch=sm_90", "-std=c++17", "-ftz=false", "-prec-div=true",
                 "-prec-sqrt=true", "-c", "-o", str(f) + ".o", str(f)],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
            if len(procs) >= 4 or i == len(sources) - 1:
                for src_, proc in procs:
                    _, err = proc.communicate()
                    assert proc.returncode == 0, err + src_
                procs = []
        return
    try:
        import cuda.bindings.nvrtc  # type: ignore[import-not-found]  # noqa: F401
    except Exception:
        pytest.skip("no CUDA compiler here (nvcc or cuda-bindings' NVRTC)")
    for _e, src in sources:
        log = _nvrtc_log(src)
        assert log is None, log


#: (name, call): each reads a different number of bytes per element
_CALLS = {
    "random32": lambda g, n: g.random(n, dtype=xp.float32),
    "random64": lambda g, n: g.random(n),
    "int8": lambda g, n: g.integers(-5, 100, n, dtype=xp.int8),
    "int16": lambda g, n: g.integers(0, 1000, n, dtype=xp.int16),
    "int2": lambda g, n: g.integers(0, 3 * 2**40, n),
    "bytes": lambda g, n: g.bytes(n),
    "normal32": lambda g, n: g.standard_normal(n, dtype=xp.float32),
    "uniform64": lambda g, n: g.uniform(-2.0, 3.0, n),
}
#: a tile is 256 blocks: 2048 float32, 1024 int8 elements (4 a block), ...
_SPLITS = [(3, 2048 * 3 + 5), (0, 2048), (1, 1), (5, 1024 * 5 - 9)]


@pytest.mark.parametrize("device", device_params("numpy", "opencl:cpu", "cuda:0"))
@pytest.mark.parametrize("name", sorted(_CALLS))
def test_draws_across_tiles_and_inside_blocks_are_the_numpy_backends(device, name):
    call = _CALLS[name]
    for head, n in _SPLITS:
        want_g = ur.default_rng(21, device="numpy")
        got_g = ur.default_rng(21, device=device)
        call(want_g, head)
        a = call(got_g, head)
        assert a.shape == (head,)
        want = xp.asnumpy(call(want_g, n))
        got = call(got_g, n)
        assert got.device == xp.Device.create_device(device)
        assert got.shape == (n,)
        assert np.array_equal(xp.asnumpy(got), want), (name, head, n)
        # the stream goes on where the call ended
        assert np.array_equal(xp.asnumpy(call(got_g, 7)), xp.asnumpy(call(want_g, 7)))


@pytest.mark.parametrize("device", device_params("numpy", "opencl:cpu", "cuda:0"))
def test_a_draw_of_any_shape_is_c_contiguous_in_stream_order(device):
    g, h = ur.default_rng(5, device=device), ur.default_rng(5, device="numpy")
    g.random(3, dtype=xp.float32)
    h.random(3, dtype=xp.float32)
    got = g.random((3, 5, 7), dtype=xp.float32)
    want = xp.asnumpy(h.random(105, dtype=xp.float32)).reshape(3, 5, 7)
    assert got.shape == (3, 5, 7)
    assert np.array_equal(xp.asnumpy(got), want)
