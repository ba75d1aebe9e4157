"""An ATen-level ``torch.fx.GraphModule`` (a part of a graph that ``torch.compile`` captured and
lowered) as a model the PyTorch loader converts.

``FxModule`` pairs the GraphModule with the values of its frozen placeholders (parameters and
buffers, which become Consts sharing the tensors' memory). Every other placeholder becomes a
Parameter: a tensor with its FakeTensor shape (symbolic dimensions stay dynamic), a symbolic
integer as a 0-d i64. The nodes are decoded like those of an ExportedProgram; output ``i`` gets
the tensor name ``output_name(i)``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from extensions.load.pytorch.exported import ExportedProgramDecoder, module_attribute, shape_of
from extensions.load.pytorch.types import element_type_of_dtype
from mo.errors import InputModelError


def output_name(index: int) -> str:
    return f"output_{index}"


@dataclass
class FxModule:
    """A GraphModule of ATen operations with frozen placeholder values (placeholder name -> tensor)."""

    graph_module: Any
    constants: dict = field(default_factory=dict)
    name: str = "model"


class FxModuleDecoder(ExportedProgramDecoder):
    """Decodes one FxModule."""

    def __init__(self, builder, module: FxModule):
        super().__init__(builder, None)
        self.module = module

    def decode(self) -> None:
        import torch
        gm = self.module.graph_module
        for node in gm.graph.nodes:
            if node.op == "placeholder":
                self._input(node)
            elif node.op == "call_function":
                self._call(node)
            elif node.op == "get_attr":
                self.b.env[node.name] = module_attribute(gm, node.target)
            elif node.op == "output":
                outputs = node.args[0] if isinstance(node.args[0], (list, tuple)) else [node.args[0]]
                for i, out in enumerate(outputs):
                    value = self._value(out)
                    if isinstance(value, torch.SymInt):
                        raise InputModelError(f"Output {i} of the graph is a symbolic integer only known at run "
                                              f"time, which cannot be a constant.")
                    self.b.result(self.b.as_port(value), output_name(i))
            else:
                raise InputModelError(f"Unexpected FX node '{node.name}' ({node.op}) in the graph module.")

    def _input(self, node) -> None:
        import torch
        constants = self.module.constants
        if node.name in constants:
            self.b.env[node.name] = self.b.tensor(constants[node.name], node.name)
            return
        val = node.meta.get("val")
        if isinstance(val, torch.SymInt):
            self.b.env[node.name] = self.b.parameter(node.name, (), "i64")
        elif hasattr(val, "dtype"):
            self.b.env[node.name] = self.b.parameter(node.name, shape_of(val), element_type_of_dtype(val.dtype))
        else:   # a Python number the graph was specialised on
            self.b.env[node.name] = val
