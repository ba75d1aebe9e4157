"""--transform MakeStateful / LowLatency2 (the legacy Model Optimizer's transforms): model state
kept between inferences in variables, read by ReadValue and written by Assign.

* ``MakeStateful[param_res_names={'state_in':'state_out'}]``: each named input becomes a
  ReadValue of a variable (zeros at the first inference; empty along dynamic dims) and each
  paired output an Assign of it, so a model that passed its state through inputs and outputs
  keeps it in the runtime. ``param_res_pattern={'past.*': 'present.*'}`` pairs every input
  whose name matches (``*``: any text) with the output named by the same text in the other; ``beam_idx=True``
  adds an input ``beam_idx`` that reorders the states along ``batch_axis`` (beam search). A
  transformers decoder's cache is made stateful this way by default (``--stateful False`` keeps
  it as inputs and outputs).
* ``LowLatency2[use_const_initializer=True]``: the hidden (and cell) states of LSTM/GRU/RNN
  sequences and the values TensorIterator/Loop carry between iterations (back edges with an
  initial input and a final output): the initial state is read from a variable (zeros at the
  first inference; with ``use_const_initializer=False`` the model's own initial state) and the
  final state assigned to it, so a long sequence can be fed chunk by chunk.
"""
from __future__ import annotations

import logging
import re

import numpy as np

from extensions.back.cleanup import RemoveDeadNodes
from extensions.back.compress_fp16 import CompressWeightsToFP16
from mo.errors import OptionError
from mo.graph.builder import OpBuilder
from mo.graph.building import dim, int_list_port
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


def _pattern_pairs(graph, pattern: str, replacement: str) -> dict[str, str]:
    """{input name: output name} of the inputs matching ``pattern``, where each ``*`` stands for
    any text, and the output named by ``replacement`` with its ``*`` replaced by that text."""
    stars = pattern.count("*")
    if not stars or replacement.count("*") != stars:
        raise OptionError(f"MakeStateful: param_res_pattern {pattern!r}: {replacement!r} must have the same number "
                          f"(at least one) of '*' on both sides, e.g. {{'past_key_values.*': 'present.*'}}.")
    regex = re.compile("(.*?)".join(re.escape(part) for part in pattern.split("*")))
    found = {}
    for param in graph.nodes_by_op("Parameter"):
        match = regex.fullmatch(param.name)
        if match:
            parts = replacement.split("*")
            found[param.name] = parts[0] + "".join(g + p for g, p in zip(match.groups(), parts[1:]))
    if not found:
        raise OptionError(f"MakeStateful: no input of the model matches {pattern!r} (inputs: "
                          f"{', '.join(sorted(p.name for p in graph.nodes_by_op('Parameter')))}).")
    return found


def _state_pairs(graph, param_res_names: dict | None, param_res_pattern: dict | None) -> list[tuple]:
    """(input name, Parameter, output name, Result) of each state: the named pairs, and those
    found by ``param_res_pattern`` (``{'past_key_values.*': 'present.*'}``)."""
    inputs, outputs = _inputs_by_name(graph), _outputs_by_name(graph)
    names = dict(param_res_names or {})
    for pattern, replacement in (param_res_pattern or {}).items():
        names.update(_pattern_pairs(graph, str(pattern), str(replacement)))
    pairs = []
    for input_name, output_name in names.items():
        param, result = inputs.get(input_name), outputs.get(output_name)
        if param is None:
            raise OptionError(f"MakeStateful: '{input_name}' is not an input of the model (inputs: "
                              f"{', '.join(sorted(p.name for p in graph.nodes_by_op('Parameter')))}).")
        if result is None:
            raise OptionError(f"MakeStateful: '{output_name}' (the next value of input '{input_name}') is not an "
                              f"output of the model (outputs: {', '.join(sorted(outputs))}).")
        pairs.append((input_name, param, output_name, result))
    return pairs


def _initial_value(graph, name: str, shape, dtype: str, batch_axis: int, batch):
    """The first value of a state of dynamic ``shape``: zeros, with each dynamic dim empty except
    the batch axis, which takes the size of input ``batch`` along the same axis. None for a
    static shape (the ReadValue then starts as zeros of it)."""
    if is_static(shape):
        return None
    if shape is None:
        raise OptionError(f"MakeStateful: input '{name}' has an unknown rank; a state needs a known rank: give its "
                          f"shape with --input \"{name}[...]\".")
    b = OpBuilder(graph, f"{name}/init")
    sizes = []
    for axis, size in enumerate(shape):
        if size >= 0:
            sizes.append(size)
        elif axis == batch_axis and batch is not None:
            sizes.append(dim(b, batch.out_port(0), batch_axis))
        else:
            sizes.append(0)
    return b.Broadcast(np.zeros((), np_dtype(dtype)), int_list_port(b, sizes))


def make_stateful(graph, param_res_names: dict | None = None, param_res_pattern: dict | None = None,
                  beam_idx: bool = False, batch_axis: int = 0) -> None:
    """Each paired input becomes a ReadValue of a variable (named, as OpenVINO names it, input name
    + output name) and its output an Assign of it. A state of dynamic shape starts empty along its
    dynamic dims, except ``batch_axis``, sized as that axis of the first other input. With
    ``beam_idx``, an input ``beam_idx`` (i32 [batch]) selects the batch entries of every state
    before use (beam search reorders its hypotheses)."""
    pairs = _state_pairs(graph, param_res_names, param_res_pattern)
    states = {param.id for _, param, _, _ in pairs}
    others = sorted((p for p in graph.nodes_by_op("Parameter") if p.id not in states), key=lambda p: p["_seq"])
    batch = next((p for p in others if (p.out_port(0).data.get_rank() or 0) > batch_axis), None)
    if beam_idx:
        if "beam_idx" in _inputs_by_name(graph):
            raise OptionError("MakeStateful[beam_idx=True]: the model already has an input named 'beam_idx'.")
        beam = graph.registry.op("Parameter").create(graph, (), name="beam_idx", shape=(-1,), element_type="i32")
        beam.out_port(0).add_tensor_names(["beam_idx"])
    for input_name, param, output_name, result in pairs:
        source = result.in_port(0).get_source()
        shape, dtype = param.out_port(0).data.get_shape(), param.out_port(0).data.get_dtype()
        if source.data.get_dtype() != dtype or (shape is not None and source.data.get_rank() not in (len(shape), None)):
            raise OptionError(f"MakeStateful: output '{output_name}' ({shape_str(source.data.get_shape())} "
                              f"{source.data.get_dtype()}) cannot be the next value of input '{input_name}' "
                              f"({shape_str(shape)} {dtype}).")
        if shape is not None and not 0 <= batch_axis < len(shape) and (beam_idx or not is_static(shape)):
            raise OptionError(f"MakeStateful: batch_axis {batch_axis} is not an axis of input '{input_name}' "
                              f"({shape_str(shape)}).")
        if not is_static(shape) and shape is not None and shape[batch_axis] < 0 and batch is None:
            raise OptionError(f"MakeStateful: input '{input_name}' has a dynamic batch dim and the model has no "
                              f"other input to take the batch size from: give its shape with --input.")
        variable = input_name + output_name
        init = _initial_value(graph, input_name, shape, dtype, batch_axis, batch)
        state = read_value(graph, f"{param.name}/state", variable, dtype, shape, init)
        value = state.out_port(0)
        if beam_idx:
            value = OpBuilder(graph, f"{param.name}/beam").Gather(value, beam.out_port(0), np.int64(batch_axis))
        param.out_port(0).get_connection().set_source(value)
        graph.remove_node(param.id)
        graph.remove_node(result.id)
        assign(graph, f"{output_name}/assign", variable, source)
    log.info("MakeStateful: %d state(s) kept in variables%s", len(pairs), " with beam_idx" if beam_idx else "")


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
    state = read_value(graph, variable, variable, dtype, shape, first)
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
        return bool(graph.options.transforms or graph.graph.get("make_stateful")) and not graph.graph.get("is_body")

    def find_and_replace_pattern(self, graph) -> None:
        for name, args in graph.options.transforms:
            TRANSFORMS[name](graph, **args)
        # a model whose loader found its state pairs (a transformers decoder's key/value cache),
        # unless --stateful False or the user's own MakeStateful
        found = graph.graph.get("make_stateful")
        if found and graph.options.stateful and not any(name == "MakeStateful" for name, _ in graph.options.transforms):
            make_stateful(graph, **found)
