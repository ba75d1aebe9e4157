"""Op: the base class of every operation the graph can hold.

One subclass per operation declares its internal name (``op``), the IR layer ``type`` and
``version`` it is written as (``type = None`` for internal ops that must be replaced before the
IR is written), its attribute defaults, the attributes written to the IR's ``<data>`` element,
and how outputs are computed:

* ``type_infer(node)``: element types of the outputs (default: the type of input 0);
* ``infer(node)``: shapes of the outputs, and their values when every input value is known
  (constant folding). The default ``infer`` calls ``evaluate`` when all inputs are constant and
  ``infer_shapes`` otherwise, so most ops only write those two.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from mo.graph.node import Node
from mo.graph.port import Port
from mo.utils.types import np_dtype

# Constant folding leaves alone a result of more elements than this (1 GiB of f32).
FOLD_LIMIT = 2 ** 28


class Op:
    """Base class of operations. Subclasses set ``op`` and are found by the registry."""

    abstract = True
    op: str = ""
    type: str | None = ""          # IR type; "" means "same as op"; None means internal only
    version: str = "opset1"
    defaults: dict[str, Any] = {}
    ir_attrs: tuple[str, ...] = ()
    num_outputs: int = 1
    # An op with side effects or randomness is never constant-folded; a node with the attribute
    # ``foldable`` False is not either (e.g. the Convert that decompresses low-precision weights).
    foldable: bool = True
    # Inputs that must share one element type (the IR is invalid otherwise); "all" for every input.
    same_type_inputs: tuple[int, ...] | str = ()
    # Ranks an input may have, by port; a model that breaks them is refused before inference
    # (the runtime would refuse the IR).
    input_ranks: dict[int, tuple[int, ...]] = {}
    # Inputs that must hold integers (axes, indices, shapes), by port: the element types allowed.
    input_types: dict[int, frozenset[str] | tuple[str, ...]] = {}
    # Whether the op takes string tensors (OpenVINO computes no op on strings but a few; the CPU
    # plugin does not compile the others with a string input)
    string_inputs: bool = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "abstract" not in cls.__dict__:
            cls.abstract = False
        if "type" not in cls.__dict__:
            # a subclass is its own op: it does not inherit its parent's IR type (an internal
            # parent, type None, keeps its subclasses internal)
            cls.type = None if any(getattr(base, "type", "") is None for base in cls.__mro__[1:]
                                   if "type" in base.__dict__ and base is not Op) else cls.op
        elif cls.type == "":
            cls.type = cls.op

    # ------------------------------------------------------------------ creation
    @classmethod
    def node_attrs(cls, attrs: dict) -> dict:
        if attrs.get("kind", "op") != "op" or cls.defaults.get("kind", "op") != "op":
            raise ValueError(f"op {cls.op} may not set 'kind': it is the node's own field (op or data)")
        base = {"kind": "op", "op": cls.op, "type": cls.type, "version": cls.version}
        base.update({k: (list(v) if isinstance(v, list) else v) for k, v in cls.defaults.items()})
        base.update(attrs)
        return base

    @classmethod
    def create(cls, graph, inputs: Sequence[Port | Node | None] = (), name: str | None = None,
               **attrs) -> Node:
        """Add a node of this op to ``graph`` fed by ``inputs`` (output ports, or nodes meaning
        their output 0; None leaves an input unconnected). In a data-form graph the new node is
        inferred at once, so its outputs have shapes and types."""
        if name is not None:
            attrs["name"] = name
        node = graph.add_op(cls.node_attrs(attrs))
        for i, src in enumerate(inputs):
            if src is None:
                continue
            if isinstance(src, Node):
                src = src.out_port(0)
            src.connect(node.in_port(i))
        if graph.data_form:
            from mo.pipeline.infer import infer_node
            infer_node(node)
        return node

    @classmethod
    def update_node(cls, node: Node, attrs: dict | None = None) -> None:
        """Turn an existing (extracted) node into this op with the given attributes."""
        node.update(cls.node_attrs(attrs or {}))

    @classmethod
    def outputs_count(cls, node: Node) -> int:
        return node.get("num_outputs", cls.num_outputs)

    # ------------------------------------------------------------------ inference
    @classmethod
    def check_inputs(cls, node: Node) -> None:
        """Refuse inputs of a rank or element type the op does not take (``input_ranks``,
        ``input_types``, strings unless ``string_inputs``)."""
        for port, ranks in cls.input_ranks.items():
            rank = node.in_port(port).data.get_rank() if node.is_in_port_connected(port) else None
            if rank is not None and rank not in ranks:
                raise ValueError(f"input {port} has rank {rank}; {cls.op} takes rank "
                                 f"{' or '.join(map(str, ranks))} there")
        for port, types in cls.input_types.items():
            dtype = node.in_dtype(port) if node.is_in_port_connected(port) else None
            if dtype is not None and dtype not in types:
                raise ValueError(f"input {port} has element type {dtype}; {cls.op} takes "
                                 f"{' or '.join(sorted(types))} there")
        if not cls.string_inputs:
            strings = [i for i in node.in_ports() if node.is_in_port_connected(i) and node.in_dtype(i) == "string"]
            if strings:
                raise ValueError(f"input {strings[0]} is a string tensor; {cls.op} does not compute on strings")

    @classmethod
    def type_infer(cls, node: Node) -> None:
        dtype = node.in_dtype(0) if node.is_in_port_connected(0) else None
        for i in range(cls.outputs_count(node)):
            node.out_port(i).data.set_dtype(dtype)

    @classmethod
    def infer(cls, node: Node) -> None:
        by_port = node.graph.input_values(node.id)
        if cls.foldable and by_port and all(v is not None for v in by_port.values()) and node.get("foldable", True) \
                and cls.has_evaluate() and not cls._too_big_to_fold(node):
            results = cls.evaluate_outputs(node, [by_port.get(i) for i in range(max(by_port) + 1)])
            for i, value in enumerate(results):
                node.out_port(i).data.set_value(value)
            return
        shapes = cls.infer_shapes(node)
        for i, s in enumerate(shapes):
            node.out_port(i).data.set_shape(s)

    @classmethod
    def _too_big_to_fold(cls, node: Node) -> bool:
        """Whether the output shapes (known without computing, for ops with their own
        ``infer_shapes``) hold more than FOLD_LIMIT elements: such a value is left for the
        runtime to compute rather than materialised here."""
        if cls.infer_shapes.__func__ is Op.infer_shapes.__func__:
            return False
        return any(s is not None and all(d >= 0 for d in s) and math.prod(s) > FOLD_LIMIT
                   for s in cls.infer_shapes(node))

    @classmethod
    def has_evaluate(cls) -> bool:
        return cls.evaluate.__func__ is not Op.evaluate.__func__

    @classmethod
    def evaluate_outputs(cls, node: Node, inputs: Sequence[np.ndarray | None]) -> list[np.ndarray]:
        """``evaluate`` on ``inputs`` (one per input port, None where unconnected), as arrays of
        the element types inferred for the outputs."""
        results = cls.evaluate(node, *inputs)
        if not isinstance(results, (list, tuple)):
            results = [results]
        arrays = []
        for i, r in enumerate(results):
            dtype = node.out_port(i).data.get_dtype()
            arr = np.asarray(r)
            if dtype is not None and dtype != "string":
                arr = arr.astype(np_dtype(dtype), copy=False)
            arrays.append(arr)
        return arrays

    @classmethod
    def evaluate(cls, node: Node, *inputs: np.ndarray | None):
        """Output values from input values (numpy); ops that can be folded override this."""
        raise NotImplementedError

    @classmethod
    def infer_shapes(cls, node: Node) -> list[tuple | None]:
        """Output shapes from input shapes and attributes; -1 is a dynamic dimension, None a
        dynamic rank. The default keeps the shape of input 0."""
        return [node.in_shape(0)] * cls.outputs_count(node)

    # ------------------------------------------------------------------ IR
    @classmethod
    def ir_data(cls, node: Node) -> dict[str, Any]:
        """Attributes written to the layer's ``<data>`` element, in order."""
        attrs = node.attrs
        return {k: attrs[k] for k in cls.ir_attrs if attrs.get(k) is not None}
