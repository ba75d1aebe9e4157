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
from mo.utils.types import convert_value, np_dtype

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


def require_ranks(node: Node, ranks: dict[int, int | tuple[int, ...]], what: str = "") -> None:
    """Refuse an input of ``node`` whose known rank is not one ``ranks`` allows for its port
    (absent inputs and unknown ranks pass): a ConversionError naming the input and the ranks."""
    for idx, allowed in ranks.items():
        allowed = (allowed,) if isinstance(allowed, int) else tuple(allowed)
        src = node.in_port(idx).get_source() if node.is_in_port_connected(idx) else None
        rank = None if src is None else src.data.get_rank()
        if rank is not None and rank not in allowed:
            from mo.utils.shape import shape_str
            raise ConversionError(f"Input {idx} of {node_label(node)} has shape {shape_str(src.data.get_shape())} "
                                  f"(rank {rank}), where the operation takes rank {' or '.join(map(str, allowed))}"
                                  f"{what}: the model is invalid.")


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


# ---------------------------------------------------------------------------- complex numbers
# (helper group: complex numbers of TensorFlow and PyTorch)
#
# OpenVINO has no complex element type: a complex tensor of logical shape [d0, ..., dn] is carried
# as a real tensor [d0, ..., dn, 2] of (real, imaginary) pairs in the matching real type
# (complex64 -> f32, complex128 -> f64), which is what DFT / IDFT / IRDFT take and DFT / IDFT /
# RDFT / STFT give. An output port that holds such a pair tensor is marked complex
# (``mark_complex``: the op node's ``complex_outputs`` lists its complex output indices); the
# loaders mark complex model inputs and constants, and the translators that make complex values
# mark what they return (``make_complex``, ``complex_view``). The translate step hands a node
# with a complex input to its op type's complex translator (``mo.front.translator.
# complex_translator``), which works on the logical shape: axes of the logical tensor are the
# same non-negative axes of the pair tensor (``complex_axis``), its shape drops the last 2
# (``complex_shape``), products and quotients are complex ones (``complex_mul``,
# ``complex_div``). Model inputs and outputs that are complex are the [..., 2] form in the IR,
# as OpenVINO's own frontends give them.

COMPLEX_TYPES = {"complex64": "f32", "complex128": "f64"}    # complex type -> element type of its parts
COMPLEX_OUTPUTS = "complex_outputs"     # op node attribute: indices of its complex outputs
COMPLEX_VALUES = "complex_values"       # graph attribute: some port of the graph is complex


def is_complex(port: Port | None) -> bool:
    """Whether the output ``port`` holds a complex tensor as [..., 2] pairs."""
    return port is not None and port.idx in (port.node.get(COMPLEX_OUTPUTS) or ())


def mark_complex(port: Port) -> Port:
    """Mark the output ``port`` (a real tensor [..., 2]) as a complex tensor; returns it."""
    port.node[COMPLEX_OUTPUTS] = tuple(sorted(set(port.node.get(COMPLEX_OUTPUTS) or ()) | {port.idx}))
    port.node.graph.graph[COMPLEX_VALUES] = True
    return port


def complex_view(b: OpBuilder, x: Port, complex_: bool) -> Port:
    """The values of ``x`` at a new port, marked complex or not (a view between a complex tensor
    and its real [..., 2] pairs: x * 1, which the middle phase removes)."""
    view = b.Multiply(x, scalar_like(b, 1, x))
    return mark_complex(view) if complex_ else view


def complex_parts(b: OpBuilder, x: Port) -> tuple[Port, Port]:
    """(real, imaginary) parts of the complex ``x``, each of the logical shape; a real ``x`` has a
    zero imaginary part."""
    if not is_complex(x):
        return x, b.Broadcast(scalar_like(b, 0, x), shape_of(b, x), mode="numpy")
    return b.Gather(x, np.int64(0), np.int64(-1)), b.Gather(x, np.int64(1), np.int64(-1))


def make_complex(b: OpBuilder, real: Port, imag: Port) -> Port:
    """The complex tensor of ``real`` and ``imag`` (same type; broadcast to one shape)."""
    shape = real.data.get_shape()
    if shape is None or shape != imag.data.get_shape() or min(shape, default=0) < 0:
        real = b.Broadcast(real, shape_of(b, imag), mode="bidirectional")
        imag = b.Broadcast(imag, shape_of(b, real), mode="bidirectional")
    return mark_complex(b.Concat(b.Unsqueeze(real, i64(-1)), b.Unsqueeze(imag, i64(-1)), axis=-1))


def to_complex(b: OpBuilder, x: Port, element_type: str | None = None) -> Port:
    """``x`` as a complex tensor: itself when complex, else with a zero imaginary part; its parts
    in ``element_type`` when given."""
    if element_type is not None and x.data.get_dtype() != element_type:
        x = mark_complex(convert(b, x, element_type)) if is_complex(x) else convert(b, x, element_type)
    if is_complex(x):
        return x
    real = b.Unsqueeze(x, i64(-1))
    return mark_complex(b.Concat(real, b.Broadcast(scalar_like(b, 0, x), shape_of(b, real), mode="numpy"), axis=-1))


def complex_rank(x: Port, node: Node) -> int:
    """The logical rank of ``x`` (the rank without the pairs' dim when complex)."""
    return rank_of(x, node) - int(is_complex(x))


def complex_axis(axis: int, x: Port, node: Node) -> int:
    """An axis of the logical tensor ``x`` (may be negative) as the non-negative axis of its
    [..., 2] form (the same number)."""
    return norm_axis(axis, complex_rank(x, node), node)


def complex_shape(b: OpBuilder, x: Port, element_type: str = "i64") -> Port:
    """The logical shape of the complex ``x`` as a 1-D tensor."""
    return b.Slice(shape_of(b, x, element_type), i64(0), i64(-1), i64(1), i64(0))


def _broadcast_real(b: OpBuilder, real: Port, like: Port) -> Port:
    """A real operand of a complex product or quotient, in the parts' type, broadcast over the
    pairs' dim."""
    return b.Unsqueeze(convert(b, real, like.data.get_dtype()), i64(-1))


def common_parts(b: OpBuilder, x: Port, y: Port) -> tuple[Port, Port]:
    """x and y (one complex at least) with parts of one float type: that of the operand of higher
    logical rank (a scalar takes the tensor's type, as PyTorch promotes), the wider one at equal
    ranks; a real integer operand takes the complex one's."""
    tx, ty = x.data.get_dtype(), y.data.get_dtype()
    if tx == ty:
        return x, y
    floats = ("f16", "bf16", "f32", "f64")
    candidates = [(p.data.get_rank() or 0) - int(is_complex(p)) for p in (x, y)]
    if tx not in floats or ty not in floats:
        et = tx if is_complex(x) else ty
    elif candidates[0] != candidates[1]:
        et = tx if candidates[0] > candidates[1] else ty
    else:
        et = "f64" if "f64" in (tx, ty) else tx
    return tuple(to_complex(b, p, et) if is_complex(p) else convert(b, p, et) for p in (x, y))


def complex_mul(b: OpBuilder, x: Port, y: Port) -> Port:
    """x * y where either is complex (a real one scales both parts)."""
    x, y = common_parts(b, x, y)
    if not is_complex(x) or not is_complex(y):
        c, r = (x, y) if is_complex(x) else (y, x)
        return mark_complex(b.Multiply(c, _broadcast_real(b, r, c)))
    (a, bi), (c, di) = complex_parts(b, x), complex_parts(b, y)
    return make_complex(b, b.Subtract(b.Multiply(a, c), b.Multiply(bi, di)),
                        b.Add(b.Multiply(a, di), b.Multiply(bi, c)))


def complex_div(b: OpBuilder, x: Port, y: Port) -> Port:
    """x / y where either is complex: (a + bi) / (c + di) = ((ac + bd) + (bc - ad) i) / (c² + d²)."""
    x, y = common_parts(b, x, y)
    if not is_complex(y):
        return mark_complex(b.Divide(x, _broadcast_real(b, y, x)))
    (a, bi), (c, di) = complex_parts(b, to_complex(b, x)), complex_parts(b, y)
    norm = b.Add(b.Multiply(c, c), b.Multiply(di, di))
    return make_complex(b, b.Divide(b.Add(b.Multiply(a, c), b.Multiply(bi, di)), norm),
                        b.Divide(b.Subtract(b.Multiply(bi, c), b.Multiply(a, di)), norm))


def complex_abs(b: OpBuilder, x: Port) -> Port:
    """|x| of the complex ``x``: sqrt(re² + im²), of the logical shape."""
    return b.ReduceL2(x, np.int64(-1), keep_dims=False)


def complex_conj(b: OpBuilder, x: Port) -> Port:
    """The complex conjugate of the complex ``x``."""
    return mark_complex(b.Multiply(x, typed_const(b, [1, -1], x.data.get_dtype())))


def atan2(b: OpBuilder, y: Port, x: Port) -> Port:
    """atan2(y, x) in (-pi, pi]: atan(y / x), moved by pi where x < 0, ±pi/2 where x is 0 (0 at
    the origin)."""
    zero = scalar_like(b, 0, x)
    pi = lambda v: scalar_like(b, v * np.pi, x)  # noqa: E731
    x_zero = b.Equal(x, zero)
    base = b.Atan(b.Divide(y, b.Select(x_zero, scalar_like(b, 1, x), x)))
    turn = b.Select(b.GreaterEqual(y, zero), pi(1), pi(-1))
    on_axis = b.Select(b.Greater(y, zero), pi(0.5), b.Select(b.Less(y, zero), pi(-0.5), zero))
    return b.Select(x_zero, on_axis, b.Select(b.Less(x, zero), b.Add(base, turn), base))


def spectral(b: OpBuilder, op: str, x: Port, *inputs: Port | np.ndarray, complex_out: bool) -> Port:
    """The opset Fourier transform ``op`` (DFT, IDFT, RDFT, IRDFT) of ``x`` and its other inputs,
    computed in f32 (of the float types only f32, f16 and bf16 are taken by the runtime's DFT
    ops) and given back in x's type; the result marked complex when ``complex_out``."""
    et = x.data.get_dtype()
    if et == "f64":
        x = mark_complex(convert(b, x, "f32")) if is_complex(x) else convert(b, x, "f32")
    out = convert(b, b.op(op, x, *inputs), et)
    return mark_complex(out) if complex_out else out


def fit_dims(b: OpBuilder, x: Port, axes: Sequence[int], sizes: Port | Sequence[int | Port]) -> Port:
    """``x`` (complex or real) with its logical dims ``axes`` (non-negative) cropped or zero-padded
    at the end to ``sizes`` (a 1-D tensor or a list of ints and scalars): a Pad with negative
    pads where it crops. The runtime's RDFT pads no signal to a larger signal size and IRDFT
    mis-crops, so the transforms get inputs of their signal's size."""
    rank = x.data.get_rank()
    if isinstance(sizes, Port):
        sizes = [b.Gather(sizes, np.int64(i), np.int64(0)) for i in range(len(axes))]
    ends: list[int | Port] = [0] * rank
    for axis, size in zip(axes, sizes):
        known = static_dim(x, axis)
        if isinstance(size, Port) or known is None:
            ends[axis] = b.Subtract(convert(b, size, "i64") if isinstance(size, Port) else np.int64(size),
                                    dim(b, x, axis))
        else:
            ends[axis] = int(size) - known
    if all(isinstance(e, int) and e == 0 for e in ends):
        return x
    padded = b.Pad(x, i64([0] * rank), int_list_port(b, ends), pad_mode="constant")
    return mark_complex(padded) if is_complex(x) else padded


def complex_exp(b: OpBuilder, x: Port) -> Port:
    """e^(a + bi) = e^a (cos b + i sin b)."""
    real, imag = complex_parts(b, x)
    scale = b.Exp(real)
    return make_complex(b, b.Multiply(scale, b.Cos(imag)), b.Multiply(scale, b.Sin(imag)))


def complex_power(b: OpBuilder, x: Port, power: float) -> Port:
    """x ** power of the complex x through its polar form: |x|^p (cos p·θ + i sin p·θ) (the
    principal value: θ in (-pi, pi])."""
    real, imag = complex_parts(b, x)
    theta = b.Multiply(atan2(b, imag, real), scalar_like(b, power, real))
    radius = b.Power(complex_abs(b, x), scalar_like(b, power, real))
    return make_complex(b, b.Multiply(radius, b.Cos(theta)), b.Multiply(radius, b.Sin(theta)))


def complex_log(b: OpBuilder, x: Port) -> Port:
    """The principal logarithm of the complex x: log|x| + i arg(x)."""
    real, imag = complex_parts(b, x)
    return make_complex(b, b.Log(complex_abs(b, x)), atan2(b, imag, real))
