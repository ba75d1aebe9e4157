"""Model inputs, outputs and constants: Parameter, Result, Const."""
from __future__ import annotations

import numpy as np

from mo.emit.xml_writer import format_partial_shape
from mo.ops.op import Op
from mo.utils.types import element_type, np_dtype


class Parameter(Op):
    """A model input: ``shape`` (tuple, -1 dynamic, None dynamic rank) and ``element_type``."""

    op = "Parameter"
    defaults = {"shape": None, "element_type": "f32"}

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.element_type)

    @classmethod
    def infer(cls, node):
        node.out_port(0).data.set_shape(node.shape)

    @classmethod
    def ir_data(cls, node):
        return {"shape": format_partial_shape(node.shape, node.get("shape_bounds")), "element_type": node.element_type}


class Const(Op):
    """A constant tensor: ``value`` (numpy array) of ``element_type``. A bf16 constant holds float32
    values, or uint16 ones: raw bf16 bit patterns of a weight read from a file, kept as they are
    (only the IR writer and weight compression read them; a decompression Convert follows)."""

    op = "Const"
    defaults = {"value": None, "element_type": None}

    @classmethod
    def node_attrs(cls, attrs):
        result = super().node_attrs(attrs)
        value = result.get("value")
        if value is not None:
            value = np.asarray(value)
            if result.get("element_type") is None:
                result["element_type"] = element_type(value.dtype)
            elif value.dtype != np_dtype(result["element_type"]) and not (
                    result["element_type"] == "bf16" and value.dtype == np.uint16):
                value = value.astype(np_dtype(result["element_type"]))
            result["value"] = value
        return result

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.element_type)

    @classmethod
    def infer(cls, node):
        node.out_port(0).data.set_value(node.value)


class Result(Op):
    """A model output."""

    op = "Result"
    num_outputs = 0
    string_inputs = True

    @classmethod
    def type_infer(cls, node):
        pass

    @classmethod
    def infer(cls, node):
        pass
