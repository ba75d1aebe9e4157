"""Quantized ONNX models as deployers make them: float networks from torch.nn / transformers with
random weights (realistic BatchNorm statistics), exported to ONNX and quantized by ONNX Runtime
(static QDQ or QOperator, u8 activations and per-channel i8 weights; or dynamic). Shared by the
quantization tests and ``benchmarks/quantized_models.py``."""
from __future__ import annotations

import numpy as np

from tests.utils.onnx_zoo import export, randomize_batchnorm
from tests.utils.runtime import execution_precisions, int8_layers


def mobilenet_v2(width: float = 1.0, classes: int = 1000):
    """MobileNetV2 from torch.nn (inverted residual blocks, ReLU6, depthwise convolutions)."""
    import torch
    from torch import nn

    def conv_bn(cin, cout, k, stride=1, groups=1, relu=True):
        layers = [nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False), nn.BatchNorm2d(cout)]
        return layers + [nn.ReLU6()] if relu else layers

    class InvertedResidual(nn.Module):
        def __init__(self, cin, cout, stride, expand):
            super().__init__()
            hidden = cin * expand
            layers = conv_bn(cin, hidden, 1) if expand != 1 else []
            layers += conv_bn(hidden, hidden, 3, stride, groups=hidden) + conv_bn(hidden, cout, 1, relu=False)
            self.body = nn.Sequential(*layers)
            self.residual = stride == 1 and cin == cout

        def forward(self, x):
            return x + self.body(x) if self.residual else self.body(x)

    def ch(c):
        return max(8, int(c * width + 4) // 8 * 8)

    layers, cin = conv_bn(3, ch(32), 3, 2), ch(32)
    for t, c, n, s in ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                       (6, 320, 1, 1)):
        for i in range(n):
            layers.append(InvertedResidual(cin, ch(c), s if i == 0 else 1, t))
            cin = ch(c)
    last = max(1280, ch(1280)) if width > 1 else 1280
    layers += conv_bn(cin, last, 1)
    torch.manual_seed(0)
    return randomize_batchnorm(nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(last, classes)))


def small_cnn():
    """A small CNN with what quantized CNNs have: convolution + BatchNorm + ReLU, a strided and a
    depthwise convolution, a residual Add, global pooling and a linear head."""
    import torch
    from torch import nn

    class SmallCNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1, self.b1 = nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16)
            self.c2 = nn.Conv2d(16, 32, 3, padding=1, stride=2)
            self.c3 = nn.Conv2d(32, 32, 3, padding=1, groups=32)
            self.fc = nn.Linear(32, 10)

        def forward(self, x):
            x = torch.relu(self.b1(self.c1(x)))
            x = torch.relu(self.c2(x))
            x = torch.relu(self.c3(x)) + x
            return self.fc(torch.flatten(torch.nn.functional.adaptive_avg_pool2d(x, 1), 1))

    torch.manual_seed(0)
    return randomize_batchnorm(SmallCNN())


def export_image_model(module, path: str, size: int = 224) -> np.ndarray:
    """Export with a dynamic batch; returns a calibration/test batch [1, 3, size, size]."""
    import torch
    export(module, (torch.randn(1, 3, size, size),), path, ["input"], {"input": {0: "batch"}}, opset=13)
    return np.random.default_rng(0).standard_normal((1, 3, size, size)).astype(np.float32)


def export_bert(path: str, hidden: int = 768, layers: int = 12, heads: int = 12, seq: int = 128,
                vocab: int = 30522) -> dict[str, np.ndarray]:
    """transformers BertModel with random weights (first output), inputs input_ids and
    attention_mask, dynamic batch and sequence; returns a feed of batch 1 and ``seq`` tokens."""
    import torch
    import transformers

    config = transformers.BertConfig(vocab_size=vocab, hidden_size=hidden, num_hidden_layers=layers,
                                     num_attention_heads=heads, intermediate_size=4 * hidden,
                                     max_position_embeddings=max(512, seq))
    torch.manual_seed(0)
    model = transformers.BertModel(config, add_pooling_layer=False).eval()

    class FirstOutput(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask):
            return self.inner(input_ids=input_ids, attention_mask=attention_mask)[0]

    ids = torch.randint(0, vocab, (1, seq))
    export(FirstOutput(model), (ids, torch.ones_like(ids)), path, ["input_ids", "attention_mask"],
           {"input_ids": {0: "b", 1: "s"}, "attention_mask": {0: "b", 1: "s"}})
    rng = np.random.default_rng(1)
    return {"input_ids": rng.integers(0, vocab, (1, seq)).astype(np.int64),
            "attention_mask": np.ones((1, seq), np.int64)}


def torch_static_fx(module, example: tuple):
    """PyTorch static quantization in FX graph mode (x86 backend: quantized:: ops on quint8 / qint8
    tensors), calibrated on ``example``."""
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx
    prepared = prepare_fx(module.eval(), get_default_qconfig_mapping("x86"), example)
    prepared(*example)
    return convert_fx(prepared)


def torch_qat_fx(module, example: tuple):
    """PyTorch quantization-aware training's model (x86 default: activations fake-quantized onto
    0..127, per-channel weights; conv + BatchNorm fused), after a training step, observers off,
    in eval mode: fake_quantize ops in the traced graph."""
    import torch
    from torch.ao.quantization import get_default_qat_qconfig_mapping
    from torch.ao.quantization.quantize_fx import prepare_qat_fx
    prepared = prepare_qat_fx(module.train(), get_default_qat_qconfig_mapping("x86"), example)
    prepared(*example)
    prepared.apply(torch.ao.quantization.disable_observer)
    return prepared.eval()


def torch_pt2e(module, example: tuple):
    """PT2E static quantization (torchao's X86InductorQuantizer on an exported graph): an
    ExportedProgram with quantize / dequantize ops around each quantized op."""
    import torch
    import torchao.quantization.pt2e.quantizer.x86_inductor_quantizer as x86
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    quantizer = x86.X86InductorQuantizer()
    quantizer.set_global(x86.get_default_x86_inductor_quantization_config())
    prepared = prepare_pt2e(torch.export.export(module.eval(), example).module(), quantizer)
    prepared(*example)
    return torch.export.export(convert_pt2e(prepared), example)


def quantize_static(src: str, dst: str, feeds: list[dict[str, np.ndarray]], fmt: str = "QDQ",
                    per_channel: bool = True, activation: str = "QUInt8", weight: str = "QInt8", **options) -> None:
    """ONNX Runtime's static quantization calibrated on ``feeds`` (MinMax)."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType
    from onnxruntime.quantization import quantize_static as ort_quantize_static

    class Feeds(CalibrationDataReader):
        def __init__(self):
            self.items = iter(feeds)

        def get_next(self):
            return next(self.items, None)

    ort_quantize_static(src, dst, Feeds(), quant_format=getattr(QuantFormat, fmt), per_channel=per_channel,
                        activation_type=getattr(QuantType, activation), weight_type=getattr(QuantType, weight),
                        **options)


def quantize_dynamic(src: str, dst: str, per_channel: bool = True, weight: str = "QInt8", **options) -> None:
    """ONNX Runtime's dynamic quantization (MatMulInteger / ConvInteger with DynamicQuantizeLinear)."""
    from onnxruntime.quantization import QuantType
    from onnxruntime.quantization import quantize_dynamic as ort_quantize_dynamic
    ort_quantize_dynamic(src, dst, per_channel=per_channel, weight_type=getattr(QuantType, weight), **options)


def assert_quantized_close(actual: np.ndarray, expected: np.ndarray, steps: float = 3) -> None:
    """Within ``steps`` quantization steps of an 8-bit grid over the expected output's range."""
    step = max(float(np.ptp(expected)), 1e-6) / 255
    diff = float(np.max(np.abs(actual.astype(np.float64) - expected)))
    assert diff <= steps * step, f"max |diff| {diff:.3g} > {steps} steps of {step:.3g}"


def assert_runs_int8(mo_xml: str, ovc_xml: str | None) -> tuple[int, int]:
    """mo's IR runs at least as many convolution/matrix layers in int8 as OpenVINO's converter's
    IR (None: OpenVINO cannot convert the model); returns mo's (int8, all)."""
    low, total = int8_layers(execution_precisions(mo_xml))
    ovc_low = 0 if ovc_xml is None else int8_layers(execution_precisions(ovc_xml))[0]
    assert total > 0 and low >= ovc_low, (execution_precisions(mo_xml), ovc_xml and execution_precisions(ovc_xml))
    return low, total
