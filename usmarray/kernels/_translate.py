"""The body translator: the seed's syntax into plain C, target types and bounds mode given.

- ``x(e0, e1)`` (``x`` an array parameter) becomes ``x[(e0) * _uk_x_s0 + (e1) * _uk_x_s1]``
  with the array's real strides in elements (the pointer already moved to the view's
  first element), wrapped for the bounds mode: ``"clamp"`` clamps each index into the
  axis, ``"check"`` calls a helper that records the first out-of-range index and
  redirects the access to a scratch cell.  Accesses nest (``x(y(i0), i1)``).
- ``x.shape[k]`` becomes ``_uk_x_n{k}`` (a constant where the signature fixes the size,
  a kernel argument where it is ``:``); ``x.ndim`` its rank.
- dtype names (``float32``, ``int64``, ...) become the target's C types.

The translator also records each access's index forms (``iK``, ``iK + c``, a constant,
or anything else), for the bounds analysis, and which arrays the body writes.  Misuse
(a bare array name, a wrong number of indices, ``return``, a reserved name, the
address of an access) is a :class:`KernelSyntaxError` naming the place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ._errors import KernelSyntaxError
from ._signature import KERNEL_DTYPES, RESERVED_PREFIX, Param

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<str>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<num>0[xX][0-9a-fA-F]+[uUlL]*|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fFuUlL]*)
  | (?P<id>[A-Za-z_]\w*)
  | (?P<op>->|\+\+|--|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|\S)
    """,
    re.S | re.X,
)
_ASSIGN = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--"})
_INT = re.compile(r"(\d+)[uUlL]*\Z")
_IVAR = re.compile(r"i(\d+)\Z")


@dataclass(frozen=True)
class Tok:
    kind: str
    text: str
    pos: int


def tokenize(body: str) -> list[Tok]:
    toks = []
    pos = 0
    while pos < len(body):
        m = _TOKEN.match(body, pos)
        if m is None:  # pragma: no cover - the op branch matches any non-space
            raise KernelSyntaxError(f"kernel body: cannot read {body[pos:pos + 20]!r}")
        kind = m.lastgroup or "op"
        if kind == "comment" and m.group().startswith("/*") and not m.group().endswith("*/"):
            raise KernelSyntaxError("kernel body: unterminated /* comment")
        toks.append(Tok(kind, m.group(), pos))
        pos = m.end()
    return toks


#: an index form: ("var", axis, offset) for ``iK + c``, ("const", c), or ("other",)
Form = tuple


@dataclass
class Access:
    array: str
    site: int
    text: str
    forms: tuple[Form, ...]


@dataclass
class Translation:
    code: str
    accesses: list[Access] = field(default_factory=list)
    written: set[str] = field(default_factory=set)
    uses_fp64: bool = False


def _index_form(toks: list[Tok], ndim: int) -> Form:
    t = [x for x in toks if x.kind not in ("ws", "comment")]
    texts = [x.text for x in t]

    def ivar(s: str) -> int | None:
        m = _IVAR.match(s)
        return int(m.group(1)) if m and int(m.group(1)) < ndim else None

    if len(t) == 1:
        if ivar(texts[0]) is not None:
            return ("var", ivar(texts[0]), 0)
        m = _INT.match(texts[0])
        if m:
            return ("const", int(m.group(1)))
    if len(t) == 3 and texts[1] in ("+", "-"):
        k = ivar(texts[0])
        m = _INT.match(texts[2])
        if k is not None and m:
            c = int(m.group(1))
            return ("var", k, c if texts[1] == "+" else -c)
        k = ivar(texts[2])
        m = _INT.match(texts[0])
        if k is not None and m and texts[1] == "+":
            return ("var", k, int(m.group(1)))
    return ("other",)


class _Translator:
    def __init__(self, params: tuple[Param, ...], ndim: int, types: dict[str, str],
                 bounds: str, body: str) -> None:
        self.arrays = {p.name: p for p in params if p.is_array}
        self.ndim = ndim
        self.types = types
        self.bounds = bounds
        self.body = body
        self.out = Translation("")

    def fail(self, tok: Tok | None, msg: str) -> KernelSyntaxError:
        if tok is None:
            return KernelSyntaxError(f"kernel body: {msg}")
        line = self.body.count("\n", 0, tok.pos) + 1
        return KernelSyntaxError(f"kernel body, line {line}: {msg}")

    @staticmethod
    def _next(toks: list[Tok], i: int) -> int:
        while i < len(toks) and toks[i].kind in ("ws", "comment"):
            i += 1
        return i

    @staticmethod
    def _prev(toks: list[Tok], i: int) -> Tok | None:
        i -= 1
        while i >= 0 and toks[i].kind in ("ws", "comment"):
            i -= 1
        return toks[i] if i >= 0 else None

    def run(self, toks: list[Tok]) -> str:
        parts: list[str] = []
        i = 0
        while i < len(toks):
            t = toks[i]
            if t.kind == "id":
                prev = self._prev(toks, i)
                member = prev is not None and prev.text in (".", "->")
                if t.text in self.arrays and not member:
                    text, i = self._array_use(toks, i)
                    parts.append(text)
                    continue
                if not member:
                    self._check_ident(t)
                    if t.text in ("float64", "double"):
                        self.out.uses_fp64 = True
                    parts.append(self.types.get(t.text, t.text))
                else:
                    parts.append(t.text)
            elif t.kind != "comment":
                parts.append(t.text)
            i += 1
        return "".join(parts)

    def _check_ident(self, t: Tok) -> None:
        if t.text.startswith(RESERVED_PREFIX):
            raise self.fail(t, f"names starting with {RESERVED_PREFIX!r} are reserved ({t.text})")
        if t.text == "return":
            raise self.fail(
                t, "'return' is not allowed (the body may run inside loops over serial "
                "axes); use 'continue' to skip the rest of the body for this index"
            )
        m = _IVAR.match(t.text)
        if m and int(m.group(1)) >= self.ndim:
            raise self.fail(
                t, f"{t.text} is not an index variable of the {self.ndim}-D iteration "
                f"space (i0 .. i{self.ndim - 1}); names i<N> are reserved"
            )

    def _array_use(self, toks: list[Tok], i: int) -> tuple[str, int]:
        t = toks[i]
        name = t.text
        p = self.arrays[name]
        j = self._next(toks, i + 1)
        if j < len(toks) and toks[j].text == ".":
            k = self._next(toks, j + 1)
            attr = toks[k].text if k < len(toks) else ""
            if attr == "ndim":
                return str(p.ndim), k + 1
            if attr == "shape":
                b = self._next(toks, k + 1)
                n = self._next(toks, b + 1)
                e = self._next(toks, n + 1)
                if (b < len(toks) and toks[b].text == "[" and n < len(toks)
                        and _INT.match(toks[n].text) and e < len(toks) and toks[e].text == "]"):
                    d = int(_INT.match(toks[n].text).group(1))  # type: ignore[union-attr]
                    if d >= p.ndim:
                        raise self.fail(t, f"{name}.shape[{d}]: {name} has {p.ndim} axes")
                    return f"_uk_{name}_n{d}", e + 1
                raise self.fail(t, f"{name}.shape must be indexed by an integer literal: "
                                   f"{name}.shape[0]")
            raise self.fail(t, f"{name}.{attr} is not supported; use {name}(i, ...), "
                               f"{name}.shape[k] or {name}.ndim")
        if j >= len(toks) or toks[j].text != "(":
            raise self.fail(t, f"the array {name} must be indexed as {name}("
                               + ", ".join(f"i{k}" for k in range(p.ndim)) + ")")
        # the arguments up to the matching parenthesis, split at top-level commas
        depth, k = 0, j
        args: list[list[Tok]] = []
        cur: list[Tok] = []
        while True:
            k += 1
            if k >= len(toks):
                raise self.fail(t, f"unbalanced parentheses after {name}(")
            s = toks[k].text
            if toks[k].kind == "op" and s in "([{":
                depth += 1
            elif toks[k].kind == "op" and s in ")]}":
                if depth == 0 and s == ")":
                    break
                depth -= 1
            if s == "," and depth == 0 and toks[k].kind == "op":
                args.append(cur)
                cur = []
            else:
                cur.append(toks[k])
        args.append(cur)
        end = k + 1
        if len(args) != p.ndim or any(not [x for x in a if x.kind not in ("ws", "comment")]
                                       for a in args):
            raise self.fail(t, f"{name} has {p.ndim} axes and needs {p.ndim} indices, got "
                               f"{name}({''.join(x.text for x in toks[j + 1:k])})")
        site = len(self.out.accesses)
        text = name + "(" + "".join(x.text for x in toks[j + 1:k]) + ")"
        forms = tuple(_index_form(a, self.ndim) for a in args)
        self.out.accesses.append(Access(name, site, " ".join(text.split()), forms))
        idx = [self.run(a).strip() for a in args]
        # written? (assignment after, or ++/-- before)
        after = self._next(toks, end)
        before = self._prev(toks, i)
        if (after < len(toks) and toks[after].kind == "op" and toks[after].text in _ASSIGN) or (
                before is not None and before.text in ("++", "--")):
            self.out.written.add(name)
        if before is not None and before.text == "&":
            bb = self._prev(toks, toks.index(before))
            if bb is None or (bb.kind == "op" and bb.text not in (")", "]")) or bb.text == "return":
                raise self.fail(t, f"taking the address of {text} is not supported: pointers "
                                   "escape the factory's index arithmetic and bounds modes; "
                                   "index the array instead")
        return self._access(name, idx, site), end

    def _access(self, name: str, idx: list[str], site: int) -> str:
        if self.bounds == "check":
            args = ", ".join(f"(_uk_i)({e})" for e in idx)
            return f"(*_uk_at_{name}({name}, {args}, {site}))"
        terms = []
        for d, e in enumerate(idx):
            if self.bounds == "clamp":
                e = f"_uk_clamp((_uk_i)({e}), _uk_{name}_n{d})"
            else:
                e = f"(_uk_i)({e})"
            terms.append(f"{e} * _uk_{name}_s{d}")
        return f"{name}[{' + '.join(terms)}]"


def translate(body: str, params: tuple[Param, ...], ndim: int, types: dict[str, str],
              bounds: str) -> Translation:
    """Translate ``body`` for an ``ndim``-D iteration space; ``types`` maps dtype names to
    the target's C types; ``bounds`` is the bounds mode."""
    tr = _Translator(params, ndim, types, bounds, body)
    code = tr.run(tokenize(body))
    tr.out.code = code
    if any(p.dtype == KERNEL_DTYPES["float64"] for p in params):
        tr.out.uses_fp64 = True
    return tr.out
