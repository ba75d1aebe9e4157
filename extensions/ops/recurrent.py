"""Recurrent sequence operations: LSTMSequence, GRUSequence and RNNSequence (opset5).

Inputs: X [batch, seq, input], initial hidden state [batch, num_directions, hidden] (LSTM: and
initial cell state), sequence lengths [batch], W [num_directions, gates * hidden, input],
R [num_directions, gates * hidden, hidden], B [num_directions, gates * hidden] (GRU with
``linear_before_reset``: 4 * hidden). Gate order: LSTM f, i, c, o; GRU z, r, h.
Outputs: Y [batch, num_directions, seq, hidden], the last hidden state [batch, num_directions,
hidden] (LSTM: and the last cell state).
"""
from __future__ import annotations

import numpy as np

from mo.graph.node import Node
from mo.ops.op import Op
from mo.utils.shape import DYN
from mo.utils.types import INT_TYPES

ACTIVATIONS = {"sigmoid": lambda x: 1 / (1 + np.exp(-x)), "tanh": np.tanh, "relu": lambda x: np.maximum(x, 0)}


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
        if x is not None and (len(x) != 3 or 0 in x):
            raise ValueError(f"the input sequences have shape {x}; {cls.op} takes [batch, steps, features] "
                             f"with at least one of each")
        dirs, hidden = num_directions(node.direction), int(node.hidden_size)
        cls._check_weights(node, x, dirs, hidden)
        state = (batch, dirs, hidden)
        return [(batch, dirs, seq, hidden)] + [state] * (cls.outputs_count(node) - 1)

    @classmethod
    def _check_weights(cls, node: Node, x, dirs: int, hidden: int) -> None:
        """W [dirs, gates*hidden, features], R [dirs, gates*hidden, hidden], B [dirs, gates*hidden
        (GRU linear_before_reset: (gates+1)*hidden)] that fit the input's features."""
        count = cls.outputs_count(node) - 1
        rows = cls.gates * hidden
        bias = rows + hidden if node.get("linear_before_reset") else rows
        features = x[2] if x is not None else DYN
        for port, name, expected in ((count + 2, "W", (dirs, rows, features)), (count + 3, "R", (dirs, rows, hidden)),
                                     (count + 4, "B", (dirs, bias))):
            shape = node.in_shape(port) if node.is_in_port_connected(port) else None
            if shape is not None and any(d >= 0 and e >= 0 and d != e for d, e in zip(shape, expected)):
                raise ValueError(f"{name} has shape {list(shape)} where {cls.op} with hidden size {hidden}, "
                                 f"{dirs} direction(s) and {features if features >= 0 else '?'} input features "
                                 f"takes {[e if e >= 0 else '?' for e in expected]}")

    @classmethod
    def activation(cls, node: Node, index: int):
        name = node.activations[index]
        if name not in ACTIVATIONS:
            raise NotImplementedError(f"{cls.op} activation '{name}' has no numpy evaluation")
        return ACTIVATIONS[name]

    @classmethod
    def gates_of(cls, node: Node, x, h, w, r, b) -> np.ndarray:
        """X W^T + H R^T + B, clipped to [-clip, clip] when ``clip`` is set."""
        return cls.clipped(node, x @ w.T + h @ r.T + b)

    @staticmethod
    def clipped(node: Node, value: np.ndarray) -> np.ndarray:
        return np.clip(value, -node.clip, node.clip) if node.clip else value

    @classmethod
    def cell(cls, node: Node, x, states: list, w, r, b) -> list:
        """The next states (hidden first) from the input of one step."""
        raise NotImplementedError

    @classmethod
    def evaluate(cls, node, x, *inputs):
        """Each direction runs the cell over the steps of every sequence within its length (the
        reverse direction from its last step); Y is zero past a sequence's length."""
        count = cls.outputs_count(node) - 1
        initial, lengths, (w, r, b) = inputs[:count], inputs[count], inputs[count + 1:count + 4]
        batch, seq = x.shape[:2]
        lengths = np.asarray(lengths).reshape(-1).astype(np.int64)
        hidden = int(node.hidden_size)
        dirs = num_directions(node.direction)
        y = np.zeros((batch, dirs, seq, hidden))
        finals = [np.zeros((batch, dirs, hidden)) for _ in range(count)]
        rows = np.arange(batch)
        for d in range(dirs):
            reverse = node.direction == "reverse" or d == 1
            states = [s[:, d].astype(np.float64) for s in initial]
            for step in range(seq):
                active = step < lengths
                t = np.clip(lengths - 1 - step if reverse else np.full(batch, step), 0, seq - 1)
                new = cls.cell(node, x[rows, t].astype(np.float64), states, w[d], r[d], b[d])
                states = [np.where(active[:, None], n, s) for n, s in zip(new, states)]
                y[rows[active], d, t[active]] = states[0][active]
            for final, state in zip(finals, states):
                final[:, d] = state
        return [y.astype(x.dtype)] + [f.astype(x.dtype) for f in finals]


class LSTMSequence(RecurrentSequence):
    same_type_inputs = (0, 1, 2, 4, 5, 6)
    op = "LSTMSequence"
    input_ranks = {0: (3,), 1: (3,), 2: (3,), 3: (1,), 4: (3,), 5: (3,), 6: (2,)}
    input_types = {3: INT_TYPES}
    num_outputs = 3
    gates = 4
    defaults = {**RecurrentSequence.defaults, "activations": ["sigmoid", "tanh", "tanh"]}

    @classmethod
    def cell(cls, node, x, states, w, r, b):
        h, c = states
        f, i, candidate, o = np.split(cls.gates_of(node, x, h, w, r, b), 4, axis=-1)
        gate, g, out = (cls.activation(node, k) for k in range(3))
        c = gate(f) * c + gate(i) * g(candidate)
        return [gate(o) * out(c), c]


class GRUSequence(RecurrentSequence):
    same_type_inputs = (0, 1, 3, 4, 5)
    op = "GRUSequence"
    input_ranks = {0: (3,), 1: (3,), 2: (1,), 3: (3,), 4: (3,), 5: (2,)}
    input_types = {2: INT_TYPES}
    num_outputs = 2
    gates = 3
    defaults = {**RecurrentSequence.defaults, "activations": ["sigmoid", "tanh"], "linear_before_reset": False}
    ir_attrs = ("direction", "linear_before_reset") + RecurrentSequence.ir_attrs[1:]

    @classmethod
    def cell(cls, node, x, states, w, r, b):
        """z and r gate the update; the candidate reads r * H (or, ``linear_before_reset``,
        r * (H R_h^T + Rb_h), with B holding the four biases z, r, Wb_h, Rb_h)."""
        (h,) = states
        hidden = h.shape[-1]
        gate, g = cls.activation(node, 0), cls.activation(node, 1)
        w_zr, w_h = w[:2 * hidden], w[2 * hidden:]
        r_zr, r_h = r[:2 * hidden], r[2 * hidden:]
        z, reset = np.split(gate(cls.gates_of(node, x, h, w_zr, r_zr, b[:2 * hidden])), 2, axis=-1)
        if node.linear_before_reset:
            candidate = x @ w_h.T + b[2 * hidden:3 * hidden] + reset * (h @ r_h.T + b[3 * hidden:])
        else:
            candidate = x @ w_h.T + (reset * h) @ r_h.T + b[2 * hidden:]
        candidate = g(cls.clipped(node, candidate))
        return [(1 - z) * candidate + z * h]


class RNNSequence(RecurrentSequence):
    same_type_inputs = (0, 1, 3, 4, 5)
    op = "RNNSequence"
    input_ranks = {0: (3,), 1: (3,), 2: (1,), 3: (3,), 4: (3,), 5: (2,)}
    input_types = {2: INT_TYPES}
    num_outputs = 2
    defaults = {**RecurrentSequence.defaults, "activations": ["tanh"]}

    @classmethod
    def cell(cls, node, x, states, w, r, b):
        return [cls.activation(node, 0)(cls.gates_of(node, x, states[0], w, r, b))]
