"""``Generator``: a key, a position in its Philox stream and a device; every method
reads the next elements of the stream and makes them on the device."""

from __future__ import annotations

import math
import numbers
import operator
import threading
from typing import Any

import numpy as np

from .. import _dtypes as dt
from .._array import usm_ndarray, wrap_with
from .._creation import _alloc, _cap, _shape
from .._device import Device, placement_error
from .._indexing_functions import take
from .._manipulation import reshape
from .._migration import asarray, asnumpy
from .._placement import check_device_dtype, default_float, placement
from .._searching import searchsorted, where
from .._sorting import argsort
from .._statistical import cumulative_sum
from . import _kernels
from ._philox import BLOCK_BYTES, JUMP_BLOCKS, STREAM_BYTES, HostStream, host_fill, unit_bytes

_SEED_HELP = ("pass None (fresh entropy from the operating system), a non-negative int, a "
              "sequence of non-negative ints, or a numpy.random.SeedSequence")


def _seed_sequence(seed: Any) -> np.random.SeedSequence:
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if seed is None:
        return np.random.SeedSequence()
    many = isinstance(seed, (list, tuple))
    items = seed if many else [seed]
    for s in items:
        if isinstance(s, bool) or not isinstance(s, numbers.Integral):
            raise TypeError(f"default_rng: seed={seed!r} is not a seed; {_SEED_HELP}")
        if s < 0:
            raise ValueError(f"default_rng: seed={seed!r} has a negative number; {_SEED_HELP}")
    return np.random.SeedSequence([int(s) for s in items] if many else int(seed))


def _real(value: Any, name: str, fname: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{fname}: {name} must be a Python int or float, got "
                        f"{type(value).__name__}; for a parameter per element, transform "
                        "a standard draw (loc + scale * rng.standard_normal(shape))")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{fname}: {name} must be finite, got {value!r}")
    return v


def _count(value: Any, name: str, fname: str) -> int:
    if isinstance(value, bool):
        raise TypeError(f"{fname}: {name} must be an int, got bool")
    try:
        n = operator.index(value)
    except TypeError:
        raise TypeError(f"{fname}: {name} must be an int, got {type(value).__name__}") from None
    if n < 0:
        raise ValueError(f"{fname}: {name} must be non-negative, got {n}")
    return n


class Generator:
    """Random numbers on usmarray's devices: one Philox 4x64-10 stream, NumPy's, on
    every backend.

    ``Generator(seed, device=None)`` (or ``usmarray.random.default_rng``) derives the
    key from ``seed`` as ``numpy.random.Philox(seed)`` does (``SeedSequence(seed)
    .generate_state(2, uint64)``) and starts at the beginning of the key's stream.
    Each method reads the next elements of the stream and advances the position by
    what it read; element ``i`` of a call depends only on the key and its place in the
    stream, so it is computed in parallel on the device, and the same seed gives the
    same integers, uniform floats, permutations and bytes on every backend, however the
    calls are split (docs/random.md states the contract).

    Parameters
    ----------
    seed : None, int, sequence of int or numpy.random.SeedSequence, optional
        The seed; None draws fresh entropy from the operating system.
    device : Device or str, optional
        Where results are made when a call gives no ``device=``; None: the default
        device at the time of each call.

    Raises
    ------
    TypeError
        ``seed`` is not one of the kinds above.
    ValueError
        ``seed`` holds a negative number.

    Notes
    -----
    The generator is thread-safe (each call reserves its part of the stream under a
    lock), pickles (key, position, seed sequence and device), and makes independent
    streams with :meth:`spawn` (new keys) and :meth:`jumped` (the same key, 2**128
    blocks further).
    """

    __slots__ = ("_key", "_offset", "_seq", "_device", "_lock", "_host")

    def __init__(self, seed: Any = None, *, device: Any = None) -> None:
        seq = _seed_sequence(seed)
        k = seq.generate_state(2, np.uint64)
        self._init(seq, (int(k[0]), int(k[1])), 0,
                   None if device is None else Device.create_device(device))

    def _init(self, seq: Any, key: tuple[int, int], offset: int, device: Device | None) -> None:
        self._seq = seq
        self._key = key
        self._offset = offset % STREAM_BYTES
        self._device = device
        self._lock = threading.Lock()
        self._host: HostStream | None = None

    @classmethod
    def _make(cls, seq: Any, key: tuple[int, int], offset: int,
              device: Device | None) -> Generator:
        g = object.__new__(cls)
        g._init(seq, key, offset, device)
        return g

    # ---- state ------------------------------------------------------------------------
    @property
    def key(self) -> tuple[int, int]:
        """The Philox key: two 64-bit words (``numpy.random.Philox(key=k0 + 2**64 * k1)``)."""
        return self._key

    @property
    def offset(self) -> int:
        """The position in the stream, in bytes: the next call reads from here (rounded up
        to a multiple of its element's size)."""
        return self._offset

    @property
    def device(self) -> Device | None:
        """The device results are made on when a call gives none (None: the default device)."""
        return self._device

    @property
    def seed_seq(self) -> np.random.SeedSequence:
        """The seed sequence the key came from (``spawn`` spawns from it)."""
        return self._seq

    def __repr__(self) -> str:
        dev = "default" if self._device is None else repr(self._device)
        return (f"usmarray.random.Generator(Philox, key=({self._key[0]:#x}, {self._key[1]:#x}), "
                f"offset={self._offset}, device={dev})")

    def __reduce__(self) -> tuple[Any, tuple]:
        return _restore, (self._seq, self._key, self._offset, self._device)

    def spawn(self, n_children: int) -> list[Generator]:
        """``n_children`` generators with new keys, independent of this one and of each other.

        Parameters
        ----------
        n_children : int
            How many; each child's key comes from ``self.seed_seq.spawn(n_children)``, as
            ``numpy.random.Generator(numpy.random.Philox(seed)).spawn`` makes them.

        Returns
        -------
        list of Generator
            At the start of their streams, on this generator's device.
        """
        n = _count(n_children, "n_children", "spawn")
        out = []
        for child in self._seq.spawn(n):
            k = child.generate_state(2, np.uint64)
            out.append(Generator._make(child, (int(k[0]), int(k[1])), 0, self._device))
        return out

    def jumped(self, jumps: int = 1) -> Generator:
        """A generator on the same key, ``jumps * 2**128`` blocks further on.

        Parameters
        ----------
        jumps : int, optional
            How many jumps (default 1); the result's stream is the one of
            ``numpy.random.Philox(...).jumped(jumps)`` for the same state.

        Returns
        -------
        Generator
            Starting ``jumps * 2**128`` blocks (of 32 bytes) after the first block this
            generator has not started; this generator is unchanged.
        """
        j = _count(jumps, "jumps", "jumped")
        with self._lock:
            blocks = -(-self._offset // BLOCK_BYTES)
        return Generator._make(self._seq, self._key,
                               (blocks + j * JUMP_BLOCKS) * BLOCK_BYTES, self._device)

    # ---- the engine ---------------------------------------------------------------------
    def _reserve(self, ub: int, n: int) -> int:
        """The unit index of the next ``n`` elements of ``ub`` bytes, and advance."""
        with self._lock:
            start = -(-self._offset // ub)
            if n:
                self._offset = (start + n) * ub % STREAM_BYTES
        return start

    def _place(self, device: Any, fname: str) -> tuple[Any, Any, str]:
        return placement(self._device if device is None else device, None, None, fname)

    def _float_dtype(self, dtype: Any, q: Any, fname: str) -> np.dtype:
        d = default_float(q) if dtype is None else dt.check_dtype(dtype)
        if d not in dt.REAL_FLOATING:
            raise TypeError(f"{fname}: dtype must be a real floating dtype (usmarray.float32 "
                            f"or usmarray.float64), got {d}")
        check_device_dtype(d, q, fname)
        return d

    def _draw(self, kind: str, d: np.dtype, shape: tuple[int, ...], params: tuple,
              place: tuple[Any, Any, str]) -> usm_ndarray:
        """The next ``shape`` elements of ``kind`` (dtype ``d``) on ``place`` (backend,
        queue, usm_type): computed there where the kernel factory compiles for it, else on
        the host and copied (the NumPy backend; a SYCL device that is not an OpenCL one)."""
        be, q, ut = place
        n = math.prod(shape)
        a0 = self._reserve(unit_bytes(kind, d.itemsize), n)
        if be.name == "cuda":  # a kernel that writes exactly the call's elements
            launch = _kernels.cuda_launch(be, q, kind, d)
            raw = _alloc(be, q, ut, d, _cap(q), be.empty, shape)
            if n:
                b0, first = divmod(a0, launch.e)
                launch(be, q, raw.data.ptr, self._key, b0, first, n, params, ut)
            return wrap_with(be, raw)
        if _kernels.compiles(be, q):
            e = _kernels.kernel_for(kind, d)[1]
            b0, first = divmod(a0, e)
            nblocks = -(-(first + n) // e) if n else 0
            raw = _alloc(be, q, ut, d, _cap(q), be.empty, (nblocks * e,))
            if n:
                _kernels.device_fill(be, q, raw, kind, d, self._key, b0, nblocks, params)
            if first or nblocks * e != n:  # the call starts or ends inside a block
                raw = raw[first:first + n]
            return wrap_with(be, raw if shape == (n,) else be.reshape(raw, shape))
        host = np.empty(n, dtype=d)
        if n:
            with self._lock:
                stream = self._host
                if stream is None:
                    stream = self._host = HostStream(self._key)
                host_fill(stream, kind, d, a0, n, params, host)
        host = host.reshape(shape)
        if be.name == "numpy":
            return wrap_with(be, host)
        return wrap_with(be, be.from_host(host, ut, q))

    # ---- uniform floats ---------------------------------------------------------------------
    def random(self, shape: Any = (), dtype: Any = None, *, device: Any = None) -> usm_ndarray:
        """Uniform floats in [0, 1): NumPy's ``Generator(Philox(seed)).random``, bit for bit.

        Parameters
        ----------
        shape : int or tuple of int, optional
            The result's shape; default ``()`` (a 0-D array).
        dtype : DType, optional
            ``usmarray.float64`` (53 random bits from one 64-bit word:
            ``(w >> 11) * 2**-53``) or ``usmarray.float32`` (24 bits from one 32-bit
            half: ``(h >> 8) * 2**-24``); None: the device's default floating dtype.
        device : Device or str, optional
            Where to make the result; None: the generator's device.

        Returns
        -------
        usm_ndarray
            The draws, on ``device``.

        Raises
        ------
        TypeError
            ``dtype`` is not a real floating dtype; ``shape`` is not an int or a tuple of
            ints.
        ValueError
            A negative size; float64 on a device without double precision.
        """
        place = self._place(device, "random")
        d = self._float_dtype(dtype, place[1], "random")
        return self._draw("f", d, _shape(shape, "random"), (), place)

    def uniform(self, low: float = 0.0, high: float = 1.0, shape: Any = (), dtype: Any = None,
                *, device: Any = None) -> usm_ndarray:
        """Uniform floats in [low, high): ``low + (high - low) * u``, u as :meth:`random`'s.

        Parameters
        ----------
        low, high : float, optional
            The interval, finite, ``low <= high`` (default 0 and 1); ``high - low`` is
            computed in float64 and rounded to ``dtype``.  Rounding may give ``high``.
        shape : int or tuple of int, optional
            The result's shape; default ``()``.
        dtype : DType, optional
            float32 or float64; None: the device's default floating dtype.
        device : Device or str, optional
            Where to make the result; None: the generator's device.

        Returns
        -------
        usm_ndarray
            The draws, on ``device``; with float64, NumPy's ``uniform`` bit for bit.

        Raises
        ------
        TypeError
            ``low`` or ``high`` is not a Python int or float; a dtype that is not real
            floating.
        ValueError
            ``low > high``, an infinite bound or span, a negative size.
        """
        lo = _real(low, "low", "uniform")
        hi = _real(high, "high", "uniform")
        if lo > hi:
            raise ValueError(f"uniform: low={low!r} is greater than high={high!r}; pass "
                             "low <= high")
        span = hi - lo
        if not math.isfinite(span):
            raise ValueError(f"uniform: high - low overflows ({high!r} - {low!r}); use a "
                             "narrower interval")
        place = self._place(device, "uniform")
        d = self._float_dtype(dtype, place[1], "uniform")
        if d.itemsize == 4 and span > float(np.finfo(np.float32).max):
            raise ValueError(f"uniform: high - low = {span!r} overflows float32; use float64")
        return self._draw("uniform", d, _shape(shape, "uniform"), (lo, span), place)

    # ---- normal and exponential ---------------------------------------------------------------
    def standard_normal(self, shape: Any = (), dtype: Any = None, *,
                        device: Any = None) -> usm_ndarray:
        """Standard normal floats (Box-Muller; within 2 ulp on every backend).

        Parameters
        ----------
        shape : int or tuple of int, optional
            The result's shape; default ``()``.
        dtype : DType, optional
            float32 or float64; None: the device's default floating dtype.
        device : Device or str, optional
            Where to make the result; None: the generator's device.

        Returns
        -------
        usm_ndarray
            The draws, on ``device``: ``normal(0.0, 1.0, shape, dtype)``.

        Raises
        ------
        TypeError
            A dtype that is not real floating.
        ValueError
            A negative size; float64 on a device without double precision.
        """
        return self.normal(0.0, 1.0, shape, dtype, device=device)

    def normal(self, loc: float = 0.0, scale: float = 1.0, shape: Any = (), dtype: Any = None,
               *, device: Any = None) -> usm_ndarray:
        """Normal floats ``loc + scale * z``, z by the Box-Muller transform.

        Element pair ``(2p, 2p + 1)`` comes from two uniforms ``u1`` in (0, 1] and ``u2`` in
        [0, 1): ``sqrt(-2 log u1) * cos(2 pi u2)`` and ``... * sin(2 pi u2)``.  float64
        draws take one 64-bit word per element; float32 draws one 32-bit half, computed
        in float32 arithmetic (the same on every device, within 4 ulp of exact).

        Parameters
        ----------
        loc : float, optional
            The mean (default 0), finite.
        scale : float, optional
            The standard deviation (default 1), finite and non-negative.
        shape : int or tuple of int, optional
            The result's shape; default ``()``.
        dtype : DType, optional
            float32 or float64; None: the device's default floating dtype.
        device : Device or str, optional
            Where to make the result; None: the generator's device.

        Returns
        -------
        usm_ndarray
            The draws, on ``device``.

        Raises
        ------
        TypeError
            ``loc`` or ``scale`` is not a Python int or float; a dtype that is not real
            floating.
        ValueError
            A negative or infinite ``scale``, an infinite ``loc``, a negative size.
        """
        m = _real(loc, "loc", "normal")
        s = _real(scale, "scale", "normal")
        if s < 0:
            raise ValueError(f"normal: scale must be non-negative, got {scale!r}")
        place = self._place(device, "normal")
        d = self._float_dtype(dtype, place[1], "normal")
        return self._draw("normal", d, _shape(shape, "normal"), (m, s), place)

    def exponential(self, scale: float = 1.0, shape: Any = (), dtype: Any = None, *,
                    device: Any = None) -> usm_ndarray:
        """Exponential floats ``scale * -log(1 - u)`` (the inverse CDF), u uniform in [0, 1).

        Parameters
        ----------
        scale : float, optional
            The mean ``1 / lambda`` (default 1), finite and non-negative.
        shape : int or tuple of int, optional
            The result's shape; default ``()``.
        dtype : DType, optional
            float32 or float64; None: the device's default floating dtype.
        device : Device or str, optional
            Where to make the result; None: the generator's device.

        Returns
        -------
        usm_ndarray
            The draws, on ``device``; within 2 ulp on every backend.

        Raises
        ------
        TypeError
            ``scale`` is not a Python int or float; a dtype that is not real floating.
        ValueError
            A negative or infinite ``scale``, a negative size.
        """
        s = _real(scale, "scale", "exponential")
        if s < 0:
            raise ValueError(f"exponential: scale must be non-negative, got {scale!r}")
        place = self._place(device, "exponential")
        d = self._float_dtype(dtype, place[1], "exponential")
        return self._draw("exp", d, _shape(shape, "exponential"), (s,), place)

    # ---- integers and bytes -------------------------------------------------------------------
    def integers(self, low: int, high: int | None = None, shape: Any = (), dtype: Any = None,
                 endpoint: bool = False, *, device: Any = None) -> usm_ndarray:
        """Uniform integers in [low, high) (``endpoint=True``: [low, high]), without
        modulo bias, from a fixed number of draws per element.

        An element is ``low + floor(x * r / 2**k)`` for the range's size ``r`` and a
        ``k``-bit draw ``x``: one 64-bit word (``k = 64``) when ``r <= 2**32``, two words
        (``k = 128``, the first the high one) above.  Each value's probability is within
        a factor ``1 +- r / 2**k`` (at most ``2**-32``) of ``1 / r``, a bias no test of
        fewer than ``2**64`` draws can see; a power-of-two range is exact.  The same on
        every backend (NumPy's ``integers`` rejects draws one after another instead, so
        its values differ).

        Parameters
        ----------
        low : int
            The lowest value (or, with ``high=None``, the upper bound, from 0).
        high : int, optional
            One past the highest value (the highest with ``endpoint=True``).
        shape : int or tuple of int, optional
            The result's shape; default ``()``.
        dtype : DType, optional
            An integer dtype; None: int64.  The range must fit it.
        endpoint : bool, optional
            Whether ``high`` is included (default False).
        device : Device or str, optional
            Where to make the result; None: the generator's device.

        Returns
        -------
        usm_ndarray
            The draws, on ``device``.

        Raises
        ------
        TypeError
            ``low`` or ``high`` is not an int; a dtype that is not an integer dtype;
            ``endpoint`` not a bool.
        ValueError
            An empty range (``low >= high``, or ``low > high`` with ``endpoint``); a range
            outside the dtype's values; a negative size.
        """
        fname = "integers"
        for name, v in (("low", low), ("high", high)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, numbers.Integral)):
                raise TypeError(f"{fname}: {name} must be a Python int, got {type(v).__name__}")
        if type(endpoint) is not bool:
            raise TypeError(f"{fname}: endpoint must be True or False, got {endpoint!r}")
        lo, hi = (0, int(low)) if high is None else (int(low), int(high))
        top = hi if endpoint else hi - 1
        if top < lo:
            raise ValueError(f"{fname}: the range is empty (low={lo}, high={hi}, "
                             f"endpoint={endpoint}); pass low < high"
                             + (" or endpoint=True" if top == lo - 1 else ""))
        place = self._place(device, fname)
        d = dt.int64 if dtype is None else dt.check_dtype(dtype)
        if d not in dt.INTEGER:
            raise TypeError(f"{fname}: dtype must be an integer dtype (usmarray.int8 ... "
                            f"usmarray.uint64), got {d}")
        info = np.iinfo(d)
        if lo < info.min or top > info.max:
            raise ValueError(f"{fname}: the range [{lo}, {top}] does not fit {d} "
                             f"([{info.min}, {info.max}]); use a wider dtype")
        r = top - lo + 1
        kind = "int" if r <= 2**32 else "int2"
        return self._draw(kind, d, _shape(shape, fname), (lo % 2**64, r % 2**64), place)

    def bytes(self, length: int, *, device: Any = None) -> usm_ndarray:
        """The next ``length`` bytes of the stream, as a uint8 array.

        NumPy's ``Generator(Philox(seed)).bytes(length)`` gives the same bytes; here they
        stay on the device (``bytes(usmarray.asnumpy(b))`` makes a Python ``bytes``).

        Parameters
        ----------
        length : int
            How many bytes, non-negative.
        device : Device or str, optional
            Where to make the result; None: the generator's device.

        Returns
        -------
        usm_ndarray
            A 1-D uint8 array of ``length`` elements.

        Raises
        ------
        TypeError
            ``length`` is not an int.
        ValueError
            ``length`` is negative.
        """
        n = _count(length, "length", "bytes")
        return self._draw("u8", dt.uint8, (n,), (), self._place(device, "bytes"))

    # ---- permutations and choices ----------------------------------------------------------------
    def _perm(self, n: int, place: tuple[Any, Any, str]) -> usm_ndarray:
        """A random permutation of 0 .. n - 1: the stable argsort of ``n`` 64-bit keys."""
        keys = self._draw("u64", dt.uint64, (n,), (), place)
        return argsort(keys, stable=True)

    def permutation(self, x: Any, *, device: Any = None) -> usm_ndarray:
        """A random permutation of ``range(x)``, or of ``x``'s elements along axis 0.

        The permutation sorts ``n`` 64-bit words of the stream, stably: every ordering is
        equally likely up to ties between words (probability below ``n**2 / 2**65``),
        which keep their order.  The same on every backend.

        Parameters
        ----------
        x : int or usm_ndarray
            ``n``: permute ``0 .. n - 1`` (int64); an array of at least one dimension:
            a permuted copy along axis 0, on its device.
        device : Device or str, optional
            Where to make the result for an int ``x``; an array's result is on its
            device (``device``, if given, must be that one).

        Returns
        -------
        usm_ndarray
            The permutation.

        Raises
        ------
        TypeError
            ``x`` is neither an int nor a usm_ndarray.
        ValueError
            A negative ``n``, a 0-D array.
        ExecutionPlacementError
            ``device`` differs from the array's device.
        """
        if isinstance(x, usm_ndarray):
            arr = self._array_arg(x, device, "permutation")
            perm = self._perm(arr.shape[0], self._place(arr.device, "permutation"))
            return take(arr, perm, axis=0)
        n = self._int_or_array(x, "x", "permutation")
        return self._perm(n, self._place(device, "permutation"))

    def shuffle(self, x: usm_ndarray) -> None:
        """Permute ``x`` along axis 0 in place, as :meth:`permutation` of ``x`` would.

        Parameters
        ----------
        x : usm_ndarray
            A writable array of at least one dimension.

        Raises
        ------
        TypeError
            ``x`` is not a usm_ndarray.
        ValueError
            ``x`` is 0-D or read-only.
        """
        if not isinstance(x, usm_ndarray):
            raise TypeError(f"shuffle: x must be a usmarray.usm_ndarray, got {type(x).__name__};"
                            " for a list, shuffle usmarray.asarray(x)")
        if not getattr(x.flags, "writable", True):
            raise ValueError("shuffle: x is read-only; shuffle a copy "
                             "(usmarray.asarray(x, copy=True)) or use permutation(x)")
        arr = self._array_arg(x, None, "shuffle")
        x[...] = take(arr, self._perm(arr.shape[0], self._place(arr.device, "shuffle")),
                      axis=0)

    def choice(self, a: Any, size: Any = None, replace: bool = True, p: Any = None, *,
               device: Any = None) -> usm_ndarray:
        """A random sample of ``range(a)``, or of ``a``'s elements along axis 0.

        With ``replace=True`` and no ``p``: :meth:`integers` indices.  Without
        replacement and no ``p``: the first ``size`` entries of a :meth:`permutation`.
        With ``p``: inverse-CDF sampling on ``cumulative_sum(p)`` (with replacement), or
        the ``size`` smallest of ``exponential / p`` (without: Efraimidis-Spirakis).

        Parameters
        ----------
        a : int or usm_ndarray
            ``n``: sample from ``0 .. n - 1`` (int64); an array of at least one
            dimension: sample its elements along axis 0.
        size : int or tuple of int, optional
            The sample's shape; None: one sample as a 0-D array (an array ``a``: its
            element, ``a[i]``).
        replace : bool, optional
            Whether an element may be picked more than once (default True).
        p : usm_ndarray or sequence of float, optional
            The probability of each of the ``n`` elements: 1-D, non-negative, summing
            to 1 (within ``sqrt(eps)`` of its dtype, as NumPy checks); None: uniform.
        device : Device or str, optional
            Where to make the result for an int ``a``; an array's result is on its
            device.

        Returns
        -------
        usm_ndarray
            The sample.

        Raises
        ------
        TypeError
            ``a`` is neither an int nor a usm_ndarray; ``replace`` is not a bool; ``p``
            is not an array or sequence of floats.
        ValueError
            ``n == 0`` with a non-empty sample; a sample larger than ``n`` without
            replacement; ``p`` of the wrong length or not a probability vector; fewer
            non-zero probabilities than the sample without replacement.
        """
        fname = "choice"
        if type(replace) is not bool:
            raise TypeError(f"{fname}: replace must be True or False, got {replace!r}")
        arr = None
        if isinstance(a, usm_ndarray):
            arr = self._array_arg(a, device, fname)
            n = arr.shape[0]
            place = self._place(arr.device, fname)
        else:
            n = self._int_or_array(a, "a", fname)
            place = self._place(device, fname)
        shape = () if size is None else _shape(size, fname)
        k = math.prod(shape)
        if n == 0 and k:
            raise ValueError(f"{fname}: cannot take a non-empty sample from an empty "
                             "population (a is 0 or has length 0)")
        if not replace and k > n:
            raise ValueError(f"{fname}: a sample of {k} without replacement from {n} elements "
                             "is impossible; pass replace=True or a smaller size")
        if p is not None:
            idx = self._weighted(n, k, replace, p, place, fname)
        elif replace:
            idx = self.integers(0, max(n, 1), k, device=Device._make(place[0], place[1]))
        else:
            idx = self._perm(n, place)[:k]
        if arr is None:
            return reshape(idx, shape)
        picked = take(arr, idx, axis=0)
        return reshape(picked, shape + arr.shape[1:])

    def _weighted(self, n: int, k: int, replace: bool, p: Any, place: tuple[Any, Any, str],
                  fname: str) -> usm_ndarray:
        dev = Device._make(place[0], place[1])
        if isinstance(p, usm_ndarray):
            if p.device != dev:
                raise placement_error(fname, dev, p.device)
            pv = p
        else:
            try:
                host = np.asarray(p, dtype=np.float64)
            except (TypeError, ValueError):
                raise TypeError(f"{fname}: p must be a usm_ndarray or a sequence of floats, "
                                f"got {type(p).__name__}") from None
            pv = asarray(host, dtype=dt.PUBLIC[default_float(place[1])], device=dev)
        if pv.ndim != 1 or pv.shape[0] != n:
            raise ValueError(f"{fname}: p must be 1-D with one probability per element "
                             f"({n}), got shape {pv.shape}")
        if pv.dtype not in (dt.PUBLIC[dt.float32], dt.PUBLIC[dt.float64]):
            raise TypeError(f"{fname}: p must have a real floating dtype, got {pv.dtype}")
        hp = asnumpy(pv)
        eps = np.finfo(hp.dtype).eps
        if not np.all(np.isfinite(hp)) or np.any(hp < 0):
            raise ValueError(f"{fname}: p must hold finite, non-negative probabilities")
        total = float(np.sum(hp, dtype=np.float64))
        if abs(total - 1.0) > math.sqrt(eps):
            raise ValueError(f"{fname}: the probabilities p sum to {total!r}, not 1; divide p "
                             "by its sum")
        if replace:
            cdf = cumulative_sum(pv)
            cdf = cdf / cdf[-1]
            u = self.random(k, dtype=pv.dtype, device=dev)
            return searchsorted(cdf, u, side="right")
        nonzero = int(np.count_nonzero(hp))
        if nonzero < k:
            raise ValueError(f"{fname}: only {nonzero} of p's probabilities are non-zero, "
                             f"fewer than the sample of {k} without replacement; pass "
                             "replace=True or a smaller size")
        e = self.exponential(1.0, n, dtype=pv.dtype, device=dev)
        some = pv > 0
        keys = where(some, e / where(some, pv, 1.0), math.inf)  # p == 0: never picked
        return argsort(keys, stable=True)[:k]

    @staticmethod
    def _int_or_array(v: Any, name: str, fname: str) -> int:
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise TypeError(f"{fname}: {name} must be an int or a usm_ndarray, got "
                            f"{type(v).__name__}; for a list, pass usmarray.asarray({name})")
        if v < 0:
            raise ValueError(f"{fname}: {name} must be non-negative, got {v}")
        return int(v)

    @staticmethod
    def _array_arg(x: usm_ndarray, device: Any, fname: str) -> usm_ndarray:
        if x.ndim == 0:
            raise ValueError(f"{fname}: x must have at least one dimension, got a 0-D array; "
                             "pass an int n to permute range(n)")
        if device is not None:
            d = Device.create_device(device)
            if d != x.device:
                raise placement_error(fname, x.device, d)
        return x


def _restore(seq: Any, key: tuple[int, int], offset: int, device: Device | None) -> Generator:
    return Generator._make(seq, key, offset, device)


def default_rng(seed: Any = None, *, device: Any = None) -> Generator:
    """A new :class:`Generator` (or ``seed`` itself, when it is one).

    Parameters
    ----------
    seed : None, int, sequence of int, numpy.random.SeedSequence or Generator, optional
        The seed (see :class:`Generator`); a Generator is returned unchanged.
    device : Device or str, optional
        Where results are made when a call gives no ``device=``; None: the default
        device at the time of each call.

    Returns
    -------
    Generator
        ``Generator(seed, device=device)``; the same key as ``numpy.random.Philox(seed)``.
    """
    if isinstance(seed, Generator):
        if device is not None:
            raise ValueError("default_rng: device= cannot be given with a Generator; pass "
                             "device= to its calls")
        return seed
    return Generator(seed, device=device)
