"""``usm_ndarray``: the one array type, a thin wrapper over a backend's raw array.

The wrapper holds the raw array (``_arr``) and its backend (``_be``); shape,
strides, offset, memory and queue all live in the raw array.  Every method that
computes delegates to a namespace function, so the standard's rules are written
once, in the namespace modules.
"""

from __future__ import annotations

import builtins
import math
import types
from typing import TYPE_CHECKING, Any, Union

import numpy as np

from . import _backend, _dlpack, _serial
from . import _dtypes as dt
from ._device import Device
from ._serial import serialize_methods

_sycl = _backend.sycl
_Scalar = bool | int | float | complex
_Operand = Union["usm_ndarray", bool, int, float, complex]
_public_dtype = dt.public
_API_VERSIONS = frozenset({"2021.12", "2022.12", "2023.12", "2024.12", "2025.12"})
_USM_TYPES = ("device", "shared", "host")


class usm_ndarray:  # noqa: N801 - the name the design gives the type
    """An N-dimensional array in SYCL Unified Shared Memory.

    ``usm_ndarray(shape, dtype=None, buffer="device", strides=None, offset=0,
    order="C", buffer_ctor_kwargs=None)`` makes a view of ``shape`` with
    ``strides`` (in elements, negative allowed) starting ``offset`` elements into
    ``buffer``: "device" | "shared" | "host" allocates new USM memory of that kind,
    a ``dpctl.memory.MemoryUSM*`` object or another ``usm_ndarray`` shares existing
    memory.  Every element the view can address must lie inside the buffer.
    """

    __slots__ = ("_arr", "_be", "__weakref__")
    #: NumPy defers operators to a type of higher priority, so ``np.float64(2) * x`` and
    #: ``ndarray + x`` reach x's reflected operator (see _scalars.py), never NumPy's
    __array_priority__ = 1000.0

    if TYPE_CHECKING:  # installed by _install_operators() from the namespace functions
        def __add__(self, other: _Operand, /) -> usm_ndarray: ...
        def __radd__(self, other: _Scalar, /) -> usm_ndarray: ...
        def __iadd__(self, other: _Operand, /) -> usm_ndarray: ...
        def __sub__(self, other: _Operand, /) -> usm_ndarray: ...
        def __rsub__(self, other: _Scalar, /) -> usm_ndarray: ...
        def __isub__(self, other: _Operand, /) -> usm_ndarray: ...
        def __mul__(self, other: _Operand, /) -> usm_ndarray: ...
        def __rmul__(self, other: _Scalar, /) -> usm_ndarray: ...
        def __imul__(self, other: _Operand, /) -> usm_ndarray: ...
        def __truediv__(self, other: _Operand, /) -> usm_ndarray: ...
        def __rtruediv__(self, other: _Scalar, /) -> usm_ndarray: ...
        def __itruediv__(self, other: _Operand, /) -> usm_ndarray: ...
        def __floordiv__(self, other: _Operand, /) -> usm_ndarray: ...
        def __rfloordiv__(self, other: _Scalar, /) -> usm_ndarray: ...
        def __ifloordiv__(self, other: _Operand, /) -> usm_ndarray: ...
        def __mod__(self, other: _Operand, /) -> usm_ndarray: ...
        def __rmod__(self, other: _Scalar, /) -> usm_ndarray: ...
        def __imod__(self, other: _Operand, /) -> usm_ndarray: ...
        def __pow__(self, other: _Operand, /) -> usm_ndarray: ...
        def __rpow__(self, other: _Scalar, /) -> usm_ndarray: ...
        def __ipow__(self, other: _Operand, /) -> usm_ndarray: ...
        def __and__(self, other: _Operand, /) -> usm_ndarray: ...
        def __rand__(self, other: _Scalar, /) -> usm_ndarray: ...
        def __iand__(self, other: _Operand, /) -> usm_ndarray: ...
        def __or__(self, other: _Operand, /) -> usm_ndarray: ...
        def __ror__(self, other: _Scalar, /) -> usm_ndarray: ...
        def __ior__(self, other: _Operand, /) -> usm_ndarray: ...
        def __xor__(self, other: _Operand, /) -> usm_ndarray: ...
        def __rxor__(self, other: _Scalar, /) -> usm_ndarray: ...
        def __ixor__(self, other: _Operand, /) -> usm_ndarray: ...
        def __lshift__(self, other: _Operand, /) -> usm_ndarray: ...
        def __rlshift__(self, other: _Scalar, /) -> usm_ndarray: ...
        def __ilshift__(self, other: _Operand, /) -> usm_ndarray: ...
        def __rshift__(self, other: _Operand, /) -> usm_ndarray: ...
        def __rrshift__(self, other: _Scalar, /) -> usm_ndarray: ...
        def __irshift__(self, other: _Operand, /) -> usm_ndarray: ...
        def __matmul__(self, other: usm_ndarray, /) -> usm_ndarray: ...
        def __rmatmul__(self, other: usm_ndarray, /) -> usm_ndarray: ...
        def __imatmul__(self, other: usm_ndarray, /) -> usm_ndarray: ...
        def __lt__(self, other: _Operand, /) -> usm_ndarray: ...
        def __le__(self, other: _Operand, /) -> usm_ndarray: ...
        def __gt__(self, other: _Operand, /) -> usm_ndarray: ...
        def __ge__(self, other: _Operand, /) -> usm_ndarray: ...
        def __eq__(self, other: object, /) -> usm_ndarray: ...  # type: ignore[override]
        def __ne__(self, other: object, /) -> usm_ndarray: ...  # type: ignore[override]
        def __neg__(self) -> usm_ndarray: ...
        def __pos__(self) -> usm_ndarray: ...
        def __abs__(self) -> usm_ndarray: ...
        def __invert__(self) -> usm_ndarray: ...

    def __init__(
        self,
        shape: Any,
        dtype: Any = None,
        buffer: Any = "device",
        strides: Any = None,
        offset: int = 0,
        order: str = "C",
        buffer_ctor_kwargs: dict | None = None,
    ) -> None:
        from ._construct import construct

        self._arr = construct(shape, dtype, buffer, strides, offset, order, buffer_ctor_kwargs)
        self._be = _sycl

    # ---- metadata ------------------------------------------------------------
    @property
    def dtype(self) -> dt.DType:
        return _public_dtype(self._arr.dtype)

    @property
    def shape(self) -> tuple[int, ...]:
        return self._arr.shape

    @property
    def ndim(self) -> int:
        return self._arr.ndim

    @property
    def size(self) -> int:
        return self._arr.size

    @property
    def strides(self) -> tuple[int, ...]:
        """Strides in elements (not bytes), as in the container spec."""
        return self._arr.strides

    @property
    def itemsize(self) -> int:
        return self._arr.itemsize

    @property
    def nbytes(self) -> int:
        return self._arr.nbytes

    @property
    def device(self) -> Device:
        be = self._be
        return Device._make(be, be.queue_of(self._arr))

    @property
    def usm_type(self) -> str:
        return self._be.usm_type_of(self._arr)

    def _sycl_raw(self, what: str) -> Any:
        if self._be is not _sycl or _sycl is None:
            raise AttributeError(
                f"usm_ndarray.{what} exists for arrays on SYCL devices only; this array "
                f"is on {self.device!r} ({self._be.name} backend)"
            )
        return self._arr

    @property
    def sycl_queue(self) -> Any:
        return self._sycl_raw("sycl_queue").sycl_queue

    @property
    def sycl_device(self) -> Any:
        return self._sycl_raw("sycl_device").sycl_device

    @property
    def sycl_context(self) -> Any:
        return self._sycl_raw("sycl_context").sycl_context

    @property
    def usm_data(self) -> Any:
        """The USM memory object that owns this array's memory."""
        return self._sycl_raw("usm_data").usm_data

    @property
    def flags(self) -> Any:
        return self._arr.flags

    @property
    def __usm_ndarray__(self) -> Any:
        """The provider's array for this data (a view): how dpnp takes it zero-copy."""
        return self._sycl_raw("__usm_ndarray__")[...]

    @property
    def __sycl_usm_array_interface__(self) -> dict:
        return self._sycl_raw("__sycl_usm_array_interface__").__sycl_usm_array_interface__

    @property
    def mT(self) -> usm_ndarray:  # noqa: N802 - the standard's name
        if self._arr.ndim < 2:
            raise ValueError(
                f"x.mT needs an array of at least 2 dimensions, got {self._arr.ndim}"
            )
        return wrap_with(self._be, self._arr.mT)

    @property
    def T(self) -> usm_ndarray:  # noqa: N802 - the standard's name
        if self._arr.ndim != 2:
            raise ValueError(
                f"x.T is defined for 2-D arrays only (got {self._arr.ndim}-D); use "
                "permute_dims() or x.mT for other ranks"
            )
        return wrap_with(self._be, self._arr.T)

    # ---- protocols -------------------------------------------------------------
    def __array_namespace__(self, /, *, api_version: str | None = None) -> types.ModuleType:
        if api_version is not None and api_version not in _API_VERSIONS:
            raise ValueError(
                f"api_version={api_version!r} is not supported; usmarray implements "
                f"{sorted(_API_VERSIONS)}"
            )
        import usmarray

        return usmarray

    def __dlpack__(
        self,
        /,
        *,
        stream: Any = None,
        max_version: tuple[int, int] | None = None,
        dl_device: tuple[Any, int] | None = None,
        copy: bool | None = None,
    ) -> Any:
        return _dlpack.export(self._arr, self._be, stream, max_version, dl_device, copy)

    def __dlpack_device__(self) -> tuple[Any, int]:
        return self._arr.__dlpack_device__()

    def to_device(self, device: Any, /, *, stream: Any = None) -> usm_ndarray:
        return _migration.to_device(self, device, stream=stream)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        a = self._arr
        if self._be is _sycl and a.usm_type == "device" and not a.sycl_device.is_cpu:
            raise TypeError(
                "implicit conversion to a NumPy array is refused for USM-device memory "
                "on a non-CPU device; use usmarray.asnumpy(x) to copy to the host"
            )
        if copy is False:
            raise ValueError(
                "__array__(copy=False): a usm_ndarray cannot be viewed as a NumPy array "
                "without a copy; use usmarray.asnumpy(x)"
            )
        res = self._be.to_host(a)
        return res if dtype is None else res.astype(dtype, copy=False)

    # ---- Python scalars -----------------------------------------------------------
    def _scalar_raw(self, kind: str, allowed: frozenset) -> Any:
        a = self._arr
        if a.ndim != 0:
            raise TypeError(
                f"{kind}() of a usm_ndarray needs a 0-D array, got shape {a.shape}; "
                "index or reduce it first"
            )
        if a.dtype not in allowed:
            raise TypeError(f"{kind}() is not defined for an array of dtype {a.dtype}")
        return a

    def __bool__(self) -> bool:
        return builtins.bool(self._scalar_raw("bool", dt.ANY))

    def __complex__(self) -> complex:
        return complex(self._scalar_raw("complex", dt.ANY))

    def __float__(self) -> float:
        return float(self._scalar_raw("float", dt.REAL_NUMERIC | dt.BOOLEAN))

    def __int__(self) -> int:
        a = self._scalar_raw("int", dt.REAL_NUMERIC | dt.BOOLEAN)
        if a.dtype in dt.REAL_FLOATING:
            v = float(a)
            if math.isnan(v):
                raise ValueError("int() of a NaN array is undefined")
            if math.isinf(v):
                raise OverflowError("int() of an infinite array is undefined")
            return int(v)
        return int(a)

    def __index__(self) -> int:
        return int(self._scalar_raw("index", dt.INTEGER))

    def __len__(self) -> int:
        if self._arr.ndim == 0:
            raise TypeError("len() of a 0-D usm_ndarray is undefined")
        return self._arr.shape[0]

    def __iter__(self) -> Any:
        a = self._arr
        if a.ndim == 0:  # raised by iter(x) itself, as NumPy does (np.iterable(x) is False)
            raise TypeError("iteration over a 0-D usm_ndarray is undefined")
        return _iter_rows(self._be, a)

    def __repr__(self) -> str:
        return self._be.repr(self._arr)

    def __str__(self) -> str:
        return self._be.str(self._arr)

    def __format__(self, spec: str) -> str:
        if self._arr.ndim == 0 and spec:
            return format(self._be.to_host(self._arr)[()].item(), spec)
        return format(str(self), spec)

    def __hash__(self) -> int:  # arrays are mutable: unhashable, as in NumPy
        raise TypeError("unhashable type: 'usm_ndarray'")

    # ---- pickling and copying -------------------------------------------------------------
    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled as a NumPy copy of the values (dtype and shape with them), the Device
        (by filter string, see ``Device.__reduce__``) and the usm_type."""
        be = self._be
        return _restore_array, (be.to_host(self._arr), self.device, be.usm_type_of(self._arr))

    def __copy__(self) -> usm_ndarray:
        return self.__deepcopy__(None)

    def __deepcopy__(self, memo: Any) -> usm_ndarray:
        """A new array with the same values on the same Device (and usm_type)."""
        return _migration.asarray(self, copy=True)

    # ---- indexing -----------------------------------------------------------------
    def __getitem__(self, key: Any, /) -> usm_ndarray:
        out = object.__new__(usm_ndarray)
        be = out._be = self._be
        if type(key) is slice:
            out._arr = self._arr[key]
            return out
        with _serial.LOCK:
            rk = _raw_key(self._arr, key)
            try:
                r = self._arr[rk]
            except Exception as exc:
                _indexing.gather_failed(exc, be, self._arr, rk)
        out._arr = r if r.__class__ is be.array_type else be.as_array(r)
        return out

    def __setitem__(self, key: Any, value: Any, /) -> None:
        _indexing.setitem(self, key, value)


def _iter_rows(be: Any, a: Any) -> Any:
    for i in range(a.shape[0]):
        r = a[i]
        yield wrap_with(be, r if r.__class__ is be.array_type else be.as_array(r))


def _restore_array(host: np.ndarray, device: Device, usm_type: str) -> usm_ndarray:
    """Unpickle: ``host`` onto ``device`` with ``usm_type`` (the device's default
    usm_type where the device, restored elsewhere, has no such kind of memory)."""
    be = device._be
    if usm_type not in be.usm_types:
        usm_type = be.usm_types[0]
    with _serial.LOCK:
        return wrap_with(be, be.from_host(np.asarray(host, order="C"), usm_type, device._q))


def wrap_with(be: Any, raw: Any) -> usm_ndarray:
    out = object.__new__(usm_ndarray)
    out._arr = raw
    out._be = be
    return out


def _install_operators() -> None:
    """Operator methods from the elementwise functions, with reflected and in-place forms."""
    from . import _elementwise as ew
    from . import _linalg_main as la

    binary = {
        "add": ew.add, "sub": ew.subtract, "mul": ew.multiply, "truediv": ew.divide,
        "floordiv": ew.floor_divide, "mod": ew.remainder, "pow": ew.pow,
        "and": ew.bitwise_and, "or": ew.bitwise_or, "xor": ew.bitwise_xor,
        "lshift": ew.bitwise_left_shift, "rshift": ew.bitwise_right_shift,
        "matmul": la.matmul,
    }
    for name, fn in binary.items():
        setattr(usm_ndarray, f"__{name}__", ew.make_operator(fn, f"__{name}__"))
        setattr(usm_ndarray, f"__r{name}__", ew.make_reflected(fn, f"__r{name}__"))
        setattr(usm_ndarray, f"__i{name}__", ew.make_inplace(fn, f"__i{name}__"))
    comparisons = {
        "lt": ew.less, "le": ew.less_equal, "gt": ew.greater, "ge": ew.greater_equal,
        "eq": ew.equal, "ne": ew.not_equal,
    }
    for name, fn in comparisons.items():
        setattr(usm_ndarray, f"__{name}__", ew.make_operator(fn, f"__{name}__"))
    usm_ndarray.__neg__ = lambda self: ew.negative(self)  # type: ignore[method-assign]
    usm_ndarray.__pos__ = lambda self: ew.positive(self)  # type: ignore[method-assign]
    usm_ndarray.__abs__ = lambda self: ew.abs(self)  # type: ignore[method-assign]
    usm_ndarray.__invert__ = lambda self: ew.bitwise_invert(self)  # type: ignore[method-assign]
    operators = tuple(
        [f"__{p}{n}__" for n in binary for p in ("", "r", "i")]
        + [f"__{n}__" for n in (*comparisons, "neg", "pos", "abs", "invert")]
    )
    serialize_methods(usm_ndarray, operators + _SUBMITTING_METHODS)


# methods that may submit work or wait for it (see _serial.py); __getitem__ locks itself
_SUBMITTING_METHODS = (
    "__dlpack__", "to_device", "__reduce__", "__array__", "__bool__", "__complex__", "__float__",
    "__int__", "__index__", "__repr__", "__str__", "__format__", "__setitem__",
)


from . import _indexing, _migration  # noqa: E402  (need usm_ndarray defined)

_raw_key = _indexing.raw_key

__all__ = ["usm_ndarray", "wrap_with"]
