"""The house stays one-way: every import of the package (function-level ones too)
goes to a module on the same floor or a lower one, there is no import circle, and the
namespace layer names no runtime (dpctl, dpnp, CuPy) and no SYCL attribute of a raw
array.  Read from the source with ``ast``; nothing is imported."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "usmarray"

#: floors, top to bottom; a module not listed under _backend/ is on the backend floor
FLOORS: list[tuple[str, ...]] = [
    ("__main__", "_demo", "cubed"),
    ("_cubed_store", "_cubed_optimize", "_cubed_placement"),
    ("__init__",),
    ("_operators", "_versions"),
    ("linalg", "fft", "kernels", "random", "_elementwise", "_creation", "_manipulation",
     "_statistical", "_searching", "_sets", "_sorting", "_indexing_functions", "_utility",
     "_data_type_functions", "_linalg_main", "_info"),
    ("_helpers", "_placement", "_indexing", "_migration", "_serial", "_special_cases",
     "_index_rules", "_params"),
    ("_array",),
    ("_device",),
    ("_backend",),
    ("_dtypes", "_constants", "_env", "_scalars", "_name", "_hints", "_trace", "_docstrings",
     "_form"),
]
BACKEND_FLOOR = next(i for i, f in enumerate(FLOORS) if f == ("_backend",))
RUNTIMES = ("dpctl", "dpnp", "cupy", "cupyx", "torch", "jax")
SYCL_ATTRIBUTES = ("sycl_queue", "sycl_device", "sycl_context", "usm_data", "_element_offset")


def _modules() -> dict[str, Path]:
    out = {}
    for path in PKG.rglob("*.py"):
        rel = path.relative_to(PKG).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__" and len(parts) > 1:
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def floor(mod: str) -> int:
    """Floor index (0 = top) of a module name relative to the package."""
    head = mod.split(".")[0]
    for i, names in enumerate(FLOORS):
        if head in names:
            return i
    raise AssertionError(f"usmarray.{mod} has no floor in FLOORS: add it to the table")


def _resolve(mod: str, node: ast.ImportFrom | ast.Import) -> list[str]:
    """Package modules an import statement of module ``mod`` loads."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
        return [n.split(".", 1)[1] if "." in n else "__init__"
                for n in names if n.split(".")[0] == "usmarray"]
    if node.level == 0:
        if not (node.module or "").startswith("usmarray"):
            return []
        base = (node.module or "").split(".")[1:]
    else:
        here = mod.split(".")
        is_pkg = MODULES[mod].name == "__init__.py"
        base = here[: len(here) - node.level + (1 if is_pkg else 0)]
        if node.module:
            base = base + node.module.split(".")
    out = []
    for alias in node.names:
        cand = ".".join([*base, alias.name])
        out.append(cand if cand in MODULES else ".".join(base) or "__init__")
    return [o for o in out if o]


def _imports(mod: str) -> set[str]:
    tree = ast.parse(MODULES[mod].read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.update(m for m in _resolve(mod, node) if m != mod)
    return found


GRAPH = {m: _imports(m) for m in MODULES}


def test_every_module_has_a_floor():
    for m in MODULES:
        floor(m)


def test_no_import_runs_up():
    up = []
    for m, targets in GRAPH.items():
        for t in targets:
            if t == "__init__" and m.startswith("_backend"):
                up.append(f"{m} -> usmarray (the package)")
            elif t in MODULES and floor(t) < floor(m):
                up.append(f"{m} (floor {floor(m)}) -> {t} (floor {floor(t)})")
    assert not up, "imports that run up:\n" + "\n".join(up)


def test_no_import_circle():
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for t in sorted(GRAPH.get(m, ())):
            if t not in MODULES or t == "__init__":
                continue
            if state.get(t) == 1:
                cycle = stack[stack.index(t):] + [t]
                pytest.fail("import circle: " + " -> ".join(cycle))
            if t not in state:
                visit(t)
        stack.pop()
        state[m] = 2

    for m in sorted(GRAPH):
        if m not in state and m != "__init__":
            visit(m)


def test_backend_layer_imports_nothing_from_the_namespace_layer():
    bad = [f"{m} -> {t}" for m, ts in GRAPH.items() if m.startswith("_backend")
           for t in ts if t in MODULES and floor(t) < BACKEND_FLOOR]
    assert not bad, bad


def _namespace_layer() -> list[str]:
    return [m for m in MODULES if not m.startswith("_backend")]


@pytest.mark.parametrize("mod", sorted(_namespace_layer()))
def test_namespace_layer_names_no_runtime_and_no_sycl_attribute(mod):
    tree = ast.parse(MODULES[mod].read_text())
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            bad += [a.name for a in node.names if a.name.split(".")[0] in RUNTIMES]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            if (node.module or "").split(".")[0] in RUNTIMES:
                bad.append(node.module)
        elif isinstance(node, ast.Name) and node.id in RUNTIMES:
            bad.append(node.id)
        elif isinstance(node, ast.Attribute) and node.attr in SYCL_ATTRIBUTES:
            bad.append(f".{node.attr} (line {node.lineno})")
        elif isinstance(node, ast.keyword) and node.arg == "sycl_queue":
            # the public keyword is accepted and resolved (_device.resolve); it is never
            # passed on to a kernel
            bad.append(f"sycl_queue= (line {node.value.lineno})")
    assert not bad, f"usmarray.{mod} names {bad}"


#: one room (package) per backend under _backend/; what they share lives beside them
BACKEND_ROOMS = ("_sycl", "_cuda", "_numpy")


def _room(mod: str) -> str | None:
    parts = mod.split(".")
    if parts[0] == "_backend" and len(parts) > 1 and parts[1] in BACKEND_ROOMS:
        return parts[1]
    return None


def test_every_backend_has_its_own_room():
    flat = [m for m in MODULES if m.startswith("_backend.") and _room(m) is None
            and any(k in m for k in ("sycl", "cuda", "onemkl", "cupy", "dpctl"))]
    assert not flat, f"backend-specific modules outside their room: {flat}"
    for room in BACKEND_ROOMS:
        assert f"_backend.{room}" in MODULES, f"_backend/{room}/ is missing"


def test_no_backend_room_imports_another():
    bad = [f"{m} -> {t}" for m, ts in GRAPH.items() for t in ts
           if _room(m) and _room(t) and _room(m) != _room(t)]
    assert not bad, "imports between backend rooms:\n" + "\n".join(bad)


def test_shared_backend_modules_import_no_room():
    # the registry (_backend/__init__.py) alone loads the rooms
    bad = [f"{m} -> {t}" for m, ts in GRAPH.items()
           if m.startswith("_backend.") and _room(m) is None
           for t in ts if _room(t)]
    assert not bad, "shared backend modules that import a backend's room:\n" + "\n".join(bad)
