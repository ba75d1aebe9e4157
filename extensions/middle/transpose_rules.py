"""How a Transpose moves from the input of an op to its outputs (used by TransposeSinking).

``y = Transpose(x, P)`` means ``y.shape[i] == x.shape[P[i]]``. An op C that reads ``y`` and does
not care about the order of the dimensions, apart from its axis attributes and constant
operands, computes the same as ``Transpose(C'(x), Q)``, where C' reads ``x`` with its axes
mapped through P (``a -> P[a]``) and constant operands transposed by the inverse of P; Q is P,
or what remains of it after dimensions were reduced away.

A rule looks at one consumer op and returns a ``Plan`` (the input rewrites, the attribute
changes and the permutation of each output) or None when the op cannot take the Transpose
without new Transposes on its other inputs.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from extensions.ops.elementwise import BinaryElementwise, UnaryElementwise
from mo.graph.builder import OpBuilder
from mo.graph.node import Node
from mo.graph.port import Port
from mo.utils.shape import normalize_axis

ELEMENTWISE_OPS = frozenset({"Select", "Convert", "FakeQuantize"})


def perm_of(node: Node) -> list[int] | None:
    """The constant permutation of a Transpose node (None when not constant)."""
    if node.op != "Transpose" or not node.is_in_port_connected(1):
        return None
    value = node.in_value(1)
    shape = node.in_shape(0)
    if value is None or shape is None or value.size != len(shape):
        return None
    return [normalize_axis(int(v), len(shape)) for v in value.reshape(-1)]


def inverse(perm: list[int]) -> list[int]:
    return [int(i) for i in np.argsort(perm)]


def transposed_by(port: Port, perm: list[int]) -> bool:
    """Whether ``port`` is the output of a Transpose by ``perm``."""
    return port.node.op == "Transpose" and perm_of(port.node) == perm


@dataclass
class Plan:
    """What pushing a Transpose through ``node`` does: new sources of some inputs, attribute
    updates, and the permutation to restore on each output (None or the identity: nothing to
    restore), by a Transpose or, for a shape vector (``gather``), a Gather of its elements."""

    node: Node
    inputs: dict[int, Callable[[], Port]] = field(default_factory=dict)
    attrs: dict = field(default_factory=dict)
    outputs: dict[int, list[int] | None] = field(default_factory=dict)
    gather: bool = False


def const_input(node: Node, port: int) -> np.ndarray | None:
    """Value of input ``port`` when a Const op produces it."""
    src = node.in_port(port).get_source()
    return src.node.value if src is not None and src.node.op == "Const" else None


def new_const(node: Node, value: np.ndarray, suffix: str) -> Callable[[], Port]:
    return lambda: OpBuilder(node.graph, node.name).const(value, name=f"{node.name}/{suffix}")


def broadcast_operand(node: Node, port: int, perm: list[int]) -> Callable[[], Port] | None | bool:
    """How input ``port`` of a broadcasting op follows a Transpose by ``perm`` on the others:
    the Transpose's input (bypass), a transposed constant, False when it needs nothing, None
    when it would need a Transpose of its own."""
    src = node.in_port(port).get_source()
    rank = len(perm)
    if transposed_by(src, perm):
        source = src.node.in_port(0).get_source()
        return lambda: source
    value = const_input(node, port)
    if value is not None:
        if value.size == 1 or value.ndim == 0:
            return False
        if value.ndim > rank:
            return None
        full = value.reshape((1,) * (rank - value.ndim) + value.shape)
        return new_const(node, np.ascontiguousarray(np.transpose(full, inverse(perm))), f"layout_{port}")
    shape = src.data.get_shape()
    if shape is not None and (len(shape) == 0 or all(d == 1 for d in shape)):
        return False
    return None


def elementwise(node: Node, perm: list[int]) -> Plan | None:
    """Unary and broadcasting elementwise ops: every input must follow the Transpose for free."""
    plan = Plan(node)
    bypassed = False
    for i in sorted(node.in_ports()):
        how = broadcast_operand(node, i, perm)
        if how is None:
            return None
        if how is not False:
            plan.inputs[i] = how
            bypassed |= transposed_by(node.in_port(i).get_source(), perm)
    if not bypassed or node.out_port(0).data.get_rank() != len(perm):
        return None
    plan.outputs = {i: perm for i in node.out_ports()}
    return plan


def _bypass_first(node: Node, perm: list[int]) -> Plan | None:
    src = node.in_port(0).get_source()
    if not transposed_by(src, perm):
        return None
    source = src.node.in_port(0).get_source()
    return Plan(node, inputs={0: lambda: source})


def _axes(node: Node, port: int, rank: int) -> list[int] | None:
    value = const_input(node, port)
    if value is None:
        return None
    return [normalize_axis(int(a), rank) for a in np.atleast_1d(value).reshape(-1)]


def reduction(node: Node, perm: list[int]) -> Plan | None:
    """Reduce*(x, axes): axes mapped; without keep_dims the output keeps the relative order of
    the remaining dimensions, so only what the Transpose did to those is restored."""
    plan = _bypass_first(node, perm)
    axes = _axes(node, 1, len(perm))
    if plan is None or axes is None:
        return None
    new_axes = np.array([perm[a] for a in axes], const_input(node, 1).dtype)
    plan.inputs[1] = new_const(node, new_axes, "layout_axes")
    if node.keep_dims:
        plan.outputs = {0: perm}
    else:
        kept = [perm[i] for i in range(len(perm)) if i not in axes]
        order = sorted(kept)
        plan.outputs = {0: [order.index(d) for d in kept]}
    return plan


def concat(node: Node, perm: list[int]) -> Plan | None:
    plan = elementwise(node, perm)
    if plan is None:
        return None
    plan.attrs["axis"] = perm[normalize_axis(node.axis, len(perm))]
    return plan


def split(node: Node, perm: list[int]) -> Plan | None:
    """Split / VariadicSplit: the axis input is mapped; every output is transposed back."""
    plan = _bypass_first(node, perm)
    axis = _axes(node, 1, len(perm))
    if plan is None or axis is None:
        return None
    plan.inputs[1] = new_const(node, np.array(perm[axis[0]], const_input(node, 1).dtype), "layout_axis")
    plan.outputs = {i: perm for i in node.out_ports()}
    return plan


def pad(node: Node, perm: list[int]) -> Plan | None:
    """Pad: pads_begin and pads_end follow the dimensions they pad."""
    plan = _bypass_first(node, perm)
    if plan is None:
        return None
    for port, what in ((1, "begin"), (2, "end")):
        value = const_input(node, port)
        if value is None or value.size != len(perm):
            return None
        plan.inputs[port] = new_const(node, np.ascontiguousarray(value.reshape(-1)[inverse(perm)]), f"layout_{what}")
    plan.outputs = {0: perm}
    return plan


def interpolate(node: Node, perm: list[int]) -> Plan | None:
    """Interpolate-11 with explicit axes: the axes are mapped (sizes/scales keep their order)."""
    plan = _bypass_first(node, perm)
    axes = _axes(node, 2, len(perm)) if node.is_in_port_connected(2) else None
    if plan is None or axes is None:
        return None
    plan.inputs[2] = new_const(node, np.array([perm[a] for a in axes], const_input(node, 2).dtype), "layout_axes")
    for key in ("pads_begin", "pads_end"):
        pads = list(node.get(key) or [])
        if any(pads):
            if len(pads) != len(perm):
                return None
            plan.attrs[key] = [pads[i] for i in inverse(perm)]
    plan.outputs = {0: perm}
    return plan


def softmax(node: Node, perm: list[int]) -> Plan | None:
    plan = _bypass_first(node, perm)
    if plan is None:
        return None
    plan.attrs["axis"] = perm[normalize_axis(node.axis, len(perm))]
    plan.outputs = {0: perm}
    return plan


def shape_of(node: Node, perm: list[int]) -> Plan | None:
    """ShapeOf(Transpose(x, P)) is Gather(ShapeOf(x), P)."""
    plan = _bypass_first(node, perm)
    if plan is None:
        return None
    plan.outputs = {0: perm}
    plan.gather = True
    return plan


RULES: dict[str, Callable[[Node, list[int]], Plan | None]] = {
    "Concat": concat, "Split": split, "VariadicSplit": split, "Pad": pad, "Interpolate": interpolate,
    "Softmax": softmax, "LogSoftmax": softmax, "ShapeOf": shape_of,
    **{op: reduction for op in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
                                "ReduceL2", "ReduceLogicalAnd", "ReduceLogicalOr")},
}


# ops whose inputs all follow the Transpose as in an elementwise op
ELEMENTWISE_LIKE = frozenset({"Concat"})


def is_elementwise(node: Node) -> bool:
    """Unary or broadcasting elementwise op (PRelu only with a single slope)."""
    if node.op == "PRelu":
        slope = const_input(node, 1)
        return slope is not None and slope.size == 1
    return issubclass(node.op_class, (UnaryElementwise, BinaryElementwise)) or node.op in ELEMENTWISE_OPS


def plan_push(node: Node, perm: list[int]) -> Plan | None:
    """The plan for pushing a Transpose by ``perm`` through ``node``, if it can take one."""
    rule = RULES.get(node.op)
    if rule is not None:
        return rule(node, perm)
    return elementwise(node, perm) if is_elementwise(node) else None
