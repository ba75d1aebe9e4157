"""The forms OpenVINO's fusions match: last-axis Concats as axis -1 (LastAxisConcatFromEnd), and a
transformers decoder's attention masks additive, without the padded-row Selects, a sliding
window written as PagedAttention's conversion reads it (DecoderAttentionMask)."""
import numpy as np

from extensions.back.attention_forms import DecoderAttentionMask, LastAxisConcatFromEnd, lowest_finite
from tests.utils.reference import assert_rewrite

SHAPE = (1, 2, 3, 4)    # [batch, heads, tokens, head size]


def test_last_axis_concat_is_written_from_the_end():
    def build(b):
        x = b.Parameter(shape=SHAPE, element_type="f32", name="x")
        shape = b.Concat(b.ShapeOf(x), np.array([5], np.int64), axis=0)
        return b.Concat(b.Negative(x), x, axis=3), b.Concat(x, x, axis=2), shape
    g = assert_rewrite(build, LastAxisConcatFromEnd, expect_ops=None)
    assert sorted(n.axis for n in g.nodes_by_op("Concat")) == [-1, 0, 2]


def _decoder_attention(b, sliding: bool):
    """Attention of a decoder whose boolean mask is causal & padding [& key > query - 2], the
    query rows it hides from every key zeroed as the attention translator writes it."""
    b.graph.graph["transformers_decoder"] = True
    q, k, v = (b.Parameter(shape=SHAPE, element_type="f32", name=n) for n in "qkv")
    padding = b.Parameter(shape=(1, 1, 1, 3), element_type="boolean", name="padding")
    position = np.arange(3, dtype=np.int64)
    queries, keys = b.const(position.reshape(3, 1)), b.const(position.reshape(1, 3))
    keep = b.LogicalAnd(b.LessEqual(keys, queries), padding)
    if sliding:
        keep = b.LogicalAnd(b.Greater(keys, b.Subtract(queries, np.int64(2))), keep)
    keep = b.Broadcast(keep, np.array([1, 1, 3, 3], np.int64), mode="bidirectional")
    attended = b.ScaledDotProductAttention(q, k, v, keep, np.float32(0.5))
    hidden = b.ReduceLogicalAnd(b.LogicalNot(keep), np.array([-1], np.int64), keep_dims=True)
    zeroed = b.Select(hidden, np.float32(0), attended)
    zeroed.node["hidden_rows_to_zero"] = True
    return zeroed


def _inputs():
    rng = np.random.default_rng(0)
    return {**{n: rng.standard_normal(SHAPE).astype(np.float32) for n in "qkv"},
            "padding": np.array([[[[True, True, True]]]])}


def test_decoder_mask_becomes_additive_and_padded_rows_stay_attention():
    g = assert_rewrite(lambda b: _decoder_attention(b, sliding=False), DecoderAttentionMask, _inputs(),
                       expect_ops=["LessEqual", "LogicalAnd", "Broadcast", "Select", "ScaledDotProductAttention"])
    additive = g.nodes_by_op("ScaledDotProductAttention")[0].in_port(3).get_source()
    assert additive.node.op == "Select" and additive.data.get_dtype() == "f32"
    assert additive.node.in_port(2).get_source().data.get_value() == np.float32(lowest_finite("f32"))


def test_sliding_window_is_written_as_paged_attention_reads_it():
    assert_rewrite(lambda b: _decoder_attention(b, sliding=True), DecoderAttentionMask, _inputs(),
                   expect_ops=["LessEqual", "Add", "Greater", "BitwiseAnd", "BitwiseAnd", "Broadcast", "Select",
                               "Slice", "ScaledDotProductAttention"])
