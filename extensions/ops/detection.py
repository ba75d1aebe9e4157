"""Detection and sampling operations: ROIAlign, NonMaxSuppression, GridSample."""
from __future__ import annotations

from mo.ops.op import Op
from mo.utils.shape import DYN


class ROIAlign(Op):
    """Pools each region of interest (rois [R, 4], batch_indices [R]) of data [N, C, H, W] to
    [R, C, pooled_h, pooled_w]."""

    op = "ROIAlign"
    version = "opset9"
    defaults = {"pooled_h": 1, "pooled_w": 1, "sampling_ratio": 0, "spatial_scale": 1.0, "mode": "avg",
                "aligned_mode": "asymmetric"}
    ir_attrs = ("pooled_h", "pooled_w", "sampling_ratio", "spatial_scale", "mode", "aligned_mode")

    @classmethod
    def infer_shapes(cls, node):
        x, rois = node.in_shape(0), node.in_shape(1)
        rois_count = DYN if rois is None else rois[0]
        channels = DYN if x is None else x[1]
        return [(rois_count, channels, node.pooled_h, node.pooled_w)]


class NonMaxSuppression(Op):
    """Boxes [B, N, 4] and scores [B, C, N] -> selected_indices [?, 3] (batch, class, box),
    selected_scores [?, 3] and valid_outputs [1]; the number selected is known at run time."""

    op = "NonMaxSuppression"
    version = "opset9"
    defaults = {"box_encoding": "corner", "sort_result_descending": True, "output_type": "i64"}
    ir_attrs = ("box_encoding", "sort_result_descending", "output_type")
    num_outputs = 3
    foldable = False

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.output_type)
        node.out_port(1).data.set_dtype(node.in_dtype(0))
        node.out_port(2).data.set_dtype(node.output_type)

    @classmethod
    def infer_shapes(cls, node):
        return [(DYN, 3), (DYN, 3), (1,)]


class GridSample(Op):
    """Samples data [N, C, H, W] at the normalized (x, y) points of grid [N, H_out, W_out, 2]."""

    op = "GridSample"
    version = "opset9"
    defaults = {"align_corners": False, "mode": "bilinear", "padding_mode": "zeros"}
    ir_attrs = ("align_corners", "mode", "padding_mode")

    @classmethod
    def infer_shapes(cls, node):
        x, grid = node.in_shape(0), node.in_shape(1)
        batch, channels = (DYN, DYN) if x is None else x[:2]
        spatial = (DYN, DYN) if grid is None else tuple(grid[1:-1])
        return [(batch, channels, *spatial)]
