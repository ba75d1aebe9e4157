"""The ONNX Constant operator: one Const."""
from __future__ import annotations

import numpy as np

from extensions.load.onnx.attributes import OnnxExtractor, onnx_attrs
from extensions.ops.io import Const


class ConstantExtractor(OnnxExtractor):
    """Constant: value from ``value`` or one of ``value_float(s)``, ``value_int(s)``, ``value_string(s)``."""

    op_types = ("Constant",)

    @classmethod
    def extract(cls, node):
        attrs = onnx_attrs(node)
        if "value" in attrs:
            value, et = attrs["value"]
        elif "value_float" in attrs:
            value, et = np.array(attrs["value_float"], np.float32), "f32"
        elif "value_floats" in attrs:
            value, et = np.array(attrs["value_floats"], np.float32), "f32"
        elif "value_int" in attrs:
            value, et = np.array(attrs["value_int"], np.int64), "i64"
        elif "value_ints" in attrs:
            value, et = np.array(attrs["value_ints"], np.int64), "i64"
        elif "value_string" in attrs:
            value, et = np.array(attrs["value_string"], object), "string"
        elif "value_strings" in attrs:
            value, et = np.array(attrs["value_strings"], object), "string"
        else:
            raise ValueError("Constant has no value attribute (sparse values are not supported)")
        Const.update_node(node, {"value": value, "element_type": et})
