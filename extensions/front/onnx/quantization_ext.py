"""Extractors of the ONNX quantization operators."""
from __future__ import annotations

from extensions.front.onnx.conv_ext import window_attrs
from extensions.load.onnx.attributes import OnnxExtractor
from extensions.load.onnx.tensors import element_type_of
from extensions.ops.onnx_quantization_internal import (
    OnnxDequantizeLinear,
    OnnxDynamicQuantizeLinear,
    OnnxQuantizedConv,
    OnnxQuantizedMatMul,
    OnnxQuantizeLinear,
)


def linear_attrs(ext, node) -> dict:
    """axis, block_size and output_dtype (None: from the inputs) of Quantize/DequantizeLinear."""
    dtype = int(ext.attr(node, "output_dtype", 0))
    return {"axis": int(ext.attr(node, "axis", 1)), "block_size": int(ext.attr(node, "block_size", 0)),
            "output_dtype": element_type_of(dtype, f" of node '{node.name}'") if dtype else None}


class QuantizeLinearExtractor(OnnxExtractor):
    op_types = ("QuantizeLinear",)

    @classmethod
    def extract(cls, node):
        OnnxQuantizeLinear.update_node(node, {**linear_attrs(cls, node),
                                              "saturate": bool(cls.attr(node, "saturate", 1))})


class DequantizeLinearExtractor(OnnxExtractor):
    op_types = ("DequantizeLinear",)

    @classmethod
    def extract(cls, node):
        OnnxDequantizeLinear.update_node(node, linear_attrs(cls, node))


class QuantizedConvExtractor(OnnxExtractor):
    op_types = ("QLinearConv", "ConvInteger")

    @classmethod
    def extract(cls, node):
        OnnxQuantizedConv.update_node(node, {**window_attrs(cls, node), "group": int(cls.attr(node, "group", 1)),
                                             "qlinear": node.fw_op == "QLinearConv"})


class QuantizedMatMulExtractor(OnnxExtractor):
    op_types = ("QLinearMatMul", "MatMulInteger")

    @classmethod
    def extract(cls, node):
        OnnxQuantizedMatMul.update_node(node, {"qlinear": node.fw_op == "QLinearMatMul"})


class DynamicQuantizeLinearExtractor(OnnxExtractor):
    op_types = ("DynamicQuantizeLinear",)

    @classmethod
    def extract(cls, node):
        OnnxDynamicQuantizeLinear.update_node(node, {"num_outputs": 3})
