"""Messages that answer a NumPy habit with the standard's spelling.

The mistakes a newcomer from NumPy or PyTorch makes first: an array method
(``x.mean()``, ``x.to("cpu")``), a function or dtype name (``xp.concatenate``,
``xp.float16``, ``xp.tensor``), a positional argument the standard makes keyword-only
(``xp.sum(x, 0)``), a keyword it spells another way (``sort(kind="stable")``), a dtype
called as a scalar type (``xp.int32(5)``), a list as an index (``x[[0, 2]]``), and a
NumPy function given a usm_ndarray (``np.sin(x)``).  Each error or warning says what to
write instead.  This module only words messages; it imports nothing from usmarray.
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
    "to": "x.to_device(device) (e.g. 'numpy', 'cpu', 'cuda:0'), or xp.asnumpy(x) for a "
          "NumPy copy",
    "values": "x itself (a usm_ndarray is the array), or xp.asnumpy(x) for a NumPy copy",
    "to_numpy": "xp.asnumpy(x) (a NumPy copy)",
    "clone": "xp.asarray(x, copy=True)",
    "detach": "x itself (usmarray computes no gradients)",
    "contiguous": "xp.asarray(x, copy=True) (a C-contiguous copy)",
    "dim": "x.ndim",
    "numel": "x.size",
    "unsqueeze": "xp.expand_dims(x, axis=...)",
    "permute": "xp.permute_dims(x, axes)",
    "ptp": "xp.max(x) - xp.min(x)",
    "trace": "xp.linalg.trace(x)",
    "diagonal": "xp.linalg.diagonal(x)",
}

#: attributes the arrays of one backend have -> the devices of that backend
BACKEND_ONLY: dict[str, str] = {
    **dict.fromkeys(("sycl_queue", "sycl_device", "sycl_context", "usm_data",
                     "__sycl_usm_array_interface__", "__usm_ndarray__"), "SYCL"),
    "__cuda_array_interface__": "CUDA",
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
        "around": "round", "rint": "round", "bitwise_not": "bitwise_invert",
        "conjugate": "conj", "diagonal": "linalg.diagonal",
        # NumPy's C-type names of the standard's dtypes
        "double": "float64", "single": "float32", "cdouble": "complex128",
        "cfloat": "complex128", "csingle": "complex64", "intp": "int64", "uintp": "uint64",
        "uint": "uint64", "byte": "int8", "ubyte": "uint8", "short": "int16",
        "ushort": "uint16", "intc": "int32", "uintc": "uint32", "long": "int64",
        "ulong": "uint64", "longlong": "int64", "ulonglong": "uint64",
        # PyTorch's names
        "tensor": "asarray (torch.tensor(data) is xp.asarray(data))",
        "from_numpy": "asarray", "cat": "concat", "unsqueeze": "expand_dims",
        "mm": "matmul", "bmm": "matmul",
    },
    "linalg": {
        "norm": "vector_norm (vectors) or matrix_norm (matrices)",
        "transpose": "matrix_transpose",
    },
    "fft": {},
}

_RANDOM = ("usmarray.random, made on the device: import usmarray.random; rng = "
           "usmarray.random.default_rng(seed); rng.random(shape), rng.standard_normal(shape), "
           "rng.integers(low, high, shape), ...")

#: names with no counterpart in the standard -> what to write instead
NO_COUNTERPART: dict[str, dict[str, str]] = {
    "": {
        "ravel": "xp.reshape(x, (-1,))", "copy": "xp.asarray(x, copy=True)",
        "column_stack": "xp.stack(arrays, axis=1)", "vstack": "xp.concat(arrays, axis=0)",
        "hstack": "xp.concat(arrays, axis=-1)", "row_stack": "xp.concat(arrays, axis=0)",
        "split": "xp.unstack or slices",
        "isclose": "xp.abs(a - b) <= atol + rtol * xp.abs(b)",
        "allclose": "xp.all(xp.abs(a - b) <= atol + rtol * xp.abs(b))",
        "random": _RANDOM, "rand": _RANDOM, "randn": _RANDOM, "randint": _RANDOM,
        "seed": _RANDOM, "manual_seed": _RANDOM,
        **dict.fromkeys(("float16", "half", "bfloat16"), "float32, its smallest floating dtype"),
        "float128": "float64, its largest floating dtype", "longdouble": "float64, its "
        "largest floating dtype", "complex256": "complex128, its largest complex dtype",
        "clongdouble": "complex128, its largest complex dtype",
        **dict.fromkeys(("object_", "str_", "bytes_", "void", "datetime64", "timedelta64"),
                        "NumPy for such data: the standard's dtypes are bool, integers, "
                        "and real and complex floating"),
        "dtype": "the dtypes themselves (xp.float32, ...), x.dtype, or xp.isdtype(dtype, "
                 "kind) to test a kind",
        "numel": "x.size", "shape": "x.shape", "size": "x.size", "ndim": "x.ndim",
        "identity": "xp.eye(n)", "diag": "xp.linalg.diagonal(x) to read a diagonal; "
        "xp.eye(n, dtype=v.dtype) * v to build a diagonal matrix",
        "dstack": "xp.stack(arrays, axis=-1) (2-D arrays) or xp.concat(arrays, axis=2)",
        "fliplr": "xp.flip(x, axis=1)", "flipud": "xp.flip(x, axis=0)",
        "argwhere": "xp.stack(xp.nonzero(x), axis=-1)",
        "flatnonzero": "xp.nonzero(xp.reshape(x, (-1,)))[0]",
        "array_equal": "a.shape == b.shape and bool(xp.all(a == b))",
        "average": "xp.mean(x), or xp.sum(x * w) / xp.sum(w) with weights w",
        "exp2": "xp.pow(2.0, x)", "logspace": "xp.pow(base, xp.linspace(start, stop, num))",
        "deg2rad": "x * (xp.pi / 180)", "radians": "x * (xp.pi / 180)",
        "rad2deg": "x * (180 / xp.pi)", "degrees": "x * (180 / xp.pi)",
        "isreal": "xp.imag(x) == 0", "iscomplex": "xp.imag(x) != 0",
        "nan_to_num": "xp.where(xp.isnan(x), 0.0, x)",
    },
    "linalg": {"lstsq": "xp.linalg.solve of the normal equations, or xp.linalg.pinv"},
    "fft": {},
}


def no_such_method(name: str) -> str | None:
    """The message for ``x.<name>`` when ``name`` is a NumPy habit, else None."""
    hint = ARRAY_METHODS.get(name)
    if hint is None:
        return None
    xp = ", with xp = x.__array_namespace__()" if "xp." in hint else ""
    return (f"'usm_ndarray' object has no attribute {name!r}: the array API has no such "
            f"array method; use {hint}{xp}")


def no_such_attribute(name: str, backend: str, functions: Iterable[str]) -> str:
    """The message for ``x.<name>`` that no array has (``no_such_method`` first), for an
    array of ``backend``: an attribute another backend's arrays have says so; a name of
    the namespace's ``functions`` names that function; anything else lists the
    standard's array attributes."""
    habit = no_such_method(name)
    if habit is not None:
        return habit
    msg = f"'usm_ndarray' object has no attribute {name!r}"
    family = BACKEND_ONLY.get(name)
    if family is not None:
        return (f"{msg}: it exists for arrays on {family} devices only, and this array is "
                f"on the {backend!r} backend")
    if not name.startswith("_") and name in functions:
        return (f"{msg}: the array API has no such array method; use xp.{name}(x), with "
                "xp = x.__array_namespace__()")
    return (f"{msg}; the array API's array attributes are device, dtype, mT, ndim, shape, "
            "size and T, and its method to_device(device)")


def _index_sequence(key: Any) -> str | None:
    """"an integer" or "a boolean" for a (nested) list or tuple of ints or of bools,
    the index array a NumPy user means by it; else None."""
    flat: list[Any] = []
    todo = [key]
    while todo:
        k = todo.pop()
        if type(k) in (list, tuple):
            todo.extend(k)
        else:
            flat.append(k)
    if flat and all(type(v) is bool for v in flat):
        return "a boolean"
    if flat and all(type(v) is int for v in flat):
        return "an integer"
    return None


def bad_key(key: Any, whole: bool) -> str:
    """The message for an index the standard does not allow: ``key`` is the whole
    index (``whole``) or one element of a tuple index.  A list (NumPy's index array)
    and a NumPy array are named as the usm_ndarray to pass instead."""
    t = type(key)
    shown = f"numpy.{t.__name__}" if t.__module__ == "numpy" else t.__name__
    msg = f"index {key!r} of type {shown} is not allowed by the array API standard"
    kind = _index_sequence(key) if t is list else None
    if kind is None and t.__module__ == "numpy" and t.__name__ == "ndarray":
        kind, arg = "a usm_ndarray", "index"
    else:
        arg = repr(key)
    if kind is None:
        return f"{msg}; use ints, slices, ..., None, an integer array or a boolean array"
    array = f"xp.asarray({arg}, device=x.device)"
    where = f"x[{array}]" if whole else f"{array} in its place"
    return f"{msg}; index with {kind} array instead: {where}"


def dtype_called(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    """The message for ``xp.<dtype>(...)``: NumPy's scalar types are callable, the
    standard's dtypes are not."""
    value = repr(args[0]) if len(args) == 1 and not kwargs else "value"
    return (f"usmarray.{name} is a dtype, not a scalar type (the array API has no scalar "
            f"types): write xp.asarray({value}, dtype=xp.{name}) for a 0-D array")


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
    for sub in ("linalg", "fft"):
        if prefix:
            break
        if name in getattr(_getter(present)(sub), "__all__", ()):
            return f"{msg}: the array API standard's name is {sub}.{name}"
        if name in NO_COUNTERPART[sub]:
            return (f"{msg}: the array API standard has no {sub}.{name}; use "
                    f"{NO_COUNTERPART[sub][name]}")
    numpy_name = ".".join(["numpy", *([prefix] if prefix else []), name])
    if name in _numpy_names(prefix):
        # a NumPy habit, not a typo: a close match would name another function
        return (f"{msg}: the array API standard has no {name}; compute it from the "
                f"standard's functions, or call {numpy_name} on a NumPy copy "
                "(usmarray.asnumpy(x))")
    close = difflib.get_close_matches(name, [p for p in present if not p.startswith("_")],
                                      n=3, cutoff=0.75)
    if close:
        return f"{msg}; did you mean {' or '.join(close)}?"
    return msg


class ImplicitConversionWarning(UserWarning):
    """A NumPy function was given a usm_ndarray (``np.sin(x)``, ``np.mean(x)``): NumPy
    converted it to a NumPy array, computed on the host and returned a NumPy array.
    ``warnings.simplefilter("error", usmarray.ImplicitConversionWarning)`` makes every
    such call an error."""


def implicit_conversion(numpy_name: str | None, present: Iterable[str]) -> str:
    """The warning for ``numpy.<name>(x)`` given a usm_ndarray, where ``present`` are the
    names of the namespace (``numpy_name`` is "numpy.sin", "numpy.linalg.norm", ...; None
    for a ufunc method NumPy does not name, ``np.add.reduce``)."""
    if numpy_name is None:
        return ("A NumPy ufunc converted a usm_ndarray to a NumPy array: it computed on the "
                f"host and returns a NumPy array. {_CONVERT}")
    *path, name = numpy_name.split(".")
    prefix = path[1] if len(path) > 1 and path[1] in ("linalg", "fft") else ""
    spelled = ".".join([*([prefix] if prefix else []), name])
    hint = MISSING_NAMES.get(prefix, {}).get(name)
    instead = NO_COUNTERPART.get(prefix, {}).get(name)
    names = getattr(_getter(present)(prefix), "__all__", ()) if prefix else present
    if hint is not None:
        device = f"The array API standard's name for it is xp.{prefix + '.' * bool(prefix)}{hint}"
    elif instead is not None:
        device = f"The array API standard has no {spelled}: use {instead}"
    elif name in names and not name.startswith("_"):
        device = (f"To compute on the array's device, call xp.{spelled}(...), with "
                  "xp = x.__array_namespace__()")
    else:
        device = f"The array API standard has no {spelled}"
    return (f"{numpy_name}() converted a usm_ndarray to a NumPy array: it computed on the "
            f"host and returns a NumPy array. {device}. {_CONVERT}")


_CONVERT = ("To convert on purpose, write np.asarray(x) (a view where the host can read the "
            "memory) or usmarray.asnumpy(x) (a copy); warnings.simplefilter('error', "
            "usmarray.ImplicitConversionWarning) makes this warning an error")


def _getter(present: Iterable[str]) -> Callable[[str], Any]:
    """``present[name]`` (None where absent) when ``present`` is a namespace's dict."""
    return present.get if isinstance(present, dict) else lambda name: None


def _numpy_names(prefix: str) -> set[str]:
    """The public names of ``numpy`` (``numpy.linalg``, ``numpy.fft`` for a prefix)."""
    import numpy as np

    module = getattr(np, prefix) if prefix else np
    return {n for n in dir(module) if not n.startswith("_")}


class LazyAttributeError(AttributeError):
    """AttributeError whose message ``build()`` makes when it is first read: libraries
    probe namespaces and arrays with ``hasattr`` and ``getattr(obj, name, None)``
    (scikit-learn does, several times a fit), and a probe never reads the message."""

    def __init__(self, name: str, build: Callable[[], str]) -> None:
        super().__init__()
        self.name = name
        self._build = build
        self._msg: str | None = None

    def __str__(self) -> str:
        if self._msg is None:
            self._msg = self._build()
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


class MissingName(LazyAttributeError):
    """AttributeError for ``<module>.<name>`` missing from a usmarray namespace, with
    :func:`no_such_name`'s message (its close-match search costs milliseconds)."""

    def __init__(self, module: str, name: str, present: Iterable[str],
                 added_in: str | None = None, following: str | None = None) -> None:
        super().__init__(name, lambda: no_such_name(module, name, present, added_in,
                                                    following))


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
    "rcond": "rtol", "out": None,
}

_STABLE = ("the standard's spelling is stable=True (NumPy's kind='stable' or 'mergesort'), "
           "or stable=False where equal elements may change order (kind='quicksort' or "
           "'heapsort')")
_UNBIASED = "the standard's spelling is correction=1 (unbiased=True) or correction=0"
_REDUCTIONS = ("sum", "prod", "max", "min", "mean", "std", "var", "all", "any",
               "cumulative_sum", "cumulative_prod", "argmax", "argmin", "count_nonzero")

#: keyword arguments of NumPy (and PyTorch) that the standard spells another way, by
#: keyword and function ("" for any function) -> what to write instead
KEYWORD_INSTEAD: dict[str, dict[str, str]] = {
    "kind": {"sort": _STABLE, "argsort": _STABLE},
    "retstep": {"linspace": "the standard has no retstep=; compute the step yourself: "
                            "(stop - start) / (num - 1), or (stop - start) / num with "
                            "endpoint=False"},
    "order": {"": "the standard has no order=; its arrays are laid out in row-major (C) "
                  "order"},
    "initial": dict.fromkeys(("sum", "prod", "max", "min"), "the standard has no "
                             "initial=; combine it with the result, e.g. "
                             "xp.maximum(xp.max(x), initial) or xp.sum(x) + initial"),
    "where": dict.fromkeys(_REDUCTIONS, "the standard's reductions have no where=; put "
                           "the reduction's identity where the mask is False first, e.g. "
                           "xp.sum(xp.where(mask, x, 0))"),
    "decimals": {"round": "the standard's round has no decimals=; scale: "
                          "xp.round(x * 10**d) / 10**d"},
    "return_counts": {"unique_values": "the standard's spelling is xp.unique_counts(x)"},
    "return_inverse": {"unique_values": "the standard's spelling is xp.unique_inverse(x)"},
    "return_index": {"unique_values": "the standard's spelling is xp.unique_all(x) (its "
                                      "indices)"},
    "unbiased": {"std": _UNBIASED, "var": _UNBIASED},
    "casting": {"astype": "the standard's astype has no casting=; it casts as NumPy's "
                          "casting='unsafe' does (xp.can_cast(x.dtype, dtype) tells "
                          "whether the cast is safe)"},
    "ndmin": {"asarray": "the standard's asarray has no ndmin=; add axes with "
                         "xp.expand_dims or xp.reshape"},
    "compute_uv": {"svd": "the standard's svd has no compute_uv=; for the singular values "
                          "only, call xp.linalg.svdvals(x)"},
}

#: functions without keyword-only parameters that :data:`KEYWORD_INSTEAD` explains
_KEYWORD_FUNCTIONS = frozenset(f for per in KEYWORD_INSTEAD.values() for f in per if f)

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
    name = getattr(f, "__name__", "")
    return (name in TOO_FEW or name in _KEYWORD_FUNCTIONS
            or any(p.kind is p.KEYWORD_ONLY for p in params))


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
    if m:
        per = KEYWORD_INSTEAD.get(m.group(1), {})
        instead = per.get(name, per.get(""))
        if instead is not None:
            return TypeError(f"{text}: {instead}")
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


__all__ = [
    "ARRAY_METHODS", "BACKEND_ONLY", "ImplicitConversionWarning", "KEYWORD_INSTEAD",
    "KEYWORD_RENAMES", "LazyAttributeError", "MISSING_NAMES", "MissingName",
    "NO_COUNTERPART", "bad_key", "call_error", "dtype_called", "implicit_conversion",
    "no_such_attribute", "no_such_method", "no_such_name", "wants_hints",
]
