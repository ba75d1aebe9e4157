"""infer of the ONNX Attention op lowered in the middle phase."""
from tests.utils.graphs import infer_op


def test_attention_4d_with_past_shapes():
    y, present_k, present_v, qk = infer_op(
        "onnx::Attention", ((2, 9, 4, 8), "f32"), ((2, 3, 6, 8), "f32"), ((2, 3, 6, 10), "f32"), None,
        ((2, 3, 12, 8), "f32"), ((2, 3, 12, 10), "f32"), q_num_heads=None, kv_num_heads=None)
    assert y.data.get_shape() == (2, 9, 4, 10)
    assert present_k.data.get_shape() == (2, 3, 18, 8) and present_v.data.get_shape() == (2, 3, 18, 10)
    assert qk.data.get_shape() == (2, 9, 4, 18)


def test_attention_3d_shapes_with_dynamic_sequence():
    y, present_k, _, qk = infer_op("onnx::Attention", ((2, -1, 72), "f16"), ((2, 6, 24), "f16"), ((2, 6, 30), "f16"),
                                   q_num_heads=9, kv_num_heads=3)
    assert y.data.get_shape() == (2, -1, 90) and y.data.get_dtype() == "f16"
    assert present_k.data.get_shape() == (2, 3, 6, 8) and qk.data.get_shape() == (2, 9, -1, 6)


def test_rotary_embedding_keeps_the_input_shape():
    (out,) = infer_op("onnx::RotaryEmbedding", ((2, -1, 64), "f32"), ((16, 8), "f32"), ((16, 8), "f32"),
                      ((2, -1), "i64"), interleaved=False, rotary_embedding_dim=0, num_heads=4)
    assert out.data.get_shape() == (2, -1, 64) and out.data.get_dtype() == "f32"


def test_linear_attention_shapes_and_state_type():
    out, state = infer_op("onnx::LinearAttention", ((2, 4, 64), "f16"), ((2, 4, 32), "f16"), ((2, 4, 48), "f16"),
                          ((2, 4, 8, 12), "f32"), q_num_heads=8, kv_num_heads=4, scale=0.0, update_rule="linear")
    assert out.data.get_shape() == (2, 4, 96) and out.data.get_dtype() == "f16"
    assert state.data.get_shape() == (2, 4, 8, 12) and state.data.get_dtype() == "f32"


def test_scaled_dot_product_attention_broadcasts_batch_dims():
    (out,) = infer_op("ScaledDotProductAttention", ((2, 8, -1, 16), "f32"), ((1, 8, 10, 16), "f32"),
                      ((1, 8, 10, 32), "f32"))
    assert out.data.get_shape() == (2, 8, -1, 32) and out.data.get_dtype() == "f32"
