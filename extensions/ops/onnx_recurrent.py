"""ONNX LSTM, GRU and RNN as extracted, with the ONNX output shapes, until the middle phase
lowers them to the opset5 sequence operations."""
from __future__ import annotations

from extensions.ops.recurrent import num_directions
from mo.graph.node import Node
from mo.ops.op import Op
from mo.utils.shape import DYN


class OnnxRecurrent(Op):
    """ONNX ``cell`` (LSTM, GRU or RNN): inputs X, W, R, B, sequence_lens, initial_h (LSTM:
    initial_c, P); outputs Y, Y_h (LSTM: Y_c). ``layout`` 0: X [seq, batch, input], Y [seq,
    num_directions, batch, hidden], states [num_directions, batch, hidden]; ``layout`` 1: batch
    first in all of them (Y [batch, seq, num_directions, hidden])."""

    op = "onnx::Recurrent"
    type = None
    defaults = {"layout": 0, "direction": "forward"}

    @classmethod
    def type_infer(cls, node: Node) -> None:
        for i in range(cls.outputs_count(node)):
            node.out_port(i).data.set_dtype(node.in_dtype(0))

    @classmethod
    def hidden_size(cls, node: Node) -> int:
        """``hidden_size``, taken from the last dimension of R when the attribute is absent."""
        if node.get("hidden_size") is None:
            r = node.in_shape(2)
            if r is None or len(r) != 3 or r[2] < 0:
                raise ValueError("hidden_size is not given and the shape of R is unknown")
            node["hidden_size"] = int(r[2])
        return int(node.hidden_size)

    @classmethod
    def infer_shapes(cls, node: Node) -> list[tuple | None]:
        x = node.in_shape(0) or (DYN, DYN, DYN)
        seq, batch = (x[1], x[0]) if node.layout else (x[0], x[1])
        dirs, hidden = num_directions(node.direction), cls.hidden_size(node)
        if node.layout:
            y, state = (batch, seq, dirs, hidden), (batch, dirs, hidden)
        else:
            y, state = (seq, dirs, batch, hidden), (dirs, batch, hidden)
        return [y] + [state] * (cls.outputs_count(node) - 1)
