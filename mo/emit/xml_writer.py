"""IR v11 XML writer: layers with ports and attributes, edges, and rt_info.

The writer works on a data-form graph in its final (opset) form. Layer ids follow a
deterministic topological order; input ports are numbered from 0 and output ports continue after
the last input, as the IR format requires. Sub-graph ops (If, Loop, TensorIterator) write their
bodies through ``Op.ir_body`` with this same writer.
"""
from __future__ import annotations

import re
from typing import Any

import numpy as np

from mo.emit.bin_writer import BinWriter
from mo.errors import GraphError
from mo.utils.types import precision

_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\n": "&#10;", "\t": "&#9;",
                          "\r": "&#13;"})
# Characters XML 1.0 cannot carry at all (C0 controls but tab/newline/return, surrogates,
# U+FFFE/U+FFFF): written as U+FFFD so that names from a model never make the XML ill-formed.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_escape(text: str | bytes) -> str:
    """``text`` as XML attribute text; bytes that are not UTF-8 and characters XML 1.0 cannot
    carry become U+FFFD."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    return _NOT_XML.sub("\ufffd", text).translate(_ESCAPES)


def format_value(value: Any) -> str:
    """IR text form of an attribute value."""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if v != v:
            return "nan"
        if v in (float("inf"), float("-inf")):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(value, np.ndarray):
        value = value.reshape(-1).tolist()
    if isinstance(value, (list, tuple)):
        return ", ".join(format_value(v) for v in value)
    return str(value)


def format_partial_shape(shape: tuple | None, bounds: dict | None = None) -> str:
    """Shape attribute of Parameter: '?' for a dynamic dimension, '...' for a dynamic rank,
    '1..8' / '..8' / '2..' for a dynamic dimension with ``bounds`` {axis: (lower, upper or -1)}."""
    if shape is None:
        return "..."
    bounds = bounds or {}

    def dim(axis: int, d: int) -> str:
        if d >= 0:
            return str(d)
        if axis in bounds:
            low, high = bounds[axis]
            return f"{low if low > 0 else ''}..{high if high >= 0 else ''}"
        return "?"
    return ",".join(dim(axis, d) for axis, d in enumerate(shape))


def ordered_ops(graph) -> list:
    """Layer order: Parameters in creation order, then the other ops topologically, then Results
    in creation order, so the runtime sees inputs and outputs in the source model's order."""
    params, middle, results = [], [], []
    nodes = graph._node
    for n in graph.topological_ops():
        op = nodes[n.id].get("op")
        (params if op == "Parameter" else results if op == "Result" else middle).append(n)
    key = lambda n: nodes[n.id]["_seq"]  # noqa: E731
    return sorted(params, key=key) + middle + sorted(results, key=key)


class IRGraphWriter:
    """Writes the <layers> and <edges> of one graph (the model or a sub-graph body)."""

    def __init__(self, bin_writer: BinWriter, placed: list | None = None):
        self.bin = bin_writer
        # when a list: receives (Const node, offset, size) of every constant written
        self.placed = placed
        # filled, when a dict, with the permuted names of the layers of ``top`` (the model, not
        # its bodies): {(layer name, output port): {name: permutation}}
        self.permuted: dict | None = None
        self.top = None
        self._dims: dict[tuple, str] = {}      # (indent, shape) -> the <dim> lines of a port

    def layer_ids(self, graph) -> dict[str, int]:
        """Node id -> layer id, as ``write`` numbers the layers."""
        return {n.id: i for i, n in enumerate(ordered_ops(graph))}

    def write(self, graph, out: list[str], indent: str) -> dict[str, int]:
        """Append the layers and edges of ``graph`` to ``out``; returns node id -> layer id."""
        order = ordered_ops(graph)
        ids = {n.id: i for i, n in enumerate(order)}
        names: dict[str, int] = {}
        out.append(f"{indent}<layers>\n")
        edges: list[tuple[int, int, int, int]] = []
        inputs_of: dict[str, int] = {}     # input count of each layer written (output port ids follow)
        pred = graph._pred
        for node in order:
            inputs = self._write_layer(node, ids[node.id], out, indent + "\t", names)
            inputs_of[node.id] = len(inputs)
            for i, data_id in enumerate(inputs):
                producer = next(iter(pred[data_id].items()), None)     # the data node's one producer
                if producer is None:
                    raise GraphError(f"input {i} of node '{node.name}' ({node.op}) has no producer")
                src, keys = producer
                src_out = next(iter(keys.values()))["out"]
                src_inputs = inputs_of.get(src)
                if src_inputs is None:
                    src_inputs = self.input_count(graph.node(src))
                edges.append((ids[src], src_inputs + src_out, ids[node.id], i))
        out.append(f"{indent}</layers>\n{indent}<edges>\n")
        for e in sorted(edges, key=lambda e: (e[2], e[3])):
            out.append(f'{indent}\t<edge from-layer="{e[0]}" from-port="{e[1]}" '
                       f'to-layer="{e[2]}" to-port="{e[3]}" />\n')
        out.append(f"{indent}</edges>\n")
        return ids

    @staticmethod
    def input_count(node) -> int:
        """Number of input ports of a layer (output port ids start after them)."""
        ins = node.graph.in_indices(node.id)
        if not ins:
            return 0
        count = max(ins) + 1
        if len(ins) != count:
            raise GraphError(f"node '{node.name}' ({node.op}) has unconnected inputs between connected "
                             f"ones: {sorted(ins)}")
        return count

    def _unique_name(self, name: str, names: dict[str, int]) -> str:
        if name not in names:
            names[name] = 0
            return name
        while True:
            names[name] += 1
            candidate = f"{name}_{names[name]}"
            if candidate not in names:
                names[candidate] = 0
                return candidate

    @staticmethod
    def _rt_info(rt_info: dict | None, out: list[str], indent: str) -> None:
        """<rt_info> with one <attribute> per entry: a dict value gives the attribute's fields,
        another value a ``value`` field, None none."""
        if not rt_info:
            return
        out.append(f"{indent}<rt_info>\n")
        for key, value in rt_info.items():
            if isinstance(value, dict):
                fields = "".join(f' {k}="{xml_escape(format_value(v))}"' for k, v in value.items())
            else:
                fields = "" if value is None else f' value="{xml_escape(format_value(value))}"'
            out.append(f'{indent}\t<attribute name="{xml_escape(key)}" version="0"{fields} />\n')
        out.append(f"{indent}</rt_info>\n")

    def _port(self, out: list[str], indent: str, port_id: int, data_attrs: dict | None,
              names: list[str] | None = None, rt_info: dict | None = None) -> None:
        dtype = data_attrs.get("dtype") if data_attrs else None
        shape = data_attrs.get("shape") if data_attrs else None
        attrs = f'id="{port_id}"'
        if dtype is not None:
            attrs += f' precision="{precision(dtype)}"'
        if names:
            attrs += ' names="' + xml_escape(",".join(n.replace(",", "\\,") for n in names)) + '"'
        if not shape and not rt_info:
            out.append(f"{indent}<port {attrs} />\n")
            return
        out.append(f"{indent}<port {attrs}>\n")
        if shape:
            key = (indent, tuple(shape))
            dims = self._dims.get(key)
            if dims is None:
                dims = self._dims[key] = "".join(f"{indent}\t<dim>{int(d)}</dim>\n" for d in shape)
            out.append(dims)
        self._rt_info(rt_info, out, indent + "\t")
        out.append(f"{indent}</port>\n")

    def _write_layer(self, node, layer_id: int, out: list[str], indent: str, names: dict[str, int]) -> list[str]:
        """Append the layer; returns the data nodes of its inputs, by port."""
        graph = node.graph
        attrs = graph._node[node.id]      # read directly: this runs once per layer of the IR
        op = attrs.get("op")
        op_class = graph.registry.op(op)
        if op_class.type is None or attrs.get("type") is None:
            raise GraphError(f"node '{node.name}' has internal op '{op}' that no transform "
                             f"converted to an OpenVINO operation")
        name = self._unique_name(attrs.get("name", node.id), names)
        data = self._const_data(node) if op == "Const" else op_class.ir_data(node)
        out.append(f'{indent}<layer id="{layer_id}" name="{xml_escape(name)}" type="{attrs["type"]}" '
                   f'version="{attrs.get("version", op_class.version)}">\n')
        if data:
            fields = " ".join(f'{k}="{xml_escape(format_value(v))}"' for k, v in data.items())
            out.append(f"{indent}\t<data {fields} />\n")
        self._rt_info(attrs.get("rt_info"), out, indent + "\t")
        inputs = self.input_data_ids(node)
        if inputs:
            out.append(f"{indent}\t<input>\n")
            for i, data_id in enumerate(inputs):
                self._port(out, indent + "\t\t", i, graph._node[data_id])
            out.append(f"{indent}\t</input>\n")
        n_inputs = len(inputs)
        n_outputs = op_class.outputs_count(node) if op != "Result" else 0
        if n_outputs:
            out.append(f"{indent}\t<output>\n")
            tensor_names = attrs.get("tensor_names") or {}
            port_rt_info = attrs.get("out_rt_info") or {}
            if self.permuted is not None and graph is self.top:
                self.permuted.update({(name, i): dict(p) for i, p in (attrs.get("permuted_names") or {}).items() if p})
            for i in range(n_outputs):
                data_id = graph.output_data(node.id, i)
                self._port(out, indent + "\t\t", n_inputs + i,
                           graph._node[data_id] if data_id is not None else None, tensor_names.get(i),
                           port_rt_info.get(i))
            out.append(f"{indent}\t</output>\n")
        body = getattr(op_class, "ir_body", None)
        if body is not None:
            body(node, self, out, indent + "\t")
        out.append(f"{indent}</layer>\n")
        return inputs

    @classmethod
    def input_data_ids(cls, node) -> list[str]:
        """The data nodes of a layer's inputs, by port (every port up to the last connected one
        must be connected)."""
        edges = [(d["in"], src) for src, keys in node.graph._pred[node.id].items() for d in keys.values()]
        by_port = dict(edges)
        if len(by_port) != len(edges) or (by_port and max(by_port) + 1 != len(by_port)):
            cls.input_count(node)     # names the unconnected ports
        return [by_port[i] for i in range(len(by_port))]

    def _const_data(self, node) -> dict:
        value = node.value
        et = node.element_type
        offset, size = self.bin.add(value, et)
        if self.placed is not None:
            self.placed.append((node, offset, size))
        return {"element_type": et, "shape": format_value(list(np.shape(value))) if np.ndim(value) else "",
                "offset": offset, "size": size}


def write_rt_info(rt_info: dict, out: list[str], indent: str) -> None:
    """Model-level rt_info: nested dicts become elements, leaves ``<name value="..."/>``."""
    for key, value in rt_info.items():
        if isinstance(value, dict):
            out.append(f"{indent}<{key}>\n")
            write_rt_info(value, out, indent + "\t")
            out.append(f"{indent}</{key}>\n")
        else:
            out.append(f'{indent}<{key} value="{xml_escape(format_value(value))}" />\n')
