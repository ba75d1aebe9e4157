"""Middle lowering of ONNX AffineGrid, which needs the number of spatial dims (from theta)."""
from __future__ import annotations

import numpy as np

from extensions.middle.lowering import MiddleReplaceOp
from mo.graph.builder import OpBuilder
from mo.graph.port import Port
from mo.utils.types import np_dtype


def normalized_coords(b: OpBuilder, length, dtype: str, align_corners: bool) -> Port:
    """The 1-D sampling positions in [-1, 1] along a dim of ``length`` (i64 scalar): the pixel
    centers, or with ``align_corners`` the edge pixels at exactly -1 and 1."""
    steps = b.Convert(b.Range(np.int64(0), length, np.int64(1), output_type="i64"), destination_type=dtype)
    size = b.Convert(length, destination_type=dtype)
    one, two = np.array(1, np_dtype(dtype)), np.array(2, np_dtype(dtype))
    if align_corners:
        step = b.Divide(two, b.Maximum(b.Subtract(size, one), one))
        return b.Subtract(b.Multiply(steps, step), one)
    return b.Subtract(b.Divide(b.Add(b.Multiply(steps, two), one), size), one)


class AffineGridToOpset(MiddleReplaceOp):
    """grid[n, p] = theta[n] @ (x, y[, z], 1) over the positions p of the output spatial shape,
    x running along the last dim: one MatMul of the [1, P, n+1] base grid with theta^T."""

    op = "onnx::AffineGrid"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        theta = node.in_port(0).get_source()
        size = node.in_port(1).get_source()
        theta_shape = theta.data.get_shape()
        if theta_shape is None or theta_shape[1] < 0:
            raise ValueError(f"AffineGrid '{node.name}' needs theta of a known shape [N, n, n+1]")
        n = theta_shape[1]
        dtype = theta.data.get_dtype()
        batch, _, spatial = b.VariadicSplit(size, np.array(0, np.int64), np.array([1, 1, -1], np.int64),
                                            num_outputs=3)
        components = []
        for k in reversed(range(n)):      # x along the last spatial dim first
            length = b.Gather(size, np.array(2 + k, np.int64), np.array(0, np.int64))
            coords = normalized_coords(b, length, dtype, node.align_corners)
            shape = np.ones(n, np.int64)
            shape[k] = -1
            placed = b.Reshape(coords, shape, special_zero=False)
            components.append(b.Unsqueeze(b.Broadcast(placed, spatial), np.array([-1], np.int64)))
        ones = b.Broadcast(np.array(1, np_dtype(dtype)), spatial)
        components.append(b.Unsqueeze(ones, np.array([-1], np.int64)))
        base = b.Reshape(b.Concat(*components, axis=-1), np.array([1, -1, n + 1], np.int64), special_zero=False)
        grid = b.MatMul(base, theta, transpose_b=True)
        out_shape = b.Concat(batch, spatial, np.array([n], np.int64), axis=0)
        return [b.Reshape(grid, out_shape, special_zero=False, name=node.name)]
