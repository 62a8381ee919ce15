"""The standard's data types, their categories and the one type-promotion table.

Two levels: inside the namespace layer and the backends a dtype is a NumPy dtype
instance (what the kernel providers take); users see :class:`DType` objects
(``usmarray.float32``, ``x.dtype``), which compare equal only to themselves, so
``usmarray.float64 == None`` or ``== "float64"`` is False as the standard expects.
:func:`check_dtype` is the gate from the public level to the internal one.
"""

from __future__ import annotations

import builtins
from typing import NoReturn

import numpy as np

from ._env import CUBED_STRICT, cubed_uses_strict_namespace
from ._hints import dtype_called

bool: np.dtype = np.dtype("bool")  # noqa: A001 - the standard's name
int8: np.dtype = np.dtype("int8")
int16: np.dtype = np.dtype("int16")
int32: np.dtype = np.dtype("int32")
int64: np.dtype = np.dtype("int64")
uint8: np.dtype = np.dtype("uint8")
uint16: np.dtype = np.dtype("uint16")
uint32: np.dtype = np.dtype("uint32")
uint64: np.dtype = np.dtype("uint64")
float32: np.dtype = np.dtype("float32")
float64: np.dtype = np.dtype("float64")
complex64: np.dtype = np.dtype("complex64")
complex128: np.dtype = np.dtype("complex128")

ALL_DTYPES = (
    bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    float32, float64, complex64, complex128,
)
BOOLEAN = frozenset({bool})
SIGNED = frozenset({int8, int16, int32, int64})
UNSIGNED = frozenset({uint8, uint16, uint32, uint64})
INTEGER = SIGNED | UNSIGNED
REAL_FLOATING = frozenset({float32, float64})
COMPLEX_FLOATING = frozenset({complex64, complex128})
FLOATING = REAL_FLOATING | COMPLEX_FLOATING
REAL_NUMERIC = INTEGER | REAL_FLOATING
NUMERIC = REAL_NUMERIC | COMPLEX_FLOATING
INTEGER_OR_BOOLEAN = INTEGER | BOOLEAN
ANY = frozenset(ALL_DTYPES)

#: the kind names ``isdtype`` and ``__array_namespace_info__().dtypes(kind=)`` accept
KINDS: dict[str, frozenset[np.dtype]] = {
    "bool": BOOLEAN,
    "signed integer": SIGNED,
    "unsigned integer": UNSIGNED,
    "integral": INTEGER,
    "real floating": REAL_FLOATING,
    "complex floating": COMPLEX_FLOATING,
    "numeric": NUMERIC,
}

_DTYPE_IDS = {id(d): d for d in ALL_DTYPES}


class DType:
    """A data type of the array API standard, as users see it: ``usmarray.float32``, ...

    There is no public constructor: the dtypes are the namespace's attributes
    ``bool``, ``int8`` to ``int64``, ``uint8`` to ``uint64``, ``float32``, ``float64``,
    ``complex64`` and ``complex128``, compared by identity.  ``x.dtype`` is one of them.

    Notes
    -----
    Unlike NumPy's scalar types, a DType is not callable: ``usmarray.int32(5)`` is a
    TypeError that names ``usmarray.asarray(5, dtype=usmarray.int32)``.  NumPy dtypes and
    dtype strings are not usmarray dtypes, and functions refuse them as ``dtype=``.
    """

    __slots__ = ("np", "name")
    __module__ = "usmarray"

    def __init__(self, d: np.dtype) -> None:
        self.np = d
        self.name = d.name

    def __repr__(self) -> str:
        return f"usmarray.{self.name}"

    __str__ = __repr__

    def __eq__(self, other: object) -> builtins.bool:
        return self is other

    def __ne__(self, other: object) -> builtins.bool:
        return self is not other

    def __hash__(self) -> int:
        return hash(("usmarray.DType", self.name))

    def __reduce__(self) -> tuple:
        return (by_name, (self.name,))

    def __call__(self, *args: object, **kwargs: object) -> NoReturn:
        """TypeError naming ``xp.asarray(value, dtype=...)``: NumPy's ``np.int32(5)``
        makes a scalar, and the standard has no scalar types."""
        raise TypeError(dtype_called(self.name, args, kwargs))

    # NumPy interoperability: ``np.dtype(usmarray.int32)`` is ``np.dtype("int32")``, so
    # libraries that normalize dtypes through NumPy (cubed, zarr, dask's chunk sizing)
    # take ours.  NumPy >= 2.4 reads ``__numpy_dtype__``; older NumPy reads ``.dtype``
    # (defined below only there).  Our equality is unchanged: a DType equals only
    # itself.  NumPy's own ``np.dtype("int32") == usmarray.int32`` converts its right
    # operand and so is True, as it is for any object NumPy can convert.
    @property
    def __numpy_dtype__(self) -> np.dtype:
        return self.np

    @property
    def itemsize(self) -> int:
        return self.np.itemsize

    @property
    def kind(self) -> str:
        return self.np.kind


if np.lib.NumpyVersion(np.__version__) < "2.4.0":
    # NumPy before 2.4 converts an object with a ``dtype`` attribute holding a dtype
    DType.dtype = property(lambda self: self.np)  # type: ignore[attr-defined]

PUBLIC: dict[np.dtype, DType] = {d: DType(d) for d in ALL_DTYPES}
_PUBLIC_BY_ID = {id(d): p for d, p in PUBLIC.items()}
_BY_NAME = {p.name: p for p in PUBLIC.values()}


def by_name(name: str) -> DType:
    return _BY_NAME[name]


def public(d: np.dtype) -> DType:
    """The user-facing dtype of an internal (NumPy) dtype."""
    p = _PUBLIC_BY_ID.get(id(d))
    return p if p is not None else PUBLIC[d]


def is_dtype(obj: object) -> builtins.bool:
    """True for exactly the standard's (public) dtype objects."""
    return type(obj) is DType


def is_np_standard(d: object) -> builtins.bool:
    """True when an internal NumPy dtype is one of the standard's."""
    return id(d) in _DTYPE_IDS or (isinstance(d, np.dtype) and d in PUBLIC)


def check_dtype(obj: object, argname: str = "dtype") -> np.dtype:
    """The internal dtype of a public ``obj``; TypeError for anything else."""
    if type(obj) is DType:
        return obj.np  # type: ignore[attr-defined]
    meant = _meant_dtype(obj)
    cubed = (f". Where cubed passed it: {CUBED_STRICT}"
             if isinstance(obj, np.dtype) and cubed_uses_strict_namespace() else "")
    raise TypeError(
        f"{argname}={obj!r} is not a dtype of the array API standard; use "
        + (f"usmarray.{meant} (or another of " if meant else "one of ")
        + "usmarray.bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, "
        "float32, float64, complex64, complex128" + (")" if meant else "") + cubed
    )


#: the standard's dtype a Python type stands for where NumPy accepts the type
_PYTHON_TYPES = {builtins.bool: "bool", int: "int64", float: "float64", complex: "complex128"}


def _meant_dtype(obj: object) -> str | None:
    """The name of the standard dtype ``obj`` (a name, a Python type, a NumPy dtype or
    scalar type) stands for, or None."""
    if isinstance(obj, str):
        return obj if obj in _BY_NAME else None
    if isinstance(obj, type) and obj in _PYTHON_TYPES:
        return _PYTHON_TYPES[obj]
    try:
        name = np.dtype(obj).name  # type: ignore[call-overload]
    except Exception:  # not a NumPy dtype-like (another library's dtype, an instance)
        return None
    return name if name in _BY_NAME else None


def _build_promotion_table() -> dict[tuple[np.dtype, np.dtype], np.dtype]:
    """The standard's promotion lattice: same-kind pairs only, mixed kinds absent."""
    table: dict[tuple[np.dtype, np.dtype], np.dtype] = {(bool, bool): bool}
    chains = (
        (int8, int16, int32, int64),
        (uint8, uint16, uint32, uint64),
        (float32, float64),
        (complex64, complex128),
    )
    for chain in chains:
        for i, a in enumerate(chain):
            for b in chain[i:]:
                table[(a, b)] = table[(b, a)] = b
    # signed with unsigned: the smallest signed type holding both, when one exists
    signed = (int8, int16, int32, int64)
    for u in (uint8, uint16, uint32):
        for s in signed:
            wider = max(s.itemsize, 2 * u.itemsize)
            res = np.dtype(f"int{8 * wider}")
            table[(u, s)] = table[(s, u)] = res
    # real with complex floating
    for f in (float32, float64):
        for c in (complex64, complex128):
            res = complex128 if (f is float64 or c is complex128) else complex64
            table[(f, c)] = table[(c, f)] = res
    return table


PROMOTION_TABLE = _build_promotion_table()


def promote(d1: np.dtype, d2: np.dtype, fname: str = "operation") -> np.dtype:
    """Result dtype of ``d1`` with ``d2`` by the standard's table, else TypeError."""
    try:
        return PROMOTION_TABLE[d1, d2]
    except KeyError:
        raise TypeError(
            f"{fname}: the array API standard defines no promotion of {d1} with {d2} "
            "(mixed kinds or uint64 with a signed type); convert one operand "
            "explicitly with astype()"
        ) from None


#: the kind of Python scalar each dtype category accepts in binary operations
def scalar_allowed(dtype: np.dtype, value: object) -> builtins.bool:
    """The 2024.12 rule: bool with bool, int with integer/floating, float with floating,
    complex with complex floating."""
    t = type(value)
    if t is builtins.bool:
        return dtype is bool
    if t is int:
        return dtype is not bool
    if t is float:
        return dtype in FLOATING
    if t is complex:
        return dtype in COMPLEX_FLOATING
    return False


def scalar_kind_dtype(value: object) -> np.dtype | None:
    """The standard's default dtype for a Python scalar kind (for result_type)."""
    t = type(value)
    if t is builtins.bool:
        return bool
    if t is int:
        return int64
    if t is float:
        return float64
    if t is complex:
        return complex128
    return None


#: integer dtype -> (its smallest value, its largest)
INTEGER_RANGE = {d: (int(np.iinfo(d).min), int(np.iinfo(d).max)) for d in INTEGER}


def integer_fits(dtype: np.dtype, value: int) -> builtins.bool:
    lo, hi = INTEGER_RANGE[dtype] if dtype in INTEGER_RANGE else INTEGER_RANGE[np.dtype(dtype)]
    return lo <= value <= hi


def check_integer_fits(dtype: np.dtype, value: int, what: str) -> None:
    """OverflowError, named by ``what`` with the dtype's range, unless the Python int
    ``value`` fits the integer ``dtype``."""
    if not integer_fits(dtype, value):
        info = np.iinfo(dtype)
        raise OverflowError(
            f"{what}: Python int {value} does not fit {dtype} (range {info.min} .. {info.max})"
        )
