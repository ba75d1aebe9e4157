"""ATen recurrent layers (lstm, gru, rnn_tanh, rnn_relu): their translators, one LSTMSequence /
GRUSequence / RNNSequence per layer.

PyTorch gives the weights per layer and direction as w_ih [G*H, in], w_hh [G*H, H] and the
biases b_ih, b_hh [G*H] (gates i, f, g, o for LSTM; r, z, n for GRU), states as
[layers * directions, batch, H] and the sequence as [seq, batch, in] unless ``batch_first``.
The sequence ops want batch-first data and states, weights stacked per direction, gates in
OpenVINO's order (LSTM f, i, c, o; GRU z, r, h) and one bias (GRU: z and r summed, the h biases
apart, ``linear_before_reset`` as PyTorch computes n = tanh(W x + b + r * (U h + b_hn)))."""
from __future__ import annotations

import numpy as np

from extensions.front.pytorch.aten import const, convert, dim_size, rank_of, reshape, scalar_int
from extensions.front.pytorch.shape import sliced
from extensions.load.pytorch.arguments import aten
from extensions.ops.control_flow import new_body, port_entry, sliced_entry
from mo.errors import ConversionError
from mo.graph.builder import OpBuilder
from mo.graph.building import i64

# OpenVINO gate order as indices of PyTorch's gates
_ORDER = {"LSTMSequence": [1, 0, 2, 3], "GRUSequence": [1, 0, 2], "RNNSequence": [0]}
_SWAP_01 = i64(1, 0, 2)


def _gates(b, w, count: int, hidden: int):
    """The per-gate blocks of a [G*H, ...] weight or [G*H] bias."""
    if count == 1:
        return [w]
    return list(b.VariadicSplit(w, np.int64(0), np.full(count, hidden, np.int64)))


def _direction(b, params, op: str, hidden: int, et: str):
    """W, R and B of one direction in OpenVINO's gate order."""
    order = _ORDER[op]
    count = len(order)
    w_ih, w_hh = (_gates(b, p, count, hidden) for p in params[:2])
    w = b.Concat(*[w_ih[g] for g in order], axis=0) if count > 1 else w_ih[0]
    r = b.Concat(*[w_hh[g] for g in order], axis=0) if count > 1 else w_hh[0]
    if len(params) == 2:
        size = count * hidden + (hidden if op == "GRUSequence" else 0)
        return w, r, const(b, np.zeros(size), et)
    b_ih, b_hh = (_gates(b, p, count, hidden) for p in params[2:])
    if op == "GRUSequence":   # z and r biases summed; the n gate keeps W's and U's apart
        bias = b.Concat(b.Add(b_ih[1], b_hh[1]), b.Add(b_ih[0], b_hh[0]), b_ih[2], b_hh[2], axis=0)
    else:
        bias = b.Concat(*[b.Add(b_ih[g], b_hh[g]) for g in order], axis=0) if count > 1 else \
            b.Add(b_ih[0], b_hh[0])
    return w, r, bias


def _sequence(node, a, b, op: str, **attrs):
    """(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first) as
    one ``op`` per layer: the output sequence, then the last states of every layer and direction.
    The packed form (data, batch_sizes, hx, params, ...; see _pack_padded_sequence) runs each
    sequence for its own length."""
    packed = a.has("batch_sizes")
    x = a.tensor("data" if packed else "input")
    et = x.data.get_dtype()
    if rank_of(x, node) != 3:
        raise ConversionError("An unbatched (2-D) input is not supported." if not packed else
                              "A packed sequence not made by pack_padded_sequence is not supported.")
    params = [convert(b, p, et) for p in a.tensors("params")]
    has_biases, layers = bool(a.const("has_biases")), int(a.const("num_layers"))
    dirs = 2 if a.const("bidirectional") else 1
    batch_first = not packed and bool(a.const("batch_first"))
    per_direction = 4 if has_biases else 2
    if len(params) != layers * dirs * per_direction:
        raise ConversionError(f"{len(params)} weights are given, {layers * dirs * per_direction} expected.")
    hidden = params[1].data.get_shape()[1]
    states = [convert(b, s, et) for s in a.tensors("hx")]
    if not batch_first:
        x = b.Transpose(x, _SWAP_01)
    batch = reshape(b, dim_size(b, x, 0), [1])
    lengths = _lengths(b, a.tensor("batch_sizes"), dim_size(b, x, 0)) if packed else \
        b.Broadcast(dim_size(b, x, 1), batch)
    while len(states) < (2 if op == "LSTMSequence" else 1):
        states.append(b.Broadcast(const(b, 0, et), b.Concat(i64(layers * dirs), batch, i64(hidden), axis=0)))
    attrs.update(hidden_size=hidden, direction="bidirectional" if dirs == 2 else "forward")
    last = [[] for _ in states]
    for layer in range(layers):
        first = layer * dirs * per_direction
        weights = [_direction(b, params[first + d * per_direction:first + (d + 1) * per_direction], op, hidden, et)
                   for d in range(dirs)]
        w, r, bias = (b.Concat(*[b.Unsqueeze(wd[i], np.int64(0)) for wd in weights], axis=0) for i in range(3))
        initial = [b.Transpose(sliced(b, s, 0, layer * dirs, (layer + 1) * dirs), _SWAP_01) for s in states]
        if packed and not all(_static(t) for t in (x, lengths, *initial)):
            outputs = _stepwise(b, node, op, x, initial, lengths, w, r, bias, attrs)
        else:
            outputs = b.op(op, x, *initial, lengths, w, r, bias, **attrs)
        # [batch, dirs, seq, H] -> [batch, seq, dirs * H]
        x = b.Reshape(b.Transpose(outputs[0], i64(0, 2, 1, 3)), i64(0, 0, -1), special_zero=True)
        for i, state in enumerate(outputs[1:]):
            last[i].append(b.Transpose(state, _SWAP_01))
    if not batch_first:
        x = b.Transpose(x, _SWAP_01)
    return [x] + [parts[0] if len(parts) == 1 else b.Concat(*parts, axis=0) for parts in last]


def _static(port) -> bool:
    shape = port.data.get_shape()
    return shape is not None and all(d >= 0 for d in shape)


def _stepwise(b, node, op: str, x, initial, lengths, w, r, bias, attrs):
    """The outputs of ``op`` (Y [batch, dirs, seq, H], last states [batch, dirs, H]) over sequences
    of their own ``lengths``, computed one step at a time in a Loop per direction, each
    sequence's states kept after its end and its outputs zero there; the reverse direction runs
    forwards over each sequence reversed within its length. (OpenVINO's CPU plugin ignores the
    sequence lengths of the sequence ops when an input shape is dynamic.)"""
    dirs = w.data.get_shape()[0]
    ys, finals = [], []
    for d in range(dirs):
        xd = b.ReverseSequence(x, lengths, batch_axis=0, seq_axis=1) if d == 1 else x
        weights = [sliced(b, t, 0, d, d + 1) for t in (w, r, bias)]
        outputs = _step_loop(b, node, op, xd, [sliced(b, t, 1, d, d + 1) for t in initial], lengths, weights,
                             {**attrs, "direction": "forward"}, f"{node.name}/direction{d}")
        y = outputs[0]
        ys.append(b.ReverseSequence(y, lengths, batch_axis=0, seq_axis=2) if d == 1 else y)
        finals.append(outputs[1:])
    if dirs == 1:
        return [ys[0], *finals[0]]
    return [b.Concat(*ys, axis=1)] + [b.Concat(*parts, axis=1) for parts in zip(*finals)]


def _step_loop(b, node, op: str, x, states, lengths, weights, attrs, name: str):
    """One forward direction of ``op`` stepped in a Loop over dim 1 of x [batch, seq, in]."""
    body = new_body(b.graph)
    bb = OpBuilder(body, name)
    et = x.data.get_dtype()

    def parameter(like, label, shape=None):
        return bb.node("Parameter", name=f"{name}/{label}", element_type=like.data.get_dtype(),
                       shape=like.data.get_shape() if shape is None else shape)
    step = bb.node("Parameter", name=f"{name}/step", shape=(), element_type="i64")
    batch, features = x.data.get_shape()[0], x.data.get_shape()[2]
    xt = parameter(x, "x", (batch, 1, features))
    hs = [parameter(s, f"state{i}") for i, s in enumerate(states)]
    ws = [parameter(t, f"weight{i}") for i, t in enumerate(weights)]
    lp = parameter(lengths, "lengths")
    ones = bb.Broadcast(const(bb, 1, "i64"), bb.ShapeOf(lp.out_port(0)))
    outputs = bb.op(op, xt.out_port(0), *[h.out_port(0) for h in hs], ones, *[p.out_port(0) for p in ws], **attrs)
    running = bb.Less(step.out_port(0), lp.out_port(0))                        # [batch]
    running_state = bb.Reshape(running, i64(-1, 1, 1), special_zero=False)    # [batch, 1, 1]
    running_y = bb.Reshape(running, i64(-1, 1, 1, 1), special_zero=False)    # [batch, 1, 1, 1]
    y = bb.Select(running_y, outputs[0], const(bb, 0, et))
    results = [bb.node("Result", bb.const(np.array(True)), name=f"{name}/continue"),
               bb.node("Result", y, name=f"{name}/y")]
    results += [bb.node("Result", bb.Select(running_state, new, h.out_port(0)), name=f"{name}/state_out{i}")
                for i, (new, h) in enumerate(zip(outputs[1:], hs))]
    count = len(states)
    in_map = [port_entry(-1, step, purpose="current_iteration"), sliced_entry(2, xt, 1)]
    in_map += [port_entry(3 + i, p) for i, p in enumerate(hs + ws + [lp])]
    out_map = [port_entry(-1, results[0], purpose="execution_condition"), sliced_entry(0, results[1], 2)]
    out_map += [port_entry(1 + i, res) for i, res in enumerate(results[2:])]
    loop = b.node("Loop", dim_size(b, x, 1), b.const(np.array(True)), x, *states, *weights, lengths, name=name,
                  bodies={"body": body}, input_port_map=in_map, output_port_map=out_map,
                  back_edges=[{"from": res.id, "to": h.id} for res, h in zip(results[2:], hs)],
                  num_outputs=1 + count)
    return [loop.out_port(i) for i in range(1 + count)]


@aten("aten::lstm")
def lstm(node, a, b):
    """lstm: the output, the last hidden states and the last cell states."""
    return _sequence(node, a, b, "LSTMSequence")


@aten("aten::gru")
def gru(node, a, b):
    """gru: the output and the last hidden states (n = tanh(W x + b + r * (U h + b_hn)))."""
    return _sequence(node, a, b, "GRUSequence", linear_before_reset=True)


@aten("aten::rnn_tanh")
def rnn_tanh(node, a, b):
    return _sequence(node, a, b, "RNNSequence", activations=["tanh"])


@aten("aten::rnn_relu")
def rnn_relu(node, a, b):
    return _sequence(node, a, b, "RNNSequence", activations=["relu"])


# ---------------------------------------------------------------------------- packed sequences
# A PackedSequence made by pack_padded_sequence is kept padded: its data is the time-major
# [T, B, features] input (sorted by decreasing length, as pack_padded_sequence sorts it), its
# batch_sizes PyTorch's own (the number of sequences longer than each step: [max length]). The
# recurrent layers take the lengths from batch_sizes into their sequence ops; _pad_packed_sequence
# gives the data back padded with padding_value to total_length steps.


def _lengths(b, batch_sizes, batch):
    """The length of each of the ``batch`` (0-d) sequences: how many steps have more sequences
    than its index."""
    index = b.Range(const(b, 0, "i64"), batch, const(b, 1, "i64"), output_type="i64")
    longer = b.Greater(b.Unsqueeze(convert(b, batch_sizes, "i64"), i64(1)), index)
    return b.ReduceSum(convert(b, longer, "i64"), i64(0), keep_dims=False)


@aten("aten::_pack_padded_sequence")
def pack_padded_sequence(node, a, b):
    """_pack_padded_sequence(input, lengths, batch_first): the time-major padded data and the
    batch sizes of the steps up to the longest length."""
    x, lengths = a.tensor("input"), convert(b, a.tensor("lengths"), "i64")
    if a.const("batch_first"):
        x = b.Transpose(x, _SWAP_01)
    steps = b.Range(const(b, 0, "i64"), b.ReduceMax(lengths, i64(0), keep_dims=False), const(b, 1, "i64"),
                    output_type="i64")
    longer = b.Greater(b.Unsqueeze(lengths, i64(0)), b.Unsqueeze(steps, i64(1)))
    return [x, b.ReduceSum(convert(b, longer, "i64"), i64(1), keep_dims=False)]


@aten("aten::_pad_packed_sequence")
def pad_packed_sequence(node, a, b):
    """_pad_packed_sequence(data, batch_sizes, batch_first, padding_value, total_length): the data
    with padding_value after each sequence's end, total_length steps long, and the lengths."""
    data = a.tensor("data")
    et = data.data.get_dtype()
    if rank_of(data, node) < 2:
        raise ConversionError("A packed sequence not made by pack_padded_sequence is not supported.")
    lengths = _lengths(b, a.tensor("batch_sizes"), dim_size(b, data, 1))
    value = float(a.const("padding_value", 0.0))
    if value != 0:
        steps = b.Range(const(b, 0, "i64"), dim_size(b, data, 0), const(b, 1, "i64"), output_type="i64")
        inside = b.Less(b.Unsqueeze(steps, i64(1)), lengths)
        inside = b.Reshape(inside, i64(0, 0, *[1] * (rank_of(data, node) - 2)), special_zero=True)
        data = b.Select(inside, data, const(b, value, et))
    total = a.value("total_length")
    total = scalar_int(b, a.tensor("total_length") if total is None else int(total))
    kept = b.Slice(data, i64(0), b.Reshape(total, i64(1), special_zero=False), i64(1), i64(0))
    missing = b.Maximum(b.Subtract(total, dim_size(b, data, 0)), const(b, 0, "i64"))
    pads_end = b.Concat(b.Reshape(missing, i64(1), special_zero=False), i64(*[0] * (rank_of(data, node) - 1)), axis=0)
    padded = b.Pad(kept, i64(*[0] * rank_of(data, node)), pads_end, const(b, value, et), pad_mode="constant")
    if a.const("batch_first"):
        padded = b.Transpose(padded, i64(1, 0, *range(2, rank_of(data, node))))
    return [padded, lengths]
