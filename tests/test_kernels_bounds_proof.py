"""The kernel factory's default bounds proof of loop counters (``usmarray.kernels``).

A loop ``for (T j = 0; j < a.shape[k]; j++)`` proves ``a(j)`` in range only while its
body cannot change ``j``.  Two layers make that hold by construction:

* an allow-list (``_translate._reads_only``): every use of ``j`` in the body must be a
  read the translator recognises; anything else (``(j) += 4096``, ``(0, (j) = 4096)``,
  ``int64 k, j;``, ``int64 (j) = 1;``, ``c ? j : k``, ...) leaves the loop unproven,
  so the default mode refuses its accesses with a ValueError asking for a mode;
* the loop runs a hidden 64-bit counter and its body reads ``j`` as ``((T)_uk_lcN)``,
  a value: a write the allow-list missed fails to compile.

The statement that forms a loop's body is found as C parses it (``if``/``else``,
nested loops, ``do``/``while``), so an access after the loop is never taken for one
inside it.  Every check that launches runs in a child interpreter with the written
array in the middle of a guard buffer: a write outside it fails one test.  The
devices: the SYCL OpenCL CPU device and, with the ``gpu`` marker, CUDA.  The NumPy
backend compiles no kernels; the translator's own tests need no device.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_reliability_common import assert_child_ok, begin, child_main, device_params

from usmarray.kernels._signature import parse_signature
from usmarray.kernels._translate import find_loops, tokenize

MOD = "test_kernels_bounds_proof"
SIG = "int32[:] a, int32[:] b"
#: elements of the guard buffer on each side of ``a`` (the mutations move ``j`` by 4096)
GUARD = 8192
N = 8


def _devices():
    return device_params("opencl:cpu", "cuda:0")


def _loop(inner: str, head: str = "for (int64 j = 0; j < a.shape[0]; j++)") -> str:
    return f"int64 k = 0; int64 t = 0; int64 once = 0;\n{head} {inner}\nb(0) = t + k;"


def _found(body: str) -> list[str]:
    params = {p.name: p for p in parse_signature(SIG) if p.is_array}
    return [lp.var for lp in find_loops(tokenize(body), params)]


#: loop bodies that write or shadow the counter, each with an access it would move
#: outside ``a``: the default mode must refuse them (before: several were accepted
#: and wrote 4096 elements past the array)
MUTATIONS = [
    "{ (j) += 4096; a(j) = 7; }",
    "{ (j) = 4096; a(j) = 7; }",
    "{ (0, (j) = 4096); a(j) = 7; }",
    "{ ((j)) *= -4096; a(j) = 7; }",
    "{ (j)++; a(j) = 7; }",
    "{ ++(j); a(j) = 7; }",
    "{ (k, j) = 4096; a(j) = 7; }",
    "{ (1 ? j : k) = 4096; a(j) = 7; }",
    "{ k = ((j) = 4096); a(j) = 7; }",
    "{ int64 (j) = 4096; a(j) = 7; }",
    "{ int64 k2 = 0, (j) = 4096; a(j) = 7; }",
    "{ int64 k2, j; a(j) = 7; }",
    "{ long j = 4096; a(j) = 7; }",
    "{ int64 j[1] = {4096}; a(j[0]) = 7; a(j) = 7; }",
    "{ a(j) = 7; if (j == 2 && once++ == 0) (j) -= 1000; }",
    "{ if (once++ == 0) { (j) += 4096; } a(j) = 7; }",
    "{ for (int64 j = 4096; j < 4097; j++) a(j) = 7; }",
    "{ do { (j) += 4096; } while (0); a(j) = 7; }",
]

#: statements after the loop that use another ``j``: the loop's body ends before them
AFTER_THE_LOOP = [
    "int64 j = 4096; for (int64 j = 0; j < a.shape[0]; j++) if (1) { } a(j) = 7;",
    "int64 j = 4096; for (int64 j = 0; j < a.shape[0]; j++) while (0) { } a(j) = 7;",
    "int64 j = 4096; for (int64 j = 0; j < a.shape[0]; j++) if (0) { } else { } a(j) = 7;",
    "int64 j = 4096; for (int64 j = 0; j < a.shape[0]; j++) do { } while (0); a(j) = 7;",
]

#: bodies that only read the counter: still proven, with the values they give ``a``
#: (from j = 0 .. N - 1) and ``b(0)``
_j = np.arange(N)
READS = [
    ("{ a(j) = j; }", _j, 0),
    ("{ a(j) = j * 2 + 1; t += j; }", 2 * _j + 1, int(_j.sum())),
    ("{ int64 u = j; a(j) = u - 1; }", _j - 1, 0),
    ("{ a(j) = (j + 1) * (j - 1); }", (_j + 1) * (_j - 1), 0),
    ("{ a(j) = j < 3 ? 1 : 2; }", np.where(_j < 3, 1, 2), 0),
    ("if (j) a(j) = -j; else a(j) = 5;", np.where(_j > 0, -_j, 5), 0),
    ("{ int64 s[3] = {4, 5, 6}; a(j) = s[j % 3]; k = j, t = j; }",
     np.array([4, 5, 6])[_j % 3], 2 * (N - 1)),
    ("{ a(j) = 0; for (int64 m = 0; m < b.shape[0]; m++) a(j) += b(m) + j; }", _j + 1, 0),
    ("{ a(j) = b.shape[0] - j; k += a(j); }", 1 - _j, int((1 - _j).sum())),
    ("{ do { a(j) = j + 1; } while (0); }", _j + 1, 0),
    ("{ a(j) = (j & 1) | (j ^ 2); k += -j + ~j; }", (_j & 1) | (_j ^ 2),
     int((-_j + ~_j).sum())),
]


# ---- the allow-list (no device) ---------------------------------------------------------
@pytest.mark.parametrize("inner", MUTATIONS)
def test_a_write_or_declaration_of_the_counter_leaves_the_loop_unproven(inner):
    assert "j" not in _found(_loop(inner)), inner


@pytest.mark.parametrize("body", AFTER_THE_LOOP)
def test_an_access_after_the_loop_is_outside_its_body(body):
    params = {p.name: p for p in parse_signature(SIG) if p.is_array}
    toks = tokenize(body)
    last = [t for t in toks if t.text == "j"][-1]
    for lp in find_loops(toks, params):
        assert not lp.start <= last.pos < lp.end, body


@pytest.mark.parametrize("inner, _a, _b", READS)
def test_reads_of_the_counter_stay_proven(inner, _a, _b):
    assert "j" in _found(_loop(inner)), inner


#: places a counter stands where it can be written (``{}`` is the counter, possibly
#: wrapped), and forms that write it
_LVALUES = ["{}", "({})", "(({}))", "(0, {})", "(k, ({}))", "(1 ? {} : k)", "(k = 0, {})",
            "(t, k, {})"]
_WRITES = ["{} = 4096", "{} += 4096", "{} -= 9", "{} *= -1", "{}++", "++{}", "{}--", "--{}",
           "{} <<= 12", "{} |= 4096", "{} ^= -1", "k = {} = 3", "t = ({} += 2)"]
_DECLS = ["int64 {} = 4096;", "int64 ({}) = 4096;", "int64 k2 = 0, {} = 4096;",
          "long {} = 4096;", "int64 k2, ({}) = -5;", "const int64 {} = -3;", "int32 {} = 9;",
          "int64 k2, {};", "uint8 {};", "int64 {}[2] = {{4096, 1}};"]
_WRAPS = ["{};", "({});", "(void)({});", "k = ({});", "t = 0, {};", "{{ {}; }}",
          "if (k == 0) {};", "if (1) {{ }} else {};", "while (k < 0) {};"]
_READS = ["t += j;", "k = j * 2;", "a(j) = j + 1;", "t = t + (j - 1);", "k = (j) + 1;",
          "t += b(0) * j;", "if (j > 2) t++;"]


@st.composite
def _mutated_loop(draw, once: bool = False) -> tuple[str, bool]:
    """(body, whether it writes or declares the counter in the loop), the write placed
    before or after the access; ``once``: the write runs on the first pass only (so
    that the loop ends where it is launched), else on the first or on every pass."""
    writes = draw(st.booleans())
    stmts = [draw(st.sampled_from(_READS)) for _ in range(draw(st.integers(0, 2)))]
    if writes:
        if draw(st.booleans()):
            lv = draw(st.sampled_from(_LVALUES)).format("j")
            w = draw(st.sampled_from(_WRAPS)).format(draw(st.sampled_from(_WRITES)).format(lv))
        else:
            w = "{ " + draw(st.sampled_from(_DECLS)).format("j") + " a(j) = 7; }"
        if once or draw(st.booleans()):
            w = f"if (once++ == 0) {{ {w} }}"
        stmts.insert(draw(st.integers(0, len(stmts))), w)
    stmts.insert(draw(st.integers(0, len(stmts))), "a(j) = 7;")
    if draw(st.booleans()):
        return _loop("{ " + " ".join(stmts) + " }"), writes
    return _loop("if (1) { " + " ".join(stmts) + " } else { t = j; }"), writes


@settings(max_examples=400)
@given(_mutated_loop())
def test_fuzz_mutations_of_the_counter_are_never_proven(case):
    """The allow-list alone (no compiler): a body that writes or declares the counter
    never proves the loop, one that only reads it always does."""
    body, writes = case
    assert ("j" in _found(body)) is not writes, body


# ---- launches (in a child interpreter) ---------------------------------------------------
def _run(xp, device, body, bounds):
    """("refused" | "index" | "ran", guard buffer, b): ``body`` launched once over one
    point with ``a`` (N int32 elements) in the middle of a zeroed guard buffer."""
    from usmarray.kernels import KernelSyntaxError, kernel

    g = xp.zeros(2 * GUARD + N, dtype=xp.int32, device=device)
    a = g[GUARD:GUARD + N]
    b = xp.asarray([1], dtype=xp.int32, device=device)
    try:
        kernel(SIG, body, shape=(1,))(a, b, bounds=bounds)
    except KernelSyntaxError as exc:
        assert "kernel body" in str(exc) or "does not compile" in str(exc), str(exc)
        return "refused", xp.asnumpy(g), None
    except ValueError as exc:
        assert "bounds=" in str(exc) or "bounds='clamp'" in str(exc), str(exc)
        return "refused", xp.asnumpy(g), None
    except IndexError:
        assert bounds == "check"
        return "index", xp.asnumpy(g), None
    return "ran", xp.asnumpy(g), int(xp.asnumpy(b)[0])


def _outside(g) -> np.ndarray:
    return np.flatnonzero(np.concatenate([g[:GUARD], g[GUARD + N:]]))


def _mutations_refused(device):
    import usmarray as xp

    for body in [_loop(m) for m in MUTATIONS] + AFTER_THE_LOOP:
        begin(f"default mode: {body!r}")
        how, g, _ = _run(xp, device, body, None)
        assert how == "refused", f"accepted: {body!r}"
        assert not _outside(g).size, f"{body!r} wrote outside a: {_outside(g)}"
        begin(f"check mode: {body!r}")
        how, g, _ = _run(xp, device, body, "check")
        assert not _outside(g).size, f"{body!r} (check) wrote outside a: {_outside(g)}"


@pytest.mark.parametrize("device", _devices())
def test_writes_of_the_counter_are_refused_by_default(device):
    assert_child_ok(MOD, "_mutations_refused", device, timeout=600)


def _reads_run(device):
    import usmarray as xp

    for inner, want_a, want_b in READS:
        body = _loop(inner)
        begin(f"reads: {body!r}")
        how, g, b = _run(xp, device, body, None)
        assert how == "ran", body
        np.testing.assert_array_equal(g[GUARD:GUARD + N], want_a, err_msg=body)
        assert b == want_b, (body, b, want_b)
        assert not _outside(g).size, body
    for ctype, n in (("int8", 127), ("uint8", 255), ("int16", 300)):
        # the counter's type holds every index; the hidden counter never wraps
        begin(f"a {ctype} counter over {n} elements")
        from usmarray.kernels import kernel

        g = xp.zeros(2 * GUARD + n, dtype=xp.int32, device=device)
        a = g[GUARD:GUARD + n]
        kernel("int32[:] a", f"for ({ctype} j = 0; j < a.shape[0]; j++) a(j) = j + 1;",
               shape=(1,))(a)
        h = xp.asnumpy(g)
        np.testing.assert_array_equal(h[GUARD:GUARD + n], np.arange(1, n + 1))
        assert not np.flatnonzero(np.concatenate([h[:GUARD], h[GUARD + n:]])).size


@pytest.mark.parametrize("device", _devices())
def test_reads_of_the_counter_run_by_default(device):
    assert_child_ok(MOD, "_reads_run", device, timeout=600)


def _hidden_counter(device):
    """With the allow-list switched off, the hidden counter alone refuses the writes:
    they fail to compile."""
    import usmarray as xp
    from usmarray.kernels import _translate

    _translate._reads_only = lambda body, var, arrays: True  # the second layer alone
    for m in MUTATIONS:
        body = _loop(m)
        if "j" not in _found(body):
            continue  # not a loop of the inferred form at all
        begin(f"hidden counter: {body!r}")
        how, g, _ = _run(xp, device, body, None)
        assert how == "refused", f"compiled: {body!r}"
        assert not _outside(g).size, f"{body!r} wrote outside a: {_outside(g)}"


@pytest.mark.parametrize("device", _devices())
def test_the_hidden_counter_refuses_writes_the_allow_list_would_miss(device):
    assert_child_ok(MOD, "_hidden_counter", device, timeout=600)


def _fuzz(device):
    import usmarray as xp

    @settings(max_examples=3 * settings().max_examples)
    @given(_mutated_loop(once=True))
    def prop(case):
        body, _writes = case
        begin(f"fuzz: {body!r}")
        how, g, b = _run(xp, device, body, None)
        assert not _outside(g).size, f"{body!r} wrote outside a: {_outside(g)}"
        if how == "refused":
            return
        # accepted by default: the checked run agrees and finds nothing out of range
        how_c, g_c, b_c = _run(xp, device, body, "check")
        assert how_c == "ran", f"default accepted {body!r}; check mode: {how_c}"
        np.testing.assert_array_equal(g, g_c, err_msg=body)
        assert b == b_c, body

    prop()


@pytest.mark.parametrize("device", _devices())
def test_fuzz_default_mode_never_accepts_an_unsafe_body(device):
    assert_child_ok(MOD, "_fuzz", device, timeout=600)


if __name__ == "__main__":
    child_main(globals())
