"""Model state (opset6): ReadValue reads a variable kept between inferences, Assign writes it.
Made by ``--transform MakeStateful`` / ``LowLatency2`` (extensions/back/stateful.py)."""
from __future__ import annotations

import numpy as np

from mo.emit.xml_writer import format_partial_shape
from mo.ops.op import Op
from mo.utils.types import np_dtype


class ReadValue(Op):
    """The value of variable ``variable_id`` (``variable_type``, ``variable_shape``): the value
    Assign wrote at the previous inference; at the first inference (or after a reset) input 0,
    or zeros of ``variable_shape`` without an input. Never folded."""

    op = "ReadValue"
    version = "opset6"
    foldable = False
    defaults = {"variable_id": None, "variable_type": "f32", "variable_shape": None}

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.variable_type)

    @classmethod
    def infer_shapes(cls, node):
        # the variable's shape: the initial value may be smaller (empty along a growing dim)
        if node.variable_shape is not None or not node.is_in_port_connected(0):
            return [node.variable_shape]
        return [node.in_shape(0)]

    @classmethod
    def evaluate(cls, node, init=None):
        """The first inference's value."""
        return init if init is not None else np.zeros(node.variable_shape, np_dtype(node.variable_type))

    @classmethod
    def ir_data(cls, node):
        return {"variable_id": node.variable_id, "variable_type": node.variable_type,
                "variable_shape": format_partial_shape(node.variable_shape)}


class Assign(Op):
    """Writes input 0 to variable ``variable_id`` for the next inference (a sink: no consumers)."""

    op = "Assign"
    version = "opset6"
    foldable = False
    defaults = {"variable_id": None}
    ir_attrs = ("variable_id",)

    @classmethod
    def evaluate(cls, node, value):
        return value
