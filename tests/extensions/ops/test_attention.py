"""infer of CausalConvWithState and ScaledDotProductAttention."""
from tests.utils.graphs import infer_op


def test_causal_conv_with_state_shapes():
    out, state = infer_op("onnx::CausalConvWithState", ((2, 4, -1), "f32"), ((4, 1, 5), "f32"), activation="none")
    assert out.data.get_shape() == (2, 4, -1) and state.data.get_shape() == (2, 4, 4)


def test_scaled_dot_product_attention_broadcasts_batch_dims():
    (out,) = infer_op("ScaledDotProductAttention", ((2, 8, -1, 16), "f32"), ((1, 8, 10, 16), "f32"),
                      ((1, 8, 10, 32), "f32"))
    assert out.data.get_shape() == (2, 8, -1, 32) and out.data.get_dtype() == "f32"
