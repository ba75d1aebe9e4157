"""Interpolate-11: resizing of the ``axes`` (input 2) of input 0 to the sizes or by the scales of
input 1."""
from __future__ import annotations

import math

import numpy as np

from mo.ops.op import Op
from mo.utils.shape import DYN, normalize_axes


class Interpolate(Op):
    """Resize with ``mode`` nearest / linear / linear_onnx / cubic / bilinear_pillow /
    bicubic_pillow; ``shape_calculation_mode`` says whether input 1 holds sizes or scales."""

    op = "Interpolate"
    version = "opset11"
    defaults = {"mode": "nearest", "shape_calculation_mode": "sizes",
                "coordinate_transformation_mode": "half_pixel", "nearest_mode": "round_prefer_floor",
                "antialias": False, "pads_begin": [0], "pads_end": [0], "cube_coeff": -0.75}
    ir_attrs = ("mode", "shape_calculation_mode", "coordinate_transformation_mode", "nearest_mode",
                "antialias", "pads_begin", "pads_end", "cube_coeff")
    # The output size is floor(scale * dim): float16 scales would change it.
    precision_sensitive_inputs = (1,)

    @classmethod
    def infer_shapes(cls, node):
        shape = node.in_shape(0)
        if shape is None:
            return [None]
        rank = len(shape)
        pads_b = list(node.pads_begin or []) + [0] * rank
        pads_e = list(node.pads_end or []) + [0] * rank
        padded = [d if d < 0 else d + pads_b[i] + pads_e[i] for i, d in enumerate(shape)]
        target = node.in_value(1)
        if node.is_in_port_connected(2):
            axes = node.in_value(2)
            axes = None if axes is None else normalize_axes(np.atleast_1d(axes), rank)
        else:
            axes = list(range(rank))
        if axes is None:
            return [(DYN,) * rank]
        if target is None:
            return [tuple(DYN if i in axes else d for i, d in enumerate(padded))]
        target = np.atleast_1d(target).reshape(-1)
        out = list(padded)
        for a, t in zip(axes, target):
            if node.shape_calculation_mode == "sizes":
                out[a] = int(t)
            else:
                out[a] = DYN if padded[a] < 0 else int(math.floor(padded[a] * float(t) + 1e-5))
        return [tuple(out)]
