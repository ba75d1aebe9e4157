"""TensorFlow complex numbers: Complex, Real, Imag, ComplexAbs, Angle, Conj, ConjugateTranspose,
and the ordinary ops that meet a complex input (complex translators).

A complex64 / complex128 tensor is carried as f32 / f64 pairs [..., 2] (real, imaginary), marked
complex on its port; the representation and its helpers are described with the complex helpers
of ``mo/graph/building.py``. The TensorFlow loader marks complex Placeholders and Consts; the
translate step sends a node with a complex input to the complex translator of its op type below
(the node may already be the opset op its extractor set: its attributes are read from it). They
work on the logical shape: a logical axis is the same non-negative axis of the pairs, shapes drop
the last 2, products and quotients are complex ones. An op type without one is refused.
"""
from __future__ import annotations

import numpy as np

from extensions.front.tf.shape import constant_input, foldable_value, slice_
from extensions.load.tf.attributes import TfExtractor
from mo.errors import ConversionError
from mo.front.translator import complex_translator, translator
from mo.graph.building import (
    INT64_MIN,
    atan2,
    complex_abs,
    complex_axis,
    complex_conj,
    complex_div,
    complex_exp,
    complex_log,
    complex_mul,
    complex_parts,
    complex_power,
    complex_rank,
    complex_shape,
    convert,
    i64,
    input_sources,
    is_complex,
    make_complex,
    mark_complex,
    scalar_like,
    to_complex,
)

# complex DataType names (as attributes read them) -> element type of the parts
PARTS_TYPE = {"complex64": "f32", "complex128": "f64"}


def _x(node):
    return node.in_port(0).get_source()


def parts_type(node, attr: str, default: str) -> str:
    """The element type of the real values of the TensorFlow type attribute ``attr`` (Tout...):
    f32 for complex64, f64 for complex128 or float64."""
    value = TfExtractor.attr(node, attr, None) or default
    return PARTS_TYPE.get(value, value)


# ---------------------------------------------------------------------------- complex ops


@translator("tf", "Complex")
def complex_(node, b):
    """Complex(real, imag): pairs of the two (broadcast to one shape)."""
    real, imag = input_sources(node)
    return [make_complex(b, real, imag)]


@translator("tf", "Real", "Imag")
@complex_translator("tf", "Real", "Imag")
def real_imag(node, b):
    """The real or imaginary part (a real input is its own real part, its imaginary part 0)."""
    real, imag = complex_parts(b, _x(node))
    return [real if node.fw_op == "Real" else imag]


@translator("tf", "ComplexAbs")
@complex_translator("tf", "ComplexAbs")
def complex_abs_(node, b):
    return [complex_abs(b, _x(node))]


@translator("tf", "Angle")
@complex_translator("tf", "Angle")
def angle(node, b):
    """atan2(imag, real); a real input gives pi where it is negative, else 0."""
    real, imag = complex_parts(b, _x(node))
    return [atan2(b, imag, real)]


@translator("tf", "Conj")
@complex_translator("tf", "Conj")
def conj(node, b):
    x = _x(node)
    return [complex_conj(b, x) if is_complex(x) else x]


@translator("tf", "ConjugateTranspose")
@complex_translator("tf", "ConjugateTranspose")
def conjugate_transpose(node, b):
    """Transpose(Conj(x), perm); the pairs' dim stays last."""
    x, perm = input_sources(node)
    if not is_complex(x):
        return [b.Transpose(x, perm)]
    return [mark_complex(b.Transpose(complex_conj(b, x), _with_pairs_dim(b, perm, complex_rank(x, node))))]


# ---------------------------------------------------------------------------- helpers of the ops below


def _with_pairs_dim(b, items, *values) -> object:
    """A 1-D int tensor (a shape, a permutation, multiples) of the logical tensor extended by the
    entries ``values`` (one for the pairs' dim)."""
    known = items if isinstance(items, np.ndarray) else foldable_value(items)
    if known is not None:
        return i64(list(np.asarray(known).reshape(-1)) + list(values))
    return b.Concat(convert(b, items, "i64"), i64(*values), axis=0)


def _logical_axes(b, node, port: int, x) -> object:
    """The axes at input ``port`` (numbers of the logical tensor x, may be negative) as axes of
    its pairs: constants normalised, run-time ones taken modulo the logical rank."""
    rank = complex_rank(x, node)
    value = node.in_port(port).data.get_value()
    if value is not None:
        axes = [complex_axis(a, x, node) for a in np.asarray(value).reshape(-1)]
        return i64(axes) if np.ndim(value) else np.int64(axes[0])
    axes = node.in_port(port).get_source()
    return b.FloorMod(axes, convert(b, b.const(np.int64(rank)), axes.data.get_dtype()))


def _complex_inputs(node, b) -> list:
    """The node's inputs, each complex (a real one gets a zero imaginary part)."""
    inputs = input_sources(node)
    parts = next(p for p in inputs if is_complex(p)).data.get_dtype()
    return [to_complex(b, p, parts) for p in inputs]


# ---------------------------------------------------------------------------- elementwise

# op type -> opset op that acts on the pairs as on numbers (a sum of pairs is the pair of sums)
PAIRWISE = {"Add": "Add", "AddV2": "Add", "Sub": "Subtract", "Neg": "Negative"}


@complex_translator("tf", *PAIRWISE)
def pairwise(node, b):
    return [mark_complex(b.op(PAIRWISE[node.fw_op], *_complex_inputs(node, b)))]


@complex_translator("tf", "Mul")
def mul(node, b):
    x, y = input_sources(node)
    return [complex_mul(b, x, y)]


@complex_translator("tf", "RealDiv", "Div", "DivNoNan")
def div(node, b):
    """x / y; DivNoNan: 0 where y is 0."""
    x, y = input_sources(node)
    quotient = complex_div(b, x, y)
    if node.fw_op != "DivNoNan":
        return [quotient]
    zero = b.Unsqueeze(b.Equal(complex_abs(b, y), scalar_like(b, 0, y)), i64(-1))
    return [mark_complex(b.Select(zero, scalar_like(b, 0, quotient), quotient))]


@complex_translator("tf", "Square")
def square(node, b):
    x = _x(node)
    return [complex_mul(b, x, x)]


@complex_translator("tf", "Reciprocal", "Inv")
def reciprocal(node, b):
    x = _x(node)
    return [complex_div(b, scalar_like(b, 1, x), x)]


@complex_translator("tf", "Exp")
def exp(node, b):
    return [complex_exp(b, _x(node))]


@complex_translator("tf", "Log")
def log(node, b):
    """log|x| + i arg(x)."""
    return [complex_log(b, _x(node))]


@complex_translator("tf", "Sqrt", "Rsqrt")
def sqrt(node, b):
    return [complex_power(b, _x(node), 0.5 if node.fw_op == "Sqrt" else -0.5)]


@translator("tf", "CastToComplex")
@complex_translator("tf", "Cast", "CastToComplex")
def cast(node, b):
    """Cast to complex (the Cast extractor makes such a node a ``CastToComplex``): a real input
    gets a zero imaginary part, the parts take the type's; a complex input cast to a real type
    keeps its real part (as TensorFlow casts)."""
    x = _x(node)
    dst = TfExtractor.dtype(node, "DstT")
    if dst in PARTS_TYPE:
        return [to_complex(b, x, PARTS_TYPE[dst])]
    return [convert(b, complex_parts(b, x)[0], dst)]


@complex_translator("tf", "ZerosLike", "OnesLike")
def zeros_ones_like(node, b):
    x = _x(node)
    value = b.Broadcast(scalar_like(b, 0 if node.fw_op == "ZerosLike" else 1, x), complex_shape(b, x), mode="numpy")
    return [to_complex(b, value)]


# ---------------------------------------------------------------------------- shapes


@complex_translator("tf", "Shape")
def shape(node, b):
    """The logical shape (``out_type``, set by the extractor)."""
    return [complex_shape(b, _x(node), node.output_type)]


@complex_translator("tf", "Size")
def size(node, b):
    out = TfExtractor.dtype(node, "out_type") or "i32"
    return [b.ReduceProd(complex_shape(b, _x(node), out), np.int64(0), keep_dims=False)]


@complex_translator("tf", "Rank")
def rank(node, b):
    out = TfExtractor.dtype(node, "out_type") or "i32"
    return [b.const(np.array(complex_rank(_x(node), node), dtype=np.int32 if out == "i32" else np.int64))]


@complex_translator("tf", "Reshape")
def reshape(node, b):
    x, shape_ = input_sources(node)
    return [mark_complex(b.Reshape(x, _with_pairs_dim(b, shape_, 2), special_zero=False))]


@complex_translator("tf", "BroadcastTo")
def broadcast_to(node, b):
    x, shape_ = input_sources(node)
    return [mark_complex(b.Broadcast(x, _with_pairs_dim(b, shape_, 2), mode="numpy"))]


@complex_translator("tf", "Tile")
def tile(node, b):
    x, multiples = input_sources(node)
    return [mark_complex(b.Tile(x, _with_pairs_dim(b, multiples, 1)))]


@complex_translator("tf", "Transpose")
def transpose(node, b):
    x, perm = input_sources(node)
    return [mark_complex(b.Transpose(x, _with_pairs_dim(b, perm, complex_rank(x, node))))]


@complex_translator("tf", "ExpandDims")
def expand_dims(node, b):
    """ExpandDims at an axis of the result (rank + 1 logical dims)."""
    x = _x(node)
    axis = int(np.asarray(constant_input(node, 1, "axis")).reshape(-1)[0])
    rank_ = complex_rank(x, node) + 1
    if not -rank_ <= axis < rank_:
        raise ConversionError(f"axis {axis} is out of range for a result of rank {rank_}.")
    return [mark_complex(b.Unsqueeze(x, i64(axis % rank_)))]


@complex_translator("tf", "Squeeze")
def squeeze(node, b):
    """Squeeze of ``squeeze_dims``; without them, of the logical dims known to be 1."""
    x = _x(node)
    dims = list(TfExtractor.attr(node, "squeeze_dims", []) or [])
    if not dims:
        shape_ = x.data.get_shape()
        if shape_ is None:
            raise ConversionError("squeezing every dim of size 1 needs a known rank; give the model input shapes "
                                  "with --input.")
        dims = [i for i, d in enumerate(shape_[:-1]) if d == 1]
    return [mark_complex(b.Squeeze(x, i64([complex_axis(d, x, node) for d in dims])))]


@complex_translator("tf", "StridedSlice")
def strided_slice(node, b):
    """The slice of the logical dims, its spec ending with an ellipsis (unless it has one) and a
    whole-dim entry, so the pairs' dim stays last and whole."""
    x, begin, end = (node.in_port(i).get_source() for i in range(3))
    width = begin.data.get_shape()[0] if begin.data.get_shape() else -1
    if width < 0:
        raise ConversionError("the length of its begin (input 1) is not known.")
    strides = node.in_port(3).get_source() if node.is_in_port_connected(3) else np.ones(width, np.int64)
    masks = {m: (list(node[m]) + [0] * width)[:width] for m in ("begin_mask", "end_mask", "new_axis_mask",
                                                               "shrink_axis_mask", "ellipsis_mask")}
    extra = [("ellipsis_mask",)] if not any(masks["ellipsis_mask"]) else []
    extra.append(("begin_mask", "end_mask"))
    for entry in extra:
        for m in masks:
            masks[m].append(int(m in entry))
    zeros = [0] * len(extra)
    spec = [_with_pairs_dim(b, begin, *zeros), _with_pairs_dim(b, end, *zeros),
            _with_pairs_dim(b, strides, *[1] * len(extra))]
    return [mark_complex(b.StridedSlice(x, *spec, **masks))]


@complex_translator("tf", "Slice")
def slice_complex(node, b):
    """Slice of the leading (logical) dims: the pairs' dim is left whole."""
    return [mark_complex(slice_(node, b)[0])]


@complex_translator("tf", "ConcatV2", "Concat")
def concat(node, b):
    inputs = _complex_inputs(node, b)
    if node.fw_op == "Concat":
        axis_port, values = 0, inputs[1:]
    else:
        axis_port, values = len(inputs) - 1, inputs[:-1]
    axis = complex_axis(int(constant_input(node, axis_port, "axis")), values[0], node)
    return [mark_complex(b.Concat(*values, axis=axis))]


@complex_translator("tf", "Pack")
def pack(node, b):
    """The inputs, each unsqueezed at ``axis`` (of the result), concatenated."""
    values = _complex_inputs(node, b)
    rank_ = complex_rank(values[0], node) + 1
    axis = int(TfExtractor.attr(node, "axis", 0))
    if not -rank_ <= axis < rank_:
        raise ConversionError(f"axis {axis} is out of range for a result of rank {rank_}.")
    parts = [b.Unsqueeze(v, i64(axis % rank_)) for v in values]
    return [mark_complex(parts[0] if len(parts) == 1 else b.Concat(*parts, axis=axis % rank_))]


@complex_translator("tf", "Pad", "PadV2", "MirrorPad")
def pad(node, b):
    """Paddings [rank, 2] of the logical dims, the pairs' dim not padded; PadV2's complex fill
    value pads each part with its own part of it."""
    x, paddings = node.in_port(0).get_source(), node.in_port(1).get_source()
    value = foldable_value(paddings)
    if value is not None:
        begin, end = i64(value[:, 0]), i64(value[:, 1])
    else:
        paddings = convert(b, paddings, "i64")
        begin, end = (b.Gather(paddings, np.int64(k), np.int64(1)) for k in (0, 1))
    mode = str(TfExtractor.attr(node, "mode", "CONSTANT")).lower()
    if not node.is_in_port_connected(2):
        return [mark_complex(b.Pad(x, _with_pairs_dim(b, begin, 0), _with_pairs_dim(b, end, 0), pad_mode=mode))]
    fill = to_complex(b, node.in_port(2).get_source(), x.data.get_dtype())
    parts = [b.Pad(p, begin, end, f, pad_mode=mode) for p, f in zip(complex_parts(b, x), complex_parts(b, fill))]
    return [make_complex(b, *parts)]


@complex_translator("tf", "Cumsum")
def cumsum(node, b):
    """CumSum along a logical axis (``exclusive`` / ``reverse`` from the extractor)."""
    x = _x(node)
    axis = _logical_axes(b, node, 1, x)
    return [mark_complex(b.CumSum(x, axis, exclusive=node.exclusive, reverse=node.reverse))]


@complex_translator("tf", "Sum", "Mean")
def reduce(node, b):
    """ReduceSum / ReduceMean over logical axes (``keep_dims`` from the extractor)."""
    x = _x(node)
    axes = _logical_axes(b, node, 1, x)
    return [mark_complex(b.op(node.op, x, axes, keep_dims=node.keep_dims))]


@complex_translator("tf", "GatherV2", "ResourceGather")
def gather(node, b):
    """Gather along a logical axis (``batch_dims`` from the extractor)."""
    x, indices = (node.in_port(i).get_source() for i in range(2))
    axis = _logical_axes(b, node, 2, x) if node.is_in_port_connected(2) else np.int64(0)
    return [mark_complex(b.Gather(x, indices, axis, batch_dims=node.batch_dims))]


@complex_translator("tf", "GatherNd")
def gather_nd(node, b):
    """GatherND: the indices address logical dims; the pairs' dim comes along with each slice."""
    x, indices = (node.in_port(i).get_source() for i in range(2))
    return [mark_complex(b.GatherND(x, indices, batch_dims=0))]


@complex_translator("tf", "Fill")
def fill(node, b):
    """Fill(dims, value) of a complex value: the pair broadcast to dims + [2]."""
    dims, value = input_sources(node)
    return [mark_complex(b.Broadcast(value, _with_pairs_dim(b, dims, 2), mode="numpy"))]


def _split_outputs(b, node, parts, axis: int | None = None) -> list:
    """The parts of a split, each marked complex (squeezed at ``axis`` when given: Unpack)."""
    parts = list(parts) if isinstance(parts, tuple) else [parts]
    if axis is not None:
        parts = [b.Squeeze(p, i64(axis), name=f"{node.name}:{i}") for i, p in enumerate(parts)]
    return [mark_complex(p) for p in parts]


@complex_translator("tf", "Unpack")
def unpack(node, b):
    x = _x(node)
    axis, n = complex_axis(TfExtractor.attr(node, "axis", 0), x, node), int(TfExtractor.attr(node, "num"))
    return _split_outputs(b, node, b.Split(x, np.int64(axis), num_splits=n) if n > 1 else x, axis)


@complex_translator("tf", "Split")
def split(node, b):
    """Split(axis, value) into ``num_split`` equal parts along a logical axis."""
    x = node.in_port(1).get_source()
    axis = complex_axis(int(constant_input(node, 0, "axis")), x, node)
    n = int(TfExtractor.attr(node, "num_split"))
    return _split_outputs(b, node, b.Split(x, np.int64(axis), num_splits=n, name=node.name))


@complex_translator("tf", "SplitV")
def split_v(node, b):
    x, sizes = (node.in_port(i).get_source() for i in range(2))
    axis = complex_axis(int(constant_input(node, 2, "axis")), x, node)
    n = int(TfExtractor.attr(node, "num_split"))
    return _split_outputs(b, node, b.VariadicSplit(x, np.int64(axis), sizes, num_outputs=n, name=node.name))


@complex_translator("tf", "ReverseV2")
def reverse_v2(node, b):
    x = _x(node)
    axes = i64([complex_axis(a, x, node) for a in np.atleast_1d(constant_input(node, 1, "axis"))])
    n = axes.size
    return [mark_complex(b.Slice(x, np.full(n, -1, np.int64), np.full(n, INT64_MIN, np.int64),
                                 np.full(n, -1, np.int64), axes))]


@complex_translator("tf", "AddN")
def add_n(node, b):
    values = _complex_inputs(node, b)
    total = values[0]
    for v in values[1:]:
        total = mark_complex(b.Add(total, v))
    return [total]


@complex_translator("tf", "Equal", "NotEqual")
def equal(node, b):
    """Both parts equal (Equal), either differs (NotEqual)."""
    x, y = _complex_inputs(node, b)
    if node.fw_op == "Equal":
        return [b.ReduceLogicalAnd(b.Equal(x, y), np.int64(-1), keep_dims=False)]
    return [b.ReduceLogicalOr(b.NotEqual(x, y), np.int64(-1), keep_dims=False)]


@complex_translator("tf", "SelectV2", "Select")
def select(node, b):
    """The condition broadcast over the pairs' dim (Select's vector condition picks rows)."""
    cond, x, y = (node.in_port(i).get_source() for i in range(3))
    et = (x if is_complex(x) else y).data.get_dtype()
    x, y = to_complex(b, x, et), to_complex(b, y, et)
    rank_ = complex_rank(x, node)
    c_rank = cond.data.get_rank()
    if node.fw_op == "Select" and c_rank == 1 and rank_ > 1:
        cond = b.Unsqueeze(cond, np.arange(1, rank_ + 1, dtype=np.int64))
    else:
        cond = b.Unsqueeze(cond, i64(-1))
    return [mark_complex(b.Select(cond, x, y))]


@complex_translator("tf", "MatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3")
def matmul(node, b):
    """(A + Bi)(C + Di) = (AC - BD) + (AD + BC)i of the parts; BatchMatMul's adj_x / adj_y are
    conjugate transposes (MatMul's transpose_a / b plain ones)."""
    x, y = _complex_inputs(node, b)
    if node.fw_op != "MatMul":
        x, y = (complex_conj(b, p) if node[t] else p for p, t in ((x, "transpose_a"), (y, "transpose_b")))
    (a, bi), (c, di) = complex_parts(b, x), complex_parts(b, y)
    mm = lambda p, q: b.MatMul(p, q, transpose_a=node.transpose_a, transpose_b=node.transpose_b)  # noqa: E731
    return [make_complex(b, b.Subtract(mm(a, c), mm(bi, di)), b.Add(mm(a, di), mm(bi, c)))]
