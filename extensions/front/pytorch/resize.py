"""Lowering of the ATen resizes (upsample_* as Interpolate-11 on the spatial axes) and paddings
(pad / constant_pad_nd / reflection_pad* / replication_pad*; circular as slices and Concat)."""
from __future__ import annotations

import numpy as np

from extensions.front.pytorch.aten import AtenOp, const, convert, int_list_port, rank_of
from extensions.front.pytorch.shape import sliced
from mo.errors import ConversionError

UPSAMPLES = {
    "aten::upsample_nearest1d": "nearest", "aten::upsample_nearest2d": "nearest", "aten::upsample_nearest3d": "nearest",
    "aten::_upsample_nearest_exact1d": "nearest-exact", "aten::_upsample_nearest_exact2d": "nearest-exact",
    "aten::_upsample_nearest_exact3d": "nearest-exact", "aten::upsample_linear1d": "linear",
    "aten::upsample_bilinear2d": "linear", "aten::upsample_trilinear3d": "linear",
    "aten::upsample_bicubic2d": "cubic",
}
PADS = {"aten::pad": None, "aten::constant_pad_nd": "constant", "aten::reflection_pad1d": "reflect",
        "aten::reflection_pad2d": "reflect", "aten::reflection_pad3d": "reflect", "aten::replication_pad1d": "edge",
        "aten::replication_pad2d": "edge", "aten::replication_pad3d": "edge", "aten::_pad_circular": "circular"}
_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "circular"}


class AtenUpsample(AtenOp):
    """upsample_* to ``output_size`` or by ``scale_factors``: nearest (floor of dst * in / out),
    nearest-exact (half pixel), linear and cubic (A = -0.75) with half-pixel or align-corners
    coordinates."""

    op = "pytorch::Upsample"

    @classmethod
    def build(cls, node, a, b):
        kind = node.fw_op
        mode = UPSAMPLES[kind]
        x = a.tensor(0)
        rank = rank_of(x, node)
        axes = b.const(np.arange(2, rank, dtype=np.int64))
        scales = cls._scales(a, rank - 2)
        attrs = {"antialias": False, "cube_coeff": -0.75, "nearest_mode": "floor",
                 "coordinate_transformation_mode": "asymmetric"}
        if mode == "nearest-exact":
            attrs.update(nearest_mode="round_prefer_ceil", coordinate_transformation_mode="half_pixel")
        elif mode in ("linear", "cubic"):
            align = bool(a.const("align_corners", False))
            attrs["coordinate_transformation_mode"] = "align_corners" if align else "pytorch_half_pixel"
        ov_mode = {"nearest": "nearest", "nearest-exact": "nearest", "linear": "linear_onnx", "cubic": "cubic"}[mode]
        if mode == "linear" and rank == 3:
            ov_mode = "linear"
        if scales is not None:
            target = b.const(np.array(scales, np.float32))
            return [b.Interpolate(x, target, axes, mode=ov_mode, shape_calculation_mode="scales", **attrs)]
        size = a.int_list("output_size")
        if size is None:
            raise ConversionError(f"{node.name}: neither output_size nor scale_factors is given.")
        return [b.Interpolate(x, int_list_port(b, size), axes, mode=ov_mode, shape_calculation_mode="sizes",
                              **attrs)]

    @staticmethod
    def _scales(a, n: int) -> list[float] | None:
        if a.has("scale_factors"):
            value = a.const("scale_factors", None)
            if value is None:
                return None
            value = [float(v) for v in np.atleast_1d(value)]
            return value * n if len(value) == 1 else value
        names = [k for k in ("scales", "scales_d", "scales_h", "scales_w") if a.has(k)]
        values = [a.const(k, None) for k in names]
        if names and all(v is not None for v in values):
            return [float(v) for v in values]
        return None


class AtenPad(AtenOp):
    """Padding given PyTorch's way (last dim first, [begin, end] pairs); negative pads crop."""

    op = "pytorch::Pad"

    @classmethod
    def build(cls, node, a, b):
        kind = node.fw_op
        x = a.tensor(0)
        rank = rank_of(x, node)
        mode = PADS[kind] or _MODES[a.const("mode", "constant")]
        pads = [int(p) for p in a.const(1)]
        if len(pads) % 2 or len(pads) // 2 > rank:
            raise ConversionError(f"Padding {pads} does not fit a rank-{rank} tensor ({node.name}).")
        begin, end = [0] * rank, [0] * rank
        for i in range(len(pads) // 2):
            begin[rank - 1 - i], end[rank - 1 - i] = pads[2 * i], pads[2 * i + 1]
        if mode == "circular":
            return [cls._circular(b, x, begin, end, node)]
        inputs = [x, b.const(np.array(begin, np.int64)), b.const(np.array(end, np.int64))]
        if mode == "constant":
            value = a.const("value", 0) if a.has("value") else 0
            inputs.append(const(b, 0 if value is None else value, x.data.get_dtype()))
        return [b.Pad(*inputs, pad_mode=mode)]

    @staticmethod
    def _circular(b, x, begin, end, node):
        y = x
        for axis, (pb, pe) in enumerate(zip(begin, end)):
            if not pb and not pe:
                continue
            size = y.data.get_shape()[axis]
            if size < 0 or pb < 0 or pe < 0:
                raise ConversionError(f"circular padding of a dynamic or cropped dim is not supported ({node.name}).")
            parts = ([sliced(b, y, axis, size - pb, size)] if pb else []) + [y] + \
                ([sliced(b, y, axis, 0, pe)] if pe else [])
            y = b.Concat(*parts, axis=axis)
        return convert(b, y, x.data.get_dtype())
