"""Volumetric (and higher) GridSample: the opset op samples 4-D inputs only, so other ranks are
decomposed into gathers of the flattened input at the sampling points."""
from __future__ import annotations

import itertools

import numpy as np

from extensions.middle.lowering import MiddleReplaceOp
from extensions.middle.nn_common import as_float, as_type, dim
from mo.graph.builder import OpBuilder


class GridSampleNDToGather(MiddleReplaceOp):
    """For data [N, C, *S] and grid [N, *O, n]: each point's coordinates (grid's last axis
    lists them from the last spatial dim to the first) are unnormalized to pixel positions;
    ``nearest`` rounds them half to even, ``bilinear`` blends the 2^n surrounding pixels. Pixels
    outside the input count as 0 (``zeros``) or as the nearest edge pixel (``border``). Pixels
    are read with one batched Gather per corner from data laid out as [N, prod(S), C]."""

    op = "GridSample"

    def replace_op(self, graph, node):
        x = node.in_port(0).get_source()
        rank = x.data.get_rank()
        if rank is None or rank == 4:
            return None
        if node.mode == "bicubic" or node.padding_mode == "reflection":
            raise ValueError(f"GridSample '{node.name}' on a {rank}-D input supports the bilinear and nearest "
                             f"modes with zeros or border padding only")
        b = OpBuilder(graph, node.name)
        grid = node.in_port(1).get_source()
        n = rank - 2
        sizes = [dim(b, x, 2 + s) for s in range(n)]
        data = b.Transpose(b.Reshape(x, np.array([0, 0, -1], np.int64), special_zero=True),
                           np.array([0, 2, 1], np.int64))
        points = b.Reshape(grid, np.array([0, -1, n], np.int64), special_zero=True)
        coords = [self.position(b, b.Gather(points, np.int64(n - 1 - s), np.int64(2)), sizes[s], node)
                  for s in range(n)]
        if node.mode == "nearest":
            corners = [[(b.Round(c, mode="half_to_even"), None)] for c in coords]
        else:
            corners = []
            for c in coords:
                low = b.Floor(c)
                high_weight = b.Subtract(c, low)
                corners.append([(low, b.Subtract(np.float32(1), high_weight)),
                                (b.Add(low, np.float32(1)), high_weight)])
        result = None
        for choice in itertools.product(*corners):
            value = self.read(b, data, [p for p, _ in choice], sizes, node.padding_mode)
            weights = [w for _, w in choice if w is not None]
            for w in weights:
                value = b.Multiply(value, b.Unsqueeze(w, np.array([-1], np.int64)))
            result = value if result is None else b.Add(result, value)
        _, out_spatial, _ = b.VariadicSplit(b.ShapeOf(grid), np.int64(0), np.array([1, -1, 1], np.int64),
                                            num_outputs=3)
        lead, _ = b.VariadicSplit(b.ShapeOf(x), np.int64(0), np.array([2, -1], np.int64), num_outputs=2)
        channels_first = b.Transpose(result, np.array([0, 2, 1], np.int64))
        return [b.Reshape(channels_first, b.Concat(lead, out_spatial, axis=0), special_zero=False, name=node.name)]

    @staticmethod
    def position(b: OpBuilder, g, size, node):
        """Normalized coordinate in [-1, 1] -> pixel position; with ``border`` padding a position
        beyond the edge pixels' outer bounds is clamped to the edge."""
        length = as_float(b, size)
        if node.align_corners:
            p = b.Multiply(b.Divide(b.Add(g, np.float32(1)), np.float32(2)), b.Subtract(length, np.float32(1)))
        else:
            p = b.Divide(b.Subtract(b.Multiply(b.Add(g, np.float32(1)), length), np.float32(1)), np.float32(2))
        if node.padding_mode == "border":
            last = b.Subtract(length, np.float32(1))
            p = b.Minimum(b.Maximum(p, np.float32(0)), last)
        return p

    @staticmethod
    def read(b: OpBuilder, data, positions: list, sizes: list, padding: str):
        """data [N, P_in, C] at integer positions (f32 [N, P] per spatial dim) -> [N, P, C]; with
        ``zeros`` padding, 0 where a position is outside the input."""
        flat = None
        valid = None
        for pos, size in zip(positions, sizes):
            length = as_float(b, size)
            clamped = b.Minimum(b.Maximum(pos, np.float32(0)), b.Subtract(length, np.float32(1)))
            if padding == "zeros":
                inside = b.LogicalAnd(b.GreaterEqual(pos, np.float32(0)), b.Less(pos, length))
                valid = inside if valid is None else b.LogicalAnd(valid, inside)
            flat = clamped if flat is None else b.Add(b.Multiply(flat, length), clamped)
        values = b.Gather(data, b.Convert(flat, destination_type="i64"), np.int64(1), batch_dims=1)
        if valid is None:
            return values
        return b.Multiply(values, b.Unsqueeze(as_type(b, valid, values.data.get_dtype()), np.array([-1], np.int64)))
