"""``elementwise(signature, body)``: elementwise kernels on top of the factory.

``axpy = elementwise("float32 a, float32[] x, float32[] y -> float32[] z", "z = a * x + y")``
declares array inputs ``dtype[] name`` (any rank), scalar inputs ``dtype name`` and, after
``->``, the outputs.  In the body an array's name is its element at the current index
(the factory's ``x(i0, i1, ...)``), and i0, i1, ... are available.  A call
``axpy(2.0, x, y)`` broadcasts the array inputs by the standard's rules, allocates the
outputs on their device (usm_type coerced from the inputs), or writes ``out=`` (an array,
or a tuple with one array per output, of exactly the broadcast shape and the declared
dtype), and returns the output(s).  Strict: dtypes must equal the declared ones
(TypeError), arrays must share a device (ExecutionPlacementError), scalars follow the
standard's Python-scalar rules.

When every array is C-contiguous with the one shape, the call runs a 1-D kernel over
the flat elements (unit strides, no index arithmetic): the contiguous fast path the
backends may use for their own vectorised kernels.  Otherwise it runs the rank-N kernel
with the arrays' strides (0 for broadcast axes).
"""

from __future__ import annotations

from typing import Any

from .._array import usm_ndarray, wrap_with
from .._device import placement_error
from ._checks import cast_scalar, check_writable
from ._errors import KernelSyntaxError
from ._kernel import Kernel
from ._signature import Param, check_name, parse_signature
from ._translate import tokenize


def _parse(signature: str) -> tuple[tuple[Param, ...], tuple[Param, ...]]:
    if not isinstance(signature, str):
        raise TypeError(f"elementwise signature must be a str, got {type(signature).__name__}")
    if "->" not in signature:
        raise ValueError(
            "elementwise signature needs '->' before the outputs, e.g. "
            "'float32[] x, float32 a -> float32[] z'"
        )
    ins, outs = signature.split("->", 1)

    def params(text: str, what: str) -> tuple[Param, ...]:
        # "dtype[] name" -> a rank-polymorphic array: parse as one axis, then mark
        parsed = []
        for part in [s for s in text.split(",") if s.strip()]:
            is_array = "[]" in part
            spec = part.replace("[]", "[:]") if is_array else part
            if "[" in part and not is_array:
                raise ValueError(
                    f"elementwise signature: {part.strip()!r}: arrays are declared 'dtype[] "
                    "name' (any rank); the shape comes from broadcasting"
                )
            (p,) = parse_signature(spec) if is_array else _scalar(spec)
            parsed.append(Param(p.name, p.dtype, () if is_array else None))
        return tuple(parsed)

    pin = params(ins, "inputs")
    pout = params(outs, "outputs")
    if not pout or any(not p.is_array for p in pout):
        raise ValueError("elementwise signature: the outputs (after '->') must be arrays "
                         "'dtype[] name', at least one")
    names = [p.name for p in pin + pout]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise ValueError(f"elementwise signature: the name(s) {sorted(dup)} are used twice")
    return pin, pout


def _scalar(spec: str) -> tuple[Param, ...]:
    parts = spec.split()
    if len(parts) != 2:
        raise ValueError(f"elementwise signature: {spec.strip()!r} is not 'dtype name'")
    from ._signature import _dtype

    check_name(parts[1], repr(spec.strip()))
    return (Param(parts[1], _dtype(parts[0], repr(spec.strip())), None),)


def _broadcast(shapes: list[tuple[int, ...]], fname: str) -> tuple[int, ...]:
    nd = max(len(s) for s in shapes)
    out = [1] * nd
    for s in shapes:
        for k, n in enumerate(s, nd - len(s)):
            if n != 1:
                if out[k] != 1 and out[k] != n:
                    raise ValueError(
                        f"{fname}: shapes {', '.join(map(str, shapes))} do not broadcast "
                        f"(axis {k - nd}: {out[k]} vs {n})"
                    )
                out[k] = n
    return tuple(out)


class ElementwiseKernel:
    """An elementwise kernel made by ``elementwise``; call it with the inputs in signature
    order.

    Made by ``usmarray.kernels.elementwise(signature, body)`` (no public constructor).
    ``kernel(*inputs, out=None)`` broadcasts the array inputs, allocates the outputs on
    their device (or writes ``out=``) and returns the output, or a tuple of them.  A call
    raises TypeError for an argument of another dtype or kind than declared,
    ``ExecutionPlacementError`` for arrays of different devices, ValueError for shapes
    that do not broadcast or an ``out=`` of another shape, and NotImplementedError on a
    device without a kernel compiler (the NumPy device).
    """

    def __init__(self, signature: str, body: str, *, name: str | None = None,
                 bodies: dict[str, str] | None = None,
                 intrinsics: frozenset[str] = frozenset()) -> None:
        self.inputs, self.outputs = _parse(signature)
        if not isinstance(body, str):
            raise TypeError(f"elementwise body must be a str, got {type(body).__name__}")
        self.signature = signature
        self.body = body
        #: per target language, a body to use instead (generated kernels: usmarray.fuse)
        self._bodies = bodies or {}
        self._intrinsics = intrinsics
        self.name = name if name is not None else "elementwise"
        self._all = self.inputs + self.outputs
        self._array_names = {p.name for p in self._all if p.is_array}
        self._kernels: dict[int, Kernel] = {}
        self._empty_kw: dict[str, str] = {}
        # translate now: misuse is reported at definition
        written = self._kernel(1).written
        #: array inputs the body assigns to: as in kernel(), they must be writable, and
        #: of the result's shape (a broadcast input would be written once per copy)
        self._written_inputs = tuple(
            k for k, p in enumerate(self.inputs) if p.is_array and p.name in written)

    def __repr__(self) -> str:
        return f"usmarray.kernels.ElementwiseKernel({self.signature!r})"

    def _kernel(self, ndim: int) -> Kernel:
        k = self._kernels.get(ndim)
        if k is not None:
            return k
        ivars = ", ".join(f"i{a}" for a in range(ndim))

        def indexed(body: str) -> str:
            parts = []
            prev = None
            for t in tokenize(body):
                if (t.kind == "id" and t.text in self._array_names
                        and (prev is None or prev.text not in (".", "->"))):
                    parts.append(f"{t.text}({ivars})")
                else:
                    parts.append(t.text)
                if t.kind not in ("ws", "comment"):
                    prev = t
            return "".join(parts) + ";"
        sig = ", ".join(
            (f"{p.dtype.name}[{','.join(':' * ndim)}] {p.name}" if p.is_array
             else f"{p.dtype.name} {p.name}")
            for p in self._all
        )
        sig = sig.replace("[" + ",".join(":" * ndim) + "]",
                          "[" + ", ".join([":"] * ndim) + "]")
        try:
            k = Kernel(sig, indexed(self.body), shape=self.outputs[0].name, name=self.name,
                       bodies={lang: indexed(b) for lang, b in self._bodies.items()},
                       intrinsics=self._intrinsics)
        except KernelSyntaxError as exc:
            raise KernelSyntaxError(str(exc).replace(
                "(" + ivars + ")", "")) from None
        self._kernels[ndim] = k
        return k

    def __call__(self, *args: Any, out: Any = None) -> Any:
        fname = self.name
        ins = self.inputs
        if len(args) != len(ins):
            raise TypeError(
                f"{fname}: takes {len(ins)} inputs ({', '.join(_spell(p) for p in ins)}), "
                f"got {len(args)}"
            )
        outs_given: tuple | None
        if out is None:
            outs_given = None
        elif type(out) is usm_ndarray:
            outs_given = (out,)
        elif isinstance(out, tuple):
            outs_given = out
        else:
            raise TypeError(f"{fname}: out= must be a usm_ndarray or a tuple of them, got "
                            f"{type(out).__name__}")
        if outs_given is not None and len(outs_given) != len(self.outputs):
            raise ValueError(f"{fname}: out= needs {len(self.outputs)} arrays, got "
                             f"{len(outs_given)}")
        arrays: list[tuple[Param, usm_ndarray]] = []
        values: list[Any] = []
        for p, a in zip(ins, args, strict=False):
            if p.is_array:
                arrays.append((p, a))
                values.append(a)
            else:
                values.append(cast_scalar(p, a, fname))
        if outs_given is not None:
            arrays.extend(zip(self.outputs, outs_given, strict=False))
        if not arrays:
            raise ValueError(f"{fname}: no array among the arguments; pass out= to give the "
                             "shape and device")
        be = q = first = None
        for p, a in arrays:
            if type(a) is not usm_ndarray:
                raise TypeError(f"{fname}: {p.name} must be a usmarray.usm_ndarray, got "
                                f"{type(a).__name__}")
            raw = a._arr
            if be is None:
                be, q, first = a._be, a._be.queue_of(raw), a
            elif a._be is not be or be.queue_of(raw) != q:
                raise placement_error(fname, first.device, a.device)  # type: ignore[union-attr]
            if raw.dtype != p.dtype:
                raise TypeError(f"{fname}: {p.name} must have dtype {p.dtype}, got {raw.dtype}")
        in_arrays = [a for p, a in arrays[:len(arrays) - (len(outs_given or ()))]]
        shape = _broadcast([a._arr.shape for a in in_arrays], fname) if in_arrays else None
        for k in self._written_inputs:
            a = args[k]
            check_writable(fname, f"input {ins[k].name}", a)
            if a._arr.shape != shape:
                raise ValueError(
                    f"{fname}: the body writes input {ins[k].name}, which the call would "
                    f"broadcast from shape {a._arr.shape} to {shape}; pass it with the "
                    "result's shape"
                )
        if outs_given is not None:
            oshape = outs_given[0]._arr.shape
            if shape is None:
                shape = oshape
            for p, o in zip(self.outputs, outs_given, strict=False):
                if o._arr.shape != shape:
                    raise ValueError(f"{fname}: out {p.name} has shape {o._arr.shape}, the "
                                     f"result has shape {shape}")
                check_writable(fname, f"out {p.name}", o)
            out_raw = [o._arr for o in outs_given]
        else:
            assert shape is not None
            usm = be.coerced_usm_type([be.usm_type_of(a._arr) for a in in_arrays])  # type: ignore[union-attr]
            out_raw = [self._empty(be, shape, p.dtype, usm, q) for p in self.outputs]
        raws = [v._arr if type(v) is usm_ndarray else v for v in values] + out_raw
        size = 1
        for n in shape:
            size *= n
        if size:
            self._launch(be, q, raws, shape, size)
        if outs_given is not None:
            return out
        res = tuple(wrap_with(be, r) for r in out_raw)
        return res[0] if len(res) == 1 else res

    def _launch(self, be: Any, q: Any, raws: list, shape: tuple[int, ...], size: int) -> None:
        flat = True
        for r, p in zip(raws, self._all, strict=False):
            if p.is_array and (r.shape != shape or not r.flags.c_contiguous):
                flat = False
                break
        if flat:
            self._kernel(1)._run(be, q, raws, "unchecked", (size,), True)
            return
        nd = len(shape)
        vals = []
        for r, p in zip(raws, self._all, strict=False):
            if p.is_array and r.shape != shape:
                r = be.broadcast_to(r, shape)
            vals.append(r)
        self._kernel(nd)._run(be, q, vals, "unchecked", shape, False)

    def _empty(self, be: Any, shape: tuple[int, ...], dtype: Any, usm: str, q: Any) -> Any:
        kw = self._empty_kw.get(be.name)
        if kw is None:
            try:
                r = be.empty(shape, dtype=dtype, usm_type=usm, queue=q)
                self._empty_kw[be.name] = "queue"
                return r
            except TypeError:
                kw = self._empty_kw[be.name] = "sycl_queue"
        return be.empty(shape, dtype=dtype, usm_type=usm, **{kw: q})


def _spell(p: Param) -> str:
    return f"{p.dtype.name}[] {p.name}" if p.is_array else f"{p.dtype.name} {p.name}"


def elementwise(signature: str, body: str, *, name: str | None = None) -> ElementwiseKernel:
    """An elementwise kernel from a typed ``signature`` and a C ``body``, broadcasting its
    array arguments.

    ``axpy = elementwise("float32 a, float32[] x, float32[] y -> float32[] z",
    "z = a * x + y")`` declares the scalar input ``a``, the array inputs ``x`` and ``y``
    (any rank) and, after ``->``, the output ``z``; in the body an array's name is its
    element at the current index, and ``i0``, ``i1``, ... are available.

    Parameters
    ----------
    signature : str
        Inputs, ``->``, outputs: ``dtype[] name`` an array, ``dtype name`` a scalar, with
        the standard's dtype names except the complex ones.  Outputs are arrays.
    body : str
        C statements run once per element (docs/kernels.md says what they may use).
    name : str, optional
        The kernel's name in messages and generated code; default ``"elementwise"``.

    Returns
    -------
    ElementwiseKernel
        The kernel.  Call it with the inputs in signature order and, optionally,
        ``out=`` (an array, or a tuple with one array per output, of the broadcast shape
        and the declared dtype); it returns the output(s).

    Raises
    ------
    TypeError
        ``signature`` or ``body`` is not a str.
    ValueError
        A malformed signature (no ``->``, a shaped array, a scalar output, an unknown
        dtype or a reserved name).
    KernelSyntaxError
        A body the translator refuses (pointers, ``return``, a bare array name, ...).

    Notes
    -----
    A call broadcasts the array inputs by the standard's rules and allocates the outputs
    on their device, usm_type coerced from the inputs; array dtypes must equal the
    declared ones (TypeError), arrays must share a device (``ExecutionPlacementError``)
    and scalars follow the standard's Python-scalar rules.  Kernels compile for SYCL and
    CUDA devices; arrays on the NumPy device raise NotImplementedError.  Not a function
    of the standard; see docs/kernels.md.
    """
    return ElementwiseKernel(signature, body, name=name)
