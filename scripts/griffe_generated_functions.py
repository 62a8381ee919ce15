"""A griffe extension for the API reference (``mkdocs.yml``): a public module attribute
that a call makes at import time, and that is a function once imported (the
elementwise functions, ``add = _make_binary("add")``), is documented as that function,
with the signature and docstring of the imported object.  Static analysis alone sees
an attribute without a docstring there.

Only modules that importing the package loads are inspected: those are the ones whose
names users reach, and importing any other (a backend whose runtime is absent, the
package's ``__main__``) could fail or run a program."""

from __future__ import annotations

import importlib
import inspect
import sys
from typing import Any

import griffe


def _public(name: str) -> bool:
    return not name.startswith("_") or (name.startswith("__") and name.endswith("__"))


def _modules(module: griffe.Module) -> list[griffe.Module]:
    found = [module]
    for member in module.modules.values():
        if not member.is_alias:
            found += _modules(member)
    return found


class GeneratedFunctions(griffe.Extension):
    """Document generated-function attributes as the functions they are."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        importlib.import_module(pkg.path)
        for module in _modules(pkg):
            runtime = sys.modules.get(module.path)
            if runtime is None:
                continue
            made = [
                name for name, member in module.members.items()
                if _public(name) and not member.is_alias and member.is_attribute
                and isinstance(member.value, griffe.ExprCall)
                and inspect.isfunction(inspect.unwrap(getattr(runtime, name, None)))
            ]
            if not made:
                continue
            inspected = griffe.inspect(
                module.path,
                docstring_parser=loader.docstring_parser,
                docstring_options=loader.docstring_options,
            )
            for name in made:
                module.set_member(name, inspected[name])
