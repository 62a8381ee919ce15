"""The docstrings of the public namespace state each function's contract.

Every public callable of ``usmarray``, ``usmarray.linalg``, ``usmarray.fft`` and
``usmarray.kernels`` has a NumPy-style docstring: a one-line summary, a Parameters
section naming exactly the parameters of its signature, and, for the standard's own
names, a link to the standard's page.  Each elementwise function says what it computes
(no two share a summary), and the dtype category and result dtype it states are the
ones it has.
"""

from __future__ import annotations

import inspect
import re
import types
from typing import Any

import numpy as np
import pytest

import usmarray as xp
from usmarray import _docstrings, _elementwise, fft, kernels, linalg

#: set-up hooks the package runs at import, left out of the API reference (mkdocs.yml)
NOT_API = {"configure_kernel_cache", "configure_opencl_icd"}

#: usmarray's own names, which have no page in the standard
OWN = {
    "usmarray": {"asnumpy", "Device", "DType", "ExecutionPlacementError",
                 "ImplicitConversionWarning", "register_backend", "set_default_device",
                 "using_device", "fuse"},
    "usmarray.linalg": {"EigResult", "EighResult", "HostFallbackWarning", "LinAlgError",
                        "QRResult", "SVDResult", "SlogdetResult"},
    "usmarray.fft": set(),
    "usmarray.kernels": set(kernels.__all__),
}
#: standard names whose page is not the one ``standard_url`` makes from the name
PAGES = {
    "usm_ndarray": "https://data-apis.org/array-api/2025.12/API_specification/array_object.html",
    "__array_namespace_info__": _docstrings.standard_url("info.__array_namespace_info__"),
}


def _public(mod: types.ModuleType) -> list[str]:
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [n for n in dir(mod)
                 if (not n.startswith("_") or n == "__array_namespace_info__")
                 and not isinstance(getattr(mod, n), types.ModuleType)
                 and n not in NOT_API]
    # the dtypes are callable only to refuse the call with a hint (``DType.__call__``)
    return sorted(n for n in names
                  if callable(getattr(mod, n)) and not isinstance(getattr(mod, n), xp.DType))


CALLABLES = [(mod, name) for mod in (xp, linalg, fft, kernels) for name in _public(mod)]


def _sections(doc: str) -> dict[str, str]:
    """NumPy-style sections of ``doc`` by title ("" for the text before the first)."""
    lines = inspect.cleandoc(doc).splitlines()
    out: dict[str, list[str]] = {"": []}
    title = ""
    for i, line in enumerate(lines):
        if i + 1 < len(lines) and re.fullmatch(r"-{3,}", lines[i + 1]) and line.strip():
            title = line.strip()
            out[title] = []
        elif not re.fullmatch(r"-{3,}", line):
            out[title].append(line)
    return {k: "\n".join(v).strip() for k, v in out.items()}


def _documented_parameters(section: str) -> list[str]:
    """The names of a Parameters section's items (``x1, x2 : type`` gives both)."""
    names = []
    for line in section.splitlines():
        m = re.match(r"^(\*{0,2}\w+(?:, \*{0,2}\w+)*)\s*:", line)
        if m:
            names += [n.lstrip("*") for n in m.group(1).split(", ")]
    return names


def _signature_parameters(obj: object) -> list[str] | None:
    """The parameter names a caller passes, or None for a class the user does not
    construct: an exception or warning, a result tuple, one whose docstring says it
    has no public constructor."""
    if inspect.isclass(obj) and (issubclass(obj, BaseException) or issubclass(obj, tuple)
                                 or "no public constructor" in " ".join(obj.__doc__.split())):
        return None
    return [p for p in inspect.signature(obj).parameters if p != "self"]


def _ids(pairs: list[tuple[types.ModuleType, str]]) -> list[str]:
    return [f"{m.__name__}.{n}" for m, n in pairs]


@pytest.mark.parametrize(("mod", "name"), CALLABLES, ids=_ids(CALLABLES))
def test_docstring_states_the_contract(mod: types.ModuleType, name: str) -> None:
    obj = getattr(mod, name)
    doc = obj.__doc__
    assert doc and doc.strip(), f"{mod.__name__}.{name} has no docstring"
    sections = _sections(doc)
    summary = sections[""].split("\n\n")[0]
    assert summary and summary.rstrip().endswith("."), f"{name}: summary {summary!r}"
    params = _signature_parameters(obj)
    if params:
        assert "Parameters" in sections, f"{name}: no Parameters section"
        assert _documented_parameters(sections["Parameters"]) == params, name
    if params is not None and not (inspect.isclass(obj) and mod is kernels):
        assert "Returns" in sections or "Yields" in sections or inspect.isclass(obj), (
            f"{name}: no Returns section")
    if name not in OWN[mod.__name__]:
        sub = mod.__name__.removeprefix("usmarray").lstrip(".")
        page = PAGES.get(name) or _docstrings.standard_url(f"{sub}.{name}" if sub else name)
        assert page in doc, f"{mod.__name__}.{name} does not link {page}"


def test_own_functions_are_not_the_standards() -> None:
    """The functions exempt from the link are usmarray's own: array-api-strict, the
    standard's reference namespace, has no function of their names (both have classes
    of their own, such as ``Device``, which the standard leaves to the library)."""
    strict = pytest.importorskip("array_api_strict")
    for modname, names in OWN.items():
        ref = strict
        for part in modname.split(".")[1:]:
            ref = getattr(strict, part, None)
        if ref is None:
            continue
        assert not {n for n in names if inspect.isfunction(getattr(ref, n, None))}, modname


ELEMENTWISE = {**_elementwise.UNARY, **_elementwise.BINARY}


def test_elementwise_summaries_differ() -> None:
    """No two elementwise functions share their docstring's summary, even with each
    function's own name taken out (a template that only names the function fails)."""
    names = sorted([*ELEMENTWISE, "clip"])
    summaries = {
        n: re.sub(rf"\b{n}\b", "NAME", _sections(getattr(xp, n).__doc__)[""].split("\n\n")[0])
        for n in names
    }
    seen: dict[str, str] = {}
    for n, s in summaries.items():
        assert s not in seen, f"{n} and {seen[s]} share the summary {s!r}"
        seen[s] = n


def test_elementwise_docstrings_name_their_own_math() -> None:
    """Each generated docstring is its function's row: its summary and no other's."""
    for name in ELEMENTWISE:
        if name == "divide":
            continue
        entry = (_docstrings.UNARY | _docstrings.BINARY)[name]
        doc = " ".join(getattr(xp, name).__doc__.split())
        assert doc.startswith(" ".join(entry.summary.split())), name
        assert _docstrings.standard_url(name) in doc, name
        assert (f"standard's page for ``{name}``" in doc) == (
            name in _docstrings.SPECIAL_CASES), name


_ALL_DTYPES = [xp.bool, xp.int8, xp.int16, xp.int32, xp.int64, xp.uint8, xp.uint16,
               xp.uint32, xp.uint64, xp.float32, xp.float64, xp.complex64, xp.complex128]


def _stated_category(doc: str) -> str:
    """The dtype category a docstring's first parameter states."""
    params = _sections(doc)["Parameters"]
    first = " ".join(re.split(r"\n(?=\S)", params)[0].split())
    found = [c for c, text in _docstrings.CATEGORY_DTYPES.items()
             if re.search(f"of {re.escape(text)}[.;]", first)]
    assert len(found) == 1, first
    return found[0]


def _in_category(dtype: object, category: str) -> bool:
    kinds = {"numeric": "numeric", "real numeric": ("integral", "real floating"),
             "floating-point": ("real floating", "complex floating"),
             "real floating-point": "real floating",
             "complex floating-point": "complex floating",
             "integer or boolean": ("integral", "bool"), "integer": "integral",
             "boolean": "bool"}
    return category == "any" or xp.isdtype(dtype, kinds[category])


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise_docstring_tells_the_accepted_dtypes(name: str) -> None:
    """Arrays of the dtypes the docstring's category names compute, with the result
    dtype its Returns section states; every other dtype is a TypeError.  The category
    check runs in the namespace before any backend, so the NumPy device answers for
    all."""
    fn = getattr(xp, name)
    doc = fn.__doc__
    unary = name in _elementwise.UNARY
    category = "floating-point" if name == "divide" else _stated_category(doc)
    returns = " ".join(_sections(doc)["Returns"].split())
    with np.errstate(all="ignore"):  # ones hit domain edges (atanh(1)); values don't matter
        _check_dtypes(name, fn, unary, category, returns)


def _check_dtypes(name: str, fn: Any, unary: bool, category: str, returns: str) -> None:
    for d in _ALL_DTYPES:
        x = xp.ones(3, dtype=d, device="numpy")
        if name == "divide" and xp.isdtype(d, "integral"):  # its documented own case
            assert fn(x, x).dtype == xp.float64
            continue
        if not _in_category(d, category):
            with pytest.raises(TypeError, match=name):
                fn(x) if unary else fn(x, x)
            continue
        r = fn(x) if unary else fn(x, x)
        if "A bool array" in returns:
            assert r.dtype == xp.bool, (name, d)
        elif "real floating dtype of ``x``'s precision" in returns and xp.isdtype(
                d, "complex floating"):
            assert r.dtype == (xp.float32 if d == xp.complex64 else xp.float64), (name, d)
        else:
            assert r.dtype == d, (name, d)


def test_api_reference_renders_generated_docstrings() -> None:
    """docs/api.md's generator (griffe, with the project's extension) documents the
    generated elementwise functions as functions carrying their own docstrings."""
    griffe = pytest.importorskip("griffe")
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    ext = griffe.load_extensions(str(root / "scripts" / "griffe_generated_functions.py"))
    pkg = griffe.load("usmarray", search_paths=[str(root)], extensions=ext,
                      docstring_parser="numpy")
    for name in ("add", "sqrt", "logical_not"):
        obj = pkg["_elementwise"][name]
        assert obj.is_function, name
        assert obj.docstring.value == inspect.cleandoc(getattr(xp, name).__doc__)
    assert pkg["__array_namespace_info__"].is_function
