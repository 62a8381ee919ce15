"""usmarray as cubed's chunk backend: ``CUBED_BACKEND_ARRAY_API_MODULE=usmarray.cubed``.

cubed (https://cubed-dev.github.io/cubed/) computes on arrays larger than memory by
splitting them into chunks kept in Zarr, and runs every chunk through a *backend*
array-API namespace.  This module is that namespace for usmarray: the chunks are
``usm_ndarray``s on a device, and all chunk math runs there.

Why not ``CUBED_BACKEND_ARRAY_API_MODULE=usmarray`` itself: cubed (0.27, 0.28) keeps
every array's dtype as a NumPy dtype (``cubed.utils.normalize_dtype`` is ``np.dtype``),
tests membership of that NumPy dtype in tuples of the backend's dtype objects
(``x.dtype in _numeric_dtypes``) and passes NumPy dtypes back to the backend
(``nxp.astype(chunk, np.dtype("float32"))``).  usmarray's strict dtypes equal only
themselves, so a NumPy dtype is neither equal to them nor accepted by them.  This module
is the adapter, outside the strict namespace:

- its dtype names are NumPy dtypes (``usmarray.cubed.float32 is np.dtype("float32")``),
  and every function accepts NumPy dtypes (and usmarray's) wherever a dtype goes in, and
  gives NumPy dtypes where one comes out (``result_type``, ``__array_namespace_info__``);
  the chunks themselves keep usmarray's dtypes (``chunk.dtype == usmarray.float32``);
- extras cubed calls that the standard lacks: ``nansum`` (used by ``cubed.nansum`` and
  ``cubed.nanmean``).  Every other name cubed calls is standard;
- placement: ``asarray`` and the creation functions put new chunks on the device of
  :mod:`usmarray._cubed_placement`'s policy (the default device, or a device per
  worker thread round-robin over several), in host-readable memory, because cubed writes
  chunks to Zarr with ``np.asarray(chunk)`` and usmarray's ``__array__`` refuses memory
  the host cannot read.  :func:`configure` sets the policy;
- intermediates on the devices: ``cubed.Spec(intermediate_store=device_store())`` keeps
  the chunks one task writes and another reads as ``usm_ndarray`` arrays on their devices
  (:mod:`usmarray._cubed_store`), and such plans are optimized by :func:`optimize`
  (:mod:`usmarray._cubed_optimize`), which runs a chain of chunk-wise operations and a
  reduction's first step as one task per chunk.

Everything else is usmarray's own function, unchanged: same strictness, same errors.
"""

from __future__ import annotations

import functools
import inspect
import sys
import types
import warnings
from typing import Any

import numpy as np

import usmarray as _xp

from . import _dtypes as _dt
from ._array import wrap_with
from ._cubed_optimize import optimize as optimize  # re-exported: the plan optimizer
from ._cubed_placement import configure as configure  # re-exported: the policy setter
from ._cubed_placement import policy
from ._cubed_store import DeviceStore as DeviceStore  # re-exported: the device store
from ._cubed_store import bind_adapter
from ._cubed_store import device_store as device_store
from ._placement import check_device_dtype
from ._serial import is_namespace_function, locked

__array_api_version__ = _xp.__array_api_version__

# A sub-device exists only in the process that partitioned its device, so an array that
# cubed pickles into a task from a sub-device (USMARRAY_CUBED_DEVICES="cpu/2") always
# unpickles elsewhere onto the receiving process' default device, where the placement
# policy then puts its chunks: the RuntimeWarning that fallback gives outside cubed is
# noise here, once per array.  Other devices still warn when they are missing.
warnings.filterwarnings(
    "ignore", message=r"unpickling an array or Device of sycl device 'sub-device of ",
    category=RuntimeWarning)

_NP_TO_DTYPE: dict[np.dtype, Any] = {d: p for d, p in _dt.PUBLIC.items()}


def _dtype_in(d: Any) -> Any:
    """usmarray's DType for a NumPy dtype (or anything ``np.dtype`` converts, except
    None); other objects unchanged, for usmarray to accept or refuse."""
    if d is None or type(d) is _dt.DType or isinstance(d, _xp.usm_ndarray):
        return d
    try:
        nd = np.dtype(d)
    except TypeError:
        return d
    return _NP_TO_DTYPE.get(nd, d)


def _dtype_out(d: Any) -> Any:
    return d.np if type(d) is _dt.DType else d


def _takes_dtype(f: Any) -> bool:
    try:
        return "dtype" in inspect.signature(f).parameters
    except (TypeError, ValueError):
        return False


def _with_dtype_kw(f: Any) -> Any:
    @functools.wraps(f)
    def call(*args: Any, **kwargs: Any) -> Any:
        if "dtype" in kwargs:
            kwargs["dtype"] = _dtype_in(kwargs["dtype"])
        return f(*args, **kwargs)

    return call


def _placed(f: Any) -> Any:
    """A creation function whose arrays land on the policy's device and USM kind."""

    @functools.wraps(f)
    def call(*args: Any, **kwargs: Any) -> Any:
        if "dtype" in kwargs:
            kwargs["dtype"] = _dtype_in(kwargs["dtype"])
        if kwargs.get("device") is None:
            p = policy()
            dev = p.device()
            if dev is not None:
                kwargs["device"] = dev
            if kwargs.get("usm_type") is None:
                kwargs["usm_type"] = p.usm_type_for(dev)
        return f(*args, **kwargs)

    return call


_CREATION = ("asarray", "arange", "empty", "eye", "full", "linspace", "ones", "zeros")


def _adapt(ns: dict[str, Any], source: Any) -> None:
    for name in dir(source):
        if name.startswith("_"):
            continue
        obj = getattr(source, name)
        if type(obj) is _dt.DType:
            ns[name] = obj.np
        elif is_namespace_function(obj) and _takes_dtype(obj):
            ns[name] = _placed(obj) if name in _CREATION else _with_dtype_kw(obj)
        elif name not in ns:
            ns[name] = obj


_adapt(globals(), _xp)
_asarray_placed = globals()["asarray"]


def asarray(obj: Any, /, *, dtype: Any = None, device: Any = None, copy: Any = None,
            **kwargs: Any) -> Any:
    """usmarray's ``asarray`` on the policy's device and USM kind.  A NumPy array (a
    chunk cubed read from Zarr) is copied into reused memory where the device's backend
    pools it (``USMARRAY_CUBED_POOL_BYTES``, :mod:`usmarray._cubed_placement`); the
    result is the same new array either way."""
    if (type(obj) is np.ndarray and device is None and copy is not False and not kwargs
            and (dtype is None or obj.dtype == _dtype_out(_dtype_in(dtype)))):
        out = _pooled_chunk(obj)
        if out is not None:
            return out
    return _asarray_placed(obj, dtype=dtype, device=device, copy=copy, **kwargs)


def _pooled_chunk(a: np.ndarray) -> Any:
    """``a`` copied onto the policy's device by the backend's ``chunk_from_host``; None
    where the policy pools nothing, the backend has no pool, or ``a`` is not a plain
    array of a standard dtype (the caller then takes usmarray's ``asarray``)."""
    p = policy()
    if p.pool_bytes <= 0 or a.size == 0 or not a.dtype.isnative or not _dt.is_np_standard(
            a.dtype):
        return None
    dev = p.device() or _xp.Device.create_device(None)
    be = dev._be
    take = getattr(be, "chunk_from_host", None)
    if take is None:
        return None
    check_device_dtype(_NP_TO_DTYPE[a.dtype].np, dev._q, "asarray")
    usm_type = p.usm_type_for(dev)
    with locked(be):
        return wrap_with(be, take(a, usm_type, dev._q, p.pool_bytes))


# ---- dtype arguments in positional places, and dtype results ----------------------
def astype(x: Any, dtype: Any, /, *, copy: bool = True, device: Any = None) -> Any:
    return _xp.astype(x, _dtype_in(dtype), copy=copy, device=device)


def can_cast(from_: Any, to: Any, /) -> bool:
    return _xp.can_cast(_dtype_in(from_), _dtype_in(to))


def isdtype(dtype: Any, kind: Any) -> bool:
    if isinstance(kind, tuple):
        kind = tuple(_dtype_in(k) if not isinstance(k, str) else k for k in kind)
    elif not isinstance(kind, str):
        kind = _dtype_in(kind)
    return _xp.isdtype(_dtype_in(dtype), kind)


def finfo(type: Any, /) -> Any:  # noqa: A002 - the standard's name
    return _xp.finfo(_dtype_in(type))


def iinfo(type: Any, /) -> Any:  # noqa: A002 - the standard's name
    return _xp.iinfo(_dtype_in(type))


def result_type(*arrays_and_dtypes: Any) -> np.dtype:
    return _dtype_out(_xp.result_type(*(_dtype_in(a) for a in arrays_and_dtypes)))


class _Info:
    """``__array_namespace_info__()`` with NumPy dtypes in its answers."""

    def __init__(self) -> None:
        self._info = _xp.__array_namespace_info__()

    def capabilities(self) -> dict[str, Any]:
        return self._info.capabilities()

    def default_device(self) -> Any:
        return self._info.default_device()

    def devices(self) -> list[Any]:
        return list(self._info.devices())

    def default_dtypes(self, *, device: Any = None) -> dict[str, np.dtype]:
        return {k: _dtype_out(v) for k, v in self._info.default_dtypes(device=device).items()}

    def dtypes(self, *, device: Any = None, kind: Any = None) -> dict[str, np.dtype]:
        return {
            k: _dtype_out(v) for k, v in self._info.dtypes(device=device, kind=kind).items()
        }


def __array_namespace_info__() -> _Info:  # noqa: N807 - the standard's name
    return _Info()


def _sub_namespace(name: str, source: Any) -> types.ModuleType:
    mod = types.ModuleType(f"{__name__}.{name}", source.__doc__)
    _adapt(vars(mod), source)
    return mod


linalg = _sub_namespace("linalg", _xp.linalg)
fft = _sub_namespace("fft", _xp.fft)


# ---- NumPy leniencies cubed's own chunk functions rely on -------------------------
# cubed's reductions divide a float64 total by an int64 count (``_mean_aggregate``),
# take the product of a shape tuple (``_numel``) and pass ``dtype=`` to ``mean``
# (``_var_func``): NumPy allows all three, the standard none.  The adapter allows them
# in these namespace functions only; the chunks' operators stay strict.
_MIXED_OK = (
    "add", "subtract", "multiply", "divide", "floor_divide", "remainder", "pow",
    "maximum", "minimum", "equal", "not_equal", "less", "less_equal", "greater",
    "greater_equal", "atan2", "hypot", "copysign", "logaddexp", "nextafter",
)


def _numpy_promoting(f: Any) -> Any:
    """Binary ``f`` promoting two arrays of different kinds as NumPy does (int64 with
    float64 -> float64), when NumPy's result is a standard dtype."""

    @functools.wraps(f)
    def call(x1: Any, x2: Any, /, *args: Any, **kwargs: Any) -> Any:
        t = _xp.usm_ndarray
        if type(x1) is t and type(x2) is t:
            d1, d2 = x1.dtype.np, x2.dtype.np
            if d1 is not d2 and (d1, d2) not in _dt.PROMOTION_TABLE:
                r = _NP_TO_DTYPE.get(np.result_type(d1, d2))
                if r is not None:
                    x1, x2 = _xp.astype(x1, r, copy=False), _xp.astype(x2, r, copy=False)
        return f(x1, x2, *args, **kwargs)

    return call


for _name in _MIXED_OK:
    globals()[_name] = _numpy_promoting(getattr(_xp, _name))


def _reduction_of_sequence(f: Any) -> Any:
    """``f`` (sum, prod) also taking a Python sequence or scalar, and booleans (as
    int64), as NumPy does (``_numel``, ``_nannumel``)."""

    @functools.wraps(f)
    def call(x: Any, /, **kwargs: Any) -> Any:
        if "dtype" in kwargs:
            kwargs["dtype"] = _dtype_in(kwargs["dtype"])
        if type(x) is not _xp.usm_ndarray:
            x = globals()["asarray"](x, dtype=kwargs.get("dtype"))  # bound by _adapt
        elif x.dtype is _xp.bool:  # NumPy counts: bool sums as int64
            x = _xp.astype(x, kwargs.get("dtype") or _xp.int64)
        return f(x, **kwargs)

    return call


sum = _reduction_of_sequence(_xp.sum)  # noqa: A001 - the standard's name
prod = _reduction_of_sequence(_xp.prod)


def mean(x: Any, /, *, axis: Any = None, keepdims: bool = False, dtype: Any = None) -> Any:
    """The standard's ``mean``; ``dtype=`` (NumPy's) casts ``x`` first."""
    if dtype is not None:
        x = _xp.astype(x, _dtype_in(dtype), copy=False)
    return _xp.mean(x, axis=axis, keepdims=keepdims)


# ---- extras cubed calls that the standard lacks ---------------------------------
def nansum(
    x: Any, /, *, axis: int | tuple[int, ...] | None = None, dtype: Any = None,
    keepdims: bool = False,
) -> Any:
    """``sum`` with NaNs counted as zero (a complex element with a NaN in either part
    counts as zero, as in NumPy).  Integer and boolean arrays: ``sum``."""
    d = _dtype_in(dtype)
    if _xp.isdtype(x.dtype, ("real floating", "complex floating")):
        x = _xp.where(_xp.isnan(x), _xp.zeros_like(x), x)
    return sum(x, axis=axis, dtype=d, keepdims=keepdims)


def _found_by_name(ns: dict[str, Any], module: str) -> None:
    """Give each wrapper of ``ns`` (``functools.wraps`` copied the wrapped function's
    module and name onto it) the module and name it is found under, so that pickle and
    cloudpickle (cubed's and Dask's tasks) store it by reference, not its closure and
    ``__dict__`` (the namespace function's per-backend plans and locks)."""
    for name, obj in list(ns.items()):
        if not is_namespace_function(obj) or name.startswith("__"):
            continue
        home = sys.modules.get(obj.__module__)
        if home is not None and getattr(home, obj.__qualname__, None) is obj:
            continue  # the namespace's own function, re-exported: found where it lives
        obj.__module__, obj.__qualname__ = module, name


for _mod in (linalg, fft):
    sys.modules.setdefault(_mod.__name__, _mod)
    _found_by_name(vars(_mod), _mod.__name__)
_found_by_name(globals(), __name__)
bind_adapter(sys.modules[__name__])
