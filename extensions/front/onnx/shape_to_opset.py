"""Shape-agnostic lowering of ONNX Shape (start/end), Size, Flatten, ConstantOfShape, Range and
Dropout, and small helpers the other tensor-op lowerings share."""
from __future__ import annotations

import numpy as np

from mo.errors import GraphError
from mo.graph.builder import OpBuilder
from mo.graph.building import INT64_MAX, as_scalar, dims_slice, i64
from mo.pipeline.transform import ReplaceOp


class ShapeSliceToOpset(ReplaceOp):
    """Shape(start, end) -> Slice(ShapeOf(x), start, end); Slice clamps out-of-range bounds as
    ONNX does."""

    op = "onnx::Shape"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        shape = b.ShapeOf(node.in_port(0).get_source(), output_type="i64")
        end = node.get("end")
        return [b.Slice(shape, i64(node.start), i64(INT64_MAX if end is None else end), i64(1), i64(0),
                        name=node.name)]


class SizeToOpset(ReplaceOp):
    """Size -> ReduceProd(ShapeOf(x)) as an i64 scalar."""

    op = "onnx::Size"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        shape = b.ShapeOf(node.in_port(0).get_source(), output_type="i64")
        return [b.ReduceProd(shape, i64(0), keep_dims=False, name=node.name)]


class FlattenToReshape(ReplaceOp):
    """Flatten(axis) -> Reshape to [prod(dims[:axis]), prod(dims[axis:])]: [1, -1] for axis 0,
    [0, -1] (special zero) for axis 1, otherwise computed from ShapeOf so dynamic dims stay
    dynamic (a negative axis counts from the end)."""

    op = "onnx::Flatten"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        x = node.in_port(0).get_source()
        if node.axis in (0, 1):
            target = i64(1, -1) if node.axis == 0 else i64(0, -1)
            return [b.Reshape(x, target, special_zero=True, name=node.name)]
        shape = b.ShapeOf(x, output_type="i64")
        outer = b.ReduceProd(dims_slice(b, shape, 0, node.axis), i64(0), keep_dims=True)
        inner = b.ReduceProd(dims_slice(b, shape, node.axis), i64(0), keep_dims=True)
        return [b.Reshape(x, b.Concat(outer, inner, axis=0), special_zero=False, name=node.name)]


class ConstantOfShapeToBroadcast(ReplaceOp):
    """ConstantOfShape(shape) -> Broadcast(value, shape)."""

    op = "onnx::ConstantOfShape"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        value = b.const(node.value, element_type=node.element_type)
        return [b.Broadcast(value, node.in_port(0).get_source(), mode="numpy", name=node.name)]


class RangeToOpset(ReplaceOp):
    """Range(start, limit, delta) -> Range-4 of the type of start, the inputs made scalars (ONNX
    models often pass [1]-shaped ones)."""

    op = "onnx::Range"

    def replace_op(self, graph, node):
        b = OpBuilder(graph, node.name)
        bounds = [as_scalar(b, node.in_port(i).get_source()) for i in range(3)]
        return [b.Range(*bounds, output_type=None, name=node.name)]


class DropoutToIdentity(ReplaceOp):
    """Dropout -> its input; the mask output -> Broadcast(true, ShapeOf(x)). A Dropout whose
    training_mode is constant true with a non-zero ratio drops at random: refused."""

    op = "onnx::Dropout"

    def replace_op(self, graph, node):
        training = node.in_port(2).data.get_value() if node.is_in_port_connected(2) else None
        ratio = node.in_port(1).data.get_value() if node.is_in_port_connected(1) else np.float32(0.5)
        if training is not None and bool(np.asarray(training).reshape(-1)[0]) and (ratio is None or np.any(ratio)):
            raise GraphError(f"Dropout '{node.name}' is in training mode (random); only inference is converted")
        x = node.in_port(0).get_source()
        outputs = [x]
        if node.out_port(1).is_connected():
            b = OpBuilder(graph, node.name)
            outputs.append(b.Broadcast(np.array(True), b.ShapeOf(x, output_type="i64"), mode="numpy",
                                       name=node.name + "/mask"))
        return outputs
