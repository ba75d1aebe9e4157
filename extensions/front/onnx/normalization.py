"""Front lowering of ONNX LRN, LpNormalization and MeanVarianceNormalization, whose axes become
constant inputs of the opset op."""
from __future__ import annotations

import numpy as np

from mo.graph.builder import OpBuilder
from mo.graph.building import scalar_like
from mo.pipeline.transform import ReplaceOp


class LRNToOpset(ReplaceOp):
    """LRN -> LRN over axis 1 (the channels)."""

    op = "onnx::LRN"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        attrs = {k: node[k] for k in ("alpha", "beta", "bias", "size")}
        return [b.LRN(node.in_port(0).get_source(), np.array([1], np.int64), name=node.name, **attrs)]


# Smallest normal f32: the norm floor that makes a zero vector normalize to zeros, as ONNX has it.
TINY = float(np.finfo(np.float32).tiny)


class LpNormalizationToOpset(ReplaceOp):
    """p=2 -> NormalizeL2, p=1 -> x / ReduceL1(x); a zero norm gives zeros (ONNX: 0/0 = 0)."""

    op = "onnx::LpNormalization"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        x = node.in_port(0).get_source()
        axes = np.array([node.axis], np.int64)
        if node.p == 2:
            return [b.NormalizeL2(x, axes, eps=TINY, eps_mode="max", name=node.name)]
        norm = b.Maximum(b.ReduceL1(x, axes, keep_dims=True), scalar_like(b, TINY, x))
        return [b.Divide(x, norm, name=node.name)]


class MeanVarianceNormalizationToOpset(ReplaceOp):
    """MeanVarianceNormalization -> MVN with epsilon 1e-9 outside the square root."""

    op = "onnx::MeanVarianceNormalization"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        return [b.MVN(node.in_port(0).get_source(), np.array(node.axes, np.int64), eps=1e-9,
                      normalize_variance=True, eps_mode="outside_sqrt", name=node.name)]
