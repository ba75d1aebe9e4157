"""ONNX LSTM with peephole weights as a Loop over the sequence (OpenVINO's LSTMSequence has no
peepholes, and the CPU plugin ignores LSTMCell-1's). Per direction and time step, in ONNX's
gate order i, o, f, c:

    gates = x_t W^T + h R^T + Wb + Rb
    i = f(gi + Pi * c)    f = f(gf + Pf * c)    c' = f * c + i * g(gc)
    o = f(go + Po * c')   h' = o * h(c')

with ``clip`` bounding every gate's activation input. At steps at or past a batch item's
sequence length its state stays and its output is zero; the reverse direction runs forward over
the sequences reversed within their lengths (ReverseSequence before and after).
"""
from __future__ import annotations

import numpy as np

from extensions.middle.onnx_recurrent_inputs import C0, H0, P, R, RecurrentInputs, W, int64, source, split
from extensions.ops.control_flow import new_body, port_entry, sliced_entry
from mo.graph.builder import OpBuilder
from mo.graph.node import Node

ACTIVATION_OPS = {"sigmoid": "Sigmoid", "tanh": "Tanh", "relu": "ReLU"}


def has_peepholes(node: Node) -> bool:
    """An LSTM whose P input is not known to be all zeros."""
    if node.cell != "LSTM" or not node.is_in_port_connected(P):
        return False
    p = node.in_value(P)
    return p is None or bool(np.any(p))


def per_direction(b: OpBuilder, tensor, dirs: int) -> list:
    """[num_directions, ...] -> one tensor per direction without the leading axis."""
    parts = split(b, tensor, 0, 1, 1) if dirs == 2 else (tensor,)
    return [b.Squeeze(t, int64(0)) for t in parts]


def lstm_loop(b: OpBuilder, node: Node) -> list:
    """Y, Y_h, Y_c of ``node`` (ONNX layout) computed by one Loop per direction."""
    ins = RecurrentInputs(b, node, batch_first=False)
    lengths = b.Convert(ins.lengths(), destination_type="i64")
    halves = ins.bias_halves()
    bias = b.Add(*halves) if halves is not None else ins.zeros(ins.dirs, 4 * ins.hidden)
    weights = zip(*(per_direction(b, t, ins.dirs) for t in
                    (ins.state(H0), ins.state(C0), source(node, W), source(node, R), bias, source(node, P))))
    ys, hs, cs = [], [], []
    for d, inputs in enumerate(weights):
        reverse = node.direction == "reverse" or d == 1
        x = b.ReverseSequence(ins.x, lengths, batch_axis=1, seq_axis=0) if reverse else ins.x
        y, h, c = step_loop(b, node, ins, x, lengths, *inputs)
        if reverse:
            y = b.ReverseSequence(y, lengths, batch_axis=1, seq_axis=0)
        ys.append(b.Unsqueeze(y, int64(1)))
        hs.append(b.Unsqueeze(h, int64(0)))
        cs.append(b.Unsqueeze(c, int64(0)))
    y, h, c = (b.Concat(*t, axis=int(t is ys)) if len(t) > 1 else t[0] for t in (ys, hs, cs))
    if node.layout:
        y = b.Transpose(y, int64(2, 0, 1, 3))
        h, c = (b.Transpose(t, int64(1, 0, 2)) for t in (h, c))
    return [y, h, c][:len(node.out_ports())]


def step_loop(b: OpBuilder, node: Node, ins: RecurrentInputs, x, lengths, h0, c0, w, r, bias, p) -> tuple:
    """Loop over the sequence axis of ``x`` [seq, batch, input]; returns (Y [seq, batch, hidden],
    last h, last c)."""
    body = new_body(b.graph)
    bb = OpBuilder(body, f"{node.name}/step")
    it = bb.node("Parameter", shape=(), element_type="i64", name=f"{node.name}/t")
    names = ("x_t", "h", "c", "W", "R", "B", "P", "lengths")
    xt, h, c, wp, rp, bp, pp, lp = (bb.node("Parameter", name=f"{node.name}/{n}") for n in names)
    hidden = ins.hidden
    f_act, g_act, h_act = (lambda t, name=name: bb.op(ACTIVATION_OPS[name], t) for name in node.activations)
    if node.clip:
        clip = float(node.clip)
        f_act, g_act = ((lambda t, fn=fn: fn(bb.Clamp(t, min=-clip, max=clip))) for fn in (f_act, g_act))
    gates = bb.Add(bb.Add(bb.MatMul(bb.Squeeze(xt.out_port(0), int64(0)), wp, transpose_b=True),
                          bb.MatMul(h, rp, transpose_b=True)), bp)
    gi, go, gf, gc = split(bb, gates, 1, *[hidden] * 4)
    pi, po, pf = split(bb, pp, 0, *[hidden] * 3)
    c_prev = c.out_port(0)
    i = f_act(bb.Add(gi, bb.Multiply(pi, c_prev)))
    forget = f_act(bb.Add(gf, bb.Multiply(pf, c_prev)))
    c_new = bb.Add(bb.Multiply(forget, c_prev), bb.Multiply(i, g_act(gc)))
    h_new = bb.Multiply(f_act(bb.Add(go, bb.Multiply(po, c_new))), h_act(c_new))
    running = bb.Unsqueeze(bb.Less(it, lp), int64(1))
    y = bb.Unsqueeze(bb.Select(running, h_new, np.zeros((), ins.dtype)), int64(0))
    results = [bb.node("Result", bb.const(np.array(True)), name=f"{node.name}/continue"),
               bb.node("Result", y, name=f"{node.name}/y"),
               bb.node("Result", bb.Select(running, h_new, h), name=f"{node.name}/h_out"),
               bb.node("Result", bb.Select(running, c_new, c), name=f"{node.name}/c_out")]
    in_map = [port_entry(-1, it, purpose="current_iteration"), sliced_entry(2, xt, 0)]
    in_map += [port_entry(3 + k, param) for k, param in enumerate((h, c, wp, rp, bp, pp, lp))]
    out_map = [port_entry(-1, results[0], purpose="execution_condition"), sliced_entry(0, results[1], 0),
               port_entry(1, results[2]), port_entry(2, results[3])]
    loop = b.node("Loop", ins.seq, b.const(np.array(True)), x, h0, c0, w, r, bias, p, lengths,
                  name=f"{node.name}/loop", bodies={"body": body}, input_port_map=in_map, output_port_map=out_map,
                  back_edges=[{"from": results[2].id, "to": h.id}, {"from": results[3].id, "to": c.id}],
                  num_outputs=3)
    return tuple(loop.out_port(i) for i in range(3))
