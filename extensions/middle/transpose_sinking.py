"""The layout step for channels-last (TensorFlow) models: move Transposes down the graph until
they cancel.

The front lowerings turn each channels-last op into ``Transpose(to NCHW) -> op -> Transpose(to
NHWC)``. Here every Transpose with a constant permutation is pushed through the
layout-agnostic ops that consume it (elementwise ops with constant or already transposed
operands, Concat, reductions, Split, Pad, Interpolate, Softmax, ShapeOf; see transpose_rules),
and two Transposes in a row become one, or none when they undo each other. The names of a
Transpose that goes away stay on its input as permuted names (``Port.get_permuted_names``). What is left stands
where the layout really changes: after the model inputs, before the outputs, and around ops
that depend on the order of dimensions (Reshape, MatMul...). The model's inputs and outputs keep
their layout.

A Transpose read by several ops is pushed only when every one of them can take it (or it has
one reader), so pushing never leaves the original Transpose in place beside new ones.

It runs after constant folding (weights are constants by then, their Transposes folded) and
before the scale-shift fusions, which then see channels-first convolutions followed by
per-channel constants.
"""
from __future__ import annotations

from collections import deque

import numpy as np

from extensions.middle.constant_folding import ConstantFolding
from extensions.middle.scale_shift_fusions import BatchNormToScaleShift
from extensions.middle.transpose_rules import (
    ELEMENTWISE_LIKE,
    Plan,
    broadcast_operand,
    is_elementwise,
    perm_of,
    plan_push,
    transposed_by,
)
from mo.graph.builder import OpBuilder
from mo.graph.node import Node
from mo.graph.port import Port
from mo.pipeline.infer import infer_node
from mo.pipeline.transform import Transform

MAX_ROUNDS = 1000


def identity(perm: list[int]) -> bool:
    return perm == list(range(len(perm)))


def remove_transpose(node: Node) -> None:
    """Feed the readers of a Transpose that does nothing from its input."""
    node.out_port(0).get_connection().set_source(node.in_port(0).get_source())
    node.graph.remove_node(node.id)


def restore_layout(port: Port, perm: list[int], gather: bool) -> None:
    """Insert ``Transpose(port, perm)`` (or, for a shape vector, ``Gather(port, perm)``) between
    ``port`` and its readers; the tensor names (and permuted names) move to the new output."""
    graph = port.node.graph
    readers = port.get_destinations()
    b = OpBuilder(graph, port.node.name)
    name = graph.unique_id(f"{port.node.name}/restore_layout")
    if gather:
        new = b.Gather(port, np.array(perm, np.int64), np.int64(0), name=name)
    else:
        new = b.Transpose(port, np.array(perm, np.int64), name=name)
    new.take_names(port)
    for reader in readers:
        new.connect(reader)


def apply(plan: Plan) -> None:
    node = plan.node
    sources = {i: make() for i, make in plan.inputs.items()}
    for i, src in sources.items():
        src.connect(node.in_port(i))
    node.update(plan.attrs)
    infer_node(node)
    for idx, perm in plan.outputs.items():
        port = node.out_port(idx)
        if perm is None or identity(perm):
            continue
        if port.is_connected():
            restore_layout(port, perm, plan.gather)
        elif not plan.gather:          # nothing reads it: its names stand for it transposed back
            port.hold_transposed_names(port, perm)


def merge_with_readers(t: Node, perm: list[int]) -> bool:
    """Transpose(Transpose(x, P), Q) -> Transpose(x, P[Q]), or x itself."""
    changed = False
    source = t.in_port(0).get_source()
    for reader in [p.node for p in t.out_port(0).get_destinations()]:
        second = perm_of(reader) if reader.op == "Transpose" and reader.in_port(0).get_source().node == t else None
        if second is None:
            continue
        combined = [perm[q] for q in second]
        if identity(combined):
            reader.out_port(0).get_connection().set_source(source)
            reader.graph.remove_node(reader.id)
        else:
            b = OpBuilder(t.graph, reader.name)
            source.connect(reader.in_port(0))
            b.const(np.array(combined, np.int64), name=f"{reader.name}/order").connect(reader.in_port(1))
            infer_node(reader)
        changed = True
    return changed


def waits_for_sibling(reader: Node, perm: list[int], plans: dict[str, Plan]) -> bool:
    """Whether ``reader`` could take the Transpose once its other readers have: each input of
    ``reader`` that is not transposed yet comes from one of those readers, whose output will be
    transposed by the same permutation (x -> ReduceMean(x, keep_dims) -> Add(x, mean))."""
    if reader.op not in ELEMENTWISE_LIKE and not is_elementwise(reader):
        return False
    for i in reader.in_ports():
        src = reader.in_port(i).get_source()
        plan = plans.get(src.node.id)
        if transposed_by(src, perm) or (plan is not None and plan.outputs.get(src.idx) == perm
                                        and not plan.gather):
            continue
        if broadcast_operand(reader, i, perm) is None:
            return False
    return True


def sink(t: Node) -> bool:
    """One step for Transpose ``t``: merge it with Transposes reading it, push it through its
    readers when all of them take it (some possibly only after the others), drop it when
    nothing reads it."""
    perm = perm_of(t)
    if perm is None:
        return False
    if identity(perm):
        remove_transpose(t)
        return True
    changed = merge_with_readers(t, perm)
    readers = {p.node.id: p.node for p in t.out_port(0).get_destinations()}
    plans = {rid: plan_push(r, perm) for rid, r in readers.items()}
    ready = {rid: p for rid, p in plans.items() if p is not None}
    if ready and all(rid in ready or waits_for_sibling(readers[rid], perm, ready) for rid in readers):
        for plan in ready.values():
            apply(plan)
        changed = True
    if t.id in t.graph and not t.out_port(0).is_connected():
        # its readers took the tensor before it: the framework tensor it made is that tensor
        # in another order (--validate_layers still compares it)
        t.in_port(0).get_source().hold_transposed_names(t.out_port(0), perm)
        t.graph.remove_node(t.id)
        changed = True
    return changed


def merge_duplicates(graph) -> None:
    """Transposes of one tensor by the same permutation become one."""
    seen: dict[tuple, Node] = {}
    for t in graph.nodes_by_op("Transpose"):
        perm = perm_of(t)
        src = t.in_port(0).get_source()
        if perm is None or src is None:
            continue
        key = (src.node.id, src.idx, tuple(perm))
        if key in seen:
            t.out_port(0).get_connection().set_source(seen[key].out_port(0))
            graph.remove_node(t.id)
        else:
            seen[key] = t


class LayoutStep(Transform):
    """A transform of the layout step: middle phase, channels-last frameworks, after
    TransposeSinking (which runs after constant folding) and before the scale-shift fusions."""

    abstract = True
    phase = "middle"
    frameworks = ("tf",)

    def run_after(self):
        return [TransposeSinking]

    def run_before(self):
        return [BatchNormToScaleShift]


class TransposeSinking(LayoutStep):
    """Moves Transposes towards the outputs through layout-agnostic ops and cancels them."""

    def run_after(self):
        return [ConstantFolding]

    def find_and_replace_pattern(self, graph) -> None:
        # A work list follows each Transpose (and the ones its steps create) forward; a full
        # pass then catches Transposes that waited for a sibling. Rounds of full passes alone
        # would cost one topological sort per op a Transpose travels through.
        for _ in range(MAX_ROUNDS):
            pending = deque(n.id for n in graph.topological_ops() if n.op == "Transpose")
            queued = set(pending)
            changed = False
            steps = MAX_ROUNDS * (len(pending) + 1)
            while pending and steps > 0:
                steps -= 1
                tid = pending.popleft()
                queued.discard(tid)
                if tid not in graph or graph._node[tid].get("op") != "Transpose":
                    continue
                mark = graph.index_mark()
                if not sink(graph.node(tid)):
                    continue
                changed = True
                follow = sorted((n for n in graph.indexed_since(mark, "Transpose") if n != tid),
                                key=lambda n: graph._node[n]["_seq"])
                for nid in follow + ([tid] if tid in graph else []):
                    if nid not in queued:
                        pending.append(nid)
                        queued.add(nid)
            if not changed:
                break
        merge_duplicates(graph)


def partial_value(port: Port, depth: int = 0) -> list[int] | None:
    """Elements of a 1-D integer tensor, -1 where unknown: constant pieces of a Concat (as
    Keras builds reshape targets from the dynamic batch and constant dims) are known."""
    value = port.data.get_value()
    if value is not None:
        return [int(v) for v in value.reshape(-1)]
    node = port.node
    if depth < 8 and node.op == "Concat" and node.axis in (0, -1):
        parts = [partial_value(p.get_source(), depth + 1) for _, p in sorted(node.in_ports().items())]
        return None if any(p is None for p in parts) else [d for p in parts for d in p]
    if depth < 8 and node.op in ("Unsqueeze", "Squeeze", "Reshape", "Convert"):
        return partial_value(node.in_port(0).get_source(), depth + 1)
    shape = port.data.get_shape()
    if shape is not None and len(shape) <= 1 and all(d >= 0 for d in shape):
        return [-1] * (shape[0] if shape else 1)
    return None


def input_shape(t: Node) -> tuple | None:
    """Shape of a Transpose's input, completed from the target of the Reshape that makes it."""
    shape = t.in_shape(0)
    src = t.in_port(0).get_source().node
    if shape is None or src.op != "Reshape" or src.special_zero:
        return shape
    target = partial_value(src.in_port(1).get_source())
    if target is None or len(target) != len(shape):
        return shape
    return tuple(d if d >= 0 else max(t_, -1) for d, t_ in zip(shape, target))


def reshape_target(t: Node) -> np.ndarray | None:
    """Output shape of a Transpose that only moves dimensions of size 1 (so it is a Reshape),
    with -1 for its one dynamic dimension; None otherwise."""
    perm = perm_of(t)
    shape = input_shape(t)
    if perm is None or shape is None:
        return None
    out = [shape[p] for p in perm]
    if sum(d < 0 for d in out) > 1:
        return None
    moved = [p for p in perm if shape[p] != 1]
    if moved != sorted(moved):
        return None
    return np.array(out, np.int64)


class TransposeToReshape(LayoutStep):
    """A Transpose left after sinking that only moves dimensions of size 1 (e.g. [N,1,1,C] ->
    [N,C,1,1]) is a Reshape; a Reshape that only fed it is folded into it."""

    def find_and_replace_pattern(self, graph) -> None:
        for t in graph.nodes_by_op("Transpose"):
            target = reshape_target(t)
            if target is None:
                continue
            source = t.in_port(0).get_source()
            if source.node.op == "Reshape" and len(source.get_destinations()) == 1:
                source = source.node.in_port(0).get_source()
            b = OpBuilder(graph, t.name)
            reshape = b.Reshape(source, target, special_zero=False, name=t.name)
            t.out_port(0).get_connection().set_source(reshape)
            graph.remove_node(t.id)
