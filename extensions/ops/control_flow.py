"""Sub-graph operations: If (opset8), Loop (opset5) and TensorIterator (opset1).

A sub-graph op node keeps its bodies in ``bodies`` ({body name: Graph}, the names being the IR
element names: ``then_body``/``else_body`` or ``body``) and says how its ports bind to body
Parameters and Results with lists of plain dictionaries:

* ``input_port_map``: ``{"external_port_id": input index, "body": body name, "internal_id":
  body Parameter node id}``, plus ``axis``, ``start``, ``end``, ``stride``, ``part_size`` for an
  input sliced along ``axis`` (one slice per iteration), or ``purpose: "current_iteration"``
  (and ``external_port_id`` -1) for Loop's iteration counter;
* ``output_port_map``: ``{"external_port_id": output index, "body", "internal_id": body Result
  node id}``, plus the slicing keys for an output concatenated over the iterations, or
  ``purpose: "execution_condition"`` (``external_port_id`` -1) for Loop's body condition;
* ``back_edges``: ``{"from": body Result id, "to": body Parameter id}``: the Result's value feeds
  the Parameter in the next iteration (Loop, TensorIterator).

Partial inference gives each body Parameter the shape and element type of what feeds it and
infers the body; the op's outputs take the shapes of the body Results. Port ids written to the
IR are the layer's port numbers (outputs numbered after the inputs).
"""
from __future__ import annotations

from typing import Iterable

from mo.graph.graph import Graph
from mo.graph.node import Node
from mo.ops.op import Op
from mo.pipeline.translate import translate_graph
from mo.utils.shape import DYN

SLICE_KEYS = ("axis", "start", "end", "stride", "part_size")
_MAX_BACK_EDGE_PASSES = 4


def merge_shapes(a: tuple | None, b: tuple | None) -> tuple | None:
    """The most specific shape both ``a`` and ``b`` conform to: dims that differ become dynamic,
    ranks that differ make the rank dynamic."""
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else DYN for x, y in zip(a, b))


def sliced_shape(shape: tuple | None, entry: dict) -> tuple | None:
    """Shape of one slice of ``shape`` taken by a sliced port map entry."""
    if not shape or entry.get("axis") is None:
        return shape
    axis = entry["axis"] % len(shape)
    return tuple(entry.get("part_size", 1) if i == axis else d for i, d in enumerate(shape))


def slice_count(shape: tuple | None, entry: dict) -> int:
    """Iterations a sliced input gives (-1 if unknown); only whole-axis slicing is counted."""
    if not shape:
        return DYN
    dim = shape[entry["axis"] % len(shape)]
    whole = (entry.get("start", 0), entry.get("end", -1)) in ((0, -1), (-1, 0))
    if dim < 0 or not whole:
        return DYN
    return dim // (entry.get("part_size", 1) * abs(entry.get("stride", 1)))


def port_entry(port: int, internal, body: str = "body", **extra) -> dict:
    """Port map entry binding external ``port`` (-1 for a special one) to the body node (or node
    id) ``internal``."""
    return {"external_port_id": port, "body": body, "internal_id": getattr(internal, "id", internal), **extra}


def sliced_entry(port: int, internal, axis: int, reverse: bool = False, body: str = "body") -> dict:
    """Entry of an input sliced (or output concatenated) along ``axis`` one element per
    iteration, last element first when ``reverse``."""
    start, end, stride = (-1, 0, -1) if reverse else (0, -1, 1)
    return port_entry(port, internal, body, axis=axis, start=start, end=end, stride=stride, part_size=1)


def new_body(parent) -> Graph:
    """An empty body graph in the context (registry, framework, options, form) of ``parent``."""
    body = Graph()
    body.graph.update({k: v for k, v in parent.graph.items() if k != "outer_inputs"}, outer_inputs={},
                      is_body=True)
    if parent.data_form:
        body.to_data_form()
    return body


class SubGraphOp(Op):
    """Common part of If, Loop and TensorIterator: body binding, inference and IR port maps."""

    abstract = True
    defaults = {"input_port_map": [], "output_port_map": [], "back_edges": []}

    @classmethod
    def outputs_count(cls, node: Node) -> int:
        ids = [e["external_port_id"] for e in node.output_port_map if e["external_port_id"] >= 0]
        return node.get("num_outputs", max(ids, default=-1) + 1)

    @classmethod
    def type_infer(cls, node: Node) -> None:
        """Element types come out of the body inference done by ``infer``."""

    @classmethod
    def bind_inputs(cls, node: Node, body_name: str) -> None:
        """Give each body Parameter of ``body_name`` the shape and type of the input feeding it."""
        body = node.bodies[body_name]
        for entry in node.input_port_map:
            if entry["body"] != body_name or entry["external_port_id"] < 0:
                continue
            port = entry["external_port_id"]
            shape = node.in_shape(port)
            if entry.get("axis") is not None and shape:
                entry["axis"] %= len(shape)
            set_parameter(body.node(entry["internal_id"]), sliced_shape(shape, entry), node.in_dtype(port))

    @classmethod
    def result_tensor(cls, node: Node, entry: dict) -> tuple[tuple | None, str | None]:
        result = node.bodies[entry["body"]].node(entry["internal_id"])
        return result.in_shape(0), result.in_dtype(0)

    @classmethod
    def external_outputs(cls, node: Node) -> Iterable[dict]:
        return (e for e in node.output_port_map if e["external_port_id"] >= 0)

    # ------------------------------------------------------------------ IR
    @classmethod
    def ir_body(cls, node: Node, writer, out: list[str], indent: str) -> None:
        """Write the port maps, back edges and bodies of the layer."""
        n_inputs = writer.input_count(node)
        ids = {name: writer.layer_ids(body) for name, body in node.bodies.items()}
        for name in node.bodies:
            tag = cls.port_map_tag(name)
            out.append(f"{indent}<{tag}>\n")
            for kind, entries, offset in (("input", node.input_port_map, 0),
                                          ("output", node.output_port_map, n_inputs)):
                for e in entries:
                    if e["body"] == name:
                        out.append(f"{indent}\t<{kind} {port_map_attrs(e, ids[name], offset)} />\n")
            out.append(f"{indent}</{tag}>\n")
        if node.back_edges:
            layer_ids = ids["body"]
            out.append(f"{indent}<back_edges>\n")
            for e in node.back_edges:
                out.append(f'{indent}\t<edge from-layer="{layer_ids[e["from"]]}" to-layer="{layer_ids[e["to"]]}" />\n')
            out.append(f"{indent}</back_edges>\n")
        for name, body in node.bodies.items():
            out.append(f"{indent}<{name}>\n")
            writer.write(body, out, indent + "\t")
            out.append(f"{indent}</{name}>\n")

    @classmethod
    def port_map_tag(cls, body_name: str) -> str:
        return "port_map"


def port_map_attrs(entry: dict, layer_ids: dict[str, int], port_offset: int) -> str:
    """Attributes of one ``<input>``/``<output>`` element of a port map."""
    external = entry["external_port_id"]
    attrs = [f'external_port_id="{external + port_offset if external >= 0 else -1}"',
             f'internal_layer_id="{layer_ids[entry["internal_id"]]}"']
    if entry.get("axis") is not None:
        attrs += [f'{k}="{int(entry.get(k, d))}"' for k, d in
                  zip(SLICE_KEYS, (entry["axis"], 0, -1, 1, 1))]
    if entry.get("purpose"):
        attrs.append(f'purpose="{entry["purpose"]}"')
    return " ".join(attrs)


def set_parameter(param: Node, shape: tuple | None, dtype: str | None) -> None:
    """Make a body Parameter describe the tensor that feeds it."""
    param["shape"] = None if shape is None else tuple(int(d) for d in shape)
    if dtype is not None:
        param["element_type"] = dtype
        param["element_type_unknown"] = False


class If(SubGraphOp):
    """Runs ``then_body`` when input 0 (a boolean scalar) is true, else ``else_body``; inputs
    1.. feed body Parameters through the port maps; output i is Result i of the body that ran."""

    op = "If"
    version = "opset8"
    input_ranks = {0: (0, 1)}
    input_types = {0: ("boolean",)}

    @classmethod
    def port_map_tag(cls, body_name: str) -> str:
        return body_name.replace("_body", "_port_map")

    @classmethod
    def infer(cls, node: Node) -> None:
        for name, body in node.bodies.items():
            cls.bind_inputs(node, name)
            translate_graph(body)
        merged: dict[int, tuple] = {}
        for entry in cls.external_outputs(node):
            shape, dtype = cls.result_tensor(node, entry)
            idx = entry["external_port_id"]
            if idx in merged:
                shape = merge_shapes(merged[idx][0], shape)
                dtype = merged[idx][1] or dtype
            merged[idx] = (shape, dtype)
        for idx, (shape, dtype) in merged.items():
            node.out_port(idx).data.set_dtype(dtype)
            node.out_port(idx).data.set_shape(shape)


class TensorIterator(SubGraphOp):
    """Runs ``body`` once per slice of its sliced inputs; back edges carry values between
    iterations; outputs are the last iteration's value or the concatenation of every
    iteration's value along ``axis``."""

    op = "TensorIterator"

    @classmethod
    def iterations(cls, node: Node) -> int:
        counts = [slice_count(node.in_shape(e["external_port_id"]), e) for e in node.input_port_map
                  if e.get("axis") is not None and e["external_port_id"] >= 0]
        return counts[0] if counts and all(c == counts[0] for c in counts) else DYN

    @classmethod
    def infer(cls, node: Node) -> None:
        body = node.bodies["body"]
        counts = {slice_count(node.in_shape(e["external_port_id"]), e) for e in node.input_port_map
                  if e.get("axis") is not None and e["external_port_id"] >= 0} - {DYN}
        if len(counts) > 1:
            raise ValueError(f"its sliced inputs give different numbers of iterations: {sorted(counts)}")
        if counts == {0}:
            raise ValueError("its sliced inputs are empty along their iteration axis (the OpenVINO CPU plugin "
                             "compiles no loop over an empty axis)")
        cls.bind_inputs(node, "body")
        for _ in range(_MAX_BACK_EDGE_PASSES):
            translate_graph(body)
            if not relax_back_edges(node):
                break
        count = cls.iterations(node)
        for entry in cls.external_outputs(node):
            shape, dtype = cls.result_tensor(node, entry)
            if entry.get("axis") is not None and shape:
                axis = entry["axis"] = entry["axis"] % len(shape)
                size = count * shape[axis] if count >= 0 and shape[axis] >= 0 else DYN
                shape = tuple(size if i == axis else d for i, d in enumerate(shape))
            port = node.out_port(entry["external_port_id"])
            port.data.set_dtype(dtype)
            port.data.set_shape(shape)


def relax_back_edges(node: Node) -> bool:
    """Widen each back-edge Parameter's shape to cover what the body feeds back; True when a
    Parameter changed (the body must be inferred again)."""
    body = node.bodies["body"]
    changed = False
    for edge in node.back_edges:
        param = body.node(edge["to"])
        fed_back = body.node(edge["from"]).in_shape(0)
        merged = merge_shapes(param.shape, fed_back)
        if merged != param.shape:
            param["shape"] = merged
            changed = True
    return changed


class Loop(TensorIterator):
    """Runs ``body`` while the iteration count is below input 0 (trip count, -1: no limit) and
    the condition (input 1 first, then the body Result with purpose ``execution_condition``)
    holds; otherwise as TensorIterator."""

    op = "Loop"
    type = "Loop"
    version = "opset5"
    # the trip count and the condition: scalars or one-element 1-D tensors; the CPU plugin reads
    # the trip count as an integer of 32 or 64 bits
    input_ranks = {0: (0, 1), 1: (0, 1)}
    input_types = {0: ("i32", "i64"), 1: ("boolean",)}

    @classmethod
    def check_inputs(cls, node: Node) -> None:
        super().check_inputs(node)
        for port, what in ((0, "trip count"), (1, "condition")):
            shape = node.in_shape(port) if node.is_in_port_connected(port) else None
            if shape and shape[0] not in (1, DYN):
                raise ValueError(f"the {what} (input {port}) has {shape[0]} elements; Loop takes one")

    @classmethod
    def iterations(cls, node: Node) -> int:
        """Known only when both conditions are constant true and the trip count or the sliced
        inputs bound the loop."""
        trip, cond = node.in_value(0), node.in_value(1)
        if cond is not None and not bool(cond.reshape(-1)[0]):
            return 0
        body = node.bodies["body"]
        body_cond = [body.node(e["internal_id"]).in_port(0).data.get_value()
                     for e in node.output_port_map if e.get("purpose") == "execution_condition"]
        if cond is None or trip is None or any(v is None or not bool(v.reshape(-1)[0]) for v in body_cond):
            return DYN
        limits = [int(trip.reshape(-1)[0])] if int(trip.reshape(-1)[0]) >= 0 else []
        if any(e.get("axis") is not None for e in node.input_port_map):
            sliced = super().iterations(node)
            if sliced < 0:
                return DYN
            limits.append(sliced)
        return min(limits) if limits else DYN
