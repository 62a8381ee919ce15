"""As strict as array-api-strict, no stricter: every parameter check of the namespace
against array-api-strict's, parameter by parameter.

Each row of ``PARAMS`` is one parameter of one function (the namespace, ``linalg``,
``fft``): a call that takes the parameter's value, and the value a client would write.
Each row is called with that value spelled the ways clients spell it (a NumPy integer,
a 0-D array of the namespace, a bool, a float, a list for a tuple, ...), once with
array-api-strict and once with usmarray.  Where array-api-strict accepts the call,
usmarray must accept it and give the same values and dtype; where it refuses it,
usmarray must refuse it with an exception of the same standard type (TypeError,
ValueError, IndexError, ...).  ``DIFFERS`` lists the deliberate exceptions
(docs/migration.md, "Where usmarray stays stricter than array-api-strict"), each
asserted as such, so that an entry cannot outlive its reason.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import array_api_strict as strict
import numpy as np
import pytest
from test_reliability_common import device_params

import usmarray as xp

DEVICES = device_params("numpy", "cpu", "cuda:0")

Call = Callable[[Any, Any], Any]


def _m(xp_: Any, shape: tuple[int, ...] = (2, 3), dtype: Any = None) -> Any:
    """A float array of ``shape`` with distinct values (``dtype`` default float64)."""
    n = int(np.prod(shape))
    return xp_.reshape(xp_.arange(1, n + 1, dtype=dtype or xp_.float64), shape)


def _sq(xp_: Any, n: int = 3) -> Any:
    """A well-conditioned n x n matrix."""
    return _m(xp_, (n, n)) / 10 + xp_.eye(n)


def _i(xp_: Any, shape: tuple[int, ...] = (2, 3)) -> Any:
    return xp_.reshape(xp_.arange(int(np.prod(shape))), shape)


#: (name, kind, base value, call): kind "int" (an integer parameter), "ints" (a tuple of
#: integers), "int|ints", "real" (int or float), "bool" (a flag), "dtype"
PARAMS: list[tuple[str, str, Any, Call]] = [
    # creation
    ("arange.start", "real", 1, lambda a, v: a.arange(v, 4)),
    ("arange.stop", "real", 3, lambda a, v: a.arange(v)),
    ("arange.step", "real", 2, lambda a, v: a.arange(0, 5, v)),
    ("arange.dtype", "dtype", "complex64", lambda a, v: a.arange(3, dtype=v)),
    ("empty.shape", "int|ints", 2, lambda a, v: a.empty(v).shape),
    ("zeros.shape", "int|ints", 2, lambda a, v: a.zeros(v)),
    ("ones.shape", "int|ints", 2, lambda a, v: a.ones(v)),
    ("full.shape", "int|ints", 2, lambda a, v: a.full(v, 7.0)),
    ("eye.n_rows", "int", 3, lambda a, v: a.eye(v)),
    ("eye.n_cols", "int", 2, lambda a, v: a.eye(3, v)),
    ("eye.k", "int", 1, lambda a, v: a.eye(3, k=v)),
    ("linspace.num", "int", 3, lambda a, v: a.linspace(0.0, 1.0, v)),
    ("linspace.start", "real", 1, lambda a, v: a.linspace(v, 4.0, 4)),
    ("linspace.endpoint", "bool", True, lambda a, v: a.linspace(0.0, 1.0, 4, endpoint=v)),
    ("linspace.dtype", "dtype", "int8", lambda a, v: a.linspace(0, 9, 4, dtype=v)),
    ("linspace.dtype", "dtype", "uint16", lambda a, v: a.linspace(10, 0, 4, dtype=v)),
    ("linspace.dtype", "dtype", "bool", lambda a, v: a.linspace(0, 1, 3, dtype=v)),
    ("linspace.dtype-outside", "dtype", "uint8", lambda a, v: a.linspace(10, -1, 5, dtype=v)),
    ("linspace.dtype-complex-start", "dtype", "float64",
     lambda a, v: a.linspace(1j, 2, 3, dtype=v)),
    ("arange.dtype-float-args", "dtype", "int64", lambda a, v: a.arange(0.5, 3, dtype=v)),
    ("tril.k", "int", 1, lambda a, v: a.tril(_m(a, (3, 3)), k=v)),
    ("triu.k", "int", 1, lambda a, v: a.triu(_m(a, (3, 3)), k=v)),
    ("asarray.copy", "bool", True, lambda a, v: a.asarray(_m(a), copy=v)),
    ("astype.copy", "bool", True, lambda a, v: a.astype(_m(a), a.float32, copy=v)),
    # manipulation
    ("broadcast_to.shape", "ints", (2, 2, 3), lambda a, v: a.broadcast_to(_m(a), v)),
    ("broadcast_shapes.shape", "ints", (2, 1), lambda a, v: a.broadcast_shapes(v, (3,))),
    ("concat.axis", "int", 1, lambda a, v: a.concat((_m(a), _m(a)), axis=v)),
    ("stack.axis", "int", 1, lambda a, v: a.stack((_m(a), _m(a)), axis=v)),
    ("expand_dims.axis", "int|ints", 1, lambda a, v: a.expand_dims(_m(a), axis=v)),
    ("flip.axis", "int|ints", 1, lambda a, v: a.flip(_m(a), axis=v)),
    ("moveaxis.source", "int|ints", 1, lambda a, v: a.moveaxis(_m(a, (2, 3, 4)), v, 0)),
    ("moveaxis.destination", "int|ints", 1,
     lambda a, v: a.moveaxis(_m(a, (2, 3, 4)), 0, v)),
    ("permute_dims.axes", "ints", (1, 0), lambda a, v: a.permute_dims(_m(a), v)),
    ("repeat.repeats", "int", 2, lambda a, v: a.repeat(_m(a), v, axis=0)),
    ("repeat.axis", "int", 1, lambda a, v: a.repeat(_m(a), 2, axis=v)),
    ("reshape.shape", "ints", (3, 2), lambda a, v: a.reshape(_m(a), v)),
    ("reshape.copy", "bool", True, lambda a, v: a.reshape(_m(a), (3, 2), copy=v)),
    ("roll.shift", "int|ints", 1, lambda a, v: a.roll(_m(a), v, axis=1)),
    ("roll.axis", "int|ints", 1, lambda a, v: a.roll(_m(a), 1, axis=v)),
    ("squeeze.axis", "int|ints", 1, lambda a, v: a.squeeze(_m(a, (2, 1, 3)), axis=v)),
    ("tile.repetitions", "ints", (2, 1), lambda a, v: a.tile(_m(a), v)),
    ("unstack.axis", "int", 1, lambda a, v: a.unstack(_m(a), axis=v)),
    # statistical
    ("sum.axis", "int|ints", 1, lambda a, v: a.sum(_m(a), axis=v)),
    ("sum.keepdims", "bool", True, lambda a, v: a.sum(_m(a), axis=1, keepdims=v)),
    ("prod.axis", "int|ints", 1, lambda a, v: a.prod(_m(a), axis=v)),
    ("max.axis", "int|ints", 1, lambda a, v: a.max(_m(a), axis=v)),
    ("min.axis", "int|ints", 1, lambda a, v: a.min(_m(a), axis=v)),
    ("mean.axis", "int|ints", 1, lambda a, v: a.mean(_m(a), axis=v)),
    ("std.axis", "int|ints", 1, lambda a, v: a.std(_m(a), axis=v)),
    ("var.axis", "int|ints", 1, lambda a, v: a.var(_m(a), axis=v)),
    ("var.correction", "real", 1, lambda a, v: a.var(_m(a), axis=1, correction=v)),
    ("std.correction", "real", 1, lambda a, v: a.std(_m(a), axis=1, correction=v)),
    ("cumulative_sum.axis", "int", 1, lambda a, v: a.cumulative_sum(_m(a), axis=v)),
    ("cumulative_sum.include_initial", "bool", True,
     lambda a, v: a.cumulative_sum(_m(a), axis=1, include_initial=v)),
    ("cumulative_prod.axis", "int", 1, lambda a, v: a.cumulative_prod(_m(a), axis=v)),
    # searching, sorting, utility, indexing
    ("argmax.axis", "int", 1, lambda a, v: a.argmax(_m(a), axis=v)),
    ("argmin.axis", "int", 1, lambda a, v: a.argmin(_m(a), axis=v)),
    ("count_nonzero.axis", "int|ints", 1, lambda a, v: a.count_nonzero(_i(a), axis=v)),
    ("sort.axis", "int", 0, lambda a, v: a.sort(-_m(a), axis=v)),
    ("sort.descending", "bool", True, lambda a, v: a.sort(_m(a), descending=v)),
    ("sort.stable", "bool", True, lambda a, v: a.sort(_m(a), stable=v)),
    ("argsort.axis", "int", 0, lambda a, v: a.argsort(-_m(a), axis=v)),
    ("argsort.descending", "bool", True, lambda a, v: a.argsort(_m(a), descending=v)),
    ("all.axis", "int|ints", 1, lambda a, v: a.all(_i(a) > 0, axis=v)),
    ("any.axis", "int|ints", 1, lambda a, v: a.any(_i(a) > 3, axis=v)),
    ("diff.axis", "int", 0, lambda a, v: a.diff(_m(a) ** 2, axis=v)),
    ("diff.n", "int", 2, lambda a, v: a.diff(_m(a) ** 2, n=v)),
    ("take.axis", "int", 1, lambda a, v: a.take(_m(a), a.asarray([2, 0]), axis=v)),
    ("take_along_axis.axis", "int", 1,
     lambda a, v: a.take_along_axis(_m(a), a.asarray([[2, 0], [1, 1]]), axis=v)),
    ("vecdot.axis", "int", -2, lambda a, v: a.vecdot(_m(a), _m(a), axis=v)),
    ("tensordot.axes", "int", 1, lambda a, v: a.tensordot(_m(a), _m(a, (3, 2)), axes=v)),
    ("tensordot.axes", "pair", ((1,), (0,)),
     lambda a, v: a.tensordot(_m(a), _m(a, (3, 2)), axes=v)),
    # linalg
    ("linalg.cross.axis", "int", -2,
     lambda a, v: a.linalg.cross(_m(a, (3, 2)), _m(a, (3, 2)) ** 2, axis=v)),
    ("linalg.diagonal.offset", "int", 1, lambda a, v: a.linalg.diagonal(_m(a), offset=v)),
    ("linalg.trace.offset", "int", 1, lambda a, v: a.linalg.trace(_m(a), offset=v)),
    ("linalg.matrix_power.n", "int", 2, lambda a, v: a.linalg.matrix_power(_sq(a), v)),
    ("linalg.vecdot.axis", "int", -2, lambda a, v: a.linalg.vecdot(_m(a), _m(a), axis=v)),
    ("linalg.vector_norm.axis", "int|ints", 1,
     lambda a, v: a.linalg.vector_norm(_m(a), axis=v)),
    ("linalg.vector_norm.ord", "real", 1, lambda a, v: a.linalg.vector_norm(_m(a), ord=v)),
    ("linalg.vector_norm.keepdims", "bool", True,
     lambda a, v: a.linalg.vector_norm(_m(a), keepdims=v)),
    ("linalg.matrix_norm.ord", "real", 1, lambda a, v: a.linalg.matrix_norm(_sq(a), ord=v)),
    ("linalg.matrix_rank.rtol", "real", 1, lambda a, v: a.linalg.matrix_rank(_sq(a), rtol=v)),
    ("linalg.pinv.rtol", "real", 1, lambda a, v: a.linalg.pinv(_sq(a), rtol=v)),
    ("linalg.cholesky.upper", "bool", True,
     lambda a, v: a.linalg.cholesky(_sq(a) @ a.matrix_transpose(_sq(a)), upper=v)),
    ("linalg.svd.full_matrices", "bool", False,
     lambda a, v: a.linalg.svd(_sq(a), full_matrices=v).S),
    ("linalg.tensordot.axes", "int", 1,
     lambda a, v: a.linalg.tensordot(_m(a), _m(a, (3, 2)), axes=v)),
    # fft
    ("fft.fft.n", "int", 4, lambda a, v: a.fft.fft(_m(a, (2, 3), a.complex128), n=v)),
    ("fft.fft.axis", "int", 0, lambda a, v: a.fft.fft(_m(a, (2, 3), a.complex128), axis=v)),
    ("fft.ifft.n", "int", 4, lambda a, v: a.fft.ifft(_m(a, (2, 3), a.complex128), n=v)),
    ("fft.rfft.n", "int", 4, lambda a, v: a.fft.rfft(_m(a), n=v)),
    ("fft.rfft.axis", "int", 0, lambda a, v: a.fft.rfft(_m(a), axis=v)),
    ("fft.irfft.n", "int", 4, lambda a, v: a.fft.irfft(_m(a, (2, 3), a.complex128), n=v)),
    ("fft.hfft.n", "int", 4, lambda a, v: a.fft.hfft(_m(a, (2, 3), a.complex128), n=v)),
    ("fft.ihfft.n", "int", 4, lambda a, v: a.fft.ihfft(_m(a), n=v)),
    ("fft.fftn.s", "ints", (2, 4),
     lambda a, v: a.fft.fftn(_m(a, (2, 3), a.complex128), s=v, axes=(0, 1))),
    ("fft.fftn.axes", "ints", (1, 0),
     lambda a, v: a.fft.fftn(_m(a, (2, 3), a.complex128), axes=v)),
    ("fft.rfftn.s", "ints", (2, 4), lambda a, v: a.fft.rfftn(_m(a), s=v, axes=(0, 1))),
    ("fft.rfftn.s-without-axes", "sequence", (2, 4), lambda a, v: a.fft.rfftn(_m(a), s=v)),
    ("fft.irfftn.s", "ints", (2, 4),
     lambda a, v: a.fft.irfftn(_m(a, (2, 3), a.complex128), s=v, axes=(0, 1))),
    ("fft.fftfreq.n", "int", 4, lambda a, v: a.fft.fftfreq(v)),
    ("fft.fftfreq.d", "real", 2, lambda a, v: a.fft.fftfreq(4, d=v)),
    ("fft.rfftfreq.n", "int", 4, lambda a, v: a.fft.rfftfreq(v)),
    ("fft.rfftfreq.d", "real", 2, lambda a, v: a.fft.rfftfreq(4, d=v)),
    ("fft.fftshift.axes", "int|ints", 1, lambda a, v: a.fft.fftshift(_m(a), axes=v)),
    ("fft.fft.norm", "str", "ortho",
     lambda a, v: a.fft.fft(_m(a, (2, 3), a.complex128), norm=v)),
    # strings and the remaining flags
    ("searchsorted.side", "str", "right",
     lambda a, v: a.searchsorted(a.asarray([1.0, 2.0, 3.0]), a.asarray([2.0]), side=v)),
    ("meshgrid.indexing", "str", "ij",
     lambda a, v: a.meshgrid(a.asarray([1.0, 2.0]), a.asarray([3.0]), indexing=v)),
    ("linalg.qr.mode", "str", "complete", lambda a, v: a.linalg.qr(_m(a, (3, 2)), mode=v).R),
    ("linalg.matrix_norm.ord-str", "str", "nuc",
     lambda a, v: a.linalg.matrix_norm(_sq(a), ord=v)),
    ("isdtype.kind", "str", "real floating", lambda a, v: a.isdtype(a.float64, v)),
    ("argmax.keepdims", "bool", True, lambda a, v: a.argmax(_m(a), axis=1, keepdims=v)),
    ("count_nonzero.keepdims", "bool", True,
     lambda a, v: a.count_nonzero(_i(a), axis=1, keepdims=v)),
    ("all.keepdims", "bool", True, lambda a, v: a.all(_i(a) > 0, axis=1, keepdims=v)),
    ("mean.keepdims", "bool", True, lambda a, v: a.mean(_m(a), axis=1, keepdims=v)),
    ("var.keepdims", "bool", True, lambda a, v: a.var(_m(a), axis=1, keepdims=v)),
    ("isin.invert", "bool", True,
     lambda a, v: a.isin(a.asarray([1, 2, 3]), a.asarray([2]), invert=v)),
    ("linalg.matrix_norm.keepdims", "bool", True,
     lambda a, v: a.linalg.matrix_norm(_sq(a), keepdims=v)),
    ("fft.ifftshift.axes", "int|ints", 1, lambda a, v: a.fft.ifftshift(_m(a), axes=v)),
]


def _int_spellings(v: int) -> dict[str, Callable[[Any], Any]]:
    out: dict[str, Callable[[Any], Any]] = {
        "int": lambda a: v,
        "np.int64": lambda a: np.int64(v),
        "np.int32": lambda a: np.int32(v),
        "np.intp": lambda a: np.intp(v),
        "0-D int array": lambda a: a.asarray(v),
        "float": lambda a: float(v),
        "np.float64": lambda a: np.float64(v),
        "0-D float array": lambda a: a.asarray(float(v)),
        "str": lambda a: str(v),
    }
    if v in (0, 1):
        out["bool"] = lambda a: bool(v)
        out["np.bool_"] = lambda a: np.bool_(v)
    return out


def _ints_spellings(t: tuple[int, ...]) -> dict[str, Callable[[Any], Any]]:
    return {
        "tuple": lambda a: t,
        "tuple of np.int64": lambda a: tuple(np.int64(e) for e in t),
        "tuple of 0-D arrays": lambda a: tuple(a.asarray(e) for e in t),
        "tuple with a float": lambda a: (float(t[0]), *t[1:]),
        "list": lambda a: list(t),
        "1-D int array": lambda a: a.asarray(t),
        "NumPy array": lambda a: np.asarray(t),
    }


def _spellings(kind: str, base: Any) -> dict[str, Callable[[Any], Any]]:
    if kind == "int":
        return _int_spellings(base)
    if kind == "ints":
        return _ints_spellings(base)
    if kind == "int|ints":
        out = _int_spellings(base)
        out.update({f"({k})": f for k, f in _ints_spellings((base,)).items()})
        return out
    if kind == "real":
        out = _int_spellings(base)
        out["np.float32"] = lambda a: np.float32(base)
        return out
    if kind == "bool":
        return {
            "bool": lambda a: base,
            "np.bool_": lambda a: np.bool_(base),
            "int": lambda a: int(base),
            "0-D bool array": lambda a: a.asarray(base),
            "None": lambda a: None,
        }
    if kind == "str":
        return {"str": lambda a: base, "np.str_": lambda a: np.str_(base),
                "bytes": lambda a: base.encode(), "None": lambda a: None}
    if kind == "sequence":
        return {"tuple": lambda a: base, "list": lambda a: list(base)}
    if kind == "dtype":
        return {"dtype": lambda a: getattr(a, base)}
    if kind == "pair":
        x1, x2 = base
        return {
            "tuple of tuples": lambda a: (x1, x2),
            "list of lists": lambda a: [list(x1), list(x2)],
            "tuple of np.int64 tuples": lambda a: (
                tuple(map(np.int64, x1)), tuple(map(np.int64, x2))),
        }
    raise AssertionError(kind)


CASES = [
    pytest.param(call, spell, id=f"{name}-{label}")
    for name, kind, base, call in PARAMS
    for label, spell in _spellings(kind, base).items()
]

#: where usmarray and array-api-strict differ on purpose: (case pattern, how, reason).
#: ``how`` is "stricter" (usmarray refuses what array-api-strict accepts), "lenient"
#: (usmarray accepts what array-api-strict refuses), "values" (both accept, other
#: values) or "error" (both refuse, with different standard errors).  The reasons are
#: those of docs/migration.md, "Where usmarray stays stricter than array-api-strict".
_INT_PARAMS = r"(axis|axes|k|offset|n|n_rows|n_cols|num|repeats|shift|source|destination|shape)"
DIFFERS: list[tuple[str, str, str]] = [
    (r"^roll\.shift-(float|np\.float64|0-D float array|str|np\.bool_|\(list\)|"
     r"\(1-D int array\)|\(NumPy array\))$|"
     r"^(linalg\.)?tensordot\.axes-str$|^fft\.r?fftfreq\.n-(float|np\.float64|"
     r"0-D float array|str)$", "error",
     "a value of the wrong type is a TypeError; array-api-strict raises ValueError here"),
    (rf"\.{_INT_PARAMS}-\(?(bool|np\.bool_)\)?$", "stricter",
     "a bool is not an integer: NumPy takes True as 1 in some functions (stack, eye) and "
     "refuses it in others (sum); usmarray refuses it everywhere"),
    (r"\.(start|stop|step|correction|ord|rtol)-(bool|np\.bool_)$", "stricter",
     "a bool is not a number where the standard says int or float"),
    (r"\.(keepdims|copy|endpoint|include_initial|descending|stable|upper|full_matrices|invert)"
     r"-(int|None|0-D bool array)$", "stricter",
     "a flag is True or False (np.True_ too); NumPy takes any object's truth value"),
    (r"^(tril|triu)\.k-(float|np\.float64|0-D float array)$|"
     r"^linalg\.vector_norm\.axis-(float|np\.float64|0-D float array|str)$|"
     r"^roll\.shift-\(tuple with a float\)$", "stricter",
     "a float (or a string) is not an integer: the standard types these int"),
    (r"\.(shape|axes|axis|source|destination|s)-\(?(1-D int array|NumPy array)\)?$",
     "stricter",
     "an array is not a tuple of ints: a shape or axes is host data; write tuple(a.tolist())"),
    (r"^roll\.shift-\((tuple|tuple of np\.int64|tuple of 0-D arrays)\)$", "stricter",
     "the standard: if shift is a tuple, axis must be a tuple of the same size"),
    (r"^fft\.rfftn\.s-without-axes-", "stricter",
     "the standard: if s is given, the axes it applies to must be given too"),
    (r"^repeat\.repeats-0-D int array$", "stricter",
     "the standard: a repeats array must be 1-D, of shape (1,) or (N,)"),
    (r"^linalg\.(matrix_rank|pinv)\.rtol-0-D int array$", "stricter",
     "the standard: an rtol array must have a real floating-point dtype"),
    (r"^linspace\.dtype-outside-", "stricter",
     "a value outside the integer dtype is an OverflowError, where NumPy wraps it around"),
    (r"^linspace\.dtype-complex-start-", "stricter",
     "a complex start with a real dtype would drop the imaginary part (NumPy warns)"),
    (r"^arange\.dtype-float-args-", "stricter",
     "float arguments with an integer dtype: NumPy computes the length in floating "
     "point and casts the values; the result rarely is what was meant"),
    (r"^arange\.(start|stop|step)-0-D int array$|"
     r"^((tril|triu)\.k|(var|std)\.correction|"
     r"linalg\.vector_norm\.ord|fft\.r?fftfreq\.(n|d)|fft\.i?fftshift\.axes)"
     r"-0-D (int|float) array$|^fft\.(i?r?fftn)\.s-tuple of 0-D arrays$", "lenient",
     "a 0-D array stands for its value; array-api-strict means to accept it and fails "
     "inside on these"),
    (r"^(repeat\.repeats|roll\.shift)-(np\.int64|np\.int32|np\.intp|0-D int array)$",
     "lenient",
     "every integer is an integer: array-api-strict checks isinstance(v, int) here only"),
    (r"^(sum|count_nonzero|all|mean|var)\.keepdims-np\.bool_$", "lenient",
     "np.True_ is a flag everywhere; NumPy's reductions refuse it as keepdims"),
    (r"^searchsorted\.side-bytes$", "stricter",
     "a string parameter is a str (NumPy's str too); bytes are refused"),
    (r"^fft\.fft\.norm-None$|^linalg\.matrix_norm\.ord-str-None$", "stricter",
     "None is NumPy's spelling of the default ('backward', 'fro'); the standard names "
     "the values, and None is not one of them"),
    (r"^searchsorted\.side-None$", "error",
     "side=None is not one of the values 'left' and 'right': ValueError naming them; "
     "NumPy raises TypeError"),
    (r"^isin\.invert-(bool|np\.bool_)$", "values",
     "array-api-strict 2.6 ignores invert=True; usmarray inverts, as the standard says"),
    (r"^arange\.(start|stop|step)-(np\.float32|0-D float array)$", "values",
     "a float argument makes a floating result (the standard's rule); array-api-strict "
     "infers int64 from isinstance(v, float), false for np.float32 and arrays"),
]


def _differs(case: str) -> tuple[str, str] | None:
    for pattern, how, reason in DIFFERS:
        if re.search(pattern, case):
            return how, reason
    return None


def _outcome(fn: Callable[[], Any]) -> tuple[str, Any]:
    try:
        return "ok", fn()
    except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
        return "raised", e


_STANDARD_ERRORS = (TypeError, ValueError, IndexError, OverflowError, NotImplementedError,
                    ZeroDivisionError)


def _kinds(e: BaseException) -> set[type]:
    """The standard exception types ``e`` is (NumPy's AxisError is both ValueError and
    IndexError)."""
    return {t for t in _STANDARD_ERRORS if isinstance(e, t)}


def _host(r: Any, to_numpy: Callable[[Any], np.ndarray]) -> Any:
    if isinstance(r, (tuple, list)):
        return type(r)(_host(e, to_numpy) for e in r) if not hasattr(r, "_fields") else \
            tuple(_host(e, to_numpy) for e in r)
    if hasattr(r, "__array_namespace__"):
        return to_numpy(r)
    return r


def _assert_same(got: Any, want: Any) -> None:
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), (got, want)
        for g, w in zip(got, want, strict=True):
            _assert_same(g, w)
    elif isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray), type(got)
        assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
        if want.dtype.kind in "fc":
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        else:
            np.testing.assert_array_equal(got, want)
    else:
        assert got == want and type(got) is type(want), (got, want)


def _strict_numpy(r: Any) -> np.ndarray:
    return np.from_dlpack(r)


def _check(case: str, strict_outcome: tuple[str, Any], usm_outcome: tuple[str, Any]) -> str:
    """Assert usmarray's outcome against array-api-strict's; return how they differ
    ("same", or the ``how`` of the DIFFERS entry that allows it)."""
    (s_kind, s_val), (u_kind, u_val) = strict_outcome, usm_outcome
    differs = _differs(case)
    if s_kind == "raised" and u_kind == "raised":
        if _kinds(u_val) & _kinds(s_val):
            return "same"
        assert differs is not None and differs[0] == "error", (
            f"array-api-strict raises {type(s_val).__name__}: {s_val}; usmarray raises "
            f"{type(u_val).__name__}: {u_val}"
        )
        assert _kinds(u_val), u_val
        return "error"
    if s_kind == "raised":
        assert differs is not None and differs[0] == "lenient", (
            f"array-api-strict refuses this ({type(s_val).__name__}: {s_val}); "
            "usmarray accepted it"
        )
        return "lenient"
    if u_kind == "raised":
        assert differs is not None and differs[0] == "stricter", (
            f"array-api-strict accepts this; usmarray refused it: "
            f"{type(u_val).__name__}: {u_val}"
        )
        assert _kinds(u_val), u_val
        return "stricter"
    got, want = _host(u_val, xp.asnumpy), _host(s_val, _strict_numpy)
    if differs is not None and differs[0] == "values":
        with pytest.raises(AssertionError):
            _assert_same(got, want)
        return "values"
    _assert_same(got, want)
    return "same"


def _run(call: Call, spell: Callable[[Any], Any]) -> tuple[tuple[str, Any], tuple[str, Any]]:
    return (_outcome(lambda: call(strict, spell(strict))),
            _outcome(lambda: call(xp, spell(xp))))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("call", "spell"), CASES)
def test_accepts_what_array_api_strict_accepts(device, call, spell, request):
    """usmarray accepts what array-api-strict accepts, with its values, and refuses what
    it refuses, with the same kind of error, but where DIFFERS says why not."""
    case = request.node.callspec.id.rsplit("-", 1)[0]
    with xp.using_device(device):
        _check(case, *_run(call, spell))


def test_each_difference_is_real():
    """Every DIFFERS entry still describes at least one case (none outlives its reason)."""
    seen = {pattern: set() for pattern, _, _ in DIFFERS}
    with xp.using_device("numpy"):
        for param in CASES:
            call, spell = param.values
            case = param.id
            how = _check(case, *_run(call, spell))
            for pattern, _, _ in DIFFERS:
                if re.search(pattern, case):
                    seen[pattern].add(how)
                    break
    for pattern, how, _ in DIFFERS:
        assert how in seen[pattern], f"no case differs as {how!r} for {pattern!r} any more"


@pytest.mark.parametrize("version", ["2023.12", "2024.12", "2025.12"])
def test_devices_is_a_list_or_a_tuple_as_in_array_api_strict(version):
    """``__array_namespace_info__().devices()``: a list before 2025.12, a tuple from then
    on (the standard's change), as array-api-strict returns it at each version."""
    strict.set_array_api_strict_flags(api_version=version)
    try:
        want = type(strict.__array_namespace_info__().devices())
    finally:
        strict.reset_array_api_strict_flags()
    ns = xp.asarray(0).__array_namespace__(api_version=version)
    got = ns.__array_namespace_info__().devices()
    assert type(got) is want
    assert list(got) == list(xp.__array_namespace_info__().devices())
