"""Lowering of ONNX Col2Im: Col2Im-15 for 2-D images, a scatter-add for other ranks."""
from __future__ import annotations

import numpy as np

from extensions.middle.lowering import MiddleReplaceOp
from mo.errors import GraphError
from mo.graph.builder import OpBuilder
from mo.graph.building import as_scalar, dims_slice, i64
from mo.graph.port import Port


def unravel(b: OpBuilder, flat: Port, dims: Port, d: int, n: int) -> Port:
    """Coordinate ``d`` of the row-major positions ``flat`` in a grid of ``dims`` (n dims)."""
    inner = b.ReduceProd(dims_slice(b, dims, d + 1, n), i64(0), keep_dims=False)
    return b.FloorMod(b.Divide(flat, inner), b.Gather(dims, np.int64(d), np.int64(0)))


class Col2ImToOpset(MiddleReplaceOp):
    """Col2Im -> Col2Im-15 for 2-D images. Other ranks: every column entry (kernel offset k,
    block l) goes to image position l * stride + k * dilation of the padded image, summed with
    ScatterElementsUpdate over the flattened padded image, which is then reshaped and cropped."""

    op = "onnx::Col2Im"

    def replace_op(self, graph, node):
        length = node.in_port(1).data.get_shape()
        if length is None or length[0] < 0:
            raise GraphError(f"Col2Im '{node.name}': the number of image dims (length of image_shape) is unknown")
        n = length[0]
        attrs = {"strides": node.strides or [1] * n, "dilations": node.dilations or [1] * n,
                 "pads_begin": node.pads_begin or [0] * n, "pads_end": node.pads_end or [0] * n}
        b = OpBuilder(graph, node.name)
        x, image, block = (node.in_port(i).get_source() for i in range(3))
        if n == 2:
            return [b.Col2Im(x, image, block, name=node.name, **attrs)]
        image = b.Convert(image, destination_type="i64")
        block = b.Convert(block, destination_type="i64")
        strides, dilations = np.array(attrs["strides"], np.int64), np.array(attrs["dilations"], np.int64)
        begin, end = np.array(attrs["pads_begin"], np.int64), np.array(attrs["pads_end"], np.int64)
        padded = b.Add(image, begin + end)
        blocks = b.Add(b.Divide(b.Subtract(b.Subtract(padded, b.Multiply(dilations, b.Subtract(block, i64(1)))),
                                           i64(1)), strides), i64(1))
        kernel_size = b.ReduceProd(block, i64(0), keep_dims=True)
        columns = b.ReduceProd(blocks, i64(0), keep_dims=True)
        kernel = b.Range(np.int64(0), as_scalar(b, kernel_size), np.int64(1), output_type="i64")
        column = b.Range(np.int64(0), as_scalar(b, columns), np.int64(1), output_type="i64")
        flat = None
        for d in range(n):
            pos = b.Add(b.Unsqueeze(b.Multiply(unravel(b, column, blocks, d, n), np.int64(strides[d])), i64(0)),
                        b.Unsqueeze(b.Multiply(unravel(b, kernel, block, d, n), np.int64(dilations[d])), i64(1)))
            term = b.Multiply(pos, b.ReduceProd(dims_slice(b, padded, d + 1, n), i64(0), keep_dims=False))
            flat = term if flat is None else b.Add(flat, term)
        # [N, C * K, L] -> [N, C, K * L]: entry k * L + l of a channel is kernel offset k of block l.
        values = b.Reshape(x, b.Concat(i64(0, -1), b.Multiply(kernel_size, columns), axis=0), special_zero=True)
        head = dims_slice(b, b.ShapeOf(values, output_type="i64"), 0, 2)
        indices = b.Broadcast(b.Reshape(flat, i64(1, 1, -1), special_zero=False), b.ShapeOf(values, output_type="i64"))
        zeros = b.Broadcast(b.ConvertLike(np.float32(0), x),
                            b.Concat(head, b.ReduceProd(padded, i64(0), keep_dims=True), axis=0))
        summed = b.ScatterElementsUpdate(zeros, indices, values, np.int64(2), reduction="sum", use_init_val=True)
        image_padded = b.Reshape(summed, b.Concat(head, padded, axis=0), special_zero=False)
        return [b.Slice(image_padded, begin, b.Subtract(padded, end), np.ones(n, np.int64),
                        np.arange(2, n + 2, dtype=np.int64), name=node.name)]
