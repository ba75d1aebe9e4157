"""ONNX LSTM, GRU and RNN: the extractor and the translators to LSTMSequence / GRUSequence /
RNNSequence (opset5).

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

LSTMSequence has no peepholes, and OpenVINO's CPU plugin ignores the sequence ops' lengths when
a shape is dynamic: such nodes become a Loop per direction (``recurrent_loop``).
"""
from __future__ import annotations

import numpy as np

from extensions.load.onnx.attributes import OnnxExtractor
from extensions.ops.control_flow import new_body, port_entry, sliced_entry
from extensions.ops.recurrent import num_directions
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.building import convert, i64, optional_source, require_ranks
from mo.graph.node import Node
from mo.graph.port import Port
from mo.utils.types import np_dtype

# ONNX activation names OpenVINO's sequence operations implement.
ACTIVATIONS = {"sigmoid": "sigmoid", "tanh": "tanh", "relu": "relu"}
ACTIVATION_OPS = {"sigmoid": "Sigmoid", "tanh": "Tanh", "relu": "ReLU"}
DEFAULT_ACTIVATIONS = {"LSTM": ["Sigmoid", "Tanh", "Tanh"], "GRU": ["Sigmoid", "Tanh"], "RNN": ["Tanh"]}
GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}
# OpenVINO gate k is ONNX gate ORDER[k] (LSTM: f, i, c, o from i, o, f, c).
ORDER = {"LSTM": [2, 0, 3, 1]}
SWAP01 = i64(1, 0, 2)
X, W, R, B, LENGTHS, H0, C0, P = range(8)


def activations(names: list[str], alpha: list[float], beta: list[float], per_direction: int) -> dict:
    """OpenVINO activations (one set for all directions) from the ONNX list (one set per
    direction)."""
    sets = [names[i:i + per_direction] for i in range(0, len(names), per_direction)] or [names]
    if any(s != sets[0] for s in sets):
        raise ValueError(f"directions with different activations ({names}) are not supported")
    unknown = [a for a in sets[0] if a.lower() not in ACTIVATIONS]
    if unknown:
        raise ValueError(f"activation functions {unknown} are not supported (only Sigmoid, Tanh, Relu)")
    return {"activations": [ACTIVATIONS[a.lower()] for a in sets[0]],
            "activations_alpha": alpha[:per_direction], "activations_beta": beta[:per_direction]}


class RecurrentExtractor(OnnxExtractor):
    op_types = ("LSTM", "GRU", "RNN")

    @classmethod
    def extract(cls, node):
        cell = node.fw_op
        direction = str(cls.attr(node, "direction", "forward")).lower()
        if direction not in ("forward", "reverse", "bidirectional"):
            raise ValueError(f"unknown direction '{direction}'")
        if int(cls.attr(node, "input_forget", 0)):
            raise ValueError("LSTM with input_forget=1 (coupled input and forget gates) is not supported")
        names = list(cls.attr(node, "activations", []) or DEFAULT_ACTIVATIONS[cell] * num_directions(direction))
        per_direction = len(DEFAULT_ACTIVATIONS[cell])
        alpha = [float(a) for a in cls.attr(node, "activation_alpha", []) or []]
        beta = [float(b) for b in cls.attr(node, "activation_beta", []) or []]
        node.update({
            "cell": cell, "hidden_size": cls.attr(node, "hidden_size"), "direction": direction,
            "clip": float(cls.attr(node, "clip", 0.0)), "layout": int(cls.attr(node, "layout", 0)),
            "linear_before_reset": bool(cls.attr(node, "linear_before_reset", 0)),
            **activations(names, alpha, beta, per_direction)})


def split(b: OpBuilder, tensor, axis: int, *sizes: int) -> tuple:
    """Parts of ``tensor`` of the given sizes along ``axis``."""
    return b.VariadicSplit(tensor, np.int64(axis), i64(*sizes))


def hidden_size(node: Node) -> int:
    """``hidden_size``, taken from the last dimension of R when the attribute is absent."""
    if node.hidden_size is not None:
        return int(node.hidden_size)
    r = node.in_shape(R)
    if r is None or len(r) != 3 or r[2] < 0:
        raise ConversionError("hidden_size is not given and the shape of R is not known; give the model "
                              "input shapes with --input")
    return int(r[2])


class RecurrentInputs:
    """The inputs of an ONNX LSTM / GRU / RNN node ``node`` in the form a translation wants:
    batch-first (X [batch, seq, input], states [batch, num_directions, hidden]) or
    sequence-first (X [seq, batch, input], states [num_directions, batch, hidden]), with the
    optional inputs that are absent filled in (zero states, every sequence full length)."""

    def __init__(self, b: OpBuilder, node: Node, batch_first: bool):
        require_ranks(node, {X: 3, W: 3, R: 3, B: 2, LENGTHS: 1, H0: 3, C0: 3, P: 2},
                      " (X [seq, batch, input], W/R [directions, gates * hidden, ...], B and P [directions, ...])")
        self.b, self.node, self.batch_first = b, node, batch_first
        self.dtype = np_dtype(node.in_dtype(X))
        self.dirs = num_directions(node.direction)
        self.hidden = hidden_size(node)
        self.gates = GATES[node.cell]
        self.x = self.to_form(optional_source(node, X))
        dims = split(b, b.ShapeOf(self.x), 0, 1, 1, -1)
        self.batch, self.seq = (dims[0], dims[1]) if batch_first else (dims[1], dims[0])
        self._zero_state = None

    def to_form(self, port: Port) -> Port:
        """X or a state of the ONNX node in this form (ONNX ``layout`` 1 is batch-first)."""
        return port if bool(self.node.layout) == self.batch_first else self.b.Transpose(port, SWAP01)

    def state(self, port: int) -> Port:
        """initial_h (``H0``) or initial_c (``C0``), zeros when absent."""
        given = optional_source(self.node, port)
        if given is not None:
            return self.to_form(given)
        if self._zero_state is None:
            dims = (self.batch, i64(self.dirs)) if self.batch_first else (i64(self.dirs), self.batch)
            self._zero_state = self.b.Broadcast(np.zeros((), self.dtype), self.b.Concat(*dims, i64(self.hidden)))
        return self._zero_state

    def lengths(self) -> Port:
        """sequence_lens, or the sequence length for every batch item."""
        return optional_source(self.node, LENGTHS) or self.b.Broadcast(self.seq, self.batch)

    def bias_halves(self) -> tuple[Port, Port] | None:
        """(Wb, Rb), each [num_directions, gates * hidden], or None when B is absent."""
        bias = optional_source(self.node, B)
        if bias is None:
            return None
        size = self.gates * self.hidden
        return split(self.b, bias, 1, size, size)

    def zeros(self, *shape: int) -> Port:
        return self.b.const(np.zeros(shape, self.dtype))


def reorder(b: OpBuilder, weights, cell: str, hidden: int):
    """Gates of W/R/B (axis 1) in OpenVINO's order."""
    order = ORDER.get(cell)
    if order is None:
        return weights
    parts = split(b, weights, 1, *[hidden] * GATES[cell])
    return b.Concat(*[parts[k] for k in order], axis=1)


def sequence_bias(ins: RecurrentInputs) -> Port:
    cell, b, hidden = ins.node.cell, ins.b, ins.hidden
    lbr = cell == "GRU" and ins.node.linear_before_reset
    halves = ins.bias_halves()
    if halves is None:
        return ins.zeros(ins.dirs, (ins.gates + lbr) * hidden)
    wb, rb = halves
    if not lbr:
        return reorder(b, b.Add(wb, rb), cell, hidden)
    (wb_zr, wb_h), (rb_zr, rb_h) = (split(b, t, 1, 2 * hidden, hidden) for t in (wb, rb))
    return b.Concat(b.Add(wb_zr, rb_zr), wb_h, rb_h, axis=1)


def sequence(node: Node, b: OpBuilder) -> list[Port | None]:
    """{LSTM,GRU,RNN}Sequence of ``node`` with Transposes and weight reordering around."""
    cell = node.cell
    ins = RecurrentInputs(b, node, batch_first=True)
    states = [ins.state(H0)] + ([ins.state(C0)] if cell == "LSTM" else [])
    w, r = (reorder(b, optional_source(node, i), cell, ins.hidden) for i in (W, R))
    attrs = {k: node[k] for k in ("direction", "activations", "activations_alpha", "activations_beta", "clip")}
    if cell == "GRU":
        attrs["linear_before_reset"] = node.linear_before_reset
    ports = node.out_ports()
    seq_node = b.node(f"{cell}Sequence", ins.x, *states, ins.lengths(), w, r, sequence_bias(ins),
                      name=node.name if len(ports) > 1 else None, hidden_size=ins.hidden, **attrs)
    outputs = []
    for i, port in ports.items():
        out = seq_node.out_port(i)
        if not port.is_connected():
            outputs.append(None)
        elif i == 0:
            outputs.append(b.Transpose(out, i64(0, 2, 1, 3) if node.layout else i64(2, 1, 0, 3)))
        else:
            outputs.append(out if node.layout else b.Transpose(out, SWAP01))
    return outputs


def needs_loop(node: Node) -> bool:
    """Whether ``node`` is computed by a Loop rather than a sequence op: an LSTM with peepholes
    (the sequence op has none), or sequence lengths that may be shorter than the sequence while
    a shape is dynamic (OpenVINO's CPU plugin ignores the sequence ops' lengths then)."""
    if node.cell == "LSTM" and has_peepholes(node):
        return True
    if not node.is_in_port_connected(LENGTHS):
        return False
    x = node.in_shape(X)
    if x is not None and all(d >= 0 for d in x):
        return False
    lengths = node.in_value(LENGTHS)
    seq = x[1 if node.layout else 0] if x is not None else -1
    return lengths is None or seq < 0 or bool(np.any(np.asarray(lengths) != seq))


@translator("onnx", "LSTM")
def lstm(node: Node, b: OpBuilder) -> list[Port | None]:
    """LSTMSequence, or a Loop over the sequence (``needs_loop``)."""
    return recurrent_loop(b, node) if needs_loop(node) else sequence(node, b)


@translator("onnx", "GRU")
def gru(node: Node, b: OpBuilder) -> list[Port | None]:
    return recurrent_loop(b, node) if needs_loop(node) else sequence(node, b)


@translator("onnx", "RNN")
def rnn(node: Node, b: OpBuilder) -> list[Port | None]:
    return recurrent_loop(b, node) if needs_loop(node) else sequence(node, b)


# ---------------------------------------------------------------------------- the Loop form
#
# One Loop per direction steps through the sequence; per time step, in ONNX's gate orders
# (f, g, h the activations; ``clip`` bounds the inputs of f and g):
#
#     LSTM (i, o, f, c):  gates = x_t W^T + h R^T + Wb + Rb
#                         i = f(gi + Pi * c)    f = f(gf + Pf * c)    c' = f * c + i * g(gc)
#                         o = f(go + Po * c')   h' = o * h(c')
#     GRU (z, r, h):      z, r = f(x_t W_zr^T + h R_zr^T + Wb_zr + Rb_zr)
#                         n = g(x_t W_h^T + Wb_h + r * (h R_h^T + Rb_h))   (linear_before_reset)
#                         n = g(x_t W_h^T + Wb_h + (r * h) R_h^T + Rb_h)   (otherwise)
#                         h' = (1 - z) * n + z * h
#     RNN:                h' = f(x_t W^T + h R^T + Wb + Rb)
#
# At steps at or past a batch item's sequence length its state stays and its output is zero; the
# reverse direction runs forward over the sequences reversed within their lengths
# (ReverseSequence before and after).


def has_peepholes(node: Node) -> bool:
    """An LSTM whose P input is not known to be all zeros."""
    if not node.is_in_port_connected(P):
        return False
    p = node.in_value(P)
    return p is None or bool(np.any(p))


def per_direction(b: OpBuilder, tensor, dirs: int) -> list:
    """[num_directions, ...] -> one tensor per direction without the leading axis."""
    parts = split(b, tensor, 0, 1, 1) if dirs == 2 else (tensor,)
    return [b.Squeeze(t, i64(0)) for t in parts]


def recurrent_loop(b: OpBuilder, node: Node) -> list:
    """Y, Y_h (and LSTM Y_c) of ``node`` (ONNX layout) computed by one Loop per direction."""
    ins = RecurrentInputs(b, node, batch_first=False)
    lengths = convert(b, ins.lengths(), "i64")
    lstm_cell = node.cell == "LSTM"
    bias = optional_source(node, B) or ins.zeros(ins.dirs, 2 * ins.gates * ins.hidden)
    weights = [ins.state(H0)] + ([ins.state(C0)] if lstm_cell else []) + [optional_source(node, W),
                                                                          optional_source(node, R), bias]
    if lstm_cell:
        weights.append(optional_source(node, P) or ins.zeros(ins.dirs, 3 * ins.hidden))
    per_dir = zip(*(per_direction(b, t, ins.dirs) for t in weights))
    outputs = []
    for d, inputs in enumerate(per_dir):
        reverse = node.direction == "reverse" or d == 1
        x = b.ReverseSequence(ins.x, lengths, batch_axis=1, seq_axis=0) if reverse else ins.x
        results = list(step_loop(b, node, ins, x, lengths, list(inputs)))
        if reverse:
            results[0] = b.ReverseSequence(results[0], lengths, batch_axis=1, seq_axis=0)
        outputs.append([b.Unsqueeze(results[0], i64(1))] + [b.Unsqueeze(t, i64(0)) for t in results[1:]])
    merged = [b.Concat(*parts, axis=1 if k == 0 else 0) if len(parts) > 1 else parts[0]
              for k, parts in enumerate(zip(*outputs))]
    if node.layout:
        merged = [b.Transpose(merged[0], i64(2, 0, 1, 3))] + [b.Transpose(t, SWAP01) for t in merged[1:]]
    return merged[:len(node.out_ports())]


def _activations(bb: OpBuilder, node: Node) -> list:
    """The node's activation functions as builders; with ``clip`` the gate activations (f, g,
    not LSTM's h of the cell state) get their input clipped, as ONNX Runtime computes."""
    def make(name, clipped):
        if clipped:
            clip = float(node.clip)
            return lambda t: bb.op(ACTIVATION_OPS[name], bb.Clamp(t, min=-clip, max=clip))
        return lambda t: bb.op(ACTIVATION_OPS[name], t)
    return [make(name, bool(node.clip) and k < 2) for k, name in enumerate(node.activations)]


def _cell(bb: OpBuilder, node: Node, hidden: int, xt, states: list, w, r, bias, p) -> list:
    """The next states (h first) of one step of the node's cell (formulas above)."""
    acts = _activations(bb, node)
    size = GATES[node.cell] * hidden
    wb, rb = split(bb, bias, 0, size, size)
    h = states[0]
    if node.cell == "GRU":
        f, g = acts[0], acts[1]
        w_zr, w_h = split(bb, w, 0, 2 * hidden, hidden)
        r_zr, r_h = split(bb, r, 0, 2 * hidden, hidden)
        wb_zr, wb_h = split(bb, wb, 0, 2 * hidden, hidden)
        rb_zr, rb_h = split(bb, rb, 0, 2 * hidden, hidden)
        zr = f(bb.Add(bb.Add(bb.MatMul(xt, w_zr, transpose_b=True), bb.MatMul(h, r_zr, transpose_b=True)),
                      bb.Add(wb_zr, rb_zr)))
        z, reset = split(bb, zr, 1, hidden, hidden)
        x_h = bb.Add(bb.MatMul(xt, w_h, transpose_b=True), wb_h)
        if node.linear_before_reset:
            n = g(bb.Add(x_h, bb.Multiply(reset, bb.Add(bb.MatMul(h, r_h, transpose_b=True), rb_h))))
        else:
            n = g(bb.Add(x_h, bb.Add(bb.MatMul(bb.Multiply(reset, h), r_h, transpose_b=True), rb_h)))
        return [bb.Add(bb.Multiply(bb.Subtract(np.ones((), np_dtype(node.in_dtype(X))), z), n), bb.Multiply(z, h))]
    gates = bb.Add(bb.Add(bb.MatMul(xt, w, transpose_b=True), bb.MatMul(h, r, transpose_b=True)), bb.Add(wb, rb))
    if node.cell == "RNN":
        return [acts[0](gates)]
    f_act, g_act, h_act = acts
    c_prev = states[1]
    gi, go, gf, gc = split(bb, gates, 1, *[hidden] * 4)
    pi, po, pf = split(bb, p, 0, *[hidden] * 3)
    i = f_act(bb.Add(gi, bb.Multiply(pi, c_prev)))
    forget = f_act(bb.Add(gf, bb.Multiply(pf, c_prev)))
    c_new = bb.Add(bb.Multiply(forget, c_prev), bb.Multiply(i, g_act(gc)))
    return [bb.Multiply(f_act(bb.Add(go, bb.Multiply(po, c_new))), h_act(c_new)), c_new]


def step_loop(b: OpBuilder, node: Node, ins: RecurrentInputs, x, lengths, inputs: list) -> tuple:
    """Loop over the sequence axis of ``x`` [seq, batch, input] with ``inputs`` (initial states,
    W, R, B and, for LSTM, P of one direction); returns (Y [seq, batch, hidden], last states...)."""
    count = 2 if node.cell == "LSTM" else 1
    body = new_body(b.graph)
    bb = OpBuilder(body, f"{node.name}/step")
    it = bb.node("Parameter", shape=(), element_type="i64", name=f"{node.name}/t")
    xt = bb.node("Parameter", name=f"{node.name}/x_t")
    names = ["h", "c"][:count] + ["W", "R", "B"] + (["P"] if count == 2 else []) + ["lengths"]
    params = [bb.node("Parameter", name=f"{node.name}/{n}") for n in names]
    states, (w, r, bias), p, lp = (params[:count], params[count:count + 3], params[count + 3] if count == 2 else None,
                                   params[-1])
    states = [s.out_port(0) for s in states]
    new = _cell(bb, node, ins.hidden, bb.Squeeze(xt.out_port(0), i64(0)), states, w, r, bias, p)
    running = bb.Unsqueeze(bb.Less(it, lp), i64(1))
    y = bb.Unsqueeze(bb.Select(running, new[0], np.zeros((), ins.dtype)), i64(0))
    results = [bb.node("Result", bb.const(np.array(True)), name=f"{node.name}/continue"),
               bb.node("Result", y, name=f"{node.name}/y")]
    results += [bb.node("Result", bb.Select(running, n, s), name=f"{node.name}/{name}_out")
                for n, s, name in zip(new, states, names)]
    in_map = [port_entry(-1, it, purpose="current_iteration"), sliced_entry(2, xt, 0)]
    in_map += [port_entry(3 + k, param) for k, param in enumerate(params)]
    out_map = [port_entry(-1, results[0], purpose="execution_condition"), sliced_entry(0, results[1], 0)]
    out_map += [port_entry(1 + k, res) for k, res in enumerate(results[2:])]
    loop = b.node("Loop", ins.seq, b.const(np.array(True)), x, *inputs, lengths,
                  name=f"{node.name}/loop", bodies={"body": body}, input_port_map=in_map, output_port_map=out_map,
                  back_edges=[{"from": res.id, "to": param.id} for res, param in zip(results[2:], params)],
                  num_outputs=1 + count)
    return tuple(loop.out_port(i) for i in range(1 + count))
