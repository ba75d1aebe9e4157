"""Applies --input, --input_shape, --batch and --output to a freshly loaded op-form graph:
overrides input shapes and types, and cuts the graph at named tensors."""
from __future__ import annotations

import logging
import math
from typing import Callable

from mo.cli.input_spec import InputSpec
from mo.errors import ConversionError, InputModelError, OptionError
from mo.graph.building import COMPLEX_TYPES, is_complex, mark_complex
from mo.graph.node import Node
from mo.graph.port import Port
from mo.pipeline.progress import human_bytes
from mo.utils.shape import shape_str
from mo.utils.types import bit_width

log = logging.getLogger("mo")


def find_tensor(graph, name: str) -> Port | None:
    """Output port that carries tensor ``name``; ``node:N`` / a node name selects a node output."""
    for node in graph.op_nodes():
        for idx, names in (node.get("tensor_names") or {}).items():
            if name in names:
                return node.out_port(idx)
    base, _, port = name.rpartition(":")
    candidates = [(base, int(port))] if port.isdigit() and base else []
    candidates.append((name, 0))
    for node_name, idx in candidates:
        for node in graph.op_nodes():
            if node.name == node_name and node.op != "Result":
                return node.out_port(idx)
    return None


def find_input_port(graph, name: str):
    """The input port named by the legacy form ``N:node`` (input N of node ``node``), unless a
    tensor has that name; None otherwise."""
    index, sep, node_name = name.partition(":")
    if not sep or not index.isdigit() or any(name in names for n in graph.op_nodes()
                                             for names in (n.get("tensor_names") or {}).values()):
        return None
    for node in graph.op_nodes():
        if node.name == node_name and node.op != "Parameter":
            if not node.is_in_port_connected(int(index)):
                raise OptionError(f"--input '{name}': node '{node_name}' has no input {index}.")
            return node.in_port(int(index))
    return None


def _model_inputs(graph) -> list[Node]:
    return sorted((n for n in graph.nodes_by_op("Parameter")), key=lambda n: n["_seq"])


def _set_input(param: Node, spec: InputSpec, shape: tuple | None) -> None:
    et = spec.element_type
    if et in COMPLEX_TYPES:     # a complex input: its logical shape given, [..., 2] pairs of the parts' type
        shape = None if shape is None else tuple(shape) + (2,)
        if param.shape is not None and not is_complex(param.out_port(0)):
            param["shape"] = tuple(param.shape) + (2,)
        mark_complex(param.out_port(0))
        et = COMPLEX_TYPES[et]
    if shape is not None:
        declared = param.shape
        if declared is not None and is_complex(param.out_port(0)) and len(shape) == len(declared) - 1:
            shape = tuple(shape) + (2,)     # a complex input's logical shape: its pairs' dim added
        if declared is not None and len(declared) != len(shape):
            raise OptionError(
                f"Shape {shape_str(shape)} given for input '{param.name}' has rank {len(shape)}, but the "
                f"model's input has shape {shape_str(declared)} (rank {len(declared)}).")
        param["shape"] = tuple(shape)
        param["shape_bounds"] = {axis: b for axis, b in spec.bounds.items() if shape[axis] < 0}
        param["shape_given"] = True
    if et is not None:
        declared = None if param.get("element_type_unknown") else param.get("element_type")
        param["element_type"] = et
        param["element_type_unknown"] = False
        if declared is not None and declared != et:
            convert_input(param, declared)


def convert_input(param: Node, element_type: str) -> None:
    """The model computes on ``element_type``; its input now takes another type: a Convert after
    the Parameter gives the model what it declared (as OpenVINO's converter does)."""
    consumers = param.out_port(0).get_destinations()
    convert = param.graph.registry.op("Convert").create(param.graph, [param.out_port(0)],
                                                        name=f"{param.name}/to_{element_type}",
                                                        destination_type=element_type)
    convert["input_convert"] = True
    if is_complex(param.out_port(0)):
        mark_complex(convert.out_port(0))
    for port in consumers:
        convert.out_port(0).connect(port)


def resolve_input(graph, spec: InputSpec, index: int, params: list[Node]) -> tuple[Port, Port | None]:
    """The output port an --input entry names, and the one input port it cuts when it has the
    ``N:node`` form (None: every consumer of the output port is cut)."""
    if spec.name is None:
        if index >= len(params):
            raise OptionError(f"--input item {index + 1} has no name and the model has only "
                              f"{len(params)} inputs.")
        return params[index].out_port(0), None
    in_port = find_input_port(graph, spec.name)
    target = in_port.get_source() if in_port is not None else find_tensor(graph, spec.name)
    if target is None:
        names = ", ".join(p.name for p in params) or "none"
        raise OptionError(f"--input names '{spec.name}', which is not an input, tensor or node "
                          f"of the model (its inputs: {names}).")
    return target, in_port


def is_inner_cut(target: Port, in_port: Port | None) -> bool:
    """Whether the entry makes a new Parameter (an inner tensor or one input of a node)."""
    return in_port is not None or target.node.op != "Parameter"


# infers (shape, element type, complex) of the tensors that --input entries name, from the graph
# before the cut (mo/pipeline/convert.py: a partial conversion of what computes them)
CutInference = Callable[[list[InputSpec]], list[tuple[tuple | None, str | None, bool]]]


def mark_probes(graph, specs: list[InputSpec]) -> list[Node]:
    """Results on the tensors ``specs`` name, replacing the model's outputs: the graph then
    computes only those tensors (to infer their shapes and types)."""
    params = _model_inputs(graph)
    ports = [resolve_input(graph, spec, i, params)[0] for i, spec in enumerate(specs)]
    for result in graph.nodes_by_op("Result"):
        graph.remove_node(result.id)
    results = [graph.registry.op("Result").create(graph, [port], name=f"probe_{i}") for i, port in enumerate(ports)]
    graph.remove_dead_nodes()
    return results


def _missing(spec: InputSpec, shape: tuple | None) -> bool:
    return spec.value is None and (shape is None or spec.element_type is None)


def _infer(pending: list[InputSpec], shapes: dict, infer: CutInference | None) -> dict:
    """{id(spec): (shape, type, complex)} of the pending entries; {} when the part of the model
    that computes them does not convert and only their types were missing (taken as f32)."""
    if not pending or infer is None:
        return {}
    try:
        return dict(zip(map(id, pending), infer(pending)))
    except ConversionError as e:
        unshaped = [s.name for s in pending if shapes[id(s)] is None]
        if unshaped:
            raise OptionError(
                f"--input '{unshaped[0]}' names an inner tensor without a shape, and its shape cannot be inferred: "
                f"converting the part of the model that computes it fails ({e}). Give its shape and type: "
                f"--input \"{unshaped[0]}[1,3,?,?]{{f32}}\" (? for a dynamic dimension).") from e
        log.warning("The element types of %s cannot be inferred (%s); they are taken as f32 (give them in "
                    "--input as name[shape]{type} otherwise).", ", ".join(f"'{s.name}'" for s in pending), e)
        return {}


def _cut_input(graph, spec: InputSpec, shape: tuple | None, target: Port, in_port: Port | None,
               inferred: tuple | None) -> None:
    """A new Parameter in place of the tensor ``target`` (or of its edge into ``in_port``): its
    shape and type are the ones given, else those inferred from the uncut graph; its tensor
    names are the tensor's when it replaces the whole tensor, else the --input name."""
    et = spec.element_type
    computes_in = None
    is_cplx = False
    given = shape is not None
    if inferred is not None:
        inferred_shape, computes_in, is_cplx = inferred
        if shape is None:
            if inferred_shape is None:
                raise OptionError(f"--input '{spec.name}' names an inner tensor whose rank cannot be inferred "
                                  f"from the model; give its shape: --input \"{spec.name}[...]\" "
                                  f"(? for a dynamic dimension).")
            shape = inferred_shape
    param = graph.registry.op("Parameter").create(graph, (), name=spec.name, shape=shape,
                                                  element_type=et or computes_in or "f32")
    if shape is not None:
        param["shape_bounds"] = {axis: b for axis, b in spec.bounds.items() if shape[axis] < 0}
        param["shape_given"] = given
    if is_cplx:
        mark_complex(param.out_port(0))
    if in_port is not None:
        in_port.disconnect()
        if not target.get_destinations():        # the cut edge was the tensor's only use
            param.out_port(0).add_tensor_names(target.remove_tensor_names())
        param.out_port(0).connect(in_port)
    else:
        target.get_connection().set_source(param.out_port(0))
    if not param.out_port(0).get_tensor_names():
        param.out_port(0).add_tensor_names([spec.name])
    if et is not None and computes_in is not None and et != computes_in:
        convert_input(param, computes_in)


def apply_cut(graph, opts, infer: CutInference | None = None) -> None:
    """Apply the input/output options of ``opts`` to ``graph``. A new input made at an inner
    tensor takes the shape and type ``infer`` finds for it where --input does not give them."""
    registry = graph.registry
    cut = False
    if opts.outputs:
        ports = []
        for name in opts.outputs:
            port = find_tensor(graph, name)
            if port is None:
                raise OptionError(f"--output names '{name}', which is not a tensor or node of the model.")
            ports.append((name, port))
        for result in graph.nodes_by_op("Result"):
            graph.remove_node(result.id)
        for name, port in ports:
            result = registry.op("Result").create(graph, [port], name=f"{name}/sink_port_0")
            result["onnx_output"] = name
        cut = True

    specs = list(opts.inputs)
    shapes = list(opts.input_shape)
    if shapes and not specs:
        params = _model_inputs(graph)
        if len(shapes) > len(params):
            raise OptionError(f"--input_shape gives {len(shapes)} shapes but the model has {len(params)} inputs.")
        specs = [InputSpec(p.name) for p in params[:len(shapes)]]
    params_by_order = _model_inputs(graph)
    entries = []
    for i, spec in enumerate(specs):
        shape = shapes[i] if i < len(shapes) else spec.shape
        target, in_port = resolve_input(graph, spec, i, params_by_order)
        if spec.element_type in COMPLEX_TYPES and (spec.value is not None or is_inner_cut(target, in_port)):
            raise OptionError(f"--input '{spec.name}': a complex type is supported for model inputs only, "
                              f"without a value.")
        entries.append((spec, shape, target, in_port))
    pending = [spec for spec, shape, target, in_port in entries
               if is_inner_cut(target, in_port) and _missing(spec, shape)]
    inferred = _infer(pending, {id(spec): shape for spec, shape, *_ in entries}, infer)
    for spec, shape, target, in_port in entries:
        if spec.value is not None:
            const = registry.op("Const").create(graph, (), name=spec.name, value=spec.value,
                                                element_type=spec.element_type)
            target.get_connection().set_source(const.out_port(0))
            cut = True
        elif not is_inner_cut(target, in_port):
            _set_input(target.node, spec, shape)
        else:
            _cut_input(graph, spec, shape, target, in_port, inferred.get(id(spec)))
            cut = True

    if opts.batch is not None:
        for param in graph.nodes_by_op("Parameter"):
            if not param.shape:
                raise OptionError(f"--batch cannot be applied to input '{param.name}' whose rank is unknown "
                                  f"or zero; give its shape with --input.")
            param["shape"] = (opts.batch,) + tuple(param.shape[1:])
    if cut:
        graph.remove_dead_nodes()
        if not graph.nodes_by_op("Result"):
            raise OptionError("After cutting, the model has no outputs.")
    check_model_inputs(graph, opts)


# A model input the model declares larger than this (bytes) is taken for a corrupt declaration
# unless --input gives its shape: the runtime would allocate it when compiling the IR.
MAX_DECLARED_INPUT_BYTES = 2 ** 31


def check_model_inputs(graph, opts) -> None:
    """Refuse model inputs the runtime cannot take, where the model enters: a dimension below -1,
    or a declared static size beyond MAX_DECLARED_INPUT_BYTES. Each is fixed by giving the shape
    with --input."""
    where = f"of '{opts.input_model}'" if isinstance(opts.input_model, str) else "of the model"
    for param in _model_inputs(graph):
        shape, name = param.shape, param.name
        fix = f"give its shape with --input \"{name}[...]\" (? for a dynamic dimension)"
        if shape is None:
            continue            # refused before emission (mo/pipeline/validate.py) unless the model fixes it
        dims = "[" + ",".join("?" if d == -1 else str(d) for d in shape) + "]"
        bad = [d for d in shape if d < -1]
        if bad:
            raise InputModelError(f"Input '{name}' {where} declares the shape {dims}: {bad[0]} is not a dimension "
                                  f"(a size, or -1 for a dynamic one); the model is invalid. To convert it anyway, "
                                  f"{fix}.")
        if param.get("shape_given"):
            continue
        et = param.get("element_type") or "f32"
        # dynamic and zero dims counted as 1: a huge dimension beside a zero one is corrupt too
        size = math.prod(max(d, 1) for d in shape) * bit_width(et) // 8
        if size > MAX_DECLARED_INPUT_BYTES:
            raise InputModelError(
                f"Input '{name}' {where} declares the shape {dims} of {et}: its dimensions make {human_bytes(size)} "
                f"in one tensor, which the runtime would allocate when compiling the IR. Such a declaration is taken "
                f"to be corrupt; if the model does take inputs this large, {fix}.")
