"""ONNX activations: Elu and Gelu map to their opset ops (extractors); the others are translated
to a few opset ops, their scalar attributes (ONNX schema defaults) as constants of the input's
element type."""
from __future__ import annotations

import numpy as np

from extensions.load.onnx.attributes import OnnxExtractor
from extensions.ops.elementwise import Elu, Gelu
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.building import scalar_like
from mo.graph.node import Node
from mo.graph.port import Port

SELU_ALPHA = 1.67326319217681884765625
SELU_GAMMA = 1.05070102214813232421875


class EluExtractor(OnnxExtractor):
    op_types = ("Elu",)

    @classmethod
    def extract(cls, node):
        Elu.update_node(node, {"alpha": float(cls.attr(node, "alpha", 1.0))})


class GeluExtractor(OnnxExtractor):
    """Gelu(approximate="none"|"tanh") -> Gelu-7 (ERF|TANH)."""

    op_types = ("Gelu",)

    @classmethod
    def extract(cls, node):
        Gelu.update_node(node, {"approximation_mode": "TANH" if cls.attr(node, "approximate") == "tanh" else "ERF"})


def _input(node: Node) -> Port:
    return node.in_port(0).get_source()


def _attr(b: OpBuilder, node: Node, name: str, default: float, like: Port) -> Port:
    """The float attribute ``name`` of ``node`` as a scalar of the element type of ``like``."""
    return scalar_like(b, float(OnnxExtractor.attr(node, name, default)), like)


@translator("onnx", "LeakyRelu")
def leaky_relu(node: Node, b: OpBuilder) -> list[Port]:
    x = _input(node)
    return [b.PRelu(x, _attr(b, node, "alpha", 0.01, x))]


@translator("onnx", "PRelu")
def prelu(node: Node, b: OpBuilder) -> list[Port]:
    """PRelu; ONNX broadcasts the slope with numpy rules, PRelu-1 reads a 1-D slope as long as
    dim 1 as per channel. A 1-D slope that fits both dim 1 and the last dim (or dim 1 is dynamic)
    becomes [1, n] for data of rank > 2; one that only fits dim 1 stays per channel, as old
    exporters meant it."""
    x, slope = _input(node), node.in_port(1).get_source()
    shape, slope_shape = x.data.get_shape(), slope.data.get_shape()
    if shape is not None and slope_shape is not None and len(slope_shape) == 1 and len(shape) > 2:
        n = slope_shape[0]
        if n not in (1, -1) and n == shape[-1] and shape[1] in (n, -1):
            slope = b.Unsqueeze(slope, np.int64(0))
    return [b.PRelu(x, slope)]


@translator("onnx", "ThresholdedRelu")
def thresholded_relu(node: Node, b: OpBuilder) -> list[Port]:
    """x where x > alpha, else 0."""
    x = _input(node)
    return [b.Select(b.Greater(x, _attr(b, node, "alpha", 1.0, x)), x, scalar_like(b, 0.0, x))]


@translator("onnx", "Selu")
def selu(node: Node, b: OpBuilder) -> list[Port]:
    x = _input(node)
    return [b.Selu(x, _attr(b, node, "alpha", SELU_ALPHA, x), _attr(b, node, "gamma", SELU_GAMMA, x))]


@translator("onnx", "Celu")
def celu(node: Node, b: OpBuilder) -> list[Port]:
    """alpha * elu(x / alpha)."""
    x = _input(node)
    alpha = _attr(b, node, "alpha", 1.0, x)
    return [b.Multiply(b.Elu(b.Divide(x, alpha), alpha=1.0), alpha)]


@translator("onnx", "HardSigmoid")
def hard_sigmoid(node: Node, b: OpBuilder) -> list[Port]:
    x = _input(node)
    return [b.HardSigmoid(x, _attr(b, node, "alpha", 0.2, x), _attr(b, node, "beta", 0.5, x))]


@translator("onnx", "Shrink")
def shrink(node: Node, b: OpBuilder) -> list[Port]:
    """x + bias below -lambd, x - bias above lambd, 0 between."""
    x = _input(node)
    bias = _attr(b, node, "bias", 0.0, x)
    lambd = float(OnnxExtractor.attr(node, "lambd", 0.5))
    upper = b.Select(b.Greater(x, scalar_like(b, lambd, x)), b.Subtract(x, bias), scalar_like(b, 0.0, x))
    return [b.Select(b.Less(x, scalar_like(b, -lambd, x)), b.Add(x, bias), upper)]


@translator("onnx", "Swish")
def swish(node: Node, b: OpBuilder) -> list[Port]:
    x = _input(node)
    return [b.Swish(x, _attr(b, node, "alpha", 1.0, x))]


@translator("onnx", "Clip")
def clip(node: Node, b: OpBuilder) -> list[Port]:
    """Clamp when both bounds are known constants with min <= max, else Maximum/Minimum with the
    bounds given (inputs from opset 11, attributes before); min > max gives max everywhere, as
    ONNX says."""
    x = _input(node)
    bounds = []                                  # (constant value or None, source port or None)
    for idx, name in ((1, "min"), (2, "max")):
        if node.is_in_port_connected(idx):
            src = node.in_port(idx).get_source()
            bounds.append((src.data.get_value(), src))
        else:
            value = OnnxExtractor.attr(node, name)
            bounds.append((None if value is None else np.array(float(value)), None))
    (low, _), (high, _) = bounds
    if low is not None and high is not None and low.size == 1 and high.size == 1 and low <= high:
        return [b.Clamp(x, min=float(low), max=float(high))]
    for (value, src), op in zip(bounds, ("Maximum", "Minimum")):
        if src is not None or value is not None:
            x = b.op(op, x, src if src is not None else scalar_like(b, float(value), x))
    return [x]
