"""The axis planner: which axes of the iteration space run in parallel, which loop.

Rule (also in docs/kernels.md): order the axes by the reference array's strides,
smallest first (the reference array is the first array the body writes that has the
iteration space's rank, else the first such array, else C order); an axis of length 1
goes last.  The first ``max_parallel`` axes of that order run in parallel (the device's
maximum number of nd-range dimensions: 3 for OpenCL and CUDA), the fastest of them on
the fastest-varying hardware dimension, so the unit-stride axis is always parallel and
coalesced; the rest are loops inside each work-item, the largest stride outermost.
``axes=`` overrides which axes are parallel (at least one, at most ``max_parallel``);
the mapping onto hardware dimensions follows the same stride order.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Plan:
    ndim: int
    #: parallel axes, fastest-varying hardware dimension first
    parallel: tuple[int, ...]
    #: serial axes, outermost loop first
    serial: tuple[int, ...]


def stride_order(shape: tuple[int, ...] | None, strides: tuple[int, ...] | None,
                 ndim: int) -> tuple[int, ...]:
    """Axes sorted fastest first by |stride| (ties: the later axis first); C order when
    no reference array is given."""
    if shape is None or strides is None:
        return tuple(reversed(range(ndim)))
    big = 1 << 62
    return tuple(sorted(range(ndim), key=lambda a: (abs(strides[a]) if shape[a] > 1 else big, -a)))


def check_axes(axes: object, ndim: int, max_parallel: int) -> tuple[bool, ...] | None:
    """Validate an ``axes=`` override (None, or a tuple of bools, one per axis)."""
    if axes is None:
        return None
    if not isinstance(axes, (tuple, list)) or not all(type(a) is bool for a in axes):
        raise TypeError(
            f"kernel: axes= must be None or a tuple of bools (True = parallel), one per "
            f"axis of the iteration space, got {axes!r}"
        )
    if len(axes) != ndim:
        raise ValueError(f"kernel: axes={tuple(axes)} has {len(axes)} entries for a "
                         f"{ndim}-D iteration space")
    if not any(axes):
        raise ValueError(f"kernel: axes={tuple(axes)} makes no axis parallel; at least one "
                         "must be")
    if sum(axes) > max_parallel:
        raise ValueError(f"kernel: axes={tuple(axes)} asks for {sum(axes)} parallel axes; "
                         f"the device allows at most {max_parallel}")
    return tuple(axes)


def make_plan(order: tuple[int, ...], axes: tuple[bool, ...] | None, max_parallel: int) -> Plan:
    ndim = len(order)
    if axes is None:
        par = order[:max_parallel]
    else:
        if sum(axes) > max_parallel:
            raise ValueError(f"kernel: axes={axes} asks for {sum(axes)} parallel axes; this "
                             f"device allows at most {max_parallel}")
        par = tuple(a for a in order if axes[a])
    serial = tuple(a for a in reversed(order) if a not in par)
    return Plan(ndim, tuple(par), serial)
