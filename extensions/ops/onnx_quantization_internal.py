"""ONNX quantization operators kept as extracted until a middle (or front) transform lowers them."""
from __future__ import annotations

from extensions.ops.convolution import ConvolutionBase
from extensions.ops.matmul import matmul_shape
from extensions.ops.onnx_nn_internal import OnnxMiddleOp
from mo.ops.internal import FrontOnlyOp


class OnnxQuantizeLinear(OnnxMiddleOp):
    """QuantizeLinear: x, y_scale, optional y_zero_point; ``axis``, ``block_size``; the output
    type is ``output_dtype``, else the zero point's, else u8."""

    op = "onnx::QuantizeLinear"

    @classmethod
    def type_infer(cls, node):
        dtype = node.get("output_dtype") or (node.in_dtype(2) if node.is_in_port_connected(2) else "u8")
        node.out_port(0).data.set_dtype(dtype)


class OnnxDequantizeLinear(OnnxMiddleOp):
    """DequantizeLinear: x, x_scale, optional x_zero_point; ``axis``, ``block_size``; the output
    type is ``output_dtype``, else the scale's."""

    op = "onnx::DequantizeLinear"

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.get("output_dtype") or node.in_dtype(1))


class OnnxQuantizedProduct(OnnxMiddleOp):
    """Base of the QLinear* ops (``qlinear``: inputs a, a_scale, a_zp, b, b_scale, b_zp,
    y_scale, y_zp; output of y_zp's type) and the *Integer ops (a, b, optional a_zp and b_zp;
    i32 output)."""

    abstract = True

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.in_dtype(7) if node.qlinear else "i32")

    @classmethod
    def operand_shapes(cls, node) -> tuple:
        return node.in_shape(0), node.in_shape(3 if node.qlinear else 1)


class OnnxQuantizedConv(OnnxQuantizedProduct):
    """QLinearConv (with an optional int32 bias, input 8) and ConvInteger, with the window
    attributes and ``group`` of Conv."""

    op = "onnx::QuantizedConv"

    @classmethod
    def infer_shapes(cls, node):
        x, w = cls.operand_shapes(node)
        if x is None or w is None:
            return [None]
        return [(x[0], w[0], *ConvolutionBase._spatial(node, x, w[2:]))]


class OnnxQuantizedMatMul(OnnxQuantizedProduct):
    """QLinearMatMul and MatMulInteger (a's parameters per row, b's per column)."""

    op = "onnx::QuantizedMatMul"

    @classmethod
    def infer_shapes(cls, node):
        return [matmul_shape(*cls.operand_shapes(node))]


class OnnxDynamicQuantizeLinear(FrontOnlyOp):
    """DynamicQuantizeLinear: x -> y (u8), y_scale, y_zero_point from the range of x."""

    op = "onnx::DynamicQuantizeLinear"
