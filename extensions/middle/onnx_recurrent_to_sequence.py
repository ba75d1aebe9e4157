"""Lowering of ONNX LSTM / GRU / RNN to LSTMSequence / GRUSequence / RNNSequence (opset5).

What differs between the two sides, and how it is bridged with graph ops (so weights that are
model inputs work too, and constant weights fold into constants):

* layout: ONNX is sequence-first unless ``layout`` = 1; OpenVINO is batch-first, with Y as
  [batch, num_directions, seq, hidden] (ONNX: [seq, num_directions, batch, hidden] or
  [batch, seq, num_directions, hidden]): Transposes on X, the initial states and the outputs;
* gate order: ONNX LSTM gates are i, o, f, c, OpenVINO's f, i, c, o: W, R and B are split per
  gate and concatenated in OpenVINO's order (GRU z, r, h and RNN agree already);
* bias: ONNX has separate input and recurrence biases [Wb, Rb]; OpenVINO takes their sum (GRU
  with ``linear_before_reset``: the z, r sums, then Wb_h and Rb_h apart);
* optional inputs: OpenVINO needs the sequence lengths (the sequence length for every batch
  item when ONNX has none), zero initial states and a zero bias.
"""
from __future__ import annotations

import numpy as np

from extensions.middle.constant_folding import ConstantFolding
from extensions.ops.recurrent import num_directions
from mo.errors import ConversionError
from mo.graph.builder import OpBuilder
from mo.pipeline.transform import ReplaceOp
from mo.utils.types import np_dtype

GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}
# OpenVINO gate k is ONNX gate ORDER[k] (LSTM: f, i, c, o from i, o, f, c).
ORDER = {"LSTM": [2, 0, 3, 1]}
I64 = np.int64


def int64(*values) -> np.ndarray:
    return np.array(values, I64)


def split(b: OpBuilder, tensor, axis: int, *sizes: int) -> tuple:
    """Parts of ``tensor`` of the given sizes along ``axis``."""
    return b.VariadicSplit(tensor, np.array(axis, I64), int64(*sizes))


class RecurrentToSequence(ReplaceOp):
    """onnx::Recurrent -> {LSTM,GRU,RNN}Sequence with Transposes and weight reordering around."""

    phase = "middle"
    op = "onnx::Recurrent"

    def run_before(self):
        return [ConstantFolding]

    def replace_op(self, graph, node):
        cell, hidden = node.cell, int(node.hidden_size)
        self.check_peepholes(node)
        b = OpBuilder(graph, node.name)
        dtype = np_dtype(node.in_dtype(0))
        dirs = num_directions(node.direction)
        batch_first = [1, 0, 2]
        x = self.source(node, 0)
        x = x if node.layout else b.Transpose(x, int64(*batch_first))
        batch, seq = split(b, b.ShapeOf(x), 0, 1, 1, -1)[:2]
        zero_state = None
        states = []
        for port in (5, 6)[:2 if cell == "LSTM" else 1]:
            h = self.source(node, port)
            if h is None:
                zero_state = zero_state or b.Broadcast(np.zeros((), dtype), b.Concat(batch, int64(dirs), int64(hidden)))
                states.append(zero_state)
            else:
                states.append(h if node.layout else b.Transpose(h, int64(*batch_first)))
        lengths = self.source(node, 4) or b.Broadcast(seq, batch)
        w, r = (self.reorder(b, self.source(node, i), cell, hidden) for i in (1, 2))
        bias = self.bias(b, node, dirs, hidden, dtype)
        attrs = {k: node[k] for k in ("direction", "activations", "activations_alpha", "activations_beta", "clip")}
        if cell == "GRU":
            attrs["linear_before_reset"] = node.linear_before_reset
        seq_node = b.node(f"{cell}Sequence", x, *states, lengths, w, r, bias, name=node.name, hidden_size=hidden,
                          **attrs)
        outputs = []
        for i, port in node.out_ports().items():
            out = seq_node.out_port(i)
            if not port.is_connected():
                outputs.append(None)
            elif i == 0:
                outputs.append(b.Transpose(out, int64(0, 2, 1, 3) if node.layout else int64(2, 1, 0, 3)))
            else:
                outputs.append(out if node.layout else b.Transpose(out, int64(*batch_first)))
        return outputs

    @staticmethod
    def source(node, port: int):
        return node.in_port(port).get_source() if node.is_in_port_connected(port) else None

    @staticmethod
    def check_peepholes(node) -> None:
        if node.cell != "LSTM" or not node.is_in_port_connected(7):
            return
        p = node.in_value(7)
        if p is None or np.any(p):
            raise ConversionError(
                f"LSTM '{node.name}' has peephole weights (input P): OpenVINO's LSTMSequence has no "
                f"peepholes, so it cannot be converted.")

    @staticmethod
    def reorder(b: OpBuilder, weights, cell: str, hidden: int):
        """Gates of W/R/B (axis 1) in OpenVINO's order."""
        order = ORDER.get(cell)
        if order is None:
            return weights
        parts = split(b, weights, 1, *[hidden] * GATES[cell])
        return b.Concat(*[parts[k] for k in order], axis=1)

    def bias(self, b: OpBuilder, node, dirs: int, hidden: int, dtype):
        cell = node.cell
        size = GATES[cell] * hidden
        lbr = cell == "GRU" and node.linear_before_reset
        bias = self.source(node, 3)
        if bias is None:
            return b.const(np.zeros((dirs, size + hidden * lbr), dtype))
        wb, rb = split(b, bias, 1, size, size)
        if not lbr:
            return self.reorder(b, b.Add(wb, rb), cell, hidden)
        (wb_zr, wb_h), (rb_zr, rb_h) = (split(b, t, 1, 2 * hidden, hidden) for t in (wb, rb))
        return b.Concat(b.Add(wb_zr, rb_zr), wb_h, rb_h, axis=1)
