"""Array-API kernels from a NumPy-like array module (NumPy, CuPy, ...).

:func:`kernels` returns ``{name: function}`` for every name in ``KERNEL_NAMES``
(creation kernels excepted: placement is the backend's business, see
:data:`CREATION`) plus the extras the namespace layer reaches for (``copy``,
``reduce_hypot``), each taking and returning raw arrays of the module ``xp`` with
the array API's calling convention:

* sorting takes ``descending=`` and ``stable=``; the unique family returns named
  tuples of sorted values (NaNs distinct); ``nonzero``/``unstack`` return tuples,
  ``meshgrid``/``broadcast_arrays`` lists;
* reductions take ``axis=`` (int or tuple), ``keepdims=``, ``dtype=`` where the
  standard has it; ``var``/``std`` take ``correction=``; cumulative sums take
  ``include_initial=``;
* ``reshape`` takes ``copy=`` (False: a view or ValueError); ``astype`` ``copy=``;
* results are arrays of ``xp``, never scalars (``scalar_to_array`` is applied
  where the module returns scalars).

Nothing here allocates on a chosen device or queue: the backend runs these under
its own placement (a CUDA stream and device, an allocator).  The module names
differ little: only what differs from ``getattr(xp, name)`` is adapted here.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable
from typing import Any

from ._protocol import KERNEL_NAMES

#: creation kernels: the backend supplies them (they place memory)
CREATION = frozenset({
    "arange", "empty", "empty_like", "eye", "full", "full_like", "linspace", "ones",
    "ones_like", "zeros", "zeros_like",
})

UniqueAll = namedtuple("UniqueAll", ["values", "indices", "inverse_indices", "counts"])
UniqueCounts = namedtuple("UniqueCounts", ["values", "counts"])
UniqueInverse = namedtuple("UniqueInverse", ["values", "inverse_indices"])


def kernels(
    xp: Any, scalar_to_array: Callable[[Any], Any] | None = None, host_repeats: bool = False,
    fast_mean: bool = False, signed_nans: bool = False,
    canonical_nans: Callable[[Callable[[Any], Any]], Callable[[Any], Any]] | None = None,
    c_order_copy: Callable[[Any], Any] | None = None,
) -> dict[str, Any]:
    """The array-API kernels of module ``xp`` (see the module docstring).

    ``scalar_to_array``: where given, every kernel's result passes through it (for
    modules, like NumPy, whose reductions return scalars); CuPy needs none.
    ``host_repeats``: ``xp.repeat`` takes repeat counts as Python ints only (CuPy).
    ``fast_mean``: ``mean`` as the sum divided by the count (CuPy's mean is slower).
    ``signed_nans``: ``xp.sort`` orders a NaN with its sign bit set before every number
    (CuPy's radix sort reads the bits); sorting gives such NaNs the sign of +NaN first,
    so every NaN sorts last, as the standard and NumPy have it.  ``canonical_nans``
    wraps that copy (three passes: ``isnan``, ``full``, ``where``) in the backend's
    one-pass kernel, which gives it what it does not take; either returns a new
    C-contiguous array (``sort`` sorts it in place).  ``c_order_copy``: the backend's
    C-order copy for ``reshape`` (None where it does not take the array: the module's).
    """
    arr = xp.ndarray

    def canon(a: Any) -> Any:
        # the NaN made on the device: asarray of a host scalar would wait for a copy
        return xp.ascontiguousarray(
            xp.where(xp.isnan(a), xp.full((), xp.nan, dtype=a.dtype), a))

    nan_copy = canonical_nans(canon) if canonical_nans else canon

    def keys(a: Any) -> Any:
        if signed_nans and a.dtype.kind == "f":
            return nan_copy(a)
        return a

    def sort(a: Any, axis: int = -1, descending: bool = False, stable: bool = True) -> Any:
        k = keys(a)
        if not descending:
            if k is not a and k.flags.c_contiguous:
                # new C-ordered memory: sorted in place, without sort's own copy
                k.sort(axis=axis, kind="stable")
                return k
            return xp.sort(k, axis=axis, kind="stable" if stable else None)
        a = k
        return xp.flip(xp.sort(xp.flip(a, axis=axis), axis=axis, kind="stable"), axis=axis)

    def argsort(a: Any, axis: int = -1, descending: bool = False, stable: bool = True) -> Any:
        a = keys(a)
        if not descending:
            return xp.argsort(a, axis=axis, kind="stable" if stable else None)
        # stable descending: ascending sort of the reversed array, indices mapped back
        n = a.shape[axis]
        idx = xp.argsort(xp.flip(a, axis=axis), axis=axis, kind="stable")
        return xp.flip(n - 1 - idx, axis=axis)

    def astype(a: Any, dtype: Any, copy: bool = True, **_: Any) -> Any:
        return a.astype(dtype, copy=copy)

    def c_copy(a: Any) -> Any:
        out = None if c_order_copy is None else c_order_copy(a)
        return a.copy(order="C") if out is None else out

    def reshape(a: Any, shape: Any, copy: Any = None, order: Any = "C") -> Any:
        if order != "C":
            return xp.reshape(a.copy(order="F") if copy else a, shape, order=order)
        if copy is True:
            return c_copy(a).reshape(shape)
        if copy is False or not a.flags.c_contiguous:
            v = a.view()
            try:
                v.shape = shape  # in place: only where no copy is needed
                return v
            except AttributeError:
                if copy is False:
                    raise ValueError(
                        f"reshape: copy=False, but an array of shape {a.shape} and strides "
                        f"{a.strides} cannot be viewed with shape {shape}"
                    ) from None
            return c_copy(a).reshape(shape)
        return a.reshape(shape)  # the method: the module's function wraps it

    def unique(a: Any) -> tuple[Any, Any, Any, Any]:
        values, index, inverse, counts = xp.unique(
            a.reshape(-1), return_index=True, return_inverse=True, return_counts=True,
            equal_nan=False,
        )
        return values, index, inverse.reshape(a.shape), counts

    def unique_all(a: Any) -> Any:
        return UniqueAll(*unique(a))

    def unique_counts(a: Any) -> Any:
        values, _, _, counts = unique(a)
        return UniqueCounts(values, counts)

    def unique_inverse(a: Any) -> Any:
        values, _, inverse, _ = unique(a)
        return UniqueInverse(values, inverse)

    def unique_values(a: Any) -> Any:
        return xp.unique(a.reshape(-1), equal_nan=False)

    def nonzero(a: Any) -> tuple[Any, ...]:
        return tuple(xp.nonzero(a))

    def meshgrid(*arrays: Any, indexing: Any = "xy") -> list[Any]:
        return [xp.ascontiguousarray(m) for m in xp.meshgrid(*arrays, indexing=indexing)]

    def broadcast_arrays(*arrays: Any) -> list[Any]:
        return list(xp.broadcast_arrays(*arrays))

    def unstack(a: Any, axis: int = 0) -> tuple[Any, ...]:
        m = xp.moveaxis(a, axis, 0)
        return tuple(m[i] for i in range(m.shape[0]))

    def clip(a: Any, lo: Any = None, hi: Any = None) -> Any:
        if lo is None and hi is None:
            return a.copy()
        if lo is None:
            return xp.minimum(a, hi)
        if hi is None:
            return xp.maximum(a, lo)
        return xp.minimum(xp.maximum(a, lo), hi)

    def searchsorted(x1: Any, x2: Any, side: Any = "left", sorter: Any = None) -> Any:
        return xp.searchsorted(x1, x2, side=side, sorter=sorter)

    def diff(a: Any, axis: int = -1, n: int = 1, prepend: Any = None, append: Any = None) -> Any:
        kw = {k: v for k, v in (("prepend", prepend), ("append", append)) if v is not None}
        return xp.diff(a, n=n, axis=axis, **kw)

    def cumulative(fn: Any, identity: int) -> Any:
        def kernel(a: Any, axis: Any = None, dtype: Any = None, include_initial: bool = False) -> Any:
            ax = 0 if axis is None else axis
            out = fn(a, axis=ax, dtype=dtype)
            if include_initial:
                shape = list(out.shape)
                shape[ax] = 1
                out = xp.concatenate([xp.full(shape, identity, dtype=out.dtype), out], axis=ax)
            return out

        return kernel

    def var_std(fn: Any) -> Any:
        def kernel(a: Any, axis: Any = None, correction: float = 0.0, keepdims: bool = False) -> Any:
            return fn(a, axis=axis, ddof=correction, keepdims=keepdims)

        return kernel

    def count_nonzero(a: Any, axis: Any = None, keepdims: bool = False) -> Any:
        out = xp.count_nonzero(a, axis=axis)
        if keepdims:
            axes = range(a.ndim) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
            out = xp.reshape(out, tuple(1 if i in set(axes) else n for i, n in enumerate(a.shape)))
        return xp.asarray(out)

    def vecdot(x1: Any, x2: Any, axis: int = -1) -> Any:
        if x1.dtype.kind == "c":
            x1 = xp.conj(x1)
        return xp.sum(xp.multiply(x1, x2), axis=axis)

    def repeat(a: Any, repeats: Any, axis: Any = None) -> Any:
        if host_repeats and isinstance(repeats, arr):
            # the module takes an int or a sequence of ints, not one of its arrays
            repeats = repeats.tolist() if repeats.ndim else int(repeats)
        return xp.repeat(a, repeats, axis=axis)

    def concat(arrays: Any, axis: Any = 0) -> Any:
        if axis is None:
            return xp.concatenate([xp.reshape(x, (-1,)) for x in arrays])
        return xp.concatenate(list(arrays), axis=axis)

    def copy(a: Any, order: Any = "K") -> Any:
        return a.copy(order=order)

    def reduce_hypot(a: Any, axis: Any = None, keepdims: bool = False, dtype: Any = None) -> Any:
        """sqrt(sum |a|^2) without overflow or underflow: each slice scaled by its
        largest magnitude first; an infinite element gives inf (NaNs elsewhere too)."""
        absa = xp.abs(a)
        if dtype is not None and absa.dtype != dtype:
            absa = absa.astype(dtype)
        axes = tuple(range(a.ndim)) if axis is None else axis if isinstance(axis, tuple) else (axis,)
        if any(a.shape[ax] == 0 for ax in axes) or a.ndim == 0:
            return xp.sqrt(xp.sum(xp.multiply(absa, absa), axis=axis, keepdims=keepdims))
        m = xp.max(absa, axis=axis, keepdims=True)
        scale = xp.where(xp.logical_and(xp.isfinite(m), m > 0), m, xp.ones_like(m))
        r = xp.multiply(xp.sqrt(xp.sum(xp.square(xp.divide(absa, scale)), axis=axis,
                                       keepdims=True)), scale)
        r = xp.where(xp.any(xp.isinf(absa), axis=axis, keepdims=True),
                     xp.full_like(r, float("inf")), r)
        if not keepdims:
            gone = {ax % a.ndim for ax in axes}
            r = xp.reshape(r, tuple(n for i, n in enumerate(r.shape) if i not in gone))
        return r

    def whole(fn: Any) -> Any:
        """``fn`` with an axis tuple naming every axis passed as None (CuPy then takes
        its whole-array reduction path, CUB where enabled)."""

        def kernel(a: Any, axis: Any = None, **kw: Any) -> Any:
            if axis.__class__ is tuple and len(axis) == a.ndim:
                axis = None
            return fn(a, axis=axis, **kw)

        kernel.__name__ = getattr(fn, "__name__", "kernel")
        return kernel

    def mean(a: Any, axis: Any = None, keepdims: bool = False) -> Any:
        # the sum (CUB's whole-array path where it applies) times 1/count: CuPy's own
        # mean runs at about 60% of its sum's bandwidth; an empty reduction gives NaN
        axes = range(a.ndim) if axis is None else axis if isinstance(axis, tuple) else (axis,)
        count = 1
        for ax in axes:
            count *= a.shape[ax]
        s = sum_(a, axis=axis, keepdims=keepdims)
        return xp.true_divide(s, count) if count else xp.true_divide(s, s.dtype.type(0))

    sum_ = whole(xp.sum)
    special: dict[str, Any] = {
        "sum": sum_, "prod": whole(xp.prod), "max": whole(xp.max),
        "min": whole(xp.min), "mean": mean if fast_mean else whole(xp.mean),
        "all": whole(xp.all),
        "any": whole(xp.any),
        "sort": sort, "argsort": argsort, "astype": astype, "reshape": reshape,
        "unique_all": unique_all, "unique_counts": unique_counts,
        "unique_inverse": unique_inverse, "unique_values": unique_values,
        "nonzero": nonzero, "meshgrid": meshgrid, "broadcast_arrays": broadcast_arrays,
        "unstack": unstack, "clip": clip, "searchsorted": searchsorted, "diff": diff,
        "cumulative_sum": cumulative(xp.cumsum, 0), "cumulative_prod": cumulative(xp.cumprod, 1),
        "var": whole(var_std(xp.var)), "std": whole(var_std(xp.std)), "count_nonzero": count_nonzero,
        "vecdot": vecdot, "repeat": repeat, "concat": concat,
        "tril": lambda a, k=0: xp.tril(a, k=k),
        "triu": lambda a, k=0: xp.triu(a, k=k),
        "round": lambda a: xp.round(a),
        "matrix_transpose": lambda a: xp.swapaxes(a, -1, -2),
        "copy": copy, "reduce_hypot": reduce_hypot,
    }
    out: dict[str, Any] = {}
    for name in KERNEL_NAMES:
        if name in CREATION:
            continue
        fn = special.get(name)
        if fn is None:
            fn = getattr(xp, name)
        out[name] = fn
    for name in ("copy", "reduce_hypot"):  # KERNEL_NAMES has them since the protocol refactor
        out[name] = special[name]
    if scalar_to_array is not None:
        out = {k: _arrayified(fn, scalar_to_array) for k, fn in out.items()}
    return out


def _arrayified(fn: Any, to_array: Callable[[Any], Any]) -> Any:
    def kernel(*args: Any, **kwargs: Any) -> Any:
        return to_array(fn(*args, **kwargs))

    kernel.__name__ = getattr(fn, "__name__", "kernel")
    return kernel


__all__ = ["CREATION", "UniqueAll", "UniqueCounts", "UniqueInverse", "kernels"]
