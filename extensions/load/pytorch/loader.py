"""PyTorch loader: TorchScript and ExportedProgram files, transformers checkpoint folders
(config.json + safetensors) and model objects of the Python API (nn.Module, ScriptModule,
ExportedProgram), into an op-form Graph with one node per ATen operation."""
from __future__ import annotations

import logging

from extensions.load.pytorch.builder import TorchGraphBuilder
from extensions.load.pytorch.capture import archive_kind, is_torch_model, load_file, tensors_only_unpickling
from extensions.load.pytorch.checkpoint_folder import eager_model, is_checkpoint_folder, load_folder
from extensions.load.pytorch.client_files import IR_NAME, ClientFiles, is_transformers_model
from extensions.load.pytorch.transformers_decoder import cache_argument, capture_model, name_decoder_io, run_decoder
from mo.front.loader import Loader
from mo.graph.graph import Graph

log = logging.getLogger("mo")


def keep_specialized_dims(graph, specs) -> None:
    """Dimensions that --input asks to be dynamic but that torch.export specialized (the program
    is only valid for their example size) keep that size, with a warning."""
    params = sorted(graph.nodes_by_op("Parameter"), key=lambda n: n["_seq"])
    by_name = {p.name: p for p in params}
    for i, spec in enumerate(specs):
        param = by_name.get(spec.name) if spec.name is not None else (params[i] if i < len(params) else None)
        if param is None or spec.shape is None or param.shape is None or len(param.shape) != len(spec.shape):
            continue
        fixed = [d for d, (given, exported) in enumerate(zip(spec.shape, param.shape)) if given < 0 <= exported]
        if fixed:
            log.warning("torch.export specialized dimension(s) %s of input '%s' to the example's size; they stay "
                        "static", fixed, param.name)
            spec.shape = tuple(param.shape[d] if d in fixed else s for d, s in enumerate(spec.shape))


class PyTorchLoader(Loader):
    """Loads PyTorch models through the capture form they come in (see ``capture.py``)."""

    framework = "pytorch"
    suffixes = (".pt", ".pt2", ".pth", ".torchscript")

    @classmethod
    def accepts(cls, path) -> bool:
        if not isinstance(path, str):
            return is_torch_model(path)
        return super().accepts(path) or is_checkpoint_folder(path)

    def load(self, context) -> Graph:
        from extensions.load.pytorch.exported import ExportedProgramDecoder
        from extensions.load.pytorch.fx_module import FxModuleDecoder
        from extensions.load.pytorch.torchscript import TorchScriptDecoder
        options = context.options
        model = options.input_model
        weights = client = None
        if is_checkpoint_folder(model):
            captured, weights, built = load_folder(model, options)
            client = ClientFiles.of_folder(model, built, options.tokenizer)
        elif isinstance(model, str):
            captured = load_file(model, options.example_input)
        else:
            captured = capture_model(model, options.example_input, options.inputs)
            if is_transformers_model(model):
                client = ClientFiles.of_model(model, options.tokenizer)
        builder = TorchGraphBuilder(context)
        builder.weights = weights
        if captured.kind == "exported":
            ExportedProgramDecoder(builder, captured.model).decode()
            keep_specialized_dims(builder.graph, options.inputs)
            if name_decoder_io(builder.graph) and not options.compress_weights:
                # the cache in f16 rather than the CPU plugin's default u8 (as optimum-intel sets it for
                # float weights); GenAI and the runtime apply rt_info's runtime_options when compiling
                builder.graph.graph["rt_info"] = {"runtime_options": {"KV_CACHE_PRECISION": "f16"}}
        elif captured.kind == "fx":
            FxModuleDecoder(builder, captured.model).decode()
        else:
            module = captured.model
            if hasattr(module, "eval"):
                module.eval()
            TorchScriptDecoder(builder, module, captured.examples).decode()
        graph = builder.graph
        # what no output reads (unused arguments, writes nothing reads) goes before extraction
        graph.remove_dead_nodes(keep=[p.id for p in graph.nodes_by_op("Parameter")])
        graph.graph["model_name"] = captured.name
        if client is not None:
            graph.graph["ir_name"] = IR_NAME
            graph.graph["companions"] = [client]
        graph.graph["pytorch_capture"] = captured.kind
        log.info("PyTorch model decoded from its %s graph: %d nodes", captured.kind, graph.number_of_nodes())
        return graph

    def source_layers(self, options, ir_inputs: list, feed: list):
        from extensions.load.pytorch.layer_outputs import pytorch_layers
        return pytorch_layers(options, ir_inputs, feed)

    def source_model(self, options):
        """The model PyTorch runs for --validate: the module given, the program of an
        ExportedProgram, a TorchScript file's module, or a checkpoint folder's model with its
        weights (a decoder as its module, any other model as a callable of the IR's inputs by
        name)."""
        import torch
        model = options.input_model
        if is_checkpoint_folder(model):
            return eager_model(model)
        if isinstance(model, str):
            if archive_kind(model) == "exported":
                with tensors_only_unpickling(model):
                    return torch.export.load(model).module()
            return torch.jit.load(model, map_location="cpu")
        if isinstance(model, torch.export.ExportedProgram):
            return model.module()
        if hasattr(model, "eval"):
            model.eval()
        return model

    @staticmethod
    def run_decoder(module, named: dict) -> dict | None:
        """For --validate: the outputs by name (logits, present.N.key/value) of a transformers
        decoder run with its cache as the IR computes, from the IR's inputs by name; None when
        ``module`` is not a decoder with a cache."""
        if cache_argument(module) is None:
            return None
        return run_decoder(module, named)

    @staticmethod
    def dynamo_backend(gm, example_inputs, options: dict | None = None):
        """``torch.compile(model, backend="mo")`` (extensions/load/pytorch/torch_compile/)."""
        from extensions.load.pytorch.torch_compile.backend import compile_graph
        return compile_graph(gm, example_inputs, options)
