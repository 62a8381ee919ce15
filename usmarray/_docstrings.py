"""The docstrings of the generated elementwise functions: one row of facts per function
(what it computes, its domain, its result dtype) and one template for what all of them
share (arguments, errors, devices, usm_type, what NumPy accepts that usmarray refuses).

The dtype category of each function is not repeated here: ``_elementwise`` passes the
one its table checks, so the docstring and the check cannot disagree.
"""

from __future__ import annotations

import textwrap
from typing import NamedTuple

#: the standard's page of a function; ``{}`` is its name (``"linalg.solve"`` in a
#: submodule)
STANDARD_PAGE = (
    "https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.{}.html"
)


def standard_url(name: str) -> str:
    """The address of the standard's page for ``name`` (``"add"``, ``"linalg.inv"``)."""
    return STANDARD_PAGE.format(name)


def standard_link(name: str) -> str:
    """A Markdown link to the standard's page for ``name``."""
    return f"[array_api.{name}]({standard_url(name)}): the standard's specification."


#: result dtype rules (``Entry.result``)
SAME = "same"  # the operand's dtype (unary) or the promoted dtype (binary)
BOOL = "bool"  # bool whatever the operands' dtype
REAL = "real"  # the real floating dtype of a complex operand's precision


class Entry(NamedTuple):
    """What one elementwise function computes."""

    summary: str  #: one line, with the math
    detail: str = ""  #: domain, range, branch cuts, conventions
    result: str = SAME


#: what each dtype category of ``_elementwise``'s tables admits
CATEGORY_DTYPES = {
    "numeric": "a numeric dtype (an integer, real floating or complex floating dtype; "
               "not bool)",
    "real numeric": "a real numeric dtype (an integer or real floating dtype; not bool, "
                    "not complex)",
    "floating-point": "a floating-point dtype (float32, float64, complex64 or complex128)",
    "real floating-point": "a real floating-point dtype (float32 or float64)",
    "complex floating-point": "a complex floating-point dtype (complex64 or complex128)",
    "integer or boolean": "an integer dtype or bool",
    "integer": "an integer dtype (int8 to int64, uint8 to uint64)",
    "boolean": "the bool dtype",
    "any": "any dtype",
}

#: the Python scalars an operand of each category may be (the standard's scalar rule)
SCALAR_KINDS = {
    "numeric": "int, float, complex",
    "real numeric": "int, float",
    "floating-point": "int, float, complex",
    "real floating-point": "int, float",
    "complex floating-point": "int, float, complex",
    "integer or boolean": "bool, int",
    "integer": "int",
    "boolean": "bool",
    "any": "bool, int, float, complex",
}

#: categories that hold complex dtypes (a complex Python scalar is then allowed)
_WITH_COMPLEX = frozenset({"numeric", "floating-point", "complex floating-point", "any"})

_COMPLEX_CUTS = "the complex branch cuts are"

UNARY: dict[str, Entry] = {
    "abs": Entry(
        "Absolute value ``|x_i|`` of each element; for complex ``a + bj`` the modulus "
        "``sqrt(a**2 + b**2)``.", result=REAL),
    "acos": Entry(
        "Principal value of the inverse cosine ``arccos(x_i)``, in radians.",
        "Real results lie in ``[0, π]``; real inputs outside ``[-1, 1]`` give NaN; "
        f"{_COMPLEX_CUTS} ``(-∞, -1)`` and ``(1, +∞)`` of the real axis."),
    "acosh": Entry(
        "Inverse hyperbolic cosine ``arccosh(x_i) = ln(x_i + sqrt(x_i**2 - 1))``.",
        "Real results lie in ``[0, +∞]``; real inputs below 1 give NaN; "
        f"{_COMPLEX_CUTS} ``(-∞, 1)`` of the real axis."),
    "asin": Entry(
        "Principal value of the inverse sine ``arcsin(x_i)``, in radians.",
        "Real results lie in ``[-π/2, π/2]``; real inputs outside ``[-1, 1]`` give NaN; "
        f"{_COMPLEX_CUTS} ``(-∞, -1)`` and ``(1, +∞)`` of the real axis."),
    "asinh": Entry(
        "Inverse hyperbolic sine ``arcsinh(x_i) = ln(x_i + sqrt(x_i**2 + 1))``.",
        f"Defined for every real input; {_COMPLEX_CUTS} ``(-∞j, -j)`` and ``(j, +∞j)`` of "
        "the imaginary axis."),
    "atan": Entry(
        "Principal value of the inverse tangent ``arctan(x_i)``, in radians.",
        f"Real results lie in ``[-π/2, π/2]``; {_COMPLEX_CUTS} ``(-∞j, -j)`` and "
        "``(j, +∞j)`` of the imaginary axis."),
    "atanh": Entry(
        "Inverse hyperbolic tangent ``arctanh(x_i) = ln((1 + x_i) / (1 - x_i)) / 2``.",
        "Real inputs outside ``[-1, 1]`` give NaN and ``±1`` gives ``±∞``; "
        f"{_COMPLEX_CUTS} ``(-∞, -1]`` and ``[1, +∞)`` of the real axis."),
    "bitwise_invert": Entry(
        "Bitwise NOT ``~x_i`` of each element: every bit flipped (for bool: logical NOT)."),
    "ceil": Entry(
        "Smallest integer-valued number ``⌈x_i⌉`` not less than each element.",
        "Floating results keep their floating dtype (``ceil(2.5)`` is ``3.0``); integer "
        "inputs come back unchanged."),
    "conj": Entry(
        "Complex conjugate ``a - bj`` of each element ``a + bj``.",
        "Real inputs come back unchanged."),
    "cos": Entry("Cosine ``cos(x_i)`` of each element, an angle in radians."),
    "cosh": Entry(
        "Hyperbolic cosine ``cosh(x_i) = (e**x_i + e**-x_i) / 2`` of each element."),
    "exp": Entry("Exponential ``e**x_i`` of each element."),
    "expm1": Entry(
        "``e**x_i - 1`` of each element, accurate where ``x_i`` is near zero.",
        "More accurate than ``exp(x) - 1`` for small ``|x_i|``, where that subtraction "
        "cancels."),
    "floor": Entry(
        "Largest integer-valued number ``⌊x_i⌋`` not greater than each element.",
        "Floating results keep their floating dtype (``floor(2.5)`` is ``2.0``); integer "
        "inputs come back unchanged."),
    "imag": Entry(
        "Imaginary part ``b`` of each complex element ``a + bj``.", result=REAL),
    "isfinite": Entry(
        "Whether each element is finite: neither ``±∞`` nor NaN (for complex: in both "
        "parts).", "Integer inputs give True everywhere.", BOOL),
    "isinf": Entry(
        "Whether each element is ``+∞`` or ``-∞`` (for complex: in either part).",
        "Integer inputs give False everywhere.", BOOL),
    "isnan": Entry(
        "Whether each element is NaN (for complex: in either part).",
        "Integer inputs give False everywhere.", BOOL),
    "log": Entry(
        "Natural logarithm ``ln(x_i)`` of each element.",
        "Real inputs below zero give NaN and zero gives ``-∞``; "
        f"{_COMPLEX_CUTS} ``(-∞, 0]`` of the real axis."),
    "log1p": Entry(
        "``ln(1 + x_i)`` of each element, accurate where ``x_i`` is near zero.",
        "Real inputs below -1 give NaN and -1 gives ``-∞``; more accurate than "
        "``log(1 + x)`` for small ``|x_i|``."),
    "log2": Entry(
        "Base-2 logarithm ``log2(x_i)`` of each element.",
        "Real inputs below zero give NaN and zero gives ``-∞``."),
    "log10": Entry(
        "Base-10 logarithm ``log10(x_i)`` of each element.",
        "Real inputs below zero give NaN and zero gives ``-∞``."),
    "logical_not": Entry("Logical NOT ``not x_i`` of each element.", result=BOOL),
    "negative": Entry("Numerical negative ``-x_i`` of each element (the unary ``-``)."),
    "positive": Entry(
        "Numerical positive ``+x_i`` of each element (the unary ``+``): the values "
        "unchanged, in a new array."),
    "real": Entry(
        "Real part ``a`` of each element ``a + bj``.",
        "Real inputs come back unchanged, in their own dtype.", REAL),
    "reciprocal": Entry(
        "Reciprocal ``1 / x_i`` of each element.",
        "Zero gives ``±∞`` by its sign, as ``divide(1, x)`` does."),
    "round": Entry(
        "Each element rounded to the nearest integer-valued number, halves to the even "
        "one (``round(2.5)`` is ``2.0``).",
        "Complex elements round their real and imaginary parts separately; integer "
        "inputs come back unchanged.  There is no ``decimals=`` argument: the standard's "
        "``round`` has none."),
    "sign": Entry(
        "Sign of each element: ``-1``, ``0`` or ``+1`` for real ``x_i``, "
        "``x_i / |x_i|`` for complex (``0`` for zero).",
        "A real NaN gives NaN."),
    "signbit": Entry(
        "Whether the sign bit of each element is set: True for negative values, ``-0.0``, "
        "``-∞`` and NaNs whose sign bit is set.", result=BOOL),
    "sin": Entry("Sine ``sin(x_i)`` of each element, an angle in radians."),
    "sinh": Entry(
        "Hyperbolic sine ``sinh(x_i) = (e**x_i - e**-x_i) / 2`` of each element."),
    "square": Entry("Square ``x_i * x_i`` of each element."),
    "sqrt": Entry(
        "Principal square root ``√x_i`` of each element.",
        f"Real inputs below zero give NaN; {_COMPLEX_CUTS} ``(-∞, 0)`` of the real axis."),
    "tan": Entry("Tangent ``tan(x_i)`` of each element, an angle in radians."),
    "tanh": Entry(
        "Hyperbolic tangent ``tanh(x_i) = sinh(x_i) / cosh(x_i)`` of each element.",
        "Real results lie in ``[-1, 1]``."),
    "trunc": Entry(
        "Each element rounded toward zero to an integer-valued number.",
        "Floating results keep their floating dtype (``trunc(-2.5)`` is ``-2.0``); integer "
        "inputs come back unchanged."),
}

_SHIFT = ("``x2`` must be non-negative; the standard leaves negative shift counts "
          "undefined.")

BINARY: dict[str, Entry] = {
    "add": Entry("Sum ``x1_i + x2_i`` of each pair of elements (the ``+`` operator)."),
    "atan2": Entry(
        "Angle ``atan2(x1_i, x2_i)`` of the point ``(x2_i, x1_i)``, in radians in "
        "``[-π, π]``: ``x1`` holds the y-coordinates, ``x2`` the x-coordinates.",
        "The quadrant follows the signs of both arguments, signed zeros included."),
    "bitwise_and": Entry(
        "Bitwise AND ``x1_i & x2_i`` of each pair (for bool: logical AND; the ``&`` "
        "operator)."),
    "bitwise_left_shift": Entry(
        "``x1_i << x2_i``: the bits of each element of ``x1`` shifted left by ``x2_i`` "
        "places, zeros shifted in.", _SHIFT),
    "bitwise_or": Entry(
        "Bitwise OR ``x1_i | x2_i`` of each pair (for bool: logical OR; the ``|`` "
        "operator)."),
    "bitwise_right_shift": Entry(
        "``x1_i >> x2_i``: the bits of each element of ``x1`` shifted right by ``x2_i`` "
        "places, arithmetically (floor division by ``2**x2_i``).", _SHIFT),
    "bitwise_xor": Entry(
        "Bitwise XOR ``x1_i ^ x2_i`` of each pair (for bool: logical XOR; the ``^`` "
        "operator)."),
    "copysign": Entry(
        "``|x1_i|`` with the sign of ``x2_i`` for each pair.",
        "The sign is the sign bit: ``-0.0`` and NaNs whose sign bit is set count as "
        "negative."),
    "divide": Entry(  # the floating case; the public ``divide`` documents integers too
        "True quotient ``x1_i / x2_i`` of each pair (the ``/`` operator)."),
    "equal": Entry(
        "Whether ``x1_i == x2_i`` for each pair (the ``==`` operator).",
        "NaN equals nothing, itself included; ``-0.0`` equals ``+0.0``; complex values "
        "are equal when both parts are.", BOOL),
    "floor_divide": Entry(
        "Floor of the quotient ``⌊x1_i / x2_i⌋`` of each pair (the ``//`` operator).",
        "Floating results keep their floating dtype.  Integer division by zero gives "
        "0, and the lowest signed integer divided by -1 gives itself (NumPy's values, "
        "without a warning)."),
    "greater": Entry(
        "Whether ``x1_i > x2_i`` for each pair (the ``>`` operator).",
        "Comparisons with NaN are False.", BOOL),
    "greater_equal": Entry(
        "Whether ``x1_i >= x2_i`` for each pair (the ``>=`` operator).",
        "Comparisons with NaN are False.", BOOL),
    "hypot": Entry(
        "Hypotenuse ``sqrt(x1_i**2 + x2_i**2)`` of each pair.",
        "Computed without overflow or underflow in the squares: ``hypot(1e200, 1e200)`` "
        "is ``1.414e200``."),
    "less": Entry(
        "Whether ``x1_i < x2_i`` for each pair (the ``<`` operator).",
        "Comparisons with NaN are False.", BOOL),
    "less_equal": Entry(
        "Whether ``x1_i <= x2_i`` for each pair (the ``<=`` operator).",
        "Comparisons with NaN are False.", BOOL),
    "logaddexp": Entry(
        "``ln(e**x1_i + e**x2_i)`` of each pair.",
        "Computed without overflow in the exponentials: ``logaddexp(1000.0, 1000.0)`` is "
        "``1000.693...``."),
    "logical_and": Entry("Logical AND ``x1_i and x2_i`` of each pair.", result=BOOL),
    "logical_or": Entry("Logical OR ``x1_i or x2_i`` of each pair.", result=BOOL),
    "logical_xor": Entry(
        "Logical XOR of each pair: True where exactly one of ``x1_i``, ``x2_i`` is "
        "True.", result=BOOL),
    "maximum": Entry(
        "Larger value ``max(x1_i, x2_i)`` of each pair.",
        "NaN in either operand gives NaN."),
    "minimum": Entry(
        "Smaller value ``min(x1_i, x2_i)`` of each pair.",
        "NaN in either operand gives NaN."),
    "multiply": Entry("Product ``x1_i * x2_i`` of each pair (the ``*`` operator)."),
    "nextafter": Entry(
        "Next representable floating-point value after ``x1_i`` in the direction of "
        "``x2_i``.",
        "``x2_i`` where the two are equal (so ``nextafter(-0.0, +0.0)`` is ``+0.0``)."),
    "not_equal": Entry(
        "Whether ``x1_i != x2_i`` for each pair (the ``!=`` operator).",
        "NaN is unequal to everything, itself included.", BOOL),
    "pow": Entry(
        "``x1_i`` raised to the power ``x2_i`` for each pair (the ``**`` operator).",
        "An integer base with a negative integer exponent (a Python int, or any "
        "element of a signed integer array) raises ValueError, as in NumPy; an array "
        "exponent is checked by its lowest element, which waits for the device."),
    "remainder": Entry(
        "Remainder ``x1_i - floor(x1_i / x2_i) * x2_i`` of each pair, with the sign of "
        "``x2_i`` (the ``%`` operator).",
        "``remainder(-7, 3)`` is ``2``; an integer remainder by zero is 0 (NumPy's "
        "value, without a warning)."),
    "subtract": Entry(
        "Difference ``x1_i - x2_i`` of each pair of elements (the ``-`` operator)."),
}

#: functions whose page on the standard has a table of special cases
SPECIAL_CASES = frozenset({
    "abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh", "ceil",
    "copysign", "cos", "cosh", "divide", "equal", "exp", "expm1", "floor",
    "floor_divide", "hypot", "isfinite", "isinf", "isnan", "log", "log1p", "log2",
    "log10", "logaddexp", "maximum", "minimum", "multiply", "nextafter", "not_equal",
    "pow", "reciprocal", "remainder", "round", "sign", "signbit", "sin", "sinh",
    "square", "sqrt", "tan", "tanh", "trunc",
})

_REFUSED = (
    "NumPy arrays, lists and other sequences as operands (convert them with "
    "``usmarray.asarray``), and NumPy's keywords ``out=``, ``where=``, ``dtype=``, "
    "``casting=``, ``order=`` and ``subok=`` (TypeError)"
)


def _result(entry: Entry, unary: bool, catname: str) -> str:
    shape = "``x``'s shape" if unary else "the broadcast shape of ``x1`` and ``x2``"
    if entry.result == BOOL:
        return f"A bool array of {shape}."
    if entry.result == REAL:
        keep = "" if catname == "complex floating-point" else (
            "``x``'s dtype for a real ``x``; ")
        return (f"An array of {shape}: {keep}the real floating dtype of ``x``'s "
                "precision for a complex ``x`` (float32 for complex64, float64 for "
                "complex128).")
    if unary:
        return f"An array of ``x``'s dtype and {shape}."
    scalar = ("the array's dtype" if catname not in _WITH_COMPLEX else
              "the array's dtype, or for a complex scalar with a real floating array the "
              "complex dtype of its precision")
    return (f"An array of {shape}, of the dtype the standard's promotion table gives for "
            f"the two dtypes (with a Python scalar operand: {scalar}).")


_WIDTH = 88  # the docstring's lines, as ``help()`` prints them


def _wrap(text: str, indent: str = "") -> str:
    return textwrap.fill(text, _WIDTH, initial_indent=indent, subsequent_indent=indent,
                         break_long_words=False, break_on_hyphens=False)


def _section(title: str, items: list[tuple[str, str]]) -> str:
    """A NumPy-style section: ``title``, its underline, and per item a name line and
    its indented description."""
    body = "\n".join(f"{head}\n{_wrap(text, '    ')}" for head, text in items)
    return f"{title}\n{'-' * len(title)}\n{body}"


def elementwise(name: str, catname: str, unary: bool) -> str:
    """The docstring of elementwise function ``name`` whose operands must have a dtype
    of category ``catname`` (a key of :data:`CATEGORY_DTYPES`)."""
    entry = (UNARY if unary else BINARY)[name]
    dtypes = CATEGORY_DTYPES[catname]
    if unary:
        params = [("x : usm_ndarray", f"Input array, of {dtypes}.")]
        raises = [("TypeError", "``x`` is not a ``usm_ndarray`` (a NumPy array, list or "
                                f"Python scalar), or its dtype is not {dtypes}.")]
        placement = ("the kernel runs on ``x``'s device and the result lives there, with "
                     "``x``'s usm_type.")
    else:
        kinds = f"usm_ndarray or Python scalar ({SCALAR_KINDS[catname]})"
        params = [
            (f"x1 : {kinds}", f"First operand, of {dtypes}."),
            (f"x2 : {kinds}",
             f"Second operand, of {dtypes}; broadcast against ``x1``.  One of the two may "
             "be a Python scalar (NumPy scalars count as Python scalars); it takes the "
             "array's dtype where the standard's rule allows: bool with bool arrays, int "
             "with integer or floating arrays, float with floating arrays, complex with "
             "floating arrays."),
        ]
        raises = [
            ("TypeError",
             f"The promoted dtype is not {dtypes}; the standard defines no promotion of "
             "the two dtypes (mixed kinds such as int64 with float64, or uint64 with a "
             "signed integer); a Python scalar the array's dtype does not take (a float "
             "with an integer array); an operand that is neither a ``usm_ndarray`` nor a "
             "Python scalar; two Python scalars."),
            ("OverflowError", "A Python int outside the range of the integer array's "
                              "dtype."),
            ("ValueError", "The shapes do not broadcast."),
            ("ExecutionPlacementError",
             "The arrays live on different devices (or on SYCL queues that are not "
             "equivalent); a subclass of ValueError."),
        ]
        placement = (
            "the kernel runs on the operands' device and the result lives there; arrays "
            "of different devices are refused, never copied.  The result's usm_type is "
            "the most device-like of the array operands': ``\"device\"`` over "
            "``\"shared\"`` over ``\"host\"`` (docs/usm-types.md).")
    raises.append(("MemoryError", "The device cannot hold the result."))
    refused = _REFUSED
    if catname in ("floating-point", "real floating-point", "complex floating-point"):
        refused += ("; integer and bool arrays, which NumPy computes in float64 (cast "
                    "them first with ``usmarray.astype``)")
    if not unary:
        refused += ("; mixed-kind promotion and a float scalar with an integer array, "
                    "which NumPy promotes")
    notes = [f"Compute follows data: {placement}", f"Unlike NumPy, usmarray refuses {refused}."]
    if name in SPECIAL_CASES:
        notes.append("Special cases (NaN, signed zeros, infinities) follow the table on "
                     f"the standard's page for ``{name}``, on every backend.")
    blocks = [entry.summary]
    if entry.detail:
        blocks.append(_wrap(entry.detail))
    blocks += [
        _section("Parameters", params),
        _section("Returns", [("usm_ndarray", _result(entry, unary, catname))]),
        _section("Raises", raises),
        "Notes\n-----\n" + "\n\n".join(_wrap(n) for n in notes),
        "See Also\n--------\n" + standard_link(name),
    ]
    return "\n\n".join(blocks)
