"""``x[key]`` and ``x[key] = value``: the standard's indexing rules over raw arrays.

Allowed keys: ints, slices, ``...``, ``None``, integer arrays (several axes at
once, 2024.12) and a boolean array.  Python lists, floats and NumPy arrays are
refused with IndexError, out-of-range integers too.
"""

from __future__ import annotations

import math
from typing import Any, NoReturn

import numpy as np

from . import _dtypes as dt
from . import _trace
from ._array import new_array, usm_ndarray
from ._device import Device, placement_error
from ._helpers import alloc_failed, check_scalar, not_an_operand
from ._hints import bad_key
from ._index_rules import bad_index
from ._scalars import py_scalar
from ._serial import locks_itself

_new = new_array

_SIMPLE = frozenset({int, slice, type(None), type(Ellipsis), bool})


def _basic(rk: Any) -> bool:
    """Whether a validated key holds no index arrays."""
    if type(rk) is tuple:
        for k in rk:
            if type(k) not in _SIMPLE:
                return False
        return True
    return type(rk) in _SIMPLE


def _bad_key(key: Any, whole: bool = True) -> IndexError:
    return IndexError(bad_key(key, whole))


def raw_key(be: Any, raw: Any, key: Any, deferred: list | None = None,
            scatter: bool = False) -> Any:
    """Validate ``key`` for ``raw`` (an array of backend ``be``) and return it with
    usm_ndarrays unwrapped.

    Keys of ints, slices, ``...`` and ``None`` pass straight to the provider, which
    checks their ranges and counts; array keys are unwrapped, device-checked (an
    index array on another backend or queue is ExecutionPlacementError) and, for
    integer arrays, bounds-checked (the provider would clip silently).  Given a list
    ``deferred`` and a backend that checks indices itself (``checks_indices``), or a
    ``scatter`` (the backend's ``scatter_checked`` may check them), the bounds checks
    of signed integer keys are appended to it instead, for :func:`check_deferred` where
    the backend's call failed or did not check (for a key with one index array only).
    """
    if deferred is not None and not (scatter or be.checks_indices):
        deferred = None
    t = type(key)
    if t is slice:
        if key.step is not None and _big_step(key):
            return _sane_step(key, raw.shape[0] if raw.ndim else 0)
        return key
    if t in _SIMPLE:
        return key
    if t is usm_ndarray:
        return _array_key(be, raw, key, 0, deferred)
    if isinstance(key, np.generic):
        return _numpy_key(key)
    if t is not tuple:
        raise _bad_key(key)
    for k in key:
        if type(k) not in _SIMPLE or (type(k) is slice and _big_step(k)):
            break
    else:
        return key
    key = tuple([_numpy_key(k) if isinstance(k, np.generic) else k for k in key])
    if deferred is not None and sum(type(k) is usm_ndarray for k in key) != 1:
        # NumPy skips its check where index arrays broadcast to an empty selection
        deferred = None
    out = list(key)
    n_after = [0] * (len(key) + 1)  # axes consumed by the keys after position i
    for i in range(len(key) - 1, -1, -1):
        n_after[i] = n_after[i + 1] + _axes_of(key[i])
    axis = 0
    for i, k in enumerate(key):
        tk = type(k)
        if tk is type(Ellipsis):
            axis = raw.ndim - n_after[i + 1]
            continue
        if tk is usm_ndarray:
            out[i] = _array_key(be, raw, k, axis, deferred)
        elif tk is slice and axis < raw.ndim:
            out[i] = _sane_step(k, raw.shape[axis])
        elif tk not in _SIMPLE:
            raise _bad_key(k, whole=False)
        axis += _axes_of(k)
    return tuple(out)


def _numpy_key(k: np.generic) -> Any:
    """A NumPy integer or bool scalar key is the Python int or bool it holds (the rule
    of _scalars.py: SciPy indexes with np.int64 positions); other NumPy scalars are
    refused as their Python kind would be."""
    v = py_scalar(k)
    if type(v) is int or type(v) is bool:
        return v
    raise _bad_key(k)


def _axes_of(k: Any) -> int:
    tk = type(k)
    if tk is usm_ndarray:
        return k._arr.ndim if k._arr.dtype is dt.bool else 1
    return 1 if tk is int or tk is slice else 0


def _array_key(be: Any, raw: Any, k: Any, axis: int, deferred: list | None) -> Any:
    a = k._arr
    d = a.dtype
    if d not in dt.INTEGER_OR_BOOLEAN:
        raise IndexError(f"array indices must have an integer or boolean dtype, got {d}")
    if k._be is not be or (be.multi_queue and be.queue_of(a) != be.queue_of(raw)):
        raise placement_error("indexing", k.device, Device._make(be, be.queue_of(raw)))
    if d is dt.bool:
        want = raw.shape[axis:axis + a.ndim]
        # each mask dimension matches the array's, or is 0 (an empty selection)
        if len(want) != a.ndim or any(m != n and m != 0 for m, n in zip(a.shape, want, strict=True)):
            raise IndexError(
                f"boolean index of shape {a.shape} does not match the indexed dimensions "
                f"{want} of an array of shape {raw.shape}"
            )
    elif a.size and axis < raw.ndim:
        if deferred is not None and d.kind == "i":
            # (unsigned keys are checked first: NumPy would read 2**64 - 1 as -1)
            deferred.append((a, axis, raw.shape[axis]))
        else:
            _check_index(be, a, axis, raw.shape[axis])
    return a


def _check_index(be: Any, a: Any, axis: int, n: int) -> None:
    bad = bad_index(be, a, n)
    if bad is not None:
        raise IndexError(
            f"integer array index {bad} is out of bounds for axis {axis} with size {n} "
            f"(an index must lie in [{-n}, {n}))"
        )


def check_deferred(be: Any, deferred: list) -> None:
    """The IndexError of the first deferred integer-array key (see :func:`raw_key`)
    with an index out of bounds, as :func:`raw_key` would have raised it; nothing when
    every index is in bounds."""
    for a, axis, n in deferred:
        _check_index(be, a, axis, n)


def gather_failed(exc: Exception, be: Any, raw: Any, rk: Any) -> NoReturn:
    """Raise for ``exc`` from ``raw[rk]`` (``rk`` from :func:`raw_key`): a MemoryError
    naming the size when the copy that array keys make could not be allocated."""
    if isinstance(exc, IndexError):  # the provider's range and count checks
        raise exc
    if isinstance(exc, OverflowError):  # an int key past the provider's index type
        raise IndexError(
            f"index {rk!r} is out of bounds for an array of shape {raw.shape}"
        ) from None
    keys = rk if type(rk) is tuple else (rk,)
    arrays = [k for k in keys if isinstance(k, be.array_type)]
    masks = [k.size for k in arrays if k.dtype is dt.bool]
    if masks:  # the provider first counts through each mask (an int64 per element)
        alloc_failed(exc, be, raw, max(masks) * 8, "__getitem__")
    count = math.prod(np.broadcast_shapes(*(k.shape for k in arrays))) if arrays else 0
    # every key but None, a bool and ... consumes one axis (masks are handled above)
    consumed = [k is not None and type(k) is not bool and k is not Ellipsis for k in keys]
    axis = 0
    for k, uses in zip(keys, consumed, strict=True):
        if type(k) is slice:
            count *= len(range(*k.indices(raw.shape[axis])))
        elif k is Ellipsis:
            rest = raw.ndim - sum(consumed)
            count *= math.prod(raw.shape[axis:axis + rest])
            axis += rest
        axis += uses
    count *= math.prod(raw.shape[axis:])
    alloc_failed(exc, be, raw, count * raw.itemsize, "__getitem__")


#: backend -> the dtypes of an index array that, as the whole key, the backend gathers
#: with nothing of :func:`raw_key` to do beforehand (see :func:`_lone_keys`)
_LONE_KEYS: dict[Any, frozenset[Any]] = {}


def _lone_keys(be: Any) -> frozenset[Any]:
    """The dtypes of :data:`_LONE_KEYS` for ``be``: bool (a mask of the array's own
    shape needs no check) and, where the backend checks indices itself
    (``checks_indices``), the signed integers; none where it has a lock or several
    queues (the key's queue is then checked)."""
    keys: frozenset[Any] = frozenset()
    if be.lock is None and not be.multi_queue:
        keys = frozenset({dt.bool} | ({dt.int8, dt.int16, dt.int32, dt.int64}
                                      if be.checks_indices else set()))
    _LONE_KEYS[be] = keys
    return keys


def getitem(self: usm_ndarray, key: Any, /) -> usm_ndarray:
    """``x[key]``: a view for ints, slices, ``...`` and ``None``; a copy for array keys."""
    out = _new(usm_ndarray)
    be = out._be = self._be
    tk = type(key)
    if tk is slice:
        if key.step is not None and _big_step(key):
            key = _sane_step(key, self._arr.shape[0] if self._arr.ndim else 0)
        try:
            out._arr = self._arr[key]
        except OverflowError:  # a bound past the provider's index type
            out._arr = self._arr[_clamped(key, self._arr.shape[0] if self._arr.ndim else 0)]
        return out
    if tk is usm_ndarray:  # one index array: the provider's gather, where it checks all
        a = key._arr
        lone = _LONE_KEYS.get(be)
        if lone is None:
            lone = _lone_keys(be)
        if a.dtype in lone and key._be is be and (
                a.dtype is not dt.bool or a.shape == self._arr.shape):
            try:
                r = be.getitem(self._arr, a)
            except Exception:  # noqa: S110 - the general path below names the error
                pass
            else:
                if r.ndim <= _MAX_NDIM:
                    out._arr = r if r.__class__ is be.array_type else be.as_array(r)
                    return out
    lk = be.lock
    if lk is not None:
        lk.acquire()
    try:
        deferred: list = []
        rk = raw_key(be, self._arr, key, deferred)
        try:
            r = be.getitem(self._arr, rk)
        except Exception as exc:
            check_deferred(be, deferred)
            _check_new_axes(self._arr, key)
            gather_failed(exc, be, self._arr, rk)
    finally:
        if lk is not None:
            lk.release()
    if r.ndim > _MAX_NDIM:
        raise IndexError(
            f"x[{key!r}] would have {r.ndim} dimensions; arrays have at most {_MAX_NDIM}"
        )
    out._arr = r if r.__class__ is be.array_type else be.as_array(r)
    return out


_MAX_NDIM = 64


def _check_new_axes(raw: Any, key: Any) -> None:
    """IndexError where the ``None`` entries of ``key`` alone would take ``raw`` past
    :data:`_MAX_NDIM` dimensions (a provider whose arrays stop at that limit raises its
    own error type before the result exists)."""
    if type(key) is tuple:
        n = raw.ndim + sum(k is None for k in key) - sum(type(k) is int for k in key)
        if n > _MAX_NDIM:
            raise IndexError(
                f"x[{key!r}] would have {n} dimensions; arrays have at most {_MAX_NDIM}")


#: slice steps of larger magnitude are clamped to the axis length (see _sane_step)
_STEP_LIMIT = 2**30


def _big_step(s: slice) -> bool:
    st = s.step
    return type(st) is int and not -_STEP_LIMIT <= st <= _STEP_LIMIT


def _sane_step(s: slice, n: int) -> slice:
    """``s`` for an axis of length ``n``, with a step past ``_STEP_LIMIT`` that also
    passes ``n`` clamped (:func:`_clamped`): such a step selects one element, but the
    provider gives that axis a stride of step times the old one, which overflows its
    host copies and exports from about 2**60."""
    if _big_step(s) and abs(s.step) > n:
        return _clamped(s, n)
    return s


def _clamped(s: slice, n: int) -> slice:
    """``s`` for an axis of length ``n`` with its bounds resolved and a step of magnitude
    past ``n`` clamped to ``n`` (the same elements, as NumPy selects them)."""
    start, stop, step = s.indices(n)
    if abs(step) > max(n, 1):
        step = max(n, 1) if step > 0 else -max(n, 1)
    return slice(start, stop if stop >= 0 else None, step)


def scatter(be: Any, raw: Any, rk: Any, v: Any, deferred: list | None = None) -> None:
    """``raw[rk] = v``; ``deferred``: the bounds checks :func:`raw_key` left to this
    call, done by the backend's ``scatter_checked`` where it takes the operands, else
    here before the backend's ``setitem``."""
    try:
        if deferred and not be.checks_indices:
            if be.scatter_checked(raw, rk, v):
                return
            check_deferred(be, deferred)  # raises where the backend refused
        be.setitem(raw, rk, v)
    except (OverflowError, ValueError) as exc:
        _scatter_failed(exc, be, raw, rk)


def _scatter_failed(exc: Exception, be: Any, raw: Any, rk: Any) -> NoReturn:
    """Raise for ``exc`` from ``raw[rk] = v``: an int key past the provider's index type
    (the value is checked) is an IndexError; a read-only target says why."""
    if isinstance(exc, OverflowError):
        raise IndexError(
            f"index {rk!r} is out of bounds for an array of shape {raw.shape}"
        ) from None
    if be.writable(raw):
        raise exc
    raise ValueError(read_only_message(be, raw)) from None


def read_only_message(be: Any, raw: Any) -> str:
    """Why writing into ``raw`` is refused, and what to write instead."""
    strides, shape = be.element_strides(raw), raw.shape
    if any(s == 0 and n > 1 for s, n in zip(strides, shape, strict=True)):
        why = ("it is a broadcast view (broadcast_to or broadcast_arrays, or a view of one): "
               "its elements share memory")
    else:
        why = ("its memory was imported read-only (DLPack's read-only flag or a read-only "
               "array interface), or it is a view of such an array or of a broadcast view")
    return (f"cannot write into this array of shape {shape}: it is read-only, as {why}; "
            "write into a copy instead: y = xp.asarray(x, copy=True)")


@locks_itself
def setitem(x: Any, key: Any, value: Any, /) -> None:
    """``x[key] = value`` with the 2025.12 rule: value's dtype must promote to x's; under
    ``x``'s backend's lock, where it has one."""
    if _trace.ACTIVE:
        _trace.impure("x[key] = value")
    be = x._be
    lk = be.lock
    if lk is not None:
        with lk:
            _setitem(x, key, value)
        return
    tk = type(key)
    if (type(value) is usm_ndarray and value._be is be and not be.multi_queue
            and (tk is int or tk is slice and key.step is None or key is Ellipsis)):
        # a basic key and an array of the target's dtype: nothing of raw_key or _assign
        # to do but the overlap copy
        raw, v = x._arr, value._arr
        if v.dtype is raw.dtype:
            if v.ndim and be.may_share_memory(raw, v):
                v = be.copy(v)  # the provider refuses overlapping scatter sources
            try:
                be.setitem(raw, key, v)
            except (OverflowError, ValueError) as exc:
                _scatter_failed(exc, be, raw, key)
            return
    _setitem(x, key, value)


def _setitem(x: Any, key: Any, value: Any) -> None:
    raw = x._arr
    deferred: list = []
    rk = raw_key(x._be, raw, key, deferred, scatter=True)
    if not deferred:
        _assign(x, raw, rk, value)
        return
    try:  # any error, the index's first as before: see raw_key
        _assign(x, raw, rk, value, deferred)
    except Exception:
        check_deferred(x._be, deferred)
        raise


def _assign(x: Any, raw: Any, rk: Any, value: Any, deferred: list | None = None) -> None:
    d = raw.dtype
    if type(value) is usm_ndarray:
        v = value._arr
        be = x._be
        if value._be is not be:
            raise placement_error("__setitem__", value.device, x.device)
        if be.multi_queue:
            qv, qx = be.queue_of(v), be.queue_of(raw)
            if qv is not qx and qv != qx:
                raise placement_error("__setitem__", value.device, x.device)
        vd = v.dtype
        if vd is not d and dt.PROMOTION_TABLE.get((d, vd)) != d:
            raise TypeError(
                f"__setitem__: cannot assign an array of dtype {vd} into an array of "
                f"dtype {d}; the value's dtype must promote to the target's"
            )
        # a 0-D value may overlap the target of a basic key (ints, slices, ..., None):
        # each element written gets its one value, the value's own element its own
        # value back (index-array scatters copy it: dpctl refuses overlapping sources)
        if (v.ndim or not _basic(rk)) and be.may_share_memory(raw, v):
            v = be.copy(v)  # the provider refuses overlapping scatter sources
        scatter(be, raw, rk, v, deferred)
        return
    value = py_scalar(value)
    if type(value) in (bool, int, float, complex):
        check_scalar(d, value, "__setitem__")
        scatter(x._be, raw, rk, value, deferred)
        return
    raise not_an_operand("__setitem__", value, "the value")
