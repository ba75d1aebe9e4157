"""Builds an op-form Graph from an ONNX GraphProto (the main graph or an If/Loop/Scan body).

One node per ONNX node (``fw_op`` = op type, ``domain``, ``opset`` = the version of its domain,
``pb`` = the NodeProto), a Parameter per graph input that is not an initializer, a Const per
initializer, a Result per graph output. A body graph may read tensors of the enclosing graphs by
name: each such name becomes a Parameter of the body listed in ``graph.graph['outer_inputs']``,
and the node that owns the body gets that tensor as an extra input.
"""
from __future__ import annotations

import functools

from extensions.load.onnx.tensors import WIDENED, tensor_to_array, type_proto_info
from mo.errors import InputModelError
from mo.graph.graph import Graph

DEFAULT_DOMAINS = ("", "ai.onnx")


def opset_table(opset_imports) -> dict[str, int]:
    table = {}
    for o in opset_imports:
        table["" if o.domain in DEFAULT_DOMAINS else o.domain] = int(o.version)
    return table


def require_utf8(text, what: str) -> None:
    """ONNX strings are UTF-8; protobuf hands over bytes where they are not."""
    if isinstance(text, bytes):
        raise InputModelError(f"The name of {what} is not UTF-8 text ({text!r}), as ONNX requires: the model "
                              f"file is corrupt.")


@functools.lru_cache(maxsize=None)
def _schema(op_type: str, opset: int, domain: str):
    """The schema of the op in the node's opset; for an op that opset does not have yet, its
    first schema (the translators take it as that version); None for an op onnx does not know."""
    import onnx.defs
    try:
        return onnx.defs.get_schema(op_type, opset, domain or "")
    except Exception:
        pass
    try:
        first = min(s.since_version for s in onnx.defs.get_all_schemas_with_history()
                    if s.name == op_type and s.domain == (domain or ""))
        return onnx.defs.get_schema(op_type, first, domain or "")
    except Exception:       # an op of a domain the onnx package does not know
        return None


def check_node(proto, name: str, domain: str, opset: int) -> None:
    """The node gives every input its operator requires and no more inputs or outputs than it
    takes (an empty name is an omitted optional input), as the ONNX schema of its opset says."""
    schema = _schema(proto.op_type, opset, domain)
    if schema is None:
        return
    what = f"Node '{name}' ({proto.op_type}, opset {opset})"
    inputs = list(proto.input)
    formal = list(schema.inputs)
    single = type(formal[0].option).Single if formal else None
    for i, param in enumerate(formal):
        if param.option == single and (i >= len(inputs) or not inputs[i]):
            raise InputModelError(f"{what} lacks its required input {i} ('{param.name}'): the model is invalid.")
    given = len(inputs)
    while given and not inputs[given - 1]:
        given -= 1
    if given > schema.max_input or given < schema.min_input:
        raise InputModelError(f"{what} has {given} inputs where the operator takes "
                              f"{_count_range(schema.min_input, schema.max_input)}: the model is invalid.")
    if len(proto.output) > schema.max_output or len(proto.output) < schema.min_output:
        raise InputModelError(f"{what} has {len(proto.output)} outputs where the operator gives "
                              f"{_count_range(schema.min_output, schema.max_output)}: the model is invalid.")
    given_attrs = {a.name: a for a in proto.attribute}
    for attr_name, attr in schema.attributes.items():
        if attr.required and attr_name not in given_attrs:
            raise InputModelError(f"{what} lacks its required attribute '{attr_name}': the model is invalid.")
    for attr_name, given in given_attrs.items():
        expected = schema.attributes.get(attr_name)
        if expected is None:
            raise InputModelError(f"{what} has an attribute '{attr_name}' that the operator does not define: "
                                  f"the model is invalid.")
        if given.type != int(expected.type.value):
            from onnx import AttributeProto
            raise InputModelError(f"{what} has attribute '{attr_name}' of type "
                                  f"{AttributeProto.AttributeType.Name(given.type)} where the operator takes "
                                  f"{expected.type.name}: the model is invalid.")


# OpenVINO element type -> the ONNX tensor type it holds (types the loader widens are not listed)
ONNX_TENSOR_TYPES = {"f32": "float", "f16": "float16", "f64": "double", "bf16": "bfloat16", "i8": "int8",
                     "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8", "u16": "uint16", "u32": "uint32",
                     "u64": "uint64", "boolean": "bool", "string": "string", "f8e4m3": "float8e4m3fn",
                     "f8e5m2": "float8e5m2", "i4": "int4", "u4": "uint4"}


def check_input_types(node) -> None:
    """The element type of each input of an ONNX node is one its operator's schema allows there
    (its type constraint): called by the translate step once the inputs are inferred, so a model
    that feeds an operator a type it does not take is refused, naming the node and the input,
    instead of becoming an IR the runtime refuses."""
    from mo.graph.building import is_complex, node_label
    proto = node.get("pb")
    schema = None if proto is None else _schema(proto.op_type, node.get("opset", 1), node.get("domain", ""))
    if schema is None or not schema.inputs:
        return
    constraints = {c.type_param_str: set(c.allowed_type_strs) for c in schema.type_constraints}
    variadic = type(schema.inputs[0].option).Variadic
    for i in range(len(proto.input)):
        if not proto.input[i] or not node.is_in_port_connected(i):
            continue
        formal = schema.inputs[min(i, len(schema.inputs) - 1)]
        if i >= len(schema.inputs) and formal.option != variadic:
            return
        source = node.in_port(i).get_source()
        onnx_type = ONNX_TENSOR_TYPES.get(source.data.get_dtype())
        allowed = constraints.get(formal.type_str, {formal.type_str})
        if (onnx_type is None or is_complex(source) or source.node.get("onnx_widened")
                or not any(a.startswith("tensor(") for a in allowed)):
            continue
        if f"tensor({onnx_type})" not in allowed:
            names = sorted(a[7:-1] for a in allowed if a.startswith("tensor("))
            raise InputModelError(
                f"Input {i} ('{formal.name}') of {node_label(node)} is a tensor of {onnx_type}, where {proto.op_type} "
                f"takes {', '.join(names)}: the model is invalid.")


def _count_range(low: int, high: int) -> str:
    if high >= 2 ** 30:
        return f"at least {low}"
    return str(low) if low == high else f"{low} to {high}"


class OnnxGraphBuilder:
    """Turns GraphProtos into Graphs; shared by the main graph and every nested body."""

    def __init__(self, context, opsets: dict[str, int], model_dir: str | None, expander=None,
                 raw_data: dict | None = None):
        self.raw_data = raw_data or {}
        self.context = context
        self.registry = context.registry
        self.opsets = opsets
        self.model_dir = model_dir
        self.expander = expander

    def new_graph(self, is_body: bool = False) -> Graph:
        graph = Graph(context=self.context)
        graph.graph.update(opsets=self.opsets,
                           model_dir=self.model_dir, outer_inputs={}, is_body=is_body)
        return graph

    def build(self, graph_proto, is_body: bool = False) -> Graph:
        graph = self.new_graph(is_body)
        tensors: dict[str, tuple[str, int]] = {}   # tensor name -> (node id, out port)
        const_op = self.registry.op("Const")
        param_op = self.registry.op("Parameter")

        for item in (*graph_proto.initializer, *graph_proto.input, *graph_proto.output):
            require_utf8(item.name, "a graph input, output or initializer")
        for init in list(graph_proto.initializer) + [s.values for s in graph_proto.sparse_initializer]:
            value, et = tensor_to_array(init, self.model_dir, self.raw_data.get(init.name))
            node = const_op.create(graph, (), name=init.name, value=value, element_type=et)
            node["onnx_widened"] = init.data_type in WIDENED
            node.out_port(0).add_tensor_names([init.name])
            tensors[init.name] = (node.id, 0)

        for inp in graph_proto.input:
            if inp.name in tensors:
                continue   # an initializer listed as input: its value is the default, kept constant
            et, shape = type_proto_info(inp.type, f" of input '{inp.name}'")
            if not inp.type.HasField("tensor_type") and inp.type.WhichOneof("value") is not None:
                kind = inp.type.WhichOneof("value")
                if not is_body:
                    raise InputModelError(f"Model input '{inp.name}' is a {kind}; only tensor inputs can be converted.")
            node = param_op.create(graph, (), name=inp.name, shape=shape, element_type=et or "f32")
            node["onnx_input"] = True
            node["onnx_widened"] = inp.type.tensor_type.elem_type in WIDENED
            if et is None:
                node["element_type_unknown"] = True
            node.out_port(0).add_tensor_names([inp.name])
            tensors[inp.name] = (node.id, 0)

        for proto in graph_proto.node:
            self._add_node(graph, proto, tensors)

        result_op = self.registry.op("Result")
        for out in graph_proto.output:
            src = self._source(graph, out.name, tensors)
            if src is None:
                raise InputModelError(f"Graph output '{out.name}' is not produced by any node.")
            result = result_op.create(graph, (), name=f"{out.name}/sink_port_0")
            graph.node(src[0]).out_port(src[1]).connect(result.in_port(0))
            et, shape = type_proto_info(out.type, f" of output '{out.name}'")
            result["onnx_output"] = out.name
            result["declared_type"] = et
            result["declared_shape"] = shape
        return graph

    def _source(self, graph, name: str, tensors: dict) -> tuple[str, int] | None:
        """Producer of tensor ``name``; in a body, an unknown name comes from the outer graph."""
        if name in tensors:
            return tensors[name]
        if graph.graph.get("is_body"):
            param = self.registry.op("Parameter").create(graph, (), name=name, shape=None, element_type="f32")
            param["outer_name"] = name
            param["element_type_unknown"] = True
            graph.graph["outer_inputs"][name] = param.id
            tensors[name] = (param.id, 0)
            return tensors[name]
        return None

    def build_body(self, graph_proto) -> Graph:
        """A nested graph (If branch, Loop/Scan body)."""
        # its own builder: the memory-mapped payloads belong to the main graph's initializers
        sub = OnnxGraphBuilder(self.context, self.opsets, self.model_dir, self.expander)
        return sub.build(graph_proto, is_body=True)

    def _add_node(self, graph, proto, tensors: dict, opset: int | None = None) -> None:
        for text in (proto.name, proto.op_type, proto.domain, *proto.input, *proto.output):
            require_utf8(text, f"node {text!r}" if text is proto.name else f"a name in node {proto.name!r}")
        domain = "" if proto.domain in DEFAULT_DOMAINS else proto.domain
        if self.expander is not None and self.expander.should_expand(proto, domain):
            body = self.expander.expand(proto, domain)
            if body is not None:
                for inner, inner_opset in body:
                    self._add_node(graph, inner, tensors, inner_opset)
                return
        name = proto.name or next((o for o in proto.output if o), proto.op_type)
        check_node(proto, name, domain, opset if opset is not None else self.opsets.get(domain, 1))
        node = graph.add_op({"name": name, "fw_op": proto.op_type, "domain": domain, "pb": proto,
                             "opset": opset if opset is not None else self.opsets.get(domain, 1),
                             "op": None, "input_check": check_input_types})
        node["num_outputs"] = len(proto.output)
        for i, tensor in enumerate(proto.input):
            if not tensor:
                continue
            src = self._source(graph, tensor, tensors)
            if src is None:
                raise InputModelError(
                    f"Input '{tensor}' of node '{name}' ({proto.op_type}) is not produced by any node, "
                    f"graph input or initializer.")
            graph.link(src[0], src[1], node.id, i)
        bodies = {}
        for attr in proto.attribute:
            if attr.type == attr.GRAPH:
                bodies[attr.name] = self.build_body(attr.g)
        if bodies:
            node["bodies"] = bodies
            extra = []
            for body in bodies.values():
                extra.extend(n for n in body.graph["outer_inputs"] if n not in extra)
            node["outer_names"] = extra
            for j, tensor in enumerate(extra):
                src = self._source(graph, tensor, tensors)
                if src is None:
                    raise InputModelError(f"Tensor '{tensor}' used in a body of node '{name}' is not defined.")
                graph.link(src[0], src[1], node.id, len(proto.input) + j)
        for i, tensor in enumerate(proto.output):
            if tensor:
                node.out_port(i).add_tensor_names([tensor])
                tensors[tensor] = (node.id, i)

