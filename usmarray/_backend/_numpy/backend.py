"""The NumPy host backend: one host device, filter string "numpy", usm_type "host".

It runs usmarray where no SYCL runtime exists (macOS, aarch64, containers without
OpenCL) and serves as a reference.  Kernels follow the protocol's calling convention:
placement keywords ``usm_type=`` and ``queue=`` are accepted and ignored, and every
result is an ``np.ndarray`` (NumPy returns scalars from reductions and integer
indexing; those are made 0-D).
"""

from __future__ import annotations

import builtins
import operator
import warnings
from collections import namedtuple
from types import SimpleNamespace
from typing import Any

import numpy as np
from numpy.lib.array_utils import byte_bounds

from .. import _construct, _dlpack_import
from .._errors import warn_at_caller
from .._protocol import KERNEL_NAMES, BackendBase, Capabilities, LinAlgError
from .out_pool import LEAST, make_pool, pooled

# The standard defines every floating-point result of its functions (IEEE 754 special
# cases: 1/0 is inf, 0/0 and sqrt(-1) are NaN), so NumPy's floating-point RuntimeWarnings
# from this module's kernels ("invalid value encountered in divide") report nothing
# wrong, and would point at this file: they are ignored, here only.  Casts whose result
# the standard leaves unspecified warn at the user's line (_astype).
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"usmarray\._backend\._numpy")

_ndarray = np.ndarray
_asarray = np.asarray


class HostDevice:
    """Stands where a SYCL device would: the attributes the namespace layer reads."""

    filter_string = "numpy"
    name = "NumPy host"
    is_cpu = True
    is_gpu = False
    has_aspect_fp64 = True
    has_aspect_fp16 = False
    parent_device = None
    max_compute_units = 1


class HostQueue:
    """The one queue of the NumPy device: every NumPy call is synchronous."""

    sycl_device = HostDevice()
    sycl_context = "numpy"

    def wait(self) -> None:
        return None

    def __repr__(self) -> builtins.str:
        return "HostQueue(numpy)"


HOST_QUEUE = HostQueue()


def _as_array(r: Any) -> np.ndarray:
    return r if type(r) is _ndarray else _asarray(r)


def _arrayify(fn: Any) -> Any:
    def kernel(*args: Any, **kwargs: Any) -> np.ndarray:
        r = fn(*args, **kwargs)
        return r if type(r) is _ndarray else _asarray(r)

    kernel.__name__ = fn.__name__
    return kernel


_UniqueAll = namedtuple("_UniqueAll", ["values", "indices", "inverse_indices", "counts"])
_UniqueCounts = namedtuple("_UniqueCounts", ["values", "counts"])
_UniqueInverse = namedtuple("_UniqueInverse", ["values", "inverse_indices"])


def _sorted_values(a: np.ndarray, axis: int) -> np.ndarray:
    """``np.sort(a, axis=axis, kind="stable")``, bit for bit, at the speed of NumPy's
    default (SIMD) sort.  Values that compare equal have equal bits, except -0.0 against
    +0.0 and NaNs of other signs or payloads; a stable sort keeps those in their input
    order, so where an input holds zeros or NaNs, the zero run and the NaN tail of each
    row of the fast sort's result are rewritten in input order."""
    if a.dtype.kind != "f" or a.size == 0:  # integers and bools: equal is equal bits
        return np.sort(a, axis=axis, kind="stable" if a.dtype.kind == "c" else None)
    out = np.sort(a, axis=axis)
    zero, nan = a == 0, np.isnan(a)
    if not (zero.any() or nan.any()):
        return out
    am, om = np.moveaxis(a, axis, -1), np.moveaxis(out, axis, -1)
    zero, nan = np.moveaxis(zero, axis, -1), np.moveaxis(nan, axis, -1)
    n = am.shape[-1]
    for mask, start in ((zero, np.count_nonzero(am < 0, axis=-1)),
                        (nan, n - np.count_nonzero(nan, axis=-1))):
        idx = np.nonzero(mask)
        if not idx[0].size:
            continue
        rank = (np.cumsum(mask, axis=-1) - 1)[idx]
        om[(*idx[:-1], start[idx[:-1]] + rank)] = am[idx]
    return out


def _sort(a: np.ndarray, axis: int = -1, descending: bool = False, stable: bool = True) -> np.ndarray:
    if not descending:
        return _sorted_values(a, axis)
    return np.flip(_sorted_values(np.flip(a, axis=axis), axis), axis=axis)


def _argsort(a: np.ndarray, axis: int = -1, descending: bool = False, stable: bool = True) -> np.ndarray:
    if not descending:
        return np.argsort(a, axis=axis, kind="stable" if stable else None)
    n = a.shape[axis]
    # stable descending: sort the reversed array ascending by negated order, map back
    rev = np.flip(a, axis=axis)
    idx = np.argsort(rev, axis=axis, kind="stable")
    return np.flip(n - 1 - idx, axis=axis)


#: the classes of NumPy's integer and bool dtypes (what the namespace passes as ``dtype``)
_INTEGER_DTYPES = frozenset(type(np.dtype(c)) for c in "?bBhHiIlLqQ")


def _astype(a: np.ndarray, dtype: Any, copy: bool = True, **_: Any) -> np.ndarray:
    """``a`` as ``dtype``; a NaN, an infinity or a value out of range cast to an integer
    dtype (results the standard leaves unspecified) warns at the user's line, not here."""
    if dtype.__class__ in _INTEGER_DTYPES and a.dtype.kind in "fc":
        try:
            with np.errstate(invalid="raise"):
                return a.astype(dtype, copy=copy)
        except FloatingPointError:
            with np.errstate(invalid="ignore"):
                r = a.astype(dtype, copy=copy)
            warn_at_caller(f"astype: NaN, infinity or a value outside the range of "
                           f"{np.dtype(dtype)} cast to {np.dtype(dtype)}: the standard leaves "
                           "those results unspecified (here they are arbitrary integers)")
            return r
    return a.astype(dtype, copy=copy)


def _reshape(a: np.ndarray, shape: Any, copy: Any = None, order: Any = "C") -> np.ndarray:
    # the method, not np.reshape: its Python wrapper costs as much as the call; and no
    # keyword where the default serves: parsing ``order="C"`` costs 0.18 us
    if copy is None:
        return a.reshape(shape) if order == "C" else a.reshape(shape, order=order)
    return a.reshape(shape, order=order, copy=copy)


def _out_is_ellipsis() -> bool:
    """Whether this NumPy's ufuncs take ``out=...`` (a 0-D result as an array)."""
    try:
        return type(np.logical_and.reduce(np.ones(1, bool), axis=None, out=...)) is _ndarray
    except TypeError:  # pragma: no cover - NumPy without out=...
        return False


_OUT_ELLIPSIS = _out_is_ellipsis()


def _reduce(reduce: Any) -> Any:
    """``any``/``all``/``max``/``min`` as the ufunc reduce that np.any/np.all/np.max/
    np.min end in, without their Python wrappers (about 1 us per call, as
    much as a short-circuited ``all``); ``out=...`` makes a 0-D result an array without
    a second call (0.2 us)."""

    def kernel(a: np.ndarray, axis: Any = None, keepdims: bool = False) -> np.ndarray:
        if _OUT_ELLIPSIS:
            return reduce(a, axis=axis, keepdims=keepdims, out=...)  # type: ignore[no-any-return]
        r = reduce(a, axis=axis, keepdims=keepdims)
        return r if type(r) is _ndarray else _asarray(r)

    return kernel


def _accumulate(reduce: Any) -> Any:
    """``sum``/``prod`` as the ufunc reduce that np.sum/np.prod end in, without their
    Python wrappers (0.8 us of a 1.5 us ``np.sum`` of 100 elements); the same results,
    pairwise summation included."""

    def kernel(a: np.ndarray, axis: Any = None, dtype: Any = None,
               keepdims: bool = False) -> np.ndarray:
        if _OUT_ELLIPSIS:
            return reduce(a, axis=axis, dtype=dtype, keepdims=keepdims, out=...)  # type: ignore[no-any-return]
        r = reduce(a, axis=axis, dtype=dtype, keepdims=keepdims)
        return r if type(r) is _ndarray else _asarray(r)

    return kernel


def _full(shape: Any, fill_value: Any, dtype: Any = None, order: Any = "C", **_: Any) -> np.ndarray:
    if isinstance(fill_value, np.ndarray):
        out = np.empty(shape, dtype=dtype or fill_value.dtype, order=order)
        out[...] = fill_value
        return out
    return np.full(shape, fill_value, dtype=dtype, order=order)


def _filled(shape: tuple, fill_value: Any, dtype: np.dtype) -> np.ndarray:
    """``np.full(shape, fill_value, dtype)``; a Python float by the array's own ``fill``
    (``np.full`` is Python that copies through ``copyto``: 0.4 us of 0.6), which converts
    a float as ``copyto`` does; other scalars by ``np.full``."""
    if type(fill_value) is not float:
        return np.full(shape, fill_value, dtype)
    if not shape and dtype.kind in "fc":  # 0-D: converted as it is built (0.1 us less)
        return np.array(fill_value, dtype)
    out = np.empty(shape, dtype)
    out.fill(fill_value)
    return out


def _arange(start: Any, stop: Any = None, step: Any = 1, dtype: Any = None, usm_type: Any = None,
            queue: Any = None) -> np.ndarray:
    return np.arange(start, stop, step, dtype=dtype)


def _linspace(start: Any, stop: Any, num: int, dtype: Any = None, endpoint: bool = True,
              usm_type: Any = None, queue: Any = None, compute_dtype: Any = None) -> np.ndarray:
    if compute_dtype is not None:  # NumPy computes in the dtype of its bounds
        t = np.dtype(compute_dtype).type
        with np.errstate(over="ignore"):  # a bound past float32's range is inf, as NumPy's
            start, stop = t(start), t(stop)
    return np.linspace(start, stop, num, dtype=dtype, endpoint=endpoint)


def _eye(n_rows: int, n_cols: Any = None, k: int = 0, dtype: Any = None, usm_type: Any = None,
         queue: Any = None) -> np.ndarray:
    return np.eye(n_rows, n_cols, k=k, dtype=dtype)


# The creation kernels name the placement keywords they ignore instead of taking
# ``**_``, and pass NumPy no keyword where its default serves: each saves 0.1-0.2 us of
# a 0.7 us ``np.empty``.
def _empty(shape: Any, dtype: Any = None, order: Any = "C", usm_type: Any = None,
           queue: Any = None) -> np.ndarray:
    return np.empty(shape, dtype) if order == "C" else np.empty(shape, dtype, order)


def _zeros(shape: Any, dtype: Any = None, order: Any = "C", usm_type: Any = None,
           queue: Any = None) -> np.ndarray:
    return np.zeros(shape, dtype) if order == "C" else np.zeros(shape, dtype, order)


def _ones(shape: Any, dtype: Any = None, order: Any = "C", usm_type: Any = None,
          queue: Any = None) -> np.ndarray:
    return np.ones(shape, dtype=dtype, order=order)


def _like(fn: Any) -> Any:
    def kernel(x: np.ndarray, *args: Any, dtype: Any = None, **_: Any) -> np.ndarray:
        return fn(x, *args, dtype=dtype)

    kernel.__name__ = fn.__name__
    return kernel


# sorted results, as the SYCL provider gives them (NumPy >= 2.3 may return hash order);
# NaNs stay distinct (equal_nan=False), as the standard asks
def _unique(a: np.ndarray) -> tuple[np.ndarray, ...]:
    values, index, inverse, counts = np.unique(
        a.reshape(-1), return_index=True, return_inverse=True, return_counts=True,
        equal_nan=False,
    )
    return values, index, inverse.reshape(a.shape), counts


def _unique_all(a: np.ndarray) -> Any:
    return _UniqueAll(*_unique(a))


def _unique_counts(a: np.ndarray) -> Any:
    values, _, _, counts = _unique(a)
    return _UniqueCounts(values, counts)


def _unique_inverse(a: np.ndarray) -> Any:
    values, _, inverse, _ = _unique(a)
    return _UniqueInverse(values, inverse)


def _unique_values(a: np.ndarray) -> np.ndarray:
    return np.unique(a.reshape(-1), equal_nan=False)


def _nonzero(a: np.ndarray) -> tuple[np.ndarray, ...]:
    return np.nonzero(a)


def _meshgrid(*arrays: np.ndarray, indexing: Any = "xy") -> list[np.ndarray]:
    return [np.ascontiguousarray(m) for m in np.meshgrid(*arrays, indexing=indexing)]


def _broadcast_arrays(*arrays: np.ndarray) -> list[np.ndarray]:
    return list(np.broadcast_arrays(*arrays))


def _unstack(a: np.ndarray, axis: int = 0) -> tuple[np.ndarray, ...]:
    return tuple(np.moveaxis(a, axis, 0))


def _round(a: np.ndarray) -> np.ndarray:
    return _as_array(np.round(a))


def _clip(a: np.ndarray, lo: Any = None, hi: Any = None) -> np.ndarray:
    if lo is None and hi is None:
        return a.copy()
    return _as_array(np.clip(a, lo, hi))


def _searchsorted(x1: np.ndarray, x2: Any, side: Any = "left", sorter: Any = None) -> np.ndarray:
    return _as_array(np.searchsorted(x1, x2, side=side, sorter=sorter))


def _reduce_hypot(a: np.ndarray, axis: Any = None, keepdims: bool = False, dtype: Any = None) -> np.ndarray:
    """sqrt(sum(|a|**2)) without overflow or underflow.

    NumPy's own ``sqrt(sum(|a|**2))`` (two passes) wherever that sum is finite and so far
    above the underflow range that squares lost to it cannot move it by a rounding step
    (``s >= tiny * count / eps``); there it differs from a scaled sum by rounding only,
    having one rounding fewer per element.  Slices whose sum overflowed, may have lost
    squares to underflow, or hold inf or NaN are summed again scaled by their largest
    ``|a|`` (the scaled sum for every slice cost 4x NumPy's norm)."""
    x = np.abs(a) if a.dtype.kind == "c" else a
    if x.size == 0:
        return _as_array(np.sqrt(np.sum(np.square(x), axis=axis, keepdims=keepdims, dtype=dtype)))
    with np.errstate(over="ignore"):  # an overflowed sum is summed again, scaled
        s = np.sum(np.square(x), axis=axis, keepdims=True, dtype=dtype)
    fi = np.finfo(s.dtype)
    low = fi.tiny * ((x.size // s.size) / fi.eps)
    r = np.sqrt(s)
    # every sum in [low, inf): two reductions without temporaries (a NaN fails both)
    if not (np.minimum.reduce(s, axis=None) >= low and np.maximum.reduce(s, axis=None) < np.inf):
        with np.errstate(invalid="ignore"):  # NaN sums compare False: scaled below
            ok = s >= low
            ok &= s < np.inf
        x = np.abs(x)
        m = np.max(x, axis=axis, keepdims=True)
        scale = np.where((m == 0) | ~np.isfinite(m), 1, m)
        scaled = scale * np.sqrt(np.sum(np.square(x / scale), axis=axis, keepdims=True, dtype=dtype))
        r = np.where(ok, r, scaled)
    if not keepdims:
        r = np.squeeze(r, axis=tuple(range(r.ndim)) if axis is None else axis)
    return _as_array(r)


def _nan_reduction(a: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
    """NaN in the shape (and floating dtype) of a reduction of ``a`` over ``axis``."""
    return np.full_like(np.sum(a, axis=axis, keepdims=keepdims), np.nan, dtype=a.dtype)


def _mean(a: np.ndarray, axis: Any = None, keepdims: bool = False, **kw: Any) -> np.ndarray:
    """NumPy's mean; NaN for an empty reduction (the standard's value) without NumPy's
    "Mean of empty slice" warning."""
    if a.size == 0 or (axis is not None and 0 in [a.shape[ax] for ax in
                                                   (axis if isinstance(axis, tuple) else (axis,))]):
        return _nan_reduction(a, axis, keepdims)
    return _as_array(np.mean(a, axis=axis, keepdims=keepdims, **kw))


def _moment(fn: Any) -> Any:
    """NumPy's var/std, with NaN where the divisor N - correction is not positive (the
    standard's value; NumPy divides by it)."""

    def kernel(a: np.ndarray, axis: Any = None, correction: float = 0.0,
               keepdims: bool = False) -> np.ndarray:
        axes = range(a.ndim) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
        n = 1
        for ax in axes:
            n *= a.shape[ax]
        if n - correction <= 0:  # NumPy would warn, then divide by it
            return _nan_reduction(a, axis, keepdims)
        with np.errstate(divide="ignore", invalid="ignore"):
            return _as_array(fn(a, axis=axis, correction=correction, keepdims=keepdims))

    kernel.__name__ = fn.__name__
    return kernel


def _diff(a: np.ndarray, axis: int = -1, n: int = 1, prepend: Any = None, append: Any = None) -> np.ndarray:
    kw = {k: v for k, v in (("prepend", prepend), ("append", append)) if v is not None}
    return np.diff(a, n=n, axis=axis, **kw)


def _copy(a: np.ndarray, order: Any = "K") -> np.ndarray:
    return a.copy(order="K" if order == "K" else order)


def _asarray_kernel(obj: Any, dtype: Any = None, copy: Any = None, **_: Any) -> np.ndarray:
    return np.asarray(obj, dtype=dtype, copy=copy)


def _permute_dims(a: np.ndarray, axes: Any) -> np.ndarray:
    # the method, not np.permute_dims: its Python wrapper costs twice the call
    return a.transpose(axes)


def _stack(arrays: Any, axis: int = 0) -> np.ndarray:
    """``np.stack(arrays, axis)`` for arrays of one shape (the callers check it): each
    array viewed with the new axis, then one ``np.concatenate`` (``np.stack``'s Python
    checks cost 0.6 us of 1.9)."""
    if axis < 0:
        axis += arrays[0].ndim + 1
    key = (_FULL,) * axis + (None,)
    return np.concatenate([a[key] for a in arrays], axis=axis)


_FULL = slice(None)


def _matmul_kernel() -> Any:
    """``np.matmul`` with ``out=...`` (a 0-D product an array without a second call or a
    wrapper's frame, 0.1 us of a 2.3 us 8x8 ``matmul``); the checked wrapper on a NumPy
    without ``out=...``."""
    if not _OUT_ELLIPSIS:  # pragma: no cover - NumPy without out=...
        return _arrayify(np.matmul)
    mm = np.matmul

    def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return mm(a, b, out=...)  # type: ignore[no-any-return]

    return matmul


_SPECIAL = {
    "astype": _astype,
    "stack": _stack,
    "matmul": _matmul_kernel(),
    "reshape": _reshape,
    # always an array: no check of the result (a frame of a 0.5 us ``concat``)
    "concat": np.concatenate,
    "permute_dims": _permute_dims,
    "any": _reduce(np.logical_or.reduce),
    "all": _reduce(np.logical_and.reduce),
    "max": _reduce(np.maximum.reduce),
    "min": _reduce(np.minimum.reduce),
    "sum": _accumulate(np.add.reduce),
    "prod": _accumulate(np.multiply.reduce),
    "full": _full,
    "arange": _arange,
    "linspace": _linspace,
    "eye": _eye,
    "empty": _empty,
    "zeros": _zeros,
    "ones": _ones,
    "empty_like": _like(np.empty_like),
    "zeros_like": _like(np.zeros_like),
    "ones_like": _like(np.ones_like),
    "full_like": _like(np.full_like),
    "sort": _sort,
    "argsort": _argsort,
    "unique_all": _unique_all,
    "unique_counts": _unique_counts,
    "unique_inverse": _unique_inverse,
    "unique_values": _unique_values,
    "nonzero": _nonzero,
    "meshgrid": _meshgrid,
    "broadcast_arrays": _broadcast_arrays,
    "unstack": _unstack,
    "round": _round,
    "clip": _clip,
    "searchsorted": _searchsorted,
    "diff": _diff,
    "tril": lambda a, k=0: np.tril(a, k=k),
    "triu": lambda a, k=0: np.triu(a, k=k),
    "copy": _copy,
    "reduce_hypot": _reduce_hypot,
    "mean": _mean,
    "var": _moment(np.var),
    "std": _moment(np.std),
}

# names that differ between the standard (and the SYCL provider) and NumPy
_ALIASES = {"matrix_transpose": "matrix_transpose"}

#: kernels whose NumPy ufunc warns for results the namespace defines: integer division
#: and remainder by zero are 0 (NumPy's values, also the SYCL and CUDA kernels'), the
#: lowest signed integer floor-divided by -1 is itself (wrapped); float ones are the
#: standard's special cases.  The warning would reach a user whose own filters come
#: before the module's (pytest, ``-W error``), and the other backends give none
_QUIET = ("floor_divide", "remainder")


def _quiet(kernel: Any) -> Any:
    """``kernel`` with NumPy's floating-point error reports off during the call."""

    def call(*args: Any, **kw: Any) -> Any:
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            return kernel(*args, **kw)

    call.__name__ = getattr(kernel, "__name__", "kernel")
    return call


def _kernel_namespace() -> SimpleNamespace:
    ns: dict[builtins.str, Any] = {}
    pool = make_pool()
    for name in KERNEL_NAMES:
        if name in _SPECIAL:
            ns[name] = _SPECIAL[name]
            continue
        fn = getattr(np, _ALIASES.get(name, name))
        if (pool is not None and isinstance(fn, np.ufunc) and fn.signature is None
                and fn.nout == 1 and fn.nin in (1, 2)):
            ns[name] = pooled(fn, pool)
        else:
            ns[name] = _arrayify(fn)
    for name in _QUIET:
        ns[name] = _quiet(ns[name])
    ns.update(asarray=_asarray_kernel, usm_ndarray=np.ndarray, __name__="numpy")
    return SimpleNamespace(**ns)


class _Bytes:
    """``__array_interface__`` of an extent's bytes, keeping their owner alive."""

    __slots__ = ("__array_interface__", "_keep")

    def __init__(self, ext: _construct.Extent) -> None:
        keep = self._keep = ext.keep
        read_only = isinstance(keep, np.ndarray) and not keep.flags.writeable
        self.__array_interface__ = {
            "data": (ext.ptr, read_only), "shape": (ext.nbytes,),
            "typestr": "|u1", "version": 3,
        }


def _native(fn: Any, args: tuple, kw: dict) -> Any:
    try:
        res = fn(*args, **kw)
    except np.linalg.LinAlgError as exc:
        raise LinAlgError(str(exc)) from None
    if isinstance(res, tuple):
        return tuple(_as_array(r) for r in res)
    return _as_array(res)


#: operands of fewer elements cannot make a result the out-pool takes (16-byte elements)
_SMALL = LEAST // 16


class NumpyBackend(BackendBase):
    """Memory and kernels on the host through NumPy."""

    name = "numpy"
    kernel_family = "numpy"
    #: NumPy's argmax/argmin propagate NaN and return its first occurrence
    first_nan_argmax = True
    #: NumPy's fancy indexing checks every index before it gathers or writes
    checks_indices = True
    usm_types = ("host",)
    array_type = np.ndarray
    multi_queue = False
    lock = None
    dlpack_device_types = frozenset({_dlpack_import.KDL_CPU})
    as_array = staticmethod(np.asarray)  # type: ignore[assignment]

    def __init__(self) -> None:
        self.provider = _kernel_namespace()
        self.provider_name = f"numpy {np.__version__}"
        for kname, fn in vars(self.provider).items():
            if not kname.startswith("__") and kname != "asarray":
                setattr(self, kname, fn)
        self.ExecutionPlacementError = ValueError

    def small_kernel(self, name: builtins.str) -> tuple[Any, int]:
        """The ufunc itself, its 0-D results kept arrays, below the size the out-pool
        takes (the pooled kernel's tests cost 0.15 us of a 0.4 us small call)."""
        uf = getattr(np, name, None)
        if (not isinstance(uf, np.ufunc) or uf.signature is not None or uf.nout != 1
                or not _OUT_ELLIPSIS or name in _QUIET or name in _SPECIAL):
            return getattr(self, name), 0
        if uf.nin == 1:
            def kernel(a: Any) -> np.ndarray:
                return uf(a, out=...)  # type: ignore[no-any-return]
        else:
            def kernel(a: Any, b: Any) -> np.ndarray:  # type: ignore[misc]
                return uf(a, b, out=...)  # type: ignore[no-any-return]
        # the ufunc itself, for callers that know an operand is not 0-D (no out=...)
        kernel.provider_function = uf  # type: ignore[attr-defined]
        return kernel, _SMALL

    # ---- devices -----------------------------------------------------------------
    def take_checked(self, raw: Any, indices: Any, axis: int) -> tuple[Any, int | None] | None:
        """NumPy's own bounds check (``mode="raise"``) instead of a pass to find the
        range first; where it refuses, the index a check before the gather names."""
        try:
            return np.take(raw, indices, axis=axis, mode="raise"), None
        except IndexError:
            n = raw.shape[axis]
            lo, hi = int(indices.min()), int(indices.max())
            return None, hi if hi >= n else lo

    def available(self) -> bool:
        return True

    def default_queue(self) -> HostQueue:
        return HOST_QUEUE

    def owns_native(self, obj: Any) -> bool:
        return obj is HOST_QUEUE

    def native_queue(self, obj: Any) -> HostQueue:
        if obj in ("numpy", "numpy:0", HOST_QUEUE):
            return HOST_QUEUE
        raise ValueError(f"the NumPy backend has one device, 'numpy'; got {obj!r}")

    def devices(self) -> list[HostQueue]:
        return [HOST_QUEUE]

    def describe(self, q: Any) -> builtins.str:
        return "numpy"

    def capabilities(self, q: Any) -> Capabilities:
        return Capabilities(fp64=True, fp16=False)

    def wait(self, q: Any) -> None:
        return None

    @staticmethod
    def queue_of(raw: Any) -> HostQueue:
        return HOST_QUEUE

    @staticmethod
    def usm_type_of(raw: Any) -> builtins.str:
        return "host"

    def coerced_usm_type(self, types: Any) -> builtins.str:
        return "host"

    @staticmethod
    def repr(raw: np.ndarray) -> builtins.str:
        body = np.array2string(raw, separator=", ", prefix="usm_ndarray(")
        return f"usm_ndarray({body}, dtype={raw.dtype.name}, device='numpy')"

    @staticmethod
    def str(raw: np.ndarray) -> builtins.str:
        return np.array2string(raw)

    # ---- memory ----------------------------------------------------------------------

    def from_host(self, a: np.ndarray, usm_type: Any = None, q: Any = None) -> np.ndarray:
        return np.array(a, copy=True)

    def to_host(self, raw: np.ndarray) -> np.ndarray:
        return np.array(raw, copy=True)

    def creator(self, name: builtins.str, q: Any, usm_type: builtins.str) -> Any:
        """NumPy's own ``zeros``/``empty`` and :func:`_filled` for ``full``: they take
        the protocol's positional arguments, and there is one queue and one usm_type."""
        return {"zeros": np.zeros, "empty": np.empty, "full": _filled}[name]

    @staticmethod
    def host_accessible(raw: Any) -> bool:
        return True

    @staticmethod
    def scalar(raw: Any) -> Any:
        """The raw 0-D array itself: its own conversions wait for its queue."""
        return raw

    def asarray(self, obj: Any, *, dtype: Any = None, copy: Any = None, usm_type: Any = None,
                queue: Any = None) -> np.ndarray:
        return np.asarray(obj, dtype=dtype, copy=copy)

    alloc_errors: tuple[type[BaseException], ...] = ()
    # ``raw[key]`` and ``raw[key] = value`` without a Python frame (a third of ``x[idx]``)
    getitem = staticmethod(operator.getitem)  # type: ignore[assignment]
    setitem = staticmethod(operator.setitem)  # type: ignore[assignment]
    may_share_memory = staticmethod(np.may_share_memory)  # type: ignore[assignment]

    @staticmethod
    def memory_error(nbytes: int, q: Any) -> MemoryError:
        return MemoryError(f"could not allocate {nbytes} bytes of host memory")

    # ---- the usm_ndarray constructor (usmarray/_backend/_construct.py) ---------------------
    # NumPy has no memory objects of its own: buffer= is "host" or an array of this backend
    ctor_make = _construct.make_strided

    def memory_object(self, obj: Any) -> bool:
        return False

    @staticmethod
    def buffer_of(raw: np.ndarray) -> _construct.Extent:
        """The bytes of the allocation ``raw`` views: those of the array its chain of
        ``base`` arrays starts from (a view's offsets count from there, as from a SYCL
        array's ``usm_data``)."""
        root = raw
        while isinstance(root.base, np.ndarray):
            root = root.base
        lo, hi = byte_bounds(root)
        return _construct.Extent(lo, hi - lo, HOST_QUEUE, "host", root)

    @staticmethod
    def ctor_memory(obj: Any) -> tuple[Any, int, Any] | None:
        if type(obj) is _construct.Extent:  # from buffer_of: never a user's object
            return obj, obj.nbytes, obj.queue
        return None

    @staticmethod
    def alloc_bytes(nbytes: int, usm_type: builtins.str, q: Any) -> np.ndarray:
        return np.empty(nbytes, dtype=np.uint8)

    @staticmethod
    def extent_view(ext: _construct.Extent, byte0: int, shape: tuple, d: np.dtype,
                    strides: tuple) -> np.ndarray:
        """An ndarray whose element 0 is ``byte0`` bytes into ``ext`` (NumPy checks the
        extent against the bytes once more); read-only where the memory is."""
        if not ext.nbytes or 0 in shape:
            return np.lib.stride_tricks.as_strided(np.empty(0, dtype=d), shape, strides)
        span = np.asarray(_Bytes(ext))
        return np.ndarray(shape, dtype=d, buffer=span, offset=byte0, strides=strides)

    def to_queue(self, raw: np.ndarray, q: Any, stream: Any = None) -> np.ndarray:
        return raw

    # ---- interchange ------------------------------------------------------------------
    @staticmethod
    def dlpack_device(raw: np.ndarray) -> tuple[int, int]:
        return raw.__dlpack_device__()

    def dlpack(self, raw: Any, stream: Any, max_version: Any, dl_device: Any, copy: Any) -> Any:
        return raw.__dlpack__(stream=stream, max_version=max_version, dl_device=dl_device,
                              copy=copy)

    def from_dlpack(self, x: Any, dev: tuple[int, int], q: Any, copy: Any) -> np.ndarray:
        if type(x) is np.ndarray:  # NumPy's own exporter: trusted, and 30x faster
            return np.from_dlpack(x, copy=copy)
        return _dlpack_import.import_dlpack(x, dev=dev, copy=copy)

    # ---- linear algebra and FFT: NumPy on the arrays themselves ---------------------------
    @staticmethod
    def linalg(fname: builtins.str, *raws: Any, **kw: Any) -> Any:
        return _native(getattr(np.linalg, fname), raws, kw)

    @staticmethod
    def fft(fname: builtins.str, raw: Any, **kw: Any) -> Any:
        return _native(getattr(np.fft, fname), (raw,), kw)

    @staticmethod
    def eig(raw: Any, vectors: bool) -> Any:
        if not np.isfinite(raw).all():
            raise LinAlgError(f"{'eig' if vectors else 'eigvals'}: the matrix contains "
                              "infinities or NaNs")
        return _native(np.linalg.eig if vectors else np.linalg.eigvals, (raw,), {})
