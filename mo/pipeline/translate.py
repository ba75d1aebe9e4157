"""The translate step: one topological walk that infers every op and translates every framework op.

``translate_graph(graph)`` visits the op nodes of a data-form graph in topological order. An
opset op (or an internal op a rewrite uses) is inferred: output element types, shapes, and
values where every input value is known (constant folding; see ``mo/pipeline/infer.py``). A
framework op (``is_framework_op``: an extracted node whose framework op type has a translator)
is handed to its translator, which sees every input already inferred and builds the opset
sub-graph with an OpBuilder; the new nodes are inferred as they are created, and the framework
node's consumers and tensor names move to the ports the translator returns. Bodies of sub-graph
ops are walked the same way when their op is inferred.

A node with a complex input (``is_complex``: a [..., 2] tensor of (real, imaginary) pairs) goes
to the op type's complex translator (``complex_translator``) instead, whether it is a framework
op or an opset op its extractor set; an op type without one is refused, naming the input.
"""
from __future__ import annotations

import time

from mo.errors import ConversionError, ExtensionError, GraphError
from mo.front.translator import COMPLEX_KEY
from mo.graph.builder import OpBuilder
from mo.graph.building import COMPLEX_OUTPUTS, COMPLEX_VALUES, is_complex, node_label
from mo.graph.node import Node
from mo.graph.port import Port
from mo.pipeline.extract import is_framework_op
from mo.pipeline.infer import infer_node
from mo.utils.origin import class_origin, is_user_class
from mo.utils.shape import shape_str


def translate_graph(graph) -> None:
    """Infer or translate every op node of a data-form graph, in topological order."""
    assert graph.data_form, "translation runs on a data-form graph"
    order = graph.topological_ops()
    progress = graph.context.progress if not graph.graph.get("is_body") else None
    if progress is not None:
        progress.step("translate", len(order))
    for node in order:
        if node.id not in graph:
            continue
        fn = _complex_translator(node)
        if fn is not None:
            translate_node(node, fn)
        elif is_framework_op(node):
            translate_node(node)
        else:
            infer_node(node)
        if progress is not None:
            progress.advance()


def _complex_translator(node: Node):
    """The complex translator of ``node`` when one of its inputs is complex (None when none is);
    a ConversionError when its op type has none. Results take the [..., 2] form as it is, and a
    node whose outputs are marked complex already was made for complex inputs (the Convert of a
    complex model input given another type)."""
    if node.get("op") == "Result" or not node.graph.graph.get(COMPLEX_VALUES) or node.get(COMPLEX_OUTPUTS):
        return None
    inputs = [i for i in sorted(node.in_ports()) if node.is_in_port_connected(i)
              and is_complex(node.in_port(i).get_source())]
    if not inputs:
        return None
    context = node.graph.context
    key = node.get("translate") or node.get("fw_op") or node.op
    fn = context.registry.translator(context.framework + COMPLEX_KEY, key)
    if fn is None:
        raise ConversionError(f"Cannot translate node {node_label(node)}: its input {inputs[0]} is a complex "
                              f"tensor, and {key} is converted only for real inputs.")
    return fn


def translate_node(node: Node, fn=None) -> list[Port | None]:
    """Replace the framework op ``node`` by what its translator (or ``fn``) builds; returns the
    ports that took over the node's outputs, in order (for callers that copy framework ops into a
    graph, such as body inlining, and wire the results themselves)."""
    graph = node.graph
    context = graph.context
    key = node.get("translate") or node.get("fw_op") or node.op
    fn = fn or context.registry.translator(context.framework, key)
    if fn is None:
        raise GraphError(f"No translator is registered for node {node_label(node)}.")
    first_new = graph._seq
    started = time.perf_counter()
    framework_check = node.get("input_check")
    if framework_check is not None:
        framework_check(node)
    try:
        outputs = fn(node, OpBuilder(graph, node.name))
        outputs = _checked_outputs(node, outputs)
    except ConversionError as e:
        if not getattr(e, "_mo_node", None) == (id(graph), node.id):
            e._mo_node = (id(graph), node.id)
            e.args = (f"Cannot translate node {node_label(node)}: {e}",) + e.args[1:]
        raise
    except Exception as e:
        if is_user_class(fn):
            raise ExtensionError(f"Extension translator {class_origin(fn)} failed on node {node_label(node)}: "
                                 f"{type(e).__name__}: {e}") from e
        inputs = ", ".join(f"{shape_str(node.in_shape(i))}:{node.in_dtype(i)}" for i in sorted(node.in_ports()))
        raise GraphError(f"Cannot translate node {node_label(node)} with inputs [{inputs}]: "
                         f"{type(e).__name__}: {e}") from e
    consumers = [p.node.id for port in node.out_ports().values() for p in port.get_destinations()]
    replace_node_outputs(node, outputs, first_new)
    if context.lint:
        new = [n for n, d in graph._node.items() if d.get("_seq", 0) > first_new]
        try:
            graph.lint_nodes(new + consumers)
        except GraphError as e:
            raise GraphError(f"the graph is inconsistent after translating node {node_label(node)}: {e}") from e
    entry = context.translations.setdefault(f"{context.framework}:{key}", [0, 0.0])
    entry[0] += 1
    entry[1] += (time.perf_counter() - started) * 1000
    return outputs


def _checked_outputs(node: Node, outputs) -> list[Port | None]:
    if isinstance(outputs, Port):
        outputs = [outputs]
    if not isinstance(outputs, (list, tuple)):
        raise TypeError(f"the translator returned {type(outputs).__name__}, not a list of output ports")
    outputs = list(outputs)
    for i, port in enumerate(outputs):
        if port is None:
            continue
        if not isinstance(port, Port) or port.type != "out":
            raise TypeError(f"output {i} of the translator is {port!r}, not an output port")
        if port.node.graph is not node.graph:
            raise TypeError(f"output {i} of the translator is a port of another graph")
    for idx, port in node.out_ports().items():
        if port.is_connected() and (idx >= len(outputs) or outputs[idx] is None):
            raise TypeError(f"output {idx} is used but the translator gave no value for it")
    return outputs


def replace_node_outputs(node: Node, outputs: list[Port | None], first_new_seq: int) -> None:
    """Move the consumers and tensor names of ``node``'s outputs to ``outputs`` and remove it. A
    single output made by a node created after ``first_new_seq`` takes the node's name, so the
    IR layer keeps the framework's name."""
    from mo.pipeline.transform import replace_outputs
    if len(outputs) == 1 and outputs[0] is not None:
        producer = outputs[0].node
        if producer.get("_seq", 0) > first_new_seq:
            producer["name"] = node.name
    replace_outputs(node, outputs)
