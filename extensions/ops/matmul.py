"""MatMul-1, GroupedMatMul-17, Einsum-7 and Inverse-14."""
from __future__ import annotations

import re

import numpy as np

from mo.ops.op import Op
from mo.utils.shape import broadcast_shapes
from mo.utils.types import INT_TYPES


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


class GroupedMatMul(Op):
    """One matrix product per group (the experts of a mixture-of-experts layer); ``b`` holds each
    group's matrix transposed, [G, N, K]:

    * ``a`` [T, K] with ``offsets`` [G] (cumulative row counts, non-decreasing): rows
      ``offsets[g-1]`` to ``offsets[g]`` times ``b[g]``^T, [T, N] (the CPU plugin runs it as its
      GatherMatmul kernel: each row is multiplied by its own group's weights only);
    * ``a`` [G, M, K] without offsets: [G, M, N], group by group.

    The CPU plugin refuses rows past the last offset; ``evaluate`` gives zeros there."""

    same_type_inputs = (0, 1)

    op = "GroupedMatMul"
    version = "opset17"
    input_ranks = {0: (2, 3), 1: (3,), 2: (1,)}
    input_types = {2: INT_TYPES}

    @classmethod
    def infer_shapes(cls, node):
        a, b = node.in_shape(0), node.in_shape(1)
        offsets = len(node.in_ports()) > 2
        if a is not None and len(a) != (2 if offsets else 3):
            raise ValueError(f"GroupedMatMul takes a {'2' if offsets else '3'}-D first input "
                             f"{'with' if offsets else 'without'} offsets, not {len(a)}-D")
        if a is None or b is None:
            return [None if a is None else (a[0], -1) if offsets else (a[0], a[1], -1)]
        _merge(a[-1], b[2])
        if offsets:
            _merge(node.in_shape(2)[0] if node.in_shape(2) else -1, b[0])
            return [(a[0], b[1])]
        return [(_merge(a[0], b[0]), a[1], b[1])]

    @classmethod
    def evaluate(cls, node, a, b, offsets=None):
        if offsets is None:
            return np.matmul(a, np.swapaxes(b, -1, -2))
        out = np.zeros((a.shape[0], b.shape[1]), dtype=np.result_type(a, b))
        start = 0
        for group, end in enumerate(np.asarray(offsets, dtype=np.int64).tolist()):
            out[start:end] = a[start:end] @ b[group].T
            start = max(start, end)
        return out


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
    """The inverse of each square matrix in the last two dims (``adjoint``: its (conjugate)
    transpose), batch dims kept; floating point only."""

    op = "Inverse"
    version = "opset14"
    defaults = {"adjoint": False}
    ir_attrs = ("adjoint",)

    @classmethod
    def infer_shapes(cls, node):
        shape, et = node.in_shape(0), node.in_dtype(0)
        if et is not None and et not in ("f16", "bf16", "f32", "f64"):
            raise ValueError(f"Inverse of {et} tensors: floating point only")
        if shape is not None:
            if len(shape) < 2:
                raise ValueError(f"Inverse of a rank-{len(shape)} tensor: matrices have rank 2 or more")
            _merge(shape[-1], shape[-2])
        return [shape]

    @classmethod
    def evaluate(cls, node, x):
        data = x.astype(np.float64)
        inverse = np.linalg.inv(data)
        if node.adjoint:
            inverse = np.swapaxes(inverse, -1, -2)
        return inverse.astype(x.dtype)
