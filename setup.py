"""The optional compiled core of usmarray (``usmarray/_core.pyx``; ``usmarray/_form.py``
says what it is and when it runs).  Everything else of the build is in pyproject.toml.

The core is built where Cython and a C compiler are there.  An install without them, or
whose build of the core fails, says why and gets the pure-Python form, which works the
same."""

from __future__ import annotations

import hashlib
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCE = Path("usmarray") / "_core.pyx"


class OptionalBuildExt(build_ext):
    """build_ext whose failure leaves the pure-Python form, with a warning."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # noqa: BLE001 - any failure: the pure-Python form
            self.warn(f"usmarray: the compiled core was not built ({exc}); the pure-Python "
                      "form will run")

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001
            self.warn(f"usmarray: building {ext.name} failed ({exc}); the pure-Python form "
                      "will run")


def extensions() -> list[Extension]:
    """The core as an optional extension, its C source made by Cython (none without
    Cython, or where Cython fails)."""
    if not SOURCE.is_file():
        print(f"usmarray: no {SOURCE}: the compiled core is not built")
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("usmarray: Cython is not installed: the compiled core is not built; the "
              "pure-Python form will run")
        return []
    try:
        import numpy
    except ImportError:
        print("usmarray: NumPy is not installed for the build: the compiled core is not "
              "built; the pure-Python form will run")
        return []
    sha = hashlib.sha256(SOURCE.read_bytes()).hexdigest()
    ext = Extension("usmarray._core", [str(SOURCE)], optional=True,
                    include_dirs=[numpy.get_include()],
                    define_macros=[("USMARRAY_CORE_SOURCE", f'"{sha}"'),
                                   ("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")])
    try:
        return list(cythonize([ext], quiet=True, compiler_directives={"language_level": 3}))
    except Exception as exc:  # noqa: BLE001 - a Cython that cannot compile it
        print(f"usmarray: Cython could not compile {SOURCE} ({exc}); the pure-Python form "
              "will run")
        return []


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
