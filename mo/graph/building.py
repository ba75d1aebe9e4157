"""Pieces that translators and rewrites of every framework build with an OpBuilder.

Constants of a given element type, ranks and axes checked against the model, dimensions read so
that the IR stays reshapeable, convolution weight and bias shaping, and layout permutations.
Write a helper here once instead of beside each framework's translators.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from mo.errors import ConversionError
from mo.graph.builder import OpBuilder
from mo.graph.node import Node
from mo.graph.port import Port
from mo.utils.types import np_dtype

INT64_MAX = np.iinfo(np.int64).max
INT64_MIN = np.iinfo(np.int64).min


def i64(*values) -> np.ndarray:
    """A 1-D i64 array of the values (``i64()`` is empty, ``i64(3)`` is ``[3]``, a list argument
    is flattened); write ``np.int64(3)`` for a 0-d one."""
    return np.array(values, np.int64).reshape(-1)


def typed_const(b: OpBuilder, value: Any, element_type: str) -> Port:
    """A Const of ``value`` in ``element_type`` (also types numpy has no dtype for, such as
    bf16: the value is held in its container dtype)."""
    return b.const(np.asarray(value).astype(np_dtype(element_type)), element_type=element_type)


def scalar_like(b: OpBuilder, value: float, like: Port) -> Port:
    """A 0-d constant ``value`` in the element type of ``like``; a ConvertLike when that type is
    not known yet (a rewrite before the translate step)."""
    dtype = like.data.get_dtype() if like.node.graph.data_form else None
    if dtype is None:
        return b.ConvertLike(np.array(value, np.float32), like)
    return typed_const(b, value, dtype)


def convert(b: OpBuilder, port: Port, element_type: str) -> Port:
    """``port`` in ``element_type``: itself when it has that type, a Const of a constant, else a
    Convert."""
    if port.data.get_dtype() == element_type:
        return port
    if port.node.op == "Const":
        from extensions.ops.elementwise import convert_value
        return b.const(convert_value(np.asarray(port.node.value), element_type), element_type=element_type)
    return b.Convert(port, destination_type=element_type)


def node_label(node: Node) -> str:
    """How messages name a node: 'name' (framework op type, source line when known)."""
    key = node.get("translate")
    what = f"{node.graph.framework} {key}" if key is not None else node.get("fw_op") or node.get("op")
    source = node.get("source")
    return f"'{node.name}' ({what}{', ' + source if source else ''})"


def rank_of(port: Port, node: Node) -> int:
    """The rank of ``port``, an input of ``node``; unknown is a ConversionError asking for input
    shapes."""
    rank = port.data.get_rank()
    if rank is None:
        raise ConversionError(f"The rank of an input of {node_label(node)} is not known; give the model input "
                              f"shapes with --input (dynamic dimensions as ?).")
    return rank


def input_rank(node: Node, idx: int = 0) -> int:
    """The rank of input ``idx`` of ``node`` (see ``rank_of``)."""
    return rank_of(node.in_port(idx).get_source(), node)


def norm_axis(axis: int, rank: int, node: Node) -> int:
    """An axis that may be negative, as an axis in [0, rank); out of range is a ConversionError."""
    axis = int(axis)
    if not -max(rank, 1) <= axis < max(rank, 1):
        raise ConversionError(f"Axis {axis} is out of range for rank {rank} in {node_label(node)}.")
    return axis + rank if axis < 0 else axis


def shape_of(b: OpBuilder, port: Port, element_type: str = "i64") -> Port:
    """The shape of ``port`` as a 1-D tensor."""
    return b.ShapeOf(port, output_type=element_type)


def dim(b: OpBuilder, port: Port, axis: int) -> Port:
    """The size of ``port`` along ``axis`` as a 0-d i64 tensor.

    A Const when ``port`` is a constant, or with --static_shape when the dim is static; otherwise
    ShapeOf -> Gather, so a dimension that comes from a model input stays computed and the IR
    reshapeable (the middle phase folds those that the weights fix)."""
    shape = port.data.get_shape()
    static = shape is not None and shape[axis] >= 0
    if static and (port.data.get_value() is not None or port.node.graph.options.static_shape):
        return b.const(np.int64(shape[axis]))
    return b.Gather(shape_of(b, port), np.int64(axis), np.int64(0))


def as_scalar(b: OpBuilder, port: Port) -> Port:
    """A one-element tensor reshaped to a scalar (frameworks often give [1] where OpenVINO wants [])."""
    return b.Reshape(port, i64(), special_zero=False)


def reversed_along(b: OpBuilder, x: Port, axis: int) -> Port:
    """x reversed along ``axis``: Slice from -1 down to the beginning with step -1."""
    return b.Slice(x, i64(-1), i64(INT64_MIN), i64(-1), i64(axis))


def dims_slice(b: OpBuilder, shape: Port, start: int, end: int | None = None) -> Port:
    """shape[start:end] of a 1-D shape tensor (ShapeOf output)."""
    return b.Slice(shape, i64(start), i64(INT64_MAX if end is None else end), i64(1), i64(0))


def int_list_port(b: OpBuilder, items: Sequence[int | Port] | Port) -> Port:
    """A 1-D i64 tensor of ints given as Python ints and computed scalars or 1-D tensors."""
    if isinstance(items, Port):
        return convert(b, items, "i64")
    if all(not isinstance(i, Port) for i in items):
        return b.const(np.array([int(i) for i in items], np.int64))
    parts, run = [], []
    for item in items:
        if isinstance(item, Port):
            if run:
                parts.append(b.const(np.array(run, np.int64)))
                run = []
            item = convert(b, item, "i64")
            if item.data.get_rank() != 1:
                item = b.Reshape(item, i64(1), special_zero=False)
            parts.append(item)
        else:
            run.append(int(item))
    if run:
        parts.append(b.const(np.array(run, np.int64)))
    return parts[0] if len(parts) == 1 else b.Concat(*parts, axis=0)


# ---------------------------------------------------------------------------- convolution pieces


def grouped_weights(b: OpBuilder, w: Port, group: int) -> Port:
    """Weights [A, B, k...] -> [group, A/group, B, k...] for grouped convolutions."""
    shape = w.data.get_shape()
    if shape is not None and all(d >= 0 for d in shape):
        return b.Reshape(w, np.array([group, -1, *shape[1:]], np.int64), special_zero=False)
    _, tail = b.VariadicSplit(b.ShapeOf(w), np.int64(0), i64(1, -1), num_outputs=2)
    return b.Reshape(w, b.Concat(i64(group, -1), tail, axis=0), special_zero=False)


def channel_bias(b: OpBuilder, bias: Port, n_spatial: int) -> Port:
    """Bias [C] -> [C, 1, ...] so it broadcasts over [N, C, spatial...]."""
    return b.Unsqueeze(bias, np.arange(1, n_spatial + 1, dtype=np.int64))


# ---------------------------------------------------------------------------- layout


def to_channels_first(rank: int) -> np.ndarray:
    """Permutation N...C -> NC...: [0, rank-1, 1, ..., rank-2]."""
    return np.array([0, rank - 1] + list(range(1, rank - 1)), np.int64)


def to_channels_last(rank: int) -> np.ndarray:
    """Permutation NC... -> N...C: [0, 2, ..., rank-1, 1]."""
    return np.array([0] + list(range(2, rank)) + [1], np.int64)


# ---------------------------------------------------------------------------- inputs


def optional_source(node: Node, idx: int) -> Port | None:
    """The producer of input ``idx`` of ``node``; None when the input is not connected (an
    optional input the model leaves out)."""
    return node.in_port(idx).get_source() if node.is_in_port_connected(idx) else None


def input_sources(node: Node) -> list[Port]:
    """The producers of the connected inputs of ``node``, in port order (variadic inputs)."""
    return [node.in_port(i).get_source() for i in sorted(node.in_ports())]


def static_dim(port: Port, axis: int) -> int | None:
    """The size of ``port`` along ``axis`` as a number where ``dim`` gives a Const (a constant
    ``port``, or a static dim with --static_shape), else None: a translator whose graph's form
    depends on a dim takes the run-time form unless the dim is fixed this way."""
    shape = port.data.get_shape()
    if shape is None or not -len(shape) <= axis < len(shape) or shape[axis] < 0:
        return None
    if port.data.get_value() is not None or port.node.graph.options.static_shape:
        return int(shape[axis])
    return None
