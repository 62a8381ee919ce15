"""usmarray's optimizer for cubed plans: a chain of chunk-wise operations and the first
step of a reduction run as one task per chunk (per group of chunks the reduction's
first round reads), storing nothing between them.

cubed's default optimizer (``multiple_inputs_optimize_dag``, 0.27-0.28) fuses an
operation with the operations that make its inputs when their numbers of tasks match,
or when the fused task reads at most 10 input blocks (virtual inputs included) from
at most 4 source arrays, and it never fuses an array that several operations use.
So ``mean(sin(x) * 2 + 1)`` over ``x = arange(...)`` stores the elementwise result (a
reduction's first round reads 4 chunks a task: 4 blocks for each of its inputs), a
chain that uses ``x`` in several places stores ``x``, and the mean and the two-pass
standard deviation of ``x`` in one plan store ``x``.  :func:`optimize` visits the
operations in topological order, as cubed's does, and fuses into an operation:

- the operation making an input read by this operation only, when both have the same
  number of tasks or the input's operation reads one block of each of its inputs per
  task (it is chunk-wise, so the fused task computes it once for each block it reads);
- the operation making an input that several operations read, when that operation is
  chunk-wise and reads virtual arrays only (``arange``, ``full``, ``linspace``, scalars
  ...): each reader recomputes it from its generated inputs instead of the plan storing
  it (an array made from stored data is still stored once and read by each user).
  Within a task scope (:func:`task_scope`, which the device store opens around each
  task) a recomputed chunk is computed once a task, however many readers the task
  fused, and each chunk is read once;

while the fused task reads at most :data:`MAX_SOURCE_ARRAYS` stored arrays and cubed
projects it within ``allowed_mem``.  A reduction's later rounds, which read several
blocks of partial results, are not fused into each other, so the tasks of a round still
run in parallel.  Requested arrays are never fused away.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
import threading
from collections.abc import Iterator
from typing import Any

#: stored arrays one fused task may read (cubed's default is 4): a chain's
#: operations on a few stored arrays fuse, each read costing one chunk of memory that
#: cubed's projection counts
MAX_SOURCE_ARRAYS = 32


_task = threading.local()


@contextlib.contextmanager
def task_scope() -> Iterator[None]:
    """The scope of one task in this thread: :func:`task_memo` is a dict for its
    duration (an inner scope shares the outer one's)."""
    if getattr(_task, "memo", None) is not None:
        yield
        return
    _task.memo = {}
    try:
        yield
    finally:
        _task.memo = None


def task_memo() -> dict[Any, Any] | None:
    """This thread's task memo (None outside :func:`task_scope`)."""
    return getattr(_task, "memo", None)


def _key(a: Any) -> Any:
    """A chunk function's arguments by the identity of their chunks (stable within a
    task scope, which holds them), keeping cubed's nesting of fused inputs."""
    from cubed.primitive.blockwise import FunctionArgs

    if isinstance(a, FunctionArgs):
        return (a.output_name, tuple(_key(x) for x in a.args))
    if isinstance(a, (list, tuple)):
        return tuple(_key(x) for x in a)
    return id(a)


class Shared:
    """The chunk function of an operation that several fused readers recompute: within
    a task scope, computed once for the same input chunks."""

    __slots__ = ("fn",)

    def __init__(self, fn: Any) -> None:
        self.fn = fn

    def __call__(self, *args: Any) -> Any:
        memo = task_memo()
        if memo is None:
            return self.fn(*args)
        k = (id(self), _key(args))
        if k not in memo:
            memo[k] = self.fn(*args)
        return memo[k]


def _shared(op: Any) -> Any:
    """``op`` with its chunk function wrapped in :class:`Shared` (once)."""
    cfg = op.pipeline.config
    if isinstance(cfg.function, Shared):
        return op
    pipeline = dataclasses.replace(op.pipeline, config=dataclasses.replace(
        cfg, function=Shared(cfg.function)))
    return dataclasses.replace(op, pipeline=pipeline)


def _producer(dag: Any, array: str) -> str:
    (pre,) = {p for p, _ in dag.in_edges(array)}
    return pre


def _chunkwise(op: Any) -> bool:
    """Whether a primitive operation reads one block of each input per task."""
    return all(n == 1 for n in op.pipeline.config.num_input_blocks)


def _virtual(dag: Any, array: str) -> bool:
    from cubed.storage.virtual import VirtualArray

    return isinstance(dag.nodes[array].get("target"), VirtualArray)


def _absorbable(dag: Any, name: str, array: str, array_names: Any) -> Any:
    """The primitive operation making ``array`` if operation ``name`` may compute it
    in its own tasks (module docstring), else None."""
    from cubed.primitive.blockwise import is_fuse_candidate

    if array in array_names:
        return None
    pre = _producer(dag, array)
    node = dag.nodes[pre]
    op = node.get("primitive_op")
    if op is None or not op.fusable_with_successors or not is_fuse_candidate(op):
        return None
    if len({s for _, s in dag.out_edges(pre)}) != 1:  # an operation of several outputs
        return None
    me = dag.nodes[name]["primitive_op"]
    chunkwise = _chunkwise(op)
    if me.num_tasks != op.num_tasks and not chunkwise:
        return None
    readers = {s for _, s in dag.out_edges(array)}
    if len(readers) > 1:
        if not (chunkwise and all(_virtual(dag, a) for a in op.source_array_names)):
            return None
        op = node["primitive_op"] = _shared(op)  # every reader shares one function
        node["pipeline"] = op.pipeline
    return op


def _stored_sources(dag: Any, op: Any) -> set[str]:
    return {a for a in op.source_array_names if not _virtual(dag, a)}


def _fuse_into(dag: Any, name: str, array_names: Any, max_sources: int) -> None:
    from cubed.primitive.blockwise import (
        can_fuse_multiple_primitive_ops,
        fuse_multiple,
        is_fuse_candidate,
    )

    me = dag.nodes[name]["primitive_op"]
    if not me.fusable_with_predecessors or not is_fuse_candidate(me):
        return
    found = {a: _absorbable(dag, name, a, array_names) for a in set(me.source_array_names)}
    preds = [found[a] for a in me.source_array_names]
    if all(p is None for p in preds):
        return
    sources: set[str] = set()
    for a, p in zip(me.source_array_names, preds, strict=True):
        sources |= _stored_sources(dag, p) if p is not None else (
            set() if _virtual(dag, a) else {a})
    if len(sources) > max_sources or not can_fuse_multiple_primitive_ops(
            name, me, preds, max_total_num_input_blocks=sys.maxsize):
        return
    fused = fuse_multiple(me, *preds)
    dag.nodes[name]["primitive_op"] = fused
    dag.nodes[name]["pipeline"] = fused.pipeline
    for a, p in found.items():
        if p is None:
            continue
        pre = _producer(dag, a)
        uses = me.source_array_names.count(a)
        while dag.has_edge(a, name):
            dag.remove_edge(a, name)
        inputs = [i for i, _ in dag.in_edges(pre)]
        for _ in range(uses):
            dag.add_edges_from((i, name) for i in inputs)
        if dag.out_degree(a) == 0:  # every reader computes it now
            dag.remove_node(a)
            dag.remove_node(pre)


def optimize(dag: Any, *, array_names: Any,
             max_total_source_arrays: int = MAX_SOURCE_ARRAYS) -> Any:
    """A cubed ``optimize_function``: ``compute(optimize_function=usmarray.cubed.optimize)``
    (module docstring).  Plans whose intermediates go to a device store use it by
    default."""
    import networkx as nx

    dag = dag.copy()
    for name in list(nx.topological_sort(dag)):
        if name in dag and "primitive_op" in dag.nodes[name]:
            _fuse_into(dag, name, array_names, max_total_source_arrays)
    return dag
