"""UnsqueezeDynamicAxes and TileDynamicRepeats: the computed-axes / computed-repeats forms the
runtime cannot take become Reshape / Broadcast forms that compute the same thing."""
import numpy as np

from extensions.middle.shape_inputs import TileDynamicRepeats, UnsqueezeDynamicAxes
from tests.utils.reference import assert_rewrite, assert_untouched

X = np.arange(6, dtype=np.float32).reshape(2, 3)


def _unsqueeze(axes_shape):
    def build(b):
        x = b.Parameter(shape=(2, 3), element_type="f32", name="x")
        axes = b.Parameter(shape=axes_shape, element_type="i64", name="axes")
        return b.Unsqueeze(x, axes)
    return build


def test_unsqueeze_with_computed_axes_becomes_a_reshape():
    graph = assert_rewrite(_unsqueeze((2,)), UnsqueezeDynamicAxes, [X, np.array([0, -1], np.int64)],
                           expect_ops=["Reshape", "Convert", "FloorMod", "ScatterUpdate", "Equal", "NonZero",
                                       "Reshape", "ShapeOf", "ScatterUpdate", "Reshape"])
    assert graph.nodes_by_op("Result")[0].in_port(0).data.get_shape() == (-1, -1, -1, -1)


def test_unsqueeze_with_axes_of_unknown_count_is_left():
    assert_untouched(_unsqueeze((-1,)), UnsqueezeDynamicAxes, [X, np.array([1], np.int64)])


def _tile(repeats_shape):
    def build(b):
        x = b.Parameter(shape=(2, 3), element_type="f32", name="x")
        repeats = b.Parameter(shape=repeats_shape, element_type="i32", name="repeats")
        return b.Tile(x, repeats)
    return build


def test_tile_with_computed_repeats_becomes_a_broadcast():
    assert_rewrite(_tile((2,)), TileDynamicRepeats, [X, np.array([3, 2], np.int32)],
                   expect_ops=["Convert", "ShapeOf", "Unsqueeze", "Unsqueeze", "Unsqueeze", "Concat", "Reshape",
                               "Broadcast", "Multiply", "Reshape"])


def test_tile_with_more_repeats_than_dims_is_left():
    assert_untouched(_tile((3,)), TileDynamicRepeats, [X, np.array([1, 3, 2], np.int32)])
