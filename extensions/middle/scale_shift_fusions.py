"""BatchNorm and scale-shift folding into the preceding Convolution / MatMul weights.

1. BatchNormInference with constant statistics -> Multiply + Add (per channel, axis 1).
2. Convolution/GroupConvolution/MatMul with constant weights followed by Multiply by a constant
   per output channel (or scalar), possibly through a bias Add: the factor goes into the weights
   (and the bias).
3. Two consecutive Adds of constants collapse into one.
"""
from __future__ import annotations

import numpy as np

from extensions.middle.constant_folding import ConstantFolding
from mo.graph.builder import OpBuilder
from mo.graph.node import Node
from mo.graph.port import Port
from mo.pipeline.transform import Transform
from mo.utils.shape import broadcast_shapes
from mo.utils.types import is_int


class BatchNormToScaleShift(Transform):
    """BatchNormInference(x, gamma, beta, mean, var) with constant parameters -> x * s + t with
    s = gamma / sqrt(var + eps), t = beta - mean * s, broadcast along axis 1."""

    phase = "middle"

    def run_after(self):
        return [ConstantFolding]

    def find_and_replace_pattern(self, graph) -> None:
        for bn in graph.nodes_by_op("BatchNormInference"):
            rank = bn.in_port(0).data.get_rank()
            params = [bn.in_value(i) for i in range(1, 5)]
            if rank is None or rank < 2 or any(p is None for p in params):
                continue
            gamma, beta, mean, var = (p.astype(np.float64) for p in params)
            scale = gamma / np.sqrt(var + bn.epsilon)
            shift = beta - mean * scale
            dtype = bn.in_port(0).data.get_dtype()
            np_type = np.float16 if dtype == "f16" else np.float64 if dtype == "f64" else np.float32
            shape = (-1,) + (1,) * (rank - 2)
            b = OpBuilder(graph, bn.name)
            mul = b.Multiply(bn.in_port(0).get_source(), scale.astype(np_type).reshape(shape))
            add = b.Add(mul, shift.astype(np_type).reshape(shape), name=bn.name)
            bn.out_port(0).get_connection().set_source(add)
            graph.remove_node(bn.id)


def _sole_consumer(port: Port) -> Node | None:
    dests = port.get_destinations()
    return dests[0].node if len(dests) == 1 else None


def _channel_factor(value: np.ndarray, out_rank: int, channels: int, channel_axis: int) -> np.ndarray | None:
    """The per-channel factor [channels] a constant applies, or None if it is not per channel."""
    if value.size == 1:
        return np.full(channels, float(value.reshape(-1)[0]))
    if value.ndim > out_rank:
        return None
    full = (1,) * (out_rank - value.ndim) + value.shape
    if full[channel_axis] != channels or any(d != 1 for i, d in enumerate(full) if i != channel_axis):
        return None
    return value.reshape(-1)


def dequantized_weights(port: Port) -> Node | None:
    """The step Const of integer weights being dequantized, ``Multiply(Convert(integer Const), step)``
    (the convert not folded), or None: a factor folds into the step, the integers stay."""
    node = port.node
    if node.op != "Multiply":
        return None
    convert, step = node.in_port(0).get_source().node, node.in_port(1).get_source().node
    if convert.op != "Convert" or convert.get("foldable", True) or step.op != "Const":
        return None
    stored = convert.in_port(0).get_source()
    return step if stored.node.op == "Const" and is_int(stored.data.get_dtype()) else None


def _weights(node: Node):
    """(weights Const node, output-channel axis of the weights, channel axis of the output); for
    dequantized integer weights, their step Const (then shaped like the weights' output channels)."""
    src = node.in_port(1).get_source()
    if src is None:
        return None
    step = dequantized_weights(src) if node.op in ("Convolution", "MatMul") else None
    if src.node.op != "Const" and step is None:
        return None
    w_shape = src.data.get_shape() if step is not None else src.node.value.shape
    held = src.node if step is None else step
    if node.op == "Convolution":
        return held, 0, 1
    if node.op == "GroupConvolution":
        return held, None, 1
    if node.op == "MatMul" and len(w_shape) == 2:
        return held, (0 if node.transpose_b else 1), -1
    return None


def _scaled_step(step: np.ndarray, w_rank: int, w_axis: int, factor: np.ndarray) -> np.ndarray | None:
    """The step of dequantized weights times the per-output-channel factor, shaped to broadcast
    along the weights' output-channel axis; None when the step varies along another axis."""
    shape = [1] * w_rank
    shape[w_axis] = factor.size
    full = (1,) * (w_rank - step.ndim) + step.shape
    if any(d != 1 for i, d in enumerate(full) if i != w_axis):
        return None
    return (step.reshape(full) * factor.reshape(shape)).astype(step.dtype)


def _scaled_weights(node: Node, weights: Node, w_axis, factor: np.ndarray) -> np.ndarray:
    """Weights times the per-output-channel factor, computed in the weights' own type (one
    rounding, as the runtime would do; no float64 copy of large weights)."""
    w = weights.value
    factor = factor.astype(w.dtype)
    if node.op == "GroupConvolution":   # [G, C_out/G, C_in/G, k...]
        g, per = w.shape[0], w.shape[1]
        shape = (g, per) + (1,) * (w.ndim - 2)
    else:
        shape = [1] * w.ndim
        shape[w_axis] = -1
    # C order: weights that were a transposed view come out ready to be written
    return np.multiply(w, factor.reshape(shape), order="C")


class FuseMultiplyIntoWeights(Transform):
    """Conv/MatMul(x, W) [-> Add(bias)] -> Multiply(c) (or Divide by c) becomes Conv/MatMul(x, W*c)
    [-> Add(bias*c)]; integer weights keep their integers, their step takes the factor."""

    phase = "middle"

    def run_after(self):
        return [BatchNormToScaleShift]

    def find_and_replace_pattern(self, graph) -> None:
        # Consts left dead by folding still hold the weights they were read from (views of a
        # memory-mapped checkpoint): drop them before new weights are computed, so that each old
        # weights tensor is let go as soon as its scaled copy replaces it (peak memory).
        graph.remove_dead_nodes(keep=[p.id for p in graph.nodes_by_op("Parameter")])
        for op in ("Convolution", "GroupConvolution", "MatMul"):
            for node in graph.nodes_by_op(op):
                while node.id in graph and self._fuse_once(graph, node):
                    pass

    def _fuse_once(self, graph, node: Node) -> bool:
        found = _weights(node)
        out_shape = node.out_port(0).data.get_shape()
        if found is None or out_shape is None or node.out_port(0).data.get_dtype() not in ("f32", "f16", "f64"):
            return False
        weights, w_axis, c_axis = found
        channels = out_shape[c_axis]
        if channels < 0:
            return False
        rank = len(out_shape)
        bias_add = None
        nxt = _sole_consumer(node.out_port(0))
        if nxt is not None and nxt.op == "Add":
            _merge_following_add(graph, nxt)
        if nxt is not None and nxt.op == "Add":
            bias_add = nxt
            nxt = _sole_consumer(nxt.out_port(0))
        if nxt is None or nxt.op not in ("Multiply", "Divide"):
            return False
        came_from = bias_add if bias_add is not None else node
        other = 1 if nxt.in_port(0).get_source().node == came_from else 0
        factor_value = nxt.in_value(other)
        if nxt.op == "Divide":
            if other != 1 or factor_value is None or not np.all(factor_value):
                return False
            factor_value = (1 / factor_value.astype(np.float64)).astype(factor_value.dtype)
        if factor_value is None or nxt.out_port(0).data.get_shape() != (
                bias_add.out_port(0).data.get_shape() if bias_add is not None else tuple(out_shape)):
            return False
        factor = _channel_factor(factor_value, rank, channels, c_axis % rank)
        if factor is None:
            return False
        bias_value = None
        if bias_add is not None:
            b_other = 1 if bias_add.in_port(0).get_source().node == node else 0
            bias_value = bias_add.in_value(b_other)
            if bias_value is None or _channel_factor(bias_value, rank, channels, c_axis % rank) is None:
                return False
        b = OpBuilder(graph, node.name)
        dtype = weights.value.dtype
        w_port = node.in_port(1).get_source()
        if w_port.node.op == "Const":
            new_w = b.const(_scaled_weights(node, weights, w_axis, factor).astype(dtype), name=weights.name)
            new_w.connect(node.in_port(1))
        else:           # dequantized integer weights: the factor goes into their step
            step = _scaled_step(np.asarray(weights.value), len(w_port.data.get_shape()), w_axis, factor)
            if step is None or not _sole_consumer(w_port) == node or not _sole_consumer(weights.out_port(0)):
                return False
            b.const(step, name=weights.name).connect(w_port.node.in_port(1))
            w_port.drop_names()             # the dequantized weights are scaled now
        if not weights.out_port(0).get_destinations():
            graph.remove_node(weights.id)   # let go of the old weights now (a view of a mapped file)
        if bias_add is not None:
            target = [1] * rank
            target[c_axis % rank] = channels
            full_bias = np.broadcast_to(bias_value.reshape((1,) * (rank - bias_value.ndim) + bias_value.shape), target)
            scaled_bias = (full_bias.astype(np.float64) * factor.reshape(target)).astype(bias_value.dtype)
            b.const(scaled_bias, name=f"{bias_add.name}/bias").connect(bias_add.in_port(b_other))
            tail = bias_add.out_port(0)
        else:
            tail = node.out_port(0)
        node.out_port(0).drop_names()      # the tensors they named were not scaled: gone now
        tail.drop_names()
        nxt.out_port(0).get_connection().set_source(tail)
        graph.remove_node(nxt.id)
        return True


def _merge_following_add(graph, first: Node) -> None:
    """If ``first`` (an Add of a constant) feeds only another Add of a constant, merge them."""
    MergeConstantAdds().merge(graph, _sole_consumer(first.out_port(0)))


class MergeConstantAdds(Transform):
    """Add(Add(x, c1), c2) -> Add(x, c1 + c2) when the inner Add feeds only the outer one and the
    merged constant does not change the output shape."""

    phase = "middle"

    def run_after(self):
        return [FuseMultiplyIntoWeights]

    def find_and_replace_pattern(self, graph) -> None:
        for outer in graph.nodes_by_op("Add"):
            self.merge(graph, outer)

    def merge(self, graph, outer: Node | None) -> None:
        """Merge ``outer`` into the Add feeding it, when both add constants."""
        if outer is None or outer.id not in graph or outer.op != "Add":
            return
        for i in (0, 1):
            inner_port = outer.in_port(i).get_source()
            c2 = outer.in_value(1 - i)
            inner = inner_port.node
            if inner.op != "Add" or c2 is None or _sole_consumer(inner_port) != outer:
                continue
            j = 1 if inner.in_value(1) is not None else 0 if inner.in_value(0) is not None else None
            if j is None or inner.in_port(1 - j).data.get_value() is not None:
                continue
            c1 = inner.in_value(j)
            try:
                merged = (c1 + c2).astype(c1.dtype)
            except ValueError:
                continue
            x_shape = inner.in_port(1 - j).data.get_shape()
            if x_shape is None or broadcast_shapes(x_shape, merged.shape) != outer.out_port(0).data.get_shape():
                continue
            OpBuilder(graph, inner.name).const(merged, name=f"{inner.name}/merged").connect(inner.in_port(j))
            inner_port.drop_names()         # x + c1 is gone: the names of x + c1 + c2 take its place
            outer.out_port(0).get_connection().set_source(inner_port)
            graph.remove_node(outer.id)
            break
