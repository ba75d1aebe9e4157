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

LSTMSequence has no peepholes: an LSTM with peephole weights becomes a Loop
(``onnx_lstm_peepholes``).
"""
from __future__ import annotations

from extensions.middle.constant_folding import ConstantFolding
from extensions.middle.onnx_lstm_peepholes import has_peepholes, lstm_loop
from extensions.middle.onnx_recurrent_inputs import C0, GATES, H0, R, RecurrentInputs, W, int64, source, split
from mo.graph.builder import OpBuilder
from mo.pipeline.transform import ReplaceOp

# OpenVINO gate k is ONNX gate ORDER[k] (LSTM: f, i, c, o from i, o, f, c).
ORDER = {"LSTM": [2, 0, 3, 1]}


class RecurrentToSequence(ReplaceOp):
    """onnx::Recurrent -> {LSTM,GRU,RNN}Sequence with Transposes and weight reordering around."""

    phase = "middle"
    op = "onnx::Recurrent"

    def run_before(self):
        return [ConstantFolding]

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        if has_peepholes(node):
            return lstm_loop(b, node)
        cell = node.cell
        ins = RecurrentInputs(b, node, batch_first=True)
        states = [ins.state(H0)] + ([ins.state(C0)] if cell == "LSTM" else [])
        w, r = (self.reorder(b, source(node, i), cell, ins.hidden) for i in (W, R))
        attrs = {k: node[k] for k in ("direction", "activations", "activations_alpha", "activations_beta", "clip")}
        if cell == "GRU":
            attrs["linear_before_reset"] = node.linear_before_reset
        seq_node = b.node(f"{cell}Sequence", ins.x, *states, ins.lengths(), w, r, self.bias(ins), name=node.name,
                          hidden_size=ins.hidden, **attrs)
        outputs = []
        for i, port in node.out_ports().items():
            out = seq_node.out_port(i)
            if not port.is_connected():
                outputs.append(None)
            elif i == 0:
                outputs.append(b.Transpose(out, int64(0, 2, 1, 3) if node.layout else int64(2, 1, 0, 3)))
            else:
                outputs.append(out if node.layout else b.Transpose(out, int64(1, 0, 2)))
        return outputs

    @staticmethod
    def reorder(b: OpBuilder, weights, cell: str, hidden: int):
        """Gates of W/R/B (axis 1) in OpenVINO's order."""
        order = ORDER.get(cell)
        if order is None:
            return weights
        parts = split(b, weights, 1, *[hidden] * GATES[cell])
        return b.Concat(*[parts[k] for k in order], axis=1)

    def bias(self, ins: RecurrentInputs):
        cell, b, hidden = ins.node.cell, ins.b, ins.hidden
        lbr = cell == "GRU" and ins.node.linear_before_reset
        halves = ins.bias_halves()
        if halves is None:
            return ins.zeros(ins.dirs, (ins.gates + lbr) * hidden)
        wb, rb = halves
        if not lbr:
            return self.reorder(b, b.Add(wb, rb), cell, hidden)
        (wb_zr, wb_h), (rb_zr, rb_h) = (split(b, t, 1, 2 * hidden, hidden) for t in (wb, rb))
        return b.Concat(b.Add(wb_zr, rb_zr), wb_h, rb_h, axis=1)

