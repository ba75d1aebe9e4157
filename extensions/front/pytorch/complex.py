"""ATen complex numbers: view_as_real, view_as_complex, complex, polar, real, imag, angle, conj, and
complex tensors through ordinary ops (complex translators: add, sub, mul, div, neg, abs, reshape /
view, permute, transpose, unsqueeze, squeeze, cat, stack, select, sum, mean, clone...).

complex64 / complex128 values are carried as f32 / f64 pairs [..., 2] marked complex on their
port (the representation and its helpers are described with the complex helpers of
``mo/graph/building.py``); the IR's complex outputs are that form. ``@complex_aten`` registers
``fn(node, a, b)`` for the translate step to call when one of the node's inputs is complex (and,
with ``real=True``, as the op's translator for real inputs too).
"""
from __future__ import annotations

import functools
from typing import Callable

import numpy as np

from extensions.front.pytorch.indexing import _bound
from extensions.front.pytorch.shape import sliced
from extensions.load.pytorch.arguments import AtenArgs, aten, where
from extensions.load.pytorch.schema import is_dtype_type
from extensions.load.pytorch.types import COMPLEX_PARTS, element_type_of_dtype
from mo.errors import ConversionError
from mo.front.translator import complex_translator, translator
from mo.graph.building import (
    INT64_MAX,
    INT64_MIN,
    atan2,
    common_parts,
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
    complex_view,
    convert,
    i64,
    int_list_port,
    is_complex,
    make_complex,
    mark_complex,
    scalar_like,
    to_complex,
)
from mo.graph.building import (
    dim as dim_size,
)


def complex_aten(*names: str, real: bool = True) -> Callable:
    """Register ``fn(node, a, b)`` as what converts the ATen ops ``names`` when an input is
    complex, and (``real``) as their translator for real inputs as well."""
    def register(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def translate(node, b) -> list:
            return fn(node, AtenArgs(node), b)
        translate = complex_translator("pytorch", *names)(translate)
        return translator("pytorch", *names)(translate) if real else translate
    return register


def _parts_type(*ports) -> str:
    """The element type of the parts of the complex one(s) among ``ports``."""
    return next(p for p in ports if is_complex(p)).data.get_dtype()


# ---------------------------------------------------------------------------- complex views


@complex_aten("aten::view_as_real")
def view_as_real(node, a, b):
    x = a.tensor("self")
    if not is_complex(x):
        raise ConversionError(f"{where(node)} takes a complex tensor.")
    return [complex_view(b, x, False)]


@aten("aten::view_as_complex")
def view_as_complex(node, a, b):
    """A real tensor [..., 2] seen as complex."""
    x = a.tensor("self")
    shape = x.data.get_shape()
    if shape is not None and (not shape or shape[-1] not in (2, -1)):
        raise ConversionError(f"{where(node)} needs a last dim of 2, not a tensor of shape {list(shape)}.")
    return [complex_view(b, x, True)]


@aten("aten::complex")
def complex_(node, a, b):
    return [make_complex(b, a.tensor("real"), convert(b, a.tensor("imag"), a.tensor("real").data.get_dtype()))]


@aten("aten::polar")
def polar(node, a, b):
    """abs (cos angle + i sin angle)."""
    radius, theta = a.tensor("abs"), a.tensor("angle")
    return [make_complex(b, b.Multiply(radius, b.Cos(theta)), b.Multiply(radius, b.Sin(theta)))]


@complex_aten("aten::real", "aten::imag")
def real_imag(node, a, b):
    """The real or imaginary part (a real tensor is its own real part)."""
    x = a.tensor("self")
    if not is_complex(x):
        if node.fw_op == "aten::imag":
            raise ConversionError(f"{where(node)}: imag is not defined for real tensors.")
        return [x]
    real, imag = complex_parts(b, x)
    return [real if node.fw_op == "aten::real" else imag]


@complex_aten("aten::angle")
def angle(node, a, b):
    """atan2(imag, real); a real tensor gives pi where it is negative, 0 elsewhere (NaN stays)."""
    x = a.tensor("self")
    if not is_complex(x) and x.data.get_dtype() not in ("f16", "bf16", "f32", "f64"):
        x = convert(b, x, "f32")
    real, imag = complex_parts(b, x)
    result = atan2(b, imag, real)
    return [result if is_complex(x) else b.Select(b.NotEqual(x, x), x, result)]


@complex_aten("aten::conj", "aten::conj_physical", "aten::_conj", "aten::_conj_physical")
def conj(node, a, b):
    """The conjugate of a complex tensor (conj / _conj are lazy in PyTorch and resolve_conj
    materialises one: here each conjugates, and resolve_conj passes its input); a real tensor is
    its own."""
    x = a.tensor("self")
    return [complex_conj(b, x) if is_complex(x) else x]


# ---------------------------------------------------------------------------- arithmetic


@complex_aten("aten::add", "aten::sub", "aten::add_", "aten::sub_", "aten::rsub", real=False)
def add_sub(node, a, b):
    """self ± alpha * other (rsub: other - alpha * self)."""
    x, y = common_parts(b, a.tensor(0), a.tensor(1))
    x, y = to_complex(b, x), to_complex(b, y)
    alpha = a.const("alpha", 1)
    if node.fw_op == "aten::rsub":
        x, y = y, x
    if alpha != 1:
        y = mark_complex(b.Multiply(y, scalar_like(b, alpha, y)))
    return [mark_complex(b.Subtract(x, y) if "sub" in node.fw_op else b.Add(x, y))]


@complex_aten("aten::mul", "aten::mul_", real=False)
def mul(node, a, b):
    return [complex_mul(b, a.tensor(0), a.tensor(1))]


@complex_aten("aten::div", "aten::div_", real=False)
def div(node, a, b):
    if a.const("rounding_mode", None) is not None:
        raise ConversionError(f"{where(node)}: a rounded division of complex tensors is not defined.")
    return [complex_div(b, a.tensor(0), a.tensor(1))]


@complex_aten("aten::neg", real=False)
def neg(node, a, b):
    return [mark_complex(b.Negative(a.tensor(0)))]


@complex_aten("aten::abs", real=False)
def abs_(node, a, b):
    return [complex_abs(b, a.tensor(0))]


@complex_aten("aten::clone", "aten::contiguous", "aten::detach", "aten::alias", "aten::lift_fresh",
              "aten::lift_fresh_copy", "aten::detach_", "aten::resolve_conj", "aten::resolve_neg", real=False)
def pass_through(node, a, b):
    return [a.tensor(0)]


# ---------------------------------------------------------------------------- shapes


@complex_aten("aten::view", "aten::reshape", "aten::_unsafe_view", real=False)
def reshape(node, a, b):
    return [mark_complex(b.Reshape(a.tensor(0), int_list_port(b, list(a.int_list(1)) + [2]), special_zero=False))]


@complex_aten("aten::permute", real=False)
def permute(node, a, b):
    x = a.tensor(0)
    order = [complex_axis(d, x, node) for d in a.int_list(1)]
    return [mark_complex(b.Transpose(x, i64(order + [len(order)])))]


@complex_aten("aten::transpose", "aten::swapaxes", "aten::swapdims", real=False)
def transpose(node, a, b):
    x = a.tensor(0)
    order = list(range(complex_rank(x, node) + 1))
    d0, d1 = complex_axis(a.const(1), x, node), complex_axis(a.const(2), x, node)
    order[d0], order[d1] = order[d1], order[d0]
    return [mark_complex(b.Transpose(x, i64(order)))]


@complex_aten("aten::t", "aten::numpy_T", real=False)
def t(node, a, b):
    """The logical dims reversed (t: of a tensor of at most 2 dims)."""
    x = a.tensor(0)
    rank = complex_rank(x, node)
    return [mark_complex(b.Transpose(x, i64(list(range(rank))[::-1] + [rank])))]


@complex_aten("aten::unsqueeze", real=False)
def unsqueeze(node, a, b):
    x = a.tensor(0)
    rank = complex_rank(x, node) + 1
    axis = int(a.const(1))
    if not -rank <= axis < rank:
        raise ConversionError(f"{where(node)}: dim {axis} is out of range for a result of rank {rank}.")
    return [mark_complex(b.Unsqueeze(x, i64(axis % rank)))]


@complex_aten("aten::squeeze", real=False)
def squeeze(node, a, b):
    """Squeeze of the dims given (those of size 1); without dims, of every logical dim of size 1."""
    x = a.tensor(0)
    shape = x.data.get_shape()
    dims = a.const(1, None) if len(a) > 1 else None
    if dims is None:
        if shape is None:
            raise ConversionError(f"{where(node)}: squeezing every dim of size 1 needs a known rank.")
        dims = [i for i, d in enumerate(shape[:-1]) if d == 1]
    dims = [complex_axis(d, x, node) for d in np.atleast_1d(dims)]
    dims = [d for d in dims if shape is None or shape[d] in (1, -1)]
    return [mark_complex(b.Squeeze(x, i64(dims))) if dims else x]


@complex_aten("aten::cat", "aten::concat", "aten::concatenate", "aten::stack", real=False)
def cat(node, a, b):
    """cat / stack of the tensors, each complex (a real one gets a zero imaginary part)."""
    values = [p for p in a.tensors(0) if p is not None]
    et = _parts_type(*values)
    values = [to_complex(b, p, et) for p in values]
    rank = complex_rank(values[0], node) + int(node.fw_op == "aten::stack")
    axis = int(a.const(1, 0))
    if not -rank <= axis < rank:
        raise ConversionError(f"{where(node)}: dim {axis} is out of range for rank {rank}.")
    axis %= rank
    if node.fw_op == "aten::stack":
        values = [b.Unsqueeze(v, i64(axis)) for v in values]
    return [mark_complex(values[0] if len(values) == 1 else b.Concat(*values, axis=axis))]


@complex_aten("aten::select", real=False)
def select(node, a, b):
    x = a.tensor(0)
    axis = complex_axis(a.const(1), x, node)
    index = a.tensor(2) if a.value(2) is None else b.const(np.int64(a.const(2)))
    return [mark_complex(b.Gather(x, convert(b, index, "i64"), np.int64(axis)))]


@complex_aten("aten::sum", "aten::mean", real=False)
def reduce(node, a, b):
    """sum / mean over the dims given (all logical dims without), ``keepdim``."""
    x = a.tensor(0)
    rank = complex_rank(x, node)
    dims = a.const("dim", None) if a.has("dim") else None
    if a.has("dtype") and a.const("dtype", None) is not None:
        raise ConversionError(f"{where(node)}: a dtype for a complex {node.fw_op[6:]} is not supported.")
    dims = list(range(rank)) if dims is None or (isinstance(dims, list) and not dims) else np.atleast_1d(dims)
    axes = i64([complex_axis(d, x, node) for d in dims])
    op = "ReduceSum" if node.fw_op == "aten::sum" else "ReduceMean"
    return [mark_complex(b.op(op, x, axes, keep_dims=bool(a.const("keepdim", False))))]


@complex_aten("aten::slice", real=False)
def slice_(node, a, b):
    """x[start:end:step] along a logical ``dim``."""
    x = a.tensor(0)
    axis = complex_axis(a.const("dim", 0), x, node)
    start, end = _bound(a, "start", 0), _bound(a, "end", INT64_MAX)
    return [mark_complex(sliced(b, x, axis, start, end, int(a.const("step", 1))))]


@complex_aten("aten::exp", real=False)
def exp(node, a, b):
    return [complex_exp(b, a.tensor(0))]


@complex_aten("aten::log", real=False)
def log(node, a, b):
    return [complex_log(b, a.tensor(0))]


@complex_aten("aten::sqrt", "aten::rsqrt", real=False)
def sqrt(node, a, b):
    return [complex_power(b, a.tensor(0), 0.5 if node.fw_op == "aten::sqrt" else -0.5)]


@complex_aten("aten::flip", real=False)
def flip(node, a, b):
    x = a.tensor(0)
    axes = [complex_axis(d, x, node) for d in np.atleast_1d(a.const("dims"))]
    n = len(axes)
    return [mark_complex(b.Slice(x, i64([-1] * n), i64([INT64_MIN] * n), i64([-1] * n), i64(axes)))]


def rolled(node, b, x, axes: list[int], shifts: list[int]):
    """x rolled by ``shifts`` along the (non-negative, logical) ``axes``: per axis the last
    ``shift`` elements moved to the front (two Slices and a Concat; static dims)."""
    y = x
    for axis, shift in zip(axes, shifts):
        size = y.data.get_shape()[axis]
        if size < 0:
            raise ConversionError(f"{where(node)}: rolling along a dynamic dimension is not supported.")
        shift %= max(size, 1)
        if shift:
            y = b.Concat(sliced(b, y, axis, size - shift, size), sliced(b, y, axis, 0, size - shift), axis=axis)
    return y if y is x or not is_complex(x) else mark_complex(y)


@complex_aten("aten::roll", real=False)
def roll(node, a, b):
    """roll(shifts, dims) along logical dims."""
    x = a.tensor(0)
    dims = [int(d) for d in np.atleast_1d(a.const("dims", []))]
    if not dims:
        raise ConversionError(f"{where(node)}: rolling a flattened complex tensor is not supported; give dims.")
    shifts = [int(s) for s in np.atleast_1d(a.const("shifts"))]
    return [rolled(node, b, x, [complex_axis(d, x, node) for d in dims], shifts)]


@complex_aten("aten::flatten", real=False)
def flatten(node, a, b):
    """Logical dims start_dim..end_dim merged into one."""
    x = a.tensor(0)
    rank = complex_rank(x, node)
    if rank == 0:
        return [mark_complex(b.Reshape(x, i64(1, 2), special_zero=False))]
    start, end = complex_axis(a.const("start_dim", 0), x, node), complex_axis(a.const("end_dim", -1), x, node)
    shape = [0] * start + [-1] + [0] * (rank - 1 - end) + [2]
    return [mark_complex(b.Reshape(x, i64(shape), special_zero=True))]


@complex_aten("aten::expand", "aten::broadcast_to", real=False)
def expand(node, a, b):
    """Broadcast to ``size`` (-1 keeps a dim) plus the pairs' dim."""
    x = a.tensor(0)
    sizes = list(a.int_list(1))
    rank = complex_rank(x, node)
    if any(isinstance(s, int) and s == -1 for s in sizes):
        lead = len(sizes) - rank
        sizes = [dim_size(b, x, i - lead) if isinstance(s, int) and s == -1 else s for i, s in enumerate(sizes)]
    return [mark_complex(b.Broadcast(x, int_list_port(b, sizes + [2]), mode="numpy"))]


@complex_aten("aten::repeat", "aten::tile", real=False)
def repeat(node, a, b):
    x = a.tensor(0)
    return [mark_complex(b.Tile(x, int_list_port(b, list(a.int_list(1)) + [1])))]


@complex_aten("aten::matmul", "aten::mm", "aten::bmm", real=False)
def matmul(node, a, b):
    """(A + Bi)(C + Di) = (AC - BD) + (AD + BC)i of the parts (a real operand: zero imaginary)."""
    x, y = a.tensor(0), a.tensor(1)
    et = _parts_type(x, y)
    (p, q), (r, s) = complex_parts(b, to_complex(b, x, et)), complex_parts(b, to_complex(b, y, et))
    return [make_complex(b, b.Subtract(b.MatMul(p, r), b.MatMul(q, s)), b.Add(b.MatMul(p, s), b.MatMul(q, r)))]


@complex_aten("aten::to", "aten::_to_copy", "aten::type_as", real=False)
def to(node, a, b):
    """A complex tensor to another complex type (its parts converted) or to a real type (its
    real part, as PyTorch casts)."""
    x = a.tensor(0)
    if node.fw_op == "aten::type_as" or (len(a.types) > 1 and a.types[1] == "Tensor"):
        other = a.tensor(1)
        et = "complex" if is_complex(other) else other.data.get_dtype()
        parts = other.data.get_dtype()
    else:
        et = next((a.const(i, None) for i, t in enumerate(a.types) if is_dtype_type(t)), None)
        et = et if et is None or isinstance(et, str) else element_type_of_dtype(et)
        parts = COMPLEX_PARTS.get(et)
    if et is None:
        return [x]
    if et == "complex" or et in COMPLEX_PARTS:
        return [to_complex(b, x, parts)]
    return [convert(b, complex_parts(b, x)[0], et)]
