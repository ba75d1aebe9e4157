"""Middle lowering of ONNX RotaryEmbedding, which needs the input rank and head size."""
from __future__ import annotations

import numpy as np

from extensions.middle.lowering import MiddleReplaceOp
from mo.graph.builder import OpBuilder
from mo.graph.port import Port


def rotate(b: OpBuilder, x1, x2, cos, sin) -> tuple[Port, Port]:
    """(x1 * cos - x2 * sin, x1 * sin + x2 * cos)."""
    real = b.Subtract(b.Multiply(cos, x1), b.Multiply(sin, x2))
    imag = b.Add(b.Multiply(sin, x1), b.Multiply(cos, x2))
    return real, imag


class RotaryEmbeddingToOpset(MiddleReplaceOp):
    """The first ``rotary_embedding_dim`` features of each head are rotated as pairs (halves, or
    neighbours when ``interleaved``) by the cos/sin of their position (the cache rows picked by
    position_ids, else the caches as given [B, S, dim/2]); the rest pass through."""

    op = "onnx::RotaryEmbedding"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        x = node.in_port(0).get_source()
        shape = x.data.get_shape()
        if shape is None or len(shape) not in (3, 4):
            raise ValueError(f"RotaryEmbedding '{node.name}' needs a 3-D or 4-D input")
        if len(shape) == 3:       # [B, S, H * D] -> [B, S, H, D]: heads on axis 2
            if not node.num_heads:
                raise ValueError(f"RotaryEmbedding '{node.name}' with a 3-D input needs num_heads")
            heads = b.Reshape(x, np.array([0, 0, node.num_heads, -1], np.int64), special_zero=True)
            head_axis = 2
        else:                     # [B, H, S, D]
            heads, head_axis = x, 1
        head_size = heads.data.get_shape()[3]
        dim = node.rotary_embedding_dim or head_size
        if dim < 0 or head_size < 0:
            raise ValueError(f"RotaryEmbedding '{node.name}' needs a static head size")
        cos, sin = node.in_port(1).get_source(), node.in_port(2).get_source()
        if node.is_in_port_connected(3):
            ids = node.in_port(3).get_source()
            cos, sin = (b.Gather(c, ids, np.array(0, np.int64)) for c in (cos, sin))
        cos, sin = (b.Unsqueeze(c, np.array([head_axis], np.int64)) for c in (cos, sin))
        last = np.array(-1, np.int64)
        rotated_part, passed = heads, None
        if dim < head_size:
            rotated_part, passed = b.VariadicSplit(heads, last, np.array([dim, head_size - dim], np.int64),
                                                   num_outputs=2)
        if node.interleaved:
            pairs = b.Reshape(rotated_part, np.array([0, 0, 0, dim // 2, 2], np.int64), special_zero=True)
            x1, x2 = b.Split(pairs, last, num_splits=2)
            cos, sin = (b.Unsqueeze(c, np.array([-1], np.int64)) for c in (cos, sin))
            real, imag = rotate(b, x1, x2, cos, sin)
            rotated = b.Reshape(b.Concat(real, imag, axis=-1), np.array([0, 0, 0, dim], np.int64), special_zero=True)
        else:
            x1, x2 = b.Split(rotated_part, last, num_splits=2)
            rotated = b.Concat(*rotate(b, x1, x2, cos, sin), axis=-1)
        if passed is not None:
            rotated = b.Concat(rotated, passed, axis=-1)
        if len(shape) == 3:
            return [b.Reshape(rotated, np.array([0, 0, -1], np.int64), special_zero=True, name=node.name)]
        rotated.node["name"] = node.name
        return [rotated]
