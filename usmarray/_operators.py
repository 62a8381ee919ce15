"""The methods of ``usm_ndarray`` that compute through namespace functions.

The array type (``_array``) holds attributes and the protocols that need no section
module; this module, which sits above both the type and the functions, installs the
rest on the class once the namespace is assembled: the operators (from the
elementwise functions and ``matmul``, with reflected and in-place forms), indexing,
``to_device`` and ``__array_namespace__``, and serializes those that may submit work
(see ``_serial``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import _dtypes as dt
from . import _elementwise as ew
from . import _form, _indexing, _migration
from . import _linalg_main as la
from ._array import usm_ndarray
from ._serial import serialize_methods, serialized

#: methods that may submit work or wait for it; __getitem__ locks itself
SUBMITTING_METHODS = (
    "__dlpack__", "to_device", "__array__", "__bool__", "__complex__", "__float__",
    "__int__", "__index__", "__repr__", "__str__", "__format__", "__setitem__",
    "__reduce__", "__deepcopy__", "__copy__",
)


def _to_device(self: usm_ndarray, device: Any, /, *, stream: Any = None) -> usm_ndarray:
    """A copy (or zero-copy view where the memory allows) of ``self`` on ``device``."""
    return _migration.to_device(self, device, stream=stream)


def python_form(name: str) -> Any:
    """The Python function behind ``usm_ndarray``'s method ``name``: the method itself,
    or in the compiled form, for a slot of the C base, the Python form it falls back to."""
    core: Any = _form.core
    if core is not None and name in core.SLOTS:
        return core.python_form(name)
    return getattr(usm_ndarray, name)


def install(array_namespace: Callable[..., Any]) -> None:
    """Install the computing methods on ``usm_ndarray``; ``array_namespace`` is its
    ``__array_namespace__`` method.  In the compiled form (``usmarray/_form.py``) the
    operators and indexing are slots of the array's C base: their Python forms below
    go to the core instead, with the lean-path tables of the elementwise functions."""
    binary = {
        "add": ew.add, "sub": ew.subtract, "mul": ew.multiply, "truediv": ew.divide,
        "floordiv": ew.floor_divide, "mod": ew.remainder, "pow": ew.pow,
        "and": ew.bitwise_and, "or": ew.bitwise_or, "xor": ew.bitwise_xor,
        "lshift": ew.bitwise_left_shift, "rshift": ew.bitwise_right_shift,
        "matmul": la.matmul,
    }
    methods: dict[str, Any] = {}
    lean: dict[str, Any] = {}
    for name, fn in binary.items():
        methods[f"__{name}__"] = ew.make_operator(fn, f"__{name}__")
        methods[f"__r{name}__"] = ew.make_reflected(fn, f"__r{name}__")
        methods[f"__i{name}__"] = ew.make_inplace(fn, f"__i{name}__")
        lean[f"__{name}__"] = lean[f"__r{name}__"] = getattr(fn, "_lean", None)
    comparisons = {
        "lt": ew.less, "le": ew.less_equal, "gt": ew.greater, "ge": ew.greater_equal,
        "eq": ew.equal, "ne": ew.not_equal,
    }
    for name, fn in comparisons.items():
        methods[f"__{name}__"] = ew.make_operator(fn, f"__{name}__")
        lean[f"__{name}__"] = getattr(fn, "_lean", None)
    for name, fn in (("neg", ew.negative), ("pos", ew.positive), ("abs", ew.abs),
                     ("invert", ew.bitwise_invert)):
        methods[f"__{name}__"] = ew.make_unary_operator(fn, f"__{name}__")
        lean[f"__{name}__"] = getattr(fn, "_lean", None)
    operators = tuple(methods)
    methods["__getitem__"] = _indexing.getitem
    methods["__setitem__"] = _indexing.setitem
    cls: Any = usm_ndarray
    core: Any = _form.core
    slots = frozenset(core.SLOTS) if core is not None else frozenset()
    for name, fn in methods.items():
        if name in slots:
            locking = name in operators or name in SUBMITTING_METHODS
            form = serialized(fn) if locking else fn
            if name in operators:  # named as the method it stands for, in messages
                form.__module__ = cls.__module__
                form.__qualname__ = f"{cls.__qualname__}.{name}"
            core.install(name, form, lean.get(name))
        else:
            setattr(cls, name, fn)
    if core is not None:
        core.install_indexing(_indexing._LONE_KEYS, dt.bool)
    cls.to_device = _to_device
    cls.__array_namespace__ = array_namespace
    serialize_methods(usm_ndarray, tuple(n for n in operators + SUBMITTING_METHODS
                                         if n not in slots))
    for name in operators:
        if name in slots:
            continue  # a slot of the C base (named above): pickled as the base's method
        # a generated operator is found by name as a method of the class, as one written
        # in its body would be: pickle (and cloudpickle, which cubed's and Dask's tasks
        # use) stores it by reference, not its closure (per-backend plans, locks)
        op = getattr(cls, name)
        op.__module__ = cls.__module__
        op.__qualname__ = f"{cls.__qualname__}.{name}"
