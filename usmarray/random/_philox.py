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

from collections.abc import Iterator

import numpy as np

from ._math import Scratch, np_log32, np_log_scaled, np_sincos_turns, np_sincos_turns32

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
_LAST_64 = 2**64 - 1
_S11, _S32 = np.uint64(11), np.uint64(32)
#: 2**-53 and 2**-32: a word's top 53 bits, or a half's 32 bits, scaled into [0, 1)
_EPS53 = 2.0**-53
#: units (elements; pairs of normals) per chunk of the host transforms, each NumPy pass
#: covering a chunk: with 2**13, normals took 1.2-1.5x as long (a pass's fixed cost), with
#: 2**17 1.1-1.25x (the work arrays leave the CPU's L2 cache)
_CHUNK = 1 << 15


def unit_bytes(kind: str, itemsize: int) -> int:
    """Bytes of the stream one element of ``kind`` reads (floats: their own size)."""
    return UNIT.get(kind, itemsize)


def counter_words(block: int) -> tuple[int, int, int, int]:
    """The 256-bit counter of stream block ``block`` (0-based) as four 64-bit words,
    least significant first: ``block + 1`` modulo 2**256."""
    if block < _LAST_64:  # the commonest case: a one-word counter
        return (block + 1, 0, 0, 0)
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
    ``r`` is the range size modulo 2**64 (0 standing for 2**64).  ``words``: uint64,
    shape (k,) for ``"int"``, (k, 2) for ``"int2"``; ``"int"`` reuses its storage."""
    if kind == "int":  # r <= 2**32: (hi * r + (lo * r >> 32)) >> 32, no carry lost
        lo = words & _M32
        lo *= np.uint64(r)
        lo >>= _S32
        words >>= _S32
        words *= np.uint64(r)
        words += lo
        words >>= _S32
        return words
    hi, lo = words[:, 0], words[:, 1]
    if r == 0:
        return hi.copy()
    a_hi, a_lo = mulhi(hi, r), hi * np.uint64(r)
    b_hi = mulhi(lo, r)
    low_sum = a_lo + b_hi
    return a_hi + (low_sum < a_lo).astype(np.uint64)


def _chunks(stream: HostStream, unit: int, first: int, count: int) -> Iterator[np.ndarray]:
    """The bits of units ``first .. first + count - 1`` of ``unit`` bytes (1, 4, 8 or 16),
    in order, :data:`_CHUNK` units at a time (so that the transforms' work arrays stay in
    the CPU's cache): uint8, uint32, uint64, or uint64 pairs (shape (k, 2)) for 16 bytes."""
    w0 = first * unit // 8
    w1 = -(-(first + count) * unit // 8)
    skip = (first * unit - 8 * w0) // unit
    left = count
    step = max(_CHUNK * unit // 8, 1)
    stream.seek(w0)
    for at in range(w0, w1, step):
        w = stream.bitgen.random_raw(min(step, w1 - at))
        u = w.reshape(-1, 2) if unit == 16 else w if unit == 8 else (
            w.astype("<u8", copy=False).view(f"<u{unit}"))
        if skip:
            u, skip = u[skip:], 0
        u = u[:left]
        left -= len(u)
        yield u


def host_fill(stream: HostStream, kind: str, d: np.dtype, a0: int, n: int, params: tuple,
              out: np.ndarray) -> None:
    """Write elements ``a0 .. a0 + n - 1`` (unit indices) of ``kind`` into the flat
    ``out`` (dtype ``d``), as the device kernels compute them."""
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
    if kind == "normal":
        _normal(stream, d, a0, n, params, out)
        return
    pos = 0
    ws = Scratch()
    for u in _chunks(stream, unit_bytes(kind, d.itemsize), a0, n):
        dst = out[pos:pos + len(u)]
        pos += len(u)
        if kind in ("u64", "u8"):
            dst[...] = u
        elif kind in ("int", "int2"):
            low, r = params
            off = offsets_below(kind, u, r)
            off += np.uint64(low)
            dst[...] = off  # wraps into the dtype: low + off is in its range
        elif kind == "exp":
            _exponential(u, d, params[0], dst, ws)
        else:  # pragma: no cover
            raise AssertionError(kind)


def _normal(stream: HostStream, d: np.dtype, a0: int, n: int, params: tuple, out: np.ndarray
            ) -> None:
    """Box-Muller: ``z = sqrt(-2 log u1) * (cos, sin)(2 pi u2)``, the even element of a
    pair the cosine, the odd one the sine, ``u1`` in (0, 1] and ``u2`` in [0, 1) from the
    pair's radius and angle draws (float64: pair ``p`` is words ``2p``, the radius, and
    ``2p + 1``, 53 bits each; float32: word ``p``, its low half the radius, 32 bits, its
    high half's top 24 bits the angle, computed in float32 arithmetic); then ``loc +
    scale * z`` in the dtype."""
    loc, scale = d.type(params[0]), d.type(params[1])
    p0 = a0 // 2
    skip, pos = a0 - 2 * p0, 0
    ws = Scratch()
    for u in _chunks(stream, 2 * d.itemsize, p0, (a0 + n - 1) // 2 + 1 - p0):
        k = len(u)
        if d.itemsize == 8:
            m = ws("bits", np.uint64, k)
            np.right_shift(u[:, 0], _S11, out=m)
            m += np.uint64(1)
            r = np_log_scaled(m, 53, ws)
            r *= -2.0
            np.sqrt(r, out=r)
            np.right_shift(u[:, 1], _S11, out=m)
            sc = np_sincos_turns(m, 53, ws)
        else:
            halves = u.view(np.uint32).reshape(-1, 2)
            h = ws("bits", np.uint32, k)
            np.invert(halves[:, 0], out=h)  # the radius draw: m = h + 1 = 2**32 - ~h
            r = np_log32(h, ws)
            r *= np.float32(-2.0)
            np.sqrt(r, out=r)
            np.right_shift(halves[:, 1], np.uint32(8), out=h)
            sc = np_sincos_turns32(h, ws)
        whole = skip == 0 and n - pos >= 2 * k  # the chunk's pairs all land in out
        z = out[pos:pos + 2 * k] if whole else ws("z", d.type, 2 * k)
        pairs = z.reshape(k, 2)  # (cos r, sin r); one strided pass each (a (k, 2) pass is slow)
        np.multiply(sc[1], r, out=pairs[:, 0])
        np.multiply(sc[0], r, out=pairs[:, 1])
        if not whole:
            z = z[skip:skip + n - pos]
            skip = 0
        if scale != 1:  # z * 1 is z
            z *= scale
        z += loc  # (+0 for -0, as on the devices)
        if not whole:
            out[pos:pos + len(z)] = z
        pos += len(z)


def _exponential(u: np.ndarray, d: np.dtype, scale: float, out: np.ndarray, ws: Scratch
                 ) -> None:
    """``-log(1 - u)`` for u uniform in [0, 1) (``1 - u`` exact: ``(2**53 - m) 2**-53`` for
    the top 53 bits ``m`` of a word, ``(2**32 - h) 2**-32`` for a half ``h``, in float32
    arithmetic), then ``scale * e`` in the dtype, into ``out``."""
    if d.itemsize == 8:
        m = ws("bits", np.uint64, len(u))
        np.right_shift(u, _S11, out=m)
        np.subtract(np.uint64(2**53), m, out=m)
        e = np_log_scaled(m, 53, ws)
    else:
        e = np_log32(u, ws)
    np.negative(e, out=out)
    if scale != 1:  # e * 1 is e
        out *= d.type(scale)
