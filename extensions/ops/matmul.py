"""MatMul-1 and Einsum-7."""
from __future__ import annotations

import re

import numpy as np

from mo.ops.op import Op
from mo.utils.shape import broadcast_shapes


def _merge(a: int, b: int) -> int:
    """One dimension that two shapes must agree on (-1 is dynamic)."""
    if a >= 0 and b >= 0 and a != b:
        raise ValueError(f"dimensions {a} and {b} do not match")
    return a if a >= 0 else b


def matmul_shape(a: tuple | None, b: tuple | None, transpose_a: bool = False,
                 transpose_b: bool = False) -> tuple | None:
    """Output shape of numpy-style matmul of ``a`` and ``b`` (1-D operands are vectors)."""
    if a is None or b is None:
        return None
    if not a or not b:
        raise ValueError("MatMul operands must have at least one dimension")
    a2 = (1,) + tuple(a) if len(a) == 1 else tuple(a)
    b2 = tuple(b) + (1,) if len(b) == 1 else tuple(b)
    if transpose_a and len(a) > 1:
        a2 = a2[:-2] + (a2[-1], a2[-2])
    if transpose_b and len(b) > 1:
        b2 = b2[:-2] + (b2[-1], b2[-2])
    _merge(a2[-1], b2[-2])
    batch = broadcast_shapes(a2[:-2], b2[:-2])
    out = batch + (a2[-2], b2[-1])
    if len(b) == 1:
        out = out[:-1]
    if len(a) == 1:
        out = out[:-2] + out[-1:] if len(b) > 1 else out[:-1]
    return out


class MatMul(Op):
    """Matrix product with numpy broadcasting of the batch dims; ``transpose_a/b`` swap the last
    two dims of a 2-D-or-more operand."""

    same_type_inputs = (0, 1)

    op = "MatMul"
    defaults = {"transpose_a": False, "transpose_b": False}
    ir_attrs = ("transpose_a", "transpose_b")

    @classmethod
    def infer_shapes(cls, node):
        return [matmul_shape(node.in_shape(0), node.in_shape(1), node.transpose_a, node.transpose_b)]

    @classmethod
    def evaluate(cls, node, a, b):
        if node.transpose_a and a.ndim > 1:
            a = np.swapaxes(a, -1, -2)
        if node.transpose_b and b.ndim > 1:
            b = np.swapaxes(b, -1, -2)
        return np.matmul(a, b)


def parse_equation(equation: str, ranks: list[int | None]) -> tuple[list[str], str]:
    """Input subscripts and the explicit output subscript of an einsum equation, without spaces;
    an implicit output is the labels used once, in alphabetical order, after the ellipsis."""
    equation = re.sub(r"\s+", "", equation)
    lhs, arrow, out = equation.partition("->")
    inputs = lhs.split(",")
    if len(inputs) != len(ranks):
        raise ValueError(f"equation '{equation}' has {len(inputs)} inputs, the op {len(ranks)}")
    if not arrow:
        labels = "".join(inputs).replace("...", "")
        out = ("..." if "..." in lhs else "") + "".join(sorted(c for c in set(labels) if labels.count(c) == 1))
    return inputs, out


class Einsum(Op):
    """Einstein summation over the inputs given by ``equation`` (explicit form)."""

    op = "Einsum"
    version = "opset7"
    defaults = {"equation": ""}
    ir_attrs = ("equation",)

    @classmethod
    def infer_shapes(cls, node):
        count = len(node.in_ports())
        shapes = [node.in_shape(i) for i in range(count)]
        inputs, out = parse_equation(node.equation, [None] * count)
        if any(s is None for s in shapes):
            return [None if "..." in out else (-1,) * len(out)]
        dims: dict[str, int] = {}
        ellipsis: tuple = ()
        for subscript, shape in zip(inputs, shapes):
            labels = subscript.replace("...", ".")
            n_ell = len(shape) - (len(labels) - 1) if "." in labels else 0
            i = 0
            for c in labels:
                if c == ".":
                    ellipsis = broadcast_shapes(ellipsis, tuple(shape[i:i + n_ell]))
                    i += n_ell
                    continue
                dims[c] = _merge(dims.get(c, shape[i]), shape[i])
                i += 1
        result = []
        for c in out.replace("...", "."):
            result.extend(ellipsis if c == "." else (dims[c],))
        return [tuple(result)]

    @classmethod
    def evaluate(cls, node, *operands):
        inputs, out = parse_equation(node.equation, [x.ndim for x in operands])
        return np.einsum(",".join(inputs) + "->" + out, *operands)


class Inverse(Op):
    """The inverse of each square matrix in the last two dims; ``adjoint``: of its transpose."""

    op = "Inverse"
    version = "opset14"
    defaults = {"adjoint": False}
    ir_attrs = ("adjoint",)

    @classmethod
    def evaluate(cls, node, x):
        inv = np.linalg.inv(x.astype(np.float64))
        return (np.swapaxes(inv, -1, -2) if node.adjoint else inv).astype(x.dtype)

    @classmethod
    def infer_shapes(cls, node):
        shape = node.in_shape(0)
        if shape is not None and (len(shape) < 2 or min(shape[-2:]) >= 0 and shape[-1] != shape[-2]):
            raise ValueError(f"Inverse takes square matrices in the last two dims, not shape {shape}")
        return [shape]
