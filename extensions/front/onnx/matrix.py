"""ONNX EyeLike (to Eye-9), Trilu (a Select by a mask made from row and column Ranges) and Col2Im
(Col2Im-15 for 2-D images, a scatter-add for other ranks): extractors and translators."""
from __future__ import annotations

import numpy as np

from extensions.load.onnx.attributes import OnnxExtractor
from extensions.load.onnx.tensors import element_type_of
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.building import as_scalar, convert, dim, dims_slice, i64, scalar_like, shape_of
from mo.graph.port import Port


class EyeLikeExtractor(OnnxExtractor):
    """EyeLike: ``dtype`` (default: the input's element type) and diagonal offset ``k``."""

    op_types = ("EyeLike",)

    @classmethod
    def extract(cls, node):
        dtype = cls.attr(node, "dtype")
        node.update({"k": int(cls.attr(node, "k", 0)), "dtype": None if dtype is None else element_type_of(int(dtype))})


@translator("onnx", "EyeLike")
def eye_like(node, b):
    """EyeLike(x) -> Eye(rows, cols, k) of ``dtype``, or of x's element type without one."""
    x = node.in_port(0).get_source()
    rows, cols = dim(b, x, 0), dim(b, x, 1)
    if node.dtype is not None:
        return [b.Eye(rows, cols, np.int64(node.k), output_type=node.dtype)]
    return [convert(b, b.Eye(rows, cols, np.int64(node.k), output_type="f32"), x.data.get_dtype())]


class TriluExtractor(OnnxExtractor):
    op_types = ("Trilu",)

    @classmethod
    def extract(cls, node):
        node["upper"] = bool(cls.attr(node, "upper", 1))


@translator("onnx", "Trilu")
def trilu(node, b):
    """Trilu(x, k) -> Select(col >= row + k (upper) or col <= row + k (lower), x, 0) over the
    last two dims. (col - row compared with k would be simpler, but the CPU plugin crashes on a
    Subtract broadcast to a zero-size result.)"""
    x = node.in_port(0).get_source()
    rows = b.Range(np.int64(0), dim(b, x, -2), np.int64(1), output_type="i64")
    cols = b.Range(np.int64(0), dim(b, x, -1), np.int64(1), output_type="i64")
    rows = b.Unsqueeze(rows, i64(1))
    if node.is_in_port_connected(1):
        rows = b.Add(rows, convert(b, node.in_port(1).get_source(), "i64"))
    keep = b.GreaterEqual(cols, rows) if node.upper else b.LessEqual(cols, rows)
    return [b.Select(keep, x, scalar_like(b, 0, x))]


class Col2ImExtractor(OnnxExtractor):
    """Col2Im: ``strides``, ``dilations`` and ``pads`` ([begins..., ends...]) per image dim, None
    when absent (the number of image dims may be known only from input 1's shape)."""

    op_types = ("Col2Im",)

    @classmethod
    def extract(cls, node):
        pads = cls.ints(node, "pads")
        node.update({"strides": cls.ints(node, "strides"), "dilations": cls.ints(node, "dilations"),
                     "pads_begin": None if pads is None else pads[:len(pads) // 2],
                     "pads_end": None if pads is None else pads[len(pads) // 2:]})


def unravel(b: OpBuilder, flat: Port, dims: Port, d: int, n: int) -> Port:
    """Coordinate ``d`` of the row-major positions ``flat`` in a grid of ``dims`` (n dims)."""
    inner = b.ReduceProd(dims_slice(b, dims, d + 1, n), i64(0), keep_dims=False)
    return b.FloorMod(b.Divide(flat, inner), b.Gather(dims, np.int64(d), np.int64(0)))


@translator("onnx", "Col2Im")
def col2im(node, b):
    """Col2Im -> Col2Im-15 for 2-D images. Other ranks: every column entry (kernel offset k,
    block l) goes to image position l * stride + k * dilation of the padded image, summed with
    ScatterElementsUpdate over the flattened padded image, which is then reshaped and cropped."""
    length = node.in_port(1).data.get_shape()
    if length is None or length[0] < 0:
        raise ConversionError("the number of image dims (the length of image_shape) is not known; give the model "
                              "input shapes with --input")
    n = length[0]
    attrs = {"strides": node.strides or [1] * n, "dilations": node.dilations or [1] * n,
             "pads_begin": node.pads_begin or [0] * n, "pads_end": node.pads_end or [0] * n}
    x, image, block = (node.in_port(i).get_source() for i in range(3))
    if n == 2:
        return [b.Col2Im(x, image, block, **attrs)]
    image, block = convert(b, image, "i64"), convert(b, block, "i64")
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
    head = dims_slice(b, shape_of(b, values), 0, 2)
    indices = b.Broadcast(b.Reshape(flat, i64(1, 1, -1), special_zero=False), shape_of(b, values))
    zeros = b.Broadcast(scalar_like(b, 0, x), b.Concat(head, b.ReduceProd(padded, i64(0), keep_dims=True), axis=0))
    summed = b.ScatterElementsUpdate(zeros, indices, values, np.int64(2), reduction="sum", use_init_val=True)
    image_padded = b.Reshape(summed, b.Concat(head, padded, axis=0), special_zero=False)
    return [b.Slice(image_padded, begin, b.Subtract(padded, end), np.ones(n, np.int64),
                    np.arange(2, n + 2, dtype=np.int64))]
