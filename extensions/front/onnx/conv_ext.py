"""Extractors of ONNX Conv, ConvTranspose and the pooling operators."""
from __future__ import annotations

from extensions.load.onnx.attributes import OnnxExtractor
from extensions.ops.onnx_internal import OnnxConv, OnnxConvTranspose, OnnxPool
from extensions.ops.onnx_nn_internal import OnnxCausalConvWithState, OnnxDeformConv, OnnxMaxUnpool

AUTO_PAD = {"NOTSET": "explicit", "": "explicit", "SAME_UPPER": "same_upper", "SAME_LOWER": "same_lower",
            "VALID": "valid"}


def window_attrs(ext, node) -> dict:
    """strides, dilations, pads_begin/end, auto_pad and kernel of an ONNX windowed op; lists that
    are absent stay None and are filled from the input rank later."""
    pads = ext.ints(node, "pads")
    half = len(pads) // 2 if pads else 0
    auto_pad = ext.attr(node, "auto_pad", "NOTSET")
    if auto_pad not in AUTO_PAD:
        raise ValueError(f"unknown auto_pad '{auto_pad}'")
    return {
        "strides": ext.ints(node, "strides"),
        "dilations": ext.ints(node, "dilations"),
        "pads_begin": pads[:half] if pads else None,
        "pads_end": pads[half:] if pads else None,
        "auto_pad": AUTO_PAD[auto_pad],
        "kernel": ext.ints(node, "kernel_shape"),
    }


class ConvExtractor(OnnxExtractor):
    op_types = ("Conv",)

    @classmethod
    def extract(cls, node):
        OnnxConv.update_node(node, {**window_attrs(cls, node), "group": int(cls.attr(node, "group", 1))})


class ConvTransposeExtractor(OnnxExtractor):
    op_types = ("ConvTranspose",)

    @classmethod
    def extract(cls, node):
        OnnxConvTranspose.update_node(node, {
            **window_attrs(cls, node), "group": int(cls.attr(node, "group", 1)),
            "output_padding": cls.ints(node, "output_padding"), "output_shape": cls.ints(node, "output_shape")})


class PoolExtractor(OnnxExtractor):
    op_types = ("MaxPool", "AveragePool", "LpPool", "GlobalMaxPool", "GlobalAveragePool")
    kinds = {"MaxPool": "max", "AveragePool": "avg", "LpPool": "lp"}

    @classmethod
    def extract(cls, node):
        if node.fw_op.startswith("Global"):
            OnnxPool.update_node(node, {"pool": "max" if "Max" in node.fw_op else "avg", "global_pool": True})
            return
        OnnxPool.update_node(node, {
            **window_attrs(cls, node), "pool": cls.kinds[node.fw_op], "p": float(cls.attr(node, "p", 2)),
            "ceil_mode": bool(cls.attr(node, "ceil_mode", 0)),
            "exclude_pad": not bool(cls.attr(node, "count_include_pad", 0)),
            "num_outputs": len(node.pb.output), "column_major": bool(cls.attr(node, "storage_order", 0))})


class MaxUnpoolExtractor(OnnxExtractor):
    op_types = ("MaxUnpool",)

    @classmethod
    def extract(cls, node):
        OnnxMaxUnpool.update_node(node, window_attrs(cls, node))


class DeformConvExtractor(OnnxExtractor):
    op_types = ("DeformConv",)

    @classmethod
    def extract(cls, node):
        OnnxDeformConv.update_node(node, {**window_attrs(cls, node), "group": int(cls.attr(node, "group", 1)),
                                          "offset_group": int(cls.attr(node, "offset_group", 1))})


class CausalConvWithStateExtractor(OnnxExtractor):
    op_types = ("CausalConvWithState",)

    @classmethod
    def extract(cls, node):
        activation = cls.attr(node, "activation", "none")
        if activation not in ("none", "silu", "swish"):
            raise ValueError(f"unknown activation '{activation}'")
        OnnxCausalConvWithState.update_node(node, {"activation": activation, "num_outputs": 2})
