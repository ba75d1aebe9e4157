"""--validate_layers for PyTorch models (``PyTorchLoader.source_layers``): the graph the converter
read, captured again the same way, run in PyTorch with its intermediate tensors kept.

* an ExportedProgram (a ``.pt2`` file, or an ``nn.Module`` captured with torch.export): its
  graph module, functionalised as the decoder does, run by an FX interpreter that keeps the
  outputs of the nodes asked for (a node with several outputs gives ``name.0``, ``name.1``...);
* TorchScript (a ``.pt`` file, a scripted or traced module): the forward graph inlined as the
  decoder reads it, with the values asked for (by debug name) made its outputs.

Transformers decoders converted with their cache are not compared: their IR keeps no names of
inner tensors.
"""
from __future__ import annotations

import operator

import numpy as np

from mo.errors import OptionError
from mo.runtime.frameworks import _pick
from mo.runtime.layers import SourceLayers, SourceTensor

# TorchScript nodes whose outputs are no tensor the model computes
NOT_COMPUTED = frozenset({"prim::Constant", "prim::GetAttr", "prim::ListConstruct", "prim::TupleConstruct",
                          "prim::DictConstruct", "prim::If", "prim::Loop"})


def _numpy(value) -> np.ndarray:
    """A tensor as the IR holds it: complex as (real, imaginary) pairs, bfloat16 as float32."""
    import torch
    value = value.detach()
    if value.is_complex():
        value = torch.view_as_real(value)
    if value.dtype == torch.bfloat16:
        value = value.float()
    return value.cpu().numpy()


def _is_tensor(value) -> bool:
    return hasattr(value, "dtype") and hasattr(value, "shape") and hasattr(value, "detach")


def _by_name(ir_inputs: list, names: list[str], feed: list[np.ndarray]) -> dict[str, np.ndarray]:
    """{model input name: value} of the IR's inputs, matched by name (in order when no name
    matches)."""
    known = set(names)
    if all(set(info.names or [info.name]) & known for info in ir_inputs):
        return {_pick(info.names or [info.name], known, "input", "the PyTorch model's inputs"): value
                for info, value in zip(ir_inputs, feed)}
    return dict(zip(names, feed))


class ExportedLayers(SourceLayers):
    """An ExportedProgram run by an FX interpreter."""

    def __init__(self, program, ir_inputs: list, feed: list[np.ndarray]):
        import torch

        from extensions.load.pytorch.builder import split_inplace
        from extensions.load.pytorch.exported import functionalised, op_kind
        self.framework = f"PyTorch {torch.__version__} (torch.export graph, FX interpreter)"
        program = functionalised(program)
        self.module = program.graph_module
        signature = program.graph_signature
        lifted = {**signature.inputs_to_parameters, **signature.inputs_to_buffers,
                  **signature.inputs_to_lifted_tensor_constants}
        stored = {**program.state_dict, **program.constants}
        given = _by_name(ir_inputs, list(signature.user_inputs), feed)
        self.args = []
        for node in self.module.graph.nodes:
            if node.op != "placeholder":
                continue
            val = node.meta.get("val")
            if node.name in lifted:
                self.args.append(stored[lifted[node.name]])
            elif node.name in given:
                self.args.append(torch.from_numpy(np.ascontiguousarray(given[node.name])))
            elif _is_tensor(val):     # an input the IR does not have: nothing the outputs need reads it
                self.args.append(torch.zeros([int(d) for d in val.shape], dtype=val.dtype))
            else:
                self.args.append(val)
        self.tensors = []
        for node in self.module.graph.nodes:
            if node.op != "call_function" or node.target is operator.getitem:
                continue
            kind = split_inplace(op_kind(node.target))[0]
            val = node.meta.get("val")
            if isinstance(val, (list, tuple)):
                self.tensors += [SourceTensor(f"{node.name}.{i}", kind, node.name) for i, v in enumerate(val)
                                 if _is_tensor(v)]
            elif _is_tensor(val):
                self.tensors.append(SourceTensor(node.name, kind, node.name))

    def values(self, names: list[str]) -> list[np.ndarray]:
        import torch
        wanted: dict[str, list[tuple[int | None, str]]] = {}
        nodes = {n.name for n in self.module.graph.nodes}
        for name in names:
            node, _, index = name.rpartition(".")
            if node and index.isdigit() and name not in nodes:
                wanted.setdefault(node, []).append((int(index), name))
            else:
                wanted.setdefault(name, []).append((None, name))
        found: dict[str, np.ndarray] = {}

        class Keeping(torch.fx.Interpreter):
            def run_node(self, n):
                result = super().run_node(n)
                for index, name in wanted.get(n.name, ()):
                    found[name] = _numpy(result if index is None else result[index])
                return result
        with torch.no_grad():
            Keeping(self.module).run(*self.args)
        return [found[name] for name in names]


class TorchScriptLayers(SourceLayers):
    """A TorchScript module whose forward graph returns the values asked for."""

    def __init__(self, module, ir_inputs: list, feed: list[np.ndarray]):
        import torch

        from extensions.load.pytorch.builder import split_inplace
        from extensions.load.pytorch.torchscript import _clean_name, forward_graph, source_of
        self.framework = f"PyTorch {torch.__version__} (TorchScript graph)"
        self.module = module
        self.method, graph = forward_graph(module)
        inputs = list(graph.inputs())
        self.has_self = bool(inputs) and not isinstance(inputs[0].type(), torch._C.TensorType) and \
            self.method is not None
        inputs = inputs[1:] if self.has_self else inputs
        names = [_clean_name(v.debugName()) for v in inputs]
        if any(not isinstance(v.type(), torch._C.TensorType) for v in inputs):
            raise OptionError("--validate_layers runs TorchScript models whose inputs are all tensors; this one "
                              "takes lists, tuples, dicts or numbers.")
        given = _by_name(ir_inputs, names, feed)
        self.args = [torch.from_numpy(np.ascontiguousarray(given[n])) for n in names if n in given]
        if len(self.args) != len(names):
            raise OptionError(f"--validate_layers: the TorchScript model takes {len(names)} inputs but the IR has "
                              f"{len(self.args)} of them.")
        self.tensors = []
        for node in graph.nodes():
            if node.kind() in NOT_COMPUTED:
                continue
            kind = split_inplace(node.kind())[0]
            where = source_of(node)
            for out in node.outputs():
                if isinstance(out.type(), torch._C.TensorType):
                    label = f"%{out.debugName()}" + (f" at {where}" if where else "")
                    self.tensors.append(SourceTensor(out.debugName(), kind, label))

    def values(self, names: list[str]) -> list[np.ndarray]:
        import torch

        from extensions.load.pytorch.torchscript import forward_graph
        _, graph = forward_graph(self.module)
        by_name = {out.debugName(): out for node in graph.nodes() for out in node.outputs()}
        wanted = [by_name[name] for name in names]
        for i in reversed(range(len(list(graph.outputs())))):
            graph.eraseOutput(i)
        pack = graph.create("prim::TupleConstruct", wanted, 1)
        graph.appendNode(pack)
        pack.output().setType(torch._C.TupleType([v.type() for v in wanted]))
        graph.registerOutput(pack.output())
        torch._C._jit_pass_dce(graph)
        function = torch._C._create_function_from_graph("mo_validate_layers", graph)
        with torch.no_grad():
            result = function(self.module._c, *self.args) if self.has_self else function(*self.args)
        return [_numpy(v) for v in result]


def pytorch_layers(opts, ir_inputs: list, feed: list[np.ndarray]) -> SourceLayers:
    """The PyTorch model of ``opts`` captured as the loader captures it, ready to run on ``feed``."""
    from extensions.load.pytorch.capture import capture, load_file
    from extensions.load.pytorch.checkpoint_folder import is_checkpoint_folder
    from extensions.load.pytorch.transformers_decoder import cache_argument
    model = opts.input_model
    if is_checkpoint_folder(model) or (not isinstance(model, str) and cache_argument(model) is not None):
        raise OptionError("--validate_layers does not compare transformers decoders converted with their cache: "
                          "their IR keeps no names of inner tensors. Use --validate.")
    captured = load_file(model, opts.example_input) if isinstance(model, str) else \
        capture(model, opts.example_input, opts.inputs)
    if captured.kind == "exported":
        return ExportedLayers(captured.model, ir_inputs, feed)
    if captured.kind == "torchscript":
        return TorchScriptLayers(captured.model, ir_inputs, feed)
    raise OptionError(f"--validate_layers does not run PyTorch models captured as '{captured.kind}'.")
