"""ONNX neural-network operators kept as extracted until a transform lowers them to opset ops.

``OnnxMiddleOp`` ones wait for the middle phase, because the lowering needs the input rank or
shape; each infers the exact output shapes, so the graph downstream of it is right before the
lowering. ``FrontOnlyOp`` ones are lowered in the front phase."""
from __future__ import annotations

from mo.ops.internal import FrontOnlyOp
from mo.ops.op import Op
from mo.utils.shape import normalize_axis


class OnnxMiddleOp(Op):
    """Base: internal op (no IR type) whose outputs default to the shape of input 0."""

    abstract = True
    type = None


class OnnxLayerNorm(OnnxMiddleOp):
    """LayerNormalization (``axis``, ``epsilon``, ``stash_type``): Y, Mean, InvStdDev; the
    statistics keep the dims before ``axis`` and have 1 from there on."""

    op = "onnx::LayerNormalization"
    num_outputs = 3

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.in_dtype(0))
        for i in (1, 2):
            node.out_port(i).data.set_dtype(node.get("stash_dtype") or node.in_dtype(0))

    @classmethod
    def infer_shapes(cls, node):
        x = node.in_shape(0)
        if x is None:
            return [None] * 3
        axis = normalize_axis(node.axis, len(x))
        stats = tuple(x[:axis]) + (1,) * (len(x) - axis)
        return [x, stats, stats]


class OnnxRMSNorm(OnnxMiddleOp):
    """RMSNormalization (``axis``, ``epsilon``, ``stash_type``)."""

    op = "onnx::RMSNormalization"


class OnnxInstanceNorm(OnnxMiddleOp):
    """InstanceNormalization (``epsilon``): x, scale [C], bias [C]."""

    op = "onnx::InstanceNormalization"


class OnnxGroupNormPerGroup(OnnxMiddleOp):
    """GroupNormalization of opset 18, whose scale and bias have one value per group."""

    op = "onnx::GroupNormalizationPerGroup"


class OnnxBatchNormTraining(OnnxMiddleOp):
    """BatchNormalization with ``training_mode``: Y from the batch statistics, and the running
    mean and variance updated with ``momentum``."""

    op = "onnx::BatchNormalizationTraining"
    num_outputs = 3

    @classmethod
    def infer_shapes(cls, node):
        return [node.in_shape(0), node.in_shape(3), node.in_shape(4)]


class OnnxLRN(FrontOnlyOp):
    """LRN across channels (``alpha``, ``beta``, ``bias``, ``size``)."""

    op = "onnx::LRN"


class OnnxLpNormalization(FrontOnlyOp):
    """LpNormalization along ``axis`` with ``p`` 1 or 2."""

    op = "onnx::LpNormalization"


class OnnxMeanVarianceNormalization(FrontOnlyOp):
    """MeanVarianceNormalization over ``axes`` (epsilon 1e-9 added to the standard deviation)."""

    op = "onnx::MeanVarianceNormalization"
