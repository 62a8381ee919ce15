"""Random indices for ``x[key]`` and ``x[key] = value``, compared with NumPy.

Promise: a key that the standard defines selects exactly NumPy's elements (reads) and
writes exactly those (writes), on both backends; an out-of-range integer or integer
array, a boolean array of the wrong shape, a non-integer array, or a key type that the
standard does not allow (lists, floats, NumPy arrays and scalars, strings) raises
IndexError; never a wrong read or write, never a crash.

Categories of generated keys and what is demanded of each:

* basic (ints, slices, ``...``, ``None``): NumPy's result; NumPy's IndexError; a zero
  slice step raises ValueError or IndexError.
* integer arrays (a tuple of ints and integer arrays, one per axis): NumPy's result (the
  standard's vectorised indexing); out-of-range entries raise IndexError; index arrays
  that do not broadcast raise IndexError or ValueError ("an exception must be raised").
  A tuple shorter or longer than ``ndim`` is implementation-defined: NumPy's result or
  IndexError.
* a sole boolean array: the standard's rule (each dimension equal to the array's or 0,
  else IndexError).
* mixed (one integer array among slices, ``None`` and ``...``; outside the standard):
  NumPy's result or IndexError.
* forbidden: a component that is not an int, slice, ``...``, ``None`` or integer /
  boolean array: IndexError.

The checks run in a child interpreter (tests/test_reliability_common.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_reliability_common import assert_child_ok, begin, child_main, needs_sycl

MOD = "test_reliability_indexing"
INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FORBIDDEN = ["list", "float", "np_float", "np_array", "str", "float_array", "complex"]


# ---- key generation (a description of the key; arrays are made per backend) -----------------
def _draw_key(data, shape):
    from hypothesis import strategies as st

    ndim = len(shape)
    cat = data.draw(st.sampled_from(["basic", "basic", "intarr", "intarr", "bool", "mixed",
                                     "forbidden"]), "category")

    def size(axis):
        return shape[axis] if 0 <= axis < ndim else 1

    def an_int(axis):
        n = size(axis)
        if n and data.draw(st.integers(0, 4)):  # mostly in range
            return data.draw(st.integers(-n, n - 1))
        return data.draw(st.integers(-n - 2, n + 1))

    def a_slice(axis):
        n = size(axis)
        bound = st.one_of(st.none(), st.integers(-n - 3, n + 3))
        step = data.draw(st.sampled_from([None, None, 1, 2, 3, -1, -2, -3, 0]))
        return ("slice", data.draw(bound), data.draw(bound), step)

    def an_int_array(axis, arr_shape, dtype=None):
        n = size(axis)
        dtype = dtype or data.draw(st.sampled_from(INT_DTYPES))
        info = np.iinfo(dtype)
        lo = max(-n - 1, int(info.min))
        hi = min(n, int(info.max))
        if data.draw(st.integers(0, 4)):  # mostly in range
            lo, hi = max(lo, -n), min(hi, n - 1)
        if hi < lo:  # empty axis: any value is out of range
            lo = hi = max(0, lo)
        vals = data.draw(st.lists(st.integers(lo, hi), min_size=int(np.prod(arr_shape)),
                                  max_size=int(np.prod(arr_shape))))
        return ("array", np.array(vals, dtype=dtype).reshape(arr_shape))

    comps = []
    if cat in ("basic", "forbidden"):
        length = data.draw(st.integers(0, ndim + 1))
        n_ell = 0
        axis = 0
        for _ in range(length):
            kind = data.draw(st.sampled_from(["int", "slice", "slice", "none", "ellipsis"]))
            if kind == "ellipsis" and (n_ell == 0 or data.draw(st.integers(0, 5)) == 0):
                comps.append(("ellipsis",))
                n_ell += 1
            elif kind == "int":
                comps.append(("int", an_int(axis)))
                axis += 1
            elif kind == "none":
                comps.append(("none",))
            else:
                comps.append(a_slice(axis))
                axis += 1
        if cat == "forbidden":
            pos = data.draw(st.integers(0, len(comps)))
            comps.insert(pos, ("forbidden", data.draw(st.sampled_from(FORBIDDEN))))
    elif cat == "intarr":
        length = data.draw(st.sampled_from([ndim] * 4 + [max(ndim - 1, 0), ndim + 1]))
        common = tuple(data.draw(st.lists(st.integers(0, 3), min_size=0, max_size=2)))
        compatible = data.draw(st.integers(0, 5)) > 0
        for axis in range(length):
            if data.draw(st.booleans()):
                comps.append(("int", an_int(axis)))
                continue
            k = data.draw(st.integers(0, len(common)))
            sub = list(common[len(common) - k:])
            for j in range(len(sub)):
                if data.draw(st.integers(0, 3)) == 0:
                    sub[j] = 1
            if not compatible and sub:
                sub[0] = sub[0] + 2
            comps.append(an_int_array(axis, tuple(sub)))
        if not any(c[0] == "array" for c in comps):
            comps.append(an_int_array(len(comps), (data.draw(st.integers(0, 3)),)))
    elif cat == "bool":
        m = data.draw(st.integers(0, ndim + (1 if data.draw(st.integers(0, 5)) == 0 else 0)))
        bshape = [size(k) for k in range(m)]
        for k in range(m):
            r = data.draw(st.integers(0, 11))
            if r == 0:
                bshape[k] = 0
            elif r == 1:
                bshape[k] += 1
        vals = data.draw(st.lists(st.booleans(), min_size=int(np.prod(bshape)),
                                  max_size=int(np.prod(bshape))))
        comps.append(("array", np.array(vals, dtype=bool).reshape(bshape)))
    else:  # mixed: one integer array among slices, None and an ellipsis
        length = data.draw(st.integers(1, ndim + 1))
        pos = data.draw(st.integers(0, length - 1))
        used_ell = False
        axis = 0
        for i in range(length):
            if i == pos:
                arr_shape = tuple(data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=2)))
                comps.append(an_int_array(axis, arr_shape))
                axis += 1
                continue
            kind = data.draw(st.sampled_from(["slice", "none", "ellipsis"]))
            if kind == "ellipsis" and not used_ell:
                comps.append(("ellipsis",))
                used_ell = True
            elif kind == "none":
                comps.append(("none",))
            else:
                comps.append(a_slice(axis))
                axis += 1
    bare = len(comps) == 1 and data.draw(st.booleans())
    return cat, comps, bare


def _materialise(comps, bare, xp, device):
    """(key for usmarray, key for NumPy) from a key description."""
    ours, ref = [], []
    for c in comps:
        k = c[0]
        if k == "int":
            ours.append(c[1])
            ref.append(c[1])
        elif k == "slice":
            ours.append(slice(*c[1:]))
            ref.append(slice(*c[1:]))
        elif k == "none":
            ours.append(None)
            ref.append(None)
        elif k == "ellipsis":
            ours.append(Ellipsis)
            ref.append(Ellipsis)
        elif k == "array":
            ours.append(xp.asarray(c[1], device=device))
            ref.append(c[1])
        else:
            bad = {"list": [0], "float": 1.0, "np_float": np.float64(0.0), "np_array": np.array([0]),
                   "str": "a", "complex": 1j,
                   "float_array": xp.asarray([0.0], device=device)}[c[1]]
            ours.append(bad)
            ref.append(None)
    if bare:
        return ours[0], ref[0]
    return tuple(ours), tuple(ref)


def _standard_bool(n, b):
    """The standard's sole-boolean-array rule: ('ok', result positions) or ('index_error',)."""
    m = b.ndim
    if m > n.ndim:
        return ("index_error",)
    for k in range(m):
        if b.shape[k] not in (n.shape[k], 0):
            return ("index_error",)
    if m and 0 in b.shape:
        return ("ok", np.empty((0,) + n.shape[m:], dtype=n.dtype))
    return ("ok", n[b])


def _expected(cat, comps, nkey, n):
    """('ok', array) | ('error', allowed exception types) | ('either', array, allowed)."""
    if cat == "forbidden":
        return ("error", (IndexError,))
    if cat == "bool":
        r = _standard_bool(n, comps[0][1])
        return ("ok", r[1]) if r[0] == "ok" else ("error", (IndexError,))
    try:
        want = n[nkey]
    except IndexError:
        if cat == "intarr" and not _broadcasts([c[1] for c in comps if c[0] == "array"]):
            return ("error", (IndexError, ValueError))
        return ("error", (IndexError,))
    except ValueError:  # zero slice step; arrays that do not broadcast
        return ("error", (ValueError, IndexError))
    if cat == "basic":
        return ("ok", want)
    allowed = (IndexError,)
    if cat == "intarr":
        arrays = [c[1] for c in comps if c[0] == "array"]
        kinds = {a.dtype.kind for a in arrays} | {"i" for c in comps if c[0] == "int"}
        if any(a.dtype == np.uint64 for a in arrays) and "i" in kinds:
            # uint64 with signed indices has no common integer dtype (NumPy gives float64)
            allowed = (IndexError, ValueError, TypeError)
        unused_oob = any(c[0] == "array" and c[1].size and axis < n.ndim and
                         (c[1].min() < -n.shape[axis] or c[1].max() >= n.shape[axis])
                         for axis, c in enumerate(comps))
        if len(comps) == n.ndim and not unused_oob and len(allowed) == 1:
            return ("ok", want)
        # an out-of-range entry that the broadcast result never uses (NumPy reads nothing)
        # may still raise IndexError
    return ("either", want, allowed)


def _broadcasts(arrays):
    try:
        np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        return False
    return True


def _zero_mask_dim(n, comps):
    """A sole boolean index with a 0-size dimension where the array's is not 0 (the
    standard allows it; the xfail test below covers it)."""
    if len(comps) != 1 or comps[0][0] != "array" or comps[0][1].dtype != bool:
        return False
    b = comps[0][1]
    return b.ndim <= n.ndim and any(b.shape[k] == 0 != n.shape[k] for k in range(b.ndim))


def _draw_case(data):
    from hypothesis import strategies as st

    device = data.draw(st.sampled_from([None, "numpy"]), "device")
    ndim = data.draw(st.integers(0, 4), "ndim")
    dims = st.sampled_from([0, 1, 2, 2, 3, 3, 4])  # empty axes, but not too often
    shape = tuple(data.draw(st.lists(dims, min_size=ndim, max_size=ndim), "shape"))
    cat, comps, bare = _draw_key(data, shape)
    return device, shape, cat, comps, bare


def _prop_getitem():
    from hypothesis import assume, given, settings
    from hypothesis import strategies as st

    import usmarray as xp

    tally = {}

    @settings(max_examples=settings.default.max_examples * 12)
    @given(st.data())
    def check(data):
        device, shape, cat, comps, bare = _draw_case(data)
        n = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
        assume(not _zero_mask_dim(n, comps))
        x = xp.asarray(n, device=device)
        key, nkey = _materialise(comps, bare, xp, device)
        begin(f"{device or 'sycl'} shape={shape} {cat} key={comps!r} bare={bare}")
        exp = _expected(cat, comps, nkey, n)
        try:
            got = xp.asnumpy(x[key])
        except Exception as exc:  # noqa: BLE001 - classified below
            allowed = exp[1] if exp[0] == "error" else (exp[2] if exp[0] == "either" else ())
            assert isinstance(exc, allowed), f"{type(exc).__name__}: {exc}; expected {exp[0]} {allowed}"
            tally[cat + " refused"] = tally.get(cat + " refused", 0) + 1
            return
        assert exp[0] != "error", f"accepted, expected {exp[1]}; got {got!r}"
        want = exp[1]
        assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape)
        assert np.array_equal(got, want), (got, want)
        assert np.array_equal(xp.asnumpy(x), n), "indexing changed the array"
        tally[cat + " read"] = tally.get(cat + " read", 0) + 1

    check()
    print("SUMMARY", dict(sorted(tally.items())))


def _prop_setitem():
    from hypothesis import assume, given, settings
    from hypothesis import strategies as st

    import usmarray as xp

    tally = {}

    @settings(max_examples=settings.default.max_examples * 12)
    @given(st.data())
    def check(data):
        device, shape, cat, comps, bare = _draw_case(data)
        n = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
        if cat == "bool":  # mismatched masks: _setitem_mask_shape
            assume(_standard_bool(n, comps[0][1])[0] == "ok")
        assume(not _zero_mask_dim(n, comps))
        x = xp.asarray(n, device=device)
        key, nkey = _materialise(comps, bare, xp, device)
        exp = _expected(cat, comps, nkey, n)
        targets = None
        if exp[0] != "error":
            pos = np.arange(n.size).reshape(shape)
            targets = _standard_bool(pos, comps[0][1])[1] if cat == "bool" else pos[nkey]
        as_array = targets is not None and data.draw(st.booleans(), "array value")
        if as_array and np.unique(targets).size < targets.size:
            as_array = False  # duplicates: which write wins is unspecified
        if as_array:
            vshape = targets.shape[data.draw(st.integers(0, targets.ndim), "value rank cut"):]
            value_np = (1000 + np.arange(int(np.prod(vshape)), dtype=np.int32)).reshape(vshape)
            value = xp.asarray(value_np, device=device)
        else:
            value_np = value = 777
        begin(f"{device or 'sycl'} shape={shape} {cat} key={comps!r} bare={bare} "
              f"value={'array ' + str(np.shape(value_np)) if as_array else value}")
        try:
            x[key] = value
        except Exception as exc:  # noqa: BLE001 - classified below
            allowed = exp[1] if exp[0] == "error" else (exp[2] if exp[0] == "either" else ())
            assert isinstance(exc, allowed), f"{type(exc).__name__}: {exc}; expected {exp[0]} {allowed}"
            assert np.array_equal(xp.asnumpy(x), n), "a refused assignment wrote"
            tally[cat + " refused"] = tally.get(cat + " refused", 0) + 1
            return
        assert exp[0] != "error", f"accepted, expected {exp[1]}"
        want = n.copy().reshape(-1)
        want[targets.reshape(-1)] = np.broadcast_to(value_np, targets.shape).reshape(-1)
        got = xp.asnumpy(x)
        assert np.array_equal(got, want.reshape(shape)), (got, want.reshape(shape))
        tally[cat + " written"] = tally.get(cat + " written", 0) + 1

    check()
    print("SUMMARY", dict(sorted(tally.items())))


def _setitem_mask_shape():
    """Boolean masks that do not fit raise IndexError in __setitem__ as in __getitem__."""
    import usmarray as xp

    x = xp.reshape(xp.arange(12, dtype=xp.int32), (3, 4))
    problems = []
    for bshape in [(2, 4), (3, 5), (3, 4, 1), (4,)]:
        mask = xp.asarray(np.ones(bshape, dtype=bool))
        begin(f"x[mask of shape {bshape}] = 7 on shape (3, 4)")
        for what, op in (("get", lambda m=mask: x[m]),
                         ("set", lambda m=mask: x.__setitem__(m, 7))):
            try:
                op()
            except IndexError:
                continue
            except Exception as exc:  # noqa: BLE001
                problems.append(f"{what} {bshape}: {type(exc).__name__}: {exc}")
                continue
            problems.append(f"{what} {bshape}: accepted")
    assert np.array_equal(xp.asnumpy(x), np.arange(12).reshape(3, 4))
    assert not problems, "\n".join(problems)


def _zero_size_mask_dims():
    """The standard: each dimension of a sole boolean index equals the array's *or is 0*."""
    import usmarray as xp

    problems = []
    for shape, bshape in [((3, 4), (0, 4)), ((3, 4), (3, 0)), ((3, 4), (0,)), ((1, 0, 2), (0,))]:
        n = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
        x = xp.asarray(n)
        mask = xp.asarray(np.zeros(bshape, dtype=bool))
        want_shape = (0,) + shape[len(bshape):]
        begin(f"x[mask of shape {bshape}] on shape {shape}")
        try:
            got = xp.asnumpy(x[mask])
            if got.shape != want_shape:
                problems.append(f"get {bshape} on {shape}: shape {got.shape}, want {want_shape}")
        except Exception as exc:  # noqa: BLE001
            problems.append(f"get {bshape} on {shape}: {type(exc).__name__}: {exc}")
        try:
            x[mask] = 7
            if not np.array_equal(xp.asnumpy(x), n):
                problems.append(f"set {bshape} on {shape}: wrote")
        except Exception as exc:  # noqa: BLE001
            problems.append(f"set {bshape} on {shape}: {type(exc).__name__}: {exc}")
    assert not problems, "\n".join(problems)


def _setitem_overlap():
    """x[key] = (a view of x): the value is read as before the assignment (as in NumPy)."""
    import usmarray as xp

    problems = []
    cases = {  # name: (our key, NumPy key, source slice)
        "integer array": (xp.asarray([1, 2, 3]), np.array([1, 2, 3]), slice(0, 3)),
        "boolean mask": (xp.arange(10) > 4, np.arange(10) > 4, slice(0, 5)),
    }
    for name, (key, nkey, src) in cases.items():
        x = xp.arange(10, dtype=xp.int32)
        n = np.arange(10, dtype=np.int32)
        begin(f"x[{name}] = x[{src}]")
        try:
            x[key] = x[src]
        except Exception as exc:  # noqa: BLE001
            problems.append(f"{name}: {type(exc).__name__}: {exc}")
            continue
        n[nkey] = n[src].copy()
        if not np.array_equal(xp.asnumpy(x), n):
            problems.append(f"{name}: wrote {xp.asnumpy(x)}, NumPy {n}")
    # a 0-D view of x as the value (no copy is made: every element written gets its one
    # value, the value's own element its own value back)
    zero_d = {
        "slice": (slice(0, 6), slice(0, 6), 2), "one element": (3, 3, 3),
        "other element": (1, 1, 8), "integer array": (xp.asarray([0, 4, 9]),
                                                        np.array([0, 4, 9]), 4),
        "boolean mask": (xp.arange(10) % 2 == 0, np.arange(10) % 2 == 0, 6),
    }
    for name, (key, nkey, i) in zero_d.items():
        for shape in ((10,), (2, 5)):
            x = xp.reshape(xp.arange(10, dtype=xp.float32), shape)
            n = np.arange(10, dtype=np.float32).reshape(shape)
            src = i
            if len(shape) == 2:
                if not isinstance(key, (int, slice)):
                    continue
                src = (i // 5, i % 5)
                if isinstance(key, int):
                    key = nkey = (key // 5, key % 5)
            begin(f"x{shape}[{name}] = x[{src}]")
            x[key] = x[src]
            n[nkey] = n[src].copy()
            if not np.array_equal(xp.asnumpy(x), n):
                problems.append(f"0-D {name} {shape}: wrote {xp.asnumpy(x)}, NumPy {n}")
    assert not problems, "\n".join(problems)


def _index_on_other_queue():
    """An index array on another SYCL context is refused, never read across contexts."""
    import dpctl

    import usmarray as xp

    sub = dpctl.SyclQueue(dpctl.SyclDevice().create_sub_devices(partition=1)[0])
    x = xp.arange(10, dtype=xp.int32)
    for key in (xp.asarray([1, 2], sycl_queue=sub), xp.asarray([True] * 10, sycl_queue=sub)):
        begin(f"index on another context: {key.dtype}")
        with pytest.raises((IndexError, ValueError, TypeError, xp.ExecutionPlacementError)):
            x[key]
        with pytest.raises((IndexError, ValueError, TypeError, xp.ExecutionPlacementError)):
            x[key] = 5
    assert np.array_equal(xp.asnumpy(x), np.arange(10))


def _out_of_range_extremes():
    """Integer indices at and beyond the int64 range: IndexError, never a wrap-around read."""
    import usmarray as xp

    x = xp.arange(5, dtype=xp.int32)
    for k in (5, -6, 2**31, -(2**31) - 1, 2**63 - 1, -(2**63), 2**63, 2**64 + 1, -(2**70)):
        begin(f"x[{k}]")
        with pytest.raises(IndexError):
            x[k]
        with pytest.raises(IndexError):
            x[k] = 1
    for vals, dtype in (([2**63 - 1], xp.int64), ([-(2**63)], xp.int64), ([2**64 - 1], xp.uint64),
                        ([5], xp.uint8), ([-6], xp.int8), ([127], xp.int8)):
        key = xp.asarray(vals, dtype=dtype)
        begin(f"x[{vals} as {dtype}]")
        with pytest.raises(IndexError):
            x[key]
        with pytest.raises(IndexError):
            x[key] = 1
    assert np.array_equal(xp.asnumpy(x), np.arange(5))


def test_getitem_matches_numpy_or_raises_index_error():
    assert_child_ok(MOD, "_prop_getitem", timeout=170)


def test_setitem_matches_numpy_or_raises_and_writes_nothing():
    assert_child_ok(MOD, "_prop_setitem", timeout=170)


def test_extreme_integer_indices_raise_index_error():
    assert_child_ok(MOD, "_out_of_range_extremes", timeout=60)


@needs_sycl
def test_index_arrays_on_another_context_are_refused():
    assert_child_ok(MOD, "_index_on_other_queue", timeout=60)


def test_zero_size_mask_dimensions_select_nothing():
    assert_child_ok(MOD, "_zero_size_mask_dims", timeout=60)


def test_setitem_mismatched_mask_raises_index_error():
    assert_child_ok(MOD, "_setitem_mask_shape", timeout=60)


def test_setitem_with_an_overlapping_value():
    assert_child_ok(MOD, "_setitem_overlap", timeout=60)


if __name__ == "__main__":
    child_main(globals())
