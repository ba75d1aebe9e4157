"""TensorFlow's fused recurrent ops: LSTMBlockCell, BlockLSTM, BlockLSTMV2 and GRUBlockCell.

One LSTM step (gate pre-activations from [x, h_prev] @ w + b in TensorFlow's layout: i, c, f, o
for LSTMBlockCell/BlockLSTM, i, f, c, o for BlockLSTMV2):

    i = sigmoid(i + cs_prev * wci)          f = sigmoid(f + forget_bias + cs_prev * wcf)
    ci = tanh(c)                            cs = clip(ci * i + cs_prev * f, cell_clip)
    o = sigmoid(o + cs * wco)               co = tanh(cs)                h = co * o

(the peephole terms with ``use_peephole``, the clip when ``cell_clip`` > 0). BlockLSTM runs it
over x [T, B, I], its seven outputs [T, B, H] zero from step ``seq_len_max`` on. When only h is
used, there are no peepholes and no clip, that is LSTMSequence (gates reordered f, i, c, o, the
forget bias added to f's); otherwise the steps are unrolled, which needs a static T."""
from __future__ import annotations

import numpy as np

from extensions.load.tf.attributes import TfExtractor
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.building import convert, dim, i64, scalar_like
from mo.graph.port import Port

# op type -> positions of TensorFlow's i, c, f, o gates in w's columns
LSTM_LAYOUT = {"LSTMBlockCell": (0, 1, 2, 3), "BlockLSTM": (0, 1, 2, 3), "BlockLSTMV2": (0, 2, 1, 3)}
LSTM_OUTPUTS = ("i", "cs", "f", "o", "ci", "co", "h")


class LstmBlockExtractor(TfExtractor):
    """forget_bias (BlockLSTMV2 has none: 0), cell_clip (BlockLSTMV2 default 0), use_peephole."""

    op_types = tuple(LSTM_LAYOUT)

    @classmethod
    def extract(cls, node):
        v2 = node.fw_op == "BlockLSTMV2"
        node.update({"forget_bias": 0.0 if v2 else float(cls.attr(node, "forget_bias", 1.0)),
                     "cell_clip": float(cls.attr(node, "cell_clip", 0.0 if v2 else 3.0)),
                     "use_peephole": bool(cls.attr(node, "use_peephole", False))})


def _const(b: OpBuilder, value: float, like: Port) -> Port:
    return scalar_like(b, value, like)


def lstm_step(b: OpBuilder, node, x: Port, cs_prev: Port, h_prev: Port, w: Port, peepholes, bias: Port) -> dict:
    """The seven outputs of one LSTMBlockCell step, by name."""
    gates = b.Add(b.MatMul(b.Concat(x, h_prev, axis=1), w), bias)
    parts = b.Split(gates, np.int64(1), num_splits=4)
    i, c, f, o = (parts[k] for k in LSTM_LAYOUT[node.fw_op])
    if node.forget_bias:
        f = b.Add(f, _const(b, node.forget_bias, f))
    if node.use_peephole:
        wci, wcf, wco = peepholes
        i, f = b.Add(i, b.Multiply(cs_prev, wci)), b.Add(f, b.Multiply(cs_prev, wcf))
    i, f, ci = b.Sigmoid(i), b.Sigmoid(f), b.Tanh(c)
    cs = b.Add(b.Multiply(ci, i), b.Multiply(cs_prev, f))
    if node.cell_clip > 0:
        cs = b.Clamp(cs, min=-node.cell_clip, max=node.cell_clip)
    if node.use_peephole:
        o = b.Add(o, b.Multiply(cs, peepholes[2]))
    o, co = b.Sigmoid(o), b.Tanh(cs)
    return {"i": i, "cs": cs, "f": f, "o": o, "ci": ci, "co": co, "h": b.Multiply(co, o)}


@translator("tf", "LSTMBlockCell")
def lstm_block_cell(node, b):
    x, cs_prev, h_prev, w, wci, wcf, wco, bias = (node.in_port(i).get_source() for i in range(8))
    step = lstm_step(b, node, x, cs_prev, h_prev, w, (wci, wcf, wco), bias)
    return [step[name] for name in LSTM_OUTPUTS]


@translator("tf", "BlockLSTM", "BlockLSTMV2")
def block_lstm(node, b):
    used = [bool(node.out_port(k).get_destinations()) for k in range(len(LSTM_OUTPUTS))]
    if not node.use_peephole and node.cell_clip <= 0 and not any(used[:6]):
        return [None] * 6 + [_lstm_sequence(node, b)]
    return _unrolled_lstm(node, b)


def _hidden_size(node, w: Port) -> int:
    shape = w.data.get_shape()
    if shape is None or len(shape) != 2 or shape[1] < 0 or shape[1] % 4:
        raise ConversionError(f"its weights have shape {shape}; the hidden size (columns / 4) must be known.")
    return shape[1] // 4


def _lstm_sequence(node, b):
    """h of every step from LSTMSequence over [B, T, I], the steps past seq_len_max zero."""
    seq_len_max, x, cs_prev, h_prev, w, *_, bias = (node.in_port(i).get_source() for i in range(9))
    hidden = _hidden_size(node, w)
    fico = i64([LSTM_LAYOUT[node.fw_op][k] for k in (2, 0, 1, 3)])      # TensorFlow's f, i, c, o positions
    # w [I + H, 4H] -> [4, H, I + H] gates reordered -> [4H, I + H] -> W [4H, I] and R [4H, H]
    gates = b.Gather(b.Reshape(b.Transpose(w, i64(1, 0)), i64(4, hidden, -1), special_zero=False), fico,
                     np.int64(0))
    gates = b.Reshape(gates, i64(4 * hidden, -1), special_zero=False)
    inputs = b.Reshape(dim(b, x, 2), i64(1), special_zero=False)
    w_x, w_h = b.VariadicSplit(gates, np.int64(1), b.Concat(inputs, i64(-1), axis=0), num_outputs=2)
    forget = np.zeros((4, 1), np.float32)
    forget[0] = node.forget_bias
    bias = b.Add(b.Gather(b.Reshape(bias, i64(4, hidden), special_zero=False), fico, np.int64(0)),
                 convert(b, b.const(forget), bias.data.get_dtype()))
    batch = b.Reshape(dim(b, x, 1), i64(1), special_zero=False)
    steps = b.Minimum(convert(b, seq_len_max, "i64"), dim(b, x, 0))
    lengths = b.Broadcast(b.Convert(steps, destination_type="i32"), batch)
    y, _, _ = b.LSTMSequence(b.Transpose(x, i64(1, 0, 2)), b.Unsqueeze(h_prev, i64(1)), b.Unsqueeze(cs_prev, i64(1)),
                             lengths, b.Unsqueeze(w_x, i64(0)), b.Unsqueeze(w_h, i64(0)),
                             b.Reshape(bias, i64(1, 4 * hidden), special_zero=False), hidden_size=hidden,
                             direction="forward", activations=["sigmoid", "tanh", "tanh"], name=node.name)
    return b.Transpose(b.Squeeze(y, i64(1)), i64(1, 0, 2))                   # [B, 1, T, H] -> [T, B, H]


def _unrolled_lstm(node, b):
    seq_len_max, x, cs_prev, h_prev, w, wci, wcf, wco, bias = (node.in_port(i).get_source() for i in range(9))
    shape = x.data.get_shape()
    if shape is None or len(shape) != 3 or shape[0] < 0:
        raise ConversionError(f"its input has shape {shape}; with peepholes, a cell clip or outputs other than h "
                              f"the steps are unrolled, which needs a static number of steps (give --input shapes).")
    steps = b.Split(x, np.int64(0), num_splits=shape[0]) if shape[0] > 1 else [x]
    limit = convert(b, seq_len_max, "i64")
    outputs = {name: [] for name in LSTM_OUTPUTS}
    for t, x_t in enumerate(steps):
        step = lstm_step(b, node, b.Squeeze(x_t, i64(0)), cs_prev, h_prev, w, (wci, wcf, wco), bias)
        cs_prev, h_prev = step["cs"], step["h"]
        active = b.Less(np.int64(t), limit)
        for name in LSTM_OUTPUTS:
            value = step[name]
            outputs[name].append(b.Unsqueeze(b.Select(active, value, _const(b, 0, value)), i64(0)))
    return [b.Concat(*outputs[name], axis=0) if len(outputs[name]) > 1 else outputs[name][0] for name in LSTM_OUTPUTS]


@translator("tf", "GRUBlockCell")
def gru_block_cell(node, b):
    """r, u = sigmoid([x, h_prev] @ w_ru + b_ru); c = tanh([x, r * h_prev] @ w_c + b_c);
    h = u * h_prev + (1 - u) * c."""
    x, h_prev, w_ru, w_c, b_ru, b_c = (node.in_port(i).get_source() for i in range(6))
    r, u = b.Split(b.Sigmoid(b.Add(b.MatMul(b.Concat(x, h_prev, axis=1), w_ru), b_ru)), np.int64(1), num_splits=2)
    c = b.Tanh(b.Add(b.MatMul(b.Concat(x, b.Multiply(r, h_prev), axis=1), w_c), b_c))
    h = b.Add(b.Multiply(u, h_prev), b.Multiply(b.Subtract(_const(b, 1, u), u), c))
    return [r, u, c, h]
