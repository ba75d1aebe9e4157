"""Quantized PyTorch models: eager-mode post-training static quantization (QuantStub / prepare /
calibrate / convert), dynamic quantization, quantize / dequantize calls and fake quantization
(QAT modules), compared with PyTorch within one quantum of the output."""
import re
import warnings

import numpy as np
import pytest
import torch
import torch.ao.quantization as tq
import torch.nn as nn

from mo import convert_model
from tests.utils.runtime import assert_close, run_ir
from tests.utils.torch_models import check_module, convert_torch, torch_outputs

warnings.filterwarnings("ignore", module="torch")
torch.manual_seed(0)


def _quantized(model: nn.Module, example: torch.Tensor, engine: str = "x86", fuse=()) -> nn.Module:
    """``model`` (with QuantStub / DeQuantStub) quantized after calibration on random data."""
    torch.backends.quantized.engine = engine
    model.eval()
    model.qconfig = tq.get_default_qconfig(engine)
    if fuse:
        tq.fuse_modules(model, list(fuse), inplace=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tq.prepare(model, inplace=True)
        with torch.no_grad():
            for _ in range(8):
                model(torch.randn_like(example) * 2)
        tq.convert(model, inplace=True)
    return model


_MODELS: dict = {}


def _model(cls, shape: tuple, engine: str = "x86", fuse=()) -> nn.Module:
    """A quantized ``cls()`` calibrated on inputs of ``shape`` (made once per test session)."""
    key = (cls, shape, engine, tuple(tuple(f) for f in fuse))
    torch.backends.quantized.engine = engine
    if key not in _MODELS:
        torch.manual_seed(0)
        _MODELS[key] = _quantized(cls(), torch.randn(shape), engine, fuse)
    return _MODELS[key]


def _ir_types(xml: str) -> tuple[set, set]:
    text = open(xml).read()
    return set(re.findall(r'type="(\w+)"', text)), set(re.findall(r'element_type="(\w+)"', text))


def _check_quantized(model, inputs, tmp_path, path, quantum: float):
    """Convert, compare within one quantum of the output and check that the IR keeps int8
    weights and quantizes with FakeQuantize."""
    xml = convert_torch(model, inputs, str(tmp_path), path)
    actual = run_ir(xml, [t.numpy() for t in inputs])
    assert_close(actual, torch_outputs(model, inputs), rtol=0, atol=quantum * 1.01)
    return xml


class ConvNet(nn.Module):
    """Conv + ReLU (fused), a residual add of FloatFunctional, max pooling, flatten and Linear."""

    def __init__(self):
        super().__init__()
        self.quant, self.dequant = tq.QuantStub(), tq.DeQuantStub()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1, groups=2)
        self.add = torch.ao.nn.quantized.FloatFunctional()
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(8 * 4 * 4, 6)

    def forward(self, x):
        x = self.quant(x)
        y = self.relu(self.conv(x))
        y = self.add.add(y, self.conv2(y))
        y = self.pool(y).flatten(1)
        return self.dequant(self.fc(y))


class Blocks(nn.Module):
    """Quantized conv1d, transposed conv2d, hardswish, cat, mul, add_relu, batch
    norm, leaky ReLU, sigmoid and ReLU6."""

    def __init__(self):
        super().__init__()
        self.quant, self.dequant = tq.QuantStub(), tq.DeQuantStub()
        self.c1 = nn.Conv1d(4, 4, 3, stride=2, padding=1)
        self.t2 = nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1)
        self.t2.qconfig = tq.default_qconfig     # per-tensor weights: PyTorch has no per-channel ones here
        self.bn = nn.BatchNorm2d(3)
        self.hs = nn.Hardswish()
        self.lrelu = nn.LeakyReLU(0.1)
        self.sig = nn.Sigmoid()
        self.relu6 = nn.ReLU6()
        self.ff_cat, self.ff_mul, self.ff_add = (torch.ao.nn.quantized.FloatFunctional() for _ in range(3))

    def forward(self, x):
        q = self.quant(x)
        seq = self.c1(q.flatten(2))
        up = self.bn(self.t2(q))
        acts = self.ff_cat.cat([self.hs(up), self.lrelu(up), self.sig(up)], dim=1)
        mixed = self.ff_add.add_relu(self.ff_mul.mul(acts, acts), acts)
        return self.dequant(seq), self.dequant(self.relu6(mixed))


class Norms(nn.Module):
    """Quantized layer, group and instance normalization."""

    def __init__(self):
        super().__init__()
        self.quant, self.dequant = tq.QuantStub(), tq.DeQuantStub()
        self.ln = nn.LayerNorm([4, 4])
        self.gn = nn.GroupNorm(2, 4)
        self.inorm = nn.InstanceNorm2d(4, affine=True)

    def forward(self, x):
        q = self.quant(x)
        return self.dequant(self.ln(q)), self.dequant(self.gn(q)), self.dequant(self.inorm(q))


@pytest.mark.parametrize("path", ["trace", "ts_file"])
def test_ptq_norms(tmp_path, path):
    x = torch.randn(2, 4, 4, 4)
    model = _model(Norms, (2, 4, 4, 4))
    xml = convert_torch(model, (x,), str(tmp_path), path)
    actual, expected = run_ir(xml, [x.numpy()]), torch_outputs(model, (x,))
    for a, e, m in zip(actual, expected, (model.ln, model.gn, model.inorm)):
        assert_close([a], [e], rtol=0, atol=1.01 * m.scale)
        assert np.mean(np.isclose(a, e, atol=1e-5)) > 0.8


@pytest.mark.parametrize("path", ["trace", "ts_file"])
@pytest.mark.parametrize("engine", ["x86", "qnnpack"])
def test_ptq_convnet(tmp_path, path, engine):
    x = torch.randn(2, 3, 8, 8)
    model = _model(ConvNet, (2, 3, 8, 8), engine, fuse=[["conv", "relu"]])
    xml = _check_quantized(model, (x,), tmp_path, path, model.fc.scale)
    ops, types = _ir_types(xml)
    assert "FakeQuantize" in ops and "i8" in types


@pytest.mark.parametrize("path", ["trace", "ts_file"])
def test_ptq_blocks(tmp_path, path):
    x = torch.randn(2, 4, 4, 4)
    model = _model(Blocks, (2, 4, 4, 4))
    # the second output passes through several requantizations: a quantum of each may add up
    xml = convert_torch(model, (x,), str(tmp_path), path)
    actual = run_ir(xml, [x.numpy()])
    expected = torch_outputs(model, (x,))
    assert_close(actual[:1], expected[:1], rtol=0, atol=model.c1.scale * 1.01)
    assert_close(actual[1:], expected[1:], rtol=0, atol=3 * model.ff_add.scale)
    assert np.mean(np.isclose(actual[1], expected[1], atol=1e-5)) > 0.9   # most values exact


@pytest.mark.parametrize("form", ["script", "frozen_script", "frozen_trace"])
def test_ptq_scripted(tmp_path, form):
    """A quantized module through torch.jit.script (no types on its values) and frozen (packed
    parameters as constants of the graph)."""
    x = torch.randn(1, 3, 8, 8)
    model = _model(ConvNet, (2, 3, 8, 8), fuse=[["conv", "relu"]])
    scripted = torch.jit.trace(model, x) if form == "frozen_trace" else torch.jit.script(model)
    if form.startswith("frozen"):
        scripted = torch.jit.freeze(scripted.eval())
    xml = convert_model(input_model=scripted, example_input=(x,), output_dir=str(tmp_path),
                        compress_to_fp16=False).xml
    assert_close(run_ir(xml, [x.numpy()]), torch_outputs(model, (x,)), rtol=0, atol=model.fc.scale * 1.01)


@pytest.mark.parametrize("path", ["trace", "ts_file"])
@pytest.mark.parametrize("dtype", [torch.qint8, torch.float16])
def test_dynamic_quantized_linear(tmp_path, path, dtype):
    model = nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        qmodel = tq.quantize_dynamic(model.eval(), {nn.Linear}, dtype=dtype)
    x = torch.randn(3, 16)
    xml = convert_torch(qmodel, (x,), str(tmp_path), path)
    # PyTorch also rounds the input to 8 bits on the fly; the IR computes it in float
    assert_close(run_ir(xml, [x.numpy()]), torch_outputs(qmodel, (x,)), rtol=0.05, atol=0.05)
    assert ("i8" if dtype == torch.qint8 else "f16") in _ir_types(xml)[1]


class QuantizeCalls(nn.Module):
    def __init__(self, dtype, per_channel: bool, tensor_qparams: bool):
        super().__init__()
        self.dtype, self.per_channel, self.tensor_qparams = dtype, per_channel, tensor_qparams

    def forward(self, x):
        if self.per_channel:
            q = torch.quantize_per_channel(x, torch.tensor([0.05, 0.1, 0.2]), torch.tensor([0, 3, -2]), 1, self.dtype)
        elif self.tensor_qparams:
            q = torch.quantize_per_tensor(x, torch.tensor(0.07), torch.tensor(5), self.dtype)
        else:
            q = torch.quantize_per_tensor(x, 0.07, 5, self.dtype)
        return q.dequantize()


@pytest.mark.parametrize("path", ["trace", "ts_file"])
@pytest.mark.parametrize("dtype,per_channel,tensor_qparams", [
    (torch.quint8, False, False), (torch.qint8, False, False), (torch.qint32, False, False),
    (torch.quint8, False, True), (torch.qint8, True, False)])
def test_quantize_dequantize(tmp_path, path, dtype, per_channel, tensor_qparams):
    x = torch.randn(2, 3, 5) * 8
    check_module(QuantizeCalls(dtype, per_channel, tensor_qparams), (x,), tmp_path, path, rtol=0, atol=0.2 * 1.01)


class QuantizedBuffers(nn.Module):
    """Quantized constants of each type (a qint32 bias, per-channel qint8, per-tensor quint8)."""

    def __init__(self):
        super().__init__()
        self.bias = torch.quantize_per_tensor(torch.randn(5), 0.001, 0, torch.qint32)
        self.weight = torch.quantize_per_channel(torch.randn(5, 3), torch.tensor([0.01, 0.02, 0.03, 0.04, 0.05]),
                                                 torch.tensor([0, 1, -1, 2, 0]), 0, torch.qint8)
        self.table = torch.quantize_per_tensor(torch.rand(3), 0.01, 10, torch.quint8)

    def forward(self, x):
        return torch.nn.functional.linear(x * self.table.dequantize(), self.weight.dequantize(),
                                          self.bias.dequantize())


@pytest.mark.parametrize("path", ["trace", "ts_file"])
def test_quantized_constants(tmp_path, path):
    model = QuantizedBuffers()
    x = torch.randn(2, 3)
    xml = convert_torch(model, (x,), str(tmp_path), path)
    assert_close(run_ir(xml, [x.numpy()]), torch_outputs(model, (x,)), rtol=1e-5, atol=1e-5)
    assert {"i32", "i8", "u8"} <= _ir_types(xml)[1]


class Embedding(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(10, 4)

    def forward(self, indices):
        return self.embedding(indices)


@pytest.mark.parametrize("path", ["trace", "ts_file"])
def test_quantized_embedding(tmp_path, path):
    """An nn.Embedding quantized weight-only (float_qparams_weight_only_qconfig): a u8 table."""
    model = Embedding().eval()
    model.embedding.qconfig = tq.float_qparams_weight_only_qconfig
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tq.prepare(model, inplace=True)
        tq.convert(model, inplace=True)
    xml = _check_quantized(model, (torch.tensor([[1, 2], [9, 0]]),), tmp_path, path, 1e-6)
    assert "u8" in _ir_types(xml)[1]


class FakeQuant(nn.Module):
    def __init__(self, kind: str):
        super().__init__()
        self.kind = kind
        self.register_buffer("scale", torch.tensor([0.05]))
        self.register_buffer("zero_point", torch.tensor([3], dtype=torch.int32))
        self.register_buffer("scales", torch.tensor([0.05, 0.1, 0.02]))
        self.register_buffer("zero_points", torch.tensor([0, -4, 7], dtype=torch.int32))

    def forward(self, x):
        if self.kind == "per_tensor":
            return torch.fake_quantize_per_tensor_affine(x, 0.05, 3, -128, 127)
        if self.kind == "per_tensor_tensors":
            return torch.fake_quantize_per_tensor_affine(x, self.scale, self.zero_point, 0, 255)
        return torch.fake_quantize_per_channel_affine(x, self.scales, self.zero_points, 1, -128, 127)


@pytest.mark.parametrize("path", ["export", "trace", "ts_file"])
@pytest.mark.parametrize("kind", ["per_tensor", "per_tensor_tensors", "per_channel"])
def test_fake_quantize(tmp_path, path, kind):
    x = torch.randn(2, 3, 6) * 4
    check_module(FakeQuant(kind), (x,), tmp_path, path, rtol=0, atol=0.1 * 1.01)


class QatNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant, self.dequant = tq.QuantStub(), tq.DeQuantStub()
        self.conv = nn.Conv2d(3, 4, 3)
        self.fc = nn.Linear(4 * 4 * 4, 5)

    def forward(self, x):
        y = torch.relu(self.conv(self.quant(x)))
        return self.dequant(self.fc(y.flatten(1)))


@pytest.mark.parametrize("path", ["export", "trace", "ts_file"])
def test_qat_modules(tmp_path, path):
    """A model prepared for quantization-aware training (FakeQuantize modules) at inference."""
    model = QatNet()
    model.qconfig = tq.get_default_qat_qconfig("x86")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tq.prepare_qat(model.train(), inplace=True)
        for _ in range(4):
            model(torch.randn(2, 3, 6, 6))
    model.eval().apply(tq.disable_observer)     # the observers would move the scales at every call
    x = torch.randn(2, 3, 6, 6)
    xml = convert_torch(model, (x,), str(tmp_path), path)
    quantum = float(model.fc.activation_post_process.scale)
    assert_close(run_ir(xml, [x.numpy()]), torch_outputs(model, (x,)), rtol=0, atol=quantum * 1.01)
    assert "FakeQuantize" in _ir_types(xml)[0]


class CacheMask(nn.Module):
    def forward(self, x):
        per_tensor = torch.ops.aten.fake_quantize_per_tensor_affine_cachemask(x, 0.05, 3, -128, 127)
        per_channel = torch.ops.aten.fake_quantize_per_channel_affine_cachemask(
            x, torch.tensor([0.05, 0.1, 0.02]), torch.tensor([0, 4, 7], dtype=torch.int32), 1, 0, 255)
        return per_tensor[1], per_channel[1], per_channel[0]


@pytest.mark.parametrize("path", ["trace", "ts_file"])
def test_fake_quantize_cachemask(tmp_path, path):
    x = torch.randn(2, 3, 6) * 8
    check_module(CacheMask(), (x,), tmp_path, path, rtol=0, atol=0.1 * 1.01)


class Decomposed(nn.Module):
    """What PT2E quantization (torchao's prepare_pt2e / convert_pt2e) leaves in a program:
    quantize / dequantize pairs on activations and integer weights with a dequantize."""

    def __init__(self):
        super().__init__()
        import torch.ao.quantization.fx._decomposed  # noqa: F401 (registers the ops)
        w = torch.randn(4, 3)
        scales = w.abs().amax(1) / 127
        self.register_buffer("wq", torch.ops.quantized_decomposed.quantize_per_channel(
            w, scales, torch.zeros(4, dtype=torch.int64), 0, -127, 127, torch.int8))
        self.register_buffer("ws", scales)

    def forward(self, x):
        ops = torch.ops.quantized_decomposed
        q = ops.quantize_per_tensor(x, 0.05, 128, 0, 255, torch.uint8)
        xd = ops.dequantize_per_tensor(q, 0.05, 128, 0, 255, torch.uint8)
        wd = ops.dequantize_per_channel(self.wq, self.ws, torch.zeros(4, dtype=torch.int64), 0, -127, 127, torch.int8)
        return torch.nn.functional.linear(xd, wd), q


@pytest.mark.parametrize("path", ["export", "trace"])
def test_quantized_decomposed(tmp_path, path):
    x = torch.randn(2, 3) * 3
    model = Decomposed()
    xml = convert_torch(model, (x,), str(tmp_path), path)
    actual, expected = run_ir(xml, [x.numpy()]), torch_outputs(model, (x,))
    assert_close(actual[:1], expected[:1], rtol=0, atol=0.05 * float(model.ws.max()) * 3 * 4)
    assert actual[1].dtype == np.uint8 and np.abs(actual[1].astype(int) - expected[1].astype(int)).max() <= 1
    ops, types = _ir_types(xml)
    assert "FakeQuantize" in ops and "i8" in types


class NegativeScales(nn.Module):
    """Fake quantization with negative scales (a mirrored grid) and zero points at the grid's
    edge, per tensor and per channel (issue 21: values were off)."""

    def forward(self, x):
        return torch.fake_quantize_per_tensor_affine(x, -0.01, 0, 0, 255), \
            torch.fake_quantize_per_tensor_affine(x, 0.5, -1, -128, 127), \
            torch.fake_quantize_per_channel_affine(x, torch.tensor([1.5, -0.7, -0.1]),
                                                   torch.tensor([1, 0, -1], dtype=torch.int32), 0, -128, 127), \
            torch.fake_quantize_per_channel_affine(x, torch.tensor([-0.005, 0.7]),
                                                   torch.tensor([0, 1], dtype=torch.int32), 1, 0, 127)


@pytest.mark.parametrize("path", ["export", "trace", "ts_file"])
def test_fake_quantize_negative_scales(tmp_path, path):
    check_module(NegativeScales(), (torch.randn(3, 2, 2) * 2,), tmp_path, path)
