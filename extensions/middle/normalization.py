"""Middle lowering of the ONNX normalizations whose axes depend on the input rank:
LayerNormalization, RMSNormalization, InstanceNormalization, GroupNormalization (opset 18) and
BatchNormalization in training mode."""
from __future__ import annotations

import numpy as np

from extensions.middle.lowering import MiddleReplaceOp
from mo.graph.builder import OpBuilder
from mo.graph.building import input_rank, typed_const
from mo.graph.port import Port
from mo.utils.shape import normalize_axis


def stashed(b: OpBuilder, node, x) -> tuple[Port, str]:
    """(input in the computation type, that type): f16/bf16 inputs are computed in ``stash_dtype``."""
    dtype = x.data.get_dtype()
    stash = node.get("stash_dtype")
    if dtype in ("f16", "bf16") and stash and stash != dtype:
        return b.Convert(x, destination_type=stash), stash
    return x, dtype


def same_type(b: OpBuilder, port, like) -> Port:
    """The source of input ``port`` converted to the element type of ``like`` when they differ."""
    source = port.get_source()
    if source.data.get_dtype() == like.data.get_dtype():
        return source
    return b.Convert(source, destination_type=like.data.get_dtype())


def restore(b: OpBuilder, y, dtype: str, name: str) -> Port:
    """``y`` converted back to ``dtype`` if it was computed in another type."""
    if y.data.get_dtype() != dtype:
        return b.Convert(y, destination_type=dtype, name=name)
    return y


def trailing_axes_input(b: OpBuilder, node) -> tuple[np.ndarray, Port, Port, str]:
    """(axes ``axis``..rank-1, the input's source, the input in the computation type, that type)
    of LayerNormalization / RMSNormalization."""
    rank = input_rank(node)
    source = node.in_port(0).get_source()
    x, dtype = stashed(b, node, source)
    return np.arange(normalize_axis(node.axis, rank), rank, dtype=np.int64), source, x, dtype


class LayerNormToOpset(MiddleReplaceOp):
    """Y = MVN(x over axis..rank-1) * scale + bias; when Mean or InvStdDev are used,
    Y = (x - mean) * inv_std_dev * scale + bias with both computed by reductions."""

    op = "onnx::LayerNormalization"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        axes, source, x, dtype = trailing_axes_input(b, node)
        stats_used = node.out_port(1).is_connected() or node.out_port(2).is_connected()
        mean = inv = None
        if stats_used:
            mean = b.ReduceMean(x, axes, keep_dims=True)
            centered = b.Subtract(x, mean)
            variance = b.ReduceMean(b.Multiply(centered, centered), axes, keep_dims=True)
            std = b.Sqrt(b.Add(variance, typed_const(b, node.epsilon, dtype)))
            inv = b.Divide(typed_const(b, 1, dtype), std)
            normalized = b.Multiply(centered, inv)
        else:
            normalized = b.MVN(x, axes, eps=node.epsilon, normalize_variance=True, eps_mode="inside_sqrt")
        y = b.Multiply(normalized, same_type(b, node.in_port(1), x))
        if node.is_in_port_connected(2):
            y = b.Add(y, same_type(b, node.in_port(2), x))
        return [restore(b, y, source.data.get_dtype(), node.name), mean, inv]


class RMSNormToOpset(MiddleReplaceOp):
    """Y = x / sqrt(mean(x^2 over axis..rank-1) + epsilon) * scale."""

    op = "onnx::RMSNormalization"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        axes, source, x, dtype = trailing_axes_input(b, node)
        mean_square = b.ReduceMean(b.Multiply(x, x), axes, keep_dims=True)
        rms = b.Sqrt(b.Add(mean_square, typed_const(b, node.epsilon, dtype)))
        y = b.Multiply(b.Divide(x, rms), same_type(b, node.in_port(1), x))
        return [restore(b, y, source.data.get_dtype(), node.name)]


def per_channel(b: OpBuilder, vector, rank: int) -> Port:
    """[C] -> [C, 1, ...] broadcasting over [N, C, spatial...]."""
    return b.Unsqueeze(vector, np.arange(1, rank - 1, dtype=np.int64))


class InstanceNormToOpset(MiddleReplaceOp):
    """Y = MVN(x over the spatial axes) * scale[C] + bias[C]."""

    op = "onnx::InstanceNormalization"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        rank = input_rank(node)
        x = node.in_port(0).get_source()
        normalized = b.MVN(x, np.arange(2, rank, dtype=np.int64), eps=node.epsilon, normalize_variance=True,
                           eps_mode="inside_sqrt")
        scaled = b.Multiply(normalized, per_channel(b, node.in_port(1).get_source(), rank))
        return [b.Add(scaled, per_channel(b, node.in_port(2).get_source(), rank), name=node.name)]


class GroupNormPerGroupToOpset(MiddleReplaceOp):
    """GroupNormalization-18 -> GroupNormalization with scale and bias repeated per channel."""

    op = "onnx::GroupNormalizationPerGroup"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        shape = node.in_port(0).data.get_shape()
        channels = None if shape is None or len(shape) < 2 else shape[1]
        if channels is None or channels < 0:
            raise ValueError(f"GroupNormalization '{node.name}' (opset 18) needs a static channel count")
        groups = node.num_groups
        repeat = np.array([1, channels // groups], np.int64)

        def expand(port):
            per_group = b.Reshape(port.get_source(), np.array([groups, 1], np.int64), special_zero=False)
            return b.Reshape(b.Tile(per_group, repeat), np.array([channels], np.int64), special_zero=False)

        return [b.GroupNormalization(node.in_port(0).get_source(), expand(node.in_port(1)), expand(node.in_port(2)),
                                     num_groups=groups, epsilon=node.epsilon, name=node.name)]


class BatchNormTrainingToOpset(MiddleReplaceOp):
    """Y normalized with the batch mean and (population) variance over all axes but 1; running
    statistics = input statistics * momentum + batch statistics * (1 - momentum)."""

    op = "onnx::BatchNormalizationTraining"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        rank = input_rank(node)
        x = node.in_port(0).get_source()
        dtype = x.data.get_dtype()
        axes = np.array([0] + list(range(2, rank)), np.int64)
        mean = b.ReduceMean(x, axes, keep_dims=True)
        centered = b.Subtract(x, mean)
        variance = b.ReduceMean(b.Multiply(centered, centered), axes, keep_dims=True)
        normalized = b.Divide(centered, b.Sqrt(b.Add(variance, typed_const(b, node.epsilon, dtype))))
        scaled = b.Multiply(normalized, per_channel(b, node.in_port(1).get_source(), rank))
        y = b.Add(scaled, per_channel(b, node.in_port(2).get_source(), rank), name=node.name)
        flat = np.array([-1], np.int64)

        def running(port, batch_stat):
            kept = b.Multiply(port.get_source(), typed_const(b, node.momentum, dtype))
            new = b.Multiply(b.Reshape(batch_stat, flat, special_zero=False), typed_const(b, 1 - node.momentum, dtype))
            return b.Add(kept, new)

        return [y, running(node.in_port(3), mean), running(node.in_port(4), variance)]
