"""What a backend supplies to the namespace layer.

A backend owns memory and kernels, nothing else: the namespace layer validates
every call (dtypes, promotion, scalars, devices, arguments) before a kernel runs,
so a backend never sees an invalid call.  See ``docs/backends.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class Capabilities:
    fp64: bool = True
    fp16: bool = False


#: array-API-shaped kernels a backend binds as attributes; each takes and returns raw arrays
KERNEL_NAMES = (
    # elementwise
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
)


class Backend(Protocol):
    """The interface a backend implements (see docs/backends.md).

    Kernels: every name in ``KERNEL_NAMES`` as an attribute, with the calling
    convention of the dpctl.tensor API (creation kernels take ``dtype=``,
    ``usm_type=`` and ``sycl_queue=``; every result is a raw array, 0-D rather than a
    scalar), plus ``provider``: a namespace of the same kernels and any extra ones the
    namespace layer reaches for (``copy``, ``asarray``, ``reduce_hypot``).
    """

    name: str
    #: USM kinds this backend allocates; the first is the default
    usm_types: tuple[str, ...]
    #: the exact type of its raw arrays
    array_type: type
    #: whether two arrays of this backend can sit on different queues
    multi_queue: bool
    provider: Any
    provider_name: str

    def available(self) -> bool: ...
    def default_queue(self) -> Any: ...
    def native_queue(self, obj: Any) -> Any: ...
    def devices(self) -> list[Any]: ...
    def describe(self, q: Any) -> str: ...
    def capabilities(self, q: Any) -> Capabilities: ...
    def queue_of(self, raw: Any) -> Any: ...
    def usm_type_of(self, raw: Any) -> str: ...
    def as_array(self, obj: Any) -> Any: ...
    def from_host(self, a: Any, usm_type: str, q: Any) -> Any: ...
    def to_host(self, raw: Any) -> Any: ...
    def to_queue(self, raw: Any, q: Any, stream: Any = None) -> Any: ...
    def may_share_memory(self, a: Any, b: Any) -> bool: ...
    def memory_error(self, nbytes: int, q: Any) -> MemoryError: ...
    def repr(self, raw: Any) -> str: ...
    def str(self, raw: Any) -> str: ...
