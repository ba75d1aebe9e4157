"""TensorFlow node attributes as Python values, and the base class of TensorFlow extractors."""
from __future__ import annotations

from typing import Any

from extensions.load.tf.tensors import TF_COMPLEX, element_type_of, shape_of, tensor_to_array
from mo.errors import InputModelError
from mo.front.extractor import Extractor
from mo.graph.node import Node


def attr_value(value) -> Any:
    """Python value of an AttrValue: str for strings, int/float/bool, element type names for
    types, shape tuples, numpy arrays for tensors, lists of those, function names."""
    kind = value.WhichOneof("value")
    if kind == "s":
        return value.s.decode("utf-8", "replace")
    if kind in ("i", "f", "b"):
        return getattr(value, kind)
    if kind == "type":
        return TF_COMPLEX[value.type][0] if value.type in TF_COMPLEX else element_type_of(value.type)
    if kind == "shape":
        return shape_of(value.shape)
    if kind == "tensor":
        return tensor_to_array(value.tensor)[0]
    if kind == "func":
        return value.func.name
    if kind == "list":
        lst = value.list
        for field in ("s", "i", "f", "b", "type", "shape", "func"):
            items = getattr(lst, field)
            if len(items):
                if field == "s":
                    return [s.decode("utf-8", "replace") for s in items]
                if field == "type":
                    return [element_type_of(t) for t in items]
                if field == "shape":
                    return [shape_of(s) for s in items]
                if field == "func":
                    return [f.name for f in items]
                return list(items)
        return []
    return None


DATA_FORMATS = ("NHWC", "NCHW", "NWC", "NCW", "NDHWC", "NCDHW", "NHWC_VECT_W", "NCHW_VECT_C")


class TfExtractor(Extractor):
    """Base of TensorFlow extractors: ``attr(node, name, default)`` reads one NodeDef attribute."""

    abstract = True
    framework = "tf"

    @staticmethod
    def attr(node: Node, name: str, default: Any = None) -> Any:
        attrs = node.pb.attr
        if name not in attrs:
            return default
        return attr_value(attrs[name])

    @classmethod
    def dtype(cls, node: Node, name: str = "T") -> str | None:
        """Element type held in a type attribute (``T`` by default); an attribute of another kind
        is a corrupt model."""
        value = cls.attr(node, name)
        if value is not None and not isinstance(value, str):
            raise InputModelError(f"Attribute '{name}' of node '{node.name}' ({node.fw_op}) should be an element "
                                  f"type but is {value!r}: the model is corrupt.")
        return value

    @classmethod
    def ints(cls, node: Node, name: str, length: int | None = None, default: list | None = None) -> list | None:
        """An attribute that holds a list of integers (of ``length`` entries when given);
        ``default`` when absent; anything else is a corrupt model."""
        value = cls.attr(node, name)
        if value is None or value == []:
            return default
        if not isinstance(value, list) or not all(isinstance(v, int) for v in value) or \
                (length is not None and len(value) != length):
            what = f"{length} integers" if length is not None else "a list of integers"
            raise InputModelError(f"Attribute '{name}' of node '{node.name}' ({node.fw_op}) should be {what} but is "
                                  f"{value!r}: the model is corrupt.")
        return value

    @classmethod
    def data_format(cls, node: Node, default: str = "NHWC") -> str:
        """The ``data_format`` attribute (``default`` when absent): one of TensorFlow's layouts."""
        value = cls.attr(node, "data_format", default) or default
        if value not in DATA_FORMATS:
            raise InputModelError(f"Attribute 'data_format' of node '{node.name}' ({node.fw_op}) is {value!r}, not a "
                                  f"TensorFlow data format ({', '.join(DATA_FORMATS)}): the model is corrupt.")
        return value
