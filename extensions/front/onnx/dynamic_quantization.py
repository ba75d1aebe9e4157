"""ONNX Runtime's dynamic quantization (``quantize_dynamic``) as the runtime runs it fast.

ORT writes each quantized MatMul / Conv as

    x_q, x_scale, x_zero_point = DynamicQuantizeLinear(x)
    y = Cast<float>(MatMulInteger(x_q, W_q, x_zero_point[, W_zero_point])) * (x_scale * W_scale)

(ConvInteger likewise, the product of scales reshaped to [1, C, 1, 1]): the activations are
quantized per call over their own range and the integer weights are dequantized by the scale
product after the integer product. Computed that way in the IR, every layer runs in float with an
i32 product. This rewrite, on the ONNX graph before translation, makes each such layer a MatMul /
Convolution of x itself with the weights dequantized (i8 constant -> Convert -> [Subtract] ->
Multiply, the compressed-weights form): the CPU plugin runs the MatMuls as FullyConnected layers
with i8 weights, quantizing their activations on the fly itself where it can. The result differs
from ORT's by less than one step of x's quantization (ORT's error, which the IR does not add).
"""
from __future__ import annotations

import numpy as np

from extensions.front.onnx.quantization import convolve, dequantize
from mo.graph.builder import OpBuilder
from mo.graph.node import Node
from mo.graph.port import Port
from mo.pipeline.transform import Transform, replace_outputs

FLOATS = (1, 10, 11, 16)    # ONNX TensorProto float, float16, double, bfloat16
# ONNX Mul and Reshape before translation (the extractor of Mul already names its opset op)
MUL = ("onnx:Mul", "Multiply")
RESHAPE = ("onnx:Reshape", "Reshape")


def _sole(port: Port) -> Node | None:
    dests = port.get_destinations()
    return dests[0].node if len(dests) == 1 else None


def _other_input(node: Node, port: Port) -> Port | None:
    """The source of ``node``'s other input (it has two) than ``port``."""
    if sorted(node.in_ports()) != [0, 1]:
        return None
    first = node.in_port(0).get_source()
    return node.in_port(1).get_source() if first == port else first


def _optional(node: Node, idx: int) -> Port | None:
    return node.in_port(idx).get_source() if node.is_in_port_connected(idx) else None


def weights_scale(product: Port, x_scale: Port) -> np.ndarray | None:
    """W_scale of ``product`` = Mul(x_scale, W_scale) [-> Reshape to [1, C, 1...]], as a constant
    shaped [C] or scalar; None when the factor is not that."""
    node = product.node
    if node.op in RESHAPE:
        node = node.in_port(0).get_source().node
    if node.op not in MUL:
        return None
    other = _other_input(node, x_scale)
    value = None if other is None or other == x_scale else other.data.get_value()
    return None if value is None or value.ndim > 1 else value


class DynamicQuantizedLayersToFloatActivations(Transform):
    """DynamicQuantizeLinear -> MatMulInteger / ConvInteger -> Cast -> Mul(x_scale * W_scale) becomes
    MatMul / Convolution of the float activations and the dequantized integer weights."""

    phase = "front"
    frameworks = ("onnx",)
    ops = ("onnx:DynamicQuantizeLinear",)

    def find_and_replace_pattern(self, graph) -> None:
        for quantizer in graph.nodes_by_op("onnx:DynamicQuantizeLinear"):
            x = quantizer.in_port(0).get_source()
            x_q, x_scale, x_zero = (quantizer.out_port(i) for i in range(3))
            for dest in list(x_q.get_destinations()):
                layer = dest.node
                if layer.op in ("onnx:MatMulInteger", "onnx:ConvInteger") and dest.idx == 0:
                    self._replace(graph, layer, x, x_scale, x_zero)
            if not any(quantizer.out_port(i).get_destinations() for i in range(3)):
                graph.remove_node(quantizer.id)

    @staticmethod
    def _replace(graph, layer: Node, x: Port, x_scale: Port, x_zero: Port) -> None:
        cast = _sole(layer.out_port(0))
        if cast is None or cast.op != "onnx:Cast" or int(cast.pb.attribute[0].i) not in FLOATS:
            return
        scaling = _sole(cast.out_port(0))
        product = None if scaling is None or scaling.op not in MUL else _other_input(scaling, cast.out_port(0))
        if product is None or _optional(layer, 2) != x_zero:
            return
        scale = weights_scale(product, x_scale)
        w, w_zero = layer.in_port(1).get_source(), _optional(layer, 3)
        w_value = w.data.get_value()
        if scale is None or w_value is None or (w_zero is not None and w_zero.data.get_value() is None):
            return
        conv = layer.op == "onnx:ConvInteger"
        channels = w_value.shape[0] if conv else w_value.shape[-1]
        if scale.size not in (1, channels):
            return
        b = OpBuilder(graph, layer.name)
        along = (-1,) + (1,) * (w_value.ndim - 1) if conv else (-1,)

        def per_channel(value: np.ndarray) -> np.ndarray:
            return value.reshape(along if value.size > 1 else ())

        zero = None if w_zero is None else b.const(per_channel(w_zero.data.get_value()))
        weights = dequantize(b, w, b.const(per_channel(scale.astype(np.float32))), zero)
        y = convolve(b, layer, x, weights) if conv else b.MatMul(x, weights, name=layer.name)
        replace_outputs(scaling, [y])
        for node in (cast, layer):
            graph.remove_node(node.id)
