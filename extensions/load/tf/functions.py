"""Flat node lists from a GraphDef or a FunctionDef, with function calls inlined.

``PartitionedCall`` / ``StatefulPartitionedCall`` nodes and nodes whose op is a function of the
library are replaced by the nodes of the called function (named ``call/inner``); the call's
outputs become aliases of the function's returned tensors. Control inputs are dropped: the
converted model only follows data.

Tensor references are normalised to ``node:port``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from mo.errors import InputModelError

CALL_OPS = ("PartitionedCall", "StatefulPartitionedCall")
MAX_DEPTH = 32


def tensor_ref(ref: str) -> str:
    """'node' -> 'node:0'; 'node:3' stays."""
    base, sep, port = ref.rpartition(":")
    if sep and port.isdigit():
        return ref
    return ref + ":0"


def split_ref(ref: str) -> tuple[str, int]:
    base, _, port = ref.rpartition(":")
    return base, int(port)


@dataclass
class TfNode:
    """One TensorFlow operation: its (possibly prefixed) name, op type, data inputs as
    ``node:port`` references, the NodeDef that holds its attributes and the names of the nodes
    it depends on only by control (kept to tell which nodes are outputs)."""

    name: str
    op: str
    inputs: list[str]
    pb: object
    controls: list[str] = field(default_factory=list)


@dataclass
class FlatGraph:
    """Nodes in definition order and aliases (``call:i`` -> the tensor it returns)."""

    nodes: list[TfNode] = field(default_factory=list)
    aliases: dict[str, str] = field(default_factory=dict)

    def resolve(self, ref: str) -> str:
        seen = 0
        while ref in self.aliases:
            ref = self.aliases[ref]
            seen += 1
            if seen > 10000:
                raise InputModelError(f"Tensor reference '{ref}' loops through function calls.")
        return ref


def function_graph_def(fdef):
    """(GraphDef of a FunctionDef, {function-style tensor name: graph-style name})."""
    from tensorflow.python.framework.function_def_to_graph import function_def_to_graph_def
    try:
        return function_def_to_graph_def(fdef)
    except Exception as e:
        raise InputModelError(f"Cannot read function '{fdef.signature.name}' of the model: {e}") from e


def returned_refs(fdef, flat_names: dict[str, str]) -> list[str]:
    """The graph-style tensor each output of ``fdef`` returns, in output order."""
    refs = []
    for arg in fdef.signature.output_arg:
        ret = fdef.ret[arg.name]
        refs.append(tensor_ref(flat_names.get(ret, ret)))
    return refs


class Flattener:
    """Builds FlatGraphs, inlining calls to the functions of ``library`` ({name: FunctionDef})."""

    def __init__(self, library: dict):
        self.library = library

    def called_function(self, node_def) -> str | None:
        if node_def.op in CALL_OPS:
            return node_def.attr["f"].func.name
        if node_def.op in self.library:
            return node_def.op
        return None

    def flatten(self, node_defs, flat: FlatGraph | None = None, prefix: str = "",
                feeds: dict[str, str] | None = None, depth: int = 0) -> FlatGraph:
        """Add ``node_defs`` to ``flat`` with names prefixed by ``prefix``; ``feeds`` maps the
        (unprefixed) tensors of function argument placeholders to the caller's tensors."""
        if depth > MAX_DEPTH:
            raise InputModelError(f"Function calls are nested more than {MAX_DEPTH} deep (recursion?).")
        flat = flat if flat is not None else FlatGraph()
        feeds = feeds or {}

        def rename(ref: str) -> str:
            ref = tensor_ref(ref)
            if ref in feeds:
                return feeds[ref]
            return prefix + ref

        for nd in node_defs:
            if f"{nd.name}:0" in feeds and nd.op == "Placeholder":
                continue
            inputs = [rename(i) for i in nd.input if not i.startswith("^")]
            controls = [prefix + i[1:] for i in nd.input if i.startswith("^")]
            fname = self.called_function(nd)
            if fname is None:
                flat.nodes.append(TfNode(prefix + nd.name, nd.op, inputs, nd, controls))
                continue
            if fname not in self.library:
                raise InputModelError(f"Node '{nd.name}' calls function '{fname}', which the model does not define.")
            fdef = self.library[fname]
            graph_def, names = function_graph_def(fdef)
            args = [a.name for a in fdef.signature.input_arg]
            if len(args) != len(inputs):
                raise InputModelError(f"Node '{nd.name}' passes {len(inputs)} inputs to function '{fname}', "
                                      f"which takes {len(args)}.")
            inner_prefix = prefix + nd.name + "/"
            inner_feeds = {f"{a}:0": src for a, src in zip(args, inputs)}
            self.flatten(graph_def.node, flat, inner_prefix, inner_feeds, depth + 1)
            for i, ref in enumerate(returned_refs(fdef, names)):
                flat.aliases[f"{prefix}{nd.name}:{i}"] = inner_feeds.get(ref, inner_prefix + ref)
        return flat
