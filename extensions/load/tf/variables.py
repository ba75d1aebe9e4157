"""Variables a TensorFlow 1 graph assigns itself, replaced by the values it assigns.

A graph that is not frozen holds its variables (``Variable``/``VariableV2``, resource
``VarHandleOp``) and may set them itself: ``Assign``/``AssignAdd``/``AssignSub`` on a variable
(their output is the variable again), ``AssignVariableOp``/``AssignAddVariableOp``/
``AssignSubVariableOp`` on a resource handle. An operation reads a variable when it takes it as an
ordinary input (TensorFlow reads the variable when that operation runs) or through
``ReadVariableOp``; a fetched output that is a variable is read when its producer has run. Only
what the outputs need counts: an initializer or a training step they do not depend on does not
run.

A read sees what the graph orders before it: the assignments it depends on, through data or
control edges, have run, and it sees the last of them, the one that each of the others precedes.
It takes that value: the tensor an ``Assign`` assigns, or the value before an
``AssignAdd``/``AssignSub`` plus or minus its operand (a new AddV2/Sub node,
``<assignment>/assigned``). A variable is left as it is where the graph does not tell its value,
and ``unknown`` says why (extensions/front/tf/graph_only.py refuses it with that reason):

* a read that depends on no assignment: the value comes from a checkpoint or from an initializer
  run on its own (with the checkpoint given, a MetaGraph's or a TF1 SavedModel's, the read keeps
  it);
* a read that depends on two assignments neither of which precedes the other;
* an assignment the outputs need that is ordered neither before a read nor after it: TensorFlow
  runs them in either order (it reads a reference variable first in the graphs tried, and a
  resource variable after the assignment; OpenVINO's frontend takes the value before it);
* an assignment inside a tf.cond branch or a tf.while_loop (it may not run, or run many times);
* any other use by what the outputs need (an optimizer's update, a scatter, a loop or a cond
  carrying the variable...).
"""
from __future__ import annotations

from collections import deque

from extensions.load.tf.functions import FlatGraph, TfNode, split_ref, tensor_ref
from mo.errors import InputModelError

REF_VARIABLES = ("Variable", "VariableV2")
RESOURCE_VARIABLES = ("VarHandleOp",)
# assignment -> the op its new value is computed with from the old one and its operand (None: the operand)
ASSIGNS = {"Assign": None, "AssignAdd": "AddV2", "AssignSub": "Sub",
           "AssignVariableOp": None, "AssignAddVariableOp": "AddV2", "AssignSubVariableOp": "Sub"}
REF_ASSIGNS = ("Assign", "AssignAdd", "AssignSub")       # output 0 is the variable again
# Op types with a reference input that a variable can reach, from TensorFlow's op registry (the
# others take queues, readers, tables...): they do not read it as an ordinary input does.
REF_INPUT_OPS = frozenset({
    "ApplyAdaMax", "ApplyAdadelta", "ApplyAdagrad", "ApplyAdagradDA", "ApplyAdagradV2", "ApplyAdam", "ApplyAddSign",
    "ApplyCenteredRMSProp", "ApplyFtrl", "ApplyFtrlV2", "ApplyGradientDescent", "ApplyMomentum", "ApplyPowerSign",
    "ApplyProximalAdagrad", "ApplyProximalGradientDescent", "ApplyRMSProp", "Assign", "AssignAdd", "AssignSub",
    "CountUpTo", "DebugGradientRefIdentity", "DestroyTemporaryVariable", "IsVariableInitialized", "RefEnter",
    "RefExit", "RefIdentity", "RefMerge", "RefNextIteration", "RefSelect", "RefSwitch", "ScatterAdd", "ScatterDiv",
    "ScatterMax", "ScatterMin", "ScatterMul", "ScatterNdAdd", "ScatterNdMax", "ScatterNdMin", "ScatterNdSub",
    "ScatterNdUpdate", "ScatterSub", "ScatterUpdate", "SdcaShrinkL1", "SparseApplyAdadelta", "SparseApplyAdagrad",
    "SparseApplyAdagradDA", "SparseApplyAdagradV2", "SparseApplyCenteredRMSProp", "SparseApplyFtrl",
    "SparseApplyFtrlV2", "SparseApplyMomentum", "SparseApplyProximalAdagrad", "SparseApplyProximalGradientDescent",
    "SparseApplyRMSProp", "StridedSliceAssign"})
BACK_EDGES = ("NextIteration", "RefNextIteration")
# how far into tf.cond branches and tf.while_loop frames an op's outputs are
FRAME_STEPS = {"Switch": 1, "RefSwitch": 1, "Enter": 1, "RefEnter": 1, "Merge": -1, "RefMerge": -1, "Exit": -2,
               "RefExit": -2}

EMPTY: dict[str, frozenset] = {}
KEEP = ""          # a read of a checkpoint's value: left as it is


class AssignedVariables:
    """Resolves the reads of the variables of one flattened graph (see the module docstring)."""

    def __init__(self, flat: FlatGraph, initialized: set[str]):
        self.flat = flat
        self.initialized = initialized             # variables a checkpoint gives a value before the graph runs
        self.by_name = {n.name: n for n in flat.nodes}
        self.call_controls: dict[str, list[str]] = {}
        for inner, controls in flat.calls.values():
            for name in inner:
                self.call_controls.setdefault(name, []).extend(controls)
        self.preds = {n.name: self._preds(n) for n in flat.nodes}
        self.unknown: dict[str, str] = {}          # variable -> why its value is not known
        self.before: dict[str, frozenset] = {}     # assignment -> the assignments of its variable before it
        self.value: dict[str, str | None] = {}     # assignment -> the tensor the variable holds after it
        self.reason: dict[str, str] = {}           # assignment without a value -> why
        self.conditional: set[str] = set()
        self.assignments: dict[str, list[str]] = {}   # variable -> the assignments the outputs need
        self._ancestors: dict[str, set[str]] = {}
        self.new_names: set[str] = set()

    def new_name(self, base: str) -> str:
        """``base``, or ``base_<k>`` when the graph has a node of that name."""
        name, k = base, 0
        while name in self.by_name or name in self.new_names:
            k += 1
            name = f"{base}_{k}"
        self.new_names.add(name)
        return name

    def node_of(self, ref: str) -> str:
        return split_ref(self.flat.resolve(ref))[0]

    def _preds(self, n: TfNode) -> list[str]:
        """The nodes ``n`` runs after: its data inputs' producers, its control inputs (a call's
        control input: every node inlined for it) and the control inputs of calls it is inside."""
        names = [self.node_of(r) for r in n.inputs]
        for c in n.controls + self.call_controls.get(n.name, []):
            names += self.flat.calls[c][0] if c in self.flat.calls else [c]
        return [p for p in names if p in self.by_name]

    # ------------------------------------------------------------------ graph order
    def order(self) -> list[TfNode]:
        """The nodes, each after those it runs after (loops' back edges left out)."""
        users: dict[str, list[str]] = {}
        count = {}
        for n in self.flat.nodes:
            preds = [p for p in self.preds[n.name] if self.by_name[p].op not in BACK_EDGES]
            count[n.name] = len(preds)
            for p in preds:
                users.setdefault(p, []).append(n.name)
        ready = deque(n.name for n in self.flat.nodes if not count[n.name])
        order, placed = [], set()
        while ready:
            name = ready.popleft()
            order.append(self.by_name[name])
            placed.add(name)
            for u in users.get(name, []):
                count[u] -= 1
                if not count[u]:
                    ready.append(u)
        return order + [n for n in self.flat.nodes if n.name not in placed]

    def needed(self, outputs: list[str]) -> set[str]:
        """The nodes TensorFlow runs to compute ``outputs``."""
        seen: set[str] = set()
        stack = [self.node_of(o) for o in outputs]
        while stack:
            name = stack.pop()
            if name in seen or name not in self.by_name:
                continue
            seen.add(name)
            stack += self.preds[name]
        return seen

    def ancestors(self, name: str) -> set[str]:
        if name not in self._ancestors:
            self._ancestors[name] = self.needed([f"{name}:0"]) - {name}
        return self._ancestors[name]

    # ------------------------------------------------------------------ resolution
    def resolve(self, outputs: list[str]) -> None:
        """Rewrite the reads of the variables whose value the graph tells, ``outputs`` among
        them (a fetched variable becomes an alias of its value)."""
        order = self.order()
        needed = self.needed(outputs)
        holder, resource = self._holders(order)
        if not holder:
            return
        self._find_other_uses(order, needed, holder, resource)
        states: dict[str, dict[str, frozenset]] = {}
        depth: dict[str, int] = {}
        added: list[TfNode] = []
        for n in order:
            if n.op in ASSIGNS and n.name in needed and n.inputs and self.flat.resolve(n.inputs[0]) in holder:
                self.assignments.setdefault(holder[self.flat.resolve(n.inputs[0])], []).append(n.name)
        for n in order:
            if n.name not in needed:
                continue
            preds = [p for p in self.preds[n.name] if p in states]
            state = self._merge([states[p] for p in preds])
            depth[n.name] = max((depth[p] for p in preds), default=0)
            for i, ref in enumerate(n.inputs):
                var = holder.get(self.flat.resolve(ref))
                if var is None or var in self.unknown or not self._reads(n, i, var in resource):
                    continue
                value = self._value_at(var, state.get(var, frozenset()), n.name)
                if value:
                    if n.op == "ReadVariableOp":
                        self.flat.aliases[f"{n.name}:0"] = value
                    else:
                        n.inputs[i] = value
            if n.op in ASSIGNS and n.inputs and self.flat.resolve(n.inputs[0]) in holder:
                var = holder[self.flat.resolve(n.inputs[0])]
                if var not in self.unknown:
                    prior = state.get(var, frozenset())
                    self.before[n.name] = frozenset().union(*({p} | self.before[p] for p in prior))
                    if depth[n.name] > 0:
                        self.conditional.add(n.name)
                    new = self._assigned_value(n, var, prior, added)
                    self.value[n.name] = new
                    state = {**state, var: frozenset({n.name})}
            depth[n.name] += FRAME_STEPS.get(n.op, 0) if not (n.op in ("Merge", "RefMerge") and any(
                self.by_name[p].op in BACK_EDGES for p in self.preds[n.name])) else 0
            states[n.name] = state
        for o in outputs:
            self._fetch(o, holder, states)
        self.flat.nodes += added

    def _holders(self, order: list[TfNode]) -> tuple[dict[str, str], set[str]]:
        """({tensor: the variable it is, as a reference or a handle}, the resource variables)."""
        holder: dict[str, str] = {}
        resource = set()
        for n in order:
            if n.op in REF_VARIABLES + RESOURCE_VARIABLES:
                holder[f"{n.name}:0"] = n.name
                if n.op in RESOURCE_VARIABLES:
                    resource.add(n.name)
            elif n.inputs and self.flat.resolve(n.inputs[0]) in holder:
                var = holder[self.flat.resolve(n.inputs[0])]
                if n.op in REF_ASSIGNS or n.op == "RefIdentity" or (n.op == "Identity" and var in resource):
                    holder[f"{n.name}:0"] = var
        return holder, resource

    def _find_other_uses(self, order, needed: set[str], holder: dict, resource: set) -> None:
        """Variables that an op the outputs need uses otherwise than by reading or assigning."""
        for n in order:
            if n.name not in needed:
                continue
            for i, ref in enumerate(n.inputs):
                var = holder.get(self.flat.resolve(ref))
                if var is None or var in self.unknown:
                    continue
                assigns = n.op in ASSIGNS and i == 0
                passes = n.op == "RefIdentity" or (n.op == "Identity" and var in resource)
                if not (assigns or passes or self._reads(n, i, var in resource)):
                    self.unknown[var] = f"{n.op} '{n.name}' uses it"

    @staticmethod
    def _reads(n: TfNode, i: int, is_resource: bool) -> bool:
        """Whether input ``i`` of ``n``, a variable, is read as a value."""
        if is_resource:
            return n.op == "ReadVariableOp"
        return n.op not in REF_INPUT_OPS

    def _merge(self, states: list[dict]) -> dict:
        """The state after all of ``states``: per variable, the last assignments (those no other
        one of them precedes)."""
        distinct = [s for s in {id(s): s for s in states if s}.values()]
        if len(distinct) <= 1:
            return distinct[0] if distinct else EMPTY
        merged: dict[str, frozenset] = {}
        for s in distinct:
            for var, last in s.items():
                merged[var] = merged.get(var, frozenset()) | last
        for var, last in merged.items():
            if len(last) > 1:
                merged[var] = frozenset(a for a in last if not any(a in self.before[b] for b in last if b != a))
        return merged

    def _value_at(self, var: str, last: frozenset, reader: str) -> str | None:
        """The tensor ``var`` holds where ``reader`` reads it, after the assignments ``last``:
        KEEP for the checkpoint's value (the read stays as it is); None (and the reason in
        ``unknown``) when the graph does not tell."""
        if not last and var not in self.initialized:
            self.unknown.setdefault(var, f"'{reader}' reads it before the graph assigns it: its value comes from "
                                         f"a checkpoint or an initializer run on its own")
            return None
        if len(last) > 1:
            first, second = sorted(last)[:2]
            self.unknown.setdefault(var, f"'{first}' and '{second}' assign it in no set order before '{reader}' "
                                         f"reads it")
            return None
        assignment = next(iter(last), None)
        if assignment is not None and self.value.get(assignment) is None:
            self.unknown.setdefault(var, self.reason.get(assignment, f"'{assignment}' assigns it a value not known"))
            return None
        racing = self._racing(var, last, reader)
        if racing is not None:
            self.unknown.setdefault(var, f"'{racing}' may assign it before or after '{reader}' reads it: nothing "
                                         f"orders them, and TensorFlow runs them in either order")
            return None
        return KEEP if assignment is None else self.value[assignment]

    def _racing(self, var: str, last: frozenset, reader: str) -> str | None:
        """An assignment of ``var`` the outputs need that is ordered neither before ``reader``
        (which reads the value after ``last``) nor after it, if any."""
        earlier = set(last).union(*(self.before[a] for a in last))
        for a in self.assignments.get(var, []):
            if a not in earlier and a != reader and reader not in self.ancestors(a):
                return a
        return None

    def _assigned_value(self, n: TfNode, var: str, prior: frozenset, added: list) -> str | None:
        """The tensor ``var`` holds after assignment ``n``: its operand, or a new node (put in
        ``added``) computing the old value plus or minus the operand."""
        if n.name in self.conditional:
            self.reason[n.name] = f"'{n.name}' assigns it inside a tf.cond branch or a tf.while_loop"
            return None
        if len(n.inputs) < 2:
            return None
        operand = ASSIGNS[n.op]
        if operand is None:
            return n.inputs[1]
        old = self._value_at(var, prior, n.name)
        if old is None:
            self.reason[n.name] = self.unknown.get(var, "")
            return None
        old = old or f"{var}:0"
        key = next((k for k in ("T", "dtype") if k in n.pb.attr), None)
        if key is None:
            raise InputModelError(f"Node '{n.name}' ({n.op}) lacks the attribute that gives its element type: the "
                                  f"model is corrupt.")
        pb = type(n.pb)()
        pb.name, pb.op = self.new_name(f"{n.name}/assigned"), operand
        pb.attr["T"].type = n.pb.attr[key].type
        added.append(TfNode(pb.name, operand, [old, n.inputs[1]], pb))
        return f"{pb.name}:0"

    def _fetch(self, output: str, holder: dict, states: dict) -> None:
        """An output that is a variable (a reference) is read when its producer has run: the
        output becomes an alias of the value then."""
        ref = self.flat.resolve(output)
        var, producer = holder.get(ref), self.node_of(ref)
        if var is None or var in self.unknown or producer not in states or \
                self.by_name[producer].op in RESOURCE_VARIABLES:
            return
        value = self._value_at(var, states[producer].get(var, frozenset()), producer)
        if value:
            self.flat.aliases[ref] = value


def resolve_assigned_variables(flat: FlatGraph, outputs: list[str], initialized: set[str]) -> dict[str, str]:
    """Rewrite the reads of the variables ``flat`` assigns itself, ``outputs`` among them, into
    reads of their values (see the module docstring); a variable in ``initialized`` (restored
    from a checkpoint) has its checkpoint's value until the graph assigns it. Returns {variable:
    why its value is not known} for the variables left as they are."""
    if not any(n.op in ASSIGNS for n in flat.nodes):
        return {}
    resolver = AssignedVariables(flat, initialized)
    resolver.resolve([tensor_ref(o) for o in outputs])
    return resolver.unknown
