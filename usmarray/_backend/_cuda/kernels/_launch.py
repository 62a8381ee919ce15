"""Compile a kernel source once and launch it cheaply.

:func:`module` compiles a source with NVRTC (this package's options, and only them) for
the current device and loads it; :func:`compiled` keeps one function per (source, name,
device).  CuPy's own compile path is not used: it appends ``-ftz=true`` after the
caller's options, which flushes float32 subnormals to zero.
:func:`launch` packs 8-byte arguments (``fmt``: ``struct`` codes ``Q`` for a
pointer, ``q`` for an int64, ``d`` for a double) into per-thread slots and calls the
driver's ``cuLaunchKernel`` (CuPy's binding) on CuPy's current stream.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import struct
import tempfile
import threading
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import cupy

#: IEEE semantics: subnormals kept, exact division and square root
OPTIONS = ("-ftz=false", "-prec-div=true", "-prec-sqrt=true", "-std=c++17")

_driver: Any = cupy.cuda.driver
_INVALID_CONTEXT = 201  # CUDA_ERROR_INVALID_CONTEXT
#: the driver's cuLaunchKernel with C-typed arguments (CuPy's binding), for the hottest
#: launch: a call that raises goes to :func:`driver_launch` (which makes a context
#: current where the thread has none)
raw_launch: Any = _driver.launchKernel


def driver_launch(*args: Any) -> None:
    """cuLaunchKernel; a thread that has not made a CUDA context current yet (a worker
    thread whose first GPU call is this launch) gets the current device's primary
    context, as the runtime API gives it implicitly, and the launch is tried again."""
    try:
        raw_launch(*args)
    except _driver.CUDADriverError as exc:
        if exc.status != _INVALID_CONTEXT:
            raise
        cupy.cuda.runtime.setDevice(cupy.cuda.runtime.getDevice())
        raw_launch(*args)


@cache
def launch_address() -> int:
    """The address of the driver's ``cuLaunchKernel`` (the library CuPy loaded), for
    compiled callers; 0 where it is not found."""
    try:
        lib = ctypes.CDLL("nvcuda.dll" if os.name == "nt" else "libcuda.so.1")
        return ctypes.cast(lib.cuLaunchKernel, ctypes.c_void_p).value or 0
    except (OSError, AttributeError):
        return 0


_current_stream: Any = cupy.cuda.stream.get_current_stream
#: the current stream's handle (CuPy's Python API has no direct getter: its Stream's
#: ``ptr``, an int)
stream_ptr: Any = getattr(cupy.cuda.stream, "get_current_stream_ptr", None) or (
    lambda: _current_stream().ptr)
_cache: dict[tuple, Any] = {}
_packers: dict[str, Any] = {}


#: bytes of one launch's parameters: 8-byte slots, and the elementwise engine's strided
#: layout (a struct that starts at its slot and runs on) for up to eight axes
ARG_BYTES = 1024

#: element size -> the unsigned C type that moves an element of that size (kernels that
#: only move bytes share one kernel per size; 16 bytes: two 8-byte words)
WORDS = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long long",
         16: "ulonglong2"}


class _Slots(threading.local):
    """ARG_BYTES of 8-byte argument slots (``slots``, at address ``base``) and the array
    of their addresses (at ``pp``), per thread: parameter i at byte 8 * i."""

    def __init__(self) -> None:
        n = ARG_BYTES // 8
        self.slots = (ctypes.c_uint64 * n)()
        self.base = base = ctypes.addressof(self.slots)
        self.params = (ctypes.c_void_p * n)(*[base + 8 * i for i in range(n)])
        self.pp = ctypes.addressof(self.params)
        self.t = (self.slots, self.pp)


#: the calling thread's argument slots (``t``: the slots and the address of their
#: pointer array); cuLaunchKernel copies the arguments before it returns
SLOTS = _Slots()


@cache
def _sm_count(dev: int) -> int:
    return int(cupy.cuda.runtime.getDeviceProperties(dev)["multiProcessorCount"])


def sm_count() -> int:
    """The number of multiprocessors of the current device (asked once a device)."""
    return _sm_count(cupy.cuda.runtime.getDevice())


def cub_options() -> tuple[str, ...] | None:
    """Include options for CUB's headers from the CCCL copy CuPy ships (NVRTC compiles
    CUB's block-level primitives from them; CUB includes Thrust's and libcu++'s), or
    None where that copy is missing."""
    base = Path(cupy.__file__).parent / "_core" / "include" / "cupy" / "_cccl"
    dirs = (base / "cub", base / "thrust", base / "libcudacxx")
    if not all(d.is_dir() for d in dirs):
        return None
    return tuple(f"-I{d}" for d in dirs)


class CompileError(Exception):
    """NVRTC refused a source: ``args[0]`` is its log."""


def _cubin(source: str, options: tuple[str, ...]) -> bytes:
    """NVRTC's CUBIN of ``source`` (the log in a :class:`CompileError` where it fails)."""
    from cupy_backends.cuda.libs import nvrtc

    prog = nvrtc.createProgram(source, "k.cu", (), ())
    try:
        try:
            nvrtc.compileProgram(prog, options)
        except nvrtc.NVRTCError:
            raise CompileError(nvrtc.getProgramLog(prog)) from None
        return bytes(nvrtc.getCUBIN(prog))
    finally:
        nvrtc.destroyProgram(prog)


def module(source: str, extra: tuple[str, ...] = ()) -> Any:
    """CuPy's ``Module`` of ``source`` compiled for the current device with
    :data:`OPTIONS` and ``extra``; the CUBIN is kept on disk (``USMARRAY_CUDA_CACHE_DIR``,
    by default ``~/.cache/usmarray/cuda``) under a hash of everything it depends on."""
    from cupy.cuda import function
    from cupy_backends.cuda.libs import nvrtc

    cc = cupy.cuda.Device().compute_capability
    options = (*OPTIONS, *extra, f"--gpu-architecture=sm_{cc}")
    key = repr((source, options, nvrtc.getVersion())).encode()
    cache_dir = os.environ.get("USMARRAY_CUDA_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "usmarray", "cuda")
    path = os.path.join(cache_dir, hashlib.sha256(key).hexdigest() + ".cubin")
    try:
        with open(path, "rb") as fh:
            cubin = fh.read()
    except OSError:
        cubin = _cubin(source, options)
        try:  # a concurrent writer leaves either file whole: os.replace is atomic
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=os.path.dirname(path), delete=False) as tf:
                tf.write(cubin)
            os.replace(tf.name, path)
        except OSError:
            pass  # a read-only home: compile again next process
    mod = function.Module()
    mod.load(cubin)
    return mod


def compiled(source: str, name: str, multi_gpu: bool, extra: tuple[str, ...] = ()) -> Any:
    """The CuPy ``Function`` ``name`` of ``source`` (compiled with ``extra`` options
    too) on the current device."""
    key = (source, name, cupy.cuda.runtime.getDevice() if multi_gpu else 0)
    f = _cache.get(key)
    if f is None:
        f = _cache[key] = module(source, extra).get_function(name)
    return f


def cached(table: dict, key: Any, multi_gpu: bool, source: Any,
           extra: tuple[str, ...] = ()) -> Any:
    """The kernel ``k`` of ``source()`` for ``key``: from ``table`` on one GPU, else from
    :func:`compiled`'s per-device cache (a family keeps its own ``table``)."""
    f = None if multi_gpu else table.get(key)
    if f is None:
        f = compiled(source(), "k", multi_gpu, extra)
        if not multi_gpu:
            table[key] = f
    return f


class Family:
    """What every kernel family of the backend keeps: ``is_fast(raw)`` (plain device
    memory on the default queue, which its kernels take as it is), whether the machine
    has several GPUs, and the family's table of compiled kernels (:meth:`_cached`)."""

    def __init__(self, is_fast: Callable[[Any], bool], single_gpu: bool) -> None:
        self._is_fast = is_fast
        self._multi = not single_gpu
        self._fns: dict[Any, Any] = {}

    def _cached(self, key: Any, source: Callable[[], str], extra: tuple[str, ...] = ()) -> Any:
        """:func:`cached` in the family's table."""
        return cached(self._fns, key, self._multi, source, extra)


def grid_1d(n: int) -> tuple[int, int, int]:
    """The grid of a grid-stride loop over ``n`` elements in blocks of 256 threads: one
    block per 256 elements, at least 1 and at most 8192."""
    return (max(1, min(-(-n // 256), 8 * 1024)), 1, 1)


def launch(f: Any, grid: tuple[int, int, int], block: tuple[int, int, int], fmt: str,
           *args: Any, shared: int = 0, stream: int | None = None) -> None:
    """Launch ``f`` on ``stream`` (a handle; CuPy's current stream where None) with
    ``args`` packed as ``fmt`` says."""
    pack = _packers.get(fmt)
    if pack is None:
        pack = _packers[fmt] = struct.Struct("<" + fmt).pack_into
    t = SLOTS
    pack(t.slots, 0, *args)
    driver_launch(f.ptr, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared,
                   stream_ptr() if stream is None else stream, t.pp, 0)


__all__ = ["OPTIONS", "SLOTS", "WORDS", "CompileError", "Family", "cached", "compiled", "cub_options", "driver_launch", "grid_1d",
           "launch_address", "raw_launch",
           "launch", "module", "sm_count", "stream_ptr"]
