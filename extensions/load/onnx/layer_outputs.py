"""--validate_layers for ONNX models: ONNX Runtime with the model's intermediate tensors as extra
graph outputs (``OnnxLoader.source_layers``).

Every output of a node of the main graph is a tensor to compare, except what Constant nodes and
nodes of constants alone make; they are listed in the graph's node order, which ONNX requires to be
topological. Each run builds a
session whose graph outputs are the tensors asked for. The weights are handed to ONNX Runtime as
arrays over the memory-mapped file (external initializers), not in the serialized model, so
building one session per run copies no weights.
"""
from __future__ import annotations

import os

import numpy as np

from mo.errors import MissingPackageError
from mo.registry import op_key
from mo.runtime.frameworks import ONNX_TYPES, _frozen_values, _pick
from mo.runtime.layers import SourceLayers, SourceTensor

IN_MEMORY = "mo_in_memory"      # the location external initializers given to ONNX Runtime are said to have


def _externalized(proto, raw_by_name: dict, model_dir: str | None) -> tuple[list[str], list]:
    """Move the weights of ``proto``'s main graph out of it: (names, arrays) that ONNX Runtime
    takes as external initializers; weights of types numpy cannot hold as ONNX does (bfloat16,
    4-bit...) stay in the model."""
    from onnx import TensorProto, helper
    from onnx.external_data_helper import load_external_data_for_tensor

    from extensions.load.onnx.tensors import tensor_to_array
    names, arrays = [], []
    for init in proto.graph.initializer:
        raw = raw_by_name.get(init.name)
        external = init.data_location == TensorProto.EXTERNAL
        if raw is None and not external:
            continue          # values in the typed fields: small, left in the model
        value, _ = tensor_to_array(init, model_dir, raw)
        if value.dtype != helper.tensor_dtype_to_np_dtype(init.data_type):
            if raw is not None:
                init.raw_data = bytes(raw)
            else:
                load_external_data_for_tensor(init, model_dir)
                init.data_location = TensorProto.DEFAULT
                del init.external_data[:]
            continue
        init.data_location = TensorProto.EXTERNAL
        del init.external_data[:]
        entry = init.external_data.add()
        entry.key, entry.value = "location", IN_MEMORY
        names.append(init.name)
        arrays.append(value)
    return names, arrays


class OnnxLayers(SourceLayers):
    """The ONNX model in ONNX Runtime on the validation inputs."""

    def __init__(self, opts, ir_inputs: list, feed: list[np.ndarray]):
        try:
            import onnxruntime as ort
        except ImportError as e:
            raise MissingPackageError("--validate_layers of an ONNX model runs it in ONNX Runtime: pip install "
                                      "onnxruntime") from e
        from extensions.load.onnx.mapped_reader import read_model_proto
        self.ort = ort
        self.framework = f"ONNX Runtime {ort.__version__}"
        model = opts.input_model
        if isinstance(model, str):
            proto, raw_by_name = read_model_proto(model)
            self.names, arrays = _externalized(proto, raw_by_name, os.path.dirname(os.path.abspath(model)))
        else:
            proto, self.names, arrays = model.__class__(), [], []
            proto.CopyFrom(model)
        self.values_given = [ort.OrtValue.ortvalue_from_numpy(a) for a in arrays]
        self.arrays = arrays                 # ONNX Runtime reads them in place: kept alive
        self.proto = proto
        self.tensors = []
        constant = {t.name for t in proto.graph.initializer}
        for i, node in enumerate(proto.graph.node):
            if all(name in constant for name in node.input if name) and not any(a.g.node or a.graphs
                                                                                 for a in node.attribute):
                constant.update(node.output)    # a Constant node, or a node of constants alone
                continue
            key = op_key(node.op_type, "" if node.domain in ("", "ai.onnx") else node.domain)
            label = node.name or f"#{i} {node.op_type}"
            self.tensors += [SourceTensor(name, key, label) for name in node.output if name]
        initializers = {t.name for t in proto.graph.initializer}
        graph_inputs = {i.name for i in proto.graph.input if i.name not in initializers}
        self.inputs = {}
        for info, value in zip(ir_inputs, feed):
            self.inputs[_pick(info.names or [info.name], graph_inputs, "input", "the ONNX model's inputs")] = value
        for name, value in _frozen_values(opts).items():
            if name in graph_inputs:
                self.inputs[name] = np.asarray(value)

    def values(self, names: list[str]) -> list[np.ndarray]:
        from onnx import helper
        graph = self.proto.graph
        kept = list(graph.output)
        del graph.output[:]
        graph.output.extend(helper.make_empty_tensor_value_info(n) for n in names)
        try:
            serialized = self.proto.SerializeToString()
        finally:
            del graph.output[:]
            graph.output.extend(kept)
        options = self.ort.SessionOptions()
        if self.names:
            options.add_external_initializers(self.names, self.values_given)
        session = self.ort.InferenceSession(serialized, options, providers=["CPUExecutionProvider"])
        types = {i.name: ONNX_TYPES.get(i.type) for i in session.get_inputs()}
        inputs = {k: v.astype(types[k]) if types.get(k) is not None else v for k, v in self.inputs.items()
                  if k in types}
        return session.run(names, inputs)
