"""ConvertLikeToConvert: ConvertLike becomes a Convert to the type of its second input.
IntegerValuedRoundTrip: integer counts in a float tensor marked so go back to integers directly."""
import numpy as np

from extensions.middle.convert_like import ConvertLikeToConvert, IntegerValuedRoundTrip
from tests.utils.reference import assert_rewrite, assert_untouched


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


def _round_trip(marked: bool, middle="f32", last="i32"):
    def build(b):
        counts = b.Parameter(shape=(4,), element_type="i64", name="counts")
        as_float = b.Convert(counts, destination_type=middle)
        if marked:
            as_float.node["integer_valued"] = True
        return b.CumSum(b.Convert(as_float, destination_type=last), b.const(np.int64(0))), b.Sqrt(as_float)
    return build


def test_marked_integer_counts_skip_the_float():
    counts = [np.array([300, 1, 0, 467], np.int64)]
    graph = assert_rewrite(_round_trip(True), IntegerValuedRoundTrip, counts,
                           expect_ops=["Convert", "Sqrt", "Convert", "CumSum"])
    cumsum = next(iter(graph.nodes_by_op("CumSum")))
    assert cumsum.in_port(0).get_source().node.in_dtype(0) == "i64"      # straight from the integers
    assert_rewrite(_round_trip(True, last="i64"), IntegerValuedRoundTrip, counts,
                   expect_ops=["Convert", "CumSum", "Sqrt"])


def test_unmarked_round_trips_stay():
    """An int -> float -> int round trip of any integers rounds large values as the model does."""
    assert_untouched(_round_trip(False), IntegerValuedRoundTrip, [np.array([2 ** 25 + 1, 3, 0, 1], np.int64)])
