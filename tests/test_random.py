"""usmarray.random: the Philox stream against its definition and NumPy (contract (b)),
bit-identical draws on every backend whatever the chunking (a, c), independent
streams, pickling, argument errors, statistical quality, and the backend-agnostic
examples of docs/random.md.

Devices: the NumPy backend, the SYCL OpenCL CPU device and ``cuda:0`` (marked ``gpu``;
skipped without a GPU).  Each device's draws are compared with the NumPy backend's."""

from __future__ import annotations

import math
import pickle
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from test_reliability_common import device_params

import usmarray as xp
import usmarray.random as ur
from usmarray.random import _kernels, _math

DEVICES = device_params("numpy", "opencl:cpu", "cuda:0")
OTHERS = device_params("opencl:cpu", "cuda:0")
ROOT = Path(__file__).resolve().parent.parent


def host(a):
    return xp.asnumpy(a)


def np_gen(seed):
    return np.random.Generator(np.random.Philox(seed))


# ---- the stream: Philox 4x64-10 and its counter layout ---------------------------------------
_M64 = 2**64 - 1


def _philox_block(counter: int, key: int) -> list[int]:
    """Philox 4x64-10 of one 256-bit counter and 128-bit key, from its definition
    (Salmon et al. 2011), in Python integers."""
    c = [(counter >> (64 * i)) & _M64 for i in range(4)]
    k = [key & _M64, key >> 64]
    for _ in range(10):
        p0, p1 = 0xD2E7470EE14C6C93 * c[0], 0xCA5A826395121157 * c[2]
        c = [(p1 >> 64) ^ c[1] ^ k[0], p1 & _M64, (p0 >> 64) ^ c[3] ^ k[1], p0 & _M64]
        k = [(k[0] + 0x9E3779B97F4A7C15) & _M64, (k[1] + 0xBB67AE8584CAA73B) & _M64]
    return c


@pytest.mark.parametrize("counter, key, words", [
    # Random123's known-answer vectors for philox4x64_10
    (0, 0, [0x16554D9ECA36314C, 0xDB20FE9D672D0FDC, 0xD7E772CEE186176B, 0x7E68B68AEC7BA23B]),
    (2**256 - 1, 2**128 - 1,
     [0x87B092C3013FE90B, 0x438C3C67BE8D0224, 0x9CC7D7C69CD777B6, 0xA09CAEBF594F0BA0]),
])
def test_the_definition_gives_random123s_known_answers(counter, key, words):
    assert _philox_block(counter, key) == words


def test_word_i_of_the_stream_is_block_i_div_4_at_counter_plus_one():
    rng = ur.default_rng(2024, device="numpy")
    key = rng.key[0] | rng.key[1] << 64
    words = host(rng.integers(0, 2**64, 12, dtype=xp.uint64))
    # integers over the whole uint64 range read two words per element: the first is the value
    first = [_philox_block(b + 1, key) for b in range(6)]
    assert words.tolist() == [first[i // 2][2 * (i % 2)] for i in range(12)]
    raw = host(ur.default_rng(2024, device="numpy").bytes(64)).view("<u8").tolist()
    assert raw == [w for b in first[:2] for w in b]


def test_the_key_is_numpys_philox_key_of_the_seed():
    for seed in (0, 1, 12345, [1, 2, 3], np.random.SeedSequence(99)):
        rng = ur.default_rng(seed)
        assert list(rng.key) == np.random.Philox(seed).state["state"]["key"].tolist()


# ---- contract (b): NumPy's Philox bit for bit ------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_random_is_numpys_random(device, dtype):
    for seed, n in ((0, 1), (7, 1001), (2**63 + 5, 4099)):
        got = host(ur.default_rng(seed, device=device).random(n, dtype=getattr(xp, dtype)))
        assert np.array_equal(got, np_gen(seed).random(n, dtype=dtype))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_a_sequence_of_calls_of_one_dtype_is_numpys(device, dtype):
    rng, ref = ur.default_rng(5, device=device), np_gen(5)
    for n in (3, 1, 10, 7, 0, 33):
        shape = (n,) if n % 2 else (n // 2, 2) if n else (0,)
        got = host(rng.random(shape, dtype=getattr(xp, dtype)))
        assert np.array_equal(got, ref.random(shape, dtype=dtype))


@pytest.mark.parametrize("device", DEVICES)
def test_uniform_and_bytes_are_numpys(device):
    got = host(ur.default_rng(11, device=device).uniform(-3.5, 2.25, 999, dtype=xp.float64))
    assert np.array_equal(got, np_gen(11).uniform(-3.5, 2.25, 999))
    got = bytes(host(ur.default_rng(11, device=device).bytes(1001)))
    assert got == np_gen(11).bytes(1001)


def test_spawn_and_jumped_give_numpys_streams():
    rng, ref = ur.default_rng(3), np_gen(3)
    for child, nchild in zip(rng.spawn(3), ref.spawn(3), strict=True):
        assert np.array_equal(host(child.random(50)), nchild.random(50))
    rng.random(5)  # a block started: jumped() moves past it, as NumPy's does
    ref_bits = np.random.Philox(3)
    np.random.Generator(ref_bits).random(5)
    assert np.array_equal(host(rng.jumped(2).random(40)),
                          np.random.Generator(ref_bits.jumped(2)).random(40))


# ---- contract (a) and (c): the same on every backend, whatever the chunking ------------------
def _draws(rng: ur.Generator) -> list:
    """One of every kind of draw, in an order that leaves the stream unaligned often."""
    return [
        rng.random(5), rng.random(7, dtype=xp.float32), rng.random((3, 4)),
        rng.integers(-3, 1000, 13, dtype=xp.int16), rng.integers(0, 2**40, 5),
        rng.integers(-(2**63), 2**63, 5), rng.integers(0, 2**64 - 1, 6, dtype=xp.uint64,
                                                       endpoint=True),
        rng.integers(-128, 127, 9, dtype=xp.int8, endpoint=True), rng.integers(5, 6, 3),
        rng.bytes(37), rng.uniform(-2, 5, 9), rng.uniform(-2, 5, 9, dtype=xp.float32),
        rng.standard_normal(11), rng.standard_normal(11, dtype=xp.float32),
        rng.normal(3, 2, 11, dtype=xp.float32), rng.normal(-1, 0.5, 4),
        rng.exponential(2, 11), rng.exponential(2, 11, dtype=xp.float32),
        rng.permutation(20), rng.choice(10, 5, replace=False), rng.choice(10, (2, 3)),
    ]


@pytest.mark.parametrize("device", OTHERS)
def test_every_draw_is_bit_identical_to_the_numpy_backends(device):
    want = [host(a) for a in _draws(ur.default_rng(2**40 + 3, device="numpy"))]
    got = [host(a) for a in _draws(ur.default_rng(2**40 + 3, device=device))]
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        assert g.dtype == w.dtype and g.shape == w.shape, k
        assert np.array_equal(g, w), (k, g, w)


@pytest.mark.parametrize("device", OTHERS)
@pytest.mark.parametrize("method", ["standard_normal", "exponential"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_normals_and_exponentials_agree_bit_for_bit(device, method, dtype):
    """Contract (c) promises 2 ulp; by construction they are identical."""
    n = 20001
    want = host(getattr(ur.default_rng(8, device="numpy"), method)(shape=n, dtype=getattr(xp, dtype)))
    got = host(getattr(ur.default_rng(8, device=device), method)(shape=n, dtype=getattr(xp, dtype)))
    assert np.array_equal(got, want)


@pytest.mark.parametrize("device", OTHERS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_host_transforms_in_chunks_give_the_devices_draws(device, dtype, monkeypatch):
    """The NumPy backend transforms a draw a chunk at a time (forced here to 8 elements
    or pairs): calls that start and end inside a pair or a chunk, with loc and scale, give
    the device's values bit for bit."""
    from usmarray.random import _philox

    d = getattr(xp, dtype)
    calls = [lambda g: g.standard_normal(1, dtype=d), lambda g: g.normal(1.5, 2.25, 97, dtype=d),
             lambda g: g.exponential(1.75, 45, dtype=d), lambda g: g.standard_normal(64, dtype=d),
             lambda g: g.normal(-3.0, 1.0, 33, dtype=d), lambda g: g.exponential(1.0, 3, dtype=d)]
    on_device = ur.default_rng(9, device=device)
    want = [host(c(on_device)) for c in calls]
    monkeypatch.setattr(_philox, "_CHUNK", 8)
    g = ur.default_rng(9, device="numpy")
    got = [host(c(g)) for c in calls]
    for k, (a, w) in enumerate(zip(got, want, strict=True)):
        assert a.dtype == w.dtype and np.array_equal(a, w), k


@pytest.mark.parametrize("device", DEVICES)
def test_drawing_n_then_m_is_drawing_n_plus_m(device):
    calls = {
        "random64": lambda g, n: g.random(n), "random32": lambda g, n: g.random(n, dtype=xp.float32),
        "int": lambda g, n: g.integers(0, 7, n, dtype=xp.uint8),
        "int2": lambda g, n: g.integers(0, 3 * 2**40, n),
        "bytes": lambda g, n: g.bytes(n), "normal64": lambda g, n: g.standard_normal(n),
        "normal32": lambda g, n: g.standard_normal(n, dtype=xp.float32),
        "exp32": lambda g, n: g.exponential(1.0, n, dtype=xp.float32),
        "uniform32": lambda g, n: g.uniform(1, 2, n, dtype=xp.float32),
    }
    for name, call in calls.items():
        whole = host(call(ur.default_rng(4, device=device), 61))
        for split in ((1, 60), (3, 58), (17, 44), (0, 61), (30, 31)):
            g = ur.default_rng(4, device=device)
            parts = [host(call(g, split[0])), host(call(g, split[1]))]
            assert np.array_equal(np.concatenate(parts), whole), (name, split)


@pytest.mark.parametrize("device", device_params("opencl:cpu"))
def test_a_launch_in_pieces_gives_the_same_draws(device, monkeypatch):
    """The factory splits a SYCL launch past MAX_WORK_ITEMS work-items into pieces; the
    draws do not change (forced here with a limit of 5 blocks)."""
    from usmarray._backend._sycl import program

    want = [host(a) for a in _draws(ur.default_rng(6, device=device))]
    monkeypatch.setattr(program, "MAX_WORK_ITEMS", 5)
    monkeypatch.setattr(_kernels, "_FLAT", {})
    for k in _kernels._KERNELS.values():  # variants chosen under the old limit
        k[0]._variants.clear()
    got = [host(a) for a in _draws(ur.default_rng(6, device=device))]
    for g, w in zip(got, want, strict=True):
        assert np.array_equal(g, w)


@pytest.mark.parametrize("device", device_params("opencl:cpu"))
def test_a_device_the_factory_cannot_compile_for_gets_the_same_draws(device, monkeypatch):
    """A SYCL device that is not an OpenCL one (Level Zero): the draws are made on the
    host and copied to it, the same stream."""
    monkeypatch.setattr(_kernels, "compiles", lambda be, q: False)
    want = [host(a) for a in _draws(ur.default_rng(12, device="numpy"))]
    got = _draws(ur.default_rng(12, device=device))
    assert all(a.device == xp.Device.create_device(device) for a in got)
    for g, w in zip(got, want, strict=True):
        assert np.array_equal(host(g), w)


@pytest.mark.parametrize("kind", ["normal", "exp"])
def test_float32_normals_and_exponentials_need_no_double_precision(kind):
    """They are computed in float32 arithmetic on every target, so a device without
    double precision makes the same draws."""
    for lang in ("opencl", "cuda"):
        _e, lines = _kernels._values(_kernels._Lang(lang), kind, "float32")
        body = "\n".join(lines)
        assert "float64" not in body and "__d" not in body, (lang, body)


def _ulp32(got, ref):
    nz = ref != 0
    assert np.all(got[~nz] == 0)
    return (np.abs(got[nz] - ref[nz]) / np.spacing(np.abs(ref[nz]).astype(np.float32))).max()


def test_float32_normals_and_exponentials_are_within_4_ulp_of_exact():
    """The float32 transforms against extended precision from the same bits: log and
    sin/cos (and their edges), and the normals they make."""
    ld = np.longdouble
    if np.finfo(ld).nmant < 63:
        pytest.skip("needs an extended-precision long double")
    pi = ld("3.14159265358979323846264338327950288")
    rng = np.random.default_rng(5)
    top = np.uint64(2**32)
    edge = top - np.uint64(_math.NEAR_ONE)
    m = np.concatenate([rng.integers(1, 2**32 + 1, 300000, dtype=np.uint64),
                        np.arange(1, 300, dtype=np.uint64), top - np.arange(300, dtype=np.uint64),
                        edge + np.arange(-300, 300).astype(np.uint64)])
    lg = _math.np_log32((top - m).astype(np.uint32))
    assert lg.dtype == np.float32
    ref_lg = np.log1p((m.astype(ld) - ld(2**32)) / ld(2**32))
    assert _ulp32(lg, ref_lg) <= 2.5
    eighth = np.uint32(1 << 21)
    edges = (eighth * np.arange(1, 8, dtype=np.uint32))[:, None] + np.arange(-2, 3).astype(np.uint32)
    a = np.concatenate([rng.integers(0, 2**24, 300000).astype(np.uint32), edges.ravel(),
                        np.arange(64, dtype=np.uint32), np.uint32(2**24) - np.arange(1, 64, dtype=np.uint32)])
    sn, cs = _math.np_sincos_turns32(a.copy())
    q4 = (a + eighth) >> np.uint32(22)
    xr = 2 * pi * (a.astype(np.int64) - (q4.astype(np.int64) << 22)).astype(ld) / ld(2**24)
    q = (q4 & np.uint32(3)).astype(int)
    rs = np.choose(q, [np.sin(xr), np.cos(xr), -np.sin(xr), -np.cos(xr)])
    rc = np.choose(q, [np.cos(xr), -np.sin(xr), -np.cos(xr), np.sin(xr)])
    assert _ulp32(sn, rs) <= 2 and _ulp32(cs, rc) <= 2
    # the normals, from the words of the stream they read
    n = 400000
    z = host(ur.default_rng(11, device="numpy").standard_normal(n, dtype=xp.float32))
    w = np.random.Philox(key=_key_int(ur.default_rng(11).key)).random_raw(n // 2)
    rad = (w & np.uint64(0xFFFFFFFF)).astype(ld) + 1
    ang = (w >> np.uint64(40)).astype(ld)
    r = np.sqrt(-2 * np.log(rad / ld(2**32)))
    ref = np.empty(n, dtype=ld)
    ref[0::2] = r * np.cos(2 * pi * ang / ld(2**24))
    ref[1::2] = r * np.sin(2 * pi * ang / ld(2**24))
    assert _ulp32(z, ref) <= 4


def _key_int(key):
    return key[0] | key[1] << 64


def test_the_transforms_are_within_2_ulp_of_exact():
    """``log`` and ``sin``/``cos`` of _math against extended precision, on random inputs and
    the edges (m = 1 and 2**B, quarter turns and their neighbours)."""
    ld = np.longdouble
    if np.finfo(ld).nmant < 63:
        pytest.skip("needs an extended-precision long double")
    pi = ld("3.14159265358979323846264338327950288")
    rng = np.random.default_rng(0)
    for bits in (53, 32):
        top = np.uint64(2**bits)
        m = np.concatenate([rng.integers(1, 2**bits + 1, 200000, dtype=np.uint64),
                            np.arange(1, 300, dtype=np.uint64), top - np.arange(300, dtype=np.uint64)])
        got = _math.np_log_scaled(m, bits)
        x = m.astype(ld) / ld(2**bits)
        ref = np.where(x > 0.5, np.log1p((m.astype(ld) - ld(2**bits)) / ld(2**bits)), np.log(x))
        nz = ref != 0
        assert np.all(got[~nz] == 0)
        assert (np.abs(got[nz] - ref[nz]) / np.spacing(np.abs(got[nz]))).max() <= 2
        eighth = np.uint64(1 << (bits - 3))
        edges = eighth * np.arange(1, 8, dtype=np.uint64)
        m = np.concatenate([rng.integers(0, 2**bits, 200000, dtype=np.uint64),
                            np.arange(64, dtype=np.uint64), edges - np.uint64(1), edges,
                            edges + np.uint64(1), top - np.arange(1, 64, dtype=np.uint64)])
        sn, cs = _math.np_sincos_turns(m, bits)
        q4 = (m + eighth) >> np.uint64(bits - 2)
        d = m.astype(np.int64) - (q4 << np.uint64(bits - 2)).astype(np.int64)
        xr = 2 * pi * d.astype(ld) / ld(2**bits)  # the exact reduction, then the quadrant
        q = (q4 & np.uint64(3)).astype(int)
        rs = np.choose(q, [np.sin(xr), np.cos(xr), -np.sin(xr), -np.cos(xr)])
        rc = np.choose(q, [np.cos(xr), -np.sin(xr), -np.cos(xr), np.sin(xr)])
        for got, ref in ((sn, rs), (cs, rc)):
            nz = ref != 0
            assert np.all(got[~nz] == 0)
            assert (np.abs(got[nz] - ref[nz]) / np.spacing(np.abs(got[nz]))).max() <= 2


# ---- independence, devices, pickling ---------------------------------------------------------
def test_spawned_and_jumped_streams_differ_and_are_uncorrelated():
    rng = ur.default_rng(1)
    streams = [rng, *rng.spawn(2), rng.jumped(), rng.jumped(2)]
    draws = np.stack([host(g.random(20000)) for g in streams])
    corr = np.corrcoef(draws)
    off = corr[~np.eye(len(streams), dtype=bool)]
    assert np.abs(off).max() < 0.04  # independent: |r| ~ 1/sqrt(20000) = 0.007
    keys = {g.key for g in streams[:3]}
    assert len(keys) == 3 and streams[3].key == rng.key


def test_spawn_counts_its_children():
    rng = ur.default_rng(1)
    a, b = rng.spawn(1), rng.spawn(1)
    assert a[0].key != b[0].key


@pytest.mark.parametrize("device", DEVICES)
def test_a_pickled_generator_goes_on_from_where_it_was(device):
    rng = ur.default_rng(17, device=device)
    rng.random(3, dtype=xp.float32)
    back = pickle.loads(pickle.dumps(rng))
    assert back.key == rng.key and back.offset == rng.offset and back.device == rng.device
    assert np.array_equal(host(back.integers(0, 100, 50)), host(rng.integers(0, 100, 50)))
    assert back.spawn(1)[0].key == rng.spawn(1)[0].key


@pytest.mark.parametrize("device", DEVICES)
def test_results_are_made_on_the_device_asked_for(device):
    rng = ur.default_rng(0)
    assert rng.random(3, device=device).device == xp.Device.create_device(device)
    on = ur.default_rng(0, device=device)
    assert on.standard_normal(2).device == xp.Device.create_device(device)
    x = xp.arange(6, device=device)
    assert ur.default_rng(0).permutation(x).device == x.device
    with xp.using_device(device):
        assert ur.default_rng(0).integers(0, 5, 2).device == xp.Device.create_device(device)


def test_a_generator_is_its_own_default_rng():
    rng = ur.default_rng(3)
    assert ur.default_rng(rng) is rng
    with pytest.raises(ValueError, match="pass device= to its calls"):
        ur.default_rng(rng, device="numpy")


@pytest.mark.parametrize("device", DEVICES)
def test_shuffle_permutation_and_choice_keep_the_elements(device):
    rng = ur.default_rng(21, device=device)
    x = xp.reshape(xp.arange(40, device=device), (10, 4))
    p = host(rng.permutation(x))
    assert sorted(p[:, 0].tolist()) == list(range(0, 40, 4)) and np.all(p[:, 1] == p[:, 0] + 1)
    y = xp.asarray(x, copy=True)
    rng.shuffle(y)
    assert sorted(host(y)[:, 0].tolist()) == list(range(0, 40, 4))
    c = host(rng.choice(x, 6, replace=False))
    assert c.shape == (6, 4) and len(set(c[:, 0].tolist())) == 6
    w = host(rng.choice(5, 2000, p=[0.1, 0.0, 0.2, 0.3, 0.4]))
    assert 1 not in w.tolist() and set(w.tolist()) == {0, 2, 3, 4}
    k = host(rng.choice(5, 3, replace=False, p=[0.1, 0.0, 0.2, 0.3, 0.4]))
    assert len(set(k.tolist())) == 3 and 1 not in k.tolist()
    assert rng.choice(5).shape == () and rng.random().shape == ()


# ---- bad arguments ---------------------------------------------------------------------------
@pytest.mark.parametrize("call, exc, match", [
    (lambda: ur.default_rng(-1), ValueError, "negative number.*non-negative int"),
    (lambda: ur.default_rng(1.5), TypeError, "is not a seed.*SeedSequence"),
    (lambda g: g.random(3, dtype=xp.int32), TypeError, "real floating dtype"),
    (lambda g: g.random(-1), ValueError, "negative"),
    (lambda g: g.random((2, "a")), TypeError, "shape"),
    (lambda g: g.uniform(2.0, 1.0), ValueError, "low <= high"),
    (lambda g: g.uniform(0.0, math.inf), ValueError, "finite"),
    (lambda g: g.uniform(-1e308, 1e308), ValueError, "overflows.*narrower"),
    (lambda g: g.uniform(0.0, 1e300, dtype=xp.float32), ValueError, "overflows float32"),
    (lambda g: g.normal(0.0, -1.0), ValueError, "non-negative"),
    (lambda g: g.normal(xp.asarray(0.0), 1.0), TypeError, "loc \\+ scale"),
    (lambda g: g.exponential(-2.0), ValueError, "non-negative"),
    (lambda g: g.integers(5, 5), ValueError, "empty.*endpoint=True"),
    (lambda g: g.integers(5, 2), ValueError, "empty.*low < high"),
    (lambda g: g.integers(0, 300, dtype=xp.uint8), ValueError, "does not fit uint8.*wider"),
    (lambda g: g.integers(-1, 3, dtype=xp.uint64), ValueError, "does not fit uint64"),
    (lambda g: g.integers(0, 3, dtype=xp.float64), TypeError, "integer dtype"),
    (lambda g: g.integers(0.0, 3), TypeError, "low must be a Python int"),
    (lambda g: g.integers(0, 3, endpoint=1), TypeError, "True or False"),
    (lambda g: g.bytes(-2), ValueError, "non-negative"),
    (lambda g: g.permutation([1, 2, 3]), TypeError, "usmarray.asarray"),
    (lambda g: g.permutation(-3), ValueError, "non-negative"),
    (lambda g: g.permutation(xp.asarray(3)), ValueError, "at least one dimension"),
    (lambda g: g.shuffle([1, 2]), TypeError, "usm_ndarray"),
    (lambda g: g.choice(3, 5, replace=False), ValueError, "replace=True or a smaller size"),
    (lambda g: g.choice(0, 2), ValueError, "empty population"),
    (lambda g: g.choice(3, p=[0.5, 0.6, 0.1]), ValueError, "divide p by its sum"),
    (lambda g: g.choice(3, p=[0.5, 0.5]), ValueError, "one probability per element"),
    (lambda g: g.choice(3, p=[1.5, -0.5, 0.0]), ValueError, "non-negative"),
    (lambda g: g.choice(3, p=["a", "b", "c"]), TypeError, "sequence of floats"),
    (lambda g: g.choice(3, 3, replace=False, p=[0.5, 0.5, 0.0]), ValueError,
     "only 2 of p's probabilities are non-zero"),
    (lambda g: g.choice(3, replace=None), TypeError, "True or False"),
    (lambda g: g.spawn(-1), ValueError, "non-negative"),
    (lambda g: g.jumped(1.0), TypeError, "must be an int"),
])
def test_bad_arguments_name_the_fix(call, exc, match):
    rng = ur.default_rng(0, device="numpy")
    with pytest.raises(exc, match=match):
        call(rng) if call.__code__.co_argcount else call()
    assert rng.offset == 0  # nothing was drawn


def test_shuffle_refuses_a_read_only_array():
    x = xp.broadcast_to(xp.arange(3, device="numpy"), (2, 3))
    with pytest.raises(ValueError, match="read-only"):
        ur.default_rng(0).shuffle(x)


def test_xp_random_without_the_import_says_where_random_numbers_are():
    code = "import usmarray as xp\ntry:\n    xp.random\nexcept AttributeError as e:\n    print(e)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, cwd=ROOT).stdout
    assert "usmarray.random.default_rng(seed)" in out, out


# ---- statistical quality ---------------------------------------------------------------------
@pytest.mark.parametrize("device", device_params("numpy", "opencl:cpu"))
def test_uniform_floats_fill_their_bins_evenly(device):
    rng = ur.default_rng(100, device=device)
    for dtype in (xp.float64, xp.float32):
        u = host(rng.random(200000, dtype=dtype))
        assert u.min() >= 0 and u.max() < 1
        counts = np.histogram(u, bins=100, range=(0, 1))[0]
        assert stats.chisquare(counts).pvalue > 1e-3


@pytest.mark.parametrize("device", device_params("numpy", "opencl:cpu"))
def test_normals_and_exponentials_pass_kolmogorov_smirnov(device):
    rng = ur.default_rng(101, device=device)
    for dtype in (xp.float64, xp.float32):
        z = host(rng.normal(2.0, 3.0, 100001, dtype=dtype))
        assert stats.kstest(z, "norm", args=(2.0, 3.0)).pvalue > 1e-3
        e = host(rng.exponential(0.5, 100001, dtype=dtype))
        assert e.min() >= 0 and stats.kstest(e, "expon", args=(0, 0.5)).pvalue > 1e-3


@pytest.mark.parametrize("device", device_params("numpy", "opencl:cpu"))
def test_integers_over_odd_ranges_have_no_modulo_bias(device):
    """Over 3 * 2**30 values a 32-bit draw reduced modulo the range would make the first
    2**30 values twice as likely (a third of the range taking half the draws); over
    3 * 2**62 a 64-bit draw the same.  Each third gets a third here, and small odd
    ranges fill their values evenly."""
    rng = ur.default_rng(102, device=device)
    n = 60000
    for r, dtype in ((3 * 2**30, xp.uint32), (3 * 2**62, xp.uint64)):
        v = host(rng.integers(0, r, n, dtype=dtype))
        assert v.max() < r
        thirds = np.bincount((v // (r // 3)).astype(np.int64), minlength=3)
        assert stats.chisquare(thirds).pvalue > 1e-3, thirds
    for lo, hi in ((0, 7), (-5, 6), (10, 10 + 999)):
        v = host(rng.integers(lo, hi, n, dtype=xp.int16))
        assert v.min() >= lo and v.max() < hi
        assert stats.chisquare(np.bincount(v - lo, minlength=hi - lo)).pvalue > 1e-3
    b = host(rng.bytes(80000))
    assert stats.chisquare(np.bincount(b, minlength=256)).pvalue > 1e-3


def test_permutations_are_uniform():
    rng = ur.default_rng(103, device="numpy")
    perms = host(xp.stack([rng.permutation(4) for _ in range(2400)]))
    codes = perms @ np.array([64, 16, 4, 1])
    counts = np.unique(codes, return_counts=True)[1]
    assert len(counts) == 24 and stats.chisquare(counts).pvalue > 1e-3


# ---- docs/random.md: the backend-agnostic examples --------------------------------------------
def _page_functions() -> dict:
    """The functions the examples of docs/random.md define, run in one namespace."""
    text = (ROOT / "docs" / "random.md").read_text()
    ns: dict = {"xp": xp, "usmarray": sys.modules["usmarray"]}
    for block in re.findall(r"```python\n(.*?)```", text, re.S):
        if "def kmeans_plus_plus" in block or "def randomized_svd" in block:
            exec(compile(block.split("\n\n\n")[0], "docs/random.md", "exec"), ns)
    return ns


@pytest.mark.parametrize("device", device_params("opencl:cpu", "cuda:0"))
def test_the_pages_examples_give_the_same_result_on_every_backend(device):
    ns = _page_functions()
    centres, svals = {}, {}
    for dev in ("numpy", device):
        gen = ur.default_rng(0, device=dev)
        offsets = xp.asarray([[0.0, 0.0], [20.0, 0.0], [0.0, 20.0]], device=dev)
        points = xp.concat([gen.standard_normal((200, 2)) + offsets[j, :] for j in range(3)])
        centres[dev] = host(ns["kmeans_plus_plus"](points, 3, ur.default_rng(3)))
        gen = ur.default_rng(2, device=dev)
        a = gen.standard_normal((300, 5)) @ gen.standard_normal((5, 80))
        svals[dev] = host(ns["randomized_svd"](a, 5, ur.default_rng(3))[1])
    assert np.array_equal(centres["numpy"], centres[device])
    # three well separated clusters: one centre in each
    assert sorted(np.round(centres["numpy"] / 20).astype(int).tolist()) == [[0, 0], [0, 1], [1, 0]]
    np.testing.assert_allclose(svals[device], svals["numpy"], rtol=1e-10)
    gen = ur.default_rng(2, device="numpy")
    a = host(gen.standard_normal((300, 5))) @ host(gen.standard_normal((5, 80)))
    np.testing.assert_allclose(svals["numpy"], np.linalg.svd(a, compute_uv=False)[:5], rtol=1e-9)
