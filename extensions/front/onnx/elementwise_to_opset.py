"""Lowering of onnx::Elementwise (ONNX activations and variadic ops without a one-to-one opset op).

Scalars from attributes take the input's element type through ``scalar_like``."""
from __future__ import annotations

import numpy as np

from mo.graph.builder import OpBuilder
from mo.graph.building import scalar_like
from mo.pipeline.transform import ReplaceOp

_VARIADIC = {"Max": "Maximum", "Min": "Minimum", "Sum": "Add", "Mean": "Add"}


def _reciprocal(b, x, node):
    return b.Divide(scalar_like(b, 1.0, x), x)


def _leaky_relu(b, x, node):
    return b.PRelu(x, scalar_like(b, node.alpha, x))


def _thresholded_relu(b, x, node):
    return b.Select(b.Greater(x, scalar_like(b, node.alpha, x)), x, scalar_like(b, 0.0, x))


def _selu(b, x, node):
    return b.Selu(x, scalar_like(b, node.alpha, x), scalar_like(b, node.gamma, x))


def _celu(b, x, node):
    """alpha * elu(x / alpha)."""
    alpha = scalar_like(b, node.alpha, x)
    return b.Multiply(b.Elu(b.Divide(x, alpha), alpha=1.0), alpha)


def _hard_sigmoid(b, x, node):
    return b.HardSigmoid(x, scalar_like(b, node.alpha, x), scalar_like(b, node.beta, x))


def _shrink(b, x, node):
    """x + bias below -lambd, x - bias above lambd, 0 between."""
    bias = scalar_like(b, node.bias, x)
    upper = b.Select(b.Greater(x, scalar_like(b, node.lambd, x)), b.Subtract(x, bias), scalar_like(b, 0.0, x))
    return b.Select(b.Less(x, scalar_like(b, -node.lambd, x)), b.Add(x, bias), upper)


def _swish(b, x, node):
    return b.Swish(x, scalar_like(b, node.alpha, x))


def _binarizer(b, x, node):
    return b.ConvertLike(b.Greater(x, scalar_like(b, node.threshold, x)), x)


def _clip(b, x, node):
    """Clamp when both bounds are known constants with min <= max, else Maximum/Minimum with the
    bounds given; min > max gives max everywhere, as ONNX says."""
    bounds = []                                  # (constant value or None, source port or None)
    for idx, attr in ((1, "min"), (2, "max")):
        if node.is_in_port_connected(idx):
            src = node.in_port(idx).get_source()
            bounds.append((src.data.get_value(), src))
        else:
            bounds.append((None if node.get(attr) is None else np.array(node[attr]), None))
    (low, _), (high, _) = bounds
    if low is not None and high is not None and low.size == 1 and high.size == 1 and low <= high:
        return b.Clamp(x, min=float(low), max=float(high))
    for (value, src), op in zip(bounds, ("Maximum", "Minimum")):
        if src is not None or value is not None:
            x = b.op(op, x, src if src is not None else scalar_like(b, float(value), x))
    return x


LOWERINGS = {
    "Reciprocal": _reciprocal, "LeakyRelu": _leaky_relu, "ThresholdedRelu": _thresholded_relu, "Selu": _selu,
    "Celu": _celu, "HardSigmoid": _hard_sigmoid, "Shrink": _shrink, "Swish": _swish, "Binarizer": _binarizer,
    "Clip": _clip,
}


class ElementwiseToOpset(ReplaceOp):
    op = "onnx::Elementwise"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        if node.variant in _VARIADIC:
            return [self.variadic(b, node)]
        result = LOWERINGS[node.variant](b, node.in_port(0).get_source(), node)
        result.node["name"] = node.name
        return [result]

    @staticmethod
    def variadic(b: OpBuilder, node):
        """Max/Min/Sum/Mean of any number of inputs with broadcasting; one input is Identity."""
        inputs = [node.in_port(i).get_source() for i in sorted(node.in_ports())]
        result = inputs[0]
        for other in inputs[1:]:
            result = b.op(_VARIADIC[node.variant], result, other)
        if node.variant == "Mean" and len(inputs) > 1:
            result = b.Divide(result, scalar_like(b, float(len(inputs)), inputs[0]))
        if len(inputs) == 1:
            result = b.Identity(result)
        result.node["name"] = node.name
        return result
