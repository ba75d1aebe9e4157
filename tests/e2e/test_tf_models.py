"""End-to-end: whole Keras models (random weights, randomised BatchNorm statistics) converted
through the command line from a frozen GraphDef and from a SavedModel, run in the OpenVINO
runtime and compared with TensorFlow: max |diff| <= 1e-4 * max |TensorFlow output|.

The keras.applications CNNs are NHWC: the IR must keep NHWC inputs and outputs and have no more
Transposes than OpenVINO's own converter (ovc) leaves in them (one each: after the input)."""
import os
import subprocess
import sys

import keras
import numpy as np
import pytest
import tensorflow as tf

from tests.utils.runtime import run_ir
from tests.utils.tf_models import freeze, ir_op_types, write_pb

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
APPS = keras.applications
# name -> (constructor, input size, Transposes ovc leaves in the IR)
CNNS = {
    "MobileNetV2": (APPS.MobileNetV2, 32, 1),
    "ResNet50": (APPS.ResNet50, 32, 1),
    "EfficientNetB0": (APPS.EfficientNetB0, 32, 1),
    "InceptionV3": (APPS.InceptionV3, 75, 1),
    "DenseNet121": (APPS.DenseNet121, 32, 1),
}


def randomise_batch_norms(model, seed: int = 0) -> None:
    """Realistic BatchNorm statistics instead of the initial zeros and ones."""
    rng = np.random.default_rng(seed)
    for layer in model.layers:
        if isinstance(layer, keras.layers.BatchNormalization):
            c = layer.moving_mean.shape[0]
            layer.moving_mean.assign(rng.normal(0, 0.2, c).astype(np.float32))
            layer.moving_variance.assign(rng.uniform(0.5, 1.5, c).astype(np.float32))
            if layer.gamma is not None:
                layer.gamma.assign(rng.uniform(0.5, 1.5, c).astype(np.float32))
            if layer.beta is not None:
                layer.beta.assign(rng.normal(0, 0.2, c).astype(np.float32))


def run_mo(*args) -> None:
    result = subprocess.run([sys.executable, os.path.join(ROOT, "mo.py"), "--compress_to_fp16=False", *args],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def frozen_pb(model, spec, path) -> str:
    return write_pb(freeze(lambda x: model(x, training=False), [spec]), path)


def assert_matches(xml: str, inputs: list[np.ndarray], expected: np.ndarray) -> float:
    out = run_ir(xml, inputs)[0]
    assert out.shape == expected.shape
    ratio = float(np.abs(out - expected).max() / np.abs(expected).max())
    assert ratio <= 1e-4, f"max |diff| is {ratio:.2e} of max |output|"
    return ratio


@pytest.mark.parametrize("name", sorted(CNNS))
def test_keras_application(tmp_path, name):
    make, size, ovc_transposes = CNNS[name]
    model = make(weights=None, input_shape=(size, size, 3), classifier_activation=None)
    randomise_batch_norms(model)
    x = np.random.default_rng(1).uniform(-1, 1, (2, size, size, 3)).astype(np.float32)
    expected = model(x, training=False).numpy()

    pb = frozen_pb(model, tf.TensorSpec((None, size, size, 3), tf.float32, name="image"), tmp_path / f"{name}.pb")
    run_mo("--input_model", pb, "--output_dir", str(tmp_path / "pb"))
    saved = str(tmp_path / "saved_model")
    model.export(saved, verbose=False)
    run_mo("--saved_model_dir", saved, "--output_dir", str(tmp_path / "sm"), "--model_name", name)

    for xml in (str(tmp_path / "pb" / f"{name}.xml"), str(tmp_path / "sm" / f"{name}.xml")):
        assert_matches(xml, [x], expected)
        types = ir_op_types(xml)
        assert types.count("Transpose") <= ovc_transposes, f"{xml}: {types.count('Transpose')} Transposes"


@pytest.mark.parametrize("cell", ["LSTM", "GRU"])
def test_keras_recurrent_text_model(tmp_path, cell):
    layer = getattr(keras.layers, cell)
    tokens = keras.Input((9,), dtype="int32")
    h = keras.layers.Embedding(100, 16)(tokens)
    h = layer(24, return_sequences=True)(h)
    h = layer(12, go_backwards=True)(h)
    model = keras.Model(tokens, keras.layers.Dense(4)(h))
    x = np.random.default_rng(2).integers(0, 100, (3, 9)).astype(np.int32)
    expected = model(x, training=False).numpy()
    pb = frozen_pb(model, tf.TensorSpec((None, 9), tf.int32, name="tokens"), tmp_path / "text.pb")
    run_mo("--input_model", pb, "--output_dir", str(tmp_path / "ir"))
    xml = str(tmp_path / "ir" / "text.xml")
    assert_matches(xml, [x], expected)
    types = ir_op_types(xml)
    assert "Loop" in types and "Transpose" not in types   # the loops slice the batch-major sequences


def test_keras_transformer_block(tmp_path):
    inputs = keras.Input((10, 32))
    attention = keras.layers.MultiHeadAttention(num_heads=4, key_dim=8)(inputs, inputs)
    h = keras.layers.LayerNormalization(epsilon=1e-6)(inputs + attention)
    ffn = keras.layers.Dense(32)(keras.layers.Dense(64, activation="gelu")(h))
    model = keras.Model(inputs, keras.layers.LayerNormalization(epsilon=1e-6)(h + ffn))
    x = np.random.default_rng(3).normal(size=(2, 10, 32)).astype(np.float32)
    expected = model(x, training=False).numpy()
    pb = frozen_pb(model, tf.TensorSpec((None, 10, 32), tf.float32, name="tokens"), tmp_path / "block.pb")
    run_mo("--input_model", pb, "--output_dir", str(tmp_path / "ir"))
    assert_matches(str(tmp_path / "ir" / "block.xml"), [x], expected)


def small_unet(size: int = 32):
    """Two down and two up levels: Conv2DTranspose upsampling and Concatenate skip connections."""
    layers = keras.layers
    inp = keras.Input((size, size, 3))
    c1 = layers.Conv2D(8, 3, padding="same", activation="relu")(inp)
    c2 = layers.Conv2D(16, 3, padding="same", activation="relu")(layers.MaxPooling2D()(c1))
    bottom = layers.Conv2D(32, 3, padding="same", activation="relu")(layers.MaxPooling2D()(c2))
    up2 = layers.Concatenate()([layers.Conv2DTranspose(16, 2, strides=2, padding="same")(bottom), c2])
    c3 = layers.Conv2D(16, 3, padding="same", activation="relu")(up2)
    up1 = layers.Concatenate()([layers.Conv2DTranspose(8, 2, strides=2, padding="valid")(c3), c1])
    c4 = layers.Conv2D(8, 3, padding="same", activation="relu")(up1)
    return keras.Model(inp, layers.Conv2D(2, 1)(c4))


def test_unet_keeps_only_the_input_and_output_transposes(tmp_path):
    """The NHWC U-Net's skip connections and transposed convolutions stay in NCHW inside: one
    Transpose after the input and one before the output (the legacy Model Optimizer's count)."""
    model = small_unet()
    x = np.random.default_rng(2).uniform(-1, 1, (2, 32, 32, 3)).astype(np.float32)
    pb = frozen_pb(model, tf.TensorSpec((None, 32, 32, 3), tf.float32, name="image"), tmp_path / "unet.pb")
    run_mo("--input_model", pb, "--output_dir", str(tmp_path))
    xml = str(tmp_path / "unet.xml")
    assert_matches(xml, [x], model(x, training=False).numpy())
    assert ir_op_types(xml).count("Transpose") <= 2


class GroupedQueryAttention(keras.layers.Layer):
    """Self-attention as keras-hub's Llama writes it: rotary embeddings from the sequence length
    (a [1, seq, 1, dim] table reshaped to computed dims, whose 1 shape inference loses), keys
    and values repeated per query head (ops.repeat: a Reshape to the key's own computed shape),
    causal and padding masks merged and broadcast over heads, softmax through ops.where."""

    def __init__(self, heads: int = 4, kv_heads: int = 2, head_dim: int = 8, **kwargs):
        super().__init__(**kwargs)
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, head_dim

    def build(self, input_shape):
        width = input_shape[-1]
        self.query = keras.layers.EinsumDense("bsw,whd->bshd", (None, self.heads, self.head_dim))
        self.key = keras.layers.EinsumDense("bsw,whd->bshd", (None, self.kv_heads, self.head_dim))
        self.value = keras.layers.EinsumDense("bsw,whd->bshd", (None, self.kv_heads, self.head_dim))
        self.out = keras.layers.EinsumDense("bshd,hdw->bsw", (None, width))
        for layer in (self.query, self.key, self.value):
            layer.build(input_shape)
        self.out.build((None, None, self.heads, self.head_dim))

    def _rotary(self, x):
        ops = keras.ops
        positions = ops.expand_dims(ops.arange(ops.shape(x)[1], dtype="float32"), 0)
        inverse = 1.0 / 10000.0 ** (ops.arange(0, self.head_dim, 2, dtype="float32") / self.head_dim)
        freq = ops.einsum("bi,j->bij", positions, inverse)
        table = ops.reshape(ops.stack((freq, freq), axis=-2), (*ops.shape(freq)[:-1], ops.shape(freq)[-1] * 2))
        table = ops.expand_dims(table, 2)
        x1, x2 = ops.split(x, 2, axis=-1)
        half = ops.reshape(ops.stack((-x2, x1), axis=-2), ops.shape(x))
        return x * ops.cos(table) + half * ops.sin(table)

    def call(self, x, padding_mask):
        ops = keras.ops
        q, k, v = self._rotary(self.query(x)), self._rotary(self.key(x)), self.value(x)
        k = ops.repeat(k, self.heads // self.kv_heads, axis=2)
        v = ops.repeat(v, self.heads // self.kv_heads, axis=2)
        scores = ops.einsum("bqhd,bkhd->bhqk", q, k) / self.head_dim ** 0.5
        length = ops.shape(x)[1]
        causal = ops.cast(ops.arange(length)[:, None] >= ops.arange(length)[None, :], "int32")
        mask = ops.minimum(ops.expand_dims(padding_mask, 1), causal[None])
        scores = ops.where(mask[:, None] > 0, scores, -1e9)
        return self.out(ops.einsum("bhqk,bkhd->bqhd", ops.softmax(scores, axis=-1), v))


def test_grouped_query_attention_with_dynamic_batch_and_length(tmp_path):
    """A SavedModel of a Llama-like decoder layer (model.export(): batch and length dynamic) runs
    at two batch sizes and lengths. The repeated keys' Reshape used to get a batch of 1 frozen
    into its target (the rotary table's 1 taken for the product's batch): any other batch
    failed in the attention's Select ("Argument shapes are inconsistent")."""
    keras.utils.set_random_seed(0)
    tokens = keras.Input((None,), dtype="int32", name="token_ids")
    padding = keras.Input((None,), dtype="int32", name="padding_mask")
    h = keras.layers.Embedding(50, 32)(tokens)
    h = h + GroupedQueryAttention()(keras.layers.LayerNormalization()(h), padding)
    model = keras.Model([tokens, padding], keras.layers.Dense(8)(h))
    saved = str(tmp_path / "saved_model")
    model.export(saved, verbose=False)
    run_mo("--saved_model_dir", saved, "--output_dir", str(tmp_path), "--model_name", "gqa")
    rng = np.random.default_rng(4)
    for batch, length in ((2, 5), (3, 9)):
        ids = rng.integers(0, 50, (batch, length)).astype(np.int32)
        mask = np.ones((batch, length), np.int32)
        mask[1, length - 2:] = 0
        expected = model([ids, mask], training=False).numpy()
        out = run_ir(str(tmp_path / "gqa.xml"), {"token_ids": ids, "padding_mask": mask})[0]
        np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4 * float(np.abs(expected).max()))
