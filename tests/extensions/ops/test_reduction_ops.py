"""infer of the opset reductions."""
import numpy as np

from tests.utils.graphs import infer_op


def test_opset_reduce_shapes():
    (out,) = infer_op("ReduceL2", ((2, 3, 4), "f32"), np.array([1, -1]), keep_dims=True)
    assert out.data.get_shape() == (2, 1, 1)
    (out,) = infer_op("ReduceLogicalOr", ((2, 3), "boolean"), np.array([0]))
    assert out.data.get_shape() == (3,)
