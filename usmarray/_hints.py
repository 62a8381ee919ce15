"""Messages that answer a NumPy habit with the standard's spelling.

Three mistakes a newcomer makes in the first hour: a NumPy array method
(``x.mean()``), a NumPy function name (``xp.concatenate``), and a positional argument
the standard makes keyword-only (``xp.sum(x, 0)``).  Each error says what to write
instead.  This module only words messages; it imports nothing from usmarray.
"""

from __future__ import annotations

import difflib
import inspect
import re
from collections.abc import Callable, Iterable
from typing import Any

#: NumPy array methods and attributes -> the standard's spelling (``x`` is the array)
ARRAY_METHODS: dict[str, str] = {
    **{m: f"xp.{m}(x)" for m in (
        "mean", "sum", "prod", "std", "var", "max", "min", "argmax", "argmin", "all", "any",
        "nonzero", "argsort", "round", "conj")},
    "cumsum": "xp.cumulative_sum(x)",
    "cumprod": "xp.cumulative_prod(x)",
    "sort": "xp.sort(x) (a new array; the standard has no in-place sort)",
    "astype": "xp.astype(x, dtype)",
    "reshape": "xp.reshape(x, shape)",
    "transpose": "xp.permute_dims(x, axes) or x.mT",
    "swapaxes": "xp.moveaxis(x, source, destination) or xp.permute_dims(x, axes)",
    "flatten": "xp.reshape(x, (-1,)) (a copy: xp.asarray(xp.reshape(x, (-1,)), copy=True))",
    "ravel": "xp.reshape(x, (-1,))",
    "squeeze": "xp.squeeze(x, axis=...)",
    "clip": "xp.clip(x, min, max)",
    "dot": "xp.matmul(x, y), xp.vecdot(x, y) or xp.tensordot(x, y)",
    "copy": "xp.asarray(x, copy=True)",
    "numpy": "xp.asnumpy(x) (a NumPy copy)",
    "get": "xp.asnumpy(x) (a NumPy copy)",
    "asnumpy": "xp.asnumpy(x) (a NumPy copy)",
    "tolist": "xp.asnumpy(x).tolist()",
    "item": "float(x), int(x), bool(x) or complex(x) of a 0-D array",
    "tobytes": "xp.asnumpy(x).tobytes()",
    "fill": "x[...] = value",
    "view": "xp.astype(x, dtype) (a copy; the standard has no reinterpreting view)",
    "flat": "xp.reshape(x, (-1,))",
    "real": "xp.real(x)",
    "imag": "xp.imag(x)",
    "cpu": "x.to_device(...) or xp.asnumpy(x)",
    "cuda": "x.to_device('cuda:0')",
}

#: names other libraries use -> the standard's, per namespace ("" is the main one)
MISSING_NAMES: dict[str, dict[str, str]] = {
    "": {
        "concatenate": "concat", "transpose": "permute_dims (or matrix_transpose for the "
        "last two axes)", "power": "pow", "absolute": "abs", "arccos": "acos",
        "arcsin": "asin", "arctan": "atan", "arctan2": "atan2", "arccosh": "acosh",
        "arcsinh": "asinh", "arctanh": "atanh", "invert": "bitwise_invert",
        "left_shift": "bitwise_left_shift", "right_shift": "bitwise_right_shift",
        "unique": "unique_values (or unique_all, unique_counts, unique_inverse)",
        "array": "asarray", "asanyarray": "asarray", "ndarray": "usm_ndarray",
        "amax": "max", "amin": "min", "fabs": "abs", "mod": "remainder",
        "true_divide": "divide", "dot": "matmul, vecdot or tensordot", "outer": "linalg.outer",
        "norm": "linalg.vector_norm or linalg.matrix_norm", "swapaxes": "moveaxis or permute_dims",
        "rollaxis": "moveaxis", "float_": "float64", "int_": "int64", "bool_": "bool",
        "float": "float64 (or float32)", "int": "int64 (or another integer dtype)",
        "complex": "complex128 (or complex64)", "cumsum": "cumulative_sum",
        "cumprod": "cumulative_prod", "trace": "linalg.trace", "sort_complex": "sort",
        "einsum": "matmul, tensordot or vecdot (the standard has no einsum)",
    },
    "linalg": {
        "norm": "vector_norm (vectors) or matrix_norm (matrices)",
        "transpose": "matrix_transpose",
    },
    "fft": {},
}

#: names with no counterpart in the standard -> what to write instead
NO_COUNTERPART: dict[str, dict[str, str]] = {
    "": {
        "ravel": "xp.reshape(x, (-1,))", "copy": "xp.asarray(x, copy=True)",
        "column_stack": "xp.stack(arrays, axis=1)", "vstack": "xp.concat(arrays, axis=0)",
        "hstack": "xp.concat(arrays, axis=-1)", "split": "xp.unstack or slices",
        "isclose": "xp.abs(a - b) <= atol + rtol * xp.abs(b)",
        "allclose": "xp.all(xp.abs(a - b) <= atol + rtol * xp.abs(b))",
        "random": "draw numbers with NumPy (numpy.random.default_rng()) and move them with "
                  "xp.asarray(values, device=...)",
    },
    "linalg": {"lstsq": "xp.linalg.solve of the normal equations, or xp.linalg.pinv"},
    "fft": {},
}


def no_such_method(name: str) -> str | None:
    """The message for ``x.<name>`` when ``name`` is a NumPy habit, else None."""
    hint = ARRAY_METHODS.get(name)
    if hint is None:
        return None
    return (f"'usm_ndarray' object has no attribute {name!r}: the array API has no such "
            f"array method; use {hint}, with xp = x.__array_namespace__()")


def no_such_name(module: str, name: str, present: Iterable[str],
                 added_in: str | None = None, following: str | None = None) -> str:
    """The message for ``<module>.<name>`` missing from a usmarray namespace; where the
    standard added ``name`` in version ``added_in``, later than the one the namespace is
    ``following``, the message says so."""
    prefix = "linalg" if module.endswith("linalg") else "fft" if module.endswith("fft") else ""
    msg = f"module {module!r} has no attribute {name!r}"
    if added_in is not None and following is not None and added_in > following:
        return (f"{msg}: the array API standard added it in version {added_in}, and this "
                f"namespace follows {following} (USMARRAY_API_VERSION); unset that variable "
                "for the latest version")
    hint = MISSING_NAMES[prefix].get(name)
    if hint is not None:
        return f"{msg}: the array API standard's name is {hint}"
    instead = NO_COUNTERPART[prefix].get(name)
    if instead is not None:
        return f"{msg}: the array API standard has no {name}; use {instead}"
    close = difflib.get_close_matches(name, [p for p in present if not p.startswith("_")],
                                      n=3, cutoff=0.75)
    if close:
        return f"{msg}; did you mean {' or '.join(close)}?"
    return msg


class MissingName(AttributeError):
    """AttributeError for ``<module>.<name>`` missing from a usmarray namespace, with
    :func:`no_such_name`'s message built when it is first read: the close-match search
    costs milliseconds, and libraries probe namespaces with ``hasattr`` and
    ``getattr(xp, name, None)`` (scikit-learn does, several times a fit)."""

    def __init__(self, module: str, name: str, present: Iterable[str],
                 added_in: str | None = None, following: str | None = None) -> None:
        super().__init__()
        self.name = name
        self._what = (module, name, present, added_in, following)
        self._msg: str | None = None

    def __str__(self) -> str:
        if self._msg is None:
            self._msg = no_such_name(*self._what)
        return self._msg

    @property
    def args(self) -> tuple[Any, ...]:
        return (str(self),)

    @args.setter
    def args(self, value: tuple[Any, ...]) -> None:
        self._msg = str(value[0]) if value else ""

    def __repr__(self) -> str:
        return f"AttributeError({str(self)!r})"

    def __reduce__(self) -> tuple[Any, tuple[str]]:  # copies and pickles: the message
        return AttributeError, (str(self),)


#: what NumPy's positional arguments after the array mean, where a NumPy user's
#: ``f(x, a, b)`` maps to keyword arguments other than "axis first" (below)
NUMPY_ORDER: dict[str, tuple[str, ...]] = {
    "diff": ("n", "axis"), "sum": ("axis", "dtype"), "prod": ("axis", "dtype"),
    "mean": ("axis", "dtype"), "cumulative_sum": ("axis", "dtype"),
    "cumulative_prod": ("axis", "dtype"), "astype": ("copy",),
}

#: keyword arguments of NumPy (and PyTorch) -> the standard's; None: the standard has none
KEYWORD_RENAMES: dict[str, str | None] = {
    "ddof": "correction", "reverse": "descending", "keepdim": "keepdims", "dim": "axis",
    "out": None,
}

#: functions called with too few arguments in a NumPy habit -> what to call instead
TOO_FEW: dict[str, str] = {
    "where": "where(condition) with one argument is NumPy's nonzero: use "
             "xp.nonzero(condition)",
}

_POSITIONAL = re.compile(r"takes (from \d+ to )?\d+ positional arguments? but \d+ (were|was) given")
_KEYWORD = re.compile(r"got an unexpected keyword argument '(\w+)'")


def wants_hints(f: Callable[..., Any]) -> bool:
    """Whether a call of ``f`` can fail in a way :func:`call_error` explains (functions
    without keyword-only parameters, the elementwise ones, are left unwrapped: they are
    the calls whose cost a wrapper would show)."""
    try:
        params = inspect.signature(f).parameters.values()
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        return False
    return getattr(f, "__name__", "") in TOO_FEW or any(p.kind is p.KEYWORD_ONLY for p in params)


def call_error(f: Callable[..., Any], exc: TypeError, args: tuple) -> TypeError | None:
    """For a call of ``f`` that Python refused for its arguments, in a NumPy habit: a
    TypeError saying what to write (a keyword-only argument passed by position, a NumPy
    keyword, a NumPy one-argument form); else None (``exc`` stands)."""
    text = str(exc)
    name = getattr(f, "__name__", "function")
    if not text.startswith(f"{getattr(f, '__qualname__', name)}()"):
        return None  # raised inside f, not by Python binding the call's arguments
    try:
        params = list(inspect.signature(f).parameters.values())
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        return None
    m = _KEYWORD.search(text)
    if m and m.group(1) in KEYWORD_RENAMES:
        new = KEYWORD_RENAMES[m.group(1)]
        if new is None:
            return TypeError(f"{text}: the array API standard has no {m.group(1)}= "
                             f"argument; assign the result (y = {name}(...)), or write it "
                             f"into an existing array with y[...] = {name}(...)")
        if any(p.name == new for p in params):
            return TypeError(f"{text}: the standard's name for it is {new}= "
                             f"({name}(..., {new}=...))")
        return None
    if name in TOO_FEW and "missing" in text and "required positional" in text:
        return TypeError(f"{text}: {TOO_FEW[name]}")
    if not _POSITIONAL.search(text):
        return None
    npos = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
    kwonly = [p.name for p in params if p.kind is p.KEYWORD_ONLY]
    if not kwonly or len(args) <= npos or any(p.kind is p.VAR_POSITIONAL for p in params):
        return None  # only too many positional arguments: the call itself was refused
    name = getattr(f, "__name__", "function")
    order = [k for k in NUMPY_ORDER.get(name, ("axis",)) if k in kwonly] or kwonly[:1]
    extra = args[npos:]
    shown = [p.name for p in params[:npos]]
    shown += [f"{k}={_short(v)}" for k, v in zip(order, extra, strict=False)]
    if len(extra) > len(order):
        shown.append("...")
    return TypeError(
        f"{name}() takes {npos} positional argument{'s' if npos != 1 else ''} but "
        f"{len(args)} were given: the standard makes {', '.join(kwonly)} keyword-only; "
        f"write {name}({', '.join(shown)})"
    )


def _short(v: Any) -> str:
    r = repr(v)
    return r if len(r) <= 20 else "..."


__all__ = ["ARRAY_METHODS", "KEYWORD_RENAMES", "MISSING_NAMES", "NO_COUNTERPART", "call_error",
           "MissingName", "no_such_method", "no_such_name", "wants_hints"]
