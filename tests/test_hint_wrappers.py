"""The wrappers that add advice to TypeErrors (``_serial.hinted``/``serialized``) bind
the call's arguments by the function's own parameters, and give the message the
function itself gives, with ``_hints.call_error``'s advice where it has one."""

from __future__ import annotations

import inspect

import pytest

import usmarray as xp
from usmarray._hints import call_error

X = xp.asarray([1.0, 2.0, 3.0], device="numpy")

CALLS = [
    ("sum", (X, 0), {}), ("sum", (X, 0), {"keepdims": True}), ("zeros", (3, xp.float32), {}),
    ("where", (X,), {}), ("where", (X, X), {}), ("where", (), {"condition": X}),
    ("reshape", (), {"x": X, "shape": (3,)}), ("reshape", (X,), {}), ("zeros", (), {}),
    ("sort", (X,), {"kind": "stable"}), ("zeros", (3,), {"order": "C"}),
    ("full", (3, 1.0, xp.float32), {}), ("full", (), {"fill_value": 1.0}), ("full", (3,), {}),
    ("asarray", ([1.0],), {"ndmin": 2}), ("zeros", (), {"shape": 3, "shape2": 1}),
    ("stack", ([X], 0), {}), ("round", (X,), {"decimals": 2}), ("sum", (X,), {"out": X}),
    ("reshape", (X, (3,), False), {}), ("take", (X, X, 0), {}), ("clip", (X, 0, 1, X), {}),
    ("linspace", (0, 1, 5), {"retstep": True}), ("concat", ([X], 0), {}),
]


def _reference(f, args, kwargs):
    """The message of the unwrapped function, with ``call_error``'s advice."""
    try:
        f(*args, **kwargs)
    except TypeError as exc:
        better = call_error(f, exc, args)
        return str(exc if better is None else better)
    raise AssertionError("the call was expected to fail")


@pytest.mark.parametrize(("name", "args", "kwargs"), CALLS)
def test_wrapper_message_is_the_functions_own_with_advice(name, args, kwargs):
    public = getattr(xp, name)
    with pytest.raises(TypeError) as info:
        public(*args, **kwargs)
    assert str(info.value) == _reference(inspect.unwrap(public), args, kwargs)


@pytest.mark.parametrize("name", ["zeros", "full", "reshape", "stack", "sum", "asarray"])
def test_wrapper_binds_the_functions_own_parameters(name):
    public = getattr(xp, name)
    own = list(inspect.signature(inspect.unwrap(public)).parameters)
    code = public.__code__
    assert list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]) == own
    assert public.__qualname__ == name and inspect.signature(public) == inspect.signature(
        inspect.unwrap(public))


def test_wrapped_calls_give_the_functions_results():
    assert xp.asnumpy(xp.full(3, 2.0, dtype=xp.float32, device="numpy")).tolist() == [2.0] * 3
    assert xp.reshape(X, (3, 1)).shape == (3, 1)
    assert float(xp.sum(X, axis=0, keepdims=False)) == 6.0


@pytest.mark.parametrize("name", ["zeros", "sum", "reshape"])
def test_wrapper_code_is_usmarrays(name):
    """Fusion's guard and warn_at_caller take code under the package as usmarray's."""
    import os

    package = os.path.dirname(os.path.abspath(xp.__file__)) + os.sep
    public = getattr(xp, name)
    assert os.path.abspath(public.__code__.co_filename).startswith(package)
    assert public.__globals__["__name__"].startswith("usmarray")
