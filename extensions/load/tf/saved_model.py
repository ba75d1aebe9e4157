"""A TF2 SavedModel read without TensorFlow.

``saved_model.pb`` (SavedModel -> MetaGraphDef) is parsed with the light messages of protos.py.
The signature's outputs name the outputs of a call node of the MetaGraph's graph
(``StatefulPartitionedCall``) whose inputs are the signature's input Placeholders followed by
what its function captures; the object graph lists those captures
(``concrete_functions[f].bound_inputs``: node ids of variables and constants). A variable's
value is the checkpoint tensor that the checkpoint's own object graph (``_CHECKPOINTABLE_OBJECT_GRAPH``,
same node ids) names for it, read as a view of the memory-mapped shard (tensor_bundle.py).

A SavedModel without signatures is read through its root object's ``__call__`` function (when it
has one concrete function): a call node is made for it, with Placeholders named after the
function's arguments (``_user_specified_name``) and its captures; its outputs are ``output_<i>``.

The model handed on is the call node, its inputs renamed after the signature's keys and its
captured variable handles as constants (ReadVariableOp of a constant reads it like an Identity);
the flattener inlines the function (and what it calls) with the op definitions the MetaGraph
lists. A TF1 SavedModel (no object graph) is its graph's nodes that the signature needs, each
variable the checkpoint tensor named after it. Anything else (resources other than variables, variables created inside
functions, sliced or string variables, composite signature tensors, compressed checkpoint
indexes, saved_model.pbtxt) raises Unsupported, and the caller loads the model with TensorFlow
instead, logging why.
"""
from __future__ import annotations

import os

from extensions.load.tf.frozen_model import FrozenModel, meta_outputs
from extensions.load.tf.functions import CALL_OPS, op_outputs, split_ref, tensor_ref, with_defaults
from extensions.load.tf.protos import light_class, parse_light
from extensions.load.tf.tensor_bundle import TensorBundle, UnsupportedBundle
from mo.errors import InputModelError, OptionError

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
INIT_OP_SIGNATURE = "__saved_model_init_op"
VARIABLE_OPS = ("VarHandleOp", "VariableV2", "Variable")


class Unsupported(Exception):
    """The SavedModel needs TensorFlow to load (the message says why)."""


def meta_graph_of(path: str, tags: list[str] | None):
    """The MetaGraphDef of ``saved_model.pb`` with ``tags`` (the only one when no tags are given)."""
    pb = os.path.join(path, "saved_model.pb")
    if not os.path.isfile(pb):
        raise Unsupported("it is in text form (saved_model.pbtxt)")
    with open(pb, "rb") as f:
        saved = parse_light("SavedModel", f.read(), f"'{pb}'")
    metas = list(saved.meta_graphs)
    if tags:
        metas = [m for m in metas if set(m.meta_info_def.tags) == set(tags)]
    if len(metas) != 1:
        raise Unsupported(f"it has {len(metas)} MetaGraphs{' with tags ' + ','.join(tags) if tags else ''}")
    return metas[0]


def read_saved_model(path: str, tags: list[str] | None, signature: str | None, name: str):
    """The FrozenModel of a SavedModel's signature; Unsupported when TensorFlow must load it."""
    meta = meta_graph_of(path, tags)
    signatures = {k: v for k, v in meta.signature_def.items() if k != INIT_OP_SIGNATURE}
    wanted = signature or "serving_default"
    if wanted not in signatures and (signatures or signature is not None):
        known = ", ".join(sorted(signatures)) or "none"
        raise OptionError(f"The SavedModel '{path}' has no signature '{wanted}' (signatures: {known}); "
                          f"name one with --saved_model_signature.")
    op_defs = {op.name: op for op in meta.meta_info_def.stripped_op_list.op}
    library = {f.signature.name: f for f in meta.graph_def.library.function}
    graph = {n.name: n for n in meta.graph_def.node}
    if not meta.HasField("object_graph_def") or not meta.object_graph_def.nodes:
        if wanted not in signatures:
            raise Unsupported("it has neither signatures nor an object graph")
        model = _tf1_model(os.path.join(path, "variables", "variables"), signatures[wanted], op_defs, library, graph,
                           name)
        _check_ops(library, op_defs)
        return model
    sig = signatures[wanted] if wanted in signatures else _module_call(meta, library, graph)
    for key, info in list(sig.inputs.items()) + list(sig.outputs.items()):
        if info.WhichOneof("encoding") != "name":
            raise Unsupported(f"its signature's tensor '{key}' is a sparse or composite tensor")

    # the signature's inputs, renamed after their keys, and the nodes its outputs come from
    renamed, infos = {}, {}
    for key, info in sig.inputs.items():
        node = split_ref(tensor_ref(info.name))[0]
        if graph.get(node) is None or graph[node].op != "Placeholder":
            raise Unsupported(f"its signature's input '{key}' is not a Placeholder")
        renamed[node] = key if key == node or key not in graph else node
        infos[renamed[node]] = info
    outputs = sorted(sig.outputs)
    output_refs = [tensor_ref(sig.outputs[k].name) for k in outputs]
    calls = []
    for ref in output_refs:
        node = graph.get(split_ref(ref)[0])
        if node is None:
            raise InputModelError(f"The signature '{wanted}' of '{path}' returns '{ref}', which its graph does not "
                                  f"have.")
        if node.op not in CALL_OPS:
            raise Unsupported(f"its signature returns the result of a {node.op} node, not of a function call")
        if node not in calls:
            calls.append(node)

    for call in calls:
        missing = [i for i in call.input if split_ref(tensor_ref(i.lstrip("^")))[0] not in graph]
        if missing:
            raise InputModelError(f"Node '{call.name}' of '{path}' reads '{missing[0]}', which its graph does not "
                                  f"have: the SavedModel is corrupt.")
    captures = _captures(meta, calls)
    constants = _variable_values(path, meta, captures)
    node_class = light_class("NodeDef")
    nodes, order = [], []
    for call in calls:
        for ref in call.input:
            src = split_ref(tensor_ref(ref))[0]
            if src in renamed and renamed[src] not in order:
                order.append(renamed[src])
    for new in order:
        placeholder = node_class(name=new, op="Placeholder")
        placeholder.attr["dtype"].type = infos[new].dtype
        if infos[new].HasField("tensor_shape"):
            placeholder.attr["shape"].shape.CopyFrom(infos[new].tensor_shape)
        nodes.append(placeholder)
    for call in calls:
        for ref in call.input:
            src = split_ref(tensor_ref(ref.lstrip("^")))[0]
            if ref.startswith("^") or src in renamed or src in captures or graph[src] in nodes:
                continue
            if graph[src].op != "Const":
                raise Unsupported(f"its function call reads a {graph[src].op} node of the graph")
            nodes.append(graph[src])
    nodes.extend(graph[handle] for handle in captures)
    for call in calls:
        copy = with_defaults(call, op_defs.get(call.op))
        del copy.input[:]
        for ref in call.input:
            if ref.startswith("^"):
                continue
            src, port = split_ref(tensor_ref(ref))
            copy.input.append(f"{renamed.get(src, src)}:{port}")
        nodes.append(copy)
    model = FrozenModel(nodes, library, output_refs, name, order, constants)
    model.op_defs = op_defs
    model.output_names = {ref: key for ref, key in zip(output_refs, outputs)}
    _check_ops(library, op_defs)
    return model


def read_meta_graph(path: str, checkpoint: str | None, outputs: list[str] | None, name: str):
    """The FrozenModel of a MetaGraph file (``.meta``) and its checkpoint (default: the path
    without the suffix): the outputs given, else its signature's or the graph's loose ends."""
    with open(path, "rb") as f:
        meta = parse_light("MetaGraphDef", f.read(), f"'{path}'")
    op_defs = {op.name: op for op in meta.meta_info_def.stripped_op_list.op}
    library = {f.signature.name: f for f in meta.graph_def.library.function}
    graph = {n.name: n for n in meta.graph_def.node}
    sig = light_class("SignatureDef")()
    for ref in list(outputs or []) or meta_outputs(meta, meta.graph_def):
        sig.outputs[tensor_ref(ref)].name = tensor_ref(ref)
    model = _tf1_model(checkpoint or path[: -len(".meta")], sig, op_defs, library, graph, name)
    _check_ops(library, op_defs)
    return model


def _tf1_model(prefix: str, sig, op_defs: dict, library: dict, graph: dict, name: str):
    """A TF1 graph (a SavedModel without object graph, a MetaGraph): the graph's nodes the
    signature's outputs need (by data or control), its inputs renamed after the signature's keys, and each variable
    (VariableV2, VarHandleOp) the tensor of checkpoint ``prefix`` named after it (a TF1 Saver's
    key)."""
    outputs = sorted(sig.outputs)
    output_refs = [tensor_ref(sig.outputs[k].name) for k in outputs]
    renamed = {}
    for key, info in sig.inputs.items():
        node = split_ref(tensor_ref(info.name))[0]
        if node not in graph or graph[node].op not in ("Placeholder", "PlaceholderWithDefault"):
            raise Unsupported(f"its signature's input '{key}' is not a Placeholder")
        renamed[node] = key if key == node or key not in graph else node
    needed, stack = set(renamed), [split_ref(ref)[0] for ref in output_refs]
    while stack:
        node = stack.pop()
        if node in needed:
            continue
        if node not in graph:
            raise InputModelError(f"The graph of '{name}' has no node '{node}', which its outputs need.")
        needed.add(node)
        if graph[node].op not in VARIABLE_OPS:      # control inputs too: the graph may assign variables
            stack.extend(split_ref(tensor_ref(i.lstrip("^")))[0] for i in graph[node].input)
    variables = [n for n in needed if n in graph and graph[n].op in VARIABLE_OPS]
    constants = {}
    if variables:
        try:
            if not os.path.isfile(prefix + ".index"):
                raise Unsupported(f"its checkpoint '{prefix}' is not a tensor bundle (no .index file)")
            bundle = TensorBundle(prefix)
            for n in variables:
                if n not in bundle.entries:
                    raise Unsupported(f"its checkpoint has no tensor named after variable '{n}'")
                constants[n] = bundle.tensor(n)
        except UnsupportedBundle as e:
            raise Unsupported(str(e)) from None
    nodes = []
    for nd in graph.values():
        if nd.name not in needed:
            continue
        copy = with_defaults(nd, op_defs.get(nd.op)) if nd.name in renamed or any(
            split_ref(tensor_ref(i.lstrip("^")))[0] in renamed for i in nd.input) else nd
        if copy is not nd:
            if nd.name in renamed:
                copy.name = renamed[nd.name]
            refs = list(copy.input)
            del copy.input[:]
            for ref in refs:
                src, port = split_ref(tensor_ref(ref.lstrip("^")))
                src = renamed.get(src, src)
                copy.input.append(f"^{src}" if ref.startswith("^") else f"{src}:{port}")
        nodes.append(copy)
    output_refs = [f"{renamed.get(split_ref(r)[0], split_ref(r)[0])}:{split_ref(r)[1]}" for r in output_refs]
    model = FrozenModel(nodes, library, output_refs, name, [renamed[n] for n in graph if n in renamed], constants)
    model.op_defs = op_defs
    model.output_names = dict(zip(output_refs, outputs))
    return model


def _module_call(meta, library: dict, graph: dict):
    """A signature for the root object's ``__call__`` function (a SavedModel without signatures):
    a call node added to ``graph`` that passes Placeholders named after the function's arguments
    and the function's captures; outputs ``output_<i>``."""
    objects = meta.object_graph_def
    call = next((objects.nodes[c.node_id] for c in objects.nodes[0].children
                 if c.local_name == "__call__" and 0 <= c.node_id < len(objects.nodes)), None)
    if call is None or call.WhichOneof("kind") != "function" or len(call.function.concrete_functions) != 1:
        raise Unsupported("it has no signatures and no __call__ function with one input signature")
    fname = call.function.concrete_functions[0]
    if fname not in library or fname not in objects.concrete_functions:
        raise Unsupported(f"it does not describe its __call__ function '{fname}'")
    fdef = library[fname]
    bound = list(objects.concrete_functions[fname].bound_inputs)
    args = list(fdef.signature.input_arg)
    if len(bound) > len(args):
        raise InputModelError(f"Function '{fname}' captures {len(bound)} values but takes {len(args)} arguments: "
                              f"the SavedModel is corrupt.")
    node_class, info_class = light_class("NodeDef"), light_class("TensorInfo")
    sig = light_class("SignatureDef")()
    node = node_class(name=_unused("StatefulPartitionedCall", graph), op="StatefulPartitionedCall")
    node.attr["f"].func.name = fname
    for i, arg in enumerate(args[:len(args) - len(bound)]):
        attrs = fdef.arg_attr[i].attr if i in fdef.arg_attr else {}
        key = attrs["_user_specified_name"].s.decode() if "_user_specified_name" in attrs else arg.name
        key = _unused(key, graph)
        graph[key] = node_class(name=key, op="Placeholder")
        info = info_class(name=f"{key}:0", dtype=arg.type)
        shapes = attrs["_output_shapes"].list.shape if "_output_shapes" in attrs else ()
        if len(shapes) == 1:
            info.tensor_shape.CopyFrom(shapes[0])
        sig.inputs[key].CopyFrom(info)
        node.input.append(f"{key}:0")
    for node_id in bound:
        obj = objects.nodes[node_id] if 0 <= node_id < len(objects.nodes) else None
        if obj is not None and obj.WhichOneof("kind") == "constant" and obj.constant.operation in graph:
            node.input.append(f"{obj.constant.operation}:0")
            continue
        handle = _unused(f"captured_{node_id}", graph)
        graph[handle] = node_class(name=handle, op="VarHandleOp")
        node.input.append(f"{handle}:0")
    graph[node.name] = node
    for i in range(len(fdef.signature.output_arg)):
        sig.outputs[f"output_{i}"].CopyFrom(info_class(name=f"{node.name}:{i}"))
    return sig


def _unused(name: str, graph: dict) -> str:
    """``name``, or with a numeric suffix when the graph has a node so named."""
    k, candidate = 0, name
    while candidate in graph:
        k += 1
        candidate = f"{name}_{k}"
    return candidate


def _captures(meta, calls) -> dict[str, tuple[int, object]]:
    """{graph node feeding a captured input of a call: (object graph node id, SavedObject)}."""
    objects = meta.object_graph_def
    captures = {}
    for call in calls:
        fname = call.attr["f"].func.name
        if fname not in objects.concrete_functions:
            raise Unsupported(f"its object graph does not describe function '{fname}'")
        bound = list(objects.concrete_functions[fname].bound_inputs)
        inputs = [i for i in call.input if not i.startswith("^")]
        if len(bound) > len(inputs):
            raise InputModelError(f"Function '{fname}' captures {len(bound)} values but its call passes "
                                  f"{len(inputs)} inputs: the SavedModel is corrupt.")
        for ref, node_id in zip(inputs[len(inputs) - len(bound):], bound):
            if not 0 <= node_id < len(objects.nodes):
                raise InputModelError(f"Function '{fname}' captures object {node_id}, which the object graph does "
                                      f"not have: the SavedModel is corrupt.")
            obj = objects.nodes[node_id]
            kind = obj.WhichOneof("kind")
            if kind == "constant":
                continue                        # a Const node of the graph: read as it is
            if kind != "variable" or len(obj.variable.experimental_distributed_variable_components):
                raise Unsupported(f"function '{fname}' captures a {kind or 'untyped object'}, not a variable")
            captures[split_ref(tensor_ref(ref))[0]] = (node_id, obj)
    return captures


def _variable_values(path: str, meta, captures: dict) -> dict:
    """{variable handle node: numpy view of its checkpoint tensor}."""
    if not captures:
        return {}
    prefix = os.path.join(path, "variables", "variables")
    if not os.path.isfile(prefix + ".index"):
        raise InputModelError(f"The SavedModel '{path}' has variables but no checkpoint "
                              f"('variables/variables.index' is missing).")
    try:
        bundle = TensorBundle(prefix)
        checkpoint_graph = parse_light("TrackableObjectGraph", bundle.string(OBJECT_GRAPH_KEY),
                                  f"The object graph of the checkpoint of '{path}'")
        values = {}
        for handle, (node_id, obj) in captures.items():
            key = None
            if node_id < len(checkpoint_graph.nodes):
                key = next((a.checkpoint_key for a in checkpoint_graph.nodes[node_id].attributes
                            if a.name == "VARIABLE_VALUE"), None)
            if key is None:
                raise Unsupported(f"the checkpoint does not name the value of variable '{obj.variable.name}'")
            values[handle] = bundle.tensor(key)
    except UnsupportedBundle as e:
        raise Unsupported(str(e)) from None
    return values


def _check_ops(library: dict, op_defs: dict) -> None:
    """Every op type the functions use is defined (the op list or a function)."""
    for fdef in library.values():
        for nd in fdef.node_def:
            if nd.op not in op_defs and nd.op not in library and nd.op not in op_outputs():
                raise Unsupported(f"its op list lacks the definition of '{nd.op}'")
            if nd.op in VARIABLE_OPS:
                raise Unsupported(f"function '{fdef.signature.name}' creates a variable ({nd.op})")
