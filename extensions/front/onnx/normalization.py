"""ONNX normalizations: BatchNormalization, GroupNormalization, InstanceNormalization, LRN,
LayerNormalization, LpNormalization, MeanVarianceNormalization, RMSNormalization.

Extractors read and check the attributes; translators build the opset ops, with the axes that
depend on the input rank."""
from __future__ import annotations

import numpy as np

from extensions.load.onnx.attributes import OnnxExtractor
from extensions.load.onnx.tensors import ONNX_TO_ET
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.building import (
    channel_bias,
    convert,
    dim,
    i64,
    input_rank,
    int_list_port,
    norm_axis,
    scalar_like,
    typed_const,
)
from mo.graph.node import Node
from mo.graph.port import Port

# Smallest normal f32: the norm floor that makes a zero vector normalize to zeros, as ONNX has it.
TINY = float(np.finfo(np.float32).tiny)


class BatchNormalizationExtractor(OnnxExtractor):
    """``epsilon``; ``training_mode`` (opset 14+) uses batch statistics and updates the running
    ones with ``momentum``."""

    op_types = ("BatchNormalization",)

    @classmethod
    def extract(cls, node):
        if int(cls.attr(node, "spatial", 1)) == 0:
            raise ValueError("BatchNormalization with spatial=0 (per-element statistics) is not supported")
        node.update({"epsilon": float(cls.attr(node, "epsilon", 1e-5)),
                     "training_mode": bool(cls.attr(node, "training_mode", 0)),
                     "momentum": float(cls.attr(node, "momentum", 0.9))})


class StashedNormalizationExtractor(OnnxExtractor):
    """LayerNormalization / RMSNormalization: ``axis``, ``epsilon`` and the computation type
    ``stash_dtype`` of 16-bit inputs."""

    op_types = ("LayerNormalization", "RMSNormalization")

    @classmethod
    def extract(cls, node):
        node.update({"axis": int(cls.attr(node, "axis", -1)), "epsilon": float(cls.attr(node, "epsilon", 1e-5)),
                     "stash_dtype": ONNX_TO_ET.get(int(cls.attr(node, "stash_type", 1)), "f32")})


class GroupNormalizationExtractor(OnnxExtractor):
    op_types = ("GroupNormalization",)

    @classmethod
    def extract(cls, node):
        node.update({"num_groups": int(cls.attr(node, "num_groups")),
                     "epsilon": float(cls.attr(node, "epsilon", 1e-5))})


class LRNExtractor(OnnxExtractor):
    op_types = ("LRN",)

    @classmethod
    def extract(cls, node):
        node.update({"alpha": float(cls.attr(node, "alpha", 1e-4)), "beta": float(cls.attr(node, "beta", 0.75)),
                     "bias": float(cls.attr(node, "bias", 1.0)), "size": int(cls.attr(node, "size"))})


class LpNormalizationExtractor(OnnxExtractor):
    op_types = ("LpNormalization",)

    @classmethod
    def extract(cls, node):
        p = int(cls.attr(node, "p", 2))
        if p not in (1, 2):
            raise ValueError(f"LpNormalization with p={p}: only 1 and 2 are defined")
        node.update({"p": p, "axis": int(cls.attr(node, "axis", -1))})


def _per_channel(b: OpBuilder, node: Node, idx: int, rank: int) -> Port:
    """Input ``idx`` [C] of ``node`` as [C, 1, ...] broadcasting over [N, C, spatial...]."""
    return channel_bias(b, node.in_port(idx).get_source(), rank - 2)


def _centered_statistics(b: OpBuilder, x: Port, axes: np.ndarray) -> tuple[Port, Port, Port]:
    """(mean, x - mean, population variance) of x over ``axes``, dims kept."""
    mean = b.ReduceMean(x, axes, keep_dims=True)
    centered = b.Subtract(x, mean)
    return mean, centered, b.ReduceMean(b.Multiply(centered, centered), axes, keep_dims=True)


@translator("onnx", "BatchNormalization")
def batch_normalization(node: Node, b: OpBuilder) -> list[Port | None]:
    """Inference form -> BatchNormInference. Training mode: Y normalized with the batch mean and
    (population) variance over all axes but 1; running statistics = input statistics * momentum
    + batch statistics * (1 - momentum)."""
    x = node.in_port(0).get_source()
    params = [node.in_port(i).get_source() for i in range(1, 5)]
    if not node.training_mode:
        return [b.BatchNormInference(x, *params, epsilon=node.epsilon)]
    rank = input_rank(node)
    dtype = x.data.get_dtype()
    mean, centered, variance = _centered_statistics(b, x, i64(0, *range(2, rank)))
    normalized = b.Divide(centered, b.Sqrt(b.Add(variance, typed_const(b, node.epsilon, dtype))))
    scaled = b.Multiply(normalized, _per_channel(b, node, 1, rank))
    y = b.Add(scaled, _per_channel(b, node, 2, rank), name=node.name)

    def running(stat: Port, batch_stat: Port) -> Port:
        kept = b.Multiply(stat, typed_const(b, node.momentum, dtype))
        new = b.Multiply(b.Reshape(batch_stat, i64(-1), special_zero=False), typed_const(b, 1 - node.momentum, dtype))
        return b.Add(kept, new)

    return [y, running(params[2], mean), running(params[3], variance)]


def _stashed(b: OpBuilder, node: Node) -> tuple[np.ndarray, Port, Port]:
    """(axes ``axis``..rank-1, the input's source, the input in the computation type: f16/bf16
    inputs are computed in ``stash_dtype``) of LayerNormalization / RMSNormalization."""
    rank = input_rank(node)
    source = node.in_port(0).get_source()
    x = source
    if source.data.get_dtype() in ("f16", "bf16") and node.stash_dtype != source.data.get_dtype():
        x = b.Convert(source, destination_type=node.stash_dtype)
    return np.arange(norm_axis(node.axis, rank, node), rank, dtype=np.int64), source, x


def _restored(b: OpBuilder, y: Port, source: Port, name: str) -> Port:
    """``y`` (a new node) converted back to the element type of ``source`` if it was computed in
    another, named ``name``."""
    if y.data.get_dtype() != source.data.get_dtype():
        return b.Convert(y, destination_type=source.data.get_dtype(), name=name)
    y.node["name"] = name
    return y


def _like(b: OpBuilder, node: Node, idx: int, x: Port) -> Port:
    """Input ``idx`` of ``node`` in the element type of ``x``."""
    return convert(b, node.in_port(idx).get_source(), x.data.get_dtype())


@translator("onnx", "LayerNormalization")
def layer_normalization(node: Node, b: OpBuilder) -> list[Port | None]:
    """Y = MVN(x over axis..rank-1) * scale + bias; when Mean or InvStdDev are used,
    Y = (x - mean) * inv_std_dev * scale + bias with both computed by reductions."""
    axes, source, x = _stashed(b, node)
    dtype = x.data.get_dtype()
    mean = inv = None
    if node.out_port(1).is_connected() or node.out_port(2).is_connected():
        mean, centered, variance = _centered_statistics(b, x, axes)
        inv = b.Divide(typed_const(b, 1, dtype), b.Sqrt(b.Add(variance, typed_const(b, node.epsilon, dtype))))
        normalized = b.Multiply(centered, inv)
    else:
        normalized = b.MVN(x, axes, eps=node.epsilon, normalize_variance=True, eps_mode="inside_sqrt")
    y = b.Multiply(normalized, _like(b, node, 1, x))
    if node.is_in_port_connected(2):
        y = b.Add(y, _like(b, node, 2, x))
    return [_restored(b, y, source, node.name), mean, inv]


@translator("onnx", "RMSNormalization")
def rms_normalization(node: Node, b: OpBuilder) -> list[Port]:
    """Y = x / sqrt(mean(x^2 over axis..rank-1) + epsilon) * scale."""
    axes, source, x = _stashed(b, node)
    mean_square = b.ReduceMean(b.Multiply(x, x), axes, keep_dims=True)
    rms = b.Sqrt(b.Add(mean_square, typed_const(b, node.epsilon, x.data.get_dtype())))
    return [_restored(b, b.Multiply(b.Divide(x, rms), _like(b, node, 1, x)), source, node.name)]


@translator("onnx", "InstanceNormalization")
def instance_normalization(node: Node, b: OpBuilder) -> list[Port]:
    """Y = MVN(x over the spatial axes) * scale[C] + bias[C]."""
    rank = input_rank(node)
    epsilon = float(OnnxExtractor.attr(node, "epsilon", 1e-5))
    normalized = b.MVN(node.in_port(0).get_source(), np.arange(2, rank, dtype=np.int64), eps=epsilon,
                       normalize_variance=True, eps_mode="inside_sqrt")
    return [b.Add(b.Multiply(normalized, _per_channel(b, node, 1, rank)), _per_channel(b, node, 2, rank))]


@translator("onnx", "GroupNormalization")
def group_normalization(node: Node, b: OpBuilder) -> list[Port]:
    """GroupNormalization; scale and bias are per channel from opset 21, per group before (each
    value is then repeated for the channels of its group)."""
    x = node.in_port(0).get_source()
    scale, bias = node.in_port(1).get_source(), node.in_port(2).get_source()
    groups = node.num_groups
    if node.opset < 21:
        repeat = int_list_port(b, [1, b.Divide(dim(b, x, 1), np.int64(groups))])

        def expand(port: Port) -> Port:
            per_group = b.Reshape(port, i64(groups, 1), special_zero=False)
            return b.Reshape(b.Tile(per_group, repeat), i64(-1), special_zero=False)

        scale, bias = expand(scale), expand(bias)
    return [b.GroupNormalization(x, scale, bias, num_groups=groups, epsilon=node.epsilon)]


@translator("onnx", "LRN")
def lrn(node: Node, b: OpBuilder) -> list[Port]:
    """LRN over axis 1 (the channels)."""
    attrs = {k: node[k] for k in ("alpha", "beta", "bias", "size")}
    return [b.LRN(node.in_port(0).get_source(), i64(1), **attrs)]


@translator("onnx", "LpNormalization")
def lp_normalization(node: Node, b: OpBuilder) -> list[Port]:
    """p=2 -> NormalizeL2, p=1 -> x / ReduceL1(x); a zero norm gives zeros (ONNX: 0/0 = 0)."""
    x = node.in_port(0).get_source()
    axes = i64(node.axis)
    if node.p == 2:
        return [b.NormalizeL2(x, axes, eps=TINY, eps_mode="max")]
    return [b.Divide(x, b.Maximum(b.ReduceL1(x, axes, keep_dims=True), scalar_like(b, TINY, x)))]


@translator("onnx", "MeanVarianceNormalization")
def mean_variance_normalization(node: Node, b: OpBuilder) -> list[Port]:
    """MVN over ``axes`` (default [0, 2, 3]) with epsilon 1e-9 outside the square root."""
    axes = np.array(OnnxExtractor.ints(node, "axes", [0, 2, 3]), np.int64)
    return [b.MVN(node.in_port(0).get_source(), axes, eps=1e-9, normalize_variance=True, eps_mode="outside_sqrt")]
