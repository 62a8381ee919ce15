"""The argument layout and packing both kernel-factory launchers share
(``_sycl/program``, ``_cuda/program``): per parameter, how its value is packed, and
where each scalar sits among the kernel's arguments.  A backend's launcher derives from
:class:`Packer` and states only how it passes a pointer, an element offset, strides in
elements, the error record and an int64."""

from __future__ import annotations

from typing import Any


def arg_layout(params: tuple[tuple, ...], flat: bool,
               scalar_types: dict[str, Any]) -> tuple[tuple, tuple]:
    """(packers, scalar_slots) for ``params`` (("array", shape, strides, has_offset) or
    ("scalar", dtype) entries): an array takes its pointer, its offset if it has one,
    its run-time sizes and (unless ``flat``) its strides; a scalar one converted slot."""
    packers: list[Any] = []
    slots = []
    pos = 0
    for k, entry in enumerate(params):
        if entry[0] == "array":
            packers.append((True, entry[1], entry[2], entry[3]))
            pos += 1 + entry[3] + len(entry[1]) + (0 if flat else len(entry[2]))
        else:
            conv = scalar_types[entry[1].name]
            packers.append((False, conv, None, False))
            slots.append((pos, k, conv))
            pos += 1
    return tuple(packers), tuple(slots)


class Packer:
    """Packs parameter values into a kernel's argument list (see :func:`arg_layout`)."""

    __slots__ = ("error_record", "flat", "packers", "scalar_slots")
    #: an int64 argument of the backend's launch API
    int64: Any = int

    def __init__(self, params: tuple[tuple, ...], error_record: bool, flat: bool,
                 scalar_types: dict[str, Any]) -> None:
        self.error_record = error_record
        self.flat = flat
        self.packers, self.scalar_slots = arg_layout(params, flat, scalar_types)

    # the backend's forms of a raw array's pointer, element offset, strides and record
    @staticmethod
    def pointer(v: Any) -> Any:
        return v

    @staticmethod
    def offset(v: Any) -> int:
        return 0

    @staticmethod
    def strides(v: Any) -> tuple[int, ...]:
        return tuple(v.strides)

    @staticmethod
    def record(v: Any) -> Any:
        return v

    def with_scalars(self, packed: Any, items: list[tuple[int, Any]]) -> Any:
        """A copy of ``packed`` (what :meth:`pack` returned) with the arguments at the
        given positions replaced by new (converted) values."""
        args = list(packed)
        for pos, v in items:
            args[pos] = v
        return args

    def pack(self, values: list, extra: tuple) -> Any:
        args: list[Any] = []
        add = args.append
        flat = self.flat
        i64 = self.int64
        for (is_array, a, b, off), v in zip(self.packers, values, strict=False):
            if not is_array:
                add(a(v))
                continue
            add(self.pointer(v))
            if off:
                add(i64(self.offset(v)))
            if flat:
                if a:
                    add(i64(v.size))
                continue
            if a:
                shp = v.shape
                for d in a:
                    add(i64(shp[d]))
            if b:
                st = self.strides(v)
                for d in b:
                    add(i64(st[d]))
        if self.error_record:
            for e in extra[:-1]:
                add(i64(e))
            add(self.record(extra[-1]))
        else:
            for e in extra:
                add(i64(e))
        return args
