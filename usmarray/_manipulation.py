"""Manipulation functions (array API 2025.12).

Views are made by indexing the raw array wherever the result is a view
(expand_dims, flip, squeeze, unstack); the provider's kernels do the copies.
Axis errors are IndexError, shape and repeated-axis errors ValueError, dtype
errors TypeError.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any, cast

from . import _dtypes as dt
from . import _form, _serial
from . import _index_rules as rules
from ._array import new_array, usm_ndarray, wrap_with
from ._helpers import (
    MAX_NBYTES,
    alloc_failed,
    broadcast_shape,
    check_array,
    check_nbytes,
    normalize_axis,
    same_device,
)
from ._params import flag, int_or_ints, integer, integers
from ._serial import locks_itself

__all__ = [
    "broadcast_arrays", "broadcast_shapes", "broadcast_to", "concat", "expand_dims",
    "flip", "moveaxis", "permute_dims", "repeat", "reshape", "roll", "squeeze",
    "stack", "tile", "unstack",
]

_PROMOTION = dt.PROMOTION_TABLE
_new = new_array
_ALL = slice(None)
_REVERSE = slice(None, None, -1)
#: the key that reverses every axis of an array of n dimensions, by n (``flip``)
_REVERSE_ALL = tuple((_REVERSE,) * n for n in range(65))


# ---- shared helpers (also used by the other namespace modules) -------------------------
def axes_tuple(axis: Any, ndim: int, fname: str, *, lists: bool = False) -> tuple[int, ...]:
    """An integer or a tuple of integers (a list too where ``lists``: where
    array-api-strict takes one) -> normalized axes (in the given order); IndexError
    when out of range, ValueError when repeated."""
    axis = int_or_ints(axis, fname, "axis", lists=lists)
    if type(axis) is tuple:
        axes = tuple([normalize_axis(a, ndim, fname) for a in axis])
        if len(set(axes)) != len(axes):
            raise ValueError(f"{fname}: repeated axis in axis={axis}")
        return axes
    return (normalize_axis(axis, ndim, fname),)


def int_tuple(value: Any, fname: str, argname: str) -> tuple[int, ...]:
    """A tuple of Python ints (bools refused); a shape has at most 64 entries (NumPy's
    limit, the same on every backend)."""
    if type(value) is tuple and argname == "shape" and len(value) > 64:
        raise ValueError(f"{fname}: an array has at most 64 dimensions, got {len(value)}")
    for v in value if type(value) is tuple else ():
        if type(v) is not int:
            break
    else:
        if type(value) is tuple:
            return value
    return integers(value, fname, argname)


def _array_sequence(arrays: Any, fname: str) -> Sequence[usm_ndarray]:
    if not isinstance(arrays, (tuple, list)):  # namedtuples too (SciPy's results)
        raise TypeError(
            f"{fname}: arrays must be a tuple or list of arrays, got {type(arrays).__name__}"
        )
    if not arrays:
        raise ValueError(f"{fname}: needs at least one array")
    for i, a in enumerate(arrays):
        if type(a) is not usm_ndarray:
            raise TypeError(
                f"{fname}: arrays[{i}] must be a usmarray.usm_ndarray, got "
                f"{type(a).__name__}; convert it with usmarray.asarray()"
            )
    if len(arrays) > 1:
        be = arrays[0]._be
        if be.multi_queue:
            same_device(fname, *arrays)
        else:  # one queue per backend: the backend check is the device check
            for a in arrays:
                if a._be is not be:
                    same_device(fname, *arrays)
    return arrays  # type: ignore[no-any-return]  # the caller's own tuple or list


def _promotion(arrays: Sequence[usm_ndarray], fname: str) -> tuple[list[Any], list[Any], Any]:
    """The raw arrays, their dtypes and the common dtype, reading each dtype once (the
    provider builds a dtype object on every read)."""
    raws = [a._arr for a in arrays]
    dtypes = [r.dtype for r in raws]
    d = dtypes[0]
    for d2 in dtypes[1:]:
        if d2 is not d:
            r = _PROMOTION.get((d, d2))
            if r is None:
                dt.promote(d, d2, fname)
            d = r
    return raws, dtypes, d


def _cast_all(be: Any, raws: list[Any], dtypes: list[Any], d: Any) -> list[Any]:
    for rd in dtypes:
        if rd is not d:
            return [r if rd is d else be.astype(r, d) for r, rd in zip(raws, dtypes, strict=True)]
    return raws


# ---- broadcasting ---------------------------------------------------------------------------
def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The shape that broadcasting arrays of ``shapes`` against one another gives.

    Parameters
    ----------
    *shapes : tuple of int
        Shapes (lists of ints are taken too) of non-negative dimensions.

    Returns
    -------
    tuple of int
        The broadcast shape; ``()`` for no shape.

    Raises
    ------
    TypeError
        A shape that is not a tuple of ints.
    ValueError
        Shapes that do not broadcast; a negative dimension.

    Notes
    -----
    A pure shape computation: no array, no device.

    See Also
    --------
    [array_api.broadcast_shapes](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.broadcast_shapes.html): the standard's specification.
    """
    if not shapes:
        return ()
    checked = []
    for s in shapes:
        s = int_tuple(tuple(s) if type(s) is list else s, "broadcast_shapes", "each shape")
        for n in s:
            if n < 0:
                raise ValueError(f"broadcast_shapes: negative dimension in shape {s}")
        checked.append(s)
    return broadcast_shape("broadcast_shapes", *checked)


def broadcast_arrays(*arrays: usm_ndarray) -> tuple[usm_ndarray, ...]:
    """Views of ``arrays`` broadcast to their common shape.

    Parameters
    ----------
    *arrays : usm_ndarray
        Arrays on one device.

    Returns
    -------
    tuple of usm_ndarray
        One view per input (the input itself where its shape is already the common one);
        ``()`` for no input.  A list before version 2025.12 of the standard.

    Raises
    ------
    TypeError
        An argument that is not a ``usm_ndarray``.
    ValueError
        Shapes that do not broadcast.
    ExecutionPlacementError
        Arrays on different devices (a subclass of ValueError).

    Notes
    -----
    The views share their input's memory, device and usm_type; broadcast axes have
    stride 0, so write to them only through a copy.  Unlike NumPy, usmarray refuses NumPy
    arrays and ``subok=``.

    See Also
    --------
    [array_api.broadcast_arrays](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.broadcast_arrays.html): the standard's specification.
    """
    if not arrays:
        return ()
    for i, a in enumerate(arrays):
        check_array(a, "broadcast_arrays", f"arrays[{i}]")
    if len(arrays) > 1:
        same_device("broadcast_arrays", *arrays)
    shape = broadcast_shape("broadcast_arrays", *[a._arr.shape for a in arrays])
    be = arrays[0]._be
    return tuple(
        a if a._arr.shape == shape else wrap_with(be, be.broadcast_to(a._arr, shape))
        for a in arrays
    )


def broadcast_to(x: usm_ndarray, /, shape: tuple[int, ...]) -> usm_ndarray:
    """A view of ``x`` broadcast to ``shape``.

    Parameters
    ----------
    x : usm_ndarray
        The array to broadcast.
    shape : tuple of int
        The target shape (a list of ints is taken too); ``x``'s shape must broadcast to
        it.

    Returns
    -------
    usm_ndarray
        A view of ``x``'s memory of shape ``shape``, on ``x``'s device with its usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; ``shape`` is not a tuple of ints.
    ValueError
        ``x``'s shape does not broadcast to ``shape``.

    Notes
    -----
    Unlike NumPy, usmarray refuses NumPy arrays and ``subok=``.

    See Also
    --------
    [array_api.broadcast_to](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.broadcast_to.html): the standard's specification.
    """
    check_array(x, "broadcast_to")
    # a list of ints too, as array-api-strict and NumPy take it (SciPy passes one)
    shape = int_tuple(tuple(shape) if type(shape) is list else shape, "broadcast_to", "shape")
    a = x._arr
    xs = a.shape
    off = len(shape) - len(xs)
    ok = off >= 0 and all(n >= 0 for n in shape)
    if ok:
        for i, n in enumerate(xs):
            if n != 1 and n != shape[off + i]:
                ok = False
                break
    if not ok:
        raise ValueError(
            f"broadcast_to: an array of shape {xs} cannot be broadcast to shape {shape}"
        )
    return wrap_with(x._be, x._be.broadcast_to(a, shape))


# ---- joining and splitting ------------------------------------------------------------------
@locks_itself
def concat(arrays: Any, /, *, axis: int | None = 0) -> usm_ndarray:
    """Arrays joined along an existing axis, with the standard's type promotion.

    Parameters
    ----------
    arrays : tuple or list of usm_ndarray
        At least one array, on one device, of dtypes the standard promotes together;
        their shapes agree except along ``axis``.
    axis : int or None, optional
        The axis to join along (negative counts from the end); None: flatten every array
        first.  Default 0.

    Returns
    -------
    usm_ndarray
        A new array of the promoted dtype, on the arrays' device.

    Raises
    ------
    TypeError
        ``arrays`` is not a tuple or list, or holds something other than a
        ``usm_ndarray``; dtypes the standard does not promote (int64 with float64).
    ValueError
        No array; shapes that differ off ``axis``; 0-D arrays with an ``axis``.
    IndexError
        ``axis`` out of range.
    ExecutionPlacementError
        Arrays on different devices (a subclass of ValueError).
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    The result's usm_type is the most device-like of the inputs' (docs/usm-types.md).
    Unlike NumPy, usmarray refuses mixed-kind promotion and ``out=``, ``dtype=`` and
    ``casting=``.

    See Also
    --------
    [array_api.concat](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.concat.html): the standard's specification.
    """
    if (type(arrays) is list or type(arrays) is tuple) and len(arrays) > 1 and type(axis) is int:
        lean = _lean_join(arrays, axis, 0, "concat")
        if lean is not None:
            return lean
    lk = _serial.LOCK  # the general path: under the lock, as every sequence call
    if lk is None:
        return _concat(arrays, axis)
    with lk:
        return _concat(arrays, axis)


def _lean_join(arrays: Sequence[Any], axis: int, new_axis: int, kernel: str) -> usm_ndarray | None:
    """``concat`` (``new_axis`` 0) or ``stack`` (1) of arrays of one shape and dtype on a
    lock-free backend with one queue, along an axis in range: the backend's ``kernel`` at
    once; None for any other call, or where the kernel fails (the general path names the
    error)."""
    a0 = arrays[0]
    if type(a0) is not usm_ndarray:
        return None
    be = a0._be
    if be.lock is not None or be.multi_queue:
        return None
    r0 = a0._arr
    d, s0 = r0.dtype, r0.shape
    ndim = len(s0) + new_axis
    if axis < 0:
        axis += ndim
    if not 0 <= axis < ndim:
        return None
    raws = [r0]
    for a in arrays[1:]:
        if type(a) is not usm_ndarray or a._be is not be:
            return None
        r = a._arr
        if r.dtype is not d or r.shape != s0:
            return None
        raws.append(r)
    if r0.size * len(raws) * d.itemsize > MAX_NBYTES:
        return None
    try:
        raw = getattr(be, kernel)(raws, axis=axis)
    except Exception:
        return None
    out = _new(usm_ndarray)
    out._arr = raw
    out._be = be
    return out


def _concat(arrays: Any, axis: int | None) -> usm_ndarray:
    arrs = _array_sequence(arrays, "concat")
    be = arrs[0]._be
    raws, dtypes, d = _promotion(arrs, "concat")
    nbytes = 0
    for r in raws:
        nbytes += r.size
    nbytes *= d.itemsize
    check_nbytes(be, raws[0], nbytes, "concat")
    if axis is None:
        try:
            flat = [r if r.ndim == 1 else be.reshape(r, (r.size,))
                    for r in _cast_all(be, raws, dtypes, d)]
            return wrap_with(be, be.concat(flat, axis=0))
        except Exception as exc:
            alloc_failed(exc, be, raws[0], nbytes, "concat")
    first = raws[0].shape
    ndim = len(first)
    if ndim == 0:
        raise ValueError("concat: 0-D arrays cannot be joined along an axis; use axis=None")
    ax = normalize_axis(axis, ndim, "concat")
    head, tail = first[:ax], first[ax + 1:]
    for i, r in enumerate(raws[1:], 1):
        s = r.shape
        if s != first and (len(s) != ndim or s[:ax] != head or s[ax + 1:] != tail):
            raise ValueError(
                f"concat: arrays[{i}] has shape {s}, arrays[0] has shape {first}; shapes "
                f"must agree except along axis {ax}"
            )
    try:
        if len(raws) == 1:
            r = raws[0]
            return wrap_with(be, be.copy(r) if dtypes[0] is d else be.astype(r, d))
        return wrap_with(be, be.concat(_cast_all(be, raws, dtypes, d), axis=ax))
    except Exception as exc:
        alloc_failed(exc, be, raws[0], nbytes, "concat")


@locks_itself
def stack(arrays: Any, /, *, axis: int = 0) -> usm_ndarray:
    """Arrays of one shape joined along a new axis, with the standard's type promotion.

    Parameters
    ----------
    arrays : tuple or list of usm_ndarray
        At least one array, all of one shape, on one device, of dtypes the standard
        promotes together.
    axis : int, optional
        Position of the new axis in the result (negative counts from the end).

    Returns
    -------
    usm_ndarray
        A new array of the promoted dtype, one dimension more than the inputs, on their
        device.

    Raises
    ------
    TypeError
        ``arrays`` is not a tuple or list, or holds something other than a
        ``usm_ndarray``; dtypes the standard does not promote.
    ValueError
        No array; arrays of different shapes.
    IndexError
        ``axis`` out of range.
    ExecutionPlacementError
        Arrays on different devices (a subclass of ValueError).
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    The result's usm_type is the most device-like of the inputs' (docs/usm-types.md).
    Unlike NumPy, usmarray refuses mixed-kind promotion and ``out=``, ``dtype=`` and
    ``casting=``.

    See Also
    --------
    [array_api.stack](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.stack.html): the standard's specification.
    """
    if (type(arrays) is list or type(arrays) is tuple) and len(arrays) > 1 and type(axis) is int:
        lean = _lean_join(arrays, axis, 1, "stack")
        if lean is not None:
            return lean
    lk = _serial.LOCK  # the general path: under the lock, as every sequence call
    if lk is None:
        return _stack(arrays, axis)
    with lk:
        return _stack(arrays, axis)


def _stack(arrays: Any, axis: int) -> usm_ndarray:
    """``stack`` by the general path: any arrays, dtypes and axis."""
    arrs = _array_sequence(arrays, "stack")
    first = arrs[0]._arr.shape
    for i, a in enumerate(arrs[1:], 1):
        if a._arr.shape != first:
            raise ValueError(
                f"stack: arrays[{i}] has shape {a._arr.shape}, arrays[0] has shape {first}; "
                "all arrays must have the same shape"
            )
    raws, dtypes, d = _promotion(arrs, "stack")
    ax = normalize_axis(axis, len(first) + 1, "stack")
    be = arrs[0]._be
    nbytes = len(raws) * raws[0].size * d.itemsize
    check_nbytes(be, raws[0], nbytes, "stack")
    try:
        return wrap_with(be, be.stack(_cast_all(be, raws, dtypes, d), axis=ax))
    except Exception as exc:
        alloc_failed(exc, be, raws[0], nbytes, "stack")


def unstack(x: usm_ndarray, /, *, axis: int = 0) -> tuple[usm_ndarray, ...]:
    """Views of ``x``, one per index along ``axis``.

    Parameters
    ----------
    x : usm_ndarray
        The array to split.
    axis : int, optional
        The axis to split along (negative counts from the end).  Default 0.

    Returns
    -------
    tuple of usm_ndarray
        ``x.shape[axis]`` views of ``x``'s memory, each without ``axis`` (0-D arrays for
        a 1-D ``x``), on ``x``'s device with its usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``.
    IndexError
        ``axis`` out of range.

    See Also
    --------
    [array_api.unstack](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.unstack.html): the standard's specification.
    """
    check_array(x, "unstack")
    a = x._arr
    ax = normalize_axis(axis, a.ndim, "unstack")
    be = x._be
    lead = (_ALL,) * ax
    # the trailing ... keeps a 1-D input's parts 0-D arrays (NumPy gives scalars for a[i])
    return tuple(wrap_with(be, a[lead + (i, ...)]) for i in range(a.shape[ax]))


# ---- shape changes --------------------------------------------------------------------------
def expand_dims(x: usm_ndarray, /, axis: int | tuple[int, ...]) -> usm_ndarray:
    """A view of ``x`` with axes of size one inserted at ``axis``.

    Parameters
    ----------
    x : usm_ndarray
        The array.
    axis : int or tuple of int
        Positions of the new axes in the result (negative counts from the end of the
        result); a tuple from version 2025.12 of the standard.

    Returns
    -------
    usm_ndarray
        A view of ``x``'s memory, on ``x``'s device with its usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; ``axis`` is not an int or a tuple of ints.
    IndexError
        A position out of range for the result.
    ValueError
        A repeated position; a result of more than 64 dimensions.

    See Also
    --------
    [array_api.expand_dims](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.expand_dims.html): the standard's specification.
    """
    check_array(x, "expand_dims")
    a = x._arr
    n_new = len(axis) if type(axis) is tuple else 1
    m = a.ndim + n_new
    if m > 64:
        raise ValueError(f"expand_dims: an array has at most 64 dimensions, the result would "
                         f"have {m}")
    new = axes_tuple(axis, m, "expand_dims", lists=True)
    key = tuple([None if i in new else _ALL for i in range(m)])
    return wrap_with(x._be, a[key])


def squeeze(x: usm_ndarray, /, axis: int | tuple[int, ...]) -> usm_ndarray:
    """A view of ``x`` without the axes ``axis``, each of size one.

    Parameters
    ----------
    x : usm_ndarray
        The array.
    axis : int or tuple of int
        The axes to remove (negative counts from the end); required.

    Returns
    -------
    usm_ndarray
        A view of ``x``'s memory (0-D when every axis goes), on ``x``'s device with its
        usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; ``axis`` is not an int or a tuple of ints.
    IndexError
        An axis out of range.
    ValueError
        An axis whose size is not one; a repeated axis.

    Notes
    -----
    Unlike NumPy, ``axis`` is required: usmarray never removes every axis of size one
    unasked.

    See Also
    --------
    [array_api.squeeze](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.squeeze.html): the standard's specification.
    """
    check_array(x, "squeeze")
    a = x._arr
    shape = a.shape
    axes = axes_tuple(axis, a.ndim, "squeeze")
    for ax in axes:
        if shape[ax] != 1:
            raise ValueError(
                f"squeeze: axis {ax} has size {shape[ax]}; only axes of size 1 can be removed"
            )
    if not axes:
        return wrap_with(x._be, a[...])
    key = tuple([0 if i in axes else _ALL for i in range(a.ndim)])
    return wrap_with(x._be, a[key + (...,)])  # 0-D view, not a NumPy scalar, when all go


def flip(x: usm_ndarray, /, *, axis: int | tuple[int, ...] | None = None) -> usm_ndarray:
    """A view of ``x`` with the order of elements reversed along ``axis``.

    Parameters
    ----------
    x : usm_ndarray
        The array.
    axis : int or tuple of int, optional
        The axes to reverse (negative counts from the end); None: every axis.

    Returns
    -------
    usm_ndarray
        A view of ``x``'s memory (negative strides), on ``x``'s device with its usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; ``axis`` is not an int, a tuple of ints or None.
    IndexError
        An axis out of range.
    ValueError
        A repeated axis.

    See Also
    --------
    [array_api.flip](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.flip.html): the standard's specification.
    """
    check_array(x, "flip")
    a = x._arr
    if axis is None:
        key = _REVERSE_ALL[a.ndim]
    else:
        axes = axes_tuple(axis, a.ndim, "flip", lists=True)
        key = tuple([_REVERSE if i in axes else _ALL for i in range(a.ndim)])
    return wrap_with(x._be, a[key] if key else a[...])


def permute_dims(x: usm_ndarray, /, axes: tuple[int, ...]) -> usm_ndarray:
    """A view of ``x`` with its axes in the order ``axes``.

    Parameters
    ----------
    x : usm_ndarray
        The array.
    axes : tuple of int
        A permutation of ``x``'s axes (negative counts from the end, as in version
        2025.12 of the standard; a list is taken too).

    Returns
    -------
    usm_ndarray
        A view of ``x``'s memory, on ``x``'s device with its usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; ``axes`` is not a tuple of ints.
    ValueError
        ``axes`` does not have one entry per axis, or repeats an axis.
    IndexError
        An axis out of range.

    See Also
    --------
    [array_api.permute_dims](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.permute_dims.html): the standard's specification.
    """
    if type(x) is not usm_ndarray:
        check_array(x, "permute_dims")
    a = x._arr
    if type(axes) is tuple and len(axes) == a.ndim:  # the common case: non-negative ints
        seen = 0
        for v in axes:
            if type(v) is not int or v < 0 or v >= len(axes):
                break
            seen |= 1 << v
        else:
            if seen == (1 << len(axes)) - 1:  # each axis once: a permutation
                out = _new(usm_ndarray)
                out._be = be = x._be
                out._arr = be.permute_dims(a, axes)
                return out
    if type(axes) is list:  # accepted as array-api-strict does (SciPy passes lists)
        axes = tuple(axes)
    if type(axes) is not tuple:
        raise TypeError(f"permute_dims: axes must be a tuple of ints, got {type(axes).__name__}")
    if len(axes) != a.ndim:
        raise ValueError(
            f"permute_dims: axes {axes} has {len(axes)} entries; an array of {a.ndim} "
            f"dimensions needs a permutation of {a.ndim} axes"
        )
    perm = axes_tuple(axes, a.ndim, "permute_dims")
    return wrap_with(x._be, x._be.permute_dims(a, perm))


def moveaxis(
    x: usm_ndarray, source: int | tuple[int, ...], destination: int | tuple[int, ...], /
) -> usm_ndarray:
    """A view of ``x`` with the axes ``source`` moved to the positions ``destination``, the
    others keeping their order.

    Parameters
    ----------
    x : usm_ndarray
        The array.
    source : int or tuple of int
        The axes to move (negative counts from the end; a list is taken too).
    destination : int or tuple of int
        Their new positions, as many as ``source``.

    Returns
    -------
    usm_ndarray
        A view of ``x``'s memory, on ``x``'s device with its usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; an axis that is not an int.
    ValueError
        ``source`` and ``destination`` of different lengths; a repeated axis.
    IndexError
        An axis out of range.

    See Also
    --------
    [array_api.moveaxis](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.moveaxis.html): the standard's specification.
    """
    check_array(x, "moveaxis")
    a = x._arr
    nd = a.ndim
    # lists of axes are accepted as in permute_dims (array-api-strict and NumPy do)
    src = axes_tuple(tuple(source) if type(source) is list else source, nd, "moveaxis")
    dst = axes_tuple(tuple(destination) if type(destination) is list else destination, nd,
                     "moveaxis")
    if len(src) != len(dst):
        raise ValueError(
            f"moveaxis: source {source} and destination {destination} must name the same "
            "number of axes"
        )
    rest = [i for i in range(nd) if i not in src]
    for d_, s_ in sorted(zip(dst, src, strict=True)):
        rest.insert(d_, s_)
    return wrap_with(x._be, x._be.permute_dims(a, tuple(rest)))


def reshape(x: usm_ndarray, /, shape: tuple[int, ...], *, copy: bool | None = None) -> usm_ndarray:
    """``x``'s elements, in row-major order, in an array of ``shape``.

    Parameters
    ----------
    x : usm_ndarray
        The array.
    shape : tuple of int
        The new shape, of ``x``'s size; one entry may be -1, inferred from the others.
    copy : bool, optional
        True: always copy.  False: never copy (ValueError where a view is impossible).
        None (default): a view where ``x``'s strides allow one, else a copy.

    Returns
    -------
    usm_ndarray
        A view of ``x``'s memory or a copy (see ``copy``), on ``x``'s device with its
        usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; ``shape`` is not a tuple of ints; ``copy`` not
        True, False or None.
    ValueError
        A size that differs from ``x``'s; more than one -1 or another negative entry;
        ``copy=False`` where a copy is needed.
    MemoryError
        A copy the device cannot hold.

    Notes
    -----
    Unlike NumPy, usmarray refuses ``order=`` ("F") and ``newshape=``.

    See Also
    --------
    [array_api.reshape](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.reshape.html): the standard's specification.
    """
    if type(x) is not usm_ndarray:
        check_array(x, "reshape")
    if copy is None and type(shape) is tuple and len(shape) <= 64:
        for n in shape:
            if type(n) is not int or n < -1:
                break
        else:  # plain ints: the provider checks the size; a refusal is re-diagnosed below
            be = x._be
            try:
                raw = be.reshape(x._arr, shape)
            except (ValueError, TypeError):
                pass
            except Exception as exc:  # a copy that could not be allocated
                alloc_failed(exc, be, x._arr, x._arr.size * x._arr.itemsize, "reshape")
            else:
                out = _new(usm_ndarray)
                out._arr = raw
                out._be = be
                return out
    if type(shape) is int:
        shape = (shape,)
    shape = int_tuple(shape, "reshape", "shape")
    if copy is not None and copy is not True and copy is not False:
        copy = flag(copy, "reshape", "copy")
    a = x._arr
    size = a.size
    known = 1
    unknown = -1
    for i, n in enumerate(shape):
        if n == -1:
            if unknown >= 0:
                raise ValueError(f"reshape: shape {shape} has more than one -1")
            unknown = i
        elif n < 0:
            raise ValueError(f"reshape: shape {shape} has a negative dimension")
        else:
            known *= n
    if unknown >= 0:
        if known == 0 or size % known:
            raise ValueError(
                f"reshape: cannot infer the -1 dimension of shape {shape} for an array "
                f"of size {size}"
            )
        shape = shape[:unknown] + (size // known,) + shape[unknown + 1:]
    elif known != size:
        raise ValueError(
            f"reshape: an array of size {size} (shape {a.shape}) cannot be reshaped to "
            f"{shape} (size {known})"
        )
    be = x._be
    if copy:
        try:
            return wrap_with(be, be.reshape(be.copy(a), shape))
        except Exception as exc:
            alloc_failed(exc, be, a, size * a.itemsize, "reshape")
    try:
        return wrap_with(be, be.reshape(a, shape, copy=copy))
    except ValueError as exc:
        raise ValueError(f"reshape: {exc}") from None
    except Exception as exc:
        alloc_failed(exc, be, a, size * a.itemsize, "reshape")


def roll(
    x: usm_ndarray,
    /,
    shift: int | tuple[int, ...],
    *,
    axis: int | tuple[int, ...] | None = None,
) -> usm_ndarray:
    """``x``'s elements shifted by ``shift`` places along ``axis``, wrapping around.

    Parameters
    ----------
    x : usm_ndarray
        The array.
    shift : int or tuple of int
        Places to shift (negative: backwards); a tuple needs a tuple ``axis`` of the same
        length.
    axis : int or tuple of int, optional
        The axes to shift along (an axis named twice is shifted by the sum); None: the
        flattened array, reshaped back.

    Returns
    -------
    usm_ndarray
        A new array of ``x``'s shape and dtype, on ``x``'s device with its usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; ``shift`` is not an int or a tuple of ints.
    ValueError
        ``shift`` and ``axis`` of different lengths, or a tuple ``shift`` with an int or
        None ``axis``.
    IndexError
        An axis out of range.
    MemoryError
        The device cannot hold the result.

    See Also
    --------
    [array_api.roll](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.roll.html): the standard's specification.
    """
    check_array(x, "roll")
    a = x._arr
    be = x._be
    shift = int_or_ints(shift, "roll", "shift")
    shifts = shift if type(shift) is tuple else None
    # how: (shift, axis) for the provider's roll, or None for a plain copy
    how: tuple[Any, Any] | None
    if axis is None:
        if shifts is not None:
            raise ValueError("roll: a tuple shift needs a tuple axis of the same length")
        how = (shift, None) if a.size else None
    else:
        axis = int_or_ints(axis, "roll", "axis", lists=True)  # a list: as array-api-strict
        if type(axis) is tuple:
            axes = tuple([normalize_axis(ax, a.ndim, "roll") for ax in axis])
        else:
            axes = (normalize_axis(axis, a.ndim, "roll"),)
        if shifts is None:
            shifts = (cast(int, shift),) * len(axes)
        elif len(shifts) != len(axes) or type(axis) is not tuple:
            raise ValueError(
                f"roll: shift {shift} and axis {axis} must be tuples of the same length"
            )
        total = [0] * a.ndim
        for s, ax in zip(shifts, axes, strict=True):
            total[ax] += s
        used = tuple(i for i in range(a.ndim) if total[i] and a.shape[i])
        how = (tuple(total[i] for i in used), used) if used else None
    try:
        return wrap_with(be, be.copy(a) if how is None else be.roll(a, how[0], axis=how[1]))
    except Exception as exc:
        alloc_failed(exc, be, a, a.size * a.itemsize, "roll")


def repeat(x: usm_ndarray, repeats: int | usm_ndarray, /, *, axis: int | None = None) -> usm_ndarray:
    """Each element of ``x`` repeated ``repeats`` times along ``axis``.

    Parameters
    ----------
    x : usm_ndarray
        The array.
    repeats : int or usm_ndarray
        A non-negative int, or an integer array of shape ``(1,)`` or ``(N,)``, ``N``
        being the length of ``axis``, on ``x``'s device.
    axis : int, optional
        The axis to repeat along (negative counts from the end); None: the flattened
        array.

    Returns
    -------
    usm_ndarray
        A new array of ``x``'s dtype, on ``x``'s device with its usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; ``repeats`` is neither an int nor an integer
        array (a list, a NumPy array).
    ValueError
        A repeat below 0 or of 2**63 or more, read as the value it holds whatever its
        dtype; a ``repeats`` array of another shape; an empty result longer than
        2**63 - 1 along ``axis``.
    IndexError
        ``axis`` out of range.
    ExecutionPlacementError
        A ``repeats`` array on another device (a subclass of ValueError).
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Unlike NumPy, usmarray refuses a list or NumPy array of repeats: pass an array of
    usmarray.

    See Also
    --------
    [array_api.repeat](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.repeat.html): the standard's specification.
    """
    check_array(x, "repeat")
    a = x._arr
    be = x._be
    if axis is None:
        ax = 0
        n = a.size
    else:
        ax = normalize_axis(axis, a.ndim, "repeat")
        n = a.shape[ax]
    # the result holds total * rest elements, rest being the elements per index along axis
    rest = a.size // n if n else 0
    reps: Any = repeats
    if type(repeats) is usm_ndarray:
        r = repeats._arr
        same_device("repeat", x, repeats)
        if r.dtype not in dt.INTEGER:
            raise TypeError(f"repeat: a repeats array must have an integer dtype, got {r.dtype}")
        if r.ndim != 1 or r.shape[0] not in (1, n):
            raise ValueError(
                f"repeat: a repeats array must have shape (1,) or ({n},), got {r.shape}"
            )
        most = rules.check_counts(be, r, "repeat")
        if r.shape[0] == 1:
            reps = most
            total = n * reps
        else:
            total = n * most  # a bound
            if not rest or total > rules.INT64_MAX or total * rest * a.itemsize > MAX_NBYTES:
                # the shape of an empty result, or a sum the provider's int64 running
                # sum could wrap around: sum exactly
                total = sum(be.to_host(r).tolist())
            reps = r if r.dtype is dt.int64 else be.astype(r, dt.int64)
    else:
        reps = repeats = integer(repeats, "repeat", "repeats")
        total = n * rules.check_count(repeats, "repeat")
    nbytes = total * rest * a.itemsize
    check_nbytes(be, a, nbytes, "repeat")
    if total > rules.INT64_MAX:  # (an empty result: others are a MemoryError first)
        raise ValueError(
            f"repeat: the result would have {total} elements along axis {ax}; an axis "
            "holds at most 2**63 - 1"
        )
    if not nbytes:  # nothing to copy (a provider may still loop over every repeat)
        shape = (total,) if axis is None else a.shape[:ax] + (total,) + a.shape[ax + 1:]
        return wrap_with(be, be.empty(shape, dtype=a.dtype, usm_type=be.usm_type_of(a),
                                      queue=be.queue_of(a)))
    try:
        if axis is None and a.ndim != 1:
            a = be.reshape(a, (n,))
        return wrap_with(be, be.repeat(a, reps, axis=ax))
    except ValueError as exc:
        raise ValueError(f"repeat: {exc}") from None
    except Exception as exc:
        alloc_failed(exc, be, a, nbytes, "repeat")


def tile(x: usm_ndarray, repetitions: tuple[int, ...], /) -> usm_ndarray:
    """``x`` repeated ``repetitions[i]`` times along each axis ``i``.

    Parameters
    ----------
    x : usm_ndarray
        The array.
    repetitions : tuple of int
        Non-negative repetitions per axis; the shorter of ``repetitions`` and ``x.shape``
        is padded with ones at the front.

    Returns
    -------
    usm_ndarray
        A new array of ``x``'s dtype, on ``x``'s device with its usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``; ``repetitions`` is not a tuple of ints (an int
        alone, as NumPy takes, is refused).
    ValueError
        A negative repetition.
    MemoryError
        The device cannot hold the result.

    See Also
    --------
    [array_api.tile](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.tile.html): the standard's specification.
    """
    check_array(x, "tile")
    reps = int_tuple(repetitions, "tile", "repetitions")
    for r in reps:
        if r < 0:
            raise ValueError(f"tile: repetitions must be non-negative, got {reps}")
    a = x._arr
    be = x._be
    nbytes = a.size * math.prod(reps) * a.itemsize
    check_nbytes(be, a, nbytes, "tile")
    try:
        return wrap_with(be, be.tile(a, reps))
    except Exception as exc:
        alloc_failed(exc, be, a, nbytes, "tile")


if _form.core is not None:
    # the compiled core's lean reshape and permute_dims (usmarray/_core.pyx) of plain
    # int shapes and permutations, in front of these functions (as the namespace leaves
    # them), which they call for everything else
    reshape._usmarray_front = functools.partial(  # type: ignore[attr-defined]
        _form.core.install_front, "reshape", serial_lock=_serial.LOCK)
    permute_dims._usmarray_front = functools.partial(  # type: ignore[attr-defined]
        _form.core.install_front, "permute_dims")
