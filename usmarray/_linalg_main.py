"""The main namespace's linear algebra: matmul, matrix_transpose, tensordot, vecdot.

Every function checks its operands (array type, one device, numeric dtypes, the
standard's promotion table, shapes) before the provider's kernel runs on the
operands' queue; the result has exactly the promoted dtype.  Shape errors are
``ValueError``, dtype errors ``TypeError``.
"""

from __future__ import annotations

import functools
import math
from typing import Any

from . import _dtypes as dt
from . import _form
from ._array import usm_ndarray, wrap_with
from ._backend._protocol import BackendBase
from ._helpers import alloc_failed, broadcast_shape, check_array, same_device
from ._params import integer

__all__ = ["matmul", "matrix_transpose", "tensordot", "vecdot"]


def binary_numeric(fname: str, x1: Any, x2: Any) -> tuple[Any, Any, Any, Any]:
    """Validate two array operands of a numeric function; return (backend, raw1, raw2,
    result dtype) with both raws already cast to the promoted dtype."""
    check_array(x1, fname, "x1")
    check_array(x2, fname, "x2")
    same_device(fname, x1, x2)
    a1, a2 = x1._arr, x2._arr
    rd = dt.promote(a1.dtype, a2.dtype, fname)
    if rd not in dt.NUMERIC:
        raise TypeError(
            f"{fname} is defined for numeric dtypes only, got {a1.dtype} and {a2.dtype}"
        )
    be = x1._be
    try:
        if a1.dtype != rd:
            a1 = be.astype(a1, rd)
        if a2.dtype != rd:
            a2 = be.astype(a2, rd)
    except Exception as exc:
        alloc_failed(exc, be, a1, (a1 if a1.dtype != rd else a2).size * rd.itemsize, fname)
    return be, a1, a2, rd


def _as_dtype(be: Any, raw: Any, d: Any) -> Any:
    return raw if raw.dtype == d else be.astype(raw, d)


def matmul_raw(be: Any, a1: Any, a2: Any) -> Any:
    """Matrix product of two raw arrays of one dtype: oneMKL's gemm for floating dtypes
    (through dpnp, zero-copy), the kernel provider's matmul otherwise."""
    res = be.gemm("matmul", a1, a2) if a1.dtype in dt.FLOATING else None
    return be.matmul(a1, a2) if res is None else res


#: the compiled core's plans of ``@`` and ``matmul`` by backend, in the shape of the
#: elementwise plans (``_elementwise.Plan``; the core reads the small kernel and its
#: size bound): made by the first product of two arrays of one floating dtype on a
#: lock-free backend
_MATMUL_PLANS: dict[Any, tuple] = {}
#: the size bound of the lean product: none (the checks it skips cost the same at any
#: size)
_ANY_SIZE = 2**62


def _lean_product(be: Any) -> Any:
    """The raw product of two arrays of one floating dtype on ``be``, as :func:`matmul`
    computes it, after the shape checks that the backend might not make; any refusal is
    an exception, on which the core hands the call to :func:`matmul`, which words it."""
    # a backend without a gemm of its own (the protocol's default gives None) goes to
    # its matmul at once
    raw = be.matmul if getattr(type(be), "gemm", None) is BackendBase.gemm else (
        lambda a1, a2: matmul_raw(be, a1, a2))

    def product(a1: Any, a2: Any) -> Any:
        s1, s2 = a1.shape, a2.shape
        if not s1 or not s2 or s1[-1] != (s2[-2] if len(s2) > 1 else s2[0]):
            raise ValueError("matmul: shapes")
        if len(s1) > 2 or len(s2) > 2:
            broadcast_shape("matmul (stack dimensions)", s1[:-2], s2[:-2])
        r = raw(a1, a2)
        return r if r.dtype == a1.dtype else be.astype(r, a1.dtype)
    return product


def _plan_product(be: Any) -> None:
    if be.lock is None:
        _MATMUL_PLANS[be] = (None, None, None, None, _lean_product(be), _ANY_SIZE, None)


def matmul(x1: usm_ndarray, x2: usm_ndarray, /) -> usm_ndarray:
    """Matrix product of ``x1`` and ``x2`` (the ``@`` operator).

    A 1-D ``x1`` is a row vector and a 1-D ``x2`` a column vector, the added dimension
    removed from the result; dimensions before the last two are stacks of matrices and
    broadcast.

    Parameters
    ----------
    x1 : usm_ndarray
        First operand, of a numeric dtype, at least 1-D.
    x2 : usm_ndarray
        Second operand, of a numeric dtype, at least 1-D, on ``x1``'s device; its
        second-to-last dimension (its only one, for 1-D) equals ``x1``'s last.

    Returns
    -------
    usm_ndarray
        The product, of the promoted dtype, on the operands' device.  Floating dtypes
        run through oneMKL on SYCL devices.

    Raises
    ------
    TypeError
        An operand that is not a ``usm_ndarray``; bool operands; dtypes the standard
        does not promote (int64 with float64).
    ValueError
        A 0-D operand (use ``multiply``); contracted dimensions of different lengths;
        stack dimensions that do not broadcast.
    ExecutionPlacementError
        Operands on different devices (a subclass of ValueError).
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Unlike NumPy, usmarray refuses 0-D operands, mixed-kind promotion and ``out=``,
    ``dtype=`` and ``casting=``.

    See Also
    --------
    [array_api.matmul](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.matmul.html): the standard's specification.
    [array_api.linalg.matmul](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.matmul.html): the same function in the linalg extension.
    """
    be, a1, a2, rd = binary_numeric("matmul", x1, x2)
    s1, s2 = a1.shape, a2.shape
    if len(s1) == 0 or len(s2) == 0:
        raise ValueError(
            f"matmul: 0-D operands are not allowed (shapes {s1} and {s2}); use multiply() "
            "for scalar products"
        )
    k1 = s1[-1]
    k2 = s2[-2] if len(s2) > 1 else s2[0]
    if k1 != k2:
        raise ValueError(
            f"matmul: the contracted dimensions differ: x1 has shape {s1} (last dimension "
            f"{k1}), x2 has shape {s2} ({'second-to-last' if len(s2) > 1 else 'only'} "
            f"dimension {k2}); they must be equal"
        )
    if len(s1) > 2 or len(s2) > 2:
        broadcast_shape("matmul (stack dimensions)", s1[:-2], s2[:-2])
    if be not in _MATMUL_PLANS and rd in dt.FLOATING:
        _plan_product(be)
    try:
        return wrap_with(be, _as_dtype(be, matmul_raw(be, a1, a2), rd))
    except Exception as exc:
        stack = broadcast_shape("matmul", s1[:-2], s2[:-2])
        count = math.prod(stack) * (s1[-2] if len(s1) > 1 else 1) * (s2[-1] if len(s2) > 1 else 1)
        alloc_failed(exc, be, a1, count * rd.itemsize, "matmul")


def matrix_transpose(x: usm_ndarray, /) -> usm_ndarray:
    """A view of ``x`` with the last two axes swapped: each matrix of the stack transposed.

    Parameters
    ----------
    x : usm_ndarray
        Array of at least 2 dimensions, shape ``(..., M, N)``.

    Returns
    -------
    usm_ndarray
        A view of ``x``'s memory, of shape ``(..., N, M)``, on ``x``'s device with its
        usm_type.

    Raises
    ------
    TypeError
        ``x`` is not a ``usm_ndarray``.
    ValueError
        ``x`` has fewer than 2 dimensions.

    See Also
    --------
    [array_api.matrix_transpose](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.matrix_transpose.html): the standard's specification.
    [array_api.linalg.matrix_transpose](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.matrix_transpose.html): the same function in the linalg extension.
    """
    check_array(x, "matrix_transpose")
    if x._arr.ndim < 2:
        raise ValueError(
            f"matrix_transpose: x must be at least 2-D, got shape {x._arr.shape}"
        )
    return wrap_with(x._be, x._arr.mT)


def _tensordot_axes(axes: Any, s1: tuple, s2: tuple) -> tuple[tuple[int, ...], tuple[int, ...]]:
    fname = "tensordot"
    n1, n2 = len(s1), len(s2)
    if isinstance(axes, tuple | list) and len(axes) == 2:
        ax1, ax2 = axes
        if not isinstance(ax1, tuple | list):
            ax1 = (integer(ax1, fname, "axes[0]"),)
        if not isinstance(ax2, tuple | list):
            ax2 = (integer(ax2, fname, "axes[1]"),)
        if len(ax1) != len(ax2):
            raise ValueError(
                f"{fname}: the two axes sequences must have the same length, got {axes!r}"
            )
        out = []
        for seq, n, name in ((ax1, n1, "x1"), (ax2, n2, "x2")):
            norm = []
            for a in seq:
                a = integer(a, fname, "each axis")
                if not -n <= a < n:
                    raise ValueError(
                        f"{fname}: axis {a} is out of range for {name} with {n} dimensions "
                        f"(allowed: {-n} .. {n - 1})"
                    )
                norm.append(a % n)
            if len(set(norm)) != len(norm):
                raise ValueError(f"{fname}: repeated axis in {tuple(seq)} for {name}")
            out.append(tuple(norm))
        return out[0], out[1]
    if isinstance(axes, tuple | list):
        raise ValueError(
            f"{fname}: axes must be an int or a pair (x1_axes, x2_axes), got {axes!r}"
        )
    n = integer(axes, fname, "axes")
    if n < 0:
        raise ValueError(f"{fname}: an integer axes must be nonnegative, got {n}")
    if n > n1 or n > n2:
        raise ValueError(
            f"{fname}: axes={n} exceeds the number of dimensions of x1 ({n1}) or x2 ({n2})"
        )
    return tuple(range(n1 - n, n1)), tuple(range(n))


def tensordot(
    x1: usm_ndarray, x2: usm_ndarray, /, *, axes: int | tuple[Any, Any] = 2
) -> usm_ndarray:
    """Tensor contraction of ``x1`` and ``x2`` over ``axes``: the sum of products over the
    paired axes.

    Parameters
    ----------
    x1 : usm_ndarray
        First operand, of a numeric dtype.
    x2 : usm_ndarray
        Second operand, of a numeric dtype, on ``x1``'s device.
    axes : int or pair of sequences of int, optional
        An int ``n`` >= 0: the last ``n`` axes of ``x1`` with the first ``n`` of ``x2``;
        or ``(x1_axes, x2_axes)``, equally long, each axis named once (negative counts
        from the end).  Default 2.

    Returns
    -------
    usm_ndarray
        The contraction: ``x1``'s free axes then ``x2``'s, of the promoted dtype, on the
        operands' device.

    Raises
    ------
    TypeError
        An operand that is not a ``usm_ndarray``; bool operands; dtypes the standard
        does not promote; an axis that is not an int.
    ValueError
        Paired dimensions of different lengths (they do not broadcast); a negative int
        ``axes`` or one larger than an operand's dimensions; sequences of different
        lengths; an axis out of range or repeated.
    ExecutionPlacementError
        Operands on different devices (a subclass of ValueError).
    MemoryError
        The device cannot hold the result.

    See Also
    --------
    [array_api.tensordot](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.tensordot.html): the standard's specification.
    [array_api.linalg.tensordot](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.tensordot.html): the same function in the linalg extension.
    """
    be, a1, a2, rd = binary_numeric("tensordot", x1, x2)
    ax1, ax2 = _tensordot_axes(axes, a1.shape, a2.shape)
    for i, j in zip(ax1, ax2, strict=True):
        if a1.shape[i] != a2.shape[j]:
            raise ValueError(
                f"tensordot: contracted dimensions differ: x1 axis {i} has size "
                f"{a1.shape[i]}, x2 axis {j} has size {a2.shape[j]} (shapes {a1.shape} and "
                f"{a2.shape}); they must be equal, contracted axes do not broadcast"
            )
    res = None
    try:
        if rd in dt.FLOATING and a1.ndim and a2.ndim:
            res = be.gemm("tensordot", a1, a2, axes=(ax1, ax2))
        if res is None:
            res = be.tensordot(a1, a2, axes=(ax1, ax2))
        return wrap_with(be, _as_dtype(be, res, rd))
    except Exception as exc:
        count = math.prod([n for i, n in enumerate(a1.shape) if i not in ax1])
        count *= math.prod([n for i, n in enumerate(a2.shape) if i not in ax2])
        alloc_failed(exc, be, a1, count * rd.itemsize, "tensordot")


def vecdot(x1: usm_ndarray, x2: usm_ndarray, /, *, axis: int = -1) -> usm_ndarray:
    """Dot product ``sum(conj(x1) * x2)`` of the vectors along ``axis``.

    Parameters
    ----------
    x1 : usm_ndarray
        First operand, of a numeric dtype; complex vectors are conjugated.
    x2 : usm_ndarray
        Second operand, of a numeric dtype, on ``x1``'s device; ``axis`` has
        ``x1``'s length, the other dimensions broadcast.
    axis : int, optional
        The axis of the vectors, negative (counted from the last dimension).  Default
        -1.

    Returns
    -------
    usm_ndarray
        The dot products, of the promoted dtype and the broadcast shape without
        ``axis``, on the operands' device.

    Raises
    ------
    TypeError
        An operand that is not a ``usm_ndarray``; bool operands; dtypes the standard
        does not promote; ``axis`` not an int.
    ValueError
        A non-negative ``axis``; vectors of different lengths; other dimensions that do
        not broadcast.
    IndexError
        ``axis`` beyond an operand's dimensions.
    ExecutionPlacementError
        Operands on different devices (a subclass of ValueError).
    MemoryError
        The device cannot hold the result.

    Notes
    -----
    Unlike NumPy's ``vecdot``, usmarray refuses a non-negative ``axis`` (the standard
    counts it from the end) and ``out=``.

    See Also
    --------
    [array_api.vecdot](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.vecdot.html): the standard's specification.
    [array_api.linalg.vecdot](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.linalg.vecdot.html): the same function in the linalg extension.
    """
    be, a1, a2, rd = binary_numeric("vecdot", x1, x2)
    axis = integer(axis, "vecdot", "axis")
    s1, s2 = a1.shape, a2.shape
    n = min(len(s1), len(s2))
    if axis >= 0:
        raise ValueError(
            f"vecdot: axis must be a negative integer in [-{n}, -1] (counted from the last "
            f"dimension), got {axis}"
        )
    if axis < -n:
        raise IndexError(
            f"vecdot: axis {axis} is out of range for operands of shapes {s1} and "
            f"{s2} (allowed: -{n} .. -1)"
        )
    if s1[axis] != s2[axis]:
        raise ValueError(
            f"vecdot: the vectors along axis {axis} differ in length: {s1[axis]} "
            f"(x1 shape {s1}) and {s2[axis]} (x2 shape {s2}); they must "
            "be equal, the contracted axis does not broadcast"
        )
    if axis == -1:
        rest1, rest2 = s1[:-1], s2[:-1]
    else:
        rest1, rest2 = s1[:axis] + s1[axis + 1:], s2[:axis] + s2[axis + 1:]
    rest = broadcast_shape("vecdot (non-contracted dimensions)", rest1, rest2)
    try:
        return wrap_with(be, _as_dtype(be, be.vecdot(a1, a2, axis=axis), rd))
    except Exception as exc:
        alloc_failed(exc, be, a1, math.prod(rest) * rd.itemsize, "vecdot")


#: the compiled core's table for ``@`` (``_elementwise._lean_table``'s shape): the plans,
#: the floating dtypes it takes for two arrays of one dtype, no Python scalar
matmul._lean = (_MATMUL_PLANS, dt.FLOATING, frozenset())  # type: ignore[attr-defined]
if _form.core is not None:
    # the core's lean matmul in front of the namespace's function: two arrays as the
    # ``@`` slot takes them, every other call to the function
    matmul._usmarray_front = functools.partial(  # type: ignore[attr-defined]
        _form.core.install_front, "matmul")
