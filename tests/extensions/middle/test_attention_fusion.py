"""EagerAttentionToSDPA: softmax(q @ kᵀ * scale + mask) @ v of a transformers decoder becomes one
ScaledDotProductAttention, computing the same; other attention stays as it is."""
import numpy as np
import pytest

from extensions.middle.attention_fusion import EagerAttentionToSDPA
from tests.utils.graphs import new_graph
from tests.utils.reference import assert_rewrite, assert_untouched

SHAPE = (1, 2, 3, 4)    # [batch, heads, tokens, head size]


def _inputs(b, decoder: bool = True):
    b.graph.graph["transformers_decoder"] = decoder
    q, k, v = (b.Parameter(shape=SHAPE, element_type="f32", name=n) for n in "qkv")
    mask = b.Parameter(shape=(1, 1, 3, 3), element_type="f32", name="mask")
    return q, k, v, mask


def _transposed_key_scaled_and_masked(b):
    q, k, v, mask = _inputs(b)
    scores = b.Multiply(b.MatMul(q, b.Transpose(k, np.array([0, 1, 3, 2], np.int64))), np.float32(0.5))
    return b.MatMul(b.Softmax(b.Add(scores, mask), axis=3), v)


def _transpose_b_divided(b):
    q, k, v, _ = _inputs(b)
    return b.MatMul(b.Softmax(b.Divide(b.MatMul(q, k, transpose_b=True), np.float32(2)), axis=-1), v)


@pytest.mark.parametrize("build", [_transposed_key_scaled_and_masked, _transpose_b_divided],
                         ids=["transpose_scale_mask", "transpose_b_divide"])
def test_eager_attention_becomes_sdpa(build):
    g = assert_rewrite(build, EagerAttentionToSDPA, expect_ops=["ScaledDotProductAttention"])
    sdpa = g.nodes_by_op("ScaledDotProductAttention")[0]
    assert not sdpa.causal and len(sdpa.in_ports()) == 5


def _soft_capped(b, decoder=True):
    """Gemma2's logit soft-capping between the product and the softmax: not an SDPA."""
    q, k, v, mask = _inputs(b, decoder)
    scores = b.Multiply(b.Tanh(b.Divide(b.MatMul(q, k, transpose_b=True), np.float32(50))), np.float32(50))
    return b.MatMul(b.Softmax(b.Add(scores, mask), axis=-1), v)


@pytest.mark.parametrize("build", [
    _soft_capped,
    lambda b: b.MatMul(b.Softmax(b.MatMul(*_inputs(b)[:2], transpose_b=True), axis=2), b.graph.nodes_by_op(
        "Parameter")[2].out_port(0)),                                                      # softmax over queries
], ids=["soft_capped", "other_axis"])
def test_other_attention_stays(build):
    assert_untouched(build, EagerAttentionToSDPA)


def test_only_decoders_are_fused():
    g, b = new_graph(data_form=True)
    _inputs(b, decoder=False)
    assert not EagerAttentionToSDPA().graph_condition(g)
    g.graph["transformers_decoder"] = True
    assert EagerAttentionToSDPA().graph_condition(g)
