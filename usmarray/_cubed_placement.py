"""Where cubed's chunks go: the placement policy of :mod:`usmarray.cubed`.

cubed runs each task in a worker thread (its ``threads`` executor, a Dask worker's
thread pool) or a worker process, and every chunk a task touches is made by the backend
namespace's ``asarray`` (chunks read from Zarr, in-memory inputs) or a creation function
(virtual ``empty``/``full``/``arange`` inputs).  The policy decides the device of those
arrays; every other operation follows its inputs (compute follows data).

Policy (read from the environment at first use in each process, so that worker
processes started later inherit it; :func:`configure` sets both):

- ``USMARRAY_CUBED_DEVICES``: empty or ``default``: every chunk on usmarray's default
  device (``USMARRAY_DEFAULT_DEVICE`` etc.).  Otherwise a comma-separated list of
  devices, each a filter string ``Device.create_device`` takes (``cpu``, ``gpu:1``,
  ``cuda:0``, ``numpy``...) or ``<filter>/<n>``: the SYCL device split into ``n``
  sub-devices of equal compute units (``cpu/2``).  Each device gets one in-order
  queue per process (out-of-order queues waited on from several threads hang the
  OpenCL CPU runtime: docs/guarantees.md, V18).
- Assignment: *sticky round-robin per worker thread*.  The k-th thread of a process
  that asks gets device ``(rank + k) % n``, and keeps it for every task it runs, so a
  task's chunks share a device and each device serves the same number of threads.
  ``rank`` is ``USMARRAY_CUBED_RANK`` when set, else the Dask worker's name when it is
  an integer (a ``LocalCluster`` numbers its workers 0, 1, ...), else 0: with one
  thread per worker process, process p gets device p mod n.
- ``USMARRAY_CUBED_USM_TYPE``: ``auto`` (the default) allocates chunks with the first
  USM kind of the device's backend whose arrays NumPy can read (``np.asarray``, which
  cubed uses to write chunks to Zarr, is refused for memory the host cannot access):
  ``device`` on a CPU device, ``shared`` on a GPU; once a device store
  (:mod:`usmarray._cubed_store`) is in use in the process, the device's own memory
  (``device``), since cubed's chunk writes then copy to the host explicitly.  Or
  ``device``/``shared``/``host``.
- ``USMARRAY_CUBED_POOL_BYTES``: the most bytes of idle chunk memory a process keeps for
  reuse (default 256 MiB; 0 switches reuse off).  Chunks read from Zarr (``asarray`` of a
  NumPy array) are copied into the memory of a dead chunk of the same size where the
  backend pools it (the SYCL backend, host-accessible memory): fresh USM allocations of
  the OpenCL CPU runtime page-fault on every copy.  Idle blocks are not any task's
  memory: count this bound in cubed's ``reserved_mem``.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
import threading
from typing import Any

import numpy as np

from ._cubed_store import installed
from ._env import env_int

ENV_DEVICES = "USMARRAY_CUBED_DEVICES"
ENV_USM_TYPE = "USMARRAY_CUBED_USM_TYPE"
ENV_RANK = "USMARRAY_CUBED_RANK"
ENV_POOL = "USMARRAY_CUBED_POOL_BYTES"
POOL_DEFAULT = 256 << 20
USM_TYPES = ("device", "shared", "host")


def parse_devices(spec: str) -> list[tuple[str, int]]:
    """``"cpu/2, cuda:0"`` -> ``[("cpu", 2), ("cuda:0", 0)]`` (0: the device itself);
    ``""`` and ``"default"`` -> ``[]``.  ValueError for a malformed item."""
    spec = spec.strip()
    if spec in ("", "default"):
        return []
    out: list[tuple[str, int]] = []
    for item in spec.split(","):
        item = item.strip()
        name, sep, count = item.partition("/")
        if not name or (sep and not count.isdigit()) or (sep and int(count) < 1):
            raise ValueError(
                f"{ENV_DEVICES}: {item!r} is not a device; write a filter string "
                "('cpu', 'cuda:0') or '<filter>/<n>' for n SYCL sub-devices ('cpu/2'), "
                "comma-separated"
            )
        out.append((name.strip(), int(count) if sep else 0))
    return out


def _devices(name: str, parts: int) -> list[Any]:
    """The Devices of one ``USMARRAY_CUBED_DEVICES`` item: each with an in-order queue
    of its own where the backend makes them (``in_order_queues``, SYCL), else the device
    itself; ``parts`` > 0 asks for that many sub-devices."""
    import usmarray

    d = usmarray.Device.create_device(name)
    make = getattr(d._be, "in_order_queues", None)
    if make is None:
        if parts:
            raise ValueError(
                f"{ENV_DEVICES}: '{name}/{parts}' asks for sub-devices, which the "
                f"{d.backend!r} backend does not make; list its devices instead"
            )
        return [d]
    try:
        return [usmarray.Device._make(d._be, q) for q in make(d._q, parts)]
    except ValueError as exc:
        raise ValueError(f"{ENV_DEVICES}: '{name}/{parts}': {exc}") from None


def resolve_devices(spec: str) -> list[Any]:
    """The Devices ``spec`` (the ``USMARRAY_CUBED_DEVICES`` grammar) names; [] for default."""
    out: list[Any] = []
    for name, n in parse_devices(spec):
        out.extend(_devices(name, n))
    return out


def host_readable_usm_type(device: Any) -> str:
    """The first USM kind on ``device`` whose arrays ``np.asarray`` reads."""
    import usmarray

    for ut in USM_TYPES:
        try:
            probe = usmarray.empty((1,), dtype=usmarray.uint8, device=device, usm_type=ut)
        except ValueError:  # this backend has no such kind
            continue
        try:
            np.asarray(probe)
        except TypeError:  # memory the host cannot read: __array__ refuses it
            continue
        return ut
    raise ValueError(
        f"no USM kind on {device!r} is readable from the host; cubed needs host access "
        "to write chunks to Zarr"
    )


def _rank() -> int:
    env = env_int(ENV_RANK)
    if env is not None:
        return env
    if "distributed" in sys.modules:
        with contextlib.suppress(Exception):  # not inside a Dask worker
            name = sys.modules["distributed"].get_worker().name
            if isinstance(name, int):
                return name
            if isinstance(name, str) and name.isdigit():
                return int(name)
    return 0


class Placement:
    """The policy of one process: its devices, the USM kind, and the thread assignment."""

    def __init__(self, devices: list[Any], usm_type: str, pool_bytes: int = POOL_DEFAULT) -> None:
        if usm_type not in ("auto", *USM_TYPES):
            raise ValueError(
                f"{ENV_USM_TYPE}={usm_type!r}; use 'auto', 'device', 'shared' or 'host'"
            )
        self.devices = list(devices)
        self.usm_type = usm_type
        #: the most bytes of idle chunk memory kept for reuse (0: none)
        self.pool_bytes = pool_bytes
        self._counter = itertools.count()
        self._local = threading.local()
        self._usm_by_device: dict[Any, str] = {}
        self._lock = threading.Lock()

    def device(self) -> Any:
        """This thread's device (None: usmarray's default device)."""
        if not self.devices:
            return None
        d = getattr(self._local, "device", None)
        if d is None:
            k = next(self._counter)
            d = self.devices[(_rank() + k) % len(self.devices)]
            self._local.device = d
        return d

    def usm_type_for(self, device: Any) -> str | None:
        """The USM kind of new chunks on ``device`` (None: the backend's default).
        ``auto``: the device's first kind (its memory) once a device store is in use
        (cubed then copies a chunk for Zarr explicitly), else the first one NumPy reads."""
        if self.usm_type != "auto":
            return self.usm_type
        import usmarray

        d = device if device is not None else usmarray.Device.create_device(None)
        if installed():
            return str(d._be.usm_types[0])
        ut = self._usm_by_device.get(d)
        if ut is None:
            ut = host_readable_usm_type(d)
            with self._lock:
                self._usm_by_device[d] = ut
        return ut


def _pool_bytes_from_env() -> int:
    n = env_int(ENV_POOL)
    return POOL_DEFAULT if n is None else n


_policy: Placement | None = None
_policy_lock = threading.Lock()


def policy() -> Placement:
    """This process' policy, made from the environment on first use."""
    global _policy
    p = _policy
    if p is None:
        with _policy_lock:
            if _policy is None:
                _policy = Placement(
                    resolve_devices(os.environ.get(ENV_DEVICES, "")),
                    os.environ.get(ENV_USM_TYPE, "auto").strip() or "auto",
                    _pool_bytes_from_env(),
                )
            p = _policy
    return p


def configure(devices: str | list[Any] | None = None, usm_type: str = "auto",
              pool_bytes: int | None = None) -> Placement:
    """Set this process' policy and export it to the environment, so worker processes
    started afterwards (a Dask ``LocalCluster``, cubed's ``processes`` executor) use
    the same one.  ``devices``: None or "default", a ``USMARRAY_CUBED_DEVICES`` string,
    or a list of Devices (this process only: Devices do not cross processes).
    ``pool_bytes``: ``USMARRAY_CUBED_POOL_BYTES`` (None: the environment's, else the
    default)."""
    if pool_bytes is None:
        pool_bytes = _pool_bytes_from_env()
    elif type(pool_bytes) is not int or pool_bytes < 0:
        raise ValueError(f"configure: pool_bytes={pool_bytes!r}; give a byte count >= 0")
    global _policy
    if isinstance(devices, list):
        resolved, spec = list(devices), None
    else:
        spec = devices or "default"
        resolved = resolve_devices(spec)
    p = Placement(resolved, usm_type, pool_bytes)
    with _policy_lock:
        _policy = p
    if spec is not None:
        os.environ[ENV_DEVICES] = spec
    os.environ[ENV_USM_TYPE] = usm_type
    os.environ[ENV_POOL] = str(pool_bytes)
    # cubed pickles in-memory arrays into tasks: they unpickle onto the worker's own
    # device (this policy's default), not the device they came from
    os.environ["USMARRAY_UNPICKLE_DEVICE"] = "default"
    return p
