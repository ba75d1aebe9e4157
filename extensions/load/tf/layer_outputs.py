"""--validate_layers for TensorFlow models: the frozen graph the converter read, run in one
TensorFlow session that fetches the tensors asked for (``TfLoader.source_layers``).

Every output of a graph op is a tensor to compare, except constants (and what ops compute from
constants alone: the reads of frozen variables), inputs, resources and strings, and the tensors of
TF1 control flow (a cond branch that does not run has no value, a
loop body's tensors none outside the loop): the ops from a Switch or Enter up to the Merge or
Exit that leaves it. Function bodies (While, If, calls) are inside their op and not fetched.
"""
from __future__ import annotations

from collections import deque

import numpy as np

from mo.runtime.frameworks import tf_feed, tf_graph
from mo.runtime.layers import SourceLayers, SourceTensor

NOT_COMPARED = frozenset({"Const", "Placeholder", "PlaceholderWithDefault", "NoOp", "VarHandleOp", "VariableV2"})
ENTERING = frozenset({"Switch", "RefSwitch", "Enter", "RefEnter"})
LEAVING = frozenset({"Merge", "RefMerge", "Exit", "RefExit"})


def _topological(ops: list) -> list:
    """``ops`` in an order where each comes after its inputs (control inputs too), the graph's own
    order kept where it allows; the back edges of TF1 loops (NextIteration) are not followed."""
    position = {op.name: i for i, op in enumerate(ops)}
    waiting = {}
    readers: dict[str, list] = {op.name: [] for op in ops}
    for op in ops:
        sources = set() if op.type in ("Merge", "RefMerge") else {t.op.name for t in op.inputs}
        sources |= {c.name for c in op.control_inputs}
        sources = {s for s in sources if s in position}
        waiting[op.name] = len(sources)
        for s in sources:
            readers[s].append(op)
    ready = deque(op for op in ops if waiting[op.name] == 0)
    order, done = [], set()
    while ready:
        op = ready.popleft()
        order.append(op)
        done.add(op.name)
        for reader in readers[op.name]:
            waiting[reader.name] -= 1
            if waiting[reader.name] == 0:
                ready.append(reader)
    return order + [op for op in ops if op.name not in done]


def _constant(ops: list) -> set[str]:
    """Names of the ops whose value needs no input: constants and ops of constants only (``ops``
    in topological order)."""
    found: set[str] = set()
    for op in ops:
        if op.type == "Const" or (op.inputs and op.type not in NOT_COMPARED and
                                  all(t.op.name in found for t in op.inputs)):
            found.add(op.name)
    return found


def _in_control_flow(ops: list) -> set[str]:
    """Names of the ops of TF1 control flow: reached from a Switch or Enter before the Merge or
    Exit that ends it."""
    readers: dict[str, list] = {}
    for op in ops:
        for t in op.inputs:
            readers.setdefault(t.op.name, []).append(op)
    inside: set[str] = set()
    stack = [op for op in ops if op.type in ENTERING]
    while stack:
        op = stack.pop()
        if op.name in inside:
            continue
        inside.add(op.name)
        stack += [r for r in readers.get(op.name, []) if r.type not in LEAVING]
    return inside


class TfLayers(SourceLayers):
    """The TensorFlow graph in a session on the validation inputs."""

    def __init__(self, opts, ir_inputs: list, feed: list[np.ndarray]):
        tf, graph, constants, _, _ = tf_graph(opts)
        self.framework = f"TensorFlow {tf.__version__}"
        self.feed = {**tf_feed(opts, graph, ir_inputs, feed), **constants}
        ops = _topological(graph.get_operations())
        skipped = _in_control_flow(ops) | _constant(ops)
        self.tensors = [SourceTensor(t.name, op.type, op.name) for op in ops
                        if op.type not in NOT_COMPARED and op.name not in skipped for t in op.outputs
                        if t.dtype not in (tf.resource, tf.variant, tf.string)]
        self.session = tf.compat.v1.Session(graph=graph)

    def values(self, names: list[str]) -> list[np.ndarray]:
        return [np.asarray(v) for v in self.session.run(names, self.feed)]

    def close(self) -> None:
        self.session.close()
