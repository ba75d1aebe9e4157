"""ONNX sampling grids: GridSample and AffineGrid, their extractor and translators."""
from __future__ import annotations

import itertools

import numpy as np

from extensions.load.onnx.attributes import OnnxExtractor
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.building import convert, dim, i64, typed_const
from mo.graph.node import Node
from mo.graph.port import Port

GRID_SAMPLE_MODE = {"linear": "bilinear", "bilinear": "bilinear", "cubic": "bicubic", "bicubic": "bicubic",
                    "nearest": "nearest"}
PADDING_MODES = ("zeros", "border", "reflection")


class GridSampleExtractor(OnnxExtractor):
    op_types = ("GridSample",)

    @classmethod
    def extract(cls, node):
        mode = cls.attr(node, "mode", "bilinear")
        padding = cls.attr(node, "padding_mode", "zeros")
        if mode not in GRID_SAMPLE_MODE or padding not in PADDING_MODES:
            raise ValueError(f"unknown mode '{mode}' or padding_mode '{padding}'")
        node.update({"align_corners": bool(cls.attr(node, "align_corners", 0)), "mode": GRID_SAMPLE_MODE[mode],
                     "padding_mode": padding})


@translator("onnx", "GridSample")
def grid_sample(node: Node, b: OpBuilder) -> list[Port]:
    """GridSample for 4-D data (or data of unknown rank); other ranks, which the opset op does not
    sample, are decomposed (``grid_sample_nd``)."""
    x, grid = node.in_port(0).get_source(), node.in_port(1).get_source()
    rank = x.data.get_rank()
    if rank is None or rank == 4:
        return [b.GridSample(x, grid, align_corners=node.align_corners, mode=node.mode,
                             padding_mode=node.padding_mode)]
    if node.mode == "bicubic" or node.padding_mode == "reflection":
        raise ConversionError(f"on a {rank}-D input only the bilinear and nearest modes with zeros or border "
                              f"padding are supported")
    return [grid_sample_nd(b, node, x, grid, rank - 2)]


def grid_sample_nd(b: OpBuilder, node: Node, x: Port, grid: Port, n: int) -> Port:
    """For data [N, C, *S] and grid [N, *O, n]: each point's coordinates (grid's last axis lists
    them from the last spatial dim to the first) are unnormalized to pixel positions; ``nearest``
    rounds them half to even, ``bilinear`` blends the 2^n surrounding pixels. Pixels outside the
    input count as 0 (``zeros``) or as the nearest edge pixel (``border``). Pixels are read with
    one batched Gather per corner from data laid out as [N, prod(S), C]."""
    lengths = [convert(b, dim(b, x, 2 + s), "f32") for s in range(n)]
    data = b.Transpose(b.Reshape(x, i64(0, 0, -1), special_zero=True), i64(0, 2, 1))
    points = b.Reshape(grid, i64(0, -1, n), special_zero=True)
    coords = [position(b, b.Gather(points, np.int64(n - 1 - s), np.int64(2)), lengths[s], node) for s in range(n)]
    if node.mode == "nearest":
        corners = [[(b.Round(c, mode="half_to_even"), None)] for c in coords]
    else:
        corners = []
        for c in coords:
            low = b.Floor(c)
            high_weight = b.Subtract(c, low)
            corners.append([(low, b.Subtract(np.float32(1), high_weight)), (b.Add(low, np.float32(1)), high_weight)])
    result = None
    for choice in itertools.product(*corners):
        value = read(b, data, [p for p, _ in choice], lengths, node.padding_mode)
        for w in (w for _, w in choice if w is not None):
            value = b.Multiply(value, b.Unsqueeze(w, i64(-1)))
        result = value if result is None else b.Add(result, value)
    _, out_spatial, _ = b.VariadicSplit(b.ShapeOf(grid), np.int64(0), i64(1, -1, 1), num_outputs=3)
    lead, _ = b.VariadicSplit(b.ShapeOf(x), np.int64(0), i64(2, -1), num_outputs=2)
    channels_first = b.Transpose(result, i64(0, 2, 1))
    return b.Reshape(channels_first, b.Concat(lead, out_spatial, axis=0), special_zero=False)


def position(b: OpBuilder, g: Port, length: Port, node: Node) -> Port:
    """Normalized coordinate in [-1, 1] -> pixel position along a dim of ``length`` (f32); with
    ``border`` padding a position beyond the edge pixels' outer bounds is clamped to the edge."""
    if node.align_corners:
        p = b.Multiply(b.Divide(b.Add(g, np.float32(1)), np.float32(2)), b.Subtract(length, np.float32(1)))
    else:
        p = b.Divide(b.Subtract(b.Multiply(b.Add(g, np.float32(1)), length), np.float32(1)), np.float32(2))
    if node.padding_mode == "border":
        p = b.Minimum(b.Maximum(p, np.float32(0)), b.Subtract(length, np.float32(1)))
    return p


def read(b: OpBuilder, data: Port, positions: list, lengths: list, padding: str) -> Port:
    """data [N, P_in, C] at integer positions (f32 [N, P] per spatial dim) -> [N, P, C]; with
    ``zeros`` padding, 0 where a position is outside the input."""
    flat = None
    valid = None
    for pos, length in zip(positions, lengths):
        clamped = b.Minimum(b.Maximum(pos, np.float32(0)), b.Subtract(length, np.float32(1)))
        if padding == "zeros":
            inside = b.LogicalAnd(b.GreaterEqual(pos, np.float32(0)), b.Less(pos, length))
            valid = inside if valid is None else b.LogicalAnd(valid, inside)
        flat = clamped if flat is None else b.Add(b.Multiply(flat, length), clamped)
    values = b.Gather(data, b.Convert(flat, destination_type="i64"), np.int64(1), batch_dims=1)
    if valid is None:
        return values
    return b.Multiply(values, b.Unsqueeze(convert(b, valid, values.data.get_dtype()), i64(-1)))


def normalized_coords(b: OpBuilder, length: Port, dtype: str, align_corners: bool) -> Port:
    """The 1-D sampling positions in [-1, 1] along a dim of ``length`` (i64 scalar): the pixel
    centers, or with ``align_corners`` the edge pixels at exactly -1 and 1."""
    steps = b.Convert(b.Range(np.int64(0), length, np.int64(1), output_type="i64"), destination_type=dtype)
    size = b.Convert(length, destination_type=dtype)
    one, two = typed_const(b, 1, dtype), typed_const(b, 2, dtype)
    if align_corners:
        step = b.Divide(two, b.Maximum(b.Subtract(size, one), one))
        return b.Subtract(b.Multiply(steps, step), one)
    return b.Subtract(b.Divide(b.Add(b.Multiply(steps, two), one), size), one)


@translator("onnx", "AffineGrid")
def affine_grid(node: Node, b: OpBuilder) -> list[Port]:
    """theta [N, n, n+1], size [N, C, spatial...]: grid[n, p] = theta[n] @ (x, y[, z], 1) over the
    positions p of the output spatial shape, x running along the last dim: one MatMul of the
    [1, P, n+1] base grid with theta^T."""
    theta, size = node.in_port(0).get_source(), node.in_port(1).get_source()
    theta_shape = theta.data.get_shape()
    if theta_shape is None or len(theta_shape) != 3 or theta_shape[1] < 0:
        raise ConversionError("theta must have a known shape [N, n, n+1]")
    n = theta_shape[1]
    dtype = theta.data.get_dtype()
    align_corners = bool(OnnxExtractor.attr(node, "align_corners", 0))
    batch, _, spatial = b.VariadicSplit(size, np.int64(0), i64(1, 1, -1), num_outputs=3)
    components = []
    for k in reversed(range(n)):      # x along the last spatial dim first
        length = b.Gather(size, np.int64(2 + k), np.int64(0))
        shape = np.ones(n, np.int64)
        shape[k] = -1
        placed = b.Reshape(normalized_coords(b, length, dtype, align_corners), shape, special_zero=False)
        components.append(b.Unsqueeze(b.Broadcast(placed, spatial), i64(-1)))
    components.append(b.Unsqueeze(b.Broadcast(typed_const(b, 1, dtype), spatial), i64(-1)))
    base = b.Reshape(b.Concat(*components, axis=-1), i64(1, -1, n + 1), special_zero=False)
    grid = b.MatMul(base, theta, transpose_b=True)
    return [b.Reshape(grid, b.Concat(batch, spatial, i64(n), axis=0), special_zero=False)]
