"""Validation at the edges: index arrays from another backend, huge slice steps, the
pickle reconstructor's checks and the environment variables' messages.

Each check runs in a child interpreter (tests/test_reliability_common.py) on the SYCL
device, the NumPy backend and, with the ``gpu`` marker, CUDA (skipped without CuPy and
a GPU).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_reliability_common import assert_child_ok, begin, child_main, device_params

MOD = "test_reliability_validation"


def _expect(what: str, fn, exc) -> None:
    try:
        fn()
    except exc:
        return
    except Exception as e:  # noqa: BLE001 - the wrong type is the failure
        raise AssertionError(f"{what}: {type(e).__name__}: {e}, not {exc.__name__}") from None
    raise AssertionError(f"{what}: accepted, not {exc.__name__}")


# ---- 10. index arrays from another backend ---------------------------------------------------
def _foreign_index_arrays(x_dev, i_dev):
    import usmarray as xp

    a_np = np.arange(12.0).reshape(3, 4)
    x = xp.asarray(a_np, device=x_dev)
    idx = xp.asarray(np.array([2, 0]), device=i_dev)
    mask = xp.asarray(a_np > 5, device=i_dev)
    row = xp.asarray(np.array([True, False, True]), device=i_dev)
    cases = [
        ("x[i]", lambda: x[idx]), ("x[i, 0]", lambda: x[idx, 0]),
        ("x[..., i]", lambda: x[..., idx]), ("x[mask]", lambda: x[mask]),
        ("x[row_mask]", lambda: x[row]), ("x[i] = 1", lambda: x.__setitem__(idx, 1.0)),
        ("x[mask] = 1", lambda: x.__setitem__(mask, 1.0)),
        ("x[0, i] = 1", lambda: x.__setitem__((0, idx), 1.0)),
    ]
    for what, fn in cases:
        begin(f"x on {x_dev}, index on {i_dev}: {what}")
        _expect(what, fn, xp.ExecutionPlacementError)
    np.testing.assert_array_equal(xp.asnumpy(x), a_np)
    begin("the same index moved to x's device works")
    np.testing.assert_array_equal(xp.asnumpy(x[xp.asarray(idx, device=x.device)]), a_np[[2, 0]])


_PAIRS = [("numpy", "opencl:cpu"), ("opencl:cpu", "numpy"), ("cuda:0", "numpy"),
          ("numpy", "cuda:0"), ("cuda:0", "opencl:cpu"), ("opencl:cpu", "cuda:0")]


def _pair_params():
    out = []
    for a, b in _PAIRS:
        (pa,), (pb,) = device_params(a), device_params(b)
        out.append(pytest.param(a, b, marks=list(pa.marks) + list(pb.marks), id=f"{a}-{b}"))
    return out


@pytest.mark.parametrize("x_dev, i_dev", _pair_params())
def test_index_arrays_from_another_backend_are_placement_errors(x_dev, i_dev):
    assert_child_ok(MOD, "_foreign_index_arrays", x_dev, i_dev, timeout=120)


# ---- 11. huge slice steps ------------------------------------------------------------------
_HUGE = st.one_of(st.integers(2**59, 2**64 + 5), st.integers(-(2**64 + 5), -(2**59)),
                  st.sampled_from([2**60, 2**62, 2**63 - 1, -(2**63 - 1), 2**63, -(2**63)]))


@st.composite
def _huge_step_keys(draw):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    nd = len(shape)
    pos = draw(st.integers(0, nd - 1))
    keys = []
    for k in range(nd):
        if k == pos:
            start = draw(st.one_of(st.none(), st.integers(-shape[k], shape[k] - 1)))
            keys.append(slice(start, None, draw(_HUGE)))
        else:
            keys.append(draw(st.sampled_from([slice(None), 0, slice(None, None, 2)])))
    form = draw(st.sampled_from(["tuple", "ellipsis", "none", "alone"]))
    if form == "alone" and pos == 0:
        return shape, keys[0]
    if form == "ellipsis":
        return shape, (Ellipsis, *keys[pos:])
    if form == "none":
        return shape, (None, *keys)
    return shape, tuple(keys)


def _huge_steps(device):
    import usmarray as xp

    @given(_huge_step_keys())
    def prop(case):
        shape, key = case
        begin(f"shape={shape} key={key}")
        a = np.arange(1, int(np.prod(shape)) + 1, dtype=np.float64).reshape(shape)
        x = xp.asarray(a, device=device)
        want = a[key]
        v = x[key]
        assert repr(v)
        np.testing.assert_array_equal(xp.asnumpy(v), want)
        np.testing.assert_array_equal(xp.asnumpy(v.to_device("numpy")), want)
        np.testing.assert_array_equal(np.from_dlpack(v, device="cpu", copy=True), want)
        if x.device != xp.Device.create_device("numpy") and "cuda" not in device:
            np.testing.assert_array_equal(np.from_dlpack(v, device="cpu"), want)
        x[key] = -1.0
        a[key] = -1.0
        np.testing.assert_array_equal(xp.asnumpy(x), a)

    prop()


@pytest.mark.parametrize("device", device_params("numpy", "opencl:cpu", "cuda:0"))
def test_huge_slice_steps_give_numpys_element(device):
    assert_child_ok(MOD, "_huge_steps", device, timeout=300)


# ---- 12. the pickle reconstructors refuse what the standard does not cover ---------------------
class _Crafted:
    """Pickles as a call of ``fn(*args)``: what a crafted pickle can ask for."""

    def __init__(self, fn, *args):
        self.fn, self.args = fn, args

    def __reduce__(self):
        return self.fn, self.args


def _crafted_pickles(device):
    import pickle

    import usmarray as xp
    from usmarray._array import _restore_array
    from usmarray._device import _restore_device

    dev = xp.Device.create_device(device)
    good = np.arange(3.0)
    begin("a sound pickle still loads")
    r = pickle.loads(pickle.dumps(_Crafted(_restore_array, good, dev, "device")))
    np.testing.assert_array_equal(xp.asnumpy(r), good)
    assert r.device == dev
    bad_values = [
        ("object", np.array([1, "a"], dtype=object)), ("unicode", np.array(["ab", "c"])),
        ("bytes", np.array([b"ab"])), ("float16", np.arange(3, dtype=np.float16)),
        ("big-endian", _Crafted(np.frombuffer, bytes(24), ">f8")),  # pickle makes ">f8" native
        ("datetime", np.array(["2020"], "M8[D]")),
        ("structured", np.zeros(2, dtype=[("a", "f8"), ("b", "i4")])),
        ("void", np.zeros(2, dtype="V4")), ("a list", [1.0, 2.0]), ("a str", "abc"),
        ("None", None),
    ]
    for what, v in bad_values:
        begin(f"values: {what}")
        _expect(what, lambda v=v: pickle.loads(pickle.dumps(_Crafted(_restore_array, v, dev,
                                                                     "device"))), TypeError)
    for what, d in [("a str", str(device)), ("None", None), ("an int", 3),
                    ("a NumPy array", np.arange(2))]:
        begin(f"device: {what}")
        _expect(what, lambda d=d: pickle.loads(pickle.dumps(_Crafted(_restore_array, good, d,
                                                                     "device"))), TypeError)
    for what, u in [("None", None), ("an int", 1), ("bytes", b"device")]:
        begin(f"usm_type: {what}")
        _expect(what, lambda u=u: pickle.loads(pickle.dumps(_Crafted(_restore_array, good, dev,
                                                                     u))), TypeError)
    for what, args in [("ints", (1, 2)), ("None", (None, None)), ("a list", (["numpy"], "cpu"))]:
        begin(f"Device: {what}")
        _expect(what, lambda a=args: pickle.loads(pickle.dumps(_Crafted(_restore_device, *a))),
                TypeError)


@pytest.mark.parametrize("device", device_params("numpy", "opencl:cpu", "cuda:0"))
def test_crafted_pickles_are_refused(device):
    assert_child_ok(MOD, "_crafted_pickles", device, timeout=120)


# ---- 13. environment variables are validated when read, and named --------------------------------
#: what reads each variable, run in a fresh interpreter (some are read at import)
_ACTIONS = {
    "import": "import usmarray",
    "zeros": "import usmarray as xp; xp.zeros(1)",
    "unpickle": "import pickle, usmarray as xp; "
                "pickle.loads(pickle.dumps(xp.asarray([1.0], device='numpy')))",
    "rank": "from usmarray import _cubed_placement; print(_cubed_placement._rank())",
    "policy": "from usmarray import _cubed_placement; _cubed_placement.policy()",
    "cuda": "import usmarray as xp; xp.zeros(1, device='cuda:0')",
}


def _env_read(name: str, value: str, action: str):
    """Run ``action`` with ``name=value``; (refused: the ValueError names the variable
    and the value, stdout and stderr)."""
    import os
    import subprocess
    import sys

    from test_reliability_common import ROOT

    code = ("import sys\ntry:\n    " + _ACTIONS[action].replace("; ", "\n    ")
            + "\nexcept ValueError as exc:\n    print('REFUSED', exc)\nelse:\n"
            "    print('ACCEPTED')\n")
    env = dict(os.environ)
    env[name] = value
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env=env, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    refused = [ln for ln in proc.stdout.splitlines() if ln.startswith("REFUSED")]
    for ln in refused:
        assert name in ln and value in ln, ln
    return bool(refused), proc.stdout


_BAD_ENV = [
    ("USMARRAY_CUBED_RANK", "abc", "rank", None), ("USMARRAY_CUBED_RANK", "-1", "rank", None),
    ("USMARRAY_CUBED_RANK", "1.5", "rank", None),
    ("USMARRAY_UNPICKLE_DEVICE", "yes", "unpickle", None),
    ("USMARRAY_DEFAULT_DEVICE", "nosuchdevice", "zeros", None),
    ("USMARRAY_API_VERSION", "abc", "import", None),
    ("USMARRAY_CUBED_USM_TYPE", "bogus", "policy", None),
    ("USMARRAY_CUBED_DEVICES", "cpu/x", "policy", None),
    ("USMARRAY_SERIALIZE", "yes", "import", "sycl"),
    ("USMARRAY_SERIALIZE", "2", "import", "sycl"),
    ("USMARRAY_CUDA_LEAN", "off", "cuda", "cuda"),
]
_GOOD_ENV = [
    ("USMARRAY_CUBED_RANK", "3", "rank", None), ("USMARRAY_UNPICKLE_DEVICE", "default",
                                                  "unpickle", None),
    ("USMARRAY_SERIALIZE", "0", "import", "sycl"), ("USMARRAY_CUDA_LEAN", "0", "cuda", "cuda"),
]


def _env_params(cases):
    out = []
    for name, value, action, needs in cases:
        marks = [] if needs is None else list(
            device_params("cuda:0" if needs == "cuda" else "opencl:cpu")[0].marks)
        out.append(pytest.param(name, value, action, marks=marks, id=f"{name}={value}"))
    return out


@pytest.mark.parametrize("name, value, action", _env_params(_BAD_ENV))
def test_environment_variables_are_validated_and_named(name, value, action):
    refused, out = _env_read(name, value, action)
    assert refused, f"{name}={value!r} was accepted:\n{out[-2000:]}"


@pytest.mark.parametrize("name, value, action", _env_params(_GOOD_ENV))
def test_valid_environment_values_are_accepted(name, value, action):
    refused, out = _env_read(name, value, action)
    assert not refused, out[-2000:]

# ---- 14. max-like reductions of huge broadcast operands ---------------------------------------
@st.composite
def _broadcast_case(draw):
    nd = draw(st.integers(1, 4))
    shape = tuple(draw(st.integers(1, 5)) for _ in range(nd))
    src_shape = tuple(n if draw(st.booleans()) else 1 for n in shape)
    axis = draw(st.one_of(st.none(), st.integers(-nd, nd - 1),
                          st.lists(st.integers(0, nd - 1), min_size=1, max_size=nd,
                                   unique=True).map(tuple)))
    return (shape, src_shape, axis, draw(st.booleans()), draw(st.booleans()),
            draw(st.sampled_from(["max", "min", "any", "all"])), draw(st.integers(0, 2**32 - 1)))


def _idempotent_reductions():
    """With the SYCL pieces' limit lowered to 64 elements (pieces of 7), max, min, any
    and all of broadcast views give NumPy's values (NaNs included)."""
    import usmarray as xp
    from usmarray._backend._sycl import ranged

    ranged.LIMIT, ranged.PIECE = 64, 7

    @given(_broadcast_case())
    def prop(case):
        shape, src_shape, axis, keepdims, flip, fname, seed = case
        begin(f"{fname} of broadcast {src_shape}->{shape} axis={axis} keepdims={keepdims}")
        rng = np.random.default_rng(seed)
        if fname in ("any", "all"):
            src = rng.random(src_shape) < (0.9 if fname == "all" else 0.1)
        else:
            src = rng.integers(-5, 6, src_shape).astype(np.float64)
            src[rng.random(src_shape) < 0.05] = np.nan
        a = np.broadcast_to(src, shape)
        x = xp.broadcast_to(xp.asarray(src, device="opencl:cpu"), shape)
        if flip:
            a, x = np.flip(a, 0), xp.flip(x, axis=0)
        want = getattr(np, fname)(a, axis=axis, keepdims=keepdims)
        got = getattr(xp, fname)(x, axis=axis, keepdims=keepdims)
        assert got.shape == np.shape(want), (got.shape, np.shape(want))
        np.testing.assert_array_equal(xp.asnumpy(got), want)
        if got.ndim:
            got[(0,) * got.ndim] = got[(0,) * got.ndim]   # a result owns its elements

    prop()


def _idempotent_speed():
    """Over a broadcast operand in pieces, max and min cost no more than sum (they
    cost 2.8 times as much when every copy was reduced)."""
    import time

    import usmarray as xp
    from usmarray._backend._sycl import ranged

    ranged.LIMIT, ranged.PIECE = 2**22, 2**20
    src = xp.asarray(np.random.default_rng(0).random(1024, dtype=np.float32),
                     device="opencl:cpu")
    x = xp.broadcast_to(src, (2**16, 1024))

    def best(f):
        ts = []
        for _ in range(3):
            t = time.perf_counter()
            float(f(x))
            ts.append(time.perf_counter() - t)
        return min(ts)

    t_sum, t_max, t_min = best(xp.sum), best(xp.max), best(xp.min)
    print(f"sum {t_sum * 1e3:.1f} ms, max {t_max * 1e3:.1f} ms, min {t_min * 1e3:.1f} ms")
    assert t_max < t_sum and t_min < t_sum, (t_sum, t_max, t_min)
    assert float(xp.max(x)) == float(np.max(xp.asnumpy(src)))


@pytest.mark.parametrize("func", ["_idempotent_reductions", "_idempotent_speed"])
@pytest.mark.parametrize("device", device_params("opencl:cpu"))
def test_max_like_reductions_of_broadcast_operands_in_pieces(func, device):
    assert_child_ok(MOD, func, timeout=300)


if __name__ == "__main__":
    child_main(globals())
