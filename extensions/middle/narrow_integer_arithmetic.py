"""8-bit integer arithmetic that wraps around, as every framework computes it.

NumPy, PyTorch, TensorFlow and ONNX Runtime compute u8/i8 Add, Subtract, Multiply, Negative,
MatMul, Einsum and sums and products over axes modulo 256 (200 + 100 = 44 in u8); OpenVINO's CPU plugin
saturates them (255), and refuses to compile a Negative of u8. Such ops (image arithmetic left in
uint8, PyTorch's integer samples) compute in i32 here and are brought back into their type modulo
256, exactly."""
from __future__ import annotations

import numpy as np

from mo.graph.builder import OpBuilder
from mo.graph.building import convert
from mo.pipeline.transform import Transform

# element type -> the offset that maps its range onto 0..255
_NARROW = {"u8": 0, "i8": 128}


class WrapNarrowIntegerArithmetic(Transform):
    """op(x, ...) of a u8/i8 result -> op(Convert(x, i32), ...) -> the result modulo 256 in the
    type's range (BitwiseAnd 255, shifted by 128 for i8) -> Convert back. Constant results are
    left to constant folding (which computes them with NumPy's wrap-around)."""

    phase = "middle"
    ops = ("Add", "Subtract", "Multiply", "Negative", "MatMul", "Einsum", "ReduceSum", "ReduceProd", "CumSum")

    def graph_condition(self, graph) -> bool:
        return any(graph.has_op(op) for op in self.ops)

    def find_and_replace_pattern(self, graph) -> None:
        for op in self.ops:
            for node in list(graph.nodes_by_op(op)):
                out = node.out_port(0).data
                if out.get_dtype() in _NARROW and out.get_value() is None:
                    self._widen(graph, node, out.get_dtype())

    @staticmethod
    def _widen(graph, node, dtype: str) -> None:
        b = OpBuilder(graph, node.name)
        inputs = [node.in_port(i).get_source() for i in sorted(node.in_ports())]
        data = 1 if node.op in ("ReduceSum", "ReduceProd", "CumSum") else len(inputs)    # not the axes
        inputs = [convert(b, p, "i32") for p in inputs[:data]] + inputs[data:]
        attrs = {k: node[k] for k in node.op_class.ir_attrs if k in node}
        wide = b.op(node.op, *inputs, **attrs)
        offset = _NARROW[dtype]
        if offset:
            wide = b.Add(wide, np.int32(offset))
        wrapped = b.BitwiseAnd(wide, np.int32(255))
        if offset:
            wrapped = b.Subtract(wrapped, np.int32(offset))
        node.out_port(0).get_connection().set_source(b.Convert(wrapped, destination_type=dtype))
        graph.remove_node(node.id)
