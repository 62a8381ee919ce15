"""What a backend supplies to the namespace layer, in terms of no particular runtime.

A backend owns memory and kernels, nothing else: the namespace layer validates
every call (dtypes, promotion, scalars, devices, arguments) before a kernel runs,
so a backend never sees an invalid call.  See ``docs/backends.md``.

Words used here:

* a *raw array* is the backend's own array object (``x._arr`` of a ``usm_ndarray``);
* a *queue* is the backend's handle on one device and one ordered stream of work:
  any hashable object whose ``==`` means "equivalent queue" (two Devices are equal
  when their backends are the same object and their queues are equal).

:class:`BackendBase` gives every optional member a default, so a backend states only
what differs; :func:`complete` fills those defaults into a registered object that
does not derive from it.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ._layout import INDEX_LIMIT


@dataclass(frozen=True)
class Capabilities:
    fp64: bool = True
    fp16: bool = False


class LinAlgError(np.linalg.LinAlgError):
    """A linear-algebra routine failed on its input: a singular matrix (``inv``,
    ``solve``), a matrix that is not positive definite (``cholesky``), or an
    iteration that did not converge.  Subclasses ``numpy.linalg.LinAlgError`` and
    therefore ``ValueError``; every backend raises this one."""

    __module__ = "usmarray.linalg"


class HostFallbackWarning(RuntimeWarning):
    """Issued once when linalg/fft kernels of a device backend run on the host."""

    __module__ = "usmarray.linalg"


#: elementwise kernels: arrays and scalars in, one array out, ``out=`` accepted
ELEMENTWISE_KERNELS = (
    "abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh",
    "bitwise_and", "bitwise_left_shift", "bitwise_invert", "bitwise_or",
    "bitwise_right_shift", "bitwise_xor", "ceil", "clip", "conj", "copysign", "cos",
    "cosh", "divide", "equal", "exp", "expm1", "floor", "floor_divide", "greater",
    "greater_equal", "hypot", "imag", "isfinite", "isinf", "isnan", "less",
    "less_equal", "log", "log1p", "log2", "log10", "logaddexp", "logical_and",
    "logical_not", "logical_or", "logical_xor", "maximum", "minimum", "multiply",
    "negative", "nextafter", "not_equal", "positive", "pow", "real", "reciprocal",
    "remainder", "round", "sign", "signbit", "sin", "sinh", "square", "sqrt",
    "subtract", "tan", "tanh", "trunc",
)

#: reductions: ``fn(x, axis=None | int | tuple, keepdims=False, ...)``
REDUCTION_KERNELS = (
    "sum", "prod", "max", "min", "mean", "var", "std", "argmax", "argmin", "any", "all",
    "count_nonzero", "reduce_hypot",
)

#: array-API-shaped kernels a backend binds as attributes; each takes and returns raw arrays
KERNEL_NAMES = ELEMENTWISE_KERNELS + (
    # creation
    "arange", "empty", "empty_like", "eye", "full", "full_like", "linspace",
    "meshgrid", "ones", "ones_like", "tril", "triu", "zeros", "zeros_like",
    # manipulation
    "broadcast_arrays", "broadcast_to", "concat", "expand_dims", "flip", "moveaxis",
    "permute_dims", "repeat", "reshape", "roll", "squeeze", "stack", "tile", "unstack",
    # statistics, searching, sets, sorting, indexing, utilities
    "cumulative_prod", "cumulative_sum", "max", "mean", "min", "prod", "std", "sum",
    "var", "argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where",
    "unique_all", "unique_counts", "unique_inverse", "unique_values", "isin",
    "argsort", "sort", "take", "take_along_axis", "all", "any", "diff",
    "astype", "matmul", "matrix_transpose", "tensordot", "vecdot",
    # beyond the standard's names: a compact copy, the 2-norm reduction
    "copy", "reduce_hypot",
)

#: creation kernels: they take ``dtype=``, ``usm_type=`` and ``queue=`` keywords
CREATION_KERNELS = ("arange", "empty", "eye", "full", "linspace", "ones", "zeros")

#: the members a registered backend must have; the rest default (BackendBase)
REQUIRED = ("name", "native_queue", "default_queue", "queue_of", "to_host", "from_host")


class Backend(Protocol):
    """The interface a backend implements (see docs/backends.md).

    Kernels: every name in ``KERNEL_NAMES`` as an attribute, with the array API's
    signatures; creation kernels (``CREATION_KERNELS``) take ``dtype=``, ``usm_type=``
    and ``queue=``; ``linspace`` also ``compute_dtype=`` (the dtype NumPy would compute
    its values in, which the namespace decides; its values are NumPy's, bit for bit);
    ``*_like`` kernels allocate on their argument's queue; every result is a raw array,
    0-D rather than a scalar.
    """

    name: builtins.str
    #: USM kinds this backend allocates; the first is the default
    usm_types: tuple[builtins.str, ...]
    #: the exact type of its raw arrays
    array_type: type
    #: whether two arrays of this backend can sit on different queues
    multi_queue: bool
    #: the lock that serializes calls into a runtime that needs it, or None
    lock: Any
    #: the exception types its kernels raise when an allocation fails
    alloc_errors: tuple[type[BaseException], ...]
    provider_name: builtins.str
    #: whose kernels it runs, for the special-case fix-ups (``_special_cases``): its name,
    #: or e.g. "numpy" for a backend built on NumPy's kernels
    kernel_family: builtins.str
    #: whether its ``argmax``/``argmin`` of floating arrays already return the index of
    #: the first NaN wherever a NaN is present (the standard's rule); when False the
    #: namespace layer finds that NaN itself (one more reduction and a host sync)
    first_nan_argmax: bool
    #: whether its ``argmax``/``argmin`` of floating arrays return the index of *some*
    #: NaN wherever a NaN is present (not necessarily the first): then the namespace
    #: layer tells whether a NaN is present from the elements at the result alone
    #: instead of a ``max`` reduction of the whole array
    nan_argmax: bool
    def unique_nans_apart(self, raw: Any) -> bool:
        """Whether its ``unique_inverse``/``unique_all`` of the floating ``raw`` give
        each NaN its own entry of ``inverse_indices`` (and its own index): then the
        namespace layer does not find the NaNs itself (two passes and a host sync)."""
        ...

    #: whether its ``take_along_axis`` and its ``getitem``/``setitem`` with integer-array
    #: keys raise IndexError for an index outside ``[-n, n)`` before writing anything:
    #: then the namespace layer checks the indices only after such a call failed, to
    #: name the index in its own words, instead of before every call
    checks_indices: bool
    #: whether ``elementwise`` runs generated bodies (the namespace then hands it every
    #: elementwise call the generator takes, at every size and layout)
    elementwise_engine: bool
    #: whether every ``linalg`` routine leaves its operands unchanged (it copies what
    #: LAPACK overwrites): then the namespace layer passes its arrays, views included,
    #: without copying them first
    lapack_keeps_operands: bool
    #: whether ``linalg("qr", ...)`` gives an R that is exactly upper triangular (zeros
    #: below the diagonal): then the namespace layer does not take its triangle again
    qr_triangular: bool

    def lapack_scales(self, fname: builtins.str, raw: Any) -> bool:
        """Whether its ``linalg.<fname>`` of ``raw`` guards against overflow and
        underflow itself (host LAPACK's drivers scale their operand): then the
        namespace layer does not scale ``raw`` first (a reduction read back)."""
        ...

    # ---- devices
    def available(self) -> bool: ...
    def default_queue(self) -> Any: ...
    def accelerator_queue(self) -> Any: ...
    def take_checked(self, raw: Any, indices: Any, axis: int) -> tuple[Any, int | None] | None: ...
    def take_along_axis_checked(self, raw: Any, indices: Any,
                                axis: int) -> tuple[Any, int | None] | None: ...
    def index_out_of_range(self, i: Any, n: int) -> bool | None: ...
    def scatter_checked(self, raw: Any, key: Any, value: Any) -> bool | None: ...
    def fused_reduction(self, name: builtins.str, body: builtins.str,
                        inputs: list[tuple[int, Any]], consts: list[tuple[Any, Any]],
                        dtype: Any, axes: tuple[int, ...], out_dtype: Any,
                        keepdims: bool) -> Any: ...
    def nan_at(self, a: Any, axis: int, picked: Any) -> bool | None: ...
    def elementwise(self, sig: Any, body: builtins.str, names: list[builtins.str],
                    arrays: list[Any], consts: list[tuple[Any, Any]],
                    out_dtype: Any) -> Any: ...
    def small_kernel(self, name: builtins.str) -> tuple[Any, int]: ...
    def compiled_elementwise(self, name: builtins.str, binary: bool, slow: Any,
                             bodies: dict, stats: dict) -> Any: ...
    def compiled_engine(self, slow: Any, bodies: dict, stats: dict) -> Any: ...
    def creator(self, name: builtins.str, q: Any, usm_type: builtins.str) -> Any: ...
    def device_name(self, q: Any) -> builtins.str: ...
    def native_queue(self, obj: Any) -> Any: ...
    def read_only_memory(self, raw: Any) -> bool: ...
    def read_only_view(self, raw: Any) -> Any: ...
    def owns_native(self, obj: Any) -> bool: ...
    def devices(self) -> list[Any]: ...
    def describe(self, q: Any) -> builtins.str: ...
    def capabilities(self, q: Any) -> Capabilities: ...
    def wait(self, q: Any) -> None: ...
    def device_attribute(self, q: Any, name: builtins.str) -> Any: ...
    def placement_error_bases(self) -> tuple[type[BaseException], ...]: ...

    # ---- memory
    def queue_of(self, raw: Any) -> Any: ...
    def usm_type_of(self, raw: Any) -> builtins.str: ...
    def coerced_usm_type(self, kinds: Any) -> builtins.str: ...
    def element_strides(self, raw: Any) -> tuple[int, ...]: ...
    def as_array(self, obj: Any) -> Any: ...
    def asarray(self, obj: Any, *, dtype: Any, copy: Any, usm_type: Any, queue: Any) -> Any: ...
    def from_host(self, a: Any, usm_type: builtins.str, q: Any) -> Any: ...
    def to_host(self, raw: Any) -> Any: ...
    def host_accessible(self, raw: Any) -> bool: ...
    def scalar(self, raw: Any) -> Any: ...
    def to_queue(self, raw: Any, q: Any, stream: Any = None) -> Any: ...
    def native_stream(self, stream: Any) -> Any: ...
    def may_share_memory(self, a: Any, b: Any) -> bool: ...
    def memory_error(self, nbytes: int, q: Any) -> MemoryError: ...
    def repr(self, raw: Any) -> builtins.str: ...
    def str(self, raw: Any) -> builtins.str: ...
    def array_attribute(self, raw: Any, name: builtins.str) -> Any: ...
    def getitem(self, raw: Any, key: Any) -> Any: ...
    def setitem(self, raw: Any, key: Any, value: Any) -> None: ...

    # ---- the usm_ndarray(shape, dtype, buffer, ...) constructor (``_construct``)
    def memory_object(self, obj: Any) -> bool: ...
    def buffer_of(self, raw: Any) -> Any: ...
    def ctor_memory(self, obj: Any) -> tuple[Any, int, Any] | None: ...
    def ctor_queue(self, q: Any) -> Any: ...
    def check_alloc(self, nbytes: int, usm_type: builtins.str, q: Any) -> None: ...
    #: makes the raw array (``_construct.make_strided`` for memory described by
    #: ``_construct.Extent``); None where the backend has no constructor
    ctor_make: Any

    # ---- interchange
    def dlpack_device(self, raw: Any) -> tuple[int, int]: ...
    def dlpack(self, raw: Any, stream: Any, max_version: Any, dl_device: Any, copy: Any) -> Any: ...
    def foreign(self, obj: Any) -> tuple[Any, Any] | None: ...
    def from_dlpack(self, x: Any, dev: tuple[int, int], q: Any, copy: Any) -> Any: ...

    # ---- linear algebra and FFT (raw arrays in, raw arrays out)
    def linalg(self, fname: builtins.str, *raws: Any, **kw: Any) -> Any: ...
    def fft(self, fname: builtins.str, raw: Any, **kw: Any) -> Any: ...
    def gemm(self, fname: builtins.str, a1: Any, a2: Any, **kw: Any) -> Any: ...
    def eig(self, raw: Any, vectors: bool) -> Any: ...


class BackendBase:
    """Defaults for the optional members of the protocol: one queue, host memory,
    no lock, no foreign arrays, DLPack through the host, linalg/fft through NumPy on
    a host copy."""

    multi_queue = False
    lock: Any = None
    alloc_errors: tuple[type[BaseException], ...] = ()
    usm_types: tuple[builtins.str, ...] = ("host",)
    dlpack_device_types: frozenset[int] = frozenset()
    provider_name = ""
    first_nan_argmax = False
    nan_argmax = False
    checks_indices = False
    lapack_keeps_operands = False
    qr_triangular = False
    elementwise_engine = False

    @property
    def kernel_family(self) -> builtins.str:
        return builtins.str(getattr(self, "name", ""))

    def unique_nans_apart(self, raw: Any) -> bool:
        return False

    def lapack_scales(self, fname: builtins.str, raw: Any) -> bool:
        return False

    def available(self) -> bool:
        return True

    def accelerator_queue(self) -> Any:
        """The queue of this backend's preferred accelerator (a GPU), or None where it
        has none.  The default device takes the first accelerator of the SYCL, then the
        CUDA backend before any CPU device (``usmarray._device``); asked once, at the
        first use of the default device, so it should be cheap."""
        return None

    def device_name(self, q: Any) -> builtins.str:
        """The model name of ``q``'s device, for messages (the GPU's or CPU's model name)."""
        return self.describe(q)

    def take_checked(self, raw: Any, indices: Any, axis: int) -> tuple[Any, int | None] | None:
        """``take`` along ``axis`` with the bounds check done by the gather itself:
        ``(result, None)``, or ``(anything, bad)`` where ``bad`` is an index outside
        ``[-n, n)`` (the largest such, else the smallest: what a check before the gather
        names), in which case the caller raises.  None (the default) where the backend
        has no such kernel for these operands: the caller checks, then calls ``take``."""
        return None

    def take_along_axis_checked(self, raw: Any, indices: Any,
                                axis: int) -> tuple[Any, int | None] | None:
        """``take_along_axis`` with the bounds check done by the gather itself, as
        :meth:`take_checked` for ``take``; None (the default) where the backend has no
        such kernel for these operands."""
        return None

    def elementwise(self, sig: Any, body: builtins.str, names: list[builtins.str],
                    arrays: list[Any], consts: list[tuple[Any, Any]],
                    out_dtype: Any) -> Any:
        """The raw result of the elementwise ``body`` (the kernel generator's C, reading
        the elements ``names[k]`` of the raw arrays ``arrays[k]`` and the constants
        ``s<j>`` of ``consts`` ((value, dtype)), assigning ``z`` of ``out_dtype``),
        broadcast by the standard's rules, on the arrays' queue with their coerced
        usm_type; ``sig`` names the body for caches.  None (the default) where the
        backend has no engine for these operands: the caller runs its own kernel."""
        return None

    def compiled_elementwise(self, name: builtins.str, binary: bool, slow: Any,
                             bodies: dict, stats: dict) -> Any:
        """Engine call ``slow`` of elementwise ``name`` (``binary``: of two operands) in a
        compiled form that takes repeated calls itself and hands every other to
        ``slow``; ``bodies``: the kernel generator's entries that ``slow`` fills,
        ``stats``: the dict whose ``"launched"`` counts engine launches.  ``slow``
        itself (the default) where the backend has no compiled form."""
        return slow

    def compiled_engine(self, slow: Any, bodies: dict, stats: dict) -> Any:
        """The engine's call ``slow(sig, arrays, scalars)`` of any of the generator's
        entries (``sig`` a key of ``bodies``, raw ``arrays`` and Python ``scalars`` in
        the entry's order: ``where``, ``clip``, ``astype``) in a compiled form that
        takes repeated calls itself and hands every other to ``slow``; ``slow`` itself
        (the default) where the backend has no compiled form."""
        return slow

    def small_kernel(self, name: builtins.str) -> tuple[Any, int]:
        """``(kernel, n)``: a cheaper form of elementwise kernel ``name`` for calls whose
        array operands each hold fewer than ``n`` elements (raw arrays or Python scalars
        in, a raw array out, as the kernel itself); ``n`` 0 (the default): none."""
        return getattr(self, name), 0

    def creator(self, name: builtins.str, q: Any, usm_type: builtins.str) -> Any:
        """Creation kernel ``name`` (``zeros``, ``empty`` or ``full``) bound to queue
        ``q`` and ``usm_type``, taking NumPy's positional arguments: ``(shape, dtype)``,
        for ``full`` ``(shape, fill_value, dtype)`` (a checked shape tuple and Python
        scalar, one of the standard's dtypes)."""
        fn = getattr(self, name)

        def make(shape: Any, *rest: Any) -> Any:
            return fn(shape, *rest[:-1], dtype=rest[-1], usm_type=usm_type, queue=q)

        return make

    def fused_reduction(self, name: builtins.str, body: builtins.str,
                        inputs: list[tuple[int, Any]], consts: list[tuple[Any, Any]],
                        dtype: Any, axes: tuple[int, ...], out_dtype: Any,
                        keepdims: bool) -> Any:
        """``name`` (``sum``, ``prod``, ``max``, ``min`` or ``mean``) over ``axes``
        (normalized, non-empty) with result dtype ``out_dtype`` of the elements that
        ``body`` (a ``usmarray.fuse`` kernel body in the backend's kernel language,
        assigning ``z`` of ``dtype`` from the values ``a<p>`` of the raw C-contiguous
        arrays ``inputs`` ((p, array), one shape) and the constants ``s<j>`` of
        ``consts`` ((value, dtype))) computes, in one pass that reads the inputs and
        writes no elements: bit for bit what the backend's own reduction gives for the
        array of those elements.  None (the default) where the backend has no such
        kernel for these operands: the caller computes the elements, then reduces."""
        return None

    def index_out_of_range(self, i: Any, n: int) -> bool | None:
        """Whether an element of the raw integer array ``i`` lies outside ``[-n, n)``,
        told by one kernel pass; None (the default) where the backend has no such
        kernel for ``i``: the caller then finds the range with ``min`` and ``max``."""
        return None

    def scatter_checked(self, raw: Any, key: Any, value: Any) -> bool | None:
        """``raw[key] = value`` for a raw key holding one unchecked signed integer
        array, with the bounds check done by the backend before it writes: True when
        written, False when an index lies outside its axis (nothing is written, the
        caller raises).  None (the default) where the backend has no such kernel for
        these operands: the caller checks the indices, then calls ``setitem``."""
        return None

    def nan_at(self, a: Any, axis: int, picked: Any) -> bool | None:
        """Whether the floating ``a`` is NaN at any position that ``picked`` (the
        result of ``argmax``/``argmin`` of ``a`` along ``axis``) names; None (the
        default) where the backend has no kernel for it."""
        return None

    def writable(self, raw: Any) -> bool:
        """Whether ``raw`` may be written (False for broadcast views and read-only
        imports, and every view of them): the raw array's own ``writable`` flag."""
        f = raw.flags
        return bool(getattr(f, "writable", getattr(f, "writeable", True)))

    def read_only_memory(self, raw: Any) -> bool:
        """Whether ``raw``'s memory may not be written through any view (a read-only
        import, a broadcast view, a view of either): a view the constructor makes over
        ``raw``'s memory is read-only then.  The default: not :meth:`writable`."""
        return not self.writable(raw)

    def read_only_view(self, raw: Any) -> Any:
        """A read-only view of ``raw``'s elements (``raw`` itself keeps its flag)."""
        v = raw[...]
        f = v.flags
        setattr(f, "writable" if hasattr(f, "writable") else "writeable", False)
        return v

    def owns_native(self, obj: Any) -> bool:
        """Whether ``obj`` is one of this backend's queues (or native device objects)."""
        try:
            return any(obj is q or obj == q for q in self.devices())
        except Exception:  # noqa: BLE001 - a foreign object's __eq__
            return False

    def devices(self) -> list[Any]:
        return [self.default_queue()]  # type: ignore[attr-defined]

    def describe(self, q: Any) -> builtins.str:
        return str(getattr(self, "name", "?"))

    def capabilities(self, q: Any) -> Capabilities:
        return Capabilities()

    def wait(self, q: Any) -> None:
        w = getattr(q, "wait", None)
        if w is not None:
            w()

    def device_attribute(self, q: Any, name: builtins.str) -> Any:
        where = f"a device of the {getattr(self, 'name', '?')!r} backend"
        if "sycl" in name:
            where = f"it exists for SYCL devices only, and this is {where}"
        raise AttributeError(f"'Device' object has no attribute {name!r}: {where}")

    def placement_error_bases(self) -> tuple[type[BaseException], ...]:
        return ()

    def usm_type_of(self, raw: Any) -> builtins.str:
        return self.usm_types[0]

    def coerced_usm_type(self, kinds: Any) -> builtins.str:
        order = ("device", "shared", "host")
        return min(kinds, key=order.index) if kinds else self.usm_types[0]

    def element_strides(self, raw: Any) -> tuple[int, ...]:
        item = raw.itemsize
        return tuple(s // item for s in raw.strides)

    def as_array(self, obj: Any) -> Any:
        return obj

    def asarray(self, obj: Any, *, dtype: Any, copy: Any, usm_type: Any, queue: Any) -> Any:
        host = np.asarray(obj, dtype=dtype, copy=copy)
        if copy is False:
            raise ValueError(f"asarray: copy=False cannot import {type(obj).__name__}")
        return self.from_host(host, usm_type or self.usm_types[0], queue)  # type: ignore[attr-defined]

    def host_accessible(self, raw: Any) -> bool:
        return self.usm_type_of(raw) != "device"

    def scalar(self, raw: Any) -> Any:
        """The 0-D ``raw`` as something Python's ``int``/``float``/``bool``/``complex``
        take, read after the work of ``raw``'s queue that writes it."""
        return self.to_host(raw)  # type: ignore[attr-defined]

    def to_queue(self, raw: Any, q: Any, stream: Any = None) -> Any:
        return raw

    def native_stream(self, stream: Any) -> Any:
        raise TypeError(
            f"to_device: stream must be None for devices of the "
            f"{getattr(self, 'name', '?')!r} backend, got {type(stream).__name__}"
        )

    def may_share_memory(self, a: Any, b: Any) -> bool:
        return bool(np.may_share_memory(a, b))

    def memory_error(self, nbytes: int, q: Any) -> MemoryError:
        return MemoryError(f"could not allocate {nbytes} bytes on {self.describe(q)}")

    def repr(self, raw: Any) -> builtins.str:
        return f"usm_ndarray({raw!r}, device={self.describe(self.queue_of(raw))!r})"  # type: ignore[attr-defined]

    def str(self, raw: Any) -> builtins.str:
        return str(raw)

    def array_attribute(self, raw: Any, name: builtins.str) -> Any:
        where = f"this array is on the {getattr(self, 'name', '?')!r} backend"
        if "sycl" in name or name in ("usm_data", "__usm_ndarray__"):
            where = f"it exists for arrays on SYCL devices only; {where}"
        raise AttributeError(f"'usm_ndarray' object has no attribute {name!r}: {where}")

    def getitem(self, raw: Any, key: Any) -> Any:
        """``raw[key]`` for a key the namespace layer has checked and converted (ints,
        slices, ``...``, None, raw index arrays of this backend on ``raw``'s queue),
        run on ``raw``'s queue."""
        return raw[key]

    def setitem(self, raw: Any, key: Any, value: Any) -> None:
        """``raw[key] = value`` (value: a checked Python scalar or a raw array on
        ``raw``'s queue), run on ``raw``'s queue."""
        raw[key] = value

    # the usm_ndarray constructor: none unless the backend gives ``ctor_make``
    ctor_make: Any = None

    def memory_object(self, obj: Any) -> bool:
        """Whether ``obj`` is memory that this backend's constructor views as ``buffer=``
        (its memory objects; never another backend's)."""
        return False

    def ctor_queue(self, q: Any) -> Any:
        """The queue that ``buffer_ctor_kwargs["queue"]`` names (its errors otherwise)."""
        return self.native_queue(q)  # type: ignore[attr-defined]

    def check_alloc(self, nbytes: int, usm_type: builtins.str, q: Any) -> None:
        """MemoryError naming the size where the constructor's new allocation of
        ``nbytes`` bytes of ``usm_type`` on ``q`` cannot be made."""
        if nbytes >= INDEX_LIMIT:
            raise self.memory_error(nbytes, q)

    def dlpack_device(self, raw: Any) -> tuple[int, int]:
        return (1, 0)

    def dlpack(self, raw: Any, stream: Any, max_version: Any, dl_device: Any, copy: Any) -> Any:
        if dl_device is not None and int(dl_device[0]) != 1:
            raise BufferError(f"__dlpack__: cannot export to device {dl_device}; only (kDLCPU, 0)")
        host = self.to_host(raw)  # type: ignore[attr-defined]
        return host.__dlpack__(max_version=max_version, copy=False if copy is None else copy)

    def foreign(self, obj: Any) -> tuple[Any, Any] | None:
        return None

    def from_dlpack(self, x: Any, dev: tuple[int, int], q: Any, copy: Any) -> Any:
        raise BufferError(f"from_dlpack: the {getattr(self, 'name', '?')!r} backend imports no DLPack device {dev}")

    # linalg/fft: NumPy on a host copy, the result back on the operand's queue
    def _host_call(self, fn: Any, raws: tuple, kw: dict) -> Any:
        like = raws[0]
        q, ut = self.queue_of(like), self.usm_type_of(like)  # type: ignore[attr-defined]
        try:
            res = fn(*[self.to_host(r) for r in raws], **kw)  # type: ignore[attr-defined]
        except np.linalg.LinAlgError as exc:
            raise LinAlgError(str(exc)) from None
        back = self.from_host  # type: ignore[attr-defined]
        if isinstance(res, tuple):
            return tuple(back(np.asarray(r), ut, q) for r in res)
        return back(np.asarray(res), ut, q)

    def linalg(self, fname: builtins.str, *raws: Any, **kw: Any) -> Any:
        return self._host_call(getattr(np.linalg, fname), raws, kw)

    def fft(self, fname: builtins.str, raw: Any, **kw: Any) -> Any:
        return self._host_call(getattr(np.fft, fname), (raw,), kw)

    def gemm(self, fname: builtins.str, a1: Any, a2: Any, **kw: Any) -> Any:
        return None

    def eig(self, raw: Any, vectors: bool) -> Any:
        return self.linalg("eig" if vectors else "eigvals", raw)


_DEFAULTS = {
    k: v for k, v in vars(BackendBase).items() if not k.startswith("__")
}


def complete(backend: Any) -> Any:
    """Give ``backend`` (an object that need not derive from BackendBase) every
    optional member it lacks, bound to it; TypeError naming the required ones missing."""
    missing = [k for k in REQUIRED if not hasattr(backend, k)]
    if missing:
        raise TypeError(
            f"backend {getattr(backend, 'name', backend)!r} lacks {missing} (see docs/backends.md)"
        )
    for k, v in _DEFAULTS.items():
        if hasattr(backend, k):
            continue
        if isinstance(v, property) and v.fget is not None:
            v = v.fget(backend)
        elif callable(v) and not isinstance(v, type):
            v = v.__get__(backend)
        setattr(backend, k, v)
    return backend
