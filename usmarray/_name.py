"""The namespace's ``__name__``: the string ``"usmarray"``, except to SciPy's MArray test.

SciPy 1.17 decides whether a namespace is MArray's with ``"marray" in xp.__name__``
(``scipy._lib._array_api.is_marray``, called from scipy.special, scipy.stats and
``_lib._util``); ``"usmarray"`` contains ``"marray"``, so SciPy would take its MArray
paths (``x.data``, ``x.mask``, ``xp.count``, ``asarray(mask=)``), and scipy.special
recurses until RecursionError.  MArray's namespaces are named ``marray.<library>``.

``usmarray.__name__`` is a :class:`ModuleName`: a ``str`` equal to ``"usmarray"`` in
every respect (``==``, hash, formatting, ``startswith``, import machinery) whose one
difference is that the substring test ``"marray" in name`` answers False.  No other
substring test changes.  The upstream fix (SciPy testing
``xp.__name__.split(".")[0] == "marray"``) is written in docs/compatibility.md; when
it lands this module goes.
"""

from __future__ import annotations


class ModuleName(str):
    """``str`` whose ``in`` test is false for ``"marray"`` alone (see the module doc)."""

    __slots__ = ()

    def __contains__(self, sub: object) -> bool:
        if sub == "marray":
            return False
        return str.__contains__(self, sub)  # type: ignore[operator]

    def __reduce__(self) -> tuple[type, tuple[str]]:  # pickles as the plain string
        return (str, (str(self),))


__all__ = ["ModuleName"]
