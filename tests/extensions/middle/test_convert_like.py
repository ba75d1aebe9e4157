"""ConvertLikeToConvert: ConvertLike becomes a Convert to the type of its second input."""
import numpy as np

from extensions.middle.convert_like import ConvertLikeToConvert
from tests.utils.reference import assert_rewrite


def test_convert_like_becomes_convert_to_the_like_type():
    def build(b):
        x = b.Parameter(shape=(2, 3), element_type="f32", name="x")
        like = b.Parameter(shape=(4,), element_type="i32", name="like")
        return b.Multiply(b.ConvertLike(x, like), b.const(np.array(2, np.int32)))
    graph = assert_rewrite(build, ConvertLikeToConvert, [np.array([[1.7, -2.2, 3], [0, 5.5, -1]], np.float32),
                                                         np.zeros(4, np.int32)], expect_ops=["Convert", "Multiply"])
    (convert,) = graph.nodes_by_op("Convert")
    assert convert.destination_type == "i32" and convert.out_port(0).data.get_dtype() == "i32"


def test_convert_like_to_the_same_type_disappears():
    def build(b):
        x = b.Parameter(shape=(3,), element_type="f32", name="x")
        return b.ReLU(b.ConvertLike(x, b.const(np.zeros(2, np.float32))))
    assert_rewrite(build, ConvertLikeToConvert, expect_ops=["ReLU"])
