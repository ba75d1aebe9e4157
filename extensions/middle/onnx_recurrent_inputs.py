"""The inputs of an extracted ONNX LSTM / GRU / RNN node in the form a lowering wants:
batch-first (X [batch, seq, input], states [batch, num_directions, hidden]) or sequence-first
(X [seq, batch, input], states [num_directions, batch, hidden]), with the optional inputs that
are absent filled in (zero states, every sequence full length)."""
from __future__ import annotations

import numpy as np

from extensions.ops.recurrent import num_directions
from mo.graph.builder import OpBuilder
from mo.graph.node import Node
from mo.graph.port import Port
from mo.utils.types import np_dtype

I64 = np.int64
SWAP01 = np.array([1, 0, 2], I64)
GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}
X, W, R, B, LENGTHS, H0, C0, P = range(8)


def int64(*values) -> np.ndarray:
    return np.array(values, I64)


def split(b: OpBuilder, tensor, axis: int, *sizes: int) -> tuple:
    """Parts of ``tensor`` of the given sizes along ``axis``."""
    return b.VariadicSplit(tensor, np.array(axis, I64), int64(*sizes))


def source(node: Node, port: int) -> Port | None:
    return node.in_port(port).get_source() if node.is_in_port_connected(port) else None


class RecurrentInputs:
    """Inputs of ``node`` in batch-first or sequence-first form, built with ``b``."""

    def __init__(self, b: OpBuilder, node: Node, batch_first: bool):
        self.b, self.node, self.batch_first = b, node, batch_first
        self.dtype = np_dtype(node.in_dtype(X))
        self.dirs = num_directions(node.direction)
        self.hidden = int(node.hidden_size)
        self.gates = GATES[node.cell]
        self.x = self.to_form(source(node, X))
        dims = split(b, b.ShapeOf(self.x), 0, 1, 1, -1)
        self.batch, self.seq = (dims[0], dims[1]) if batch_first else (dims[1], dims[0])
        self._zero_state = None

    def to_form(self, port: Port) -> Port:
        """X or a state of the ONNX node in this form (ONNX ``layout`` 1 is batch-first)."""
        return port if bool(self.node.layout) == self.batch_first else self.b.Transpose(port, SWAP01)

    def state(self, port: int) -> Port:
        """initial_h (``H0``) or initial_c (``C0``), zeros when absent."""
        given = source(self.node, port)
        if given is not None:
            return self.to_form(given)
        if self._zero_state is None:
            dims = (self.batch, int64(self.dirs)) if self.batch_first else (int64(self.dirs), self.batch)
            self._zero_state = self.b.Broadcast(np.zeros((), self.dtype), self.b.Concat(*dims, int64(self.hidden)))
        return self._zero_state

    def lengths(self) -> Port:
        """sequence_lens, or the sequence length for every batch item."""
        return source(self.node, LENGTHS) or self.b.Broadcast(self.seq, self.batch)

    def bias_halves(self) -> tuple[Port, Port] | None:
        """(Wb, Rb), each [num_directions, gates * hidden], or None when B is absent."""
        bias = source(self.node, B)
        if bias is None:
            return None
        size = self.gates * self.hidden
        return split(self.b, bias, 1, size, size)

    def zeros(self, *shape: int) -> Port:
        return self.b.const(np.zeros(shape, self.dtype))
