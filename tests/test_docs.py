"""The code blocks of README.md and docs/*.md, run as a reader would run them.

Python blocks of one page run in order in one namespace, once on the SYCL device and
once with the NumPy host device as the default device (on a machine with a SYCL
device: the pages name it), with only the built-in backends registered.  A line that is
a single expression (or assignment) with a trailing comment shows what it gives, and
that is checked:

* ``expr  # TypeError: why`` must raise that exception (a builtin or a usmarray name);
  with elisions, ``# TypeError: ... quoted words ...``, its message must contain each
  quoted part;
* ``expr  # 'device'`` must give a value whose ``repr`` starts the comment, followed by
  nothing, a colon, a semicolon or a space and prose; ``...`` in it stands for any
  text, and alternatives are written ``# A, or B on the NumPy backend``.

An assignment's comment is prose unless it names an exception.  A block is marked for
the reader by the paragraph just above it (an HTML comment between is allowed):
``*Not run in CI: <reason>.*`` (not run), ``*SYCL devices only: <reason>.*`` (not run
on the NumPy pass) or ``*Run in a fresh process: <reason>.*`` (run alone in a new
interpreter, as a program that sets the environment before its imports must be).
Shell blocks are checked, not run: each ``python -m`` module must exist and accept
every long option the line gives it (or pass it to pytest, which must know it), each
``pip install`` extra must be in pyproject.toml, each ``make`` target in the Makefile,
each file and ``-m`` marker of a pytest command must exist.  TOML blocks must parse,
and a Markdown table row must belong to a table."""

from __future__ import annotations

import ast
import builtins
import importlib.util
import io
import re
import shlex
import subprocess
import sys
import tokenize
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

import usmarray as xp
from usmarray import _backend

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_MARK = re.compile(r"^\*(Not run in CI|SYCL devices only|Run in a fresh process): (.+)\.\*$")
_FENCE = re.compile(r"^(`{3,})(\w*)\s*$")


@dataclass
class Block:
    page: Path
    line: int  # 1-based line of the opening fence
    lang: str
    code: str
    mark: str | None  # "Not run in CI" | "SYCL devices only" | None
    reason: str | None


def blocks(page: Path) -> list[Block]:
    """The fenced code blocks of ``page`` with the marker line above each."""
    lines = page.read_text().splitlines()
    out: list[Block] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and lines[j].strip() != m.group(1):
            j += 1
        mark = reason = None
        k = i - 1
        while k >= 0 and (not lines[k].strip() or lines[k].lstrip().startswith("<!--")):
            k -= 1
        start = k  # the marker is the whole paragraph above the block
        while start > 0 and lines[start - 1].strip() and not _FENCE.match(lines[start - 1]):
            start -= 1
        para = " ".join(line.strip() for line in lines[start:k + 1]) if k >= 0 else ""
        mm = _MARK.match(para)
        if mm:
            mark, reason = mm.group(1), mm.group(2)
        out.append(Block(page, i + 1, m.group(2), "\n".join(lines[i + 1:j]), mark, reason))
        i = j + 1
    return out


ALL_BLOCKS = [b for p in PAGES for b in blocks(p)]


def test_every_block_has_a_language_and_every_mark_a_reason() -> None:
    bad = [f"{b.page.name}:{b.line}" for b in ALL_BLOCKS if not b.lang]
    assert not bad, f"code blocks without a language (```python, ```bash, ```text): {bad}"
    for b in ALL_BLOCKS:
        assert b.mark is None or len(b.reason or "") > 10, f"{b.page.name}:{b.line}: no reason"


# ---- Python blocks ------------------------------------------------------------------------

def _comments(src: str) -> dict[int, str]:
    """Line number (1-based) -> the text of the comment that ends that line."""
    out = {}
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type == tokenize.COMMENT:
            out[tok.start[0]] = tok.string[1:].strip()
    return out


def _error_class(shown: str, ns: dict) -> type[BaseException] | None:
    name = re.split(r"[:\s]", shown, maxsplit=1)[0]
    if not re.fullmatch(r"\w+(Error|Exception|Warning)", name):
        return None
    cls = getattr(builtins, name, None) or getattr(xp, name, None) or ns.get(name)
    if cls is None:  # e.g. dpctl's or NumPy's: compare by name below
        return type(name, (Exception,), {})
    return cls


def _quoted(shown: str) -> list[str]:
    """The parts of an error comment the page quotes from the message: with ``...``
    marking elisions (``TypeError: ... write sum(x, axis=0)``), every part between
    them; without, none (the words are the page's own)."""
    text = shown.split(":", 1)[1] if ":" in shown else ""
    if "..." not in text:
        return []
    return [part.strip() for part in text.split("...") if part.strip()]


def _matches(value: object, shown: str) -> bool:
    """Whether ``repr(value)`` begins ``shown`` (or one of its ", or " alternatives), up
    to whitespace and with ``...`` standing for any text, as in doctest's ELLIPSIS."""
    text = " ".join(repr(value).split())
    for alt in shown.split(", or "):
        alt = " ".join(alt.split())
        for end in range(len(alt), 0, -1):
            if end < len(alt) and alt[end] not in ":; ":
                continue
            pattern = ".*?".join(re.escape(part) for part in alt[:end].split("..."))
            if re.fullmatch(pattern, text):
                return True
    return False


def _run_statement(stmt: ast.stmt, comment: str | None, ns: dict, where: str) -> None:
    code = ast.Module(body=[stmt], type_ignores=[])
    err = _error_class(comment, ns) if comment else None
    if err is not None:
        try:
            exec(compile(code, where, "exec"), ns)
        except BaseException as exc:  # noqa: B902 - any exception is compared below
            names = {c.__name__ for c in type(exc).__mro__}
            assert isinstance(exc, err) or err.__name__ in names, (
                f"{where}: expected {err.__name__}, got {type(exc).__name__}: {exc}")
            for quoted in _quoted(comment):
                assert quoted in str(exc), (
                    f"{where}: the page quotes {quoted!r} from the message, which is: {exc}")
            return
        pytest.fail(f"{where}: the page shows {err.__name__}, but nothing was raised")
    if comment and isinstance(stmt, ast.Expr):
        value = eval(compile(ast.Expression(stmt.value), where, "eval"), ns)
        assert _matches(value, comment), (
            f"{where}: the page shows {comment!r}; the value is {value!r}")
        return
    exec(compile(code, where, "exec"), ns)


def run_python(block: Block, ns: dict) -> None:
    tree = ast.parse(block.code)
    comments = _comments(block.code)
    for stmt in tree.body:
        last = stmt.end_lineno or stmt.lineno
        comment = comments.get(last) if isinstance(stmt, (ast.Expr, ast.Assign)) else None
        where = f"{block.page.relative_to(ROOT)}:{block.line + stmt.lineno}"
        _run_statement(stmt, comment, ns, where)


def test_the_checker_refuses_what_a_page_gets_wrong() -> None:
    """The checks above can fail: wrong values, a missing error, a wrong error."""
    assert _matches((3, 2), "(3, 2): the shape") and _matches("device", "'device'")
    assert not _matches(2, "2.5") and not _matches((3, 2, 1), "(3, 2)")
    assert not _matches((3, 2), "(3, 2, 1)")
    assert _matches(xp.Device.create_device("numpy"), "Device(cpu), or Device(numpy) here")
    assert _matches("usm_ndarray([1.], dtype=float32)", "'usm_ndarray([1.]...)'")
    page = ROOT / "docs" / "quickstart.md"
    for code, complaint in [("1 + 1  # 3", "the page shows '3'"),
                            ("1 + 1  # TypeError: no", "nothing was raised"),
                            ("1 / 0  # TypeError: no", "expected TypeError, got ZeroDivision"),
                            ("1 / 0  # ZeroDivisionError: ... by nothing ...",
                             "quotes 'by nothing' from the message")]:
        with pytest.raises((AssertionError, pytest.fail.Exception), match=complaint):
            run_python(Block(page, 1, "python", code, None, None), {})


def _python_pages() -> list[Path]:
    return [p for p in PAGES if any(b.lang == "python" for b in blocks(p))]


@pytest.mark.parametrize("where", ["sycl", "numpy"])
@pytest.mark.parametrize("page", _python_pages(), ids=lambda p: p.name)
def test_python_blocks_run_and_show_what_they_give(page: Path, where: str, tmp_path,
                                                   monkeypatch) -> None:
    if _backend.sycl is None:  # the NumPy pass too: the pages name the SYCL CPU device
        pytest.skip("the pages are written for a machine with a SYCL device; none here")
    monkeypatch.chdir(tmp_path)  # examples may write files
    # the built-in backends only, as in a reader's fresh process (other tests register
    # theirs); a page may register one: it stays registered for that page only
    monkeypatch.setattr(_backend, "_REGISTRY", {n: be for n, be in _backend._REGISTRY.items()
                                                if n in ("sycl", "cuda", "numpy")})
    device = (xp.Device.create_device(_backend.sycl.default_queue()) if where == "sycl"
              else xp.Device.create_device("numpy"))
    ns: dict = {"__name__": "__main__"}
    ran = 0
    with xp.using_device(device), warnings.catch_warnings():
        # a doc example warns nobody (usmarray's own "ignore" filters still apply)
        warnings.filterwarnings("error", category=RuntimeWarning, append=True)
        for b in blocks(page):
            if b.lang != "python" or b.mark in ("Not run in CI", "Run in a fresh process"):
                continue
            if b.mark == "SYCL devices only" and where != "sycl":
                continue
            run_python(b, ns)
            ran += 1
    if ran == 0:
        pytest.skip(f"every Python block of {page.name} is marked for other devices")


def _imported_modules(code: str) -> set[str]:
    """The top-level packages a block imports."""
    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize(
    "block", [b for b in ALL_BLOCKS if b.mark == "Run in a fresh process"],
    ids=lambda b: f"{b.page.name}:{b.line}")
def test_fresh_process_blocks_run_and_show_what_they_give(block: Block, tmp_path) -> None:
    """A block that needs a process of its own (cubed picks its backend at import) runs,
    with its shown values checked, in a new interpreter; one that imports a package this
    install lacks (cubed, scikit-learn in a base install) skips, naming it."""
    missing = sorted(m for m in _imported_modules(block.code) if importlib.util.find_spec(m) is None)
    if missing:
        pytest.skip(f"{block.page.name}:{block.line} imports {', '.join(missing)}, not installed here")
    script = (f"import sys; sys.path.insert(0, {str(ROOT / 'tests')!r})\n"
              "from pathlib import Path\n"
              "from test_docs import blocks, run_python\n"
              f"b = [b for b in blocks(Path({str(block.page)!r})) if b.line == {block.line}][0]\n"
              "run_python(b, {'__name__': '__main__'})\n")
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                       timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]


# ---- shell and TOML blocks ----------------------------------------------------------------

def _pyproject_extras() -> set[str]:
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return set(data["project"]["optional-dependencies"])


_HELP: dict[str, str] = {}


def _module_help(module: str) -> str:
    if module not in _HELP:
        r = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True,
                           text=True, timeout=120, cwd=ROOT)
        _HELP[module] = r.stdout + r.stderr
    return _HELP[module]


def _commands(code: str) -> list[list[str]]:
    """Each command of a shell block, as words, without environment assignments."""
    text = re.sub(r"\\\n", " ", code)
    out = []
    for line in text.splitlines():
        line = line.split(" #")[0].strip()
        if not line or line.startswith("#"):
            continue
        for part in re.split(r"&&|;|\|(?!\|)|&$", line):
            words = shlex.split(part.strip().rstrip("&").strip(), comments=True)
            while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", words[0]):
                words.pop(0)
            if words and words[0] == "export":
                continue
            if words:
                out.append(words)
    return out


def check_command(words: list[str], where: str) -> None:
    if words[0] == "python" and words[1:2] == ["-m"]:
        module, args = words[2], words[3:]
        if module == "pytest":
            for a in args:
                if not a.startswith("-") and ("/" in a or a.endswith(".py")):
                    assert (ROOT / a.split("::")[0]).exists(), f"{where}: no file {a}"
            if "-m" in args:
                marker = args[args.index("-m") + 1]
                ini = (ROOT / "pyproject.toml").read_text()
                assert f'"{marker}:' in ini, f"{where}: no pytest marker {marker!r}"
            if any(a.startswith("--numprocesses") or a == "-n" for a in args):
                pytest.importorskip("xdist", reason="--numprocesses needs pytest-xdist")
            return
        if module == "mkdocs":
            return
        helptext = _module_help(module)
        if re.search(r"No module named '(cupy|torch)'", helptext):
            return  # a GPU command: its module needs CuPy or PyTorch, which CI lacks
        assert "usage" in helptext.lower(), f"{where}: python -m {module} --help: {helptext[-500:]}"
        for a in args:
            if a.startswith("--"):
                opt = a.split("=")[0]
                if opt not in helptext and "passed to pytest" in helptext:
                    assert opt in _module_help("pytest"), (
                        f"{where}: neither python -m {module} nor pytest (with the plugins "
                        f"of the test extra) has the option {opt}")
                    continue
                assert opt in helptext, f"{where}: python -m {module} has no option {opt}"
        return
    if words[0] == "pip" and words[1:2] == ["install"]:
        extras = _pyproject_extras()
        for a in words[2:]:
            if not a.startswith((".", "usmarray[")):
                continue  # another package's extras (cupy-cuda12x[ctk])
            for name in re.findall(r"\[([\w,-]+)\]", a):
                for e in name.split(","):
                    assert e in extras, f"{where}: pyproject.toml has no extra {e!r}"
        return
    if words[0] == "make":
        targets = re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(), re.M)
        for t in words[1:]:
            if "=" not in t:
                assert t in targets, f"{where}: the Makefile has no target {t!r}"


@pytest.mark.parametrize(
    "block", [b for b in ALL_BLOCKS if b.lang in ("bash", "sh", "toml")],
    ids=lambda b: f"{b.page.name}:{b.line}")
def test_shell_and_toml_blocks_name_what_exists(block: Block) -> None:
    where = f"{block.page.relative_to(ROOT)}:{block.line}"
    if block.lang == "toml":
        import tomllib

        tomllib.loads(block.code)
        return
    for words in _commands(block.code):
        check_command(words, where)


def test_the_shell_checker_refuses_what_does_not_exist() -> None:
    for words, complaint in [
        (["python", "-m", "conformance", "--no-such-option"], "has the option --no-such"),
        (["pip", "install", "-e", ".[nosuchextra]"], "no extra 'nosuchextra'"),
        (["pip", "install", "usmarray[sycl,nosuch]"], "no extra 'nosuch'"),
        (["make", "nosuchtarget"], "no target 'nosuchtarget'"),
        (["python", "-m", "pytest", "tests/test_nosuchfile.py"], "no file"),
        (["python", "-m", "pytest", "-m", "nosuchmarker"], "no pytest marker"),
    ]:
        with pytest.raises(AssertionError, match=complaint):
            check_command(words, "here")
    assert _commands("A=1 python -m x --y \\\n  --z && make docs  # note") == [
        ["python", "-m", "x", "--y", "--z"], ["make", "docs"]]


def test_tables_are_tables() -> None:
    """A table row after a blank line starts a table, so the next line must be its
    separator row; otherwise Markdown shows the row as text with literal pipes."""
    bad = []
    for page in PAGES:
        lines = page.read_text().splitlines()
        in_code = False
        for i, line in enumerate(lines):
            if _FENCE.match(line):
                in_code = not in_code
            if in_code or not line.startswith("|") or (i and lines[i - 1].strip()):
                continue
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            if not (re.fullmatch(r"[|:\- ]+", nxt) and "---" in nxt):
                bad.append(f"{page.name}:{i + 1}")
    assert not bad, f"table rows outside a table (a blank line before them?): {bad}"


def test_the_table_check_finds_a_row_cut_off_by_a_blank_line(tmp_path, monkeypatch) -> None:
    page = tmp_path / "page.md"
    page.write_text("| a | b |\n| --- | --- |\n| 1 | 2 |\n\n| 3 | 4 |\n")
    monkeypatch.setattr(sys.modules[__name__], "PAGES", [page])
    with pytest.raises(AssertionError, match=r"page\.md:5"):
        test_tables_are_tables()


def test_every_page_is_in_the_index_and_the_site() -> None:
    """docs/index.md links every page of docs/, and mkdocs.yml's nav names each one."""
    pages = {p.name for p in (ROOT / "docs").glob("*.md")} - {"index.md"}
    index = set(re.findall(r"\]\(([\w-]+\.md)(?:#[\w-]*)?\)", (ROOT / "docs" / "index.md").read_text()))
    nav = set(re.findall(r":\s*([\w-]+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(), re.M))
    assert not pages - index, f"docs/index.md does not link {sorted(pages - index)}"
    assert not pages - nav, f"mkdocs.yml's nav lacks {sorted(pages - nav)}"
