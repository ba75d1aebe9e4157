"""MatMul over an empty inner dimension, as the zeros it is (a sum of no terms).

OpenVINO's CPU plugin refuses to compile a MatMul whose inner dimension is statically 0 ("object is
not initialized"; OpenVINO's own converters write the MatMul as it is and their IRs do not compile
either), and where the dim is dynamic it has left the product uninitialised. Products over empty
dims come from models that slice a tensor down to nothing (an empty prompt, a model cut where a
feature dimension is 0, PyTorch's OpInfo samples)."""
from __future__ import annotations

import numpy as np

from mo.graph.builder import OpBuilder
from mo.graph.building import INT64_MAX, dims_slice, i64, shape_of, typed_const
from mo.pipeline.transform import Transform


def _inner_dim_is_zero(node) -> bool:
    """Whether either operand's contracted dim is statically 0 (1-D operands contract their only dim)."""
    for idx, transposed_axis in ((0, -2), (1, -1)):
        shape = node.in_port(idx).data.get_shape()
        if shape is None or len(shape) == 0:
            continue
        transposed = node.get("transpose_a" if idx == 0 else "transpose_b", False)
        axis = 0 if len(shape) == 1 else transposed_axis if transposed else (-1 if idx == 0 else -2)
        if shape[axis] == 0:
            return True
    return False


class EmptyInnerDimMatMul(Transform):
    """MatMul(a, b) whose inner dim is statically 0 -> zeros of the product's shape and type: a
    Broadcast of a constant 0 to the product's shape when it is static, else to the shape computed
    from the operands' shapes (a's batch dims and rows, bidirectionally broadcast against b's batch
    dims and columns), as numpy's matmul rules give it."""

    phase = "middle"
    ops = ("MatMul",)

    def graph_condition(self, graph) -> bool:
        return graph.has_op("MatMul")

    def find_and_replace_pattern(self, graph) -> None:
        for node in list(graph.nodes_by_op("MatMul")):
            if _inner_dim_is_zero(node) and node.out_port(0).data.get_dtype() is not None:
                self._replace(graph, node)

    @staticmethod
    def _replace(graph, node) -> None:
        b = OpBuilder(graph, node.name)
        out = node.out_port(0)
        zero = typed_const(b, 0, out.data.get_dtype())
        shape = out.data.get_shape()
        if shape is not None and all(d >= 0 for d in shape):
            zeros = b.Broadcast(zero, i64(*shape))
        else:
            ranks = [len(node.in_port(i).data.get_shape()) for i in (0, 1)]
            zeros = b.Broadcast(b.Broadcast(zero, _operand_shape(b, node, 0, ranks)),
                                _operand_shape(b, node, 1, ranks), mode="bidirectional")
        out.get_connection().set_source(zeros)
        graph.remove_node(node.id)


def _operand_shape(b: OpBuilder, node, idx: int, ranks: list[int]):
    """The shape operand ``idx`` contributes to the product: a's batch dims, rows and a 1 for the
    columns (b: batch dims, a 1 for the rows, columns); a 1-D operand contributes nothing (its
    dim is contracted away), and the other one then no 1 for it."""
    port = node.in_port(idx).get_source()
    if ranks[idx] == 1:
        return i64()
    transposed = node.get("transpose_a" if idx == 0 else "transpose_b", False)
    kept = -1 if transposed == (idx == 0) else -2      # the rows of a, the columns of b
    shape = shape_of(b, port)
    batch = dims_slice(b, shape, 0, -2)
    own = dims_slice(b, shape, kept, kept + 1 if kept == -2 else INT64_MAX)
    if ranks[1 - idx] == 1:
        return b.Concat(batch, own, axis=0)
    one = np.array([1], np.int64)
    return b.Concat(batch, own, one, axis=0) if idx == 0 else b.Concat(batch, one, own, axis=0)
