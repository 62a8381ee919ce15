"""``usm_ndarray``: the one array type, a thin wrapper over a backend's raw array.

The wrapper holds the raw array (``_arr``) and its backend (``_be``); shape,
strides, offset, memory and queue all live in the raw array.  This module holds the
attributes and the protocols that need no namespace function; the operators,
indexing, ``to_device`` and ``__array_namespace__`` compute through the namespace
functions and are installed on the class by the package (``_operators.install``),
so the standard's rules are written once, in the namespace modules, and this module
imports none of them.
"""

from __future__ import annotations

import builtins
import math
import warnings
from typing import TYPE_CHECKING, Any, Union

import numpy as np

from . import _backend, _trace
from . import _dtypes as dt
from ._backend import _construct
from ._device import Device, default_device
from ._form import core as _core
from ._hints import (
    ARRAY_METHODS,
    ImplicitConversionWarning,
    LazyAttributeError,
    implicit_conversion,
    no_such_attribute,
    no_such_method,
)

_Scalar = bool | int | float | complex
_Operand = Union["usm_ndarray", bool, int, float, complex]
_public_dtype = dt.public


#: NumPy functions that read only shapes, dtypes or addresses: no data moves, no warning
_METADATA_ONLY = frozenset({
    "shape", "ndim", "size", "result_type", "iscomplexobj", "isrealobj", "may_share_memory",
    "shares_memory",
})


def _on_host(obj: Any) -> Any:
    """``obj`` with every usm_ndarray in it (in lists, tuples and dict values) as the
    NumPy view ``__array__`` gives."""
    t = type(obj)
    if t is usm_ndarray:
        return obj.__array__()
    if t is list or t is tuple:
        return t(_on_host(o) for o in obj)
    if t is dict:
        return {k: _on_host(v) for k, v in obj.items()}
    return obj


class Flags:
    """The memory-layout flags of an array, read from its raw array's flags.

    ``writable`` (also ``writeable``, ``flags["W"]``) may be set, as in NumPy: False makes
    the array read-only (views made from it afterwards inherit that; views made
    before keep their own flag), True undoes exactly that and is refused (ValueError)
    for an array whose read-only flag it did not set itself (a broadcast view, a
    read-only import, a view of a read-only array).  The other flags are read-only
    (AttributeError)."""

    __slots__ = ("_c", "_f", "_w", "_owner")

    def __init__(self, raw_flags: Any, writable: bool, owner: usm_ndarray | None = None
                 ) -> None:
        self._c = bool(raw_flags.c_contiguous)
        self._f = bool(raw_flags.f_contiguous)
        self._w = writable
        self._owner = owner

    @property
    def c_contiguous(self) -> bool:
        return self._c

    @property
    def f_contiguous(self) -> bool:
        return self._f

    @property
    def writable(self) -> bool:
        return self._w

    @writable.setter
    def writable(self, value: Any) -> None:
        if type(value) not in (bool, int) or value not in (0, 1):
            raise TypeError(f"flags.writable must be True or False, got {value!r}")
        if self._owner is None:  # pragma: no cover - every public Flags has an owner
            raise ValueError("flags: these flags belong to no array")
        self._owner._set_writable(bool(value))
        self._w = bool(value)

    @property
    def writeable(self) -> bool:  # NumPy's spelling
        return self._w

    @writeable.setter
    def writeable(self, value: Any) -> None:
        self.writable = value

    _NAMES = {"C": "c_contiguous", "C_CONTIGUOUS": "c_contiguous", "F": "f_contiguous",
              "F_CONTIGUOUS": "f_contiguous", "W": "writable", "WRITABLE": "writable",
              "WRITEABLE": "writable"}

    def __getitem__(self, key: str) -> bool:
        if key not in self._NAMES:
            raise KeyError(f"flags: unknown flag {key!r}; known: {sorted(self._NAMES)}")
        return bool(getattr(self, self._NAMES[key]))

    def __setitem__(self, key: str, value: Any) -> None:
        if key not in self._NAMES:
            raise KeyError(f"flags: unknown flag {key!r}; known: {sorted(self._NAMES)}")
        if self._NAMES[key] != "writable":
            raise AttributeError(f"flags: {key!r} is not settable; only the writable flag "
                                 "('W', 'WRITABLE', 'WRITEABLE') is")
        self.writable = value

    def __repr__(self) -> str:
        return (f"  C_CONTIGUOUS : {self._c}\n  F_CONTIGUOUS : {self._f}\n"
                f"  WRITABLE : {self._w}")


class _DefaultKind(str):
    """The type of ``usm_ndarray``'s default ``buffer``: it reads "device", and means
    the backend's default kind of memory ("host" on the NumPy backend)."""

    __slots__ = ()


_DEFAULT_KIND = _DefaultKind("device")


#: the base of usm_ndarray: the compiled core's C fields and slots, or none
_Base: Any = object if _core is None else _core.ArrayBase


class usm_ndarray(_Base):  # noqa: N801 - the name the design gives the type
    """An N-dimensional array in Unified Shared Memory of one device: the array type of the
    namespace.

    Arrays come from the creation functions (``asarray``, ``zeros``, ...) and from
    operations; the constructor makes a view of new or existing memory, on every backend.
    Its attributes and operators are the standard's array object; backend-specific
    attributes (``sycl_queue``, ``usm_data``, ``__sycl_usm_array_interface__`` on SYCL
    devices, ``__cuda_array_interface__`` on CUDA devices) come from the array's backend
    and raise AttributeError elsewhere.

    Parameters
    ----------
    shape : int or tuple of int
        Shape of the view.
    dtype : DType, numpy.dtype or str, optional
        One of the standard's dtypes (NumPy dtypes and strings are taken here, as
        dpctl.tensor takes them); None: the default device's default real floating
        dtype.
    buffer : {"device", "shared", "host"}, usm_ndarray or a backend's memory object
        A kind of new memory to allocate on the default device (or on
        ``buffer_ctor_kwargs["queue"]``), where the device has it (CUDA: device, managed
        and pinned memory; the NumPy device has ``"host"`` only, and the default means it
        there); or existing memory to view, on its device: another ``usm_ndarray``
        (offsets then count from the start of its allocation), ``dpctl.memory.MemoryUSM*``
        or a raw ``dpnp.tensor`` array on SYCL, CuPy's ``MemoryPointer`` or
        ``BaseMemory`` on CUDA.  Default ``"device"``.
    strides : tuple of int, optional
        Strides in elements (negative and zero allowed); None: contiguous in ``order``.
    offset : int, optional
        Position of element 0 in the buffer, in elements.
    order : {"C", "F"}, optional
        Layout of a view without ``strides``: row-major (default) or column-major.
    buffer_ctor_kwargs : dict, optional
        For new memory: ``"queue"`` (a backend's queue to allocate on) and
        ``"alignment"`` (0 or a power of two).

    Raises
    ------
    TypeError
        A ``shape``, ``dtype`` or ``buffer`` of the wrong kind (float16, a NumPy array as
        buffer); a ``queue`` of another backend than ``buffer`` names.
    ValueError
        A view that would address an element outside its buffer; an ``order`` other
        than ``"C"`` or ``"F"``; a memory kind the device does not have; an alignment
        that is not a power of two.
    MemoryError
        New memory the device cannot hold.

    Notes
    -----
    A view of read-only memory is read-only.  Computing with an array runs on its device
    (compute follows data); arrays of different devices do not mix in one call
    (``ExecutionPlacementError``): move one with ``x.to_device(d)`` or
    ``usmarray.asarray(x, device=d)``.  See docs/usm-types.md for the memory kinds.

    See Also
    --------
    [The array object](https://data-apis.org/array-api/2025.12/API_specification/array_object.html): the standard's specification of its attributes and operators.
    """

    # the compiled base holds _arr and _be as C fields
    __slots__ = (("_arr", "_be") if _core is None else ()) + ("_writable_raw", "__weakref__")
    _arr: Any
    _be: Any
    #: NumPy defers operators to a type of higher priority, so ``np.float64(2) * x`` and
    #: ``ndarray + x`` reach x's reflected operator (see _scalars.py), never NumPy's
    __array_priority__ = 1000.0

    if TYPE_CHECKING:  # installed by _operators.install() from the namespace functions
        def __getitem__(self, key: Any, /) -> usm_ndarray: ...
        def __setitem__(self, key: Any, value: Any, /) -> None: ...
        def to_device(self, device: Any, /, *, stream: Any = None) -> usm_ndarray: ...
        def __array_namespace__(self, /, *, api_version: str | None = None) -> Any: ...
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
        buffer: Any = _DEFAULT_KIND,
        strides: Any = None,
        offset: int = 0,
        order: str = "C",
        buffer_ctor_kwargs: dict | None = None,
    ) -> None:
        be, q = _constructor_placement(buffer, buffer_ctor_kwargs)
        if buffer is _DEFAULT_KIND:
            buffer = be.usm_types[0]
        read_only = False
        if type(buffer) is usm_ndarray:
            read_only = be.read_only_memory(buffer._arr)
            buffer = be.buffer_of(buffer._arr)
        raw = _construct.construct(be, q, shape, dtype, buffer, strides, offset, order,
                                   buffer_ctor_kwargs)
        if read_only:  # a view of a read-only array's memory is read-only too
            raw = be.read_only_view(raw)
        self._arr = raw
        self._be = be

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
        return self._be.element_strides(self._arr)

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

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") and not name.endswith("__"):
            raise AttributeError(name)
        try:
            be = object.__getattribute__(self, "_be")
        except AttributeError:
            raise AttributeError(name) from None
        if name in ARRAY_METHODS:
            raise AttributeError(no_such_method(name))
        try:
            return be.array_attribute(self._arr, name)
        except AttributeError:
            pass
        # worded here, for every backend alike; built only when read (hasattr probes)
        raise LazyAttributeError(name, lambda: no_such_attribute(
            name, be.name, dir(self.__array_namespace__()))) from None

    @property
    def flags(self) -> Flags:
        """``c_contiguous``, ``f_contiguous`` and ``writable`` (also ``writeable``), the
        same names on every backend; a view of a read-only array is read-only."""
        return Flags(self._arr.flags, self._be.writable(self._arr), self)

    def _set_writable(self, flag: bool) -> None:
        """``x.flags.writable = flag`` (see :class:`Flags`): the array's raw array becomes
        a read-only view of it, and the writable one is kept to undo that."""
        be = self._be
        if be.writable(self._arr) == flag:
            return
        if not flag:
            self._writable_raw = self._arr
            self._arr = be.read_only_view(self._arr)
            return
        prev = getattr(self, "_writable_raw", None)
        if prev is None:
            raise ValueError(
                "cannot make this array writable: its memory is read-only where it comes "
                "from (a broadcast view, a read-only import, or a view of a read-only "
                "array), not by its own flags.writable = False; write a copy instead: "
                "usmarray.asarray(x, copy=True)"
            )
        self._arr = prev
        self._writable_raw = None

    if _core is None or TYPE_CHECKING:  # else the compiled base's (usmarray/_core.pyx)
        @property
        def mT(self) -> usm_ndarray:  # noqa: N802 - the standard's name
            return _matrix_transpose(self)

        @property
        def T(self) -> usm_ndarray:  # noqa: N802 - the standard's name
            return _transpose(self)

    # ---- protocols -------------------------------------------------------------
    def __dlpack__(
        self,
        /,
        *,
        stream: Any = None,
        max_version: tuple[int, int] | None = None,
        dl_device: tuple[Any, int] | None = None,
        copy: bool | None = None,
    ) -> Any:
        """A DLPack capsule of this array, by one rule on every backend.

        Arguments: ``max_version`` None or a tuple of two ints, ``dl_device`` None or a
        ``(device_type, device_id)`` tuple of two ints, ``copy`` None or a bool
        (TypeError for another type, ValueError for a tuple of another length).  The
        export goes to the array's own device or to the host (kDLCPU, 0); any other
        device is BufferError.  A read-only array (a broadcast view, a read-only
        import, ``flags.writable = False``) exports with DLPack 1.0's read-only flag;
        a consumer of an older DLPack (no ``max_version``, or a major version 0)
        cannot be told, so it gets a copy, and ``copy=False`` is BufferError."""
        if _trace.ACTIVE:
            _trace.impure("__dlpack__ of an array")
        be, raw = self._be, self._arr
        own = tuple(int(v) for v in be.dlpack_device(raw))
        _check_dlpack_args(max_version, dl_device, copy, own)
        if (max_version is None or max_version[0] < 1) and not be.writable(raw):
            if copy is False:
                raise BufferError(
                    "__dlpack__: this array is read-only and the consumer reads DLPack "
                    "< 1.0, which has no read-only flag, so only a copy can be exported; "
                    "pass copy=None or True, or max_version=(1, 0)"
                )
            raw, copy = be.copy(raw), None
        return be.dlpack(raw, stream, max_version, dl_device, copy)

    def __dlpack_device__(self) -> tuple[Any, int]:
        return self._be.dlpack_device(self._arr)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        """A NumPy view of memory the host can read (``copy`` None or False), as the
        host DLPack export gives it: writes through it reach this array (SciPy's
        ``output=`` arrays rely on it); a copy with ``copy=True`` or a new ``dtype``.
        Memory the host cannot read is refused (``usmarray.asnumpy`` copies it)."""
        if _trace.ACTIVE:
            _trace.impure("__array__ of an array")
        a = self._arr
        if not self._be.host_accessible(a):
            raise TypeError(
                "implicit conversion to a NumPy array is refused for device memory the "
                "host cannot read; use usmarray.asnumpy(x) to copy to the host"
            )
        if copy is True:
            res = self._be.to_host(a)
        else:
            res = np.from_dlpack(self, device="cpu", copy=False)
            if res.flags.writeable and not self.flags.writable:
                res.flags.writeable = False  # a read-only array gives a read-only view
        if dtype is None or res.dtype == np.dtype(dtype):
            return res
        if copy is False:
            raise ValueError(
                f"__array__(dtype={dtype}, copy=False): a {res.dtype} array cannot be "
                "viewed as another dtype without a copy"
            )
        return res.astype(dtype)

    def __array_wrap__(self, array: np.ndarray, context: Any = None,
                       return_scalar: bool = False) -> Any:
        """The result of a NumPy ufunc given this array (``np.sin(x)``,
        ``np.add.reduce(x)``): NumPy converted the usm_ndarray operands through
        ``__array__`` (host views; TypeError where the host cannot read the memory) and
        computed on the host.  The result stays NumPy's, with an
        :class:`ImplicitConversionWarning`.  NumPy's operators with this array never get
        here: ``__array_priority__`` makes NumPy defer them to its reflected operators."""
        what = f"numpy.{context[0].__name__}" if context else None
        warnings.warn(implicit_conversion(what, self._names()), ImplicitConversionWarning,
                      stacklevel=2)
        return array[()] if return_scalar else array

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        """A NumPy function given this array (``np.mean(x)``, ``np.concatenate([x, y])``):
        computed in NumPy on host views of the usm_ndarrays (TypeError where the host
        cannot read the memory), with an :class:`ImplicitConversionWarning`.  A function
        that reads only metadata (``np.shape(x)``) runs as NumPy runs it for any object,
        silently."""
        if not all(issubclass(t, (usm_ndarray, np.ndarray)) for t in types):
            return NotImplemented
        if func.__name__ in _METADATA_ONLY:  # NumPy's own code, as without this method
            return func._implementation(*args, **kwargs)
        args, kwargs = _on_host(args), _on_host(kwargs)
        warnings.warn(implicit_conversion(f"{func.__module__}.{func.__name__}",
                                          self._names()),
                      ImplicitConversionWarning, stacklevel=2)
        return func(*args, **kwargs)

    def _names(self) -> dict[str, Any]:
        """The names of this array's namespace (for messages)."""
        return vars(self.__array_namespace__())

    # ---- Python scalars -----------------------------------------------------------
    def _scalar_raw(self, kind: str, allowed: frozenset) -> Any:
        if _trace.ACTIVE:
            _trace.impure(f"{kind}() of an array")
        a = self._arr
        if a.ndim != 0:
            raise TypeError(
                f"{kind}() of a usm_ndarray needs a 0-D array, got shape {a.shape}; "
                "index or reduce it first"
            )
        if a.dtype not in allowed:
            raise TypeError(f"{kind}() is not defined for an array of dtype {a.dtype}")
        return self._be.scalar(a)

    def __bool__(self) -> bool:
        return builtins.bool(self._scalar_raw("bool", dt.ANY))

    def __complex__(self) -> complex:
        return complex(self._scalar_raw("complex", dt.ANY))

    def __float__(self) -> float:
        return float(self._scalar_raw("float", dt.REAL_NUMERIC | dt.BOOLEAN))

    def __int__(self) -> int:
        a = self._scalar_raw("int", dt.REAL_NUMERIC | dt.BOOLEAN)
        if a.dtype.kind == "f":
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
        return wrap_with(self._be, self._be.copy(self._arr))



def _iter_rows(be: Any, a: Any) -> Any:
    for i in range(a.shape[0]):
        r = a[i]
        yield wrap_with(be, r if r.__class__ is be.array_type else be.as_array(r))


def _restore_array(host: np.ndarray, device: Device, usm_type: str) -> usm_ndarray:
    """Unpickle: ``host`` onto ``device`` with ``usm_type`` (the device's default
    usm_type where the device, restored elsewhere, has no such kind of memory).

    A crafted pickle can pass anything here: ``host`` must be a NumPy array of one of
    the standard's dtypes (native byte order), ``device`` a :class:`Device` and
    ``usm_type`` a str, else TypeError.  (Pickle still runs whatever callable a pickle
    names: never unpickle untrusted data.)"""
    if not isinstance(host, np.ndarray):
        raise TypeError(f"unpickling a usm_ndarray: the values must be a NumPy array, got "
                        f"{type(host).__name__}")
    if host.dtype not in dt.ALL_DTYPES:
        raise TypeError(
            f"unpickling a usm_ndarray: dtype {host.dtype.str} ({host.dtype}) is not one of "
            f"the array API's dtypes ({', '.join(d.name for d in dt.ALL_DTYPES)}, native "
            "byte order)"
        )
    if type(device) is not Device:
        raise TypeError(f"unpickling a usm_ndarray: the device must be a usmarray.Device, "
                        f"got {type(device).__name__}")
    if type(usm_type) is not str:
        raise TypeError(f"unpickling a usm_ndarray: the usm_type must be a str, got "
                        f"{type(usm_type).__name__}")
    be = device._be
    if usm_type not in be.usm_types:
        usm_type = be.usm_types[0]
    lk = be.lock
    if lk is None:
        return wrap_with(be, be.from_host(np.asarray(host, order="C"), usm_type, device._q))
    with lk:
        return wrap_with(be, be.from_host(np.asarray(host, order="C"), usm_type, device._q))


_KDL_CPU = 1


def _check_dlpack_args(max_version: Any, dl_device: Any, copy: Any,
                       own: tuple[int, ...]) -> None:
    """The standard's errors for ``__dlpack__``'s arguments (see its docstring)."""
    if copy is not None and type(copy) is not bool:
        raise TypeError(f"__dlpack__: copy must be None, True or False, got {copy!r}")
    for name, v in (("max_version", max_version), ("dl_device", dl_device)):
        if v is None:
            continue
        if not isinstance(v, tuple) or not all(
                isinstance(e, int) and not isinstance(e, bool) for e in v):
            raise TypeError(f"__dlpack__: {name} must be None or a tuple of two ints, got "
                            f"{v!r}")
        if len(v) != 2:
            raise ValueError(f"__dlpack__: {name} must be a tuple of two ints, got {len(v)} "
                             f"entries: {v!r}")
    if dl_device is not None and tuple(dl_device) not in (own, (_KDL_CPU, 0)):
        raise BufferError(
            f"__dlpack__: cannot export to device {tuple(dl_device)}; this array is on "
            f"{own} and can be exported there or to the host (kDLCPU: (1, 0))"
        )


#: ``new_array(usm_ndarray)``: an array with no fields set yet, to be set at once
new_array: Any = object.__new__ if _core is None else _core.ArrayBase.__new__


def _matrix_transpose(x: usm_ndarray) -> usm_ndarray:
    """``x.mT``: a view with the last two axes swapped."""
    raw = x._arr
    if raw.ndim < 2:
        raise ValueError(f"x.mT needs an array of at least 2 dimensions, got {raw.ndim}")
    return wrap_with(x._be, raw.mT)


def _transpose(x: usm_ndarray) -> usm_ndarray:
    """``x.T``: the transposed view of a 2-D array."""
    raw = x._arr
    if raw.ndim != 2:
        raise ValueError(
            f"x.T is defined for 2-D arrays only (got {raw.ndim}-D); use "
            "permute_dims() or x.mT for other ranks"
        )
    return wrap_with(x._be, raw.T)


def wrap_with(be: Any, raw: Any) -> usm_ndarray:
    """A new array of ``raw``, an array of backend ``be``."""
    out = new_array(usm_ndarray)
    out._arr = raw
    out._be = be
    return out


if _core is not None:
    wrap_with = _core.wrap_with  # noqa: F811 - the same function, compiled
    _core.bind(usm_ndarray, _trace)
    _core.install("mT", _matrix_transpose)  # the compiled properties' error paths
    _core.install("T", _transpose)


def _constructor_placement(buffer: Any, kwargs: dict | None) -> tuple[Any, Any]:
    """(backend, default queue) of ``usm_ndarray(..., buffer=buffer)``: the backend of
    ``buffer`` (a usm_ndarray, or a memory object that one backend claims), else the one
    whose queue ``buffer_ctor_kwargs["queue"]`` is, else the default device's (queue
    None: the memory or the keyword names it).  Never another backend: TypeError where
    that backend has no constructor."""
    q = None
    if type(buffer) is usm_ndarray:
        be = buffer._be
    elif not isinstance(buffer, str):
        be = next((b for b in _backend.backends().values()
                   if b.ctor_make is not None and b.memory_object(buffer)), None)
        if be is None:
            raise TypeError(
                "usm_ndarray: buffer must be 'device', 'shared', 'host', a usm_ndarray or a "
                "backend's memory object (dpctl.memory.MemoryUSM* or a raw dpnp.tensor array "
                "on SYCL, cupy.cuda.MemoryPointer or UnownedMemory on CUDA), got "
                f"{type(buffer).__name__}"
            )
    else:
        kq = kwargs.get("queue") if isinstance(kwargs, dict) else None
        be = _backend.for_native(kq) if kq is not None else None
        if be is None:  # the default device's backend (which refuses a foreign queue)
            dev = default_device()
            be, q = dev._be, (dev._q if kq is None else None)
    if be.ctor_make is None:
        raise TypeError(
            f"usm_ndarray(...): the {be.name!r} backend has no constructor; create arrays "
            "there with usmarray.empty/zeros/asarray(..., device=...) instead"
        )
    return be, q


__all__ = ["new_array", "usm_ndarray", "wrap_with"]
