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
