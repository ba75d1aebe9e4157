"""--validate_layers: a transformer encoder and a CNN of each framework (ONNX exported by torch,
TensorFlow frozen from Keras, PyTorch as an exported module and as a TorchScript file), converted
correctly (every compared tensor passes) and with a wrong translator given through --extensions
(GELU with a wrong constant, a convolution with its padding swapped): the tool names that node
first, with the translator's file."""
from __future__ import annotations

import csv

import pytest

from mo import convert_model
from mo.runtime import layers
from mo.runtime.validate import ValidationFailed
from tests.e2e.test_cli import run_mo

WRONG = '''
"""Deliberately wrong translators: GELU with a wrong constant, convolutions with their padding
swapped (begin <-> end, SAME_UPPER <-> SAME_LOWER)."""
from extensions.front.onnx.conv import conv as onnx_conv
from extensions.front.pytorch.conv import conv as aten_conv
from extensions.front.tf.conv import conv as tf_conv
from extensions.load.pytorch.arguments import aten
from mo.front.translator import translator

SWAPPED = {"same_upper": "same_lower", "same_lower": "same_upper"}


def swapped_padding(port):
    conv = port.node
    while conv.op not in ("Convolution", "GroupConvolution"):
        conv = conv.in_port(0).get_source().node
    if conv.auto_pad in SWAPPED:
        conv.auto_pad = SWAPPED[conv.auto_pad]
    else:
        conv.pads_begin, conv.pads_end = conv.pads_end, conv.pads_begin
    return port


def wrong_gelu(b, x):
    """x * sigmoid(1.5 x): the sigmoid form of GELU with 1.5 for 1.702."""
    return b.Multiply(x, b.Sigmoid(b.Multiply(x, 1.5)))


@translator("onnx", "Gelu")
def onnx_gelu(node, b):
    return [wrong_gelu(b, node.in_port(0).get_source())]


@aten("aten::gelu")
def torch_gelu(node, a, b):
    return [wrong_gelu(b, a.tensor(0))]


@translator("tf", "Erfc")
def tf_erfc(node, b):
    """1 - erf(1.1 x) (Keras' GELU is 0.5 x erfc(-x / sqrt(2)))."""
    x = node.in_port(0).get_source()
    return [b.Subtract(1.0, b.Erf(b.Multiply(x, 1.1)))]


@translator("onnx", "Conv")
def onnx_conv_swapped(node, b):
    return [swapped_padding(onnx_conv(node, b)[0])]


@translator("tf", "Conv2D")
def tf_conv_swapped(node, b):
    return [swapped_padding(tf_conv(node, b)[0])]


@aten("aten::conv2d", "aten::_convolution_mode")
def aten_conv_swapped(node, a, b):
    return [swapped_padding(aten_conv(node, b)[0])]
'''

# the node the wrong translator makes wrong: framework op of the first one in topological order
WRONG_OP = {("onnx", "encoder"): "Gelu", ("onnx", "cnn"): "Conv", ("tf", "encoder"): "Erfc",
            ("tf", "cnn"): "Conv2D", ("pytorch", "encoder"): "aten::gelu", ("pytorch", "cnn"): "aten::conv2d",
            ("torchscript", "cnn"): "aten::_convolution_mode"}


@pytest.fixture(scope="module")
def wrong(tmp_path_factory):
    path = tmp_path_factory.mktemp("ext") / "wrong_translators.py"
    path.write_text(WRONG)
    return str(path)


def torch_encoder():
    """One pre-built encoder block (self-attention, LayerNorm, GELU feed-forward) and a linear
    head, written out so that no fused fast path of torch.nn.TransformerEncoderLayer runs."""
    import torch
    import torch.nn.functional as F

    class Encoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv, self.out = torch.nn.Linear(32, 96), torch.nn.Linear(32, 32)
            self.norm1, self.norm2 = torch.nn.LayerNorm(32), torch.nn.LayerNorm(32)
            self.up, self.down, self.head = torch.nn.Linear(32, 64), torch.nn.Linear(64, 32), torch.nn.Linear(32, 8)

        def forward(self, x):
            batch, tokens, width = x.shape
            q, k, v = self.qkv(x).reshape(batch, tokens, 3, 4, 8).permute(2, 0, 3, 1, 4).unbind(0)
            attention = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(batch, tokens, width)
            x = self.norm1(x + self.out(attention))
            x = self.norm2(x + self.down(F.gelu(self.up(x))))
            return self.head(x)
    torch.manual_seed(0)
    return Encoder().eval(), torch.randn(1, 6, 32)


def torch_cnn():
    """A 4x4 'same' convolution (its padding is asymmetric: 1 before, 2 after), a strided one
    followed by BatchNorm (folded into its weights), GELU, pooling and a linear head."""
    import torch

    from tests.utils.onnx_zoo import randomize_batchnorm
    torch.manual_seed(0)
    module = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 4, padding="same"), torch.nn.ReLU(),
        torch.nn.Conv2d(8, 8, 3, stride=2, padding=1), torch.nn.BatchNorm2d(8), torch.nn.GELU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(8, 4))
    return randomize_batchnorm(module), torch.randn(1, 3, 16, 16)


def keras_encoder():
    import keras
    keras.utils.set_random_seed(0)
    inputs = keras.Input((6, 32))
    attention = keras.layers.MultiHeadAttention(num_heads=4, key_dim=8)(inputs, inputs)
    x = keras.layers.LayerNormalization()(inputs + attention)
    hidden = keras.layers.Dense(64, activation="gelu")(x)
    outputs = keras.layers.LayerNormalization()(x + keras.layers.Dense(32)(hidden))
    return keras.Model(inputs, outputs), (1, 6, 32)


def keras_cnn():
    """A 4x4 SAME convolution (padding 1 before, 2 after), a strided SAME one (0 before, 1 after)
    with BatchNorm, pooling and a dense head; random biases and BatchNorm statistics."""
    import keras

    from tests.e2e.test_tf_models import randomise_batch_norms
    keras.utils.set_random_seed(0)
    inputs = keras.Input((16, 16, 3))
    x = keras.layers.Conv2D(8, 4, padding="same", activation="relu", bias_initializer="random_normal")(inputs)
    x = keras.layers.Conv2D(8, 3, strides=2, padding="same", bias_initializer="random_normal")(x)
    x = keras.layers.ReLU()(keras.layers.BatchNormalization()(x))
    outputs = keras.layers.Dense(4)(keras.layers.GlobalAveragePooling2D()(x))
    model = keras.Model(inputs, outputs)
    randomise_batch_norms(model)
    return model, (1, 16, 16, 3)


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """{(framework, model): (what convert_model takes, its keyword arguments)}."""
    import tensorflow as tf
    import torch

    from tests.utils.onnx_zoo import export
    from tests.utils.tf_models import freeze, write_pb
    folder = tmp_path_factory.mktemp("models")
    made = {}
    for name, build, opset in (("encoder", torch_encoder, 20), ("cnn", torch_cnn, 17)):
        module, example = build()
        path = str(folder / f"{name}.onnx")
        export(module, (example,), path, ["x"], {}, opset=opset)    # opset 20: GELU is one node
        made[("onnx", name)] = (path, {})
        made[("pytorch", name)] = (module, {"example_input": example})
    module, example = torch_cnn()
    path = str(folder / "cnn.pt")
    torch.jit.save(torch.jit.trace(module, example), path)
    made[("torchscript", "cnn")] = (path, {"input": "input[1,3,16,16]"})
    for name, build in (("encoder", keras_encoder), ("cnn", keras_cnn)):
        model, shape = build()
        spec = tf.TensorSpec(shape, tf.float32, name="x")
        made[("tf", name)] = (write_pb(freeze(lambda x, m=model: m(x, training=False), [spec]),
                                       folder / f"{name}.pb"), {})
    return made


CASES = sorted(WRONG_OP)


@pytest.mark.parametrize("case", CASES, ids=["-".join(c) for c in CASES])
def test_correct_model_every_tensor_within_tolerance(models, case):
    model, options = models[case]
    report = convert_model(model, validate_layers=True, compress_to_fp16=False, **options).validation
    found = report.layers
    assert report.passed and found.passed and not found.first
    assert len(found.rows) >= 5 and found.total >= len(found.rows)
    assert all(r.checks["f32"].passed and r.checks["f32"].max_rel < 1e-4 for r in found.rows)
    assert [r.index for r in found.rows] == list(range(1, len(found.rows) + 1))
    if case == ("tf", "encoder"):   # Dense: the IR's MatMul keeps the 2-D Tensordot's name on its 3-D output
        assert any("compared reshaped" in r.checks["f32"].note for r in found.rows)


@pytest.mark.parametrize("case", CASES, ids=["-".join(c) for c in CASES])
def test_wrong_translator_is_named_first(models, case, wrong):
    model, options = models[case]
    with pytest.raises(ValidationFailed) as failure:
        convert_model(model, validate_layers=True, compress_to_fp16=False, extensions=wrong, **options)
    found = failure.value.report.layers
    first = found.first["f32"]
    assert first.row.tensor.op == WRONG_OP[case], [(r.tensor.name, r.tensor.op, r.checks["f32"].passed)
                                                   for r in found.rows]
    assert "wrong_translators.py" in first.translator
    assert all(r.checks["f32"].passed for r in found.rows[:first.row.index - 1])
    assert first.ir_ops and not first.row.checks["f32"].passed
    assert "--validate_layers: the first tensor beyond the tolerance is" in str(failure.value)


def test_first_in_a_channels_last_model_is_compared_in_its_layout(models, wrong):
    """The TensorFlow CNN's first convolution: the IR keeps it channels-first (the layout step
    removed its Transposes), the report compares it transposed back and says so."""
    model, _ = models[("tf", "cnn")]
    with pytest.raises(ValidationFailed) as failure:
        convert_model(model, validate_layers=True, compress_to_fp16=False, extensions=wrong)
    first = failure.value.report.layers.first["f32"]
    assert first.row.counterpart.perm == (0, 2, 3, 1) and first.row.fw_shape == (1, 16, 16, 8)
    assert first.row.ir_shape == (1, 8, 16, 16) and "Convolution" in " ".join(first.ir_ops)
    assert "another dimension order" in "\n".join(failure.value.report.layers.lines())


def test_cli_report_table_csv_and_exit_status(models, wrong, tmp_path):
    path, _ = models[("onnx", "encoder")]
    table = tmp_path / "layers.csv"
    args = (path, "-o", str(tmp_path / "ir"), "--validate_layers", "--compress_to_fp16=False")
    r = run_mo(*args, "--report", "--validate_layers_csv", str(table))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "PASS at f32: every compared tensor within the tolerance 0.0001" in r.stdout
    rows = list(csv.DictReader(table.open()))
    assert rows and all(row["passed_f32"] == "1" for row in rows)
    assert sum(line.endswith("PASS") and "aten" not in line for line in r.stdout.splitlines()) >= len(rows)
    r = run_mo(*args, "--extensions", wrong)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "  made by      onnx Gelu node '/Gelu'" in r.stdout, r.stdout
    assert "  translator   onnx_gelu (" in r.stdout and "wrong_translators.py" in r.stdout
    assert "  extractor    GeluExtractor (" in r.stdout
    assert "--validate_layers: the first tensor beyond the tolerance is '/Gelu_output_0'" in r.stderr
    assert "Traceback" not in r.stderr


def test_precision_run_tells_precision_from_conversion(models, wrong):
    """--validate_precision bf16: each tensor is compared at f32 and at bf16; the wrong GELU is
    beyond the tolerance at f32 too (the conversion), rounding differences are not."""
    model, options = models[("onnx", "encoder")]
    report = convert_model(model, validate_layers=True, validate_precision="bf16", compress_to_fp16=False).validation
    assert report.precision == "bf16" and report.layers.precisions == ["f32", "bf16"]
    assert all(r.checks["f32"].passed for r in report.layers.rows)
    assert any(r.checks["bf16"].max_abs > r.checks["f32"].max_abs for r in report.layers.rows)
    with pytest.raises(ValidationFailed) as failure:
        convert_model(model, validate_layers=True, validate_precision="bf16", compress_to_fp16=False,
                      extensions=wrong)
    found = failure.value.report.layers
    assert found.first["f32"].row.tensor.op == "Gelu"
    for first in found.first.values():
        if first.precision == "bf16" and first.at_f32.passed:
            assert "an effect of bf16 precision" in "\n".join(found.lines())


def test_chunks_give_the_same_rows(models, monkeypatch):
    model, _ = models[("pytorch", "encoder")]
    whole = convert_model(model, example_input=models[("pytorch", "encoder")][1]["example_input"],
                          validate_layers=True, compress_to_fp16=False).validation.layers
    monkeypatch.setattr(layers, "CHUNK_BYTES", 2048)
    chunked = convert_model(model, example_input=models[("pytorch", "encoder")][1]["example_input"],
                            validate_layers=True, compress_to_fp16=False).validation.layers
    assert chunked.chunks > 5 and whole.chunks == 1
    assert [(r.tensor.name, r.checks["f32"].max_abs) for r in chunked.rows] == \
        [(r.tensor.name, r.checks["f32"].max_abs) for r in whole.rows]


@pytest.mark.parametrize("sizes, budget, groups", [
    ([1, 1, 1], 2, [[0, 1], [2]]),
    ([5, 1, 1], 2, [[0], [1, 2]]),
    ([], 2, []),
])
def test_chunks(sizes, budget, groups):
    assert layers.chunks(sizes, budget) == groups


def test_decoder_with_its_cache_is_refused_with_what_to_do():
    from mo.errors import OptionError
    from tests.e2e.test_llm_stateful import decoder
    with pytest.raises(OptionError, match="does not compare transformers decoders converted with their cache"):
        convert_model(decoder("gpt2"), validate_layers=True)
