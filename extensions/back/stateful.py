"""--transform MakeStateful / LowLatency2 (the legacy Model Optimizer's transforms): model state
kept between inferences in variables, read by ReadValue and written by Assign.

* ``MakeStateful[param_res_names={'state_in':'state_out'}]``: each named input becomes a
  ReadValue of a variable (zeros at the first inference) and each paired output an Assign of it,
  so a model that passed its state through inputs and outputs keeps it in the runtime.
* ``LowLatency2[use_const_initializer=True]``: the hidden (and cell) states of LSTM/GRU/RNN
  sequences and the values TensorIterator/Loop carry between iterations (back edges with an
  initial input and a final output): the initial state is read from a variable (zeros at the
  first inference; with ``use_const_initializer=False`` the model's own initial state) and the
  final state assigned to it, so a long sequence can be fed chunk by chunk.
"""
from __future__ import annotations

import logging

import numpy as np

from extensions.back.cleanup import RemoveDeadNodes
from extensions.back.compress_fp16 import CompressWeightsToFP16
from mo.errors import OptionError
from mo.graph.builder import OpBuilder
from mo.pipeline.transform import Transform
from mo.utils.shape import is_static, shape_str
from mo.utils.types import np_dtype

log = logging.getLogger("mo")

# recurrent sequence op -> (state input, state output) pairs
SEQUENCE_STATES = {"LSTMSequence": ((1, 1), (2, 2)), "GRUSequence": ((1, 1),), "RNNSequence": ((1, 1),)}


def _outputs_by_name(graph) -> dict:
    found = {}
    for result in graph.nodes_by_op("Result"):
        source = result.in_port(0).get_source()
        for name in [result.name, result.name.removesuffix("/sink_port_0")] + source.get_tensor_names():
            found.setdefault(name, result)
    return found


def _inputs_by_name(graph) -> dict:
    found = {}
    for param in graph.nodes_by_op("Parameter"):
        for name in [param.name] + param.out_port(0).get_tensor_names():
            found.setdefault(name, param)
    return found


def read_value(graph, name: str, variable_id: str, dtype: str, shape, init=None):
    """A ReadValue node of a new variable, fed ``init`` (None: zeros of the static ``shape``)."""
    return graph.registry.op("ReadValue").create(graph, [init] if init is not None else [], name=name,
                                                 variable_id=variable_id, variable_type=dtype,
                                                 variable_shape=tuple(shape) if shape is not None else None)


def assign(graph, name: str, variable_id: str, value) -> None:
    graph.registry.op("Assign").create(graph, [value], name=name, variable_id=variable_id)


def make_stateful(graph, param_res_names: dict) -> None:
    inputs, outputs = _inputs_by_name(graph), _outputs_by_name(graph)
    for input_name, output_name in param_res_names.items():
        param, result = inputs.get(input_name), outputs.get(output_name)
        if param is None:
            raise OptionError(f"MakeStateful: '{input_name}' is not an input of the model (inputs: "
                              f"{', '.join(sorted(p.name for p in graph.nodes_by_op('Parameter')))}).")
        if result is None:
            raise OptionError(f"MakeStateful: '{output_name}' is not an output of the model (outputs: "
                              f"{', '.join(sorted(outputs))}).")
        source = result.in_port(0).get_source()
        shape, dtype = param.out_port(0).data.get_shape(), param.out_port(0).data.get_dtype()
        if not is_static(shape):
            raise OptionError(f"MakeStateful: input '{input_name}' has the dynamic shape {shape_str(shape)}; a "
                              f"state starts as zeros of a known shape: give it with --input \"{input_name}[...]\".")
        if source.data.get_dtype() != dtype or source.data.get_shape() not in (shape, None):
            raise OptionError(f"MakeStateful: output '{output_name}' ({shape_str(source.data.get_shape())} "
                              f"{source.data.get_dtype()}) cannot be the next value of input '{input_name}' "
                              f"({shape_str(shape)} {dtype}).")
        variable = f"{input_name}->{output_name}"
        state = read_value(graph, f"{param.name}/state", variable, dtype, shape)
        param.out_port(0).get_connection().set_source(state.out_port(0))
        graph.remove_node(param.id)
        graph.remove_node(result.id)
        assign(graph, f"{output_name}/assign", variable, source)


def keep_state(graph, node, in_idx: int, final, variable: str, use_const_initializer: bool) -> None:
    """Input ``in_idx`` of ``node`` (an initial state) reads variable ``variable``, first
    initialised with zeros (``use_const_initializer``) or the input's own value, and the output
    port ``final`` (the final state) is assigned to it."""
    port = node.in_port(in_idx)
    init = port.get_source()
    shape, dtype = init.data.get_shape(), init.data.get_dtype()
    if not use_const_initializer:
        first = init
    elif is_static(shape):
        first = None
    else:
        b = OpBuilder(graph, variable)
        first = b.Broadcast(np.zeros((), np_dtype(dtype)), b.ShapeOf(init))
    state = read_value(graph, variable, variable, dtype,
                       shape if first is None else (tuple(-1 for _ in shape) if shape is not None else None), first)
    port.disconnect()
    state.out_port(0).connect(port)
    assign(graph, f"{variable}/assign", variable, final)


def _loop_states(node) -> list[tuple[int, int]]:
    """(input, output) ports of a TensorIterator/Loop carried by a back edge: the input that
    gives the initial value and the output that gives the last iteration's value."""
    pairs = []
    for edge in node.back_edges:
        ins = [e["external_port_id"] for e in node.input_port_map
               if e["internal_id"] == edge["to"] and e.get("axis") is None and e["external_port_id"] >= 0]
        outs = [e["external_port_id"] for e in node.output_port_map
                if e["internal_id"] == edge["from"] and e.get("axis") is None and e["external_port_id"] >= 0]
        if ins and outs:
            pairs.append((ins[0], outs[0]))
        else:
            log.info("LowLatency2: a state of %s '%s' has no initial input or no final output; it stays in the loop",
                     node.op, node.name)
    return pairs


def low_latency2(graph, use_const_initializer: bool = True) -> None:
    count = 0
    for op in ("LSTMSequence", "GRUSequence", "RNNSequence", "TensorIterator", "Loop"):
        for node in graph.nodes_by_op(op):
            pairs = SEQUENCE_STATES.get(op) or _loop_states(node)
            for k, (in_idx, out_idx) in enumerate(pairs):
                keep_state(graph, node, in_idx, node.out_port(out_idx), f"{node.name}/state_{k}", use_const_initializer)
                count += 1
    if not count:
        log.warning("LowLatency2: the model has no LSTM, GRU or RNN sequence and no loop with a state; nothing was "
                    "made stateful.")
    else:
        log.info("LowLatency2: %d recurrent state(s) kept in variables", count)


TRANSFORMS = {"MakeStateful": make_stateful, "LowLatency2": low_latency2}


class StatefulTransforms(Transform):
    """Applies the --transform list to the converted model (main graph)."""

    phase = "back"

    def run_before(self):
        return [CompressWeightsToFP16, RemoveDeadNodes]

    def graph_condition(self, graph) -> bool:
        return bool(graph.options.transforms) and not graph.graph.get("is_body")

    def find_and_replace_pattern(self, graph) -> None:
        for name, args in graph.options.transforms:
            TRANSFORMS[name](graph, **args)
