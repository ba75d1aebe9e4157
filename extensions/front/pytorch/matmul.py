"""ATen matrix products (linear, addmm, baddbmm, addmv, addr, addbmm, matmul / mm / bmm / mv / dot,
inner, multi_dot, tensordot, bilinear, kron), trace, vander and einsum: their translators."""
from __future__ import annotations

import numpy as np

from extensions.front.pytorch.aten import const, convert, dim_size, promoted, rank_of, reshape, shape_of
from extensions.load.pytorch.arguments import aten
from mo.errors import ConversionError
from mo.graph.building import dims_slice, i64
from mo.utils.types import INT_TYPES


@aten("aten::linear")
def linear(node, a, b):
    """linear(input, weight, bias) = input weight^T + bias (a 1-D weight gives a dot product)."""
    _, ports = promoted(a, [k for k in ("input", "weight", "bias") if not a.is_none(k)], b)
    y = b.MatMul(ports[0], ports[1], transpose_b=rank_of(ports[1], node) > 1)
    return [b.Add(y, ports[2]) if len(ports) == 3 else y]


@aten("aten::matmul", "aten::mm", "aten::bmm", "aten::mv", "aten::dot", "aten::vdot")
def matmul(node, a, b):
    """The plain products: one MatMul (numpy's rules, as torch.matmul's; vdot of real vectors is
    dot; a product over an empty inner dim: extensions/middle/empty_reductions.py)."""
    _, (x, y) = promoted(a, (0, 1), b)
    return [b.MatMul(x, y)]


@aten("aten::inner")
def inner(node, a, b):
    """inner(x, y): the sum over the last dims of both; the result has x's leading dims, then y's."""
    _, (x, y) = promoted(a, (0, 1), b)
    rank_x, rank_y = rank_of(x, node), rank_of(y, node)
    if rank_x == 0 or rank_y == 0:
        return [b.Multiply(x, y)]
    if rank_y == 1:
        return [b.MatMul(x, y)]
    if rank_x == 1:
        return [b.MatMul(y, x)]
    if rank_y == 2:
        return [b.MatMul(x, y, transpose_b=True)]
    product = b.MatMul(x, reshape(b, y, [-1, dim_size(b, y, rank_y - 1)]), transpose_b=True)
    leading = [dims_slice(b, shape_of(b, p), 0, -1) for p in (x, y)]
    return [b.Reshape(product, b.Concat(*leading, axis=0), special_zero=False)]


def _scaled(b, x, factor, et):
    return x if factor == 1 else b.Multiply(x, const(b, factor, et))


def _product(node, b, op: str, x, y):
    """mat1 @ mat2 (addmm, baddbmm, addmv), the outer product (addr) or the sum of the batch of
    products (addbmm)."""
    if op == "aten::addr":
        return b.Multiply(b.Unsqueeze(x, i64(1)), y) if x.data.get_dtype() != "boolean" else \
            b.LogicalAnd(b.Unsqueeze(x, i64(1)), y)
    product = b.MatMul(x, y)
    return b.ReduceSum(product, i64(0), keep_dims=False) if op == "aten::addbmm" else product


@aten("aten::addmm", "aten::baddbmm", "aten::addmv", "aten::addr", "aten::addbmm")
def addmm(node, a, b):
    """addmm(self, mat1, mat2, beta, alpha) (and baddbmm, addmv, addr, addbmm):
    beta * self + alpha * product; beta 0 ignores self (booleans: or / and)."""
    et, (bias, m1, m2) = promoted(a, (0, 1, 2), b)
    beta, alpha = a.const("beta", 1), a.const("alpha", 1)
    if et == "boolean":
        if node.fw_op != "aten::addr":
            raise ConversionError(f"{node.fw_op} of boolean tensors is not supported.")
        product = b.LogicalAnd(_product(node, b, node.fw_op, m1, m2), b.const(np.array(bool(alpha))))
        return [product if not beta else b.LogicalOr(bias, product)]
    product = _scaled(b, _product(node, b, node.fw_op, m1, m2), alpha, et)
    if beta == 0:
        return [b.Add(b.Multiply(bias, const(b, 0, et)), product)] if node.fw_op == "aten::addr" else [product]
    return [b.Add(_scaled(b, bias, beta, et), product)]


@aten("aten::trace")
def trace(node, a, b):
    """The sum of a matrix's diagonal (integers in i64)."""
    x = a.tensor(0)
    if rank_of(x, node) != 2:
        raise ConversionError("trace takes a matrix (2-D tensor).")
    et = x.data.get_dtype()
    if et not in ("f16", "bf16", "f32", "f64"):
        x, et = convert(b, x, "i64"), "i64"
    n = b.Minimum(dim_size(b, x, 0), dim_size(b, x, 1))
    rows = b.Range(np.int64(0), n, np.int64(1), output_type="i64")
    diagonal = b.GatherND(x, b.Concat(b.Unsqueeze(rows, i64(1)), b.Unsqueeze(rows, i64(1)), axis=1), batch_dims=0)
    return [b.ReduceSum(diagonal, i64(0), keep_dims=False)]


@aten("aten::kron")
def kron(node, a, b):
    """The Kronecker product: both made the same rank, dims interleaved as [a0, b0, a1, b1, ...]
    by a broadcast product, then merged pairwise."""
    _, (x, y) = promoted(a, (0, 1), b)
    rank = max(rank_of(x, node), rank_of(y, node))
    x, y = (b.Unsqueeze(t, i64(list(range(rank - rank_of(t, node))))) if rank_of(t, node) < rank else t
            for t in (x, y))
    multiply = b.LogicalAnd if x.data.get_dtype() == "boolean" else b.Multiply
    if rank == 0:
        return [multiply(x, y)]
    product = multiply(b.Unsqueeze(x, i64([2 * d + 1 for d in range(rank)])),
                       b.Unsqueeze(y, i64([2 * d for d in range(rank)])))
    sizes = [b.Multiply(dim_size(b, x, d), dim_size(b, y, d)) for d in range(rank)]
    return [reshape(b, product, sizes)]


@aten("aten::tensordot")
def tensordot(node, a, b):
    """tensordot(a, b, dims_a, dims_b): the contracted dims summed, as an Einsum."""
    _, (x, y) = promoted(a, (0, 1), b)
    rank_x, rank_y = rank_of(x, node), rank_of(y, node)
    dims_x = [d % max(rank_x, 1) for d in a.int_list("dims_self")]
    dims_y = [d % max(rank_y, 1) for d in a.int_list("dims_other")]
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    left = [next(letters) for _ in range(rank_x)]
    right = [next(letters) for _ in range(rank_y)]
    for dx, dy in zip(dims_x, dims_y):
        right[dy] = left[dx]
    out = [c for d, c in enumerate(left) if d not in dims_x] + [c for d, c in enumerate(right) if d not in dims_y]
    return [b.Einsum(x, y, equation=f"{''.join(left)},{''.join(right)}->{''.join(out)}")]


@aten("aten::bilinear")
def bilinear(node, a, b):
    """bilinear(x1, x2, weight [O, I1, I2], bias): x1 W x2 + bias, as an Einsum."""
    _, (x1, x2, weight) = promoted(a, (0, 1, 2), b)
    y = b.Einsum(x1, weight, x2, equation="...i,oij,...j->...o")
    return [y if a.is_none("bias") else b.Add(y, convert(b, a.tensor("bias"), y.data.get_dtype()))]


@aten("aten::linalg_multi_dot")
def multi_dot(node, a, b):
    """The product of a list of matrices (the first may be a vector, and the last)."""
    tensors = [t for t in a.tensors(0) if t is not None]
    et = tensors[0].data.get_dtype()
    y = convert(b, tensors[0], et)
    for t in tensors[1:]:
        y = b.MatMul(y, convert(b, t, et))
    return [y]


@aten("aten::linalg_vander")
def vander(node, a, b):
    """linalg.vander(x, N): the powers x^0 ... x^(N-1) along a new last dim (N = x's size)."""
    x = a.tensor(0)
    if x.data.get_dtype() in INT_TYPES:     # PyTorch gives the powers of integers in i64
        x = convert(b, x, "i64")
    if rank_of(x, node) == 0:  # a scalar is one point
        x = b.Unsqueeze(x, i64(0))
    n = a.const("N", None) if a.has("N") else None
    count = dim_size(b, x, rank_of(x, node) - 1) if n is None else b.const(np.int64(n))
    powers = convert(b, b.Range(np.int64(0), count, np.int64(1), output_type="i64"), x.data.get_dtype())
    return [b.Power(b.Unsqueeze(x, i64(-1)), powers)]


def explicit_equation(equation: str) -> str:
    """An einsum equation with its output given: implicit outputs are the labels that occur once,
    in alphabetical order, after the ellipsis dims."""
    equation = equation.replace(" ", "")
    if "->" in equation:
        return equation
    labels = equation.replace(",", "").replace("...", "")
    once = sorted(c for c in set(labels) if labels.count(c) == 1)
    return equation + "->" + ("..." if "..." in equation else "") + "".join(once)


@aten("aten::einsum")
def einsum(node, a, b):
    """einsum(equation, tensors) -> Einsum with the explicit equation, in the first tensor's type."""
    tensors = a.tensors("tensors")
    et = tensors[0].data.get_dtype()
    return [b.Einsum(*[convert(b, t, et) for t in tensors], equation=explicit_equation(a.const("equation")))]


@aten("transformers::grouped_mm_fallback", "aten::_grouped_mm")
def grouped_mm(node, a, b):
    """The grouped matrix product of mixture-of-experts layers: grouped_mm(input [S, K] (rows sorted
    by expert), weight [E, K, O], offs [E] (cumulative row counts)): each row times the weight of
    its own expert only. One GroupedMatMul (weights [E, O, K]), which the CPU plugin runs as its
    GatherMatmul kernel: a decoded token reads the weights of its top-k experts alone, a prompt
    multiplies each expert's rows by its weights. torch._grouped_mm also takes a 3-D input [E, M, K]
    without offsets (one product per expert); its bias is refused."""
    if a.has("bias") and not a.is_none("bias"):
        raise ConversionError("_grouped_mm with a bias is not converted (OpenVINO's GroupedMatMul has none).")
    _, (x, w) = promoted(a, (0, 1), b)
    offsets_key = "offs" if a.has("offs") else 2
    with_offsets = not a.is_none(offsets_key)
    if rank_of(w, node) != 3 or rank_of(x, node) != (2 if with_offsets else 3):
        raise ConversionError("grouped_mm takes 3-D expert weights and a 2-D input with offsets or a 3-D one "
                              "without.")
    weights = b.Transpose(w, i64(0, 2, 1))
    if not with_offsets:
        return [b.GroupedMatMul(x, weights)]
    offsets = a.tensor(offsets_key)
    if offsets.data.get_dtype() not in ("i32", "i64"):
        offsets = convert(b, offsets, "i64")
    return [b.GroupedMatMul(x, weights, offsets)]
