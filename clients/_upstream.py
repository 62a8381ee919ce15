"""The upstream fixes: ``clients/upstream/*.patch``, unified diffs against the installed
client packages, applied in memory when a patched module is imported.

Each patch is what would be proposed upstream, as it would be proposed (``git diff``
form, paths from the site-packages root: ``a/scipy/conftest.py``); its rationale and
the upstream issue or pull request it answers are in ``clients/upstream/README.md``.
``install()`` puts an import hook first on ``sys.meta_path``: a module whose file a
patch names is compiled from the patched source (the installed file is never
written).  A hunk whose lines are not in the installed file is an error that names
the patch and the file: the patch no longer applies to that version.

``python -m clients --upstream-fixes`` sets ``CLIENTS_UPSTREAM_FIXES=1`` for its pytest
runs; ``clients.plugin`` then installs the hook before any client is imported.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PATCHES = Path(__file__).resolve().parent / "upstream"
ENV = "CLIENTS_UPSTREAM_FIXES"
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")


@dataclass
class FilePatch:
    """The hunks of one patch for one file: (old lines, new lines) each."""

    patch: str  # the patch file's name
    path: str  # relative to the site-packages root, e.g. "scipy/conftest.py"
    hunks: list[tuple[list[str], list[str]]] = field(default_factory=list)
    #: the release that has the change (the patch's ``Fixed upstream in:`` line), where
    #: one does: its hunks are skipped where the installed file no longer has their lines
    fixed_upstream: str = ""

    @property
    def module(self) -> str:
        """The module the file is (``scipy/conftest.py`` -> ``scipy.conftest``)."""
        parts = self.path.removesuffix(".py").split("/")
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def parse(text: str, name: str) -> list[FilePatch]:
    """The file patches of a unified diff (``--- a/x``, ``+++ b/x``, ``@@`` hunks)."""
    out: list[FilePatch] = []
    cur: FilePatch | None = None
    old: list[str] = []
    new: list[str] = []
    fixed = ""
    for line in text.splitlines():
        if cur is None and line.startswith("Fixed upstream in:"):
            fixed = line.partition(":")[2].strip()
        elif line.startswith("+++ "):
            cur = FilePatch(name, line[4:].strip().removeprefix("b/"), fixed_upstream=fixed)
            out.append(cur)
        elif line.startswith(("--- ", "\\")) or cur is None:
            continue
        elif _HUNK.match(line):
            old, new = [], []
            cur.hunks.append((old, new))
        elif line.startswith("-"):
            old.append(line[1:])
        elif line.startswith("+"):
            new.append(line[1:])
        elif line.startswith(" ") or line == "":
            old.append(line[1:])
            new.append(line[1:])
    return out


def _found_once(lines: list[str], block: list[str]) -> bool:
    n = len(block)
    return sum(lines[i:i + n] == block for i in range(len(lines) - n + 1)) == 1


def apply(source: str, fp: FilePatch) -> str:
    """``source`` with every hunk of ``fp`` applied (its old lines found exactly once)."""
    lines = source.splitlines()
    for old, new in fp.hunks:
        at = [i for i in range(len(lines) - len(old) + 1) if lines[i:i + len(old)] == old]
        if not at and _found_once(lines, new):
            continue  # the installed version has this change already
        if not at and fp.fixed_upstream:
            continue  # a later version changed these lines: the patch is for older ones
        if len(at) != 1:
            raise RuntimeError(
                f"clients/upstream/{fp.patch}: a hunk for {fp.path} matches {len(at)} places "
                "of the installed file (it must match one); the installed version differs "
                "from the one the patch was written for"
            )
        lines[at[0]:at[0] + len(old)] = new
    return "\n".join(lines) + "\n"


def load(names: Sequence[str] | None = None) -> list[FilePatch]:
    """The file patches of ``clients/upstream/*.patch`` (only ``names``, without the
    ``.patch``, where given)."""
    out: list[FilePatch] = []
    for p in sorted(PATCHES.glob("*.patch")):
        if names is None or p.stem in names:
            out.extend(parse(p.read_text(encoding="utf-8"), p.name))
    return out


class _PatchedLoader(importlib.machinery.SourceFileLoader):
    """Compiles the patched source of its file (never a cached bytecode file)."""

    def __init__(self, fullname: str, path: str, patches: list[FilePatch]) -> None:
        super().__init__(fullname, path)
        self._patches = patches

    def get_source(self, fullname: str) -> str:
        source = Path(self.path).read_text(encoding="utf-8")
        for fp in self._patches:
            source = apply(source, fp)
        return source

    def get_code(self, fullname: str) -> Any:
        return compile(self.get_source(fullname), self.path, "exec", dont_inherit=True)


class _Finder(importlib.abc.MetaPathFinder):
    def __init__(self, patches: list[FilePatch]) -> None:
        self.by_module: dict[str, list[FilePatch]] = {}
        for fp in patches:
            self.by_module.setdefault(fp.module, []).append(fp)

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        patches = self.by_module.get(fullname)
        if patches is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.origin is None:
            return None
        loader = _PatchedLoader(fullname, spec.origin, patches)
        return importlib.util.spec_from_file_location(
            fullname, spec.origin, loader=loader,
            submodule_search_locations=spec.submodule_search_locations)


def install(names: Sequence[str] | None = None) -> list[str]:
    """Put the import hook for the patches (``names``, or all) first on
    ``sys.meta_path``; return the patched modules.  RuntimeError where one of them is
    imported already (it would run unpatched)."""
    patches = load(names)
    finder = _Finder(patches)
    early = sorted(m for m in finder.by_module if m in sys.modules)
    if early:
        raise RuntimeError(
            f"upstream patches: {', '.join(early)} imported before the patches were "
            f"installed; set {ENV}=1 before pytest starts"
        )
    sys.meta_path.insert(0, finder)
    return sorted(finder.by_module)


__all__ = ["ENV", "FilePatch", "apply", "install", "load", "parse"]
