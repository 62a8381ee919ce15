"""The typed signature of a factory kernel: ``"float32[:,:] src, float32[:,:] dst, float32 w"``.

Each parameter is ``dtype[shape] name`` (an array) or ``dtype name`` (a scalar).  A
shape lists one entry per axis: ``:`` is a size known at run time, a non-negative
integer a size fixed at compile time.  Dtypes are the standard's names except the
complex ones (OpenCL C has no complex arithmetic, and one source must compile for
every backend).
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass

import numpy as np

from .. import _dtypes as dt

#: dtypes a kernel parameter may have (the standard's, less the complex ones)
KERNEL_DTYPES: dict[str, np.dtype] = {
    d.name: d for d in dt.ALL_DTYPES if d not in dt.COMPLEX_FLOATING
}

#: identifiers a parameter may not take: the index variables, generated names, C keywords
RESERVED_PREFIX = "_uk"
_C_KEYWORDS = frozenset("""
    auto break case char const continue default do double else enum extern float for goto
    if inline int long register restrict return short signed sizeof static struct switch
    typedef union unsigned void volatile while bool half size_t ptrdiff_t global local
    constant private kernel __global __local __constant __private __kernel uchar ushort
    uint ulong true false
""".split())
_INDEX_VAR = re.compile(r"i\d+\Z")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_PARAM = re.compile(
    r"\s*(?P<dtype>[A-Za-z_][A-Za-z0-9_]*)\s*(?:\[(?P<shape>[^\]]*)\])?\s*(?P<name>\S+)\s*\Z"
)


@dataclass(frozen=True)
class Param:
    """One parameter: ``shape`` is None for a scalar, else a tuple of int (fixed) or
    None (run time) per axis."""

    name: str
    dtype: np.dtype
    shape: tuple[int | None, ...] | None

    @property
    def is_array(self) -> bool:
        return self.shape is not None

    @property
    def ndim(self) -> int:
        return len(self.shape) if self.shape is not None else 0

    def spelled(self) -> str:
        if self.shape is None:
            return f"{self.dtype.name} {self.name}"
        dims = ",".join(":" if n is None else str(n) for n in self.shape)
        return f"{self.dtype.name}[{dims}] {self.name}"


def _dtype(word: str, where: str) -> np.dtype:
    d = KERNEL_DTYPES.get(word)
    if d is None:
        if word in ("complex64", "complex128"):
            raise TypeError(
                f"kernel signature: {where}: {word} is not supported (OpenCL C has no "
                "complex arithmetic, and a kernel's source must compile for every "
                "backend); pass the real and imaginary parts as separate arrays"
            )
        raise TypeError(
            f"kernel signature: {where}: unknown dtype {word!r}; use one of "
            f"{', '.join(KERNEL_DTYPES)}"
        )
    return d


def _shape(text: str, where: str) -> tuple[int | None, ...]:
    dims: list[int | None] = []
    for part in text.split(","):
        part = part.strip()
        if part == ":":
            dims.append(None)
        elif part.isdigit():
            dims.append(int(part))
        else:
            raise ValueError(
                f"kernel signature: {where}: shape entry {part!r} is neither ':' (a run-time "
                "size) nor a non-negative integer (a fixed size)"
            )
    return tuple(dims)


def check_name(name: str, where: str) -> None:
    if not _IDENT.match(name):
        raise ValueError(f"kernel signature: {where}: {name!r} is not a C identifier")
    if name.startswith(RESERVED_PREFIX) or name in _C_KEYWORDS or keyword.iskeyword(name):
        raise ValueError(
            f"kernel signature: {where}: the name {name!r} is reserved (C keywords and "
            f"names starting with {RESERVED_PREFIX!r} are taken)"
        )
    if _INDEX_VAR.match(name) or name in KERNEL_DTYPES:
        raise ValueError(
            f"kernel signature: {where}: the name {name!r} is reserved (i0, i1, ... are the "
            "index variables; dtype names are types)"
        )


def parse_signature(signature: str) -> tuple[Param, ...]:
    """The parameters of ``signature``, in order; TypeError for an unknown dtype,
    ValueError for anything else malformed (each message names the parameter)."""
    if not isinstance(signature, str):
        raise TypeError(f"kernel signature must be a str, got {type(signature).__name__}")
    if not signature.strip():
        raise ValueError("kernel signature is empty; declare at least one array parameter")
    params: list[Param] = []
    for k, part in enumerate(_split_top(signature)):
        where = f"parameter {k} ({part.strip()!r})"
        m = _PARAM.match(part)
        if m is None:
            raise ValueError(
                f"kernel signature: {where} is not 'dtype name' or 'dtype[shape] name' "
                "(e.g. 'float32[:, 3] x' or 'int64 n')"
            )
        dtype = _dtype(m["dtype"], where)
        name = m["name"]
        check_name(name, where)
        if m["shape"] is not None and not m["shape"].strip():
            raise ValueError(
                f"kernel signature: {where}: an array needs at least one axis ('[:]'); "
                "declare a scalar without brackets"
            )
        shape = None if m["shape"] is None else _shape(m["shape"], where)
        if any(p.name == name for p in params):
            raise ValueError(f"kernel signature: {where}: the name {name!r} is used twice")
        params.append(Param(name, dtype, shape))
    if not any(p.is_array for p in params):
        raise ValueError("kernel signature declares no array; a kernel needs at least one")
    return tuple(params)


def _split_top(text: str) -> list[str]:
    """Split at commas outside brackets."""
    parts: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts
