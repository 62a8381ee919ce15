"""GPU ops matrix: every op family of the array API standard on one GPU,
usmarray against CuPy and PyTorch called the way backend-agnostic code calls them.

``python -m benchmarks.gpu_matrix [--quick] [--only SUBSTRING] [--small-only | --large-only]
[--out DIR]``; ``--merge JSON...`` joins runs

usmarray is called directly (``import usmarray as xp``, arrays on ``cuda:0``); CuPy and
PyTorch through ``array_api_compat.array_namespace`` of one of their arrays (that is
``array_api_compat.cupy`` and ``array_api_compat.torch``).  All of them run in one
process on one GPU, interleaved per op (the order rotates from trial to trial), and
usmarray is measured a second time as an independent entry ("usm A/A") for the noise.

* **large**: the sizes of the table (``--quick``: about 1/16 of the elements).  The
  time of one trial is CUDA events around ``reps`` back-to-back calls after a
  warm-up call (``_events_time`` / ``_torch_time`` of ``benchmarks/gpu.py``); ``reps``
  is chosen so that a trial of the fastest entry lasts about 20 ms (capped so that the
  slowest entry's trial stays under 0.25 s, and the op's trials under a budget);
  the figure is the median over trials.
* **small**: the same ops on tiny inputs (about 100 elements, 8x8 matrices): host
  time per call with no synchronization inside the loop (trials interleaved, median),
  i.e. the per-call overhead a user sees.

Ratios are peer time / usmarray time (> 1: usmarray faster): "best" takes the fastest
peer, and "A/A" is usm A/A / usm.  A call that raises records its error in that cell
and the run goes on.  scikit-learn estimators fitted on each library's GPU arrays are
``python -m benchmarks.gpu_sklearn --out DIR`` (its ``gpu_sklearn.json`` joins a
matrix through ``--merge``).

Writes ``gpu_matrix.json``, ``gpu_matrix.txt`` and ``gpu_matrix.png`` into ``--out``
(default ``build/benchmarks/<date>-gpu-matrix``).  ``--cpu-smoke`` (hidden) runs the
same table at tiny sizes on the host, usmarray on its NumPy device against NumPy
(through array_api_compat) and array-api-strict, with wall-clock timing: it exercises
the table, the outputs and the error handling without a GPU.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import gc
import json
import math
import os
import platform
import statistics
import sys
import tempfile
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # before anything imports scipy (gpu_sklearn)

import numpy as np  # noqa: E402

from ._paths import run_dir  # noqa: E402
from ._report import fmt_time  # noqa: E402

Fn = Callable[[], Any]
Builder = Callable[["Kit", tuple[int, ...]], Fn]
BELOW = 0.92  # ops whose best-peer ratio is under this are listed at the bottom


# ---------------------------------------------------------------- host data and kits


class HostData:
    """NumPy inputs, made once and shared by every library of an op (so each library
    computes on the same values) and by later ops of the run that ask for the same
    data; ``get`` is deterministic in its arguments.  ``trim`` forgets everything once
    more than ``max_bytes`` are held."""

    def __init__(self, seed: int = 0, max_bytes: int = 2 << 30) -> None:
        self.seed, self.max_bytes = seed, max_bytes
        self._memo: dict[tuple[Any, ...], np.ndarray] = {}

    def get(self, kind: str, shape: tuple[int, ...], dtype: str, tag: int = 0,
            hi: int = 1000) -> np.ndarray:
        """An array of ``kind`` (a key of ``_MAKERS``), ``shape`` and ``dtype``; ``tag``
        tells apart inputs of the same kind, ``hi`` bounds ``ints``."""
        key = (kind, tuple(shape), dtype, tag, hi)
        if key not in self._memo:
            rng = np.random.default_rng([self.seed, zlib.crc32(repr(key).encode())])
            self._memo[key] = _MAKERS[kind](rng, tuple(shape), dtype, hi)
        return self._memo[key]

    def clear(self) -> None:
        self._memo.clear()

    def trim(self) -> None:
        if sum(a.nbytes for a in self._memo.values()) > self.max_bytes:
            self.clear()


def _normal(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    if np.dtype(dtype).kind == "c":
        re = rng.standard_normal(shape, dtype=np.float32)
        return (re + 1j * rng.standard_normal(shape, dtype=np.float32)).astype(dtype)
    return rng.standard_normal(shape, dtype=np.float32).astype(dtype, copy=False)


def _square(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return rng.standard_normal(shape, dtype=np.float32)


_MAKERS: dict[str, Callable[[np.random.Generator, tuple[int, ...], str, int], np.ndarray]] = {
    "randn": lambda r, s, d, hi: _normal(r, s, d),
    "pos": lambda r, s, d, hi: r.uniform(0.5, 1.5, s).astype(d),
    "near1": lambda r, s, d, hi: (1 + 1e-3 * r.standard_normal(s)).astype(d),
    "bool": lambda r, s, d, hi: r.random(s, dtype=np.float32) < 0.5,
    "sparse": lambda r, s, d, hi: np.where(r.random(s, dtype=np.float32) < 0.5, 0,
                                           r.standard_normal(s, dtype=np.float32)).astype(d),
    "ints": lambda r, s, d, hi: r.integers(0, hi, s).astype(d),
    "sorted": lambda r, s, d, hi: np.sort(_normal(r, s, d)),
    # square matrices over the last two axes: symmetric positive definite, well
    # conditioned (solve, inv, det: finite), symmetric (eigh)
    "spd": lambda r, s, d, hi: _spd(_square(r, s)).astype(d),
    "wellcond": lambda r, s, d, hi: (np.eye(s[-1], dtype=np.float32)
                                     + _square(r, s) * (0.5 / math.sqrt(s[-1]))).astype(d),
    "sym": lambda r, s, d, hi: _sym(_square(r, s)).astype(d),
}


def _spd(a: np.ndarray) -> np.ndarray:
    n = a.shape[-1]
    return a @ np.swapaxes(a, -1, -2) / n + np.eye(n, dtype=a.dtype)


def _sym(a: np.ndarray) -> np.ndarray:
    return (a + np.swapaxes(a, -1, -2)) / 2


@dataclass
class Kit:
    """What a builder gets for one library: its namespace ``ns``, the device its
    arrays go to, and the op's shared host data."""

    ns: Any
    device: Any
    host: HostData

    def fn(self, dotted: str) -> Any:
        """The namespace's function ``dotted`` (``"sum"``, ``"linalg.svd"``)."""
        obj = self.ns
        for part in dotted.split("."):
            obj = getattr(obj, part)
        return obj

    def dtype(self, name: str) -> Any:
        return getattr(self.ns, name)

    def put(self, h: Any) -> Any:
        """A copy of ``h`` (NumPy array) as an array of this library on its device (a
        copy, so that no library writes into the shared host data)."""
        return self.ns.asarray(h, device=self.device, copy=True)

    def data(self, kind: str, shape: tuple[int, ...], dtype: str = "float32", tag: int = 0,
             hi: int = 1000) -> Any:
        return self.put(self.host.get(kind, shape, dtype, tag, hi))


# ---------------------------------------------------------------- builders


def arr(kind: str = "randn", dtype: str = "float32", shape: Callable[[tuple[int, ...]], tuple[int, ...]] | None = None,
        tag: int = 0, hi: int = 1000) -> Callable[[Kit, tuple[int, ...]], Any]:
    """Input spec: an array of ``kind`` data whose shape is the op's shape, or
    ``shape(op shape)``."""
    return lambda k, s: k.data(kind, tuple(shape(s)) if shape else s, dtype, tag, hi)


def call(fname: str, *inputs: Any, **kwargs: Any) -> Builder:
    """Builder: ``ns.<fname>(*inputs, **kwargs)`` (``fname`` may be dotted); an input
    that is an input spec (callable, see ``arr``) becomes an array, any other value is
    passed as it is (``repeat(x, 4)``)."""
    def build(k: Kit, s: tuple[int, ...]) -> Fn:
        f = k.fn(fname)
        xs = [spec(k, s) if callable(spec) else spec for spec in inputs]
        return lambda: f(*xs, **kwargs)
    return build


def create(fname: str, *args: Any) -> Builder:
    """Builder: ``ns.<fname>(shape-derived args, *args, dtype=float32, device=...)``:
    zeros/ones/empty/full take the shape, arange/linspace/eye its first axis."""
    def build(k: Kit, s: tuple[int, ...]) -> Fn:
        f, kw = k.fn(fname), {"dtype": k.dtype("float32"), "device": k.device}
        if fname in ("arange", "eye"):
            return lambda: f(s[0], *args, **kw)
        if fname == "linspace":
            return lambda: f(0.0, 1.0, s[0], **kw)
        return lambda: f(s, *args, **kw)
    return build


def build_setitem(k: Kit, s: tuple[int, ...]) -> Fn:
    """``x[idx] = v`` with an int64 index array of n/4 positions (duplicates allowed)."""
    x = k.data("randn", s)
    idx = k.data("ints", (s[0] // 4,), "int64", hi=s[0])
    v = k.data("randn", (s[0] // 4,), tag=1)

    def f() -> None:
        x[idx] = v
    return f


def build_mask(k: Kit, s: tuple[int, ...]) -> Fn:
    """``x[m]`` with a random boolean mask (about half True)."""
    x, m = k.data("randn", s), k.data("bool", s, "bool")
    return lambda: x[m]


def build_noncontig_add(k: Kit, s: tuple[int, ...]) -> Fn:
    """``x[:, ::2] + y[:, ::2]``: strided operands (the views are made outside the call)."""
    x, y = k.data("randn", s)[:, ::2], k.data("randn", s, tag=1)[:, ::2]
    return lambda: x + y


def build_transpose_copy(k: Kit, s: tuple[int, ...]) -> Fn:
    """``asarray(permute_dims(x, (1, 0)), copy=True)``: a copy of the transposed view
    (a library may keep the transposed layout, order "K": then it is a plain copy)."""
    x, ns = k.data("randn", s), k.ns
    return lambda: ns.asarray(ns.permute_dims(x, (1, 0)), copy=True)


def build_transpose_reshape(k: Kit, s: tuple[int, ...]) -> Fn:
    """``reshape(permute_dims(x, (1, 0)), (-1,))``: the transpose materialized in C order."""
    x, ns = k.data("randn", s), k.ns
    return lambda: ns.reshape(ns.permute_dims(x, (1, 0)), (-1,))


def build_broadcast_copy(k: Kit, s: tuple[int, ...]) -> Fn:
    """``asarray(broadcast_to(expand_dims(v, axis=0), s), copy=True)`` for v of shape (s[1],)."""
    v, ns = k.data("randn", (s[1],)), k.ns
    return lambda: ns.asarray(ns.broadcast_to(ns.expand_dims(v, axis=0), s), copy=True)


def build_join(fname: str, axis: int) -> Builder:
    """Builder: ``ns.<fname>([a, b, c, d], axis=axis)`` of four distinct arrays of the op's shape."""
    def build(k: Kit, s: tuple[int, ...]) -> Fn:
        f = k.fn(fname)
        xs = [k.data("randn", s, tag=t) for t in range(4)]
        return lambda: f(xs, axis=axis)
    return build


def build_asarray_list(k: Kit, s: tuple[int, ...]) -> Fn:
    """``asarray(list of s[0] Python floats, dtype=float32)`` onto the device."""
    lst = k.host.get("randn", s, "float64").tolist()
    ns, dt, dev = k.ns, k.dtype("float32"), k.device
    return lambda: ns.asarray(lst, dtype=dt, device=dev)


def build_astype(src: str, dst: str) -> Builder:
    def build(k: Kit, s: tuple[int, ...]) -> Fn:
        x = k.data("ints" if "int" in src else "randn", s, src)
        f, dt = k.fn("astype"), k.dtype(dst)
        return lambda: f(x, dt)
    return build


def build_solve(k: Kit, s: tuple[int, ...]) -> Fn:
    """``linalg.solve(a, b)``: a well-conditioned (n, n), b of shape (n, 16)."""
    a, b = k.data("wellcond", s), k.data("randn", (s[0], 16), tag=1)
    f = k.fn("linalg.solve")
    return lambda: f(a, b)


def build_irfft(k: Kit, s: tuple[int, ...]) -> Fn:
    """``fft.irfft(X)`` of X with s[0] // 2 + 1 complex64 values (output length s[0])."""
    x = k.data("randn", (s[0] // 2 + 1,), "complex64")
    f = k.fn("fft.irfft")
    return lambda: f(x, n=s[0])


def _quarter(s: tuple[int, ...]) -> tuple[int, ...]:
    return (max(1, s[0] // 4),)


def _last(s: tuple[int, ...]) -> tuple[int, ...]:
    return (s[-1],)


def _column(s: tuple[int, ...]) -> tuple[int, ...]:
    """(..., n) -> (..., 1): a keepdims reduction over the last axis."""
    return (*s[:-1], 1)


def _swap(s: tuple[int, ...]) -> tuple[int, ...]:
    """(n, k1, k2) -> (k1, k2, n): the right operand of tensordot(axes=2)."""
    return (*s[1:], s[0])


# ---------------------------------------------------------------- the table


@dataclass(frozen=True)
class Op:
    """One entry of the matrix: ``build(kit, shape)`` makes the inputs for one library
    and returns the zero-argument callable that is timed.  ``large``/``small`` are the
    shapes of the two size classes; ``scale=False`` keeps ``large`` under ``--quick``."""

    name: str
    family: str
    build: Builder
    large: tuple[int, ...]
    small: tuple[int, ...]
    scale: bool = True


TALL, WIDE, CUBE = (200_000, 128), (128, 200_000), (256, 256, 256)
N24, N22, SQ, HALF = (1 << 24,), (1 << 22,), (4096, 4096), (2048, 2048)
S1, S2, S3, S2W, M8 = (100,), (10, 10), (4, 5, 5), (5, 20), (8, 8)
AXES_3D: tuple[int | tuple[int, int], ...] = (0, 1, 2, (0, 1), (1, 2), (0, 2))


def _reductions() -> list[Op]:
    """sum/mean/max/min/prod over every axis layout the brief names."""
    ops = []
    for f in ("sum", "mean", "max", "min", "prod"):
        data = arr("near1") if f == "prod" else arr()
        ops += [Op(f"{f} all", "reduction", call(f, data), TALL, S2),
                Op(f"{f} axis=0", "reduction", call(f, data, axis=0), TALL, S2),
                Op(f"{f} axis=-1", "reduction", call(f, data, axis=-1), TALL, S2),
                Op(f"{f} axis=1 wide", "reduction", call(f, data, axis=1), WIDE, S2W)]
        ops += [Op(f"{f} 3-D axis={str(ax).replace(' ', '')}", "reduction", call(f, data, axis=ax), CUBE, S3)
                for ax in AXES_3D]
    return ops


def _statistics() -> list[Op]:
    """keepdims, var/std, argmax/argmin, any/all, count_nonzero, norms."""
    x, b = arr(), arr("bool", "bool")
    return [
        Op("sum axis=-1 keepdims", "reduction", call("sum", x, axis=-1, keepdims=True), TALL, S2),
        *(Op(f"{f} axis={a}", "reduction", call(f, x, axis=a), TALL, S2)
          for f in ("var", "std") for a in (0, 1)),
        Op("argmax all", "reduction", call("argmax", x), N24, S1),
        Op("argmin all", "reduction", call("argmin", x), N24, S1),
        Op("argmax axis=-1", "reduction", call("argmax", x, axis=-1), TALL, S2),
        Op("argmin axis=0", "reduction", call("argmin", x, axis=0), TALL, S2),
        Op("any", "reduction", call("any", b), N24, S1),
        Op("all", "reduction", call("all", b), N24, S1),
        Op("count_nonzero", "reduction", call("count_nonzero", arr("sparse")), N24, S1),
        Op("linalg.vector_norm axis=1", "reduction", call("linalg.vector_norm", x, axis=1), TALL, S2),
        Op("linalg.matrix_norm fro batched", "reduction",
           call("linalg.matrix_norm", x, ord="fro"), (4096, 64, 64), (2, 8, 8)),
    ]


def _scans_sorting_indexing() -> list[Op]:
    x = arr()
    return [
        Op("cumulative_sum", "scan", call("cumulative_sum", x), N24, S1),
        Op("cumulative_sum axis=1", "scan", call("cumulative_sum", x, axis=1), SQ, S2),
        Op("sort", "sort", call("sort", x), N24, S1),
        Op("argsort", "sort", call("argsort", x), N24, S1),
        Op("sort axis=-1 2-D", "sort", call("sort", x, axis=-1), SQ, S2),
        Op("unique_values ints<1000", "sort", call("unique_values", arr("ints", "int64")), N22, S1),
        Op("where(c, x, y[N]) broadcast", "indexing",
           call("where", arr("bool", "bool"), x, arr(shape=_last, tag=1)), SQ, S2),
        Op("nonzero bool", "indexing", call("nonzero", arr("bool", "bool")), N24, S1),
        Op("x[bool mask]", "indexing", build_mask, N24, S1),
        Op("take n/4 of n", "indexing", call("take", x, _take_index(), axis=0), N24, S1),
        Op("take_along_axis axis=1", "indexing",
           call("take_along_axis", x, _along_index(), axis=1), SQ, S2),
        Op("searchsorted n into n/4", "indexing",
           call("searchsorted", arr("sorted", shape=_quarter, tag=1), x), N22, S1),
        Op("x[int idx] = v (setitem)", "indexing", build_setitem, N24, S1),
    ]


def _take_index() -> Callable[[Kit, tuple[int, ...]], Any]:
    """n/4 int64 positions in [0, n) for an op of shape (n,)."""
    return lambda k, s: k.data("ints", _quarter(s), "int64", tag=1, hi=s[0])


def _along_index() -> Callable[[Kit, tuple[int, ...]], Any]:
    """int64 positions in [0, s[1]) of the op's shape (take_along_axis along axis 1)."""
    return lambda k, s: k.data("ints", s, "int64", tag=1, hi=s[1])


def _manipulation_creation() -> list[Op]:
    x = arr()
    return [
        Op("concat 4 axis=0", "manipulation", build_join("concat", 0), HALF, S2),
        Op("concat 4 axis=1", "manipulation", build_join("concat", 1), HALF, S2),
        Op("stack 4", "manipulation", build_join("stack", 0), HALF, S2),
        Op("permute_dims+asarray(copy=True)", "manipulation", build_transpose_copy, HALF, S2),
        Op("permute_dims+reshape(-1) (C order)", "manipulation", build_transpose_reshape, HALF, S2),
        Op("flip", "manipulation", call("flip", x), N24, S1),
        Op("roll shift=1234", "manipulation", call("roll", x, shift=1234), N24, S1),
        Op("repeat 4", "manipulation", call("repeat", x, 4), N22, S1),
        Op("tile (4, 1)", "manipulation", call("tile", x, (4, 1)), (1024, 4096), (3, 10)),
        Op("expand_dims+broadcast_to copy", "manipulation", build_broadcast_copy, SQ, S2),
        Op("reshape (view)", "manipulation", call("reshape", x, (-1,)), SQ, S2),
        *(Op(f, "creation", create(f), N24, S1) for f in ("zeros", "ones", "empty")),
        Op("full", "creation", create("full", 1.5), N24, S1),
        Op("arange", "creation", create("arange"), N24, S1),
        Op("linspace", "creation", create("linspace"), N24, S1),
        Op("eye", "creation", create("eye"), SQ, S2),
        Op("asarray(list of floats)", "creation", build_asarray_list, (1000,), S1, scale=False),
    ]


def _elementwise_matmul() -> list[Op]:
    x, y = arr(), arr(tag=1)
    return [
        Op("add (M,N)+(N,)", "elementwise", call("add", x, arr(shape=_last, tag=1)), SQ, S2),
        Op("subtract (M,N)-(M,1)", "elementwise",
           call("subtract", x, arr(shape=_column, tag=1)), SQ, S2),
        Op("add x[:, ::2]+y[:, ::2]", "elementwise", build_noncontig_add, SQ, S2),
        Op("exp", "elementwise", call("exp", x), N24, S1),
        Op("clip(-0.5, 0.5)", "elementwise", call("clip", x, min=-0.5, max=0.5), N24, S1),
        Op("astype f32->f64", "elementwise", build_astype("float32", "float64"), N24, S1),
        Op("astype i32->f32", "elementwise", build_astype("int32", "float32"), N24, S1),
        Op("pow", "elementwise", call("pow", arr("pos"), y), N24, S1),
        Op("logical_and", "elementwise",
           call("logical_and", arr("bool", "bool"), arr("bool", "bool", tag=1)), N24, S1),
        Op("logical_not", "elementwise", call("logical_not", arr("bool", "bool")), N24, S1),
        Op("matmul batched", "matmul", call("matmul", x, y), (64, 256, 256), (2, 8, 8)),
        Op("matmul square", "matmul", call("matmul", x, y), SQ, M8),
        Op("tensordot axes=2", "matmul",
           call("tensordot", x, arr(shape=_swap, tag=1), axes=2), (1024, 64, 64), (8, 4, 4)),
        Op("vecdot", "matmul", call("vecdot", x, y), TALL, S2),
    ]


def _linalg_fft() -> list[Op]:
    x, la = arr(), "linalg"
    c = arr("randn", "complex64")
    return [
        Op("cholesky", la, call("linalg.cholesky", arr("spd")), HALF, M8),
        Op("qr", la, call("linalg.qr", x), HALF, M8),
        Op("svd tall", la, call("linalg.svd", x, full_matrices=False), TALL, (16, 8)),
        Op("svd wide", la, call("linalg.svd", x, full_matrices=False), WIDE, (8, 16)),
        Op("svd square", la, call("linalg.svd", x, full_matrices=False), (1024, 1024), M8),
        Op("eigh", la, call("linalg.eigh", arr("sym")), (1024, 1024), M8),
        Op("solve (n,n),(n,16)", la, build_solve, HALF, M8),
        Op("inv", la, call("linalg.inv", arr("wellcond")), HALF, M8),
        Op("det", la, call("linalg.det", arr("wellcond")), HALF, M8),
        Op("slogdet", la, call("linalg.slogdet", arr("wellcond")), HALF, M8),
        Op("pinv", la, call("linalg.pinv", x), (1024, 1024), M8),
        Op("fft c64", "fft", call("fft.fft", c), N22, S1),
        Op("ifft c64", "fft", call("fft.ifft", c), N22, S1),
        Op("rfft f32", "fft", call("fft.rfft", x), N22, S1),
        Op("irfft -> f32", "fft", build_irfft, N22, S1),
        Op("fft2 (fftn 2-D) c64", "fft", call("fft.fftn", c, axes=(0, 1)), HALF, S2),
        Op("fftn 3-D c64", "fft", call("fft.fftn", c), CUBE, S3),
    ]


def table() -> list[Op]:
    """Every op of the matrix, in family order."""
    return [*_reductions(), *_statistics(), *_scans_sorting_indexing(),
            *_manipulation_creation(), *_elementwise_matmul(), *_linalg_fft()]


def fit_shape(shape: tuple[int, ...], max_elements: int) -> tuple[int, ...]:
    """``shape`` with its largest axes halved (all axes of the largest length at once,
    so square stays square) until it has at most ``max_elements`` elements."""
    s = list(shape)
    while math.prod(s) > max_elements and max(s) > 1:
        top = max(s)
        s = [max(1, d // 2) if d == top else d for d in s]
    return tuple(s)


# ---------------------------------------------------------------- libraries and timing


@dataclass
class Lib:
    """One column: ``key`` names it, ``ns``/``device`` make its arrays, ``timer(fn, reps)``
    gives seconds per call of one large trial, ``sync()`` waits for its device work."""

    key: str
    ns: Any
    device: Any
    timer: Callable[[Fn, int], float]
    sync: Callable[[], None]
    peer: bool = True
    per_call: Callable[[Fn], Fn] | None = None  # wraps each built callable (a queue wait)


@dataclass
class Setup:
    """The libraries of a run and what describes the machine.  ``controls`` names the
    A/A ratios of a row (ratio name: (entry timed again, entry)); with ``require_peer``
    an op that no peer can build is not timed (its row says why)."""

    libs: list[Lib]
    meta: dict[str, Any]
    cleanup: Callable[[], None]
    timing: str
    sync_all: Callable[[], None] = lambda: None
    context: Callable[[], contextlib.AbstractContextManager[Any]] = contextlib.nullcontext
    controls: dict[str, tuple[str, str]] = field(
        default_factory=lambda: {"A/A": ("usm A/A", "usm")})
    require_peer: bool = False


def _wall_time(fn: Fn, reps: int) -> float:
    """Seconds per call of ``reps`` back-to-back calls after one warm-up call (host clock)."""
    fn()
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - t0) / reps


def _version(mod: Any) -> str:
    return str(getattr(mod, "__version__", "?"))


def _versions(**mods: Any) -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in ("numpy", "array_api_compat", "sklearn", "scipy"):
        with contextlib.suppress(Exception):
            out[name] = _version(__import__(name))
    out.update({k: _version(v) for k, v in mods.items() if v is not None})
    return out


def gpu_setup() -> Setup:
    """usmarray on cuda:0 and CuPy / PyTorch (where importable) through array_api_compat,
    timed with CUDA events (``benchmarks.gpu``'s timers)."""
    os.environ.setdefault("USMARRAY_DEFAULT_DEVICE", "cuda:0")
    import array_api_compat
    import cupy

    import usmarray as xp

    from .gpu import _events_time, _torch_time

    try:
        import torch
    except ImportError:
        torch = None

    def sync_all() -> None:
        cupy.cuda.Device().synchronize()
        if torch is not None:
            torch.cuda.synchronize()

    def ev(fn: Fn, reps: int) -> float:
        return _events_time(fn, reps, 1, sync_all)

    udev = xp.asarray(0.0, device="cuda:0").device
    libs = [Lib("usm", xp, udev, ev, sync_all, peer=False),
            Lib("cupy", array_api_compat.array_namespace(cupy.empty(1)), cupy.cuda.Device(0),
                ev, sync_all)]
    if torch is not None:
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.set_float32_matmul_precision("highest")
        tdev = torch.device("cuda:0")
        libs.append(Lib("torch", array_api_compat.array_namespace(torch.empty(1, device=tdev)),
                        tdev, lambda fn, reps: _torch_time(fn, reps, 1), sync_all))
    libs.append(Lib("usm A/A", xp, udev, ev, sync_all, peer=False))
    name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
    meta = {"gpu": name.decode() if isinstance(name, bytes) else str(name),
            "cuda_runtime": cupy.cuda.runtime.runtimeGetVersion(),
            "cuda_driver": cupy.cuda.runtime.driverGetVersion(),
            "usmarray_device": str(udev),
            "versions": _versions(usmarray=xp, cupy=cupy, torch=torch)}

    def cleanup() -> None:
        gc.collect()
        cupy.get_default_memory_pool().free_all_blocks()
        if torch is not None:
            torch.cuda.empty_cache()

    return Setup(libs, meta, cleanup, "cuda events", sync_all, lambda: xp.using_device(udev))


def cpu_setup() -> Setup:
    """The smoke run: usmarray on its NumPy device, NumPy through array_api_compat and
    array-api-strict (where importable) as the peers, wall-clock timing."""
    os.environ.setdefault("USMARRAY_DEFAULT_DEVICE", "numpy")
    import array_api_compat

    import usmarray as xp

    udev = xp.asarray(0.0, device="numpy").device
    nop: Callable[[], None] = lambda: None  # noqa: E731
    libs = [Lib("usm", xp, udev, _wall_time, nop, peer=False),
            Lib("numpy", array_api_compat.array_namespace(np.empty(1)), "cpu", _wall_time, nop)]
    strict = None
    with contextlib.suppress(ImportError):
        import array_api_strict as strict

        libs.append(Lib("strict", strict, strict.asarray(0.0).device, _wall_time, nop))
    libs.append(Lib("usm A/A", xp, udev, _wall_time, nop, peer=False))
    meta = {"gpu": "none (--cpu-smoke: host devices)", "usmarray_device": str(udev),
            "versions": _versions(usmarray=xp, array_api_strict=strict)}
    return Setup(libs, meta, collect, "wall clock", nop, lambda: xp.using_device(udev))


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """No garbage collection inside a timed loop (collected once before)."""
    was = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def error_text(exc: BaseException) -> str:
    """``Type: first line of the message`` (at most 300 characters)."""
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return (f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__)[:300]


def build_all(op: Op, shape: tuple[int, ...], libs: list[Lib], host: HostData
              ) -> tuple[dict[str, Fn], dict[str, str]]:
    """The timed callable of every library for ``op`` at ``shape`` (wrapped by the
    library's ``per_call``); a library whose builder raises gets an error instead."""
    fns: dict[str, Fn] = {}
    errors: dict[str, str] = {}
    for lib in libs:
        try:
            fn = op.build(Kit(lib.ns, lib.device, host), shape)
            fns[lib.key] = lib.per_call(fn) if lib.per_call is not None else fn
        except Exception as exc:  # noqa: BLE001 - the cell records it, the run goes on
            errors[lib.key] = "build: " + error_text(exc)
    return fns, errors


def _estimate(fn: Fn, sync: Callable[[], None], min_s: float = 0.005, cap: int = 256) -> float:
    """Seconds per call of ``fn`` (synchronized), from a burst long enough to trust."""
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        sync()
        el = time.perf_counter() - t0
        if el >= min_s or n >= cap:
            return max(el / n, 1e-7)
        n *= 4


def warm(fns: dict[str, Fn], sync: Callable[[], None], errors: dict[str, str]) -> dict[str, float]:
    """Warm every callable up (kernel compilation) and estimate its seconds per call;
    one that raises moves from ``fns`` to ``errors``."""
    est = {}
    for key in list(fns):
        try:
            fns[key]()
            sync()
            est[key] = _estimate(fns[key], sync)
        except Exception as exc:  # noqa: BLE001
            errors[key] = error_text(exc)
            del fns[key]
    return est


@dataclass(frozen=True)
class Config:
    """Trials and time targets of a run (see ``config``)."""

    trials: int = 7
    small_trials: int = 7
    target_trial_s: float = 0.02  # a large trial of the fastest entry lasts at least this
    max_trial_s: float = 0.25     # ... and one of the slowest entry at most this (reps >= 1)
    op_budget_s: float = 6.0      # trials shrink (to 3) so an op's timing fits this
    max_reps: int = 2000
    small_target_s: float = 0.003  # host time of one small trial of the fastest entry
    small_max_s: float = 0.05      # ... and at most this for the slowest
    max_elements: int | None = None  # cap on an op's elements (--quick, --cpu-smoke)
    shrink: int = 1                # divide large elements by this (--quick)
    time_limit_s: float = 480.0    # past this, the remaining ops are skipped


def config(quick: bool, smoke: bool, time_limit_s: float) -> Config:
    """Default, ``--quick`` (3 trials, 1/16 of the elements) or smoke (tiny sizes)."""
    c = Config(time_limit_s=time_limit_s)
    if quick or smoke:
        c = replace(c, trials=3, small_trials=3, shrink=16)
    if smoke:
        c = replace(c, max_elements=4096, target_trial_s=0.002, small_target_s=0.0005,
                    op_budget_s=0.5)
    return c


def op_shape(op: Op, size: str, cfg: Config) -> tuple[int, ...]:
    """The shape ``op`` runs at in size class ``size`` under ``cfg``."""
    if size == "small":
        return op.small
    shape = op.large
    if op.scale and cfg.shrink > 1:
        shape = fit_shape(shape, max(1, math.prod(shape) // cfg.shrink))
    if op.scale and cfg.max_elements is not None:
        shape = fit_shape(shape, cfg.max_elements)
    return shape


def plan(est: dict[str, float], cfg: Config) -> tuple[int, int]:
    """(reps, trials) of a large op from its entries' seconds per call: the fastest
    entry's trial lasts about ``target_trial_s``, the slowest one's at most
    ``max_trial_s`` (never below one call), and trials shrink (not below 3) so that the
    rounds fit ``op_budget_s`` (each trial also makes one warm-up call)."""
    fastest, slowest = min(est.values()), max(est.values())
    reps = min(cfg.max_reps, max(1, math.ceil(cfg.target_trial_s / fastest)))
    reps = max(1, min(reps, int(cfg.max_trial_s / slowest)))
    per_round = sum((reps + 1) * t for t in est.values())
    trials = min(cfg.trials, max(3, int(cfg.op_budget_s / per_round)))
    return reps, trials


def _rotations(keys: list[str], trials: int) -> Iterator[list[str]]:
    """The entry order of each trial: rotated every trial, reversed every other cycle."""
    for r in range(trials):
        k = r % len(keys)
        order = keys[k:] + keys[:k]
        yield order[::-1] if (r // len(keys)) % 2 else order


def time_large(fns: dict[str, Fn], libs: list[Lib], cfg: Config, sync: Callable[[], None],
               errors: dict[str, str]) -> dict[str, Any]:
    """Median seconds per call of every callable (each library's own timer), trials
    interleaved; an entry that raises mid-way keeps its error and drops out."""
    est = warm(fns, sync, errors)
    if not fns:
        return {"times": {}, "reps": 0, "trials": 0}
    reps, trials = plan(est, cfg)
    timers = {lib.key: lib.timer for lib in libs}
    samples: dict[str, list[float]] = {k: [] for k in fns}
    with _gc_paused():
        for order in _rotations(list(fns), trials):
            for key in order:
                if key not in fns:
                    continue
                try:
                    samples[key].append(timers[key](fns[key], reps))
                except Exception as exc:  # noqa: BLE001
                    errors[key] = error_text(exc)
                    del fns[key]
    times = {k: statistics.median(v) for k, v in samples.items() if v and k in fns}
    return {"times": times, "reps": reps, "trials": trials}


def time_small(fns: dict[str, Fn], cfg: Config, sync: Callable[[], None],
               errors: dict[str, str]) -> dict[str, Any]:
    """Median host seconds per call, ``calls`` calls per trial with no synchronization
    inside the loop (one after each trial), trials interleaved."""
    for key in list(fns):
        try:
            for _ in range(3):
                fns[key]()
        except Exception as exc:  # noqa: BLE001
            errors[key] = error_text(exc)
            del fns[key]
    sync()
    est = {k: _estimate(fn, lambda: None, min_s=0.0005, cap=64) for k, fn in fns.items()}
    sync()
    if not fns:
        return {"times": {}, "calls": 0, "trials": 0}
    calls = min(2000, max(5, round(cfg.small_target_s / min(est.values()))))
    calls = max(5, min(calls, int(cfg.small_max_s / max(est.values()))))
    samples: dict[str, list[float]] = {k: [] for k in fns}
    with _gc_paused():
        for order in _rotations(list(fns), cfg.small_trials):
            for key in order:
                if key not in fns:
                    continue
                fn = fns[key]
                try:
                    t0 = time.perf_counter()
                    for _ in range(calls):
                        fn()
                    samples[key].append((time.perf_counter() - t0) / calls)
                    sync()
                except Exception as exc:  # noqa: BLE001
                    errors[key] = error_text(exc)
                    del fns[key]
    times = {k: statistics.median(v) for k, v in samples.items() if v and k in fns}
    return {"times": times, "calls": calls, "trials": cfg.small_trials}


# ---------------------------------------------------------------- rows and ratios


def ratios(times: dict[str, float], peers: list[str],
           controls: dict[str, tuple[str, str]] | None = None) -> dict[str, float]:
    """peer / usm for each peer, ``best`` (fastest peer / usm) and each control ratio
    (name: (again, entry) gives again / entry; default ``A/A``: usm A/A / usm); NaN
    where a time is missing."""
    usm = times.get("usm", math.nan)
    out = {p: times.get(p, math.nan) / usm for p in peers}
    ok = [times[p] for p in peers if p in times]
    out["best"] = min(ok) / usm if ok else math.nan
    for name, (again, entry) in (controls or {"A/A": ("usm A/A", "usm")}).items():
        out[name] = times.get(again, math.nan) / times.get(entry, math.nan)
    return out


def run_op(op: Op, size: str, setup: Setup, cfg: Config, host: HostData) -> dict[str, Any]:
    """One row of the matrix: ``op`` at size class ``size`` for every library."""
    shape = op_shape(op, size, cfg)
    fns, errors = build_all(op, shape, setup.libs, host)
    host.trim()
    if setup.require_peer and not any(lib.peer and lib.key in fns for lib in setup.libs):
        fns.clear()
        why = next((errors[lib.key] for lib in setup.libs if lib.peer and lib.key in errors), "")
        return skipped_row(op, size, cfg, f"not timed, no peer has it: {why}"[:300])
    try:
        if size == "large":
            res = time_large(fns, setup.libs, cfg, setup.sync_all, errors)
        else:
            res = time_small(fns, cfg, setup.sync_all, errors)
    finally:
        fns.clear()
        setup.cleanup()
    peers = [lib.key for lib in setup.libs if lib.peer]
    return {"op": op.name, "family": op.family, "size": size, "shape": list(shape),
            "timing": setup.timing if size == "large" else "host per call, no sync",
            **{k: v for k, v in res.items() if k != "times"},
            "times_s": res["times"], "errors": errors,
            "ratios": ratios(res["times"], peers, setup.controls)}


def skipped_row(op: Op, size: str, cfg: Config, why: str) -> dict[str, Any]:
    """A row for an op that was not run (``why``)."""
    return {"op": op.name, "family": op.family, "size": size,
            "shape": list(op_shape(op, size, cfg)), "times_s": {}, "errors": {"all": why},
            "ratios": {"best": math.nan, "A/A": math.nan}}


def select(ops: list[Op], only: str | None, skip: str | None = None) -> list[Op]:
    """The ops whose name or family contains one of the comma-separated substrings of
    ``only`` (all without it) and none of ``skip``'s (case-insensitive)."""
    def hits(op: Op, spec: str) -> bool:
        words = [w.strip().lower() for w in spec.split(",") if w.strip()]
        return any(w in op.name.lower() or w in op.family.lower() for w in words)

    return [op for op in ops if (not only or hits(op, only)) and not (skip and hits(op, skip))]


def merge(paths: list[Path], out: Path, with_plot: bool) -> list[Path]:
    """One matrix from the ``gpu_matrix.json`` files of several runs on one kind of GPU
    (rows in order of the files; a later file's row replaces an earlier one of the same
    op and size class, so a re-measured family updates a whole matrix; the first file's
    description of the machine, every run named under ``merged_from``)."""
    docs = [json.loads(p.read_text()) for p in paths]
    gpus = {d["gpu"] for d in docs}
    if len(gpus) != 1:
        raise SystemExit(f"--merge: the runs are from different GPUs ({sorted(gpus)})")
    meta = {k: v for k, v in docs[0].items() if k not in ("columns", "peers", "below", "rows")}
    meta["merged_from"] = [{"argv": d.get("argv"), "date": d.get("date"),
                            "elapsed_s": d.get("elapsed_s")} for d in docs]
    by_key: dict[tuple[str, str], dict[str, Any]] = {}
    for d in docs:
        for r in d["rows"]:
            by_key[(r["op"], r["size"])] = r  # insertion order kept, later rows win
    rows = list(by_key.values())
    for r in rows:  # the files hold NaN as null
        for k in ("ratios", "times_s"):
            r[k] = {name: math.nan if v is None else v for name, v in r.get(k, {}).items()}
    return write_outputs(out, meta, rows, docs[0]["columns"], docs[0]["peers"], with_plot)


# ---------------------------------------------------------------- text, json, plot


def _fmt_ratio(r: float | None) -> str:
    return f"{r:.2f}" if r is not None and math.isfinite(r) else "-"


def geomean(values: list[float]) -> float:
    ok = [v for v in values if v is not None and math.isfinite(v) and v > 0]
    return math.exp(statistics.fmean(math.log(v) for v in ok)) if ok else math.nan


def table_text(rows: list[dict[str, Any]], keys: list[str], peers: list[str]) -> str:
    """One size class as a table grouped by family: times per library, then ratios
    (best, per peer, then the control ratios the rows hold, A/A first)."""
    ratio_cols = ["best", *peers, *control_names(rows)]
    head = (f"{'op':36} {'shape':>18} " + " ".join(f"{k:>10}" for k in keys) + "  "
            + " ".join(f"{c if c.endswith('A/A') else c + '/usm':>10}" for c in ratio_cols))
    lines = [head, "-" * len(head)]
    family = None
    for r in rows:
        if r["family"] != family:
            family = r["family"]
            lines.append(f"[{family}]")
        shape = "x".join(str(d) for d in r["shape"])
        lines.append(f"{r['op'][:36]:36} {shape:>18} "
                     + " ".join(f"{fmt_time(r['times_s'].get(k)):>10}" for k in keys) + "  "
                     + " ".join(f"{_fmt_ratio(r['ratios'].get(c)):>10}" for c in ratio_cols))
    return "\n".join(lines)


def control_names(rows: list[dict[str, Any]]) -> list[str]:
    """The control ratios the rows hold (names ending in ``A/A``), ``A/A`` first."""
    names = {k for r in rows for k in r["ratios"] if k.endswith("A/A")}
    return sorted(names, key=lambda k: (k != "A/A", k))


def summary_text(rows: list[dict[str, Any]], size: str, below_at: float = BELOW) -> str:
    """Geometric mean of best-peer ratios (and of each control ratio), the worst op and
    every op below ``below_at``."""
    rs = [r for r in rows if r["size"] == size and math.isfinite(r["ratios"].get("best", math.nan))]
    if not rs:
        return f"{size}: no op with a ratio"
    g = geomean([r["ratios"]["best"] for r in rs])
    aa = "; ".join(f"{c} geometric mean {geomean([r['ratios'].get(c, math.nan) for r in rs]):.3f}"
                   for c in control_names(rs))
    worst = min(rs, key=lambda r: r["ratios"]["best"])
    below = sorted((r for r in rs if r["ratios"]["best"] < below_at),
                   key=lambda r: r["ratios"]["best"])
    out = [f"{size}: geometric mean of best-peer/usm over {len(rs)} ops: {g:.3f} ({aa})",
           f"  worst: {worst['family']}/{worst['op']} {worst['ratios']['best']:.3f}",
           f"  below {below_at}: {len(below)} op(s)"]
    out += [f"    {r['family']}/{r['op']}: {r['ratios']['best']:.3f}" for r in below]
    return "\n".join(out)


def errors_text(rows: list[dict[str, Any]]) -> str:
    lines = [f"  [{r['size']}] {r['family']}/{r['op']} {lib}: {msg}"
             for r in rows for lib, msg in r["errors"].items()]
    return "\n".join([f"errors and n/a cells ({len(lines)}):", *lines]) if lines else "errors: none"


def header_text(meta: dict[str, Any]) -> str:
    v = ", ".join(f"{k} {val}" for k, val in meta["versions"].items())
    machine = meta.get("machine_line") or f"GPU: {meta['gpu']}"
    return (f"{meta.get('title', 'GPU ops matrix')} ({meta['mode']}), {meta['date']}\n{machine}; "
            f"usmarray device {meta['usmarray_device']}\n{v}\nratios: peer time / usmarray time (> 1: usmarray "
            f"faster); best = fastest peer; A/A = usmarray timed again / usmarray")


def report_text(meta: dict[str, Any], rows: list[dict[str, Any]], keys: list[str],
                peers: list[str], below_at: float = BELOW) -> str:
    parts = [header_text(meta)]
    for size, what in (("large", f"large: {meta['timing']}, median over trials of back-to-back "
                                  "calls"),
                       ("small", "small: host time per call, no synchronization in the loop"),
                       ("sklearn", "scikit-learn (array_api_dispatch=True): wall time of a fit "
                                   "with a synchronization, median")):
        rs = [r for r in rows if r["size"] == size]
        if rs:
            parts += ["", f"== {what} ==", table_text(rs, keys, peers)]
    parts += ["", "== summary =="]
    parts += [summary_text(rows, s, below_at) for s in ("large", "small", "sklearn")
              if any(r["size"] == s for r in rows)]
    parts += ["", errors_text(rows)]
    return "\n".join(parts)


def jsonable(obj: Any) -> Any:
    """``obj`` with NaN/inf as None, tuples as lists."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    return obj


def plot(rows: list[dict[str, Any]], path: Path, title: str, below_at: float = BELOW) -> bool:
    """Horizontal bars of log2(best-peer ratio) per op, one panel per size class, the
    A/A ratio as a tick; False when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    sizes = [s for s in ("large", "small", "sklearn") if any(r["size"] == s for r in rows)]
    if not sizes:
        return False
    n = max(sum(r["size"] == s for r in rows) for s in sizes)
    fig, axes = plt.subplots(1, len(sizes), figsize=(8 * len(sizes), max(4.0, 0.16 * n + 1.5)),
                             squeeze=False)
    for ax, size in zip(axes[0], sizes, strict=True):
        _plot_panel(ax, [r for r in rows if r["size"] == size], size, n, below_at)
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.6 / fig.get_figheight()))
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return True


def _log2(v: float | None) -> float:
    return math.log2(v) if v is not None and math.isfinite(v) and v > 0 else math.nan


def _plot_panel(ax: Any, rows: list[dict[str, Any]], size: str, slots: int,
                below_at: float = BELOW) -> None:
    """One size class: a bar per op (``slots`` rows tall, so panels share bar heights)."""
    best = [_log2(r["ratios"].get("best")) for r in rows]
    aa = [_log2(r["ratios"].get("A/A")) for r in rows]
    y = list(range(len(rows)))
    colors = ["lightgrey" if not math.isfinite(b) else "tab:green" if b >= 0 else "tab:red"
              for b in best]
    ax.barh(y, [b if math.isfinite(b) else 0.0 for b in best], color=colors)
    ax.plot(aa, y, "k|", markersize=6, label="A/A")
    ax.axvline(0, color="k", lw=0.8)
    ax.axvline(math.log2(below_at), color="tab:red", lw=0.8, ls=":", label=f"ratio {below_at}")
    ax.set_yticks(y, [f"{r['family'][:5]}: {r['op']}" for r in rows], fontsize=6)
    ax.set_ylim(slots - 0.5, -0.5)
    ax.set_xlabel("log2(best peer time / usmarray time)   (> 0: usmarray faster)")
    g = geomean([r["ratios"].get("best", math.nan) for r in rows])
    ax.set_title(f"{size}: {len(rows)} ops, geometric mean {g:.2f}")
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")


def write_outputs(out: Path, meta: dict[str, Any], rows: list[dict[str, Any]], keys: list[str],
                  peers: list[str], with_plot: bool, stem: str = "gpu_matrix",
                  below_at: float = BELOW) -> list[Path]:
    """Write ``<stem>.json`` and ``<stem>.txt`` (and ``<stem>.png``) into ``out``; ops
    under ``below_at`` are listed in the summary."""
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{stem}.json", out / f"{stem}.txt"]
    paths[0].write_text(json.dumps(jsonable({**meta, "columns": keys, "peers": peers,
                                             "below": below_at, "rows": rows}), indent=1))
    paths[1].write_text(report_text(meta, rows, keys, peers, below_at) + "\n")
    machine = meta.get("machine", meta.get("gpu"))
    if with_plot and plot(rows, out / f"{stem}.png",
                          f"usmarray vs {' / '.join(peers)}, {machine}", below_at):
        paths.append(out / f"{stem}.png")
    return paths


# ---------------------------------------------------------------- main


def add_selection_args(p: argparse.ArgumentParser) -> None:
    """``--only``/``--skip`` (ops, see ``select``) and ``--small-only``/``--large-only``
    (size classes, see ``sizes_of``)."""
    p.add_argument("--only", default=None,
                   help="ops whose name or family contains one of these comma-separated substrings")
    p.add_argument("--skip", default=None,
                   help="leave out ops whose name or family contains one of these substrings")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--small-only", action="store_true", help="only the small size class")
    g.add_argument("--large-only", action="store_true", help="only the large size class")


def sizes_of(args: argparse.Namespace) -> list[str]:
    """The size classes ``add_selection_args``'s flags ask for, large first."""
    return ["small"] if args.small_only else ["large"] if args.large_only else ["large", "small"]


def collect() -> None:
    """``gc.collect()`` as a cleanup (no return value)."""
    gc.collect()


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.gpu_matrix",
                                description="GPU ops matrix: usmarray vs CuPy and PyTorch "
                                            "(through array_api_compat) on one GPU.")
    p.add_argument("--quick", action="store_true", help="3 trials, about 1/16 of the elements")
    add_selection_args(p)
    p.add_argument("--merge", nargs="+", type=Path, default=None, metavar="JSON",
                   help="write one matrix into --out from the gpu_matrix.json of several runs")
    p.add_argument("--out", type=Path, default=None,
                   help="folder for gpu_matrix.json/.txt/.png "
                        "(default build/benchmarks/<date>-gpu-matrix)")
    p.add_argument("--time-limit", type=float, default=480.0,
                   help="seconds after which the remaining ops (and estimators) are skipped "
                        "(default 480)")
    p.add_argument("--no-plot", action="store_true", help="skip gpu_matrix.png")
    p.add_argument("--layouts", choices=("also", "only"), default=None,
                   help="the elementwise layout section (benchmarks.elementwise_layouts: every "
                        "layout class against CuPy and PyTorch, host time at 100 elements) "
                        "into elementwise_layouts.json: after the matrix, or alone")
    p.add_argument("--list", action="store_true", help="print the ops and their shapes, run nothing")
    p.add_argument("--cpu-smoke", action="store_true", help=argparse.SUPPRESS)
    return p.parse_args(argv)


def _default_out(smoke: bool, kind: str = "gpu") -> Path:
    """``<tmp>/<kind>_matrix_smoke`` for a smoke run, else
    ``build/benchmarks/<date>-<kind>-matrix`` (see ``benchmarks._paths``)."""
    if smoke:
        return Path(tempfile.gettempdir()) / f"{kind}_matrix_smoke"
    return run_dir(f"{kind}-matrix")


def _progress(i: int, n: int, row: dict[str, Any], t0: float) -> None:
    r, t = row["ratios"], row["times_s"]
    err = f" errors: {', '.join(sorted(row['errors']))}" if row["errors"] else ""
    print(f"[{i}/{n} {time.perf_counter() - t0:5.0f}s] {row['size']:5} {row['family']}/"
          f"{row['op']}: usm {fmt_time(t.get('usm'))} best/usm {_fmt_ratio(r.get('best'))} "
          f"A/A {_fmt_ratio(r.get('A/A'))}{err}", file=sys.stderr, flush=True)


def run_matrix(setup: Setup, cfg: Config, ops: list[Op], sizes: list[str], t0: float,
               checkpoint: Callable[[list[dict[str, Any]]], None]) -> list[dict[str, Any]]:
    """Every (size, op) row; past ``cfg.time_limit_s`` the rest are skipped rows."""
    rows: list[dict[str, Any]] = []
    host = HostData()
    jobs = [(size, op) for size in sizes for op in ops]
    for i, (size, op) in enumerate(jobs, 1):
        if time.perf_counter() - t0 > cfg.time_limit_s:
            rows.append(skipped_row(op, size, cfg, f"skipped (time limit {cfg.time_limit_s:.0f} s)"))
            continue
        try:
            row = run_op(op, size, setup, cfg, host)
        except Exception as exc:  # noqa: BLE001 - e.g. out of memory while building
            row = skipped_row(op, size, cfg, error_text(exc))
        rows.append(row)
        _progress(i, len(jobs), row, t0)
        checkpoint(rows)
    return rows


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    t0 = time.perf_counter()
    if args.merge:
        out = args.out or _default_out(False)
        paths = merge(args.merge, out, with_plot=not args.no_plot)
        print(Path(paths[1]).read_text())
        return 0
    if args.layouts == "only":
        _layouts(args)
        return 0
    cfg = config(args.quick, args.cpu_smoke, args.time_limit)
    ops = select(table(), args.only, args.skip)
    sizes = sizes_of(args)
    if args.list:
        for op in ops:
            print(f"{op.family:12} {op.name:36} " + "  ".join(
                f"{s} {'x'.join(map(str, op_shape(op, s, cfg)))}" for s in sizes))
        return 0
    setup = cpu_setup() if args.cpu_smoke else gpu_setup()
    mode = "cpu-smoke" if args.cpu_smoke else "quick" if args.quick else "default"
    meta = {**setup.meta, "mode": mode, "timing": setup.timing, "argv": list(argv or sys.argv[1:]),
            "date": _dt.datetime.now().isoformat(timespec="seconds"), "config": cfg.__dict__}
    keys = [lib.key for lib in setup.libs]
    peers = [lib.key for lib in setup.libs if lib.peer]
    out = args.out or _default_out(args.cpu_smoke)
    print(header_text(meta), flush=True)
    print(f"{len(ops)} ops x {len(sizes)} size class(es); writing into {out}", flush=True)

    def checkpoint(rows: list[dict[str, Any]]) -> None:
        write_outputs(out, {**meta, "partial": True}, rows, keys, peers, with_plot=False)

    with setup.context():
        rows = run_matrix(setup, cfg, ops, sizes, t0, checkpoint)
    meta["elapsed_s"] = round(time.perf_counter() - t0, 1)
    paths = write_outputs(out, meta, rows, keys, peers, with_plot=not args.no_plot)
    print(report_text(meta, rows, keys, peers), flush=True)
    print(f"\nwrote {', '.join(map(str, paths))} in {meta['elapsed_s']} s", flush=True)
    if args.layouts == "also":
        _layouts(args)
    return 0


def _layouts(args: argparse.Namespace) -> None:
    """Run the elementwise layout section and write elementwise_layouts.json into --out."""
    from . import elementwise_layouts

    res = elementwise_layouts.run(2**20 if args.quick else 2**24, 5 if args.quick else 15,
                                  20, host=True)
    out = args.out or _default_out(False)
    out.mkdir(parents=True, exist_ok=True)
    (out / "elementwise_layouts.json").write_text(json.dumps(res, indent=1))
    print(f"wrote {out / 'elementwise_layouts.json'}", flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
