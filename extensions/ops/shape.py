"""Shape and data movement operations: ShapeOf, Reshape, Squeeze, Unsqueeze, Transpose, Concat,
Broadcast, Tile, Split, VariadicSplit, Range, Pad, ReverseSequence."""
from __future__ import annotations

import numpy as np

from mo.ops.op import Op
from mo.utils.shape import DYN, broadcast_shapes, dim_product, is_static, normalize_axis
from mo.utils.types import INT_TYPES


class OutputTypedOp(Op):
    """Base of ops whose (first) output has the element type of the ``output_type`` attribute."""

    abstract = True
    defaults = {"output_type": "i64"}
    ir_attrs = ("output_type",)

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.output_type)


class ShapeOf(OutputTypedOp):
    op = "ShapeOf"
    version = "opset3"
    string_inputs = True        # the shape of a string tensor (TensorFlow's LookupTableSize of string values)

    @classmethod
    def infer(cls, node):
        shape = node.in_shape(0)
        out = node.out_port(0).data
        if is_static(shape):
            out.set_value(cls.evaluate(node, np.empty(shape, np.bool_)))
        else:
            out.set_shape(None if shape is None else (len(shape),))

    @classmethod
    def evaluate(cls, node, x):
        return np.array(x.shape, dtype=np.int64 if node.output_type == "i64" else np.int32)


def reshape_target(in_shape, target, special_zero: bool):
    """Output shape of Reshape for a known ``target``; -1 infers one dim."""
    target = [int(t) for t in target]
    if target.count(-1) > 1:
        raise ValueError(f"target shape {target} has several -1")
    if any(t < -1 for t in target):
        raise ValueError(f"target shape {target} has a negative dimension other than -1")
    out = []
    for i, t in enumerate(target):
        if t == 0 and special_zero:
            if in_shape is None or i >= len(in_shape):
                raise ValueError(f"special zero at {i} beyond the input rank")
            out.append(in_shape[i])
        else:
            out.append(t)
    if -1 in target:
        idx = target.index(-1)
        # dims copied by special zero are in both products: left out, a dynamic one does not matter
        copied = {i for i, t in enumerate(target) if t == 0 and special_zero and in_shape[i] != 0}
        known = dim_product([d for i, d in enumerate(out) if i != idx and i not in copied])
        total = dim_product([d for i, d in enumerate(in_shape) if i not in copied]) if in_shape is not None else DYN
        if total >= 0 and known > 0:
            if total % known:
                raise ValueError(f"cannot reshape {list(in_shape)} to {target}")
            out[idx] = total // known
        elif total == 0:
            out[idx] = 0
        else:
            out[idx] = DYN
    elif in_shape is not None and is_static(in_shape) and is_static(out):
        if dim_product(in_shape) != dim_product(out):
            raise ValueError(f"cannot reshape {list(in_shape)} to {target}")
    return tuple(out)


class Reshape(Op):
    op = "Reshape"
    string_inputs = True        # moves string tensors too (OpenVINO string support)
    input_ranks = {1: (1,)}
    input_types = {1: INT_TYPES}
    defaults = {"special_zero": False}
    ir_attrs = ("special_zero",)

    @classmethod
    def infer(cls, node):
        target = node.in_value(1)
        data = node.in_port(0).data
        out = node.out_port(0).data
        if target is None:
            tshape = node.in_shape(1)
            if tshape == (0,):        # an empty target: whatever its value, the output is a scalar
                target = np.zeros(0, np.int64)
            else:
                out.set_shape(None if tshape is None or tshape[0] < 0 else (DYN,) * tshape[0])
                return
        value = data.get_value()
        if value is not None:
            out.set_value(cls.evaluate(node, value, target))
        else:
            out.set_shape(reshape_target(data.get_shape(), target.reshape(-1), node.special_zero))

    @classmethod
    def evaluate(cls, node, x, target):
        return x.reshape(reshape_target(x.shape, target.reshape(-1), node.special_zero))


def _axes_value(node, port: int, rank: int | None):
    axes = node.in_value(port)
    if axes is None:
        return None
    return [int(a) for a in np.atleast_1d(axes)]


def squeezed_shape(shape: tuple, axes) -> tuple:
    """``shape`` without the ``axes`` (each of size 1 or dynamic), or without every 1 if
    ``axes`` is None."""
    if axes is None:
        return tuple(d for d in shape if d != 1)
    axes = {normalize_axis(int(a), len(shape)) for a in axes}
    for a in axes:
        if shape[a] not in (1, DYN):
            raise ValueError(f"cannot squeeze axis {a} of size {shape[a]}")
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def unsqueezed_shape(shape: tuple, axes) -> tuple:
    """``shape`` with a 1 inserted at each of ``axes`` (axes of the result)."""
    rank = len(shape) + len(axes)
    new_shape = list(shape)
    for a in sorted(normalize_axis(int(a), rank) for a in axes):
        new_shape.insert(a, 1)
    return tuple(new_shape)


class Squeeze(Op):
    """Removes the given axes (input 1) or every dimension of size 1."""

    op = "Squeeze"
    string_inputs = True        # moves string tensors too (OpenVINO string support)
    input_ranks = {1: (0, 1)}
    input_types = {1: INT_TYPES}
    version = "opset15"
    defaults = {"allow_axis_skip": False}
    ir_attrs = ("allow_axis_skip",)

    @classmethod
    def infer(cls, node):
        shape = node.in_shape(0)
        out = node.out_port(0).data
        if shape is None:
            out.set_shape(None)
            return
        axes = None
        if node.is_in_port_connected(1):
            axes = _axes_value(node, 1, len(shape))
            if axes is None:
                out.set_shape(None)
                return
        elif DYN in shape:
            out.set_shape(None)
            return
        value = node.in_value(0)
        if value is not None:
            out.set_value(cls.evaluate(node, value, axes))
        else:
            out.set_shape(squeezed_shape(shape, axes))

    @classmethod
    def evaluate(cls, node, x, axes=None):
        return x.reshape(squeezed_shape(x.shape, None if axes is None else np.atleast_1d(axes)))


class Unsqueeze(Op):
    op = "Unsqueeze"
    string_inputs = True        # moves string tensors too (OpenVINO string support)
    input_ranks = {1: (0, 1)}
    input_types = {1: INT_TYPES}

    @classmethod
    def infer(cls, node):
        shape = node.in_shape(0)
        axes = _axes_value(node, 1, None)
        out = node.out_port(0).data
        if shape is None or axes is None:
            out.set_shape(None)
            return
        value = node.in_value(0)
        if value is not None:
            out.set_value(cls.evaluate(node, value, np.array(axes)))
        else:
            out.set_shape(unsqueezed_shape(shape, axes))

    @classmethod
    def evaluate(cls, node, x, axes):
        return x.reshape(unsqueezed_shape(x.shape, np.atleast_1d(axes)))


def permutation(order, rank: int) -> list[int] | None:
    """The dims order of Transpose given in ``order`` (empty: reversed; None: unknown)."""
    if order is None:
        return None
    order = [int(o) for o in np.atleast_1d(order)]
    if not order:
        order = list(range(rank - 1, -1, -1))
    return [normalize_axis(o, rank) for o in order]


class Transpose(Op):
    """Permutes the dims by the order in input 1; an empty or missing order reverses them (the
    IR always gets an explicit order: the ONNX Transpose translator gives one)."""

    op = "Transpose"
    string_inputs = True        # moves string tensors too (OpenVINO string support)
    input_ranks = {1: (1,)}
    input_types = {1: INT_TYPES}

    @classmethod
    def _order(cls, node, rank):
        if not node.is_in_port_connected(1):
            return list(range(rank - 1, -1, -1))
        return permutation(node.in_value(1), rank)

    @classmethod
    def infer(cls, node):
        shape = node.in_shape(0)
        out = node.out_port(0).data
        if shape is None:
            out.set_shape(None)
            return
        order_shape = node.in_shape(1) if node.is_in_port_connected(1) else None
        if order_shape and order_shape[0] not in (DYN, 0, len(shape)):
            raise ValueError(f"the order has {order_shape[0]} entries but the input has rank {len(shape)}")
        order = cls._order(node, len(shape))
        if order is None:
            out.set_shape((DYN,) * len(shape))
            return
        if sorted(order) != list(range(len(shape))):
            raise ValueError(f"the order {order} is not a permutation of the {len(shape)} dimensions of the input")
        value = node.in_value(0)
        if value is not None:
            out.set_value(np.transpose(value, order))
        else:
            out.set_shape(tuple(shape[o] for o in order))

    @classmethod
    def evaluate(cls, node, x, order=None):
        return np.transpose(x, permutation(np.arange(x.ndim)[::-1] if order is None else order, x.ndim))


class Concat(Op):
    same_type_inputs = "all"
    op = "Concat"
    string_inputs = True        # moves string tensors too (OpenVINO string support)
    defaults = {"axis": 0}
    ir_attrs = ("axis",)

    @classmethod
    def evaluate(cls, node, *values):
        values = [v for v in values if v is not None]
        return np.concatenate([np.asarray(v) for v in values], axis=node.axis)

    @classmethod
    def infer_shapes(cls, node):
        shapes = [node.in_shape(i) for i in sorted(node.in_ports())]
        known = [s for s in shapes if s is not None]
        if not known:
            return [None]
        rank = len(known[0])
        if any(len(s) != rank for s in known):
            raise ValueError(f"the inputs have ranks {[len(s) for s in known]}; Concat joins inputs of one rank")
        axis = normalize_axis(node.axis, rank)
        out = []
        for i in range(rank):
            dims = [s[i] for s in known]
            if i == axis:
                out.append(DYN if len(known) < len(shapes) or DYN in dims else sum(dims))
            else:
                static = {d for d in dims if d >= 0}
                if len(static) > 1:
                    raise ValueError(f"the inputs have shapes {[tuple(s) for s in known]}: they differ in "
                                     f"dimension {i}, which is not the concatenation axis {axis}")
                out.append(static.pop() if static else DYN)
        return [tuple(out)]

    @classmethod
    def type_infer(cls, node):
        types = [node.in_dtype(i) for i in sorted(node.in_ports())]
        node.out_port(0).data.set_dtype(next((t for t in types if t is not None), None))


class Broadcast(Op):
    """Broadcast input 0 to the shape in input 1 (``numpy``/``bidirectional``) or along
    ``axes_mapping`` (input 2, ``explicit``)."""

    op = "Broadcast"
    string_inputs = True        # moves string tensors too (OpenVINO string support)
    input_ranks = {1: (1,), 2: (1,)}
    input_types = {1: INT_TYPES, 2: INT_TYPES}
    version = "opset3"
    defaults = {"mode": "numpy"}
    ir_attrs = ("mode",)

    @classmethod
    def _out_shape(cls, node, shape, target):
        if node.mode == "bidirectional":
            return broadcast_shapes(shape, tuple(target))
        return tuple(target)

    @classmethod
    def infer(cls, node):
        target = node.in_value(1)
        out = node.out_port(0).data
        shape = node.in_shape(0)
        if target is None:
            tshape = node.in_shape(1)
            if tshape is None or tshape[0] < 0:
                out.set_shape(None)
            else:
                rank = tshape[0] if node.mode != "bidirectional" or shape is None else max(tshape[0], len(shape))
                out.set_shape((DYN,) * rank)
            return
        value = node.in_value(0)
        if node.mode == "explicit":
            mapping = node.in_value(2)
            if value is not None and mapping is not None:
                out.set_value(cls.evaluate(node, value, target, mapping))
            else:
                out.set_shape(tuple(int(t) for t in target.reshape(-1)))
            return
        out_shape = cls._out_shape(node, shape, [int(t) for t in target.reshape(-1)])
        if value is not None and out_shape is not None and is_static(out_shape):
            out.set_value(cls.evaluate(node, value, target))
        else:
            out.set_shape(out_shape)

    @classmethod
    def evaluate(cls, node, x, target, mapping=None):
        target = [int(t) for t in target.reshape(-1)]
        if node.mode == "explicit":
            new_shape = [1] * len(target)
            for i, a in enumerate(mapping.reshape(-1)):
                new_shape[int(a)] = x.shape[i]
            return np.broadcast_to(x.reshape(new_shape), target).copy()
        return np.broadcast_to(x, cls._out_shape(node, x.shape, target)).copy()


class Tile(Op):
    op = "Tile"
    input_ranks = {1: (1,)}
    input_types = {1: INT_TYPES}

    @classmethod
    def evaluate(cls, node, x, repeats):
        return np.tile(x, [int(r) for r in repeats.reshape(-1)])

    @classmethod
    def infer_shapes(cls, node):
        shape = node.in_shape(0)
        repeats = node.in_value(1)
        if shape is None:
            return [None]
        if repeats is None:
            rshape = node.in_shape(1)
            if rshape is None or rshape[0] < 0:
                return [None]
            return [(DYN,) * max(len(shape), rshape[0])]
        repeats = [int(r) for r in repeats.reshape(-1)]
        rank = max(len(shape), len(repeats))
        shape = (1,) * (rank - len(shape)) + tuple(shape)
        repeats = [1] * (rank - len(repeats)) + repeats
        return [tuple(DYN if d < 0 else d * r for d, r in zip(shape, repeats))]


class Split(Op):
    """Splits input 0 along axis (input 1) into ``num_splits`` equal parts."""

    op = "Split"
    input_ranks = {1: (0,)}
    input_types = {1: INT_TYPES}
    defaults = {"num_splits": 2}
    ir_attrs = ("num_splits",)

    @classmethod
    def outputs_count(cls, node):
        return node.num_splits

    @classmethod
    def type_infer(cls, node):
        for i in range(node.num_splits):
            node.out_port(i).data.set_dtype(node.in_dtype(0))

    @classmethod
    def evaluate(cls, node, x, axis):
        return np.split(x, node.num_splits, axis=int(axis))

    @classmethod
    def infer_shapes(cls, node):
        shape = node.in_shape(0)
        axis = node.in_value(1)
        n = node.num_splits
        if shape is None or axis is None:
            return [None if shape is None else (DYN,) * len(shape)] * n
        axis = normalize_axis(int(axis), len(shape))
        dim = shape[axis]
        if dim >= 0 and dim % n:
            raise ValueError(f"dimension {dim} does not split into {n} equal parts")
        part = dim // n if dim >= 0 else DYN
        return [tuple(part if i == axis else d for i, d in enumerate(shape))] * n


class VariadicSplit(Op):
    """Splits input 0 along axis (input 1) into parts of the lengths in input 2 (one may be -1)."""

    op = "VariadicSplit"
    input_ranks = {1: (0,), 2: (1,)}
    input_types = {1: INT_TYPES, 2: INT_TYPES}

    @classmethod
    def outputs_count(cls, node):
        lengths = node.in_value(2) if node.graph.data_form else None
        if lengths is not None:
            return int(lengths.size)
        return node.get("num_outputs", 1)

    @classmethod
    def type_infer(cls, node):
        for i in range(cls.outputs_count(node)):
            node.out_port(i).data.set_dtype(node.in_dtype(0))

    @classmethod
    def _lengths(cls, lengths, dim):
        lengths = [int(v) for v in lengths.reshape(-1)]
        if -1 in lengths and dim >= 0:
            lengths[lengths.index(-1)] = dim - sum(v for v in lengths if v != -1)
        return lengths

    @classmethod
    def evaluate(cls, node, x, axis, lengths):
        axis = normalize_axis(int(axis), x.ndim)
        sizes = cls._lengths(lengths, x.shape[axis])
        return np.split(x, np.cumsum(sizes)[:-1], axis=axis)

    @classmethod
    def infer_shapes(cls, node):
        shape = node.in_shape(0)
        axis = node.in_value(1)
        n = cls.outputs_count(node)
        if shape is None or axis is None or node.in_value(2) is None:
            return [None if shape is None else (DYN,) * len(shape)] * n
        axis = normalize_axis(int(axis), len(shape))
        sizes = cls._lengths(node.in_value(2), shape[axis])
        return [tuple(s if i == axis else d for i, d in enumerate(shape)) for s in sizes]


class Range(OutputTypedOp):
    """start, stop, step inputs -> 1-D sequence of ``output_type`` (None: the type of start)."""

    op = "Range"
    input_ranks = {0: (0,), 1: (0,), 2: (0,)}
    version = "opset4"
    # The length is ceil((stop - start) / step): float16 bounds would change it.
    precision_sensitive_inputs = (0, 1, 2)

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.output_type or node.in_dtype(0))

    @classmethod
    def ir_data(cls, node):
        return {"output_type": node.output_type or node.out_port(0).data.get_dtype()}

    @classmethod
    def evaluate(cls, node, start, stop, step):
        start, stop, step = (np.asarray(v).reshape(()).item() for v in (start, stop, step))
        return np.arange(start, stop, step)

    @classmethod
    def infer_shapes(cls, node):
        return [(DYN,)]


def pad_array(x: np.ndarray, begin, end, mode: str, value=None) -> np.ndarray:
    """numpy padding by per-dim ``begin`` / ``end`` (negative values crop) in mode constant (with
    ``value``, default 0), edge, reflect, symmetric or wrap."""
    begin = [int(b) for b in np.asarray(begin).reshape(-1)]
    end = [int(e) for e in np.asarray(end).reshape(-1)]
    x = x[tuple(slice(max(-b, 0), x.shape[i] - max(-e, 0)) for i, (b, e) in enumerate(zip(begin, end)))]
    width = [(max(b, 0), max(e, 0)) for b, e in zip(begin, end)]
    if mode == "constant":
        return np.pad(x, width, mode="constant", constant_values=0 if value is None else np.asarray(value).reshape(()))
    return np.pad(x, width, mode=mode)


class Pad(Op):
    """Pads input 0 by pads_begin (input 1) and pads_end (input 2) with ``pad_mode``; the
    constant mode uses input 3 (default 0). Negative pads crop."""

    op = "Pad"
    input_ranks = {1: (1,), 2: (1,), 3: (0,)}
    input_types = {1: INT_TYPES, 2: INT_TYPES}
    version = "opset12"
    defaults = {"pad_mode": "constant"}
    ir_attrs = ("pad_mode",)

    @classmethod
    def evaluate(cls, node, x, begin, end, value=None):
        return pad_array(x, begin, end, node.pad_mode, value)

    @classmethod
    def infer_shapes(cls, node):
        shape = node.in_shape(0)
        begin, end = node.in_value(1), node.in_value(2)
        if shape is None:
            return [None]
        if begin is None or end is None:
            return [(DYN,) * len(shape)]
        return [tuple(DYN if d < 0 else d + int(b) + int(e)
                      for d, b, e in zip(shape, begin.reshape(-1), end.reshape(-1)))]


class ReverseSequence(Op):
    op = "ReverseSequence"
    defaults = {"batch_axis": 0, "seq_axis": 1}
    ir_attrs = ("batch_axis", "seq_axis")

    @classmethod
    def evaluate(cls, node, x, lengths):
        out = x.copy()
        b_ax = normalize_axis(node.batch_axis, x.ndim)
        s_ax = normalize_axis(node.seq_axis, x.ndim)
        for b in range(x.shape[b_ax]):
            n = int(lengths[b])
            idx = [slice(None)] * x.ndim
            idx[b_ax] = b
            idx[s_ax] = slice(0, n)
            src = x[tuple(idx)]
            out[tuple(idx)] = np.flip(src, axis=s_ax - (1 if b_ax < s_ax else 0))
        return out


class Roll(Op):
    """Elements shifted by ``shift`` (input 1) along ``axes`` (input 2), wrapping around; a
    scalar shift applies to every axis, an axis given twice shifts by the sum."""

    op = "Roll"
    version = "opset7"

    @classmethod
    def evaluate(cls, node, x, shift, axes):
        axes = [normalize_axis(int(a), x.ndim) for a in np.asarray(axes).reshape(-1)]
        shift = np.broadcast_to(np.asarray(shift).reshape(-1), (len(axes),))
        return np.roll(x, [int(s) for s in shift], axes) if axes else x
