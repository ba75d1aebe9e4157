"""Operations that build tensors from a few values: OneHot-16, Eye-9."""
from __future__ import annotations

import numpy as np

from extensions.ops.shape import OutputTypedOp
from mo.ops.op import Op
from mo.utils.shape import DYN, normalize_axis
from mo.utils.types import np_dtype


def _scalar(value) -> int:
    return int(np.asarray(value).reshape(-1)[0])


class OneHot(Op):
    """on_value (input 2) where indices (input 0) equal the position along the new ``axis`` of
    length depth (input 1), off_value (input 3) elsewhere; ``negative_indices_mode`` normalize
    counts negative indices from the end, ignore_negative gives all-off rows."""

    op = "OneHot"
    version = "opset16"
    defaults = {"axis": -1, "negative_indices_mode": "ignore_negative"}
    ir_attrs = ("axis", "negative_indices_mode")

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.in_dtype(2))

    @classmethod
    def evaluate(cls, node, indices, depth, on, off):
        depth = _scalar(depth)
        axis = normalize_axis(node.axis, indices.ndim + 1)
        idx = indices.astype(np.int64)
        if node.negative_indices_mode == "normalize":
            idx = np.where(idx < 0, idx + depth, idx)
        hot = np.expand_dims(idx, axis) == np.arange(depth).reshape(
            [depth if i == axis else 1 for i in range(indices.ndim + 1)])
        return np.where(hot, on.reshape(()), off.reshape(())).astype(on.dtype)

    @classmethod
    def infer_shapes(cls, node):
        shape = node.in_shape(0)
        if shape is None:
            return [None]
        depth = node.in_value(1)
        axis = normalize_axis(node.axis, len(shape) + 1)
        out = list(shape)
        out.insert(axis, DYN if depth is None else _scalar(depth))
        return [tuple(out)]


class Eye(OutputTypedOp):
    """Matrices [*batch_shape, num_rows, num_columns] with ones on the diagonal shifted by
    diagonal_index (inputs 0..3) and zeros elsewhere, of ``output_type``."""

    op = "Eye"
    version = "opset9"
    defaults = {"output_type": "f32"}

    @classmethod
    def evaluate(cls, node, rows, cols, diagonal, batch=None):
        eye = np.eye(_scalar(rows), _scalar(cols), k=_scalar(diagonal), dtype=np_dtype(node.output_type))
        if batch is None:
            return eye
        batch = [int(b) for b in batch.reshape(-1)]
        return np.broadcast_to(eye, batch + list(eye.shape)).copy()

    @classmethod
    def infer_shapes(cls, node):
        rows, cols = node.in_value(0), node.in_value(1)
        dims = (DYN if rows is None else _scalar(rows), DYN if cols is None else _scalar(cols))
        if not node.is_in_port_connected(3):
            return [dims]
        batch = node.in_value(3)
        if batch is None:
            bshape = node.in_shape(3)
            return [None if bshape is None or bshape[0] < 0 else (DYN,) * bshape[0] + dims]
        return [tuple(int(b) for b in batch.reshape(-1)) + dims]
