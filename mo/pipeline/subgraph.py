"""Sub-graph replacement: a part of the graph chosen by node-name scope or by start and end points
is replaced by what ``replace_subgraph`` builds, the legacy way to swap e.g. detection
post-processing for one op.

    class DetectionOutputReplacement(SubgraphReplacement):
        replacement_id = "MyDetectionOutput"      # an "id" of --transformations_config
        scope = "Postprocessor/"                  # default when the config does not name instances

        def replace_subgraph(self, b, match):
            boxes, scores = match.inputs           # tensors entering the sub-graph, in order
            top_k = match.attrs.get("top_k", 100)  # the config's "custom_attributes"
            return [b.op(...)]                     # one port per match.outputs, in order

The sub-graph is every op node whose name matches one of the scopes (a regular expression
matched at the start of the name: "Postprocessor/" takes "Postprocessor/..."), or, for
``start_points`` / ``end_points``, every node on a path from a start node to an end node (both
included), with the constants that feed only those nodes. ``match.inputs`` are the tensors its
nodes read from outside (in the order the nodes come in the graph), ``match.outputs`` the
tensors of its nodes read outside or by Results; the replacement's ports take over those
consumers (and tensor names) and the sub-graph's nodes are removed.

``--transformations_config file.json`` drives it, in the legacy Model Optimizer's format::

    [{"id": "MyDetectionOutput", "match_kind": "scope", "instances": ["Postprocessor/"],
      "custom_attributes": {"top_k": 200}},
     {"id": "MyHead", "match_kind": "points",
      "instances": {"start_points": ["head/conv"], "end_points": ["head/out"]}}]

Each entry runs the extension class whose ``replacement_id`` is its ``id`` (``match.attrs`` are
its ``custom_attributes``); a class whose id the config does not name runs with its own
``scope`` / ``start_points`` and ``end_points`` when it has them, and not at all otherwise. An
entry whose scope or points match no node is a warning naming its id, and the conversion goes on
(the legacy tool logs "Failed to match nodes from custom replacement description with id" and goes
on too); an id no extension class has is an error. The
replacement runs in the middle phase by default (shapes and values known, the graph holds opset
ops; scope names are the model's node names, which translated nodes keep or prefix);
``phase = "front"`` runs it on the framework graph before translation.
"""
from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field

from mo.errors import ExtensionError, OptionError
from mo.graph.builder import OpBuilder
from mo.graph.port import Port
from mo.pipeline.transform import Transform

log = logging.getLogger("mo")


@dataclass
class SubgraphMatch:
    """A matched sub-graph: its op ``nodes`` (graph order), the ``inputs`` it reads from outside
    and the ``outputs`` read outside it (output Ports), and the config's ``attrs``."""

    nodes: list
    inputs: list[Port]
    outputs: list[Port]
    attrs: dict = field(default_factory=dict)

    def input_names(self) -> list[str]:
        return [p.node.name for p in self.inputs]

    def output_names(self) -> list[str]:
        return [p.node.name for p in self.outputs]


def load_transformations_config(path: str) -> dict[str, dict]:
    """Entries of a --transformations_config JSON file by id."""
    try:
        with open(path, encoding="utf-8") as f:
            entries = json.load(f)
    except OSError as e:
        raise OptionError(f"--transformations_config '{path}' cannot be read: {e.strerror or e}.") from e
    except json.JSONDecodeError as e:
        raise OptionError(f"--transformations_config '{path}' is not valid JSON: {e}.") from e
    if isinstance(entries, dict):
        entries = [entries]
    if not isinstance(entries, list) or not all(isinstance(e, dict) and isinstance(e.get("id"), str)
                                                for e in entries):
        raise OptionError(f"--transformations_config '{path}' must be a list of objects, each with an \"id\".")
    by_id = {}
    for entry in entries:
        kind = entry.get("match_kind", "scope")
        instances = entry.get("instances")
        if kind == "scope" and not (isinstance(instances, list) and all(isinstance(i, str) for i in instances)):
            raise OptionError(f"--transformations_config entry '{entry['id']}': a \"scope\" match needs "
                              f"\"instances\": a list of name scopes.")
        if kind == "points" and not (isinstance(instances, dict) and instances.get("start_points")
                                     and instances.get("end_points")):
            raise OptionError(f"--transformations_config entry '{entry['id']}': a \"points\" match needs "
                              f"\"instances\": {{\"start_points\": [...], \"end_points\": [...]}}.")
        if kind not in ("scope", "points"):
            raise OptionError(f"--transformations_config entry '{entry['id']}': match_kind '{kind}' is not "
                              f"supported (use \"scope\" or \"points\"; a general pattern is a PatternRewrite).")
        by_id[entry["id"]] = entry
    return by_id


def check_config_ids(registry, entries: dict) -> None:
    """Every id of the config has an extension class with that ``replacement_id``."""
    known = {getattr(c, "replacement_id", None) for c in registry.transform_classes()}
    missing = sorted(set(entries) - known)
    if missing:
        raise OptionError(f"--transformations_config names {', '.join(repr(m) for m in missing)}, but no extension "
                          f"class has that replacement_id: add a SubgraphReplacement with replacement_id = "
                          f"'{missing[0]}' to an --extensions folder.")


def scope_nodes(graph, scopes: list[str]) -> list:
    patterns = [re.compile(s) for s in scopes]
    return [n for n in graph.topological_ops() if n.op not in ("Parameter", "Result")
            and any(p.match(n.name) for p in patterns)]


def _reachable(starts: list, neighbours) -> set[str]:
    seen, stack = set(), list(starts)
    while stack:
        node = stack.pop()
        if node.id not in seen:
            seen.add(node.id)
            stack.extend(neighbours(node))
    return seen


def points_nodes(graph, start: list[str], end: list[str]) -> list:
    """The nodes on a path from a start node to an end node; none when a point is not a node."""
    by_name = {n.name: n for n in graph.op_nodes()}
    missing = [name for name in start + end if name not in by_name]
    if missing:
        log.debug("Sub-graph points %s are not nodes of the model", ", ".join(missing))
        return []
    forward = _reachable([by_name[s] for s in start], lambda node: [
        d.node for p in node.out_ports().values() for d in p.get_destinations()])
    backward = _reachable([by_name[e] for e in end], lambda node: [
        node.in_port(i).get_source().node for i in node.in_ports() if node.is_in_port_connected(i)])
    inside = forward & backward
    return [n for n in graph.topological_ops() if n.id in inside]


def with_own_constants(nodes: list) -> list:
    """``nodes`` and the Consts that feed only them (weights and axes belong to the sub-graph)."""
    inside = {n.id for n in nodes}
    extra = []
    for node in nodes:
        for i in sorted(node.in_ports()):
            if not node.is_in_port_connected(i):
                continue
            source = node.in_port(i).get_source().node
            if source.op == "Const" and source.id not in inside and all(
                    d.node.id in inside for p in source.out_ports().values() for d in p.get_destinations()):
                inside.add(source.id)
                extra.append(source)
    return extra + nodes


def match_of(nodes: list, attrs: dict | None = None) -> SubgraphMatch:
    nodes = with_own_constants(nodes)
    inside = {n.id for n in nodes}
    inputs, outputs = [], []
    for node in nodes:
        for i in sorted(node.in_ports()):
            if not node.is_in_port_connected(i):
                continue
            source = node.in_port(i).get_source()
            if source.node.id not in inside and source not in inputs:
                inputs.append(source)
        for port in node.out_ports().values():
            if any(d.node.id not in inside for d in port.get_destinations()):
                outputs.append(port)
    return SubgraphMatch(nodes, inputs, outputs, dict(attrs or {}))


class SubgraphReplacement(Transform):
    """Replaces the sub-graph given by ``scope`` (or ``start_points``/``end_points``), or by the
    --transformations_config entry whose id is ``replacement_id``, with ``replace_subgraph``."""

    abstract = True
    phase = "middle"
    replacement_id: str | None = None
    scope: str | list[str] | None = None
    start_points: list[str] = ()
    end_points: list[str] = ()

    def config_entry(self, graph) -> dict | None:
        entries = graph.options.transformations_config
        return entries.get(self.replacement_id) if self.replacement_id and entries else None

    def instances(self, graph) -> list[tuple[str, object, dict]]:
        """(match kind, instances, custom attributes) to replace."""
        entry = self.config_entry(graph)
        if entry is not None:
            kind = entry.get("match_kind", "scope")
            attrs = entry.get("custom_attributes") or {}
            if kind == "scope":
                return [("scope", [s], attrs) for s in entry["instances"]]
            return [("points", entry["instances"], attrs)]
        if self.scope:
            return [("scope", [s], {}) for s in ([self.scope] if isinstance(self.scope, str) else self.scope)]
        if self.start_points and self.end_points:
            return [("points", {"start_points": list(self.start_points), "end_points": list(self.end_points)}, {})]
        return []

    def graph_condition(self, graph) -> bool:
        return not graph.graph.get("is_body") and bool(self.instances(graph))

    def find_and_replace_pattern(self, graph) -> None:
        matched = False
        for kind, instances, attrs in self.instances(graph):
            nodes = scope_nodes(graph, instances) if kind == "scope" else \
                points_nodes(graph, list(instances["start_points"]), list(instances["end_points"]))
            if not nodes:
                continue
            matched = True
            match = match_of(nodes, attrs)
            nodes = match.nodes
            new = self.replace_subgraph(OpBuilder(graph, nodes[-1].name), match)
            if new is None or len(new) != len(match.outputs):
                count = 0 if new is None else len(new)
                raise ExtensionError(f"{type(self).__name__}.replace_subgraph returned {count} ports for the "
                                     f"{len(match.outputs)} outputs of the sub-graph "
                                     f"({', '.join(match.output_names()) or 'none'}).")
            for port, replacement in zip(match.outputs, new):
                outside = [d for d in port.get_destinations() if d.node.id not in {n.id for n in nodes}]
                names = port.get_tensor_names()
                for dst in outside:
                    dst.disconnect()
                    replacement.connect(dst)
                if names:
                    port.remove_tensor_names()
                    replacement.add_tensor_names(names)
            for node in reversed(nodes):      # consumers first: each output data node goes with its producer
                if node.id in graph:
                    graph.remove_node(node.id)
        if not matched:
            self.report_no_match(graph)

    def report_no_match(self, graph) -> None:
        """A --transformations_config entry that matched nothing is a warning naming its id (as the
        legacy tool's "Failed to match nodes from custom replacement description with id"; the
        conversion goes on, as there); a class's own scope that matches nothing is normal."""
        entry = self.config_entry(graph)
        if entry is None:
            log.debug("%s: its scope or points match no node of this model", type(self).__name__)
            return
        if entry.get("match_kind", "scope") == "scope":
            where = f"scope {', '.join(repr(s) for s in entry['instances'])}"
        else:
            points = entry["instances"]
            names = {n.name for n in graph.op_nodes()}
            missing = [p for p in [*points["start_points"], *points["end_points"]] if p not in names]
            where = (f"start_points {list(points['start_points'])}, end_points {list(points['end_points'])}" +
                     (f"; not nodes of the model: {', '.join(repr(m) for m in missing)}" if missing else
                      ": no path leads from a start point to an end point"))
        log.warning("--transformations_config entry '%s' matched no node of the model (%s): %s replaced nothing; "
                    "check the entry against the model's node names.", entry["id"], where, type(self).__name__)

    def replace_subgraph(self, b: OpBuilder, match: SubgraphMatch) -> list[Port]:
        raise NotImplementedError
