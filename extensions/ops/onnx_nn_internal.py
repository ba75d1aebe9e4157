"""ONNX neural-network operators kept as extracted until a transform lowers them to opset ops.

``OnnxMiddleOp`` ones wait for the middle phase, because the lowering needs the input rank or
shape; each infers the exact output shapes, so the graph downstream of it is right before the
lowering. ``FrontOnlyOp`` ones are lowered in the front phase."""
from __future__ import annotations

from mo.ops.internal import FrontOnlyOp
from mo.ops.op import Op
from mo.utils.shape import DYN


class OnnxMiddleOp(Op):
    """Base: internal op (no IR type) whose outputs default to the shape of input 0."""

    abstract = True
    type = None


class OnnxMaxUnpool(FrontOnlyOp):
    """MaxUnpool: values, their flat indices and the optional output shape; window attributes."""

    op = "onnx::MaxUnpool"


class OnnxDeformConv(FrontOnlyOp):
    """DeformConv: X, W, offset, optional B and mask; ``group``, ``offset_group``, window attrs."""

    op = "onnx::DeformConv"


class OnnxNonMaxSuppression(FrontOnlyOp):
    """NonMaxSuppression: boxes, scores and the optional max_output_boxes_per_class,
    iou_threshold, score_threshold; ``center_point_box``."""

    op = "onnx::NonMaxSuppression"


class OnnxAffineGrid(OnnxMiddleOp):
    """AffineGrid: theta [N, n, n+1] and size [N, C, spatial...] (n spatial dims) -> grid
    [N, spatial..., n]; ``align_corners``."""

    op = "onnx::AffineGrid"

    @classmethod
    def infer_shapes(cls, node):
        theta, size = node.in_shape(0), node.in_value(1)
        if size is not None:
            size = [int(v) for v in size.reshape(-1)]
            return [(size[0], *size[2:], len(size) - 2)]
        size_shape = node.in_shape(1)
        n = theta[1] if theta is not None and theta[1] >= 0 else \
            (size_shape[0] - 2 if size_shape is not None and size_shape[0] >= 0 else None)
        if n is None:
            return [None]
        return [(DYN if theta is None else theta[0],) + (DYN,) * n + (n,)]


class OnnxCausalConvWithState(OnnxMiddleOp):
    """CausalConvWithState: input [B, C, L], depthwise weight [C, 1, k], optional bias [C] and
    past_state [B, C, k - 1] -> output [B, C, L], present_state [B, C, k - 1]; ``activation``."""

    op = "onnx::CausalConvWithState"
    num_outputs = 2

    @classmethod
    def infer_shapes(cls, node):
        x, w = node.in_shape(0), node.in_shape(1)
        if x is None:
            return [None, None]
        state = DYN if w is None or w[2] < 0 else w[2] - 1
        return [x, (x[0], x[1], state)]
