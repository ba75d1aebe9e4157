"""Random generation: RandomUniform-8, Multinomial-13. Never constant-folded (``foldable`` is
False): each run of the model draws anew. ``evaluate`` draws with numpy for the reference
interpreter; it shares OpenVINO's distribution, not its values."""
from __future__ import annotations

import numpy as np

from extensions.ops.shape import OutputTypedOp
from mo.utils.shape import DYN
from mo.utils.types import np_dtype


def _rng(node) -> np.random.Generator:
    return np.random.default_rng([int(node.global_seed), int(node.op_seed)])


class RandomUniform(OutputTypedOp):
    """Values uniform in [min (input 1), max (input 2)) of ``output_type``, in the shape given by
    input 0."""

    op = "RandomUniform"
    version = "opset8"
    foldable = False
    defaults = {"output_type": "f32", "global_seed": 0, "op_seed": 0}
    ir_attrs = ("output_type", "global_seed", "op_seed")

    @classmethod
    def evaluate(cls, node, shape, low, high):
        shape = tuple(int(d) for d in np.asarray(shape).reshape(-1))
        low, high = np.asarray(low).reshape(()).item(), np.asarray(high).reshape(()).item()
        dtype = np_dtype(node.output_type)
        if np.issubdtype(dtype, np.integer):
            return _rng(node).integers(low, high, shape).astype(dtype)
        return _rng(node).uniform(low, high, shape).astype(dtype)

    @classmethod
    def infer_shapes(cls, node):
        value = node.in_value(0)
        if value is not None:
            return [tuple(int(d) for d in np.asarray(value).reshape(-1))]
        shape = node.in_shape(0)
        return [None if shape is None or shape[0] < 0 else (DYN,) * shape[0]]


class Multinomial(OutputTypedOp):
    """``num_samples`` (input 1) class indices per row of probs [batch, classes] (input 0),
    drawn from the distribution of that row (``log_probs``: unnormalised log probabilities),
    as ``convert_type``."""

    op = "Multinomial"
    version = "opset13"
    foldable = False
    defaults = {"convert_type": "i64", "with_replacement": True, "log_probs": False, "global_seed": 0, "op_seed": 0}
    ir_attrs = ("convert_type", "with_replacement", "log_probs", "global_seed", "op_seed")

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.convert_type)

    @classmethod
    def evaluate(cls, node, probs, num_samples):
        n = int(np.asarray(num_samples).reshape(-1)[0])
        p = np.exp(probs.astype(np.float64)) if node.log_probs else probs.astype(np.float64)
        rng = _rng(node)
        rows = [rng.choice(p.shape[1], n, replace=bool(node.with_replacement), p=row / row.sum()) for row in p]
        return np.array(rows, np.int64).reshape(p.shape[0], n)

    @classmethod
    def infer_shapes(cls, node):
        shape, n = node.in_shape(0), node.in_value(1)
        batch = DYN if shape is None else shape[0]
        return [(batch, DYN if n is None else int(np.asarray(n).reshape(-1)[0]))]
