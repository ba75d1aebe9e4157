"""ONNX Cast, CastLike (-> Convert) and BitCast.

OpenVINO's Convert to a float8 type does not saturate (overflow gives NaN for f8e4m3 and inf
for f8e5m2), which is ONNX's ``saturate=0``; with the ONNX default ``saturate=1`` the input is
clamped to the target's largest finite value first."""
from __future__ import annotations

from extensions.load.onnx.attributes import OnnxExtractor
from extensions.load.onnx.tensors import element_type_of
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.node import Node
from mo.graph.port import Port
from mo.utils.types import bit_width, is_float, is_int

# Largest finite value of the float8 types.
F8_MAX = {"f8e4m3": 448.0, "f8e5m2": 57344.0}


def target_type(ext, node) -> str:
    """The OpenVINO element type of the ``to`` attribute (not string)."""
    target = element_type_of(int(ext.attr(node, "to")), f" ({node.fw_op} '{node.name}')")
    if target == "string":
        raise ValueError(f"{node.fw_op} to string has no OpenVINO equivalent")
    return target


class CastExtractor(OnnxExtractor):
    """Cast(to, saturate): ``destination_type`` and ``saturate``."""

    op_types = ("Cast",)

    @classmethod
    def extract(cls, node):
        node.update({"destination_type": target_type(cls, node), "saturate": bool(cls.attr(node, "saturate", 1))})


class CastLikeExtractor(OnnxExtractor):
    """CastLike(x, like, saturate): ``saturate``."""

    op_types = ("CastLike",)

    @classmethod
    def extract(cls, node):
        node["saturate"] = bool(cls.attr(node, "saturate", 1))


class BitCastExtractor(OnnxExtractor):
    """BitCast(to): ``destination_type``."""

    op_types = ("BitCast",)

    @classmethod
    def extract(cls, node):
        node["destination_type"] = target_type(cls, node)


def saturating_convert(b: OpBuilder, x: Port, target: str, saturate: bool) -> Port:
    """Convert(x) to ``target``; to a float8 type with ``saturate``, Convert(Clamp(x, -max, max))
    with NaN kept."""
    source = x.data.get_dtype()
    if saturate and target in F8_MAX and source not in (None, "boolean"):
        clamped = b.Clamp(x, min=-F8_MAX[target], max=F8_MAX[target])
        x = b.Select(b.IsNaN(x), x, clamped) if is_float(source) else clamped   # Clamp does not keep NaN
    return b.Convert(x, destination_type=target)


@translator("onnx", "Cast")
def cast(node: Node, b: OpBuilder) -> list[Port]:
    return [saturating_convert(b, node.in_port(0).get_source(), node.destination_type, node.saturate)]


@translator("onnx", "CastLike")
def cast_like(node: Node, b: OpBuilder) -> list[Port]:
    """x converted to the element type of ``like`` (x itself when it has that type)."""
    x = node.in_port(0).get_source()
    target = node.in_port(1).get_source().data.get_dtype()
    if target == x.data.get_dtype():
        return [x]
    return [saturating_convert(b, x, target, node.saturate)]


@translator("onnx", "BitCast")
def bit_cast(node: Node, b: OpBuilder) -> list[Port]:
    """The bits of x read as ``to``. The opset has no bit reinterpretation; between integer (or
    boolean) types of one width it is a Convert, which wraps around like two's complement.
    Float <-> integer reinterpretation is refused."""
    x = node.in_port(0).get_source()
    source, target = x.data.get_dtype(), node.destination_type
    if source == target:
        return [x]
    integral = all(is_int(t) or t == "boolean" for t in (source, target))
    if not integral or bit_width(source) != bit_width(target):
        raise ConversionError(f"BitCast from {source} to {target}: OpenVINO has no bit reinterpretation between "
                              f"these types.")
    return [b.Convert(x, destination_type=target)]
