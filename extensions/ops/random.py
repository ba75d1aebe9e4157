"""Random generation: RandomUniform-8 and Multinomial-13. Never constant-folded; the reference
interpreter draws with numpy (the runtime's Philox sequence is not reproduced)."""
from __future__ import annotations

import numpy as np

from extensions.ops.shape import OutputTypedOp
from mo.utils.shape import DYN
from mo.utils.types import np_dtype

_UNIFORM_TYPES = ("f32", "f16", "bf16", "f64", "i32", "i64")


def _rng(node) -> np.random.Generator:
    return np.random.default_rng([int(node.global_seed), int(node.op_seed)])


class RandomUniform(OutputTypedOp):
    """Values drawn uniformly from [min, max) (inputs 1, 2: scalars) in a tensor of the shape
    given by input 0, of ``output_type``; the seeds pick the sequence."""

    op = "RandomUniform"
    version = "opset8"
    defaults = {"output_type": "f32", "global_seed": 0, "op_seed": 0}
    ir_attrs = ("output_type", "global_seed", "op_seed")
    foldable = False

    @classmethod
    def infer_shapes(cls, node):
        if node.output_type not in _UNIFORM_TYPES:
            raise ValueError(f"RandomUniform cannot make {node.output_type} values (only {', '.join(_UNIFORM_TYPES)})")
        shape = node.in_value(0)
        if shape is not None:
            return [tuple(int(d) for d in np.atleast_1d(shape))]
        length = node.in_shape(0)
        return [None if length is None or len(length) != 1 or length[0] < 0 else (DYN,) * length[0]]

    @classmethod
    def evaluate(cls, node, shape, low, high):
        shape = tuple(int(d) for d in np.atleast_1d(shape))
        dtype = np_dtype(node.output_type)
        if np.issubdtype(dtype, np.integer):
            return _rng(node).integers(int(low), int(high), size=shape).astype(dtype)
        return _rng(node).uniform(float(low), float(high), size=shape).astype(dtype)


class Multinomial(OutputTypedOp):
    """``num_samples`` (input 1) class indices per row of the probabilities [batch, classes]
    (input 0; log-probabilities when ``log_probs``), with or without replacement, of
    ``convert_type``."""

    op = "Multinomial"
    version = "opset13"
    defaults = {"convert_type": "i64", "with_replacement": False, "log_probs": False, "global_seed": 0,
                "op_seed": 0}
    ir_attrs = ("convert_type", "with_replacement", "log_probs", "global_seed", "op_seed")
    foldable = False

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.convert_type)

    @classmethod
    def infer_shapes(cls, node):
        shape = node.in_shape(0)
        if shape is not None and len(shape) != 2:
            raise ValueError(f"Multinomial takes probabilities of rank 2, not {len(shape)}")
        count = node.in_value(1)
        samples = DYN if count is None else int(np.asarray(count).reshape(-1)[0])
        return [(DYN if shape is None else shape[0], samples)]

    @classmethod
    def evaluate(cls, node, probs, count):
        probs = np.exp(probs) if node.log_probs else probs
        probs = probs.astype(np.float64) / probs.sum(axis=1, keepdims=True)
        count = int(np.asarray(count).reshape(-1)[0])
        rng = _rng(node)
        rows = [rng.choice(probs.shape[1], size=count, replace=bool(node.with_replacement), p=p) for p in probs]
        return np.array(rows, dtype=np_dtype(node.convert_type)).reshape(probs.shape[0], count)
