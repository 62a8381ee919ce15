"""The stream: Philox 4x64-10 as NumPy's ``np.random.Philox`` runs it, and its host side.

The stream of a key is the sequence of 32-byte blocks ``philox(key, counter)`` for the
counters 1, 2, 3, ... (256-bit, wrapping; NumPy increments its counter before each
block, so a fresh ``Philox`` starts at counter 1).  Block ``b`` (0-based) holds the
64-bit words ``4b .. 4b + 3``, each little-endian: bytes, 32-bit halves (low half
first) and words of the stream are one sequence.  Every distribution reads its
elements from fixed-size units of that sequence (:data:`UNIT`), so element ``i`` of a
call is a pure function of (key, the unit's index): the device kernels
(``_kernels.py``) compute any element on its own, the host computes the same with
NumPy, here.

On the host the words come from NumPy's own Philox bit generator, set to the block's
counter: it is the reference implementation, written in C.  The transforms after it
are NumPy operations that round exactly as the kernels' C does (no fused multiply-add
on either side).
"""

from __future__ import annotations

import numpy as np

from ._math import TWO_PI, np_log_scaled, np_sincos_turns

#: Philox 4x64's multipliers and Weyl increments (Salmon et al. 2011, Random123)
M0, M1 = 0xD2E7470EE14C6C93, 0xCA5A826395121157
W0, W1 = 0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B
ROUNDS = 10
BLOCK_BYTES = 32
#: the stream's length in bytes: 2**256 blocks of 32 bytes (the counter then wraps)
STREAM_BYTES = 2**256 * BLOCK_BYTES
#: jumped() advances the counter by this many blocks, as NumPy's Philox.jumped() does
JUMP_BLOCKS = 2**128

#: bytes per element of each kind of draw: "f" a uniform float, "u64" a raw word,
#: "u8" a byte, "int" an integer from one word, "int2" an integer from two words,
#: "normal"/"exp" a normal/exponential variate (the float's size: one word for
#: float64, one 32-bit half for float32)
UNIT = {"u64": 8, "u8": 1, "int": 8, "int2": 16}
_M32 = np.uint64(0xFFFFFFFF)
_S11, _S32 = np.uint64(11), np.uint64(32)
#: 2**-53 and 2**-32: a word's top 53 bits, or a half's 32 bits, scaled into [0, 1)
_EPS53 = 2.0**-53
#: elements per NumPy pass of the normal and exponential transforms: their
#: temporaries (a few arrays of this many float64) stay in the CPU's cache
_CHUNK = 1 << 13


def unit_bytes(kind: str, itemsize: int) -> int:
    """Bytes of the stream one element of ``kind`` reads (floats: their own size)."""
    return UNIT.get(kind, itemsize)


def counter_words(block: int) -> tuple[int, int, int, int]:
    """The 256-bit counter of stream block ``block`` (0-based) as four 64-bit words,
    least significant first: ``block + 1`` modulo 2**256."""
    c = (block + 1) % 2**256
    return (c & 0xFFFFFFFFFFFFFFFF, (c >> 64) & 0xFFFFFFFFFFFFFFFF,
            (c >> 128) & 0xFFFFFFFFFFFFFFFF, c >> 192)


class HostStream:
    """NumPy's Philox bit generator for one key, positioned on demand (not thread-safe:
    the generator calls it under its lock)."""

    __slots__ = ("key", "bitgen", "gen", "_key_array")

    def __init__(self, key: tuple[int, int]) -> None:
        self.key = key
        self.bitgen = np.random.Philox(key=key[0] | key[1] << 64)
        self.gen = np.random.Generator(self.bitgen)
        self._key_array = np.array(key, dtype=np.uint64)

    def seek(self, word: int) -> None:
        """Make word ``word`` of the stream the bit generator's next 64-bit output."""
        block, lane = divmod(word, 4)
        counter = np.array(counter_words(block - 1), dtype=np.uint64)
        self.bitgen.state = {
            "bit_generator": "Philox", "state": {"counter": counter, "key": self._key_array},
            "buffer": np.zeros(4, dtype=np.uint64), "buffer_pos": 4, "has_uint32": 0,
            "uinteger": 0,
        }
        if lane:
            self.bitgen.random_raw(lane)

    def seek_half(self, half: int) -> None:
        """Make 32-bit half ``half`` of the stream the next 32-bit output."""
        self.seek(half // 2)
        if half % 2:
            word = int(self.bitgen.random_raw())
            state = self.bitgen.state
            state["has_uint32"] = 1
            state["uinteger"] = word >> 32
            self.bitgen.state = state

    def words(self, first: int, count: int) -> np.ndarray:
        """Words ``first .. first + count - 1`` of the stream (uint64)."""
        self.seek(first)
        return self.bitgen.random_raw(count)


def mulhi(a: np.ndarray, b: int) -> np.ndarray:
    """The high 64 bits of the 128-bit products ``a * b`` (``a`` uint64, ``0 <= b <
    2**64``), exactly, from 32-bit halves."""
    a_lo, a_hi = a & _M32, a >> _S32
    b_lo, b_hi = np.uint64(b & 0xFFFFFFFF), np.uint64(b >> 32)
    lo_lo = a_lo * b_lo
    hi_lo = a_hi * b_lo
    cross = (lo_lo >> _S32) + (hi_lo & _M32) + a_lo * b_hi  # < 2**64: no carry is lost
    return a_hi * b_hi + (hi_lo >> _S32) + (cross >> _S32)


def offsets_below(kind: str, words: np.ndarray, r: int) -> np.ndarray:
    """Per element, ``floor(x * r / 2**k)`` for its ``k``-bit draw ``x``: one word
    (``"int"``, ``r <= 2**32``) or two (``"int2"``: the first word the high one);
    ``r`` is the range size modulo 2**64 (0 standing for 2**64)."""
    if kind == "int":  # r <= 2**32: (hi * r + (lo * r >> 32)) >> 32, no carry lost
        lo = words & _M32
        lo *= np.uint64(r)
        lo >>= _S32
        words >>= _S32
        words *= np.uint64(r)
        words += lo
        words >>= _S32
        return words
    hi, lo = words[0::2], words[1::2]
    if r == 0:
        return hi.copy()
    a_hi, a_lo = mulhi(hi, r), hi * np.uint64(r)
    b_hi = mulhi(lo, r)
    low_sum = a_lo + b_hi
    return a_hi + (low_sum < a_lo).astype(np.uint64)


def _pairs(stream: HostStream, kind_bytes: int, a0: int, n: int) -> tuple[np.ndarray, np.ndarray, int]:
    """The radius and angle draws of the Box-Muller pairs that elements ``a0 .. a0 + n - 1``
    (units of ``kind_bytes``) fall in, and the index of element ``a0`` among the pairs'
    outputs.  float64: pair ``p`` is words ``2p`` (radius) and ``2p + 1`` (angle);
    float32: pair ``p`` is word ``p``, its low half the radius, its high half the angle."""
    p0, p1 = a0 // 2, (a0 + n - 1) // 2 + 1
    if kind_bytes == 8:
        w = stream.words(2 * p0, 2 * (p1 - p0))
        return w[0::2], w[1::2], a0 - 2 * p0
    halves = stream.words(p0, p1 - p0).astype("<u8").view("<u4")
    return halves[0::2], halves[1::2], a0 - 2 * p0


def host_fill(stream: HostStream, kind: str, d: np.dtype, a0: int, n: int, params: tuple,
              out: np.ndarray, wide: bool = True) -> None:
    """Write elements ``a0 .. a0 + n - 1`` (unit indices) of ``kind`` into the flat
    ``out`` (dtype ``d``), as the device kernels compute them; ``wide``: float32
    normals and exponentials are computed in float64 and rounded (else in float32, as
    on a device without double precision)."""
    if kind == "f":
        if d.itemsize == 8:
            stream.seek(a0)
        else:
            stream.seek_half(a0)
        stream.gen.random(n, dtype=d.type, out=out)  # NumPy's own: bit for bit the same
        return
    if kind == "uniform":
        host_fill(stream, "f", d, a0, n, (), out)
        lo, span = params
        out *= d.type(span)
        out += d.type(lo)
        return
    if kind == "u64":
        out[...] = stream.words(a0, n)
        return
    if kind == "u8":
        w0 = a0 // 8
        w = stream.words(w0, (a0 + n + 7) // 8 - w0).astype("<u8")
        out[...] = w.view(np.uint8)[a0 - 8 * w0:a0 - 8 * w0 + n]
        return
    if kind in ("int", "int2"):
        low, r = params
        per = 2 if kind == "int2" else 1
        off = offsets_below(kind, stream.words(per * a0, per * n), r)
        out[...] = (off + np.uint64(low)).astype(d, casting="unsafe")
        return
    if kind == "normal":
        _normal(stream, d, a0, n, params, out, wide)
        return
    if kind == "exp":
        _exponential(stream, d, a0, n, params, out, wide)
        return
    raise AssertionError(kind)  # pragma: no cover


def _normal(stream: HostStream, d: np.dtype, a0: int, n: int, params: tuple, out: np.ndarray,
            wide: bool) -> None:
    """Box-Muller: ``z = sqrt(-2 log u1) * (cos, sin)(2 pi u2)``, the even element of a
    pair the cosine, the odd one the sine, ``u1`` in (0, 1] and ``u2`` in [0, 1) from the
    pair's radius and angle draws; then ``loc + scale * z`` in the dtype."""
    rad, ang, skip = _pairs(stream, d.itemsize, a0, n)
    bits = 53 if d.itemsize == 8 else 32
    if bits == 53:
        rad = (rad >> _S11) + np.uint64(1)
        ang = ang >> _S11
    else:
        rad = rad.astype(np.uint64)
        rad += np.uint64(1)
        ang = ang.astype(np.uint64)
    loc, scale = d.type(params[0]), d.type(params[1])
    z = np.empty(2 * len(rad), dtype=d)
    for i in range(0, len(rad), _CHUNK):
        j = min(i + _CHUNK, len(rad))
        if wide:
            r = np_log_scaled(rad[i:j], bits, bits == 32)
            r *= -2.0
            np.sqrt(r, out=r)
            sn, cs = np_sincos_turns(ang[i:j], bits, bits == 32)
        else:  # float32 only, as a device without double precision computes it
            top = ((rad[i:j] - np.uint64(1)) >> np.uint64(8)) + np.uint64(1)  # of the half
            u1 = top.astype(np.float32) * np.float32(2.0**-24)
            u2 = (ang[i:j] >> np.uint64(8)).astype(np.float32) * np.float32(2.0**-24)
            r = np.sqrt(np.log(u1) * np.float32(-2.0))
            u2 *= np.float32(TWO_PI)
            sn, cs = np.sin(u2), np.cos(u2)
        cs *= r
        sn *= r
        zc = z[2 * i:2 * j]
        zc[0::2] = cs
        zc[1::2] = sn
        zc *= scale
        zc += loc
    out[...] = z[skip:skip + n]


def _exponential(stream: HostStream, d: np.dtype, a0: int, n: int, params: tuple,
                 out: np.ndarray, wide: bool) -> None:
    """``-log(1 - u)`` for u uniform in [0, 1) (``1 - u`` exact: ``(2**53 - m) 2**-53``,
    or ``(2**32 - h) 2**-32``), then ``scale * e`` in the dtype."""
    if d.itemsize == 8:
        m, bits = np.uint64(2**53) - (stream.words(a0, n) >> _S11), 53
    else:
        w0 = a0 // 2
        w = stream.words(w0, (a0 + n + 1) // 2 - w0)
        h = np.stack([w & _M32, w >> _S32], axis=1).reshape(-1)[a0 - 2 * w0:a0 - 2 * w0 + n]
        m, bits = np.uint64(2**32) - h, 32
    scale = d.type(params[0])
    for i in range(0, n, _CHUNK):
        j = min(i + _CHUNK, n)
        if wide:
            e = np_log_scaled(m[i:j], bits, bits == 32)
        else:  # float32 only, as a device without double precision computes it
            top = np.uint64(2**24) - ((np.uint64(2**32) - m[i:j]) >> np.uint64(8))  # of the half
            e = np.log(top.astype(np.float32) * np.float32(2.0**-24))
        np.negative(e, out=e)
        res = out[i:j]
        res[...] = e
        res *= scale
