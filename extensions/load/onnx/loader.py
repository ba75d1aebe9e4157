"""ONNX loader: reads a .onnx file (or a ModelProto) into an op-form Graph."""
from __future__ import annotations

import os

from extensions.load.onnx.functions import FunctionExpander
from extensions.load.onnx.graph_builder import OnnxGraphBuilder, opset_table
from extensions.load.onnx.mapped_reader import check_model_proto, read_model_proto
from mo.errors import InputModelError
from mo.front.loader import Loader
from mo.graph.graph import Graph


def check_opsets(opsets: dict[str, int], where: str) -> None:
    """Refuse a default-domain opset newer than the installed onnx package defines: its operators
    may mean something the converter does not know."""
    import onnx.defs
    newest = onnx.defs.onnx_opset_version()
    declared = opsets.get("", 1)
    if declared < 1:
        raise InputModelError(f"'{where}' declares ONNX opset {declared}, which does not exist (opsets start at 1): "
                              f"the model is corrupt.")
    if declared > newest:
        raise InputModelError(
            f"'{where}' declares ONNX opset {declared}, but the installed onnx package "
            f"({onnx.__version__}) defines opsets up to {newest}: upgrade onnx (pip install -U onnx) or "
            f"convert the model with an older opset.")


class OnnxLoader(Loader):
    """Loads ONNX models: opsets per domain, initializers, external data, model-local functions
    (inlined), ONNX functions for ops without an extractor (expanded), and nested bodies."""

    framework = "onnx"
    suffixes = (".onnx",)

    @classmethod
    def accepts(cls, path) -> bool:
        if not isinstance(path, str):
            return type(path).__name__ == "ModelProto"
        return super().accepts(path)

    def load(self, context) -> Graph:
        model_input = context.options.input_model
        raw_data = {}
        if isinstance(model_input, str):
            model, raw_data = read_model_proto(model_input)
            model_dir = os.path.dirname(os.path.abspath(model_input))
        else:
            model = model_input
            check_model_proto(model, "the ModelProto given")
            model_dir = None
        registry = context.registry
        where = model_input if isinstance(model_input, str) else "the ModelProto given"
        opsets = opset_table(model.opset_import)
        check_opsets(opsets, where)
        if model.functions:
            import onnx.inliner
            try:
                model = onnx.inliner.inline_local_functions(model)
            except Exception as e:   # onnx raises ValidationError, RuntimeError... on a broken function
                raise InputModelError(f"The model-local functions of '{where}' cannot be inlined: {e}") from e
        expander = FunctionExpander(registry, opsets, model)
        builder = OnnxGraphBuilder(context, opsets, model_dir, expander, raw_data)
        graph = builder.build(model.graph)
        graph.graph["model_name"] = model.graph.name or "model"
        return graph

    def source_layers(self, options, ir_inputs: list, feed: list):
        from extensions.load.onnx.layer_outputs import OnnxLayers
        return OnnxLayers(options, ir_inputs, feed)
