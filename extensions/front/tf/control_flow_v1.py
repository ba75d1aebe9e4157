"""TensorFlow 1 control flow (the lowered form) -> If, Select and Loop.

A TF1 graph (``tf.compat.v1`` with control flow v1, or a graph frozen with
``convert_variables_to_constants_v2(..., lower_control_flow=True)``) has no functions for its
conditions and loops; they are frames of primitive ops in the graph itself:

* ``tf.cond``: each tensor a branch reads passes a ``Switch(data, pred)`` (output 1 when
  ``pred`` holds, output 0 otherwise) and each result is a ``Merge`` of the two branches'
  values. The predicate of a Merge is found from the Switch outputs its two inputs depend on
  (the one input depends on output 1 of a predicate's Switches, the other on output 0; a
  constant in a branch depends on the branch by a control input, which the loader turns into a
  data input of an IdentityN). The Merges of one predicate become one If whose branches are
  copies of the two branches' nodes (nested conds innermost first); with a constant predicate
  (a frozen ``is_training``) the branch taken replaces the Merge; a cond whose branch holds a
  tf.while_loop frame becomes Selects (both branches computed, the Switches passing their data
  on) so that the loop is converted in the enclosing graph.
* ``tf.while_loop``: a frame named by its ``Enter`` nodes' ``frame_name``. Each loop variable
  runs ``Enter -> Merge <- NextIteration``, ``Merge -> Switch(., LoopCond)``; output 1 of the
  Switch feeds the body, output 0 the ``Exit`` (the value after the loop). ``Enter`` nodes
  that no Merge follows (``is_constant``) bring loop-invariant values. A frame becomes a Loop:
  the body is copied into a body graph (the Merge values and invariants become Parameters,
  the NextIteration inputs Results with back edges), the condition is copied twice (on the
  initial values outside: the Loop's initial condition; on the next values in the body: its
  execution condition). Nested loops are converted innermost first, an inner Loop node then
  being part of the outer body.

A TensorArray / TensorList loop variable written at the loop's counter (a variable starting at 0
and growing by 1) on every iteration becomes a Loop output concatenated along axis 0; every other
TensorArray op is translated on the array's contents (extensions/front/tf/tensor_array.py).
"""
from __future__ import annotations

from collections import defaultdict

import numpy as np

from extensions.load.tf.attributes import TfExtractor
from extensions.ops.control_flow import new_body, port_entry, sliced_entry
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.node import Node
from mo.graph.port import Port
from mo.pipeline.anchors import FrontStart
from mo.pipeline.extract import framework_op_name
from mo.pipeline.transform import Transform

LOOP_OPS = ("Enter", "RefEnter", "Exit", "RefExit", "NextIteration", "RefNextIteration", "LoopCond")
COND_OPS = ("Switch", "RefSwitch", "Merge", "RefMerge")
SEQUENCE_WRITES = {"TensorArrayWriteV3": (3, 1, 2), "TensorListSetItem": (0, 1, 2)}   # list, index, item ports
FRESH_SEQUENCES = {"TensorArrayV3": 1, "TensorListReserve": 0, "EmptyTensorList": 0}   # op -> its list output
PASS = ("Identity", "IdentityN", "Snapshot", "StopGradient", "PlaceholderWithDefault")


@translator("tf", *LOOP_OPS, *COND_OPS)
def left_control_flow(node, b):
    """These ops are consumed by TfV1ControlFlow; one reaching translation is not part of a frame
    it recognises."""
    raise ConversionError(f"{node.fw_op} is not part of a tf.cond (Switch/Merge) or tf.while_loop frame "
                          f"(Enter/Merge/Switch/LoopCond/NextIteration/Exit) the converter recognises.")


def is_op(node: Node, *types: str) -> bool:
    """Whether ``node`` is a TensorFlow node of one of ``types`` (whether extracted to an opset
    op or waiting for its translator)."""
    return node.get("fw_op") in types and node.get("op") != "Const"


def source(node: Node, idx: int) -> Port:
    return node.in_port(idx).get_source()


def skip_identity(port: Port) -> Port:
    """The tensor an Identity chain passes on."""
    while is_op(port.node, *PASS):
        port = source(port.node, port.idx)
    return port


def switch_pred(switch: Node) -> tuple[str, int]:
    """The predicate tensor of a Switch (past the Identity tf.cond reads it through)."""
    pred = skip_identity(source(switch, 1))
    return pred.node.id, pred.idx


def scalar_predicates(graph) -> None:
    """A Switch's predicate is a scalar: a model input of unknown rank that is one gets rank 0
    (the CPU plugin compiles no input of dynamic rank)."""
    for t in ("Switch", "RefSwitch"):
        for switch in graph.nodes_by_op(framework_op_name("tf", t)):
            pred = skip_identity(source(switch, 1)).node
            if pred.op == "Parameter" and pred.get("shape") is None:
                pred["shape"] = ()


def consumers(port: Port) -> list[Node]:
    return [p.node for p in port.get_destinations()]


def const_scalar(port: Port):
    value = port.data.get_value()
    return None if value is None or value.size != 1 else value.reshape(-1)[0]


def ancestors(graph, ports: list[Port], stop) -> list[str]:
    """Ids of the nodes ``ports`` depend on, producers first, not going past a node for which
    ``stop(node)`` holds (which is not included)."""
    order, seen = [], set()
    stack = [(p.node.id, False) for p in ports]
    while stack:
        nid, done = stack.pop()
        if done:
            order.append(nid)
            continue
        if nid in seen or stop(Node(graph, nid)):
            continue
        seen.add(nid)
        stack.append((nid, True))
        node = Node(graph, nid)
        for i in sorted(node.in_ports(), reverse=True):
            src = node.in_port(i).get_source()
            if src is not None and src.node.id not in seen:
                stack.append((src.node.id, False))
    return order


def copy_nodes(graph, dst, order: list[str], feed, share_bodies: bool) -> dict[str, str]:
    """Copy the op-form nodes ``order`` (producers first) of ``graph`` into ``dst``; an input
    from outside ``order`` comes from ``feed(port)``. Returns {old id: copy id}."""
    mapping: dict[str, str] = {}
    for nid in order:
        node = Node(graph, nid)
        if node.get("bodies") and not share_bodies:
            raise ConversionError(f"'{node.name}' in a tf.while_loop condition has a body of its own; not supported.")
        attrs = {k: v for k, v in node.attrs.items() if k not in ("_seq", "tensor_names", "kind")}
        copy = dst.add_op(attrs)
        mapping[nid] = copy.id
        for i, port in node.in_ports().items():
            src = port.get_source()
            if src is None:
                continue
            if src.node.id in mapping:
                Node(dst, mapping[src.node.id]).out_port(src.idx).connect(copy.in_port(i))
            else:
                feed(src).connect(copy.in_port(i))
    return mapping


class TfV1ControlFlow(Transform):
    """tf.cond frames -> If or Select, tf.while_loop frames -> Loop (see the module docstring). Runs
    before the front phase starts: until then the graph has the loops' cycles."""

    frameworks = ("tf",)

    def run_before(self):
        return [FrontStart]

    def matched_ops(self) -> set[str]:
        return {framework_op_name("tf", t) for t in LOOP_OPS + COND_OPS}

    def find_and_replace_pattern(self, graph) -> None:
        scalar_predicates(graph)
        self._convert_conds(graph)
        for t in ("Switch", "RefSwitch"):
            for switch in graph.nodes_by_op(framework_op_name("tf", t)):
                if not is_op(source(switch, 1).node, "LoopCond"):
                    data = source(switch, 0)
                    for port in switch.out_ports().values():
                        port.get_connection().set_source(data)
                    graph.remove_node(switch.id)
        while True:
            frames = self._frames(graph)
            if not frames:
                break
            innermost = [(f, m) for f, m in frames.items() if not any(
                is_op(Node(graph, n), "Enter", "RefEnter") and self._frame_name(Node(graph, n)) != f for n in m)]
            if not innermost:
                raise ConversionError(f"The tf.while_loop frames {sorted(frames)} enter each other: the model is "
                                      f"corrupt.")
            Frame(graph, *innermost[0]).convert()

    @staticmethod
    def _is_loop_merge(merge: Node) -> bool:
        return any(is_op(source(merge, i).node, "Enter", "RefEnter", "NextIteration", "RefNextIteration")
                   for i in merge.in_ports())

    @staticmethod
    def _frame_name(enter: Node) -> str:
        return TfExtractor.attr(enter, "frame_name", "")

    def _frames(self, graph) -> dict[str, set[str]]:
        """Frame name -> the ids of its nodes: what its Enters reach, up to its Exits."""
        enters = defaultdict(list)
        for t in ("Enter", "RefEnter"):
            for e in graph.nodes_by_op(framework_op_name("tf", t)):
                enters[self._frame_name(e)].append(e)
        frames = {}
        for name, nodes in enters.items():
            members: set[str] = set()
            stack = [n.id for n in nodes]
            while stack:
                nid = stack.pop()
                if nid in members:
                    continue
                members.add(nid)
                node = Node(graph, nid)
                if is_op(node, "Exit", "RefExit") and self._exit_frame(node) == name:
                    continue
                for port in node.out_ports().values():
                    stack += [c.id for c in consumers(port) if c.id not in members]
            frames[name] = members
        return frames

    def _exit_frame(self, exit_node: Node) -> str | None:
        """The frame an Exit leaves: the frame of the Enter behind its Switch's Merge."""
        switch = source(exit_node, 0).node
        merge = source(switch, 0).node if is_op(switch, "Switch", "RefSwitch") else None
        if merge is None or not is_op(merge, "Merge", "RefMerge"):
            return None
        for i in merge.in_ports():
            if is_op(source(merge, i).node, "Enter", "RefEnter"):
                return self._frame_name(source(merge, i).node)
        return None

    @staticmethod
    def _switch_reach(graph, port: Port) -> set[tuple]:
        """The (predicate tensor, Switch output) pairs ``port`` depends on: the nearest Switches
        (Merges are converted producers first, so those of the cond itself), not looking past a
        loop's back edges (a constant in a branch is tied to it by the loader: see
        extensions/load/tf/graph_builder.py:branch_pivots)."""
        reach = set()
        seen = set()
        stack = [port]
        while stack:
            src = stack.pop()
            if is_op(src.node, "Switch", "RefSwitch"):
                reach.add((switch_pred(src.node), src.idx))
                continue
            if src.node.id in seen or is_op(src.node, "NextIteration", "RefNextIteration", "Enter", "RefEnter"):
                continue
            seen.add(src.node.id)
            stack += [source(src.node, i) for i in src.node.in_ports()]
        return reach

    def _merge_choice(self, graph, merge: Node) -> tuple[Port, tuple]:
        """(predicate, (the Merge input taken when it holds, when not))."""
        ins = sorted(merge.in_ports())
        if len(ins) != 2:
            raise ConversionError(f"Merge '{merge.name}' has {len(ins)} inputs; a tf.cond Merge has two.")
        a, b = source(merge, ins[0]), source(merge, ins[1])
        ra, rb = self._switch_reach(graph, a), self._switch_reach(graph, b)
        for strict in (True, False):
            for pred, port in sorted(ra | rb):
                mine, other = (ra, rb) if (pred, port) in ra else (rb, ra)
                if (pred, 1 - port) in mine or (pred, port) in other:
                    continue
                if strict and (pred, 1 - port) not in other:
                    continue
                true_first = (mine is ra) == (port == 1)
                return Node(graph, pred[0]).out_port(pred[1]), (ins[0], ins[1]) if true_first else (ins[1], ins[0])
        raise ConversionError(f"Merge '{merge.name}': cannot tell which tf.cond predicate selects between its "
                              f"inputs; convert the functional If form (TensorFlow 2 control flow) instead.")

    def _convert_conds(self, graph) -> None:
        """tf.cond Merges -> If, producers first (an inner or an earlier cond is converted, and
        its Switches gone, before the predicate of a later one is looked for). The Merges of one
        tf.cond (one name scope, one predicate) make one If; a constant predicate keeps the
        branch taken; a cond around a loop becomes Selects."""
        merges = [n for t in ("Merge", "RefMerge") for n in graph.nodes_by_op(framework_op_name("tf", t))
                  if not self._is_loop_merge(n)]
        if not merges:
            return
        ids = {m.id for m in merges}
        order = [n for n in ancestors(graph, [m.out_port(0) for m in merges],
                                      lambda n: is_op(n, "NextIteration", "RefNextIteration")) if n in ids]
        handled: set[str] = set()
        for mid in order:
            if mid in handled:
                continue
            merge = Node(graph, mid)
            pred, taken = self._merge_choice(graph, merge)
            key = (pred.node.id, pred.idx)
            scope = merge.name.rpartition("/")[0]
            group = [(merge, taken)]
            for other in order:
                node = Node(graph, other) if other not in handled and other != mid and other in graph else None
                if node is not None and node.name.rpartition("/")[0] == scope:
                    other_pred, other_taken = self._merge_choice(graph, node)
                    if (other_pred.node.id, other_pred.idx) == key:
                        group.append((node, other_taken))
            branches = [self._branch(graph, key, side, group) for side in (1, 0)]
            pending = ids - handled - {m.id for m, _ in group}
            if len(group) > 1 and any(n in pending for branch in branches for n in branch):
                group = group[:1]       # another Merge of the scope waits for a cond inside it
                branches = [self._branch(graph, key, side, group) for side in (1, 0)]
            handled |= {m.id for m, _ in group}
            switches = self._switches(graph, key, branches, group)
            if const_scalar(pred) is None and not any(is_op(Node(graph, n), *LOOP_OPS) for b in branches for n in b):
                self._cond_to_if(graph, pred, group, branches)
            else:
                for m, m_taken in group:
                    self._replace_merge(m, pred, source(m, m_taken[0]), source(m, m_taken[1]), m_taken)
            for switch in switches:
                if switch.id in graph:
                    for port in switch.out_ports().values():
                        port.get_connection().set_source(source(switch, 0))
                    graph.remove_node(switch.id)

    @staticmethod
    def _switches(graph, key: tuple, branches: list[list[str]], group: list) -> list[Node]:
        """The Switches on predicate ``key`` that only the group's branches and Merges read."""
        readers = [Node(graph, n) for branch in branches for n in branch] + [m for m, _ in group]
        inside = {n.id for n in readers}
        found = {}
        for node in readers:
            for i in node.in_ports():
                src = source(node, i).node
                if is_op(src, "Switch", "RefSwitch") and switch_pred(src) == key and all(
                        c.id in inside for p in src.out_ports().values() for c in consumers(p)):
                    found[src.id] = src
        return list(found.values())

    @staticmethod
    def _is_switch_output(port: Port, key: tuple, side: int) -> bool:
        return port.idx == side and is_op(port.node, "Switch", "RefSwitch") and switch_pred(port.node) == key

    def _branch(self, graph, key: tuple, side: int, group: list) -> list[str]:
        """The nodes of one branch of the cond on predicate ``key``: what the group's values for
        ``side`` compute from the Switch outputs ``side`` of that predicate (producers first)."""
        values = [source(merge, taken[1 - side]) for merge, taken in group]
        around = set(ancestors(graph, values, lambda n: is_op(n, "Switch", "RefSwitch", "NextIteration",
                                                              "RefNextIteration", "Enter", "RefEnter")))
        reached: set[str] = set()
        stack = [n for n in around for i, src in Node(graph, n).in_ports().items()
                 if self._is_switch_output(src.get_source(), key, side)]
        while stack:
            nid = stack.pop()
            if nid not in reached and nid in around:
                reached.add(nid)
                stack += [c.id for p in Node(graph, nid).out_ports().values() for c in consumers(p)]
        return ancestors(graph, values, lambda n: n.id not in reached)

    def _cond_to_if(self, graph, pred: Port, group: list, branches: list[list[str]]) -> None:
        label = group[0][0].name
        outer: list[Port] = []
        in_map, out_map, bodies = [], [], {}
        for side, name, order in ((1, "then_body", branches[0]), (0, "else_body", branches[1])):
            body = new_body(graph)
            bb = OpBuilder(body, f"{label}/{name}")
            params: dict[tuple, Port] = {}

            def feed(port: Port, bb=bb, params=params, name=name) -> Port:
                if is_op(port.node, "Switch", "RefSwitch") and switch_pred(port.node) == (pred.node.id, pred.idx):
                    port = source(port.node, 0)
                if port.node.op == "Const":
                    return bb.const(port.data.get_value(), name=port.node.name,
                                    element_type=port.node.get("element_type"))
                key = (port.node.id, port.idx)
                if key not in params:
                    if port not in outer:
                        outer.append(port)
                    p = bb.node("Parameter", name=f"{label}/{name}/{port.node.name}")
                    in_map.append(port_entry(1 + outer.index(port), p, name))
                    params[key] = p.out_port(0)
                return params[key]
            mapping = copy_nodes(graph, body, order, feed, share_bodies=True)
            for i, (merge, taken) in enumerate(group):
                value = source(merge, taken[1 - side])
                out = Node(body, mapping[value.node.id]).out_port(value.idx) if value.node.id in mapping \
                    else feed(value)
                out_map.append(port_entry(i, bb.node("Result", out, name=f"{merge.name}/{name}"), name))
            bodies[name] = body
        b = OpBuilder(graph, label)
        new = b.node("If", pred, *outer, name=f"{label}/If", bodies=bodies, input_port_map=in_map,
                     output_port_map=out_map, num_outputs=len(group))
        for i, (merge, taken) in enumerate(group):
            self._replace_merge(merge, pred, new.out_port(i), None, taken)
        for nid in reversed(branches[0] + branches[1]):
            if nid in graph and not any(p.is_connected() for p in Node(graph, nid).out_ports().values()):
                graph.remove_node(nid)

    @staticmethod
    def _replace_merge(merge: Node, pred: Port, then: Port, otherwise: Port | None, taken: tuple) -> None:
        """Merge output 0 -> ``then`` when ``otherwise`` is None (an If's output), the value
        chosen by a constant ``pred``, or a Select; output 1 (the index of the input taken)
        likewise."""
        bld = OpBuilder(merge.graph, merge.name)
        known = const_scalar(skip_identity(pred))
        if known is not None:
            outputs = {0: lambda: then if known else otherwise,
                       1: lambda: bld.const(np.array(taken[0] if known else taken[1], np.int32))}
        else:
            outputs = {0: lambda: then if otherwise is None else bld.Select(pred, then, otherwise),
                       1: lambda: bld.Select(pred, np.array(taken[0], np.int32), np.array(taken[1], np.int32))}
        for idx, port in merge.out_ports().items():
            if port.is_connected():
                port.get_connection().set_source(outputs[idx]())
        for i in list(merge.in_ports()):
            merge.in_port(i).disconnect()
        merge.graph.remove_node(merge.id)


class LoopVar:
    """One loop variable: Enter -> Merge <- NextIteration, Merge -> Switch -> (Exit, body)."""

    def __init__(self, enter: Node, merge: Node):
        self.enter, self.merge = enter, merge
        self.init = source(enter, 0)
        nexts = [source(merge, i) for i in merge.in_ports() if source(merge, i).node.id != enter.id]
        if len(nexts) != 1 or not is_op(nexts[0].node, "NextIteration", "RefNextIteration"):
            raise ConversionError(f"Merge '{merge.name}' of a tf.while_loop does not merge an Enter with a "
                                  f"NextIteration.")
        self.next_iteration = nexts[0].node
        self.next = source(self.next_iteration, 0)
        self.switches = [c for c in consumers(merge.out_port(0)) if is_op(c, "Switch", "RefSwitch")]
        self.exits = [c for s in self.switches for c in consumers(s.out_port(0)) if is_op(c, "Exit", "RefExit")]


class Frame:
    """One tf.while_loop frame to convert into a Loop."""

    def __init__(self, graph, name: str, members: set[str]):
        self.graph, self.name = graph, name
        self.members = members
        nodes = [Node(graph, n) for n in sorted(members, key=lambda n: graph.nodes[n]["_seq"])]
        self.label = name
        self.vars: list[LoopVar] = []
        self.invariants: list[Node] = []
        for enter in (n for n in nodes if is_op(n, "Enter", "RefEnter")):
            merges = [c for c in consumers(enter.out_port(0)) if is_op(c, "Merge", "RefMerge")]
            if merges:
                self.vars.append(LoopVar(enter, merges[0]))
            else:
                self.invariants.append(enter)
        conds = {source(s, 1).node.id for v in self.vars for s in v.switches}
        if len(conds) != 1 or not self.vars:
            raise ConversionError(f"tf.while_loop frame '{name}': its loop variables are not switched by one "
                                  f"LoopCond.")
        self.loop_cond = Node(graph, conds.pop())
        self.cond = source(self.loop_cond, 0)

    def fail(self, message: str):
        raise ConversionError(f"tf.while_loop frame '{self.name}': {message}")

    # ------------------------------------------------------------------ analysis
    def _var_of(self, port: Port) -> LoopVar | None:
        """The loop variable whose value at the start of an iteration ``port`` is."""
        port = skip_identity(port)
        for v in self.vars:
            if port.node.id == v.merge.id and port.idx == 0 or \
                    any(port.node.id == s.id and port.idx == 1 for s in v.switches):
                return v
        return None

    def _is_counter(self, v: LoopVar) -> bool:
        init = skip_identity(v.init)
        if const_scalar(init) != 0:
            return False
        step = skip_identity(v.next).node
        if not is_op(step, "Add", "AddV2"):
            return False
        a, b = source(step, 0), source(step, 1)
        return any(self._var_of(x) is v and const_scalar(skip_identity(y)) == 1 for x, y in ((a, b), (b, a)))

    def _sequences(self) -> dict[int, tuple[Node, Port]]:
        """Loop variables that are fresh TensorArrays/TensorLists written at the counter on
        every iteration: {var index: (the write node, the item written)}."""
        counters = [v for v in self.vars if self._is_counter(v)]
        found = {}
        for k, v in enumerate(self.vars):
            writer = skip_identity(v.next).node
            kind = writer.get("fw_op")
            if kind not in SEQUENCE_WRITES:
                continue
            list_port, index_port, item_port = SEQUENCE_WRITES[kind]
            init = skip_identity(v.init)
            if FRESH_SEQUENCES.get(init.node.get("fw_op")) != init.idx:
                continue
            index_var = self._var_of(source(writer, index_port))
            if self._var_of(source(writer, list_port)) is not v or index_var not in counters:
                continue
            flow_users = [c for s in v.switches for c in consumers(s.out_port(1))]
            if any(c.id != writer.id and not is_op(c, *PASS) for c in flow_users):
                continue
            found[k] = (writer, source(writer, item_port))
        return found

    # ------------------------------------------------------------------ conversion
    def convert(self) -> None:
        graph = self.graph
        sequences = self._sequences()
        carried = [k for k in range(len(self.vars)) if k not in sequences]
        body = new_body(graph)
        bb = OpBuilder(body, self.label)
        params: dict[tuple, Port] = {}
        loop_inputs: list[Port] = []
        in_map: list[dict] = []

        def parameter(key: tuple, outer: Port, name: str) -> Port:
            if key not in params:
                p = bb.node("Parameter", name=f"{self.label}/{name}")
                in_map.append(port_entry(2 + len(loop_inputs), p))
                loop_inputs.append(outer)
                params[key] = p.out_port(0)
            return params[key]

        for k in carried:
            v = self.vars[k]
            parameter(("var", k), v.init, v.merge.name)

        def body_feed(port: Port) -> Port:
            v = self._var_of(port) if port.node.id in self.members else None
            if v is not None:
                k = self.vars.index(v)
                if k in sequences:
                    self.fail(f"TensorArray '{v.merge.name}' is read where it is written")
                return params[("var", k)]
            if is_op(port.node, "Enter", "RefEnter") and port.node.id in self.members:
                return parameter(("enter", port.node.id), source(port.node, 0), port.node.name)
            if port.node.id in self.members:
                self.fail(f"'{port.node.name}' ({port.node.get('translate') or port.node.op}) is used inside the "
                          f"loop body other than as the loop machinery allows")
            if port.node.op == "Const":
                return bb.const(port.data.get_value(), name=port.node.name,
                                element_type=port.node.get("element_type"))
            return parameter(("outer", port.node.id, port.idx), port, port.node.name)

        def in_body(node: Node) -> bool:
            return node.id in self.members and not is_op(node, "Enter", "RefEnter", "Merge", "RefMerge",
                                                         "Switch", "RefSwitch")

        wanted = [self.vars[k].next for k in carried] + [item for _, item in sequences.values()]
        order = ancestors(graph, wanted, lambda n: not in_body(n) or n.id in {w.id for w, _ in sequences.values()})
        mapping = copy_nodes(graph, body, order, body_feed, share_bodies=True)

        def in_copy(port: Port) -> Port:
            return Node(body, mapping[port.node.id]).out_port(port.idx) if port.node.id in mapping else body_feed(port)

        nexts = {k: in_copy(self.vars[k].next) for k in carried}
        # the condition on the next values, in the body
        cond_order = ancestors(graph, [self.cond], lambda n: not in_body(n))

        def cond_body_feed(port: Port) -> Port:
            v = self._var_of(port) if port.node.id in self.members else None
            if v is not None:
                k = self.vars.index(v)
                if k in sequences:
                    self.fail("the loop condition reads a TensorArray the loop writes")
                return nexts[k]
            return body_feed(port)
        cond_map = copy_nodes(graph, body, cond_order, cond_body_feed, share_bodies=False)
        body_cond = Node(body, cond_map[self.cond.node.id]).out_port(self.cond.idx) if self.cond.node.id in cond_map \
            else cond_body_feed(self.cond)
        out_map = [port_entry(-1, bb.node("Result", body_cond, name=f"{self.label}/cond"),
                              purpose="execution_condition")]
        back = []
        for j, k in enumerate(carried):
            result = bb.node("Result", nexts[k], name=f"{self.vars[k].merge.name}/next")
            out_map.append(port_entry(j, result))
            back.append({"from": result.id, "to": params[("var", k)].node.id})
        stacked = {}
        for k, (_, item) in sequences.items():
            result = bb.node("Result", bb.Unsqueeze(in_copy(item), np.array([0], np.int64)),
                             name=f"{self.vars[k].merge.name}/sequence")
            stacked[k] = len(carried) + len(stacked)
            out_map.append(sliced_entry(stacked[k], result, 0))

        # the initial condition, outside
        def cond_outer_feed(port: Port) -> Port:
            v = self._var_of(port) if port.node.id in self.members else None
            if v is not None:
                return v.init
            if is_op(port.node, "Enter", "RefEnter") and port.node.id in self.members:
                return source(port.node, 0)
            if port.node.id in self.members:
                self.fail(f"the loop condition reads '{port.node.name}', which cannot be computed outside the loop")
            return port
        init_map = copy_nodes(graph, graph, cond_order, cond_outer_feed, share_bodies=False)
        init_cond = Node(graph, init_map[self.cond.node.id]).out_port(self.cond.idx) \
            if self.cond.node.id in init_map else cond_outer_feed(self.cond)

        b = OpBuilder(graph, self.label)
        loop = b.node("Loop", b.const(np.array(-1, np.int64)), init_cond, *loop_inputs, name=self.label,
                      bodies={"body": body}, input_port_map=in_map, output_port_map=out_map, back_edges=back,
                      num_outputs=len(carried) + len(stacked))
        for k, v in enumerate(self.vars):
            out = loop.out_port(carried.index(k) if k in carried else stacked[k])
            for e in v.exits:
                e.out_port(0).get_connection().set_source(out)
        for nid in self.members:
            for port in Node(graph, nid).out_ports().values():
                for dst in port.get_destinations():
                    if dst.node.id not in self.members:
                        self.fail(f"'{port.node.name}' is used outside the loop other than through an Exit")
        graph.remove_nodes_from(self.members)
        for k in sequences:
            maker = skip_identity(self.vars[k].init).node
            if maker.id in graph and not any(p.is_connected() for p in maker.out_ports().values()):
                graph.remove_node(maker.id)
