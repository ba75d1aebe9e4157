"""Recurrent sequence operations: LSTMSequence, GRUSequence and RNNSequence (opset5).

Inputs: X [batch, seq, input], initial hidden state [batch, num_directions, hidden] (LSTM: and
initial cell state), sequence lengths [batch], W [num_directions, gates * hidden, input],
R [num_directions, gates * hidden, hidden], B [num_directions, gates * hidden] (GRU with
``linear_before_reset``: 4 * hidden). Gate order: LSTM f, i, c, o; GRU z, r, h.
Outputs: Y [batch, num_directions, seq, hidden], the last hidden state [batch, num_directions,
hidden] (LSTM: and the last cell state).
"""
from __future__ import annotations

from mo.graph.node import Node
from mo.ops.op import Op
from mo.utils.shape import DYN


def num_directions(direction: str) -> int:
    return 2 if direction == "bidirectional" else 1


class RecurrentSequence(Op):
    """Common shape and type inference of the sequence ops."""

    abstract = True
    version = "opset5"
    gates = 1
    defaults = {"direction": "forward", "activations_alpha": [], "activations_beta": [], "clip": 0.0}
    ir_attrs = ("direction", "hidden_size", "activations", "activations_alpha", "activations_beta", "clip")

    @classmethod
    def type_infer(cls, node: Node) -> None:
        for i in range(cls.outputs_count(node)):
            node.out_port(i).data.set_dtype(node.in_dtype(0))

    @classmethod
    def infer_shapes(cls, node: Node) -> list[tuple | None]:
        x = node.in_shape(0)
        h0 = node.in_shape(1)
        batch = x[0] if x is not None else DYN
        if batch < 0 and h0 is not None:
            batch = h0[0]
        seq = x[1] if x is not None else DYN
        dirs, hidden = num_directions(node.direction), int(node.hidden_size)
        state = (batch, dirs, hidden)
        return [(batch, dirs, seq, hidden)] + [state] * (cls.outputs_count(node) - 1)


class LSTMSequence(RecurrentSequence):
    same_type_inputs = (0, 1, 2, 4, 5, 6)
    op = "LSTMSequence"
    num_outputs = 3
    gates = 4
    defaults = {**RecurrentSequence.defaults, "activations": ["sigmoid", "tanh", "tanh"]}


class GRUSequence(RecurrentSequence):
    same_type_inputs = (0, 1, 3, 4, 5)
    op = "GRUSequence"
    num_outputs = 2
    gates = 3
    defaults = {**RecurrentSequence.defaults, "activations": ["sigmoid", "tanh"], "linear_before_reset": False}
    ir_attrs = ("direction", "linear_before_reset") + RecurrentSequence.ir_attrs[1:]


class RNNSequence(RecurrentSequence):
    same_type_inputs = (0, 1, 3, 4, 5)
    op = "RNNSequence"
    num_outputs = 2
    defaults = {**RecurrentSequence.defaults, "activations": ["tanh"]}
