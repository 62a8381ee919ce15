"""The body translator: the seed's syntax into plain C, target types and bounds mode given.

- ``x(e0, e1)`` (``x`` an array parameter) becomes ``x[(e0) * _uk_x_s0 + (e1) * _uk_x_s1]``
  with the array's real strides in elements (the pointer already moved to the view's
  first element), wrapped for the bounds mode: ``"clamp"`` clamps each index into the
  axis, ``"check"`` calls a helper that records the first out-of-range index and
  redirects the access to a scratch cell.  Accesses nest (``x(y(i0), i1)``).
- ``x.shape[k]`` becomes ``_uk_x_n{k}`` (a constant where the signature fixes the size,
  a kernel argument where it is ``:``); ``x.ndim`` its rank.
- dtype names (``float32``, ``int64``, ...) become the target's C types.

- an index variable ``iK`` becomes ``(+_uk_ixK)``, a value that cannot be assigned,
  declared again or have its address taken, so it always holds the point's index.
- a store into a bool array stores ``!!(value)``: 0 or 1 (compound assignments
  ``z(i) op= v`` store ``!!(z(i) op (v))``).
- the counter ``j`` of a loop ``for (T j = 0; j < x.shape[k]; j++)`` whose body only
  reads it (:func:`find_loops`) runs as a hidden counter, read in the body as a value
  of type ``T`` (see :func:`translate`).

The translator also records each access's index forms (``iK``, ``iK + c``, a constant,
or anything else), for the bounds analysis, and which arrays the body writes.  Misuse
is a :class:`KernelSyntaxError` naming the place: a bare array name, a wrong number of
indices, ``return``, a reserved name, an assignment or declaration of an index
variable, ``++``/``--`` on a bool array; no pointer is ever formed from the body: the
address-of operator ``&``, pointer declarators, casts and dereferences, builtins that
take a pointer and printf's pointer conversions are refused; so is what would hide
code from this translator or form types it cannot follow (preprocessor directives
other than ``#pragma``, line splices, digraphs and trigraphs, ``typedef``,
``struct``/``union``/``enum``, C++ casts and declarations, ``asm``, names starting
with ``__``).
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
#: words that name a type or qualify one: an ``&`` after one is a declarator or a cast's
_TYPE_WORDS = frozenset("""
    bool char short int long float double half void signed unsigned const volatile
    restrict static register auto extern inline uchar ushort uint ulong size_t ptrdiff_t
    global local constant private __global __local __constant __private
""".split()) | frozenset(KERNEL_DTYPES)
#: keywords after which an ``&`` is a unary operator (an operand starts there)
_OPERAND_KEYWORDS = frozenset({"return", "sizeof", "case", "else", "do"})
#: words the body may not use: they form types or code this translator cannot follow
_REFUSED_WORDS = {
    "typedef": "type definitions", "struct": "struct types", "union": "union types",
    "enum": "enum types", "class": "C++ classes", "template": "C++ templates",
    "typename": "C++ templates", "using": "C++ declarations", "namespace": "C++ namespaces",
    "operator": "C++ operators", "decltype": "C++ declarations", "new": "C++ allocation",
    "delete": "C++ allocation", "this": "C++ classes", "asm": "inline assembly",
    "reinterpret_cast": "C++ casts", "const_cast": "C++ casts",
    "static_cast": "C++ casts", "dynamic_cast": "C++ casts",
}
#: builtins of OpenCL C and CUDA that take a pointer (the null pointer constant 0 is
#: one): they would read or write memory the factory does not see
_POINTER_BUILTINS = re.compile(
    r"(?:v(?:load|store)a?(?:_half)?\d*(?:_rt[enzp])?|atomic\w*|atom_\w+|async_\w+"
    r"|wait_group_events|prefetch|fract|frexp|lgamma_r|modf|remquo|sincos"
    r"|to_(?:global|local|private)|mem(?:cpy|set|move|cmp)|malloc|free|alloca)\Z"
)
#: printf conversions that read or write through a pointer argument
_PRINTF_POINTERS = re.compile(r"%[-+ #0-9.*]*(?:hh|h|ll|l|L|q|j|z|t)?[snp]")


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


#: an index form: ("var", axis, offset) for ``iK + c``, ("const", c), ("loop", array,
#: axis, largest value of the counter's type) for the counter of a loop
#: ``for (T j = 0; j < array.shape[axis]; j++)``, or ("other",)
Form = tuple

#: the counter types of an inferred loop, and the largest value each holds
_COUNTER_MAX = {
    "int8": 2**7 - 1, "uint8": 2**8 - 1, "int16": 2**15 - 1, "uint16": 2**16 - 1,
    "int32": 2**31 - 1, "uint32": 2**32 - 1, "int64": 2**63 - 1, "uint64": 2**64 - 1,
    "int": 2**31 - 1, "unsigned": 2**32 - 1, "long": 2**63 - 1,
}


@dataclass(frozen=True)
class Loop:
    """A loop the bounds analysis understands: ``for (T j = 0; j < a.shape[k]; j++)``
    (or ``++j``, ``j += 1``) whose body (from ``start`` to ``end``, source positions)
    only reads ``j`` (see :func:`_reads_only`): there ``j`` runs over 0 ..
    ``a.shape[k] - 1`` (when ``T`` holds that size: checked per call).  ``header``: the
    positions of the header's type and of its three ``j`` tokens (the modes that rely
    on the loop emit a hidden counter there, see :func:`translate`)."""

    var: str
    start: int
    end: int
    array: str
    axis: int
    max_value: int
    ctype: str = "int64"
    header: tuple[int, ...] = ()


#: binary operators: a counter next to one is an operand of an expression, a value
_BINARY = frozenset({"+", "-", "*", "/", "%", "<", ">", "<=", ">=", "==", "!=", "&&",
                     "||", "&", "|", "^", "<<", ">>"})
#: what may stand before a counter that is read, and after it
_READ_PREV = _BINARY | (_ASSIGN - {"++", "--"}) | {"!", "~", "(", "[", ",", ";", "{", "}"}
_READ_NEXT = _BINARY | {")", "]", ",", ";"}
#: words before ``(`` that make the group a condition, not an expression of its own
_CONTROL = frozenset({"if", "while", "for", "switch"})
#: words before a name that make it start a statement (where ``name(j)`` may declare j)
_STATEMENT_START = frozenset({";", "{", "}", ")", "else", "do", ":"})
#: callees known to be functions (a name that could be a type may declare ``T (j);``)
_KNOWN_CALLS = frozenset({"printf"})


def _group_kinds(sig: list[Tok], arrays: dict[str, Param]) -> list[str | None]:
    """Per token, the kind of the innermost bracket around it (None at the top level):
    "access" (``x(...)`` of an array), "call" (``f(...)`` of a function that cannot be a
    type declaring its argument), "control" (``if (...)``, ``while (...)``, ...),
    "subscript" (``t[...]``), "block" (``{...}``) or "group" (anything else: a
    parenthesised expression, a cast, a declarator)."""
    kinds: list[str | None] = []
    stack: list[str] = []
    for k, t in enumerate(sig):
        if t.text in (")", "]", "}") and t.kind == "op" and stack:
            stack.pop()
        kinds.append(stack[-1] if stack else None)
        if t.kind != "op" or t.text not in ("(", "[", "{"):
            continue
        if t.text == "[":
            stack.append("subscript")
            continue
        if t.text == "{":
            stack.append("block")
            continue
        p = sig[k - 1] if k > 0 else None
        pp = sig[k - 2].text if k > 1 else ";"
        if p is None or p.kind != "id":
            stack.append("group")
        elif p.text in arrays and pp not in (".", "->"):
            stack.append("access")
        elif p.text in _CONTROL:
            stack.append("control")
        elif p.text in _KNOWN_CALLS or not (
                p.text in _TYPE_WORDS or pp in _STATEMENT_START or p.text in _REFUSED_WORDS
                or p.text in ("return", "sizeof", "case", "else", "do", "goto")):
            stack.append("call")
        else:
            stack.append("group")
    return kinds


def _reads_only(body: list[Tok], var: str, arrays: dict[str, Param]) -> bool:
    """Whether every use of the counter ``var`` in ``body`` (significant tokens) is a
    read that C and C++ cannot make into a write or a declaration: an allow-list, so
    whatever it does not recognise (``(j) += 1``, ``(0, j) = 1``, ``c ? j : k``,
    ``int64 k, j;``, ``int64 (j)``, ``int64_t j``, ...) makes the loop unproven.

    A use (with the parentheses that hold only it: ``(j)``, ``((j))``) is accepted
    when what precedes it is an operator, an opening bracket, a separator or a
    statement's end, what follows it is a binary operator, a closing bracket, ``,`` or
    ``;``, and, where it stands alone between separators (``f(j)``, ``, j,``), the
    bracket around it is an array access, a function call or a condition, whose
    arguments are values."""
    kinds = _group_kinds(body, arrays)
    for k, t in enumerate(body):
        if t.text != var or t.kind != "id":
            continue
        if k > 0 and body[k - 1].text in (".", "->"):
            continue  # a member of that name, not the counter
        lo, hi = k, k  # a parenthesised group that holds only the counter stands for it
        while (lo > 0 and body[lo - 1].text == "(" and hi + 1 < len(body)
               and body[hi + 1].text == ")" and kinds[lo] == "group"):
            lo, hi = lo - 1, hi + 1
        prv = body[lo - 1].text if lo > 0 else ";"
        nxt = body[hi + 1].text if hi + 1 < len(body) else ";"
        if prv not in _READ_PREV or nxt not in _READ_NEXT:
            return False
        alone = prv in ("(", ",", ";", "{", "}") and nxt in (")", ",", ";", "]")
        if not alone:
            continue  # an operand of an operator next to it: a value
        kind = kinds[lo]
        if kind in ("access", "call", "control"):
            continue
        if kind in (None, "block") and prv in (";", "{", "}") and nxt == ";":
            continue  # a statement of its own: j;
        return False
    return True


def _statement_end(sig: list[Tok], b: int) -> int | None:
    """The index of the last token of the statement that starts at ``sig[b]`` (a block,
    ``if``/``else``, ``for``, ``while``, ``do``/``while`` or one up to its ``;``), or None
    when the body ends first."""
    if b >= len(sig):
        return None
    t = sig[b].text

    def close(k: int) -> int | None:  # the bracket closing the one at sig[k]
        depth = 0
        for e in range(k, len(sig)):
            x = sig[e].text
            if sig[e].kind == "op" and x in ("(", "[", "{"):
                depth += 1
            elif sig[e].kind == "op" and x in (")", "]", "}"):
                depth -= 1
                if depth == 0:
                    return e
        return None

    if t == "{":
        return close(b)
    if t in ("if", "while", "for", "switch"):
        if b + 1 >= len(sig) or sig[b + 1].text != "(":
            return None
        c = close(b + 1)
        e = _statement_end(sig, c + 1) if c is not None else None
        if t == "if" and e is not None and e + 1 < len(sig) and sig[e + 1].text == "else":
            e = _statement_end(sig, e + 2)
        return e
    if t == "do":
        e = _statement_end(sig, b + 1)
        if e is None or e + 1 >= len(sig) or sig[e + 1].text != "while":
            return None
        c = close(e + 2) if e + 2 < len(sig) and sig[e + 2].text == "(" else None
        return c + 1 if c is not None and c + 1 < len(sig) and sig[c + 1].text == ";" else None
    depth = 0
    for e in range(b, len(sig)):
        x = sig[e].text
        if sig[e].kind == "op" and x in ("(", "[", "{"):
            depth += 1
        elif sig[e].kind == "op" and x in (")", "]", "}"):
            depth -= 1
            if depth < 0:
                return None
        elif x == ";" and depth == 0:
            return e
    return None


def find_loops(toks: list[Tok], arrays: dict[str, Param]) -> list[Loop]:
    """The loops of ``toks`` of the form :class:`Loop` describes; none in a body with
    ``goto`` or ``switch`` (which can jump into a loop past its header)."""
    sig = [t for t in toks if t.kind not in ("ws", "comment")]
    texts = [t.text for t in sig]
    if "goto" in texts or "switch" in texts:
        return []
    loops = []
    for i, t in enumerate(sig):
        if t.text != "for":
            continue
        h = texts[i + 1:i + 20]
        if len(h) < 18 or h[0] != "(" or h[1] not in _COUNTER_MAX:
            continue
        var = h[2]
        if (not re.fullmatch(r"[A-Za-z_]\w*", var) or var in arrays or _IVAR.match(var)
                or h[3:6] != ["=", "0", ";"] or h[6] != var or h[7] != "<"
                or h[8] not in arrays or h[9:12] != [".", "shape", "["]
                or not _INT.match(h[12]) or h[13:15] != ["]", ";"]):
            continue
        inc = h[15:18]
        if inc[:2] == [var, "++"] and inc[2] == ")":
            close, at = i + 1 + 17, 15
        elif inc[:2] == ["++", var] and inc[2] == ")":
            close, at = i + 1 + 17, 16
        elif h[15:19] == [var, "+=", "1", ")"]:
            close, at = i + 1 + 18, 15
        else:
            continue
        b = close + 1
        e = _statement_end(sig, b)
        if e is None or not _reads_only(sig[b:e + 1], var, arrays):
            continue
        array = h[8]
        axis = int(_INT.match(h[12]).group(1))  # type: ignore[union-attr]
        if axis >= arrays[array].ndim:
            continue
        header = (sig[i + 2].pos, sig[i + 3].pos, sig[i + 7].pos, sig[i + 1 + at].pos)
        loops.append(Loop(var, sig[b].pos, sig[e].pos + 1, array, axis, _COUNTER_MAX[h[1]],
                          h[1], header))
    return loops


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
                 bounds: str, body: str, intrinsics: frozenset[str] = frozenset()) -> None:
        self.arrays = {p.name: p for p in params if p.is_array}
        self.intrinsics = intrinsics
        self.loops: list[Loop] = []
        #: source position -> replacement text (the hidden loop counters, see translate)
        self.renamed: dict[int, str] = {}
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

    @staticmethod
    def _prev_index(toks: list[Tok], i: int) -> int:
        i -= 1
        while i >= 0 and toks[i].kind in ("ws", "comment"):
            i -= 1
        return i

    def run(self, toks: list[Tok]) -> str:
        parts: list[str] = []
        i = 0
        while i < len(toks):
            t = toks[i]
            if t.kind == "id" and t.pos in self.renamed:
                parts.append(self.renamed[t.pos])
            elif t.kind == "id":
                prev = self._prev(toks, i)
                member = prev is not None and prev.text in (".", "->")
                if t.text in self.arrays and not member:
                    text, i = self._array_use(toks, i)
                    parts.append(text)
                    continue
                if not member:
                    self._check_ident(t)
                    k = self._index_var(toks, i)
                    if k is not None:
                        parts.append(f"(+_uk_ix{k})")
                    else:
                        if t.text in ("float64", "double"):
                            self.out.uses_fp64 = True
                        parts.append(self.types.get(t.text, t.text))
                else:
                    parts.append(t.text)
            elif t.kind == "op" and t.text in ("&", "&&") and self._unary(toks, i):
                raise self.fail(
                    t, f"the address-of operator {t.text} is not supported: a pointer would "
                    "escape the factory's index checks and bounds modes (index the arrays "
                    "instead; if this is a bitwise and, its left operand is missing or "
                    "looks like a type)"
                )
            elif t.kind == "op" and t.text == "*" and self._pointer_star(toks, i):
                raise self.fail(
                    t, "pointer declarations, pointer casts and dereferences are not "
                    "supported: a pointer would escape the factory's index checks and "
                    "bounds modes (index the arrays instead; if this is a multiplication, "
                    "write it inside an expression, e.g. t = a * b;)"
                )
            elif t.kind != "comment":
                parts.append(t.text)
            i += 1
        return "".join(parts)

    def _unary(self, toks: list[Tok], i: int) -> bool:
        """Whether the ``&`` at ``toks[i]`` can be a unary operator (or a declarator):
        True unless what precedes it ends an operand for certain."""
        j = self._prev_index(toks, i)
        if j < 0:
            return True
        p = toks[j]
        if p.kind in ("num", "str"):
            return False
        if p.kind == "id":
            return p.text in _TYPE_WORDS or p.text in _OPERAND_KEYWORDS
        if p.text in ("]", "++", "--"):
            return False
        if p.text != ")":
            return True
        # ")": a cast (only type words and "*" inside) makes the & unary
        depth = 0
        inner: list[str] = []
        for k in range(j - 1, -1, -1):
            s = toks[k].text
            if toks[k].kind in ("ws", "comment"):
                continue
            if s == ")":
                depth += 1
            elif s == "(":
                if depth == 0:
                    return all(w in _TYPE_WORDS or w == "*" for w in inner)
                depth -= 1
            inner.append(s)
        return True  # the group opens outside what this translator sees

    def _pointer_star(self, toks: list[Tok], i: int) -> bool:
        """Whether the ``*`` at ``toks[i]`` can declare a pointer, cast to one or
        dereference one: after a type word (``T *p``, ``(T *)``), before ``)`` after a
        name (a cast to a pointer of another type), or ``* name`` followed by what
        follows a declarator (``= ; , [ )``) where a declaration or a dereference can
        stand (a statement's start, after ``(``, ``,`` or ``*``, or after a type name
        that starts a statement)."""
        j = self._prev_index(toks, i)
        p = toks[j] if j >= 0 else None
        k = self._next(toks, i + 1)
        n = toks[k] if k < len(toks) else None
        if p is not None and p.kind == "id" and p.text in _TYPE_WORDS:
            return True
        if n is not None and n.text == ")" and p is not None and (p.kind == "id" or
                                                                  p.text == "*"):
            return True
        if n is None or n.kind != "id":
            return False
        m = self._next(toks, k + 1)
        if m < len(toks) and toks[m].text not in ("=", ";", ",", "[", ")"):
            return False
        if p is None or p.text in ("(", ",", "*", ";", "{", "}"):
            return True
        if p.kind != "id":
            return False
        b = self._prev_index(toks, j)
        return b < 0 or toks[b].text in (";", "{", "}", ":") or (
            toks[b].kind == "id" and toks[b].text in _TYPE_WORDS)

    def _index_var(self, toks: list[Tok], i: int) -> int | None:
        """The axis of the index variable at ``toks[i]``, None if it is none; refuses
        an assignment or a declaration of it."""
        t = toks[i]
        m = _IVAR.match(t.text)
        if m is None:
            return None
        k = int(m.group(1))
        nxt = self._next(toks, i + 1)
        prev = self._prev(toks, i)
        if (nxt < len(toks) and toks[nxt].kind == "op" and toks[nxt].text in _ASSIGN) or (
                prev is not None and prev.text in ("++", "--")):
            raise self.fail(t, f"the index variable {t.text} is read-only (it is the point's "
                               f"index on axis {k}); copy it first: int64 j = {t.text};")
        if prev is not None and prev.kind == "id" and prev.text in _TYPE_WORDS:
            raise self.fail(t, f"{t.text} is the index variable of axis {k} and cannot be "
                               "declared again; use another name")
        return k

    def _check_ident(self, t: Tok) -> None:
        if t.text.startswith(RESERVED_PREFIX):
            raise self.fail(t, f"names starting with {RESERVED_PREFIX!r} are reserved ({t.text})")
        if t.text == "return":
            raise self.fail(
                t, "'return' is not allowed (the body may run inside loops over serial "
                "axes); use 'continue' to skip the rest of the body for this index"
            )
        if t.text in self.intrinsics:
            return
        what = _REFUSED_WORDS.get(t.text)
        if what is None and t.text.startswith("__"):
            what = "names the compiler reserves (builtins, intrinsics, qualifiers)"
        if what is None and _POINTER_BUILTINS.match(t.text):
            what = "builtins that take a pointer"
        if what is not None:
            raise self.fail(t, f"{t.text!r} is not supported in a kernel body ({what} "
                               "escape the factory's index checks); write plain C "
                               "statements over the arrays' elements")
        m = _IVAR.match(t.text)
        if m and int(m.group(1)) >= self.ndim:
            raise self.fail(
                t, f"{t.text} is not an index variable of the {self.ndim}-D iteration "
                f"space (i0 .. i{self.ndim - 1}); names i<N> are reserved"
            )

    def check_text(self, toks: list[Tok]) -> None:
        """Refuse what would make the compiler read other tokens than these: directives
        other than ``#pragma``, line splices, digraphs and trigraphs; and string
        literals anywhere but as printf's format."""
        line_start = True
        for i, t in enumerate(toks):
            if t.kind == "ws":
                if "\n" in t.text:
                    line_start = True
                continue
            if t.kind == "comment":
                continue
            nxt = toks[i + 1] if i + 1 < len(toks) else None
            if t.text == "#":
                if not (line_start and nxt is not None and nxt.text == "pragma"):
                    raise self.fail(t, "preprocessor directives are not supported (only "
                                       "#pragma lines); write the code out")
            elif t.text == "\\":
                raise self.fail(t, "a backslash outside a string (a line splice) is not "
                                   "supported; join the lines")
            elif (nxt is not None and nxt.pos == t.pos + len(t.text)
                  and t.text + nxt.text in ("<:", ":>", "<%", "%>", "%:", "??")):
                raise self.fail(t, f"{t.text + nxt.text!r} (a digraph or trigraph) is not "
                                   "supported; write the character it stands for")
            elif t.kind == "str" and t.text.startswith('"'):
                j = self._prev_index(toks, i)
                f = self._prev_index(toks, j) if j >= 0 else -1
                if not (j >= 0 and toks[j].text == "(" and f >= 0 and toks[f].text == "printf"):
                    raise self.fail(t, "a string literal may only be printf's format: a "
                                       "string is an array the factory does not check")
                bad = _PRINTF_POINTERS.search(t.text)
                if bad:
                    raise self.fail(t, f"the printf conversion {bad.group()!r} reads or "
                                       "writes through a pointer; print numbers only")
            line_start = False

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
        forms = tuple(self._loop_form(a) or _index_form(a, self.ndim) for a in args)
        self.out.accesses.append(Access(name, site, " ".join(text.split()), forms))
        idx = [self.run(a).strip() for a in args]
        acc = self._access(name, idx, site)
        # written? (assignment after, or ++/-- before)
        after = self._next(toks, end)
        before = self._prev(toks, i)
        op = (toks[after].text if after < len(toks) and toks[after].kind == "op"
              and toks[after].text in _ASSIGN else None)
        if before is not None and before.text in ("++", "--"):
            op = before.text
        if op is None:
            return acc, end
        self.out.written.add(name)
        if p.dtype.kind != "b":
            return acc, end
        # a bool array stores 0 or 1: the value is normalised with !!
        if op in ("++", "--"):
            raise self.fail(t, f"{op} on the bool array {name} is not supported; assign "
                               f"instead: {text} = 1 (or = !{text})")
        rhs_end = self._rhs_end(toks, after + 1)
        rhs = self.run(toks[after + 1:rhs_end]).strip()
        if not rhs:
            raise self.fail(t, f"{text} {op} has no value")
        if op == "=":
            return f"{acc} = !!({rhs})", rhs_end
        if any(x.text in _ASSIGN for a in args for x in a):
            raise self.fail(t, f"{text} {op} ...: the index of a bool array updated in place "
                               "may not change a variable; compute the index first")
        return f"{acc} = !!({acc} {op[:-1]} ({rhs}))", rhs_end

    def _loop_form(self, arg: list[Tok]) -> Form | None:
        """("loop", ...) for an index that is a loop counter in its loop's body."""
        sig = [x for x in arg if x.kind not in ("ws", "comment")]
        if len(sig) != 1 or sig[0].kind != "id":
            return None
        t = sig[0]
        inner = [lp for lp in self.loops if lp.var == t.text and lp.start <= t.pos < lp.end]
        if not inner:
            return None
        lp = max(inner, key=lambda x: x.start)  # the innermost loop of that name
        return ("loop", lp.array, lp.axis, lp.max_value)

    @staticmethod
    def _rhs_end(toks: list[Tok], k: int) -> int:
        """Where the right-hand side of an assignment that starts at ``toks[k]`` ends:
        the first ``;`` or ``,`` at its level, a bracket closing an outer group, or a
        ``:`` of an enclosing conditional."""
        depth = pending = 0
        while k < len(toks):
            tk = toks[k]
            if tk.kind == "op":
                s = tk.text
                if s in ("(", "[", "{"):
                    depth += 1
                elif s in (")", "]", "}"):
                    if depth == 0:
                        break
                    depth -= 1
                elif depth == 0:
                    if s in (";", ","):
                        break
                    if s == "?":
                        pending += 1
                    elif s == ":":
                        if pending == 0:
                            break
                        pending -= 1
            k += 1
        return k

    def _access(self, name: str, idx: list[str], site: int) -> str:
        if self.bounds == "vector":  # the element of the thread's vector (see _emit)
            return f"_uk_{name}_v.v[_uk_k]"
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
              bounds: str, intrinsics: frozenset[str] = frozenset()) -> Translation:
    """Translate ``body`` for an ``ndim``-D iteration space; ``types`` maps dtype names to
    the target's C types; ``bounds`` is the bounds mode; ``intrinsics``: compiler
    builtins the body may call although their names start with ``__`` (value-only
    functions such as CUDA's ``__fmul_rn``; only generated bodies pass any).

    Each loop of :func:`find_loops` runs a hidden 64-bit counter ``_uk_lcN``, and its
    body reads ``j`` as ``((T)_uk_lcN)``: a value of the counter's type that C cannot
    assign, increment, declare again or take the address of.  So the counter runs
    over 0 .. ``a.shape[k] - 1`` whatever the body does, and a write that the
    allow-list of :func:`_reads_only` might miss fails to compile.  (A body that only
    reads ``j`` computes what it did as written; the counter's type no longer wraps.)"""
    tr = _Translator(params, ndim, types, bounds, body, intrinsics)
    toks = tokenize(body)
    tr.check_text(toks)
    tr.loops = find_loops(toks, tr.arrays)
    for n, lp in enumerate(tr.loops):
        hidden = f"_uk_lc{n}"
        tr.renamed[lp.header[0]] = "_uk_i"
        for pos in lp.header[1:]:
            tr.renamed[pos] = hidden
        value = f"(({types.get(lp.ctype, lp.ctype)}){hidden})"
        for k, t in enumerate(toks):
            if (t.kind == "id" and t.text == lp.var and lp.start <= t.pos < lp.end
                    and t.pos not in tr.renamed and not _member(toks, k)):
                tr.renamed[t.pos] = value
    code = tr.run(toks)
    tr.out.code = code
    if any(p.dtype == KERNEL_DTYPES["float64"] for p in params):
        tr.out.uses_fp64 = True
    return tr.out


def _member(toks: list[Tok], k: int) -> bool:
    """Whether the name ``toks[k]`` follows ``.`` or ``->`` (a member, not a variable)."""
    k -= 1
    while k >= 0 and toks[k].kind in ("ws", "comment"):
        k -= 1
    return k >= 0 and toks[k].text in (".", "->")
