"""The optional compiled modules of usmarray (``usmarray/_form.py`` says what they are and
when they run).  Everything else of the build is in pyproject.toml.

- ``usmarray/_core.pyx``: the array's compiled core;
- ``usmarray/_backend/_cuda/_engine_calls.pyx``: the CUDA engine's repeated call (built
  without CUDA: it finds the driver at run time).

They are built where Cython and a C compiler are there.  An install without them, or
whose build of one fails, says why and gets that module's pure-Python form, which works
the same."""

from __future__ import annotations

import hashlib
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

#: (module, source, the macro that carries the source's SHA-256 into the module)
MODULES = (
    ("usmarray._core", Path("usmarray") / "_core.pyx", "USMARRAY_CORE_SOURCE"),
    ("usmarray._backend._cuda._engine_calls",
     Path("usmarray") / "_backend" / "_cuda" / "_engine_calls.pyx", "USMARRAY_SOURCE_SHA256"),
)


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
    """The compiled modules as optional extensions, their C sources made by Cython (none
    without Cython, or where Cython fails)."""
    sources = [m for m in MODULES if m[1].is_file()]
    if not sources:
        print("usmarray: no .pyx sources: nothing compiled is built")
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("usmarray: Cython is not installed: the compiled modules are not built; the "
              "pure-Python form will run")
        return []
    try:
        import numpy
    except ImportError:
        print("usmarray: NumPy is not installed for the build: the compiled modules are not "
              "built; the pure-Python form will run")
        return []
    out = []
    for name, source, macro in sources:
        sha = hashlib.sha256(source.read_bytes()).hexdigest()
        ext = Extension(name, [str(source)], optional=True,
                        include_dirs=[numpy.get_include()],
                        define_macros=[(macro, f'"{sha}"'),
                                       ("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")])
        try:
            out += cythonize([ext], quiet=True, compiler_directives={"language_level": 3})
        except Exception as exc:  # noqa: BLE001 - a Cython that cannot compile it
            print(f"usmarray: Cython could not compile {source} ({exc}); its pure-Python "
                  "form will run")
    return out


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
