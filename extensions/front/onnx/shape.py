"""ONNX operators that rearrange or describe a tensor's shape. Reshape, Squeeze, Unsqueeze, Concat,
Expand, Tile, ReverseSequence, DepthToSpace and SpaceToDepth map to one opset op each; Shape,
Size, Flatten, Transpose, ConstantOfShape, Range and Dropout are translated."""
from __future__ import annotations

import numpy as np

from extensions.front.onnx.const_inputs import add_const_input
from extensions.load.onnx.attributes import OnnxExtractor
from extensions.ops.rearrange import DepthToSpace, SpaceToDepth
from extensions.ops.shape import Broadcast, Concat, Reshape, ReverseSequence, Squeeze, Tile, Unsqueeze
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.building import INT64_MAX, as_scalar, dims_slice, i64, input_rank, shape_of


class ReshapeExtractor(OnnxExtractor):
    """Reshape: 0 copies the input dimension unless ``allowzero`` (opset 14) is set; before
    opset 5 the target is the ``shape`` attribute."""

    op_types = ("Reshape",)

    @classmethod
    def extract(cls, node):
        if node.opset < 5:
            add_const_input(node, 1, cls.ints(node, "shape", []), "shape")
        Reshape.update_node(node, {"special_zero": not bool(cls.attr(node, "allowzero", 0))})


class SqueezeExtractor(OnnxExtractor):
    """Squeeze / Unsqueeze: ``axes`` is an attribute before opset 13, an input after."""

    op_types = ("Squeeze", "Unsqueeze")

    @classmethod
    def extract(cls, node):
        axes = cls.ints(node, "axes")
        if node.opset < 13 and axes is not None:
            add_const_input(node, 1, axes, "axes")
        (Squeeze if node.fw_op == "Squeeze" else Unsqueeze).update_node(node)


class ConcatExtractor(OnnxExtractor):
    op_types = ("Concat",)

    @classmethod
    def extract(cls, node):
        Concat.update_node(node, {"axis": int(cls.attr(node, "axis", 0))})


class ExpandExtractor(OnnxExtractor):
    op_types = ("Expand",)

    @classmethod
    def extract(cls, node):
        Broadcast.update_node(node, {"mode": "bidirectional"})


class TileExtractor(OnnxExtractor):
    op_types = ("Tile",)

    @classmethod
    def extract(cls, node):
        Tile.update_node(node)


class ReverseSequenceExtractor(OnnxExtractor):
    op_types = ("ReverseSequence",)

    @classmethod
    def extract(cls, node):
        ReverseSequence.update_node(node, {"batch_axis": int(cls.attr(node, "batch_axis", 1)),
                                           "seq_axis": int(cls.attr(node, "time_axis", 0))})


class DepthSpaceExtractor(OnnxExtractor):
    """DepthToSpace / SpaceToDepth: ONNX mode DCR is blocks_first, CRD depth_first."""

    op_types = ("DepthToSpace", "SpaceToDepth")

    @classmethod
    def extract(cls, node):
        mode = cls.attr(node, "mode", "DCR")
        if mode not in ("DCR", "CRD"):
            raise ValueError(f"unknown mode '{mode}'")
        op = DepthToSpace if node.fw_op == "DepthToSpace" else SpaceToDepth
        op.update_node(node, {"block_size": int(cls.attr(node, "blocksize")),
                              "mode": "blocks_first" if mode == "DCR" else "depth_first"})


class ShapeExtractor(OnnxExtractor):
    """Shape, optionally of the dims [start, end) (opset 15)."""

    op_types = ("Shape",)

    @classmethod
    def extract(cls, node):
        end = cls.attr(node, "end")
        node.update({"start": int(cls.attr(node, "start", 0)), "end": None if end is None else int(end)})


@translator("onnx", "Shape")
def shape(node, b):
    """Shape -> ShapeOf; with start/end -> Slice(ShapeOf(x), start, end), which clamps
    out-of-range bounds as ONNX does."""
    dims = shape_of(b, node.in_port(0).get_source())
    if node.start == 0 and node.end is None:
        return [dims]
    return [b.Slice(dims, i64(node.start), i64(INT64_MAX if node.end is None else node.end), i64(1), i64(0))]


@translator("onnx", "Size")
def size(node, b):
    """Size -> ReduceProd(ShapeOf(x)) as an i64 scalar."""
    return [b.ReduceProd(shape_of(b, node.in_port(0).get_source()), i64(0), keep_dims=False)]


class FlattenExtractor(OnnxExtractor):
    op_types = ("Flatten",)

    @classmethod
    def extract(cls, node):
        node["axis"] = int(cls.attr(node, "axis", 1))


@translator("onnx", "Flatten")
def flatten(node, b):
    """Flatten(axis) -> Reshape to [prod(dims[:axis]), prod(dims[axis:])]: [1, -1] for axis 0,
    [0, -1] (special zero) for axis 1, otherwise computed from ShapeOf so dynamic dims stay
    dynamic (a negative axis counts from the end)."""
    x = node.in_port(0).get_source()
    if node.axis in (0, 1):
        return [b.Reshape(x, i64(1, -1) if node.axis == 0 else i64(0, -1), special_zero=True)]
    dims = shape_of(b, x)
    outer = b.ReduceProd(dims_slice(b, dims, 0, node.axis), i64(0), keep_dims=True)
    inner = b.ReduceProd(dims_slice(b, dims, node.axis), i64(0), keep_dims=True)
    return [b.Reshape(x, b.Concat(outer, inner, axis=0), special_zero=False)]


class TransposeExtractor(OnnxExtractor):
    """Transpose by ``perm`` (None: the dims reversed)."""

    op_types = ("Transpose",)

    @classmethod
    def extract(cls, node):
        node["perm"] = cls.ints(node, "perm")


@translator("onnx", "Transpose")
def transpose(node, b):
    """Transpose by ``perm``; without it by the reversed dims of the input's rank."""
    perm = node.perm
    if perm is None:
        perm = list(range(input_rank(node) - 1, -1, -1))
    return [b.Transpose(node.in_port(0).get_source(), i64(perm))]


class ConstantOfShapeExtractor(OnnxExtractor):
    """ConstantOfShape: ``value`` is a one-element tensor, float 0 by default."""

    op_types = ("ConstantOfShape",)

    @classmethod
    def extract(cls, node):
        value, et = cls.attr(node, "value", (np.zeros((), np.float32), "f32"))
        node.update({"value": value.reshape(()), "element_type": et})


@translator("onnx", "ConstantOfShape")
def constant_of_shape(node, b):
    """ConstantOfShape(shape) -> Broadcast(value, shape)."""
    value = b.const(node.value, element_type=node.element_type)
    return [b.Broadcast(value, node.in_port(0).get_source(), mode="numpy")]


@translator("onnx", "Range")
def range_(node, b):
    """Range(start, limit, delta) -> Range-4 of the type of start, the inputs made scalars (ONNX
    models often pass [1]-shaped ones)."""
    bounds = [as_scalar(b, node.in_port(i).get_source()) for i in range(3)]
    return [b.Range(*bounds, output_type=None)]


@translator("onnx", "Dropout")
def dropout(node, b):
    """Dropout is the identity at inference: its input, and for the mask output Broadcast(true,
    ShapeOf(x)). A Dropout whose training_mode is constant true with a non-zero ratio drops at
    random: refused."""
    training = node.in_port(2).data.get_value() if node.is_in_port_connected(2) else None
    ratio = node.in_port(1).data.get_value() if node.is_in_port_connected(1) else np.float32(0.5)
    if training is not None and bool(np.asarray(training).reshape(-1)[0]) and (ratio is None or np.any(ratio)):
        raise ConversionError("the Dropout is in training mode (random); only inference is converted: export "
                              "the model in eval mode")
    x = node.in_port(0).get_source()
    outputs = [x]
    if node.out_port(1).is_connected():
        outputs.append(b.Broadcast(np.array(True), shape_of(b, x), mode="numpy", name=node.name + "/mask"))
    return outputs
