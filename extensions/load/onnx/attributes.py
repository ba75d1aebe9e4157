"""ONNX node attributes as Python values, and the base class of ONNX extractors."""
from __future__ import annotations

from typing import Any

import numpy as np

from mo.front.extractor import Extractor
from mo.graph.node import Node


def onnx_attrs(node: Node) -> dict[str, Any]:
    """Attributes of the node's NodeProto by name (tensors as numpy arrays, graphs as protos);
    parsed once and cached on the node."""
    cached = node.get("fw_attrs")
    if cached is not None:
        return cached
    from onnx import AttributeProto, helper

    from extensions.load.onnx.tensors import tensor_to_array
    result = {}
    for a in node.pb.attribute:
        if a.type == AttributeProto.TENSOR:
            result[a.name] = tensor_to_array(a.t, node.graph.graph.get("model_dir"))
        elif a.type == AttributeProto.SPARSE_TENSOR:
            result[a.name] = a.sparse_tensor
        else:
            value = helper.get_attribute_value(a)
            if isinstance(value, bytes):
                value = value.decode("utf-8")
            elif isinstance(value, list) and value and isinstance(value[0], bytes):
                value = [v.decode("utf-8") for v in value]
            result[a.name] = value
    node["fw_attrs"] = result
    return result


class OnnxExtractor(Extractor):
    """Base of ONNX extractors; ``attr(node, name, default)`` reads one attribute."""

    abstract = True
    framework = "onnx"

    @staticmethod
    def attr(node: Node, name: str, default: Any = None) -> Any:
        return onnx_attrs(node).get(name, default)

    @staticmethod
    def ints(node: Node, name: str, default=None) -> list[int] | None:
        value = onnx_attrs(node).get(name)
        if value is None:
            return default
        return [int(v) for v in np.atleast_1d(value)]
