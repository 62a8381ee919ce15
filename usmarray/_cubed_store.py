"""cubed's intermediate store on the devices: :func:`device_store`.

cubed (0.27, 0.28) keeps every array that one task writes and a later task reads in a
Zarr store (``Spec(work_dir=...)`` or ``Spec(intermediate_store=...)``): a task's result
is converted to NumPy (``np.asarray``), encoded and written; a reader decodes it and
copies it back onto its device.  On a GPU that round trip through host memory is the
plan's cost.  A :class:`DeviceStore` given as ``intermediate_store`` keeps each chunk
as the ``usm_ndarray`` the task made, on its device: a reader on the same device gets
that array (no copy), a reader on another device a copy by ``to_device`` (peer to peer
between GPUs that reach each other).

Bounds.  Each device holds at most ``device_bytes`` of stored chunks
(``USMARRAY_CUBED_STORE_BYTES``, default :data:`STORE_BYTES_DEFAULT`); a chunk written
past that is copied to host memory, which holds at most ``host_bytes``
(``USMARRAY_CUBED_STORE_HOST_BYTES``, default :data:`STORE_HOST_BYTES_DEFAULT`); past
both, the chunk goes to a ``.npy`` file in ``spill_dir`` (a temporary directory made
at the first such chunk and removed with the store).  A spilled chunk is read back
onto the reader's device.  When a computation ends, each array it stored that no
running computation uses is dropped (an array it computed once read whole: the result
``compute()`` returns); after a computation that failed, its arrays stay until
:meth:`DeviceStore.clear` or until cubed's arrays that name them are collected.

What the store changes in cubed, once per process, at the first :func:`device_store`
(:func:`install`; :func:`uninstall` undoes it): its lazy Zarr arrays open as
:class:`DeviceArray` when their store is a :class:`DeviceStore`; a task's result goes
to a device array as it is and to a Zarr array through an explicit host copy
(``usmarray.asnumpy``), so chunks may live in memory the host cannot read; each task
runs in a task scope (:func:`usmarray._cubed_optimize.task_scope`) in which it reads
each chunk once and computes an array its fused readers share once; a task's block
number (the ``block_id`` of ``arange``, ``linspace``...) is a 0-D NumPy array, not
one on the device that the task reads back; plans whose intermediates go to a
device store are optimized by :func:`usmarray._cubed_optimize.optimize` unless
``compute`` names another function;
a cubed callback frees each computation's arrays; and where Dask is installed, its
tokenizer raises the store's refusal for an array kept in a device store.

A device store lives in one process: cubed's multi-process executors (``processes``,
Dask, Lithops...) pickle every task, and pickling a store raises TypeError saying to
give ``Spec`` a ``work_dir`` on storage every worker reads instead.
"""

from __future__ import annotations

import itertools
import math
import shutil
import tempfile
import threading
import warnings
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ._env import env_int

ENV_STORE_BYTES = "USMARRAY_CUBED_STORE_BYTES"
ENV_STORE_HOST_BYTES = "USMARRAY_CUBED_STORE_HOST_BYTES"
#: per device: room for a plan's stored arrays beside its tasks' own chunks (threads x
#: ``allowed_mem``) on a 16 GB device; raise it on a larger one
STORE_BYTES_DEFAULT = 4 << 30
#: host memory for chunks past the devices' bound before they go to disk: a quarter of
#: a 64 GB host
STORE_HOST_BYTES_DEFAULT = 16 << 30


def _bound(value: int | None, env: str, default: int, what: str) -> int:
    if value is None:
        got = env_int(env)
        return default if got is None else got
    if type(value) is not int or value < 0:
        raise ValueError(f"device_store: {what}={value!r}; give a byte count >= 0 (0: none "
                         f"there), or None for {env} or its default {default}")
    return value


class _Spilled:
    """A chunk in a ``.npy`` file of the store's spill directory."""

    __slots__ = ("path", "nbytes")

    def __init__(self, path: Path, nbytes: int) -> None:
        self.path = path
        self.nbytes = nbytes


#: the adapter namespace (``usmarray.cubed``: NumPy dtypes in, the policy's device), bound
#: by the adapter when it is imported (it sits above this module)
_adapter: Any = None


def bind_adapter(ns: Any) -> None:
    """Make ``ns`` the namespace the store makes chunks with."""
    global _adapter
    _adapter = ns


def _ns() -> Any:
    if _adapter is None:
        raise RuntimeError("usmarray's cubed device store needs the adapter: import "
                           "usmarray.cubed (CUBED_BACKEND_ARRAY_API_MODULE=usmarray.cubed)")
    return _adapter


def _usm() -> Any:
    import usmarray

    return usmarray.usm_ndarray


class DeviceStore:
    """cubed's ``intermediate_store`` keeping chunks as ``usm_ndarray`` arrays on their
    devices, within a byte bound per device, spilling to host memory and then to disk
    (module docstring).  Thread-safe; one process only (pickling raises TypeError).

    Parameters
    ----------
    device_bytes : int, optional
        The most bytes of chunks kept on each device; None: ``USMARRAY_CUBED_STORE_BYTES``
        or :data:`STORE_BYTES_DEFAULT`.
    host_bytes : int, optional
        The most bytes of spilled chunks kept in host memory; None:
        ``USMARRAY_CUBED_STORE_HOST_BYTES`` or :data:`STORE_HOST_BYTES_DEFAULT`.
    spill_dir : str or Path, optional
        Where chunks past both bounds go; None: a temporary directory, removed with the
        store.
    """

    def __init__(self, device_bytes: int | None = None, host_bytes: int | None = None,
                 spill_dir: str | Path | None = None) -> None:
        self.device_bytes = _bound(device_bytes, ENV_STORE_BYTES, STORE_BYTES_DEFAULT,
                                   "device_bytes")
        self.host_bytes = _bound(host_bytes, ENV_STORE_HOST_BYTES, STORE_HOST_BYTES_DEFAULT,
                                 "host_bytes")
        self._spill_root = Path(spill_dir) if spill_dir is not None else None
        self._spill_dir: Path | None = None
        self._arrays: dict[str, DeviceArray] = {}
        self._live: dict[str, int] = {}  # running computations that use the array
        self._owed: dict[str, int] = {}  # whole reads owed to computations that made it
        self._on_device: dict[Any, int] = {}
        self._on_host = 0
        self._on_disk = 0
        self._peak: dict[Any, int] = {}
        self._lock = threading.RLock()
        self._files = itertools.count()
        self._cleanup = weakref.finalize(self, _remove_tree, [None])

    def __repr__(self) -> str:
        return (f"usmarray.cubed.DeviceStore(device_bytes={self.device_bytes}, "
                f"host_bytes={self.host_bytes}, arrays={len(self._arrays)})")

    def __reduce__(self) -> Any:
        raise TypeError(
            "a usmarray.cubed.device_store keeps chunks in this process' device memory and "
            "cannot go to another process; with a multi-process executor (Dask, processes, "
            "...) give cubed.Spec a work_dir on storage every worker reads, and no "
            "intermediate_store"
        )

    # ---- what the store holds ------------------------------------------------------
    def usage(self) -> dict[str, Any]:
        """Bytes of chunks held now: ``{"devices": {Device: bytes}, "host": bytes,
        "disk": bytes}``."""
        with self._lock:
            return {"devices": {d: n for d, n in self._on_device.items() if n},
                    "host": self._on_host, "disk": self._on_disk}

    def peaks(self) -> dict[str, Any]:
        """The most bytes held at once since the store was made, in :meth:`usage`'s form
        (each device's, the host's and the disk's own high-water mark)."""
        with self._lock:
            p = self._peak
            return {"devices": {d: n for d, n in p.items() if d not in ("host", "disk")},
                    "host": p.get("host", 0), "disk": p.get("disk", 0)}

    def _count(self, where: Any, n: int) -> None:
        """Add ``n`` bytes held on ``where`` (a Device, "host" or "disk"); lock held."""
        if where == "host":
            now = self._on_host = self._on_host + n
        elif where == "disk":
            now = self._on_disk = self._on_disk + n
        else:
            now = self._on_device[where] = self._on_device.get(where, 0) + n
        if now > self._peak.get(where, 0):
            self._peak[where] = now

    def arrays(self) -> list[str]:
        """The names (cubed's array names) of the arrays held now."""
        with self._lock:
            return sorted(self._arrays)

    def held(self) -> dict[str, dict[str, int]]:
        """Per array held now, its chunks by where they are: ``{"device": n, "host": n,
        "disk": n}`` (a structured array counts each field's chunks)."""
        out = {}
        with self._lock:
            for name, a in self._arrays.items():
                n = {"device": 0, "host": 0, "disk": 0}
                for chunks in a._fields.values():
                    for e in chunks.values():
                        n["host" if isinstance(e, np.ndarray) else
                          "disk" if isinstance(e, _Spilled) else "device"] += 1
                out[name] = n
        return out

    def clear(self) -> None:
        """Drop every array (their chunks' memory is freed once no task holds them)."""
        with self._lock:
            for name in list(self._arrays):
                self.drop(name)

    def drop(self, name: str) -> None:
        """Drop the array ``name`` if held (a task reading it afterwards gets an error,
        not its fill value)."""
        with self._lock:
            a = self._arrays.pop(name, None)
            self._live.pop(name, None)
            self._owed.pop(name, None)
            if a is not None:
                a._dropped = True
                for chunks in a._fields.values():
                    for entry in chunks.values():
                        self._release(entry)
                    chunks.clear()

    # ---- the lifetime of arrays: the computations that use them --------------------
    def _begin(self, names: list[str]) -> None:
        with self._lock:
            for n in names:
                self._live[n] = self._live.get(n, 0) + 1

    def _end(self, names: list[str], outputs: set[str]) -> None:
        """A computation that used ``names`` ended: each array no running computation
        uses is dropped, unless it is one of the ``outputs``, which is dropped once read
        whole."""
        with self._lock:
            for n in names:
                self._live[n] = self._live.get(n, 1) - 1
                if n in outputs and n in self._arrays:
                    self._owed[n] = self._owed.get(n, 0) + 1
                self._maybe_drop(n)

    def _read_whole(self, name: str) -> None:
        with self._lock:
            if self._owed.get(name, 0) > 0:
                self._owed[name] -= 1
                self._maybe_drop(name)

    def _maybe_drop(self, name: str) -> None:
        if self._live.get(name, 0) <= 0 and self._owed.get(name, 0) <= 0:
            self.drop(name)

    # ---- cubed's side: open, create -------------------------------------------------
    def open_array(self, name: str, mode: str, shape: tuple[int, ...], dtype: Any,
                   chunks: Any) -> DeviceArray:
        """The array ``name``: made in modes ``w``, ``w-``, ``a`` (``w`` empties it), an
        existing one in ``r``/``r+`` (zarr's ArrayNotFoundError where there is none)."""
        dt = np.dtype(dtype)
        if isinstance(chunks, int):
            chunks = (chunks,)
        chunks = tuple(int(c) for c in chunks) if chunks is not None else tuple(shape)
        with self._lock:
            a = self._arrays.get(name)
            if a is not None and (a.shape != tuple(shape) or a.dtype != dt
                                  or a.chunks != chunks):
                self.drop(name)
                a = None
            if mode in ("r", "r+"):
                if a is None:
                    from zarr.errors import ArrayNotFoundError

                    raise ArrayNotFoundError(f"no array {name!r} in {self!r}")
                return a
            if a is not None and mode == "w":
                self.drop(name)
                a = None
            if a is None:
                a = self._arrays[name] = DeviceArray(self, name, tuple(shape), dt, chunks)
            return a

    # ---- chunks ----------------------------------------------------------------------
    def _put(self, array: DeviceArray, field: str | None, key: tuple[int, ...],
             value: Any) -> None:
        """Keep ``value`` (a usm_ndarray) as chunk ``key`` of ``array``'s ``field``: on
        its device within the bound, else a host copy within ``host_bytes``, else a
        file."""
        n = int(value.nbytes)
        dev = value.device
        chunks = array._fields[field]
        with self._lock:
            array._check_live()
            old = chunks.pop(key, None)
            if old is not None:
                self._release(old)
            if self._on_device.get(dev, 0) + n <= self.device_bytes:
                self._count(dev, n)
                chunks[key] = value
                return
            to_host = self._on_host + n <= self.host_bytes
            self._count("host" if to_host else "disk", n)
        import usmarray

        host = usmarray.asnumpy(value)
        if to_host:
            entry: Any = host
        else:
            path = self._spill_path()
            try:
                np.save(path, host, allow_pickle=False)
            except OSError as exc:
                path.unlink(missing_ok=True)
                with self._lock:
                    self._count("disk", -n)
                    on_disk = self._on_disk
                raise OSError(exc.errno, (
                    f"usmarray.cubed device store: could not write a chunk of {n} bytes "
                    f"to {path.parent} ({exc.strerror}) with {on_disk} bytes spilled there; "
                    "give device_store() a spill_dir with more room, or let the plan "
                    "store less: smaller chunks or a larger allowed_mem let a chain "
                    "fuse instead of being stored")) from exc
            entry = _Spilled(path, n)
        with self._lock:
            if array._dropped:  # dropped while this chunk was being copied
                self._release(entry)
                return
            old = chunks.pop(key, None)
            if old is not None:
                self._release(old)
            chunks[key] = entry

    def _release(self, entry: Any) -> None:
        if isinstance(entry, np.ndarray):
            self._count("host", -entry.nbytes)
        elif isinstance(entry, _Spilled):
            self._count("disk", -entry.nbytes)
            entry.path.unlink(missing_ok=True)
        else:
            self._count(entry.device, -int(entry.nbytes))

    def _spill_path(self) -> Path:
        with self._lock:
            if self._spill_dir is None:
                root = self._spill_root
                if root is not None:
                    root.mkdir(parents=True, exist_ok=True)
                self._spill_dir = Path(tempfile.mkdtemp(prefix="usmarray-cubed-spill-",
                                                        dir=root))
                warnings.warn(
                    f"usmarray.cubed device store: chunks now spill to disk in "
                    f"{self._spill_dir}: the bounds of {self.device_bytes} bytes a device "
                    f"and {self.host_bytes} bytes of host memory are full. A plan that "
                    "stores whole arrays often fuses instead with smaller chunks or a "
                    "larger allowed_mem; device_store(device_bytes=..., host_bytes=...) "
                    "raises the bounds", UserWarning, stacklevel=2)
                self._cleanup.detach()
                self._cleanup = weakref.finalize(self, _remove_tree, [self._spill_dir])
            return self._spill_dir / f"{next(self._files)}.npy"


def _remove_tree(paths: list[Path | None]) -> None:
    for p in paths:
        if p is not None:
            shutil.rmtree(p, ignore_errors=True)


def _region(sel: Any, shape: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """``(start, stop)`` per dimension of a basic selection of slices of step 1."""
    if sel is Ellipsis or sel == ():
        sel = ()
    if not isinstance(sel, tuple):
        sel = (sel,)
    if Ellipsis in sel:
        i = sel.index(Ellipsis)
        sel = sel[:i] + (slice(None),) * (len(shape) - len(sel) + 1) + sel[i + 1:]
    sel = sel + (slice(None),) * (len(shape) - len(sel))
    out = []
    for s, n in zip(sel, shape, strict=True):
        if not isinstance(s, slice) or s.step not in (None, 1):
            raise IndexError(f"a device store reads and writes slices of step 1, not {s!r}")
        start, stop, _ = s.indices(n)
        out.append((start, max(start, stop)))
    return tuple(out)


class DeviceArray:
    """One array of a :class:`DeviceStore`: the interface of a Zarr array that cubed's
    tasks use (``shape``, ``dtype``, ``chunks``, basic selections of slices), with
    ``usm_ndarray`` chunks; a structured dtype keeps one array of chunks per field and
    reads and writes dicts of fields, as cubed's Zarr groups do."""

    def __init__(self, store: DeviceStore, name: str, shape: tuple[int, ...], dtype: np.dtype,
                 chunks: tuple[int, ...]) -> None:
        self.store = store
        self.path = name
        self.shape = shape
        self.dtype = dtype
        self.chunks = chunks
        self._dropped = False
        names = dtype.names
        self._fields: dict[str | None, dict[tuple[int, ...], Any]] = (
            {f: {} for f in names} if names else {None: {}})

    def __repr__(self) -> str:
        return (f"usmarray.cubed.DeviceArray<{self.path}, shape={self.shape}, "
                f"dtype={self.dtype}, chunks={self.chunks}>")

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def _grid(self) -> tuple[int, ...]:
        return tuple(math.ceil(s / c) if c else 0 for s, c in zip(self.shape, self.chunks,
                                                                  strict=True))

    @property
    def nchunks(self) -> int:
        return math.prod(self._grid)

    @property
    def nchunks_initialized(self) -> int:
        """Chunks written (of the first field): cubed's ``resume`` reads it."""
        with self.store._lock:
            return len(next(iter(self._fields.values())))

    def _field_dtype(self, field: str | None) -> np.dtype:
        return self.dtype if field is None else self.dtype.fields[field][0]  # type: ignore[index]

    def _chunk_span(self, key: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
        return tuple((k * c, min((k + 1) * c, s))
                     for k, c, s in zip(key, self.chunks, self.shape, strict=True))

    def _keys(self, region: tuple[tuple[int, int], ...]) -> Iterator[tuple[int, ...]]:
        return itertools.product(*(range(a // c, -(-b // c)) if b > a else range(0)
                                   for (a, b), c in zip(region, self.chunks, strict=True)))

    def _exact(self, region: tuple[tuple[int, int], ...]) -> tuple[int, ...] | None:
        """The key of the chunk ``region`` covers exactly, or None."""
        key = tuple(a // c if c else 0 for (a, _), c in zip(region, self.chunks, strict=True))
        return key if self._chunk_span(key) == region else None

    # ---- reading -----------------------------------------------------------------------
    def __getitem__(self, sel: Any) -> Any:
        region = _region(sel, self.shape)
        out = {f: self._read(f, region) for f in self._fields}
        if all(b - a == n for (a, b), n in zip(region, self.shape, strict=True)):
            self.store._read_whole(self.path)  # a computed result: the caller has it now
        return out[None] if None in out else out

    def _check_live(self) -> None:
        if self._dropped:
            from zarr.errors import ArrayNotFoundError

            raise ArrayNotFoundError(
                f"{self!r} was dropped from its device store (its computation ended, or "
                "clear() was called); compute it again")

    def _read(self, field: str | None, region: tuple[tuple[int, int], ...]) -> Any:
        self._check_live()
        chunks = self._fields[field]
        key = self._exact(region)
        if key is not None:
            with self.store._lock:
                entry = chunks.get(key)
            if entry is not None:
                return _loaded(entry)
        ns = _ns()
        shape = tuple(b - a for a, b in region)
        out = ns.zeros(shape, dtype=self._field_dtype(field))
        for k in self._keys(region):
            with self.store._lock:
                entry = chunks.get(k)
            if entry is None:
                continue  # never written: zarr's fill value, 0
            span = self._chunk_span(k)
            lo = [max(a, c0) for (a, _), (c0, _) in zip(region, span, strict=True)]
            hi = [min(b, c1) for (_, b), (_, c1) in zip(region, span, strict=True)]
            piece = _loaded(entry)[tuple(slice(x - c0, y - c0) for x, y, (c0, _)
                                         in zip(lo, hi, span, strict=True))]
            out[tuple(slice(x - a, y - a) for x, y, (a, _) in zip(lo, hi, region, strict=True))] = (
                ns.asarray(piece))
        return out

    # ---- writing -----------------------------------------------------------------------
    def __setitem__(self, sel: Any, value: Any) -> None:
        if isinstance(value, dict):
            for f, v in value.items():
                self.set_basic_selection(sel, v, fields=f)
        else:
            self.set_basic_selection(sel, value)

    def set_basic_selection(self, sel: Any, value: Any, fields: str | None = None) -> None:
        """Write ``value`` (a usm_ndarray, or anything the adapter's ``asarray`` takes)
        into the selection of ``fields`` (None: the array itself)."""
        if fields not in self._fields:
            raise KeyError(f"{self!r} has no field {fields!r}")
        self._check_live()
        ns = _ns()
        region = _region(sel, self.shape)
        shape = tuple(b - a for a, b in region)
        if type(value) is not _usm():
            value = ns.asarray(value, dtype=self._field_dtype(fields))
        if tuple(value.shape) != shape:
            value = ns.broadcast_to(value, shape)
        chunks = self._fields[fields]
        for k in self._keys(region):
            span = self._chunk_span(k)
            lo = [max(a, c0) for (a, _), (c0, _) in zip(region, span, strict=True)]
            hi = [min(b, c1) for (_, b), (_, c1) in zip(region, span, strict=True)]
            piece = value[tuple(slice(x - a, y - a) for x, y, (a, _)
                                in zip(lo, hi, region, strict=True))]
            if tuple(zip(lo, hi, strict=True)) != span:  # part of a chunk: merge
                with self.store._lock:
                    old = chunks.get(k)
                whole = (ns.asarray(_loaded(old), copy=True) if old is not None else
                         ns.zeros(tuple(c1 - c0 for c0, c1 in span),
                                  dtype=self._field_dtype(fields), device=value.device))
                whole[tuple(slice(x - c0, y - c0) for x, y, (c0, _)
                            in zip(lo, hi, span, strict=True))] = piece
                piece = whole
            self.store._put(self, fields, k, piece)


def _loaded(entry: Any) -> Any:
    """A stored chunk as the reader gets it: a usm_ndarray as it is, a spilled one as the
    NumPy array cubed's reader then puts on its device."""
    if isinstance(entry, _Spilled):
        return np.load(entry.path, allow_pickle=False)
    return entry


# ---- cubed's side ----------------------------------------------------------------------
_installed = False
_install_lock = threading.Lock()


def installed() -> bool:
    """Whether :func:`install` ran in this process."""
    return _installed


def _device_target(proxy: Any) -> bool:
    """Whether a cubed write proxy's array lives in a DeviceStore."""
    return isinstance(getattr(proxy.array, "store", None), DeviceStore)


def _host_copy(v: Any) -> Any:
    """A task result for Zarr: NumPy's view of host-readable memory, else a copy."""
    if type(v) is not _usm():
        return v
    try:
        return np.asarray(v)
    except TypeError:  # memory the host cannot read
        import usmarray

        return usmarray.asnumpy(v)


def _for_host(result: Any) -> Any:
    if isinstance(result, dict):
        return {k: _host_copy(v) for k, v in result.items()}
    return _host_copy(result)


def _to_storage(arr: Any) -> Any:
    """cubed's ``backend_array_to_numpy_array`` in its task writer: a usm_ndarray stays
    one (results for Zarr were copied to the host before, by :func:`_results`)."""
    return arr if type(arr) is _usm() else np.asarray(arr)


def _results(inner: Callable[..., Any]) -> Callable[..., Any]:
    """cubed's ``get_results_in_different_scope`` with results bound for Zarr arrays
    copied to the host, and those for device arrays left as they are."""

    def get_results(out_coords: Any, *, config: Any) -> Any:
        from ._cubed_optimize import task_scope

        with task_scope():
            results = inner(out_coords, config=config)
        on_device = [_device_target(p) for p in config.writes_map.values()]
        if all(on_device):
            return results
        if isinstance(results, tuple):
            return tuple(r if d else _for_host(r)
                         for r, d in zip(results, on_device, strict=False))
        if isinstance(results, Iterator):
            return (r if d else _for_host(r) for r, d in zip(results, on_device, strict=False))
        return _for_host(results)

    return get_results


def _read_once(inner: Callable[..., Any]) -> Callable[..., Any]:
    """cubed's ``get_chunk``, reading each chunk once a task: within a task scope, a
    chunk several fused operations read is the same array for all."""

    def get_chunk(in_key: Any, config: Any) -> Any:
        from ._cubed_optimize import task_memo

        memo = task_memo()
        if memo is None:
            return inner(in_key, config)
        k = ("read", in_key.name, tuple(in_key.coords))
        if k not in memo:
            memo[k] = inner(in_key, config)
        return memo[k]

    return get_chunk


def _host_block_ids(inner: Callable[..., Any]) -> Callable[..., Any]:
    """cubed's ``get_chunk``, giving a task's block number as a 0-D NumPy array.  cubed
    numbers the blocks of a ``block_id`` function (``arange``, ``linspace``, ``eye``...)
    with a virtual offsets array, computes the number on the host, puts it on the chunks'
    device, and its wrapper of the function reads it back at once with ``int()``: a
    device-to-host read, which waits for the device, in every such task.  The number is
    no chunk (only that wrapper sees it), so it stays where it was computed."""
    from cubed.storage.virtual import VirtualOffsetsArray

    def get_chunk(in_key: Any, config: Any) -> Any:
        offsets = config.reads_map[in_key.name].array
        if type(offsets) is not VirtualOffsetsArray:
            return inner(in_key, config)
        coords = tuple(int(c) for c in in_key.coords)
        n = np.ravel_multi_index(coords, offsets.shape) if coords else 0
        return np.asarray(n, dtype=offsets.dtype)

    return get_chunk


def _lazy_open(inner: Callable[..., Any], mode: str | None) -> Callable[..., Any]:
    """``LazyZarrArray.create`` (mode None: its argument) or ``.open`` (``r+``): a
    :class:`DeviceArray` when the lazy array's store is a DeviceStore."""

    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        store = self.store
        if not isinstance(store, DeviceStore):
            return inner(self, *args, **kwargs)
        m = mode or (args[0] if args else kwargs.get("mode", "w-"))
        if getattr(self, "_usmarray_drop", None) is None:  # freed with the plan's array
            self._usmarray_drop = weakref.finalize(self, store.drop, self.path)
        return store.open_array(self.path, m, self.shape, self.dtype, self.chunks)

    return call


def _stores_of(dag: Any) -> Iterator[tuple[str, DeviceStore]]:
    """``(array name, store)`` of each array of ``dag`` kept in a DeviceStore."""
    for name, d in dag.nodes(data=True):
        targets = d.get("target")
        for t in targets if isinstance(targets, list) else [targets]:
            store = getattr(t, "store", None)
            if isinstance(store, DeviceStore):
                yield getattr(t, "path", None) or name, store


def _janitor() -> Any:
    """A cubed callback: when a computation ends, each array it kept in a device store
    that no running computation uses is dropped, its results once read whole."""
    from cubed.runtime.types import Callback

    class Janitor(Callback):
        def __init__(self) -> None:
            self._running: dict[str, tuple[dict[DeviceStore, list[str]], set[str]]] = {}

        def on_compute_start(self, event: Any) -> None:
            by_store: dict[DeviceStore, list[str]] = {}
            for name, store in _stores_of(event.dag):
                by_store.setdefault(store, []).append(name)
            for store, names in by_store.items():
                store._begin(names)
            plan = getattr(event, "plan", None)
            self._running[event.compute_id] = (by_store, set(getattr(plan, "array_names", ())))

        def on_compute_end(self, event: Any) -> None:
            by_store, outputs = self._running.pop(event.compute_id, ({}, set()))
            for store, names in by_store.items():
                store._end(names, outputs)

    return Janitor()


def _default_optimizer(inner: Callable[..., Any]) -> Callable[..., Any]:
    """cubed's default optimizer, and usmarray's for plans that store into a device store."""

    def optimize_dag(dag: Any, *args: Any, **kwargs: Any) -> Any:
        if any(True for _ in _stores_of(dag)):
            from ._cubed_optimize import optimize

            return optimize(dag, *args, **kwargs)
        return inner(dag, *args, **kwargs)

    return optimize_dag


def _hooks() -> list[tuple[Any, str, Callable[[Any], Any]]]:
    """``(owner, name, wrap)``: each cubed function the store replaces, and how."""
    import cubed.core.plan as plan
    import cubed.primitive.blockwise as bw
    import cubed.storage.zarr as cz

    return [(bw, "get_results_in_different_scope", _results),
            (bw, "backend_array_to_numpy_array", lambda _: _to_storage),
            (bw, "get_chunk", lambda f: _read_once(_host_block_ids(f))),
            (cz.LazyZarrArray, "create", lambda f: _lazy_open(f, None)),
            (cz.LazyZarrArray, "open", lambda f: _lazy_open(f, "r+")),
            (plan, "multiple_inputs_optimize_dag", _default_optimizer)]


_saved: list[tuple[Any, str, Any]] = []


def _refuse_in_dask_tokens() -> Callable[[], None] | None:
    """Where Dask is installed, teach its tokenizer (which hashes every task before the
    Dask executor pickles it, and replaces a pickling error with a message of its own)
    to raise a device store's refusal for a cubed array kept in one; returns the undo."""
    try:
        from dask.tokenize import normalize_object, normalize_token
    except ImportError:
        return None
    from cubed.storage.zarr import LazyZarrArray

    def tokenize(a: Any) -> Any:
        if isinstance(a.store, DeviceStore):
            a.store.__reduce__()  # raises TypeError, saying why and what to do
        return normalize_object(a)

    normalize_token.register(LazyZarrArray)(tokenize)
    return lambda: normalize_token._lookup.pop(LazyZarrArray, None)


def install() -> None:
    """Teach this process' cubed the device store (module docstring), once.  ImportError
    naming what is missing when cubed lacks the functions it hooks (cubed 0.27 and 0.28
    have them)."""
    global _installed
    with _install_lock:
        if _installed:
            return
        import cubed
        from cubed.runtime.types import Callback

        hooks = _hooks()
        missing = [f"{getattr(o, '__name__', o)}.{n}" for o, n, _ in hooks if not hasattr(o, n)]
        if missing:
            raise ImportError(
                f"usmarray.cubed.device_store hooks {', '.join(missing)}, which cubed "
                f"{cubed.__version__} lacks; use cubed 0.27 or 0.28, or a work_dir store")
        for owner, name, wrap in hooks:
            old = getattr(owner, name)
            _saved.append((owner, name, old))
            setattr(owner, name, wrap(old))
        janitor = _janitor()
        Callback.active.add(janitor)
        _saved.append((Callback.active, "", janitor))
        undo = _refuse_in_dask_tokens()
        if undo is not None:
            _saved.append((None, "", undo))
        _installed = True


def uninstall() -> None:
    """Give cubed back the functions :func:`install` replaced (tests; stores made
    before stop working)."""
    global _installed
    with _install_lock:
        while _saved:
            owner, name, old = _saved.pop()
            if name:
                setattr(owner, name, old)
            elif owner is None:
                old()
            else:
                owner.discard(old)
        _installed = False


def device_store(device_bytes: int | None = None, host_bytes: int | None = None,
                 spill_dir: str | Path | None = None) -> DeviceStore:
    """A :class:`DeviceStore` for ``cubed.Spec(intermediate_store=...)``: chunks that
    one task writes and a later task reads stay ``usm_ndarray`` arrays on their devices,
    within ``device_bytes`` per device, then ``host_bytes`` of host memory, then files
    in ``spill_dir``.  Installs the store's hooks into cubed (:func:`install`); with the
    threads or single-threaded executor only (a store cannot go to another process)."""
    store = DeviceStore(device_bytes, host_bytes, spill_dir)
    install()
    return store
