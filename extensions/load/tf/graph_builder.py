"""Builds an op-form Graph from TensorFlow nodes (a GraphDef, or a function for a loop or branch
body).

One node per TensorFlow operation (``fw_op`` = op type, ``pb`` = the NodeDef), a Parameter per
Placeholder and a Const per Const (read here, so ``--input``/``--output`` can work on them before
extraction), a Result per model output. Only what the outputs depend on is built. The functions
that While and If nodes run become bodies of the node: ``bodies = {"body", "cond"}`` or
``{"then_branch", "else_branch"}``; a body has one Parameter per function argument
(``tf_arg_index``) and one Result per function output (``tf_ret_index``).

Tensor names: output port i of node ``n`` carries ``n:i``, and port 0 also ``n``.
"""
from __future__ import annotations

from extensions.load.tf.attributes import attr_value
from extensions.load.tf.functions import FlatGraph, Flattener, function_graph_def, returned_refs, split_ref, tensor_ref
from extensions.load.tf.tensors import element_type_of, shape_of, tensor_to_array
from mo.errors import InputModelError
from mo.graph.graph import Graph

# ops whose function attributes become bodies of the node
BODY_ATTRS = {"While": ("body", "cond"), "StatelessWhile": ("body", "cond"),
              "If": ("then_branch", "else_branch"), "StatelessIf": ("then_branch", "else_branch")}
# ops that never produce a model output on their own
NOT_OUTPUTS = frozenset({"NoOp", "Const", "Placeholder", "Assert", "SaveV2", "RestoreV2", "VarHandleOp",
                         "VariableV2", "AssignVariableOp", "Assign"})


def default_outputs(flat: FlatGraph) -> list[str]:
    """Tensors of a graph without declared outputs: output 0 of every node nothing reads, as
    data or as a control dependency."""
    used = {split_ref(flat.resolve(i))[0] for n in flat.nodes for i in n.inputs}
    used |= {c for n in flat.nodes for c in n.controls}
    return [f"{n.name}:0" for n in flat.nodes if n.name not in used and n.op not in NOT_OUTPUTS]


class TfGraphBuilder:
    """Turns flattened TensorFlow nodes into Graphs; shared by the main graph and its bodies."""

    def __init__(self, context, library: dict, constants: dict | None = None):
        self.context = context
        self.registry = context.registry
        self.library = library
        self.constants = constants or {}
        self.flattener = Flattener(library)

    def new_graph(self, is_body: bool) -> Graph:
        graph = Graph(context=self.context)
        graph.graph.update(default_layout="NHWC", outer_inputs={})
        if is_body:
            graph.graph["is_body"] = True
        return graph

    # ------------------------------------------------------------------ entry points
    def build(self, node_defs, outputs: list[str] | None = None, inputs: list[str] | None = None) -> Graph:
        """The main graph; ``outputs`` are tensor names (default: tensors nothing reads),
        ``inputs`` the order of the model inputs (Placeholder names; default: the nodes')."""
        flat = self.flattener.flatten(node_defs)
        outputs = [tensor_ref(o) for o in outputs] if outputs else default_outputs(flat)
        if not outputs:
            raise InputModelError("The model has no outputs (every operation's result is used or is a constant).")
        if inputs:
            rank = {name: i for i, name in enumerate(inputs)}
            placeholders = sorted((n for n in flat.nodes if n.op == "Placeholder"),
                                  key=lambda n: rank.get(n.name, len(rank)))
            flat.nodes = placeholders + [n for n in flat.nodes if n.op != "Placeholder"]
        graph = self.new_graph(is_body=False)
        self._build(graph, flat, outputs, constants=self.constants)
        return graph

    def build_function(self, fname: str, where: str) -> Graph:
        """A body Graph from library function ``fname``."""
        if fname not in self.library:
            raise InputModelError(f"{where} uses function '{fname}', which the model does not define.")
        fdef = self.library[fname]
        graph_def, names = function_graph_def(fdef)
        flat = self.flattener.flatten(graph_def.node)
        outputs = returned_refs(fdef, names)
        graph = self.new_graph(is_body=True)
        args = [a.name for a in fdef.signature.input_arg]
        self._build(graph, flat, outputs, args=args)
        return graph

    # ------------------------------------------------------------------ building
    def _build(self, graph: Graph, flat: FlatGraph, outputs: list[str], args: list[str] | None = None,
               constants: dict | None = None) -> None:
        """Nodes, edges and Results; Placeholders named in ``constants`` become those Consts."""
        constants = constants or {}
        outputs = [flat.resolve(o) for o in outputs]
        by_name = {n.name: n for n in flat.nodes}
        for o in outputs:
            if split_ref(o)[0] not in by_name:
                raise InputModelError(f"Output '{o}' is not produced by any node of the model.")
        needed = self._needed(flat, by_name, outputs)
        ids: dict[str, str] = {}
        for n in flat.nodes:
            if n.name in needed or (n.op == "Placeholder" and n.name not in constants):
                ids[n.name] = self._add_node(graph, n, args, constants.get(n.name)).id
        for n in flat.nodes:
            if n.name not in ids:
                continue
            for i, ref in enumerate(n.inputs):
                src, port = split_ref(flat.resolve(ref))
                if src not in ids:
                    raise InputModelError(f"Input '{ref}' of node '{n.name}' ({n.op}) is not produced by any node.")
                self._link(graph, ids[src], port, ids[n.name], i)
        result_op = self.registry.op("Result")
        for k, o in enumerate(outputs):
            src, port = split_ref(o)
            result = result_op.create(graph, (), name=f"{o}/sink_port_0")
            self._link(graph, ids[src], port, result.id, 0)
            result["tf_output"] = o
            if args is not None:
                result["tf_ret_index"] = k

    @staticmethod
    def _needed(flat: FlatGraph, by_name: dict, outputs: list[str]) -> set[str]:
        needed: set[str] = set()
        stack = [split_ref(o)[0] for o in outputs]
        while stack:
            name = stack.pop()
            if name in needed:
                continue
            needed.add(name)
            for ref in by_name[name].inputs:
                src = split_ref(flat.resolve(ref))[0]
                if src in by_name and src not in needed:
                    stack.append(src)
        return needed

    @staticmethod
    def _link(graph: Graph, src_id: str, port: int, dst_id: str, in_idx: int) -> None:
        src = graph.node(src_id)
        names = [f"{src.name}:{port}"] + ([src.name] if port == 0 else [])
        src.out_port(port).add_tensor_names(names)
        graph.link(src_id, port, dst_id, in_idx)

    def _add_node(self, graph: Graph, n, args: list[str] | None, constant=None):
        where = f" '{n.name}'"
        if constant is not None:
            return self.registry.op("Const").create(graph, (), name=n.name, value=constant)
        if n.op == "Placeholder":
            et = element_type_of(n.pb.attr["dtype"].type, where) if "dtype" in n.pb.attr else "f32"
            shape = shape_of(n.pb.attr["shape"].shape) if "shape" in n.pb.attr else None
            node = self.registry.op("Parameter").create(graph, (), name=n.name, shape=shape, element_type=et or "f32")
            if et is None:
                node["element_type_unknown"] = True
            if args is not None and n.name in args:
                node["tf_arg_index"] = args.index(n.name)
            node.out_port(0).add_tensor_names([n.name, f"{n.name}:0"])
            return node
        if n.op == "Const":
            value, et = tensor_to_array(n.pb.attr["value"].tensor, where)
            return self.registry.op("Const").create(graph, (), name=n.name, value=value, element_type=et)
        node = graph.add_op({"name": n.name, "fw_op": n.op, "pb": n.pb, "op": None})
        if n.op in BODY_ATTRS:
            node["bodies"] = {key: self.build_function(attr_value(n.pb.attr[key]), f"Node '{n.name}' ({n.op})")
                              for key in BODY_ATTRS[n.op] if key in n.pb.attr}
        return node
