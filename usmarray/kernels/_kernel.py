"""``kernel(signature, body, *, shape, axes=None)``: the nd-aware kernel factory.

A :class:`Kernel` checks each call's arguments, picks (or builds and compiles) the
variant for the arrays' device, bounds mode and stride layout, and launches it.
Compilation is cached per (generated source, device) for the process; the source
encodes the dtypes, fixed sizes, stride specialisation, axis plan and bounds mode.
"""

from __future__ import annotations

import itertools
import logging
import math
import threading
import weakref
from typing import Any

import numpy as np

from .._array import usm_ndarray
from .._device import Device, placement_error
from ._checks import (
    cast_scalar,
    check_bounds_mode,
    check_writable,
    coverage,
    not_stencil,
    unprovable,
)
from ._compilers import program_module
from ._emit import KERNEL_NAME, TARGETS, emit, error_record_len, vector_width
from ._errors import KernelSyntaxError
from ._plan import check_axes, make_plan, stride_order
from ._signature import Param, parse_signature
from ._translate import Translation, tokenize, translate

log = logging.getLogger("usmarray.kernels")
#: compiled kernels: (language, program key of the device, source) -> native kernel
_PROGRAMS: dict[tuple, Any] = {}
_PROGRAMS_LOCK = threading.Lock()
#: how many compilations ran in this process (tests read it)
stats = {"compiled": 0}
_MAX_VARIANTS = 512
_MAX_INDEX = 2**63 - 1
#: a launch over more work-items than its backend's ``MAX_WORK_ITEMS`` runs in pieces;
#: more pieces than this is refused
MAX_PIECES = 2**20


def compiled_kernel(prog: Any, q: Any, source: str) -> Any:
    """The native kernel of ``source`` for ``q``'s device, compiled once per process."""
    key = (prog.LANGUAGE, prog.program_key(q), source)
    k = _PROGRAMS.get(key)
    if k is not None:
        return k
    with _PROGRAMS_LOCK:
        k = _PROGRAMS.get(key)
        if k is None:
            try:
                k = prog.compile(q, source, KERNEL_NAME)
            except prog.BuildFailure as exc:
                raise KernelSyntaxError(
                    f"kernel does not compile: {exc.args[0]}", source=source, log=exc.log
                ) from None
            stats["compiled"] += 1
            _PROGRAMS[key] = k
    return k


def _submit(be: Any, launch: Any, q: Any, packed: Any, gsize: tuple[int, ...]) -> None:
    """Launch under the backend's lock, where it has one."""
    lock = getattr(be, "lock", None)
    if lock is not None:
        with lock:
            launch.submit(q, packed, gsize)
    else:
        launch.submit(q, packed, gsize)


class _Variant:
    __slots__ = ("launch", "plan", "err_len", "accesses", "source", "per_thread")

    def __init__(self, launch: Any, plan: Any, err_len: int, accesses: list,
                 source: str, per_thread: int = 1) -> None:
        self.launch = launch
        self.plan = plan
        self.err_len = err_len
        self.accesses = accesses
        self.source = source
        #: elements per thread of a vector loop (CUDA's flat path), else 1: the launch
        #: needs that many times fewer threads
        self.per_thread = per_thread


class Kernel:
    """A compiled-on-demand kernel made by ``kernel``; call it with the arguments in
    signature order.

    Made by ``usmarray.kernels.kernel(signature, body, shape=...)`` (no public
    constructor).  ``k(*args, bounds=None)`` checks the arguments, compiles the kernel
    for their device on first use and launches it; ``bounds`` is None (every index
    provably in range), ``"clamp"``, ``"skip"``, ``"check"`` (IndexError naming the
    access) or ``"unchecked"``.  ``k.source(*args)`` returns the generated source for
    such a call.
    """

    def __init__(self, signature: str, body: str, *, shape: Any, axes: Any = None,
                 device: Any = None, name: str | None = None,
                 bodies: dict[str, str] | None = None,
                 intrinsics: frozenset[str] = frozenset()) -> None:
        self.params: tuple[Param, ...] = parse_signature(signature)
        self.signature = signature
        if not isinstance(body, str):
            raise TypeError(f"kernel body must be a str, got {type(body).__name__}")
        self.body = body
        #: per target language ("opencl", "cuda"), a body to use instead of ``body``
        #: (generated kernels only: usmarray.fuse); ``intrinsics`` as for translate()
        self._bodies = bodies or {}
        self._intrinsics = intrinsics
        self.name = name if name is not None else "kernel"
        by_name = self._by_name = {p.name: k for k, p in enumerate(self.params)}
        if isinstance(shape, str):
            k = by_name.get(shape)
            if k is None or not self.params[k].is_array:
                raise ValueError(
                    f"kernel: shape={shape!r} names no array parameter; pass the name of an "
                    f"array parameter ({[p.name for p in self.params if p.is_array]}) or a "
                    "tuple of sizes"
                )
            self._shape_idx: int | None = k
            self._shape_const: tuple[int, ...] | None = None
            sp = self.params[k].shape
            assert sp is not None
            self.ndim = len(sp)
            self._extents_spec = tuple(
                ("const", n) if n is not None else ("param", shape, a) for a, n in enumerate(sp)
            )
        elif isinstance(shape, tuple) and shape and all(
                type(n) is int and n >= 0 for n in shape):
            big = [n for n in shape if n > _MAX_INDEX]
            if big:
                raise ValueError(
                    f"kernel: shape={shape} has the size {big[0]}, past {_MAX_INDEX} "
                    "(2**63 - 1), the largest index a kernel's 64-bit index variables hold"
                )
            self._shape_idx = None
            self._shape_const = shape
            self.ndim = len(shape)
            self._extents_spec = tuple(("const", n) for n in shape)
        else:
            raise TypeError(
                f"kernel: shape= must be the name of an array parameter or a non-empty tuple "
                f"of non-negative ints, got {shape!r}"
            )
        self._axes = check_axes(axes, self.ndim, 3)
        self._device = Device.create_device(device) if device is not None else None
        # translate once now, so misuse of the syntax is reported at definition
        tr = translate(body, self.params, self.ndim, TARGETS["opencl"].types, "unchecked")
        self.written = frozenset(tr.written)
        self._accesses = tr.accesses
        self._unprovable = unprovable(tr.accesses)
        self._not_stencil = not_stencil(tr.accesses)
        self._coverage = coverage(self.params, tr.accesses)
        arrays = [k for k, p in enumerate(self.params) if p.is_array]
        self._arrays = arrays
        ref = [k for k in arrays if self.params[k].name in self.written
               and self.params[k].ndim == self.ndim]
        ref += [k for k in arrays if self.params[k].ndim == self.ndim]
        self._ref = ref[0] if ref else None
        self._written_idx = tuple(k for k in arrays if self.params[k].name in self.written)
        self._fixed = tuple(
            (k, tuple((d, n) for d, n in enumerate(self.params[k].shape or ()) if n is not None))
            for k in arrays
        )
        self._variants: dict[tuple, _Variant] = {}
        #: (bounds, weak references to the arrays, backend, queue, launcher, packed
        #: arguments, nd-range, scalar slots, (index, raw array) of each written array)
        #: of the last call, for a repeated call
        self._last: tuple | None = None
        self._translations: dict[tuple[str, str], Translation] = {}

    def __repr__(self) -> str:
        return f"usmarray.kernels.Kernel({self.signature!r}, ndim={self.ndim})"

    # ---- the call ------------------------------------------------------------------------
    def _forget(self, _ref: Any) -> None:
        self._last = None

    def __call__(self, *args: Any, bounds: Any = None) -> None:
        last = self._last
        if last is not None and bounds == last[0] and len(args) == len(last[1]):
            # the same arrays as the last call: their metadata cannot have changed, so the
            # checks and the packed arguments stand; only scalars and writability are redone
            for w, a in zip(last[1], args, strict=False):
                if w is not None and w() is not a:
                    break
            else:
                # a written array whose raw array is the last call's is still writable: a
                # usm_ndarray changes its raw array only when its writability changes
                for k, raw in last[-1]:
                    if args[k]._arr is not raw:
                        break
                else:
                    be, q, launch, packed, gsize, slots = last[2:-1]
                    if slots:
                        params = self.params
                        packed = launch.with_scalars(packed, [
                            (pos, conv(cast_scalar(params[k], args[k], self.name)))
                            for pos, k, conv in slots])
                    lock = be.lock
                    if lock is None:
                        launch.submit(q, packed, gsize)
                    else:
                        with lock:
                            launch.submit(q, packed, gsize)
                    return
        kname = self.name
        mode = check_bounds_mode(bounds, kname)
        params = self.params
        if len(args) != len(params):
            raise TypeError(
                f"{kname}: takes {len(params)} arguments ({', '.join(p.spelled() for p in params)}), "
                f"got {len(args)}"
            )
        values: list[Any] = []
        be = q = first = None
        for p, a in zip(params, args, strict=False):
            if p.shape is not None:
                if type(a) is not usm_ndarray:
                    raise TypeError(
                        f"{kname}: argument {p.name} ({p.spelled()}) must be a "
                        f"usmarray.usm_ndarray, got {type(a).__name__}; convert it with "
                        "usmarray.asarray()"
                    )
                raw = a._arr
                if be is None:
                    be = a._be
                    q = be.queue_of(raw)
                    first = a
                elif a._be is not be or be.queue_of(raw) != q:
                    raise placement_error(kname, first.device, a.device)  # type: ignore[union-attr]
                if raw.dtype != p.dtype:
                    raise TypeError(
                        f"{kname}: argument {p.name} must have dtype {p.dtype} ({p.spelled()}), "
                        f"got {raw.dtype}"
                    )
                values.append(raw)
            else:
                values.append(cast_scalar(p, a, kname))
        if self._device is not None and (self._device._be is not be or self._device._q != q):
            raise placement_error(kname, self._device, first.device)  # type: ignore[union-attr]
        for k, fixed in self._fixed:
            shp = values[k].shape
            p = params[k]
            if len(shp) != p.ndim:
                raise ValueError(
                    f"{kname}: argument {p.name} must have {p.ndim} dimensions "
                    f"({p.spelled()}), got shape {shp}"
                )
            for d, n in fixed:
                if shp[d] != n:
                    raise ValueError(
                        f"{kname}: argument {p.name} must have size {n} on axis {d} "
                        f"({p.spelled()}), got shape {shp}"
                    )
        for k in self._written_idx:
            check_writable(kname, f"argument {params[k].name}", args[k])
        ext = self._shape_const if self._shape_const is not None else values[self._shape_idx].shape  # type: ignore[index]
        done = self._run(be, q, values, mode, ext, False)
        if done is not None and mode != "check":
            self._last = (bounds, tuple(
                weakref.ref(a, self._forget) if p.shape is not None else None
                for p, a in zip(params, args, strict=False)
            ), be, q) + done + (tuple((k, args[k]._arr) for k in self._written_idx),)

    def _run(self, be: Any, q: Any, values: list, mode: str, ext: tuple[int, ...],
             flat: bool) -> tuple | None:
        """Launch on checked ``values``; ``flat``: every array is C-contiguous with
        ``ext[0]`` elements and is addressed as 1-D (the elementwise fast path).  Returns
        (launcher, packed arguments, nd-range, scalar slots), None when nothing ran."""
        prog = program_module(be)
        limit = prog.MAX_WORK_ITEMS
        # a ranged variant takes each axis's low and high index as arguments: for
        # bounds="skip", and for launches that may need pieces
        ranged = mode == "skip" or (limit is not None and math.prod(ext) > limit)
        key = (q, mode, flat, ranged) + self._layout(prog, values, flat)
        var = self._variants.get(key)
        if var is None:
            var = self._prepare(prog, q, mode, key, values)
        self.last_source = var.source
        lo, hi = self._bounds(mode, values, ext) if not flat else ([0], list(ext))
        if any(h <= lo_ for lo_, h in zip(lo, hi, strict=False)):
            return None
        par = var.plan.parallel
        gsize = tuple(hi[a] - lo[a] for a in par)
        err = None
        if mode == "check":
            err = be.from_host(np.zeros(var.err_len, dtype=np.int64), be.usm_types[0], q)
        launch = var.launch
        ranges = self._pieces(par, lo, hi, gsize, limit) if ranged else [(lo, hi)]
        for plo, phi in ranges:
            extra: tuple = (tuple(v for a in range(self.ndim) for v in (plo[a], phi[a]))
                            if ranged else ())
            if err is not None:
                extra = extra + (err,)
            packed = launch.pack(values, extra)
            psize = tuple(phi[a] - plo[a] for a in par)
            if var.per_thread > 1:  # a vector loop (never ranged): fewer threads
                psize = gsize = (-(-psize[0] // var.per_thread),) + psize[1:]
            _submit(be, launch, q, packed, psize)
        if err is not None:
            self._raise_recorded(be.to_host(err), var)
        if len(ranges) != 1:
            return None
        return launch, packed, gsize, launch.scalar_slots

    def run_flat(self, be: Any, q: Any, values: list, size: int) -> None:
        """Launch a 1-D kernel on checked ``values`` whose arrays are C-contiguous with
        ``size`` elements: :meth:`_run`'s flat case without its general bookkeeping
        (the launch path of usmarray.fuse, where the signature checks already ran)."""
        prog = program_module(be)
        limit = prog.MAX_WORK_ITEMS
        if size == 0:
            return
        if limit is not None and size > limit:
            self._run(be, q, values, "unchecked", (size,), True)
            return
        of = prog.offset
        key = (q, "unchecked", True, False, None, None,
               tuple([of(values[k]) != 0 for k in self._arrays]))
        var = self._variants.get(key)
        if var is None:
            var = self._prepare(prog, q, "unchecked", key, values)
        launch = var.launch
        packed = launch.pack(values, ())
        _submit(be, launch, q, packed, (-(-size // var.per_thread),))

    def flat_launcher(self, be: Any, q: Any, values: list) -> Any:
        """The backend's launcher of the 1-D variant without offset arguments for
        ``values`` on ``q`` (built and compiled if needed): the variant
        ``launch_flat`` of a SYCL launcher runs with arrays passed by the address of
        their first element (usmarray.kernels._direct)."""
        prog = program_module(be)
        key = (q, "unchecked", True, False, None, None, (False,) * len(self._arrays))
        var = self._variants.get(key)
        if var is None:
            var = self._prepare(prog, q, "unchecked", key, values)
        return var.launch

    def _pieces(self, par: tuple[int, ...], lo: list[int], hi: list[int],
                gsize: tuple[int, ...], limit: int | None) -> list[tuple[list[int], list[int]]]:
        """The (low, high) index ranges of the launches that cover ``lo``..``hi``: one,
        unless the parallel axes ``par`` (sizes ``gsize``, fastest first) hold more than
        ``limit`` work-items; then blocks of at most ``limit``, the fastest axes whole
        as far as they fit (the built-in kernels' rule, guarantee 15)."""
        if limit is None or math.prod(gsize) <= limit:
            return [(lo, hi)]
        chunk = []
        room = limit
        for g in gsize:
            c = min(g, room)
            chunk.append(c)
            room = max(1, room // c)
        count = math.prod(-(-g // c) for g, c in zip(gsize, chunk, strict=True))
        if count > MAX_PIECES:
            raise ValueError(
                f"{self.name}: the iteration space {tuple(h - l_ for l_, h in zip(lo, hi, strict=True))} "
                f"would take {count} launches of at most {limit} work-items (more than "
                f"{MAX_PIECES}); reduce its size or loop over an axis in the body"
            )
        out = []
        for starts in itertools.product(*(range(0, g, c) for g, c in
                                           zip(gsize, chunk, strict=True))):
            plo, phi = list(lo), list(hi)
            for a, s, c, g in zip(par, starts, chunk, gsize, strict=True):
                plo[a] = lo[a] + s
                phi[a] = lo[a] + min(s + c, g)
            out.append((plo, phi))
        return out

    def _layout(self, prog: Any, values: list, flat: bool) -> tuple:
        """The rest of a variant's cache key: per array its strides, its sizes capped
        at 2 where one is 0 or 1 (False where none is: the sizes matter only as 0, 1 or
        more) and whether it has an offset.  Everything a variant compiles in follows
        from these (see :meth:`_classes`), and they cost little to read on every call."""
        of = prog.offset
        if flat:
            return None, None, tuple([of(values[k]) != 0 for k in self._arrays])
        sf = prog.strides
        strides, small, offsets = [], [], []
        for k in self._arrays:
            v = values[k]
            shp = v.shape
            strides.append(sf(v))
            small.append((0 in shp or 1 in shp) and tuple([min(n, 2) for n in shp]))
            offsets.append(of(v) != 0)
        return tuple(strides), tuple(small), tuple(offsets)

    def _classes(self, prog: Any, values: list, flat: bool) -> tuple[tuple, tuple[int, ...]]:
        """What a variant compiles in from the arrays' layout: per array and axis the
        stride class (0 for a stride of 0 or an axis of length 1, 1 for a unit stride,
        None for a stride passed at run time), and the axis order the plan follows
        (from the reference array's shape and strides)."""
        arrays = self._arrays
        if flat:
            return ((1,),) * len(arrays), (0,)
        sf = prog.strides
        classes = tuple(
            tuple(0 if n == 1 or s == 0 else 1 if s == 1 else None
                  for n, s in zip(values[k].shape, sf(values[k]), strict=True))
            for k in arrays
        )
        ref = self._ref
        if ref is None:
            return classes, stride_order(None, None, self.ndim)
        return classes, stride_order(values[ref].shape, sf(values[ref]), self.ndim)

    # ---- bounds --------------------------------------------------------------------------
    def _bounds(self, mode: str, values: list, ext: tuple[int, ...]
                ) -> tuple[list[int], list[int]]:
        lo = [0] * self.ndim
        hi = list(ext)
        if mode in ("unchecked", "check") or not any(hi):
            return lo, hi
        kname = self.name
        params = self.params
        if mode == "safe":
            if self._unprovable and all(hi):
                raise ValueError(
                    f"{kname}: the indices of {', '.join(self._unprovable)} may fall outside "
                    "the array, which the factory cannot rule out; pass bounds='clamp', "
                    "'skip', 'check' (debugging) or 'unchecked' (you guarantee them)"
                )
            for k, pos, f, text in self._coverage:
                n = values[k].shape[pos]
                if f[0] == "loop":
                    self._check_loop(values, k, pos, f, text)
                    continue
                if f[0] == "var" and n < ext[f[1]]:
                    raise ValueError(
                        f"{kname}: {text} indexes axis {pos} of {params[k].name} (size {n}) "
                        f"with i{f[1]}, which runs to {ext[f[1]] - 1}; make the array cover "
                        "the iteration space or pass bounds="
                    )
                if f[0] == "const" and f[1] >= n:
                    raise ValueError(
                        f"{kname}: {text}: index {f[1]} is out of range for axis {pos} of "
                        f"{params[k].name} (size {n})"
                    )
            return lo, hi
        if mode == "skip":
            if self._not_stencil:
                raise ValueError(
                    f"{kname}: bounds='skip' needs every index to be i<k>, i<k> ± an integer "
                    f"literal or an integer literal; {', '.join(self._not_stencil)} is not; "
                    "use bounds='clamp' or 'check'"
                )
            for k, pos, f, text in self._coverage:
                n = values[k].shape[pos]
                if f[0] == "loop":
                    self._check_loop(values, k, pos, f, text)
                    continue
                if f[0] == "var":
                    a, c = f[1], f[2]
                    lo[a] = max(lo[a], -c)
                    hi[a] = min(hi[a], n - c)
                elif f[1] >= n:
                    raise ValueError(
                        f"{kname}: {text}: index {f[1]} is out of range for axis {pos} of "
                        f"{params[k].name} (size {n}); bounds='skip' cannot skip it"
                    )
            return lo, hi
        # clamp: every accessed axis needs an element to clamp to
        for k, pos, _f, text in self._coverage:
            if values[k].shape[pos] == 0:
                raise ValueError(
                    f"{kname}: bounds='clamp' cannot clamp {text} into axis {pos} of "
                    f"{params[k].name}, which is empty"
                )
        return lo, hi

    def _check_loop(self, values: list, k: int, pos: int, f: tuple, text: str) -> None:
        """ValueError unless the loop counter ``f`` (``for (T j = 0; j < b.shape[a];
        j++)``) stays inside axis ``pos`` of argument ``k`` and its type holds it."""
        bk = self._by_name[f[1]]
        bound = values[bk].shape[f[2]]
        n = values[k].shape[pos]
        p = self.params
        if bound > n:
            raise ValueError(
                f"{self.name}: {text} indexes axis {pos} of {p[k].name} (size {n}) with a "
                f"loop counter that runs to {f[1]}.shape[{f[2]}] - 1 = {bound - 1}; make the "
                "array cover the loop or pass bounds="
            )
        if bound - 1 > f[3]:
            raise ValueError(
                f"{self.name}: the loop counter of {text} runs to {bound - 1}, past the "
                f"largest value of its type ({f[3]}); declare it int64"
            )

    def _raise_recorded(self, rec: Any, var: _Variant) -> None:
        if int(rec[0]) == 0:
            return
        site, axis, idx, n = (int(v) for v in rec[1:5])
        point = ", ".join(f"i{k}={int(rec[5 + k])}" for k in range(self.ndim))
        acc = var.accesses[site]
        raise IndexError(
            f"{self.name}: {acc.text}: index {idx} is out of bounds for axis {axis} of "
            f"{acc.array} with size {n} (at {point}); nothing was read or written outside "
            "the arrays, but the outputs are incomplete"
        )

    # ---- building a variant ------------------------------------------------------------
    def _prepare(self, prog: Any, q: Any, mode: str, key: tuple, values: list) -> _Variant:
        why = prog.unsupported(q)
        if why is not None:
            raise NotImplementedError(f"{self.name}: {why}")
        target = TARGETS[prog.LANGUAGE]
        tmode = "unchecked" if mode in ("safe", "skip") else mode
        tkey = (target.language, tmode)
        tr = self._translations.get(tkey)
        if tr is None:
            tr = self._translations[tkey] = translate(
                self._bodies.get(target.language, self.body), self.params, self.ndim,
                target.types, tmode, self._intrinsics
            )
        if tr.uses_fp64 and not prog.has_fp64(q):
            raise TypeError(
                f"{self.name}: the kernel uses float64, which {prog.describe(q)} does not "
                "support (no double precision); use float32"
            )
        flat, ranged, offsets = key[2], key[3], key[-1]
        classes, order = self._classes(prog, values, flat)
        maxp = prog.max_parallel_axes(q)
        if self._axes is not None:
            check_axes(self._axes, self.ndim, maxp)
        plan = make_plan(order, self._axes, maxp)
        emode = tmode if mode != "skip" else "skip"
        width = 0
        if target.language == "cuda" and flat and mode == "unchecked" and not ranged:
            body = self._bodies.get(target.language, self.body)
            vtr = translate(body, self.params, self.ndim, target.types, "vector",
                            self._intrinsics)
            width = vector_width(self.params, tr, vtr,
                                 {t.text for t in tokenize(body) if t.kind == "id"})
        native = None
        if width:
            source, layout = emit(target, self.params, tr, plan, emode, classes,
                                  self._extents_spec, ranged, offsets, (vtr, width))
            try:
                native = compiled_kernel(prog, q, source)
            except KernelSyntaxError as exc:  # the scalar loop is always there
                log.debug("%s: the vector loop did not compile, the scalar one runs: %s",
                          self.name, exc)
                width = 0
        if native is None:
            source, layout = emit(target, self.params, tr, plan, emode, classes,
                                  self._extents_spec, ranged, offsets)
            native = compiled_kernel(prog, q, source)
        launch = prog.launcher(native, layout.params, layout.n_extra, layout.error_record,
                               flat)
        var = _Variant(launch, plan, error_record_len(self.ndim), tr.accesses, source,
                       max(width, 1))
        if len(self._variants) >= _MAX_VARIANTS:
            self._variants.clear()
        self._variants[key] = var
        return var

    def source(self, *args: Any, bounds: Any = None) -> str:
        """The generated source for a call with ``args`` (compiling it if needed)."""
        self(*args, bounds=bounds)
        return self.last_source


def kernel(signature: str, body: str, *, shape: Any, axes: Any = None, device: Any = None,
           name: str | None = None) -> Kernel:
    """An nd-aware kernel from a typed ``signature`` and a C ``body``, run once per point of
    an iteration space.

    Parameters
    ----------
    signature : str
        Per parameter a dtype, for an array its shape, and a name:
        ``"float32[:,:] src, float32[:,:] dst, float32 w"``; in a shape ``:`` is a
        run-time size and an integer a fixed one.
    body : str
        C statements run once per point ``(i0, i1, ...)``: ``x(e0, e1)`` is the element
        of array ``x`` at that index (with the array's real strides and offset),
        ``x.shape[k]`` its size on axis ``k``, and dtype names are types
        (docs/kernels.md).
    shape : str or tuple of int
        The iteration space: the name of an array parameter (its shape) or a non-empty
        tuple of sizes.
    axes : tuple of bool, optional
        Which axes run in parallel; None: the factory's rule (docs/kernels.md).
    device : Device, str or a backend's device or queue, optional
        If given, every call's arrays must be on it; None: the first array's device.
    name : str, optional
        The kernel's name in messages and generated code; default ``"kernel"``.

    Returns
    -------
    Kernel
        The kernel.  Call it with the arguments in signature order and ``bounds=``:
        None (default: every index must be provably in range), ``"clamp"``, ``"skip"``
        (skip the points whose stencil reaches outside), ``"check"`` (IndexError naming
        the access; synchronises) or ``"unchecked"``.  It writes its array arguments and
        returns None.

    Raises
    ------
    TypeError
        ``body`` is not a str; ``shape`` neither an array parameter's name nor a tuple of
        non-negative ints.
    ValueError
        A malformed signature; ``shape`` naming no array parameter or a size past
        ``2**63 - 1``; ``axes`` of another length, or with no or too many parallel
        axes.
    KernelSyntaxError
        A body the translator refuses (pointers, ``return``, assigning an index
        variable, ...).

    Notes
    -----
    A call checks every argument: arrays of the declared dtype and fixed sizes
    (TypeError, ValueError), on one device (``ExecutionPlacementError``), written arrays
    writable.  Kernels compile (OpenCL C for SYCL devices, CUDA C for NVIDIA GPUs) on
    first use per device and are cached; arrays on the NumPy device raise
    NotImplementedError.  Not a function of the standard.
    """
    return Kernel(signature, body, shape=shape, axes=axes, device=device, name=name)
