"""NumPy scalars are Python scalars of their kind, wherever the standard takes one.

``np.float64`` subclasses ``float`` and ``np.complex128`` ``complex``; ``np.float32``,
``np.int64`` or ``np.bool_`` subclass nothing of Python's.  Clients (scikit-learn,
SciPy) hand all of them to operators, ``x[key] = v``, ``full`` and ``where`` as they
would hand Python scalars.  One rule for all: a NumPy scalar of a bool, integer,
real or complex floating dtype is replaced by the Python scalar of the same value
(``v.item()``, exact for every such dtype up to 64 bits) and then follows the
standard's Python-scalar rule (so ``x_float32 * np.float64(2)`` is float32, as with
``2.0``).  Other NumPy values (0-D arrays, ``np.longdouble``, datetimes) are not
scalars here: the caller refuses them with TypeError.  ``usm_ndarray`` sets
``__array_priority__`` so that NumPy defers operators to it (``np.float64(2) * x``
reaches ``x.__rmul__``); NumPy never computes an operator on a usmarray array.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_PY_SCALARS = (bool, int, float, complex)


def py_scalar(value: Any) -> Any:
    """``value``, or the Python scalar a NumPy bool/integer/floating/complex scalar holds."""
    if isinstance(value, np.generic) and value.dtype.kind in "biufc":
        v = value.item()
        if type(v) in _PY_SCALARS:
            return v
    return value


__all__ = ["py_scalar"]
