"""ATen matrix products (linear, addmm, baddbmm, matmul / mm / bmm / mv / dot, inner) and einsum:
their translators."""
from __future__ import annotations

from extensions.front.pytorch.aten import const, convert, dim_size, promoted, rank_of, reshape, shape_of
from extensions.load.pytorch.arguments import aten
from mo.errors import ConversionError
from mo.graph.building import dims_slice, i64


@aten("aten::linear")
def linear(node, a, b):
    """linear(input, weight, bias) = input weight^T + bias (a 1-D weight gives a dot product)."""
    _, ports = promoted(a, [k for k in ("input", "weight", "bias") if not a.is_none(k)], b)
    y = b.MatMul(ports[0], ports[1], transpose_b=rank_of(ports[1], node) > 1)
    return [b.Add(y, ports[2]) if len(ports) == 3 else y]


@aten("aten::matmul", "aten::mm", "aten::bmm", "aten::mv", "aten::dot")
def matmul(node, a, b):
    """The plain products: one MatMul (numpy's rules, as torch.matmul's)."""
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


@aten("aten::addmm", "aten::baddbmm")
def addmm(node, a, b):
    """addmm(self, mat1, mat2, beta, alpha) and baddbmm(self, batch1, batch2, beta, alpha):
    beta * self + alpha * (mat1 @ mat2); beta 0 ignores self."""
    et, (bias, m1, m2) = promoted(a, (0, 1, 2), b)
    beta, alpha = a.const("beta", 1), a.const("alpha", 1)
    product = _scaled(b, b.MatMul(m1, m2), alpha, et)
    if beta == 0:
        return [product]
    return [b.Add(_scaled(b, bias, beta, et), product)]


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
