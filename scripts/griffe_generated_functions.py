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


def _function(name: str, obj: Any, loader: griffe.GriffeLoader) -> griffe.Function:
    """A griffe function of ``obj``'s signature (annotations as written) and docstring."""
    sig = inspect.signature(obj)
    params = griffe.Parameters(*(
        griffe.Parameter(
            p.name,
            annotation=None if p.annotation is p.empty else str(p.annotation),
            kind=griffe.ParameterKind[p.kind.name.lower()],
            default=None if p.default is p.empty else repr(p.default),
        )
        for p in sig.parameters.values()
    ))
    returns = None if sig.return_annotation is sig.empty else str(sig.return_annotation)
    doc = inspect.getdoc(obj)
    docstring = doc and griffe.Docstring(doc, parser=loader.docstring_parser,
                                         parser_options=loader.docstring_options)
    return griffe.Function(name, parameters=params, returns=returns, docstring=docstring or None)


class GeneratedFunctions(griffe.Extension):
    """Document generated-function attributes as the functions they are."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        importlib.import_module(pkg.path)
        for module in _modules(pkg):
            runtime = sys.modules.get(module.path)
            if runtime is None:
                continue
            for name, member in list(module.members.items()):
                if not (_public(name) and not member.is_alias and member.is_attribute
                        and isinstance(member.value, griffe.ExprCall)):
                    continue
                obj = getattr(runtime, name, None)
                if inspect.isfunction(inspect.unwrap(obj)):
                    module.set_member(name, _function(name, obj, loader))
