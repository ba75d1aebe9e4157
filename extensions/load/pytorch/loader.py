"""PyTorch loader: TorchScript and ExportedProgram files, and model objects of the Python API
(nn.Module, ScriptModule, ExportedProgram), into an op-form Graph with one node per ATen
operation."""
from __future__ import annotations

import logging

from extensions.load.pytorch.builder import TorchGraphBuilder
from extensions.load.pytorch.capture import capture, is_torch_model, load_file
from mo.front.loader import Loader
from mo.graph.graph import Graph

log = logging.getLogger("mo")


class PyTorchLoader(Loader):
    """Loads PyTorch models through the capture form they come in (see ``capture.py``)."""

    framework = "pytorch"
    suffixes = (".pt", ".pt2", ".pth", ".torchscript")

    @classmethod
    def accepts(cls, path) -> bool:
        if not isinstance(path, str):
            return is_torch_model(path)
        return super().accepts(path)

    def load(self, options) -> Graph:
        from extensions.load.pytorch.exported import ExportedProgramDecoder
        from extensions.load.pytorch.torchscript import TorchScriptDecoder
        model = options.input_model
        captured = load_file(model) if isinstance(model, str) else capture(model, options.example_input,
                                                                           options.inputs)
        builder = TorchGraphBuilder(options.registry)
        if captured.kind == "exported":
            ExportedProgramDecoder(builder, captured.model).decode()
        else:
            module = captured.model
            if hasattr(module, "eval"):
                module.eval()
            TorchScriptDecoder(builder, module, captured.examples).decode()
        graph = builder.graph
        graph.graph["model_name"] = captured.name
        graph.graph["pytorch_capture"] = captured.kind
        log.info("PyTorch model decoded from its %s graph: %d nodes", captured.kind, graph.number_of_nodes())
        return graph
