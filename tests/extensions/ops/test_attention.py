"""infer of ScaledDotProductAttention; its evaluate against torch."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

from tests.utils.graphs import infer_op


def test_scaled_dot_product_attention_broadcasts_batch_dims():
    (out,) = infer_op("ScaledDotProductAttention", ((2, 8, -1, 16), "f32"), ((1, 8, 10, 16), "f32"),
                      ((1, 8, 10, 32), "f32"))
    assert out.data.get_shape() == (2, 8, -1, 32) and out.data.get_dtype() == "f32"


RNG = np.random.default_rng(5)
Q = RNG.standard_normal((2, 3, 4, 8)).astype(np.float32)
K = RNG.standard_normal((2, 3, 6, 8)).astype(np.float32)
V = RNG.standard_normal((2, 3, 6, 5)).astype(np.float32)


def _attention(*inputs, **attrs):
    (out,) = infer_op("ScaledDotProductAttention", *inputs, **attrs)
    return out.data.get_value()


@pytest.mark.parametrize("mask", [None, "float", "bool"])
@pytest.mark.parametrize("scale", [None, 0.3])
def test_scaled_dot_product_attention_evaluates_as_torch(mask, scale):
    masks = {None: None, "float": RNG.standard_normal((4, 6)).astype(np.float32),
             "bool": np.tril(np.ones((4, 6), bool), 1)}
    m = masks[mask]
    expected = F.scaled_dot_product_attention(*(torch.from_numpy(t) for t in (Q, K, V)),
                                              attn_mask=None if m is None else torch.from_numpy(m), scale=scale).numpy()
    inputs = [Q, K, V] + ([] if m is None and scale is None else [m if m is not None else np.zeros((4, 6), np.float32)])
    if scale is not None:
        inputs.append(np.float32(scale))
    np.testing.assert_allclose(_attention(*inputs), expected, rtol=1e-5, atol=1e-5)


def test_causal_attention_masks_later_keys_and_ignores_the_mask():
    expected = F.scaled_dot_product_attention(*(torch.from_numpy(t) for t in (Q, K, V)), is_causal=True).numpy()
    np.testing.assert_allclose(_attention(Q, K, V, causal=True), expected, rtol=1e-5, atol=1e-5)
    ignored = _attention(Q, K, V, np.full((4, 6), -5, np.float32), causal=True)
    np.testing.assert_allclose(ignored, expected, rtol=1e-5, atol=1e-5)
