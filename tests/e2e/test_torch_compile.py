"""torch.compile(model, backend="mo"): outputs match eager PyTorch, unsupported operations fall
back to PyTorch (or are an error), dynamic dimensions, and the IR cache across processes."""
import copy
import logging
import os
import subprocess
import sys
import warnings

import pytest
import torch

from mo.torch_backend import mo_backend
from tests.e2e.test_pytorch_models import _bert, _gpt2, _vit, _with_statistics  # the tiny random models
from tests.utils.runtime import assert_close
from tests.utils.torch_custom_op import OP_NAME, untranslated

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
F32 = {"inference_precision": "f32"}

if "mo" not in torch._dynamo.list_backends(exclude_tags=()):   # before `pip install` declares the entry point
    torch._dynamo.register_backend(mo_backend, "mo")


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


class SmallCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
            torch.nn.MaxPool2d(2), torch.nn.Conv2d(8, 16, 3, stride=2), torch.nn.BatchNorm2d(16), torch.nn.ReLU(),
            torch.nn.AdaptiveAvgPool2d(1))
        self.head = torch.nn.Linear(16, 10)

    def forward(self, x):
        return torch.softmax(self.head(torch.flatten(self.features(x), 1)), dim=-1)


def _cnn():
    return _with_statistics(SmallCnn()), dict(x=torch.randn(2, 3, 16, 16))


class WithUnsupported(torch.nn.Module):
    """mo_tests::untranslated has no translator in mo: the middle of this model runs in PyTorch."""

    def __init__(self):
        super().__init__()
        self.first, self.last = torch.nn.Linear(8, 8), torch.nn.Linear(8, 4)

    def forward(self, x):
        return self.last(untranslated(torch.tanh(self.first(x)) * 0.9))


class WithErfinv(WithUnsupported):
    """Linear, erfinv, Linear: differentiable throughout."""

    def forward(self, x):
        return self.last(torch.special.erfinv(torch.tanh(self.first(x)) * 0.9))


MODELS = {"bert": _bert, "gpt2": _gpt2, "vit": _vit, "cnn": _cnn}


def _build(make):
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model, inputs = make()
    return model.eval(), inputs


def _tensors(output) -> list:
    if isinstance(output, torch.Tensor):
        return [output.numpy()]
    return [v.numpy() for v in output.values() if isinstance(v, torch.Tensor)]


def _check(model, compiled, inputs) -> None:
    with torch.no_grad():
        expected = _tensors(model(**inputs))
        actual = _tensors(compiled(**inputs))
    assert_close(actual, expected, rtol=1e-4, atol=1e-4)


def _messages(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "mo.compile"]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_runs_in_openvino(name, caplog):
    caplog.set_level(logging.INFO, logger="mo.compile")
    model, inputs = _build(MODELS[name])
    compiled = torch.compile(model, backend="mo", options={**F32, "fallback": False})
    _check(model, compiled, inputs)
    converted = [m for m in _messages(caplog) if "converted and compiled" in m]
    assert converted, _messages(caplog)
    # no gradient needed: traced once by make_fx, not by AOT autograd
    assert any("for inference" in m for m in _messages(caplog)), _messages(caplog)
    assert not any("AOT autograd" in m for m in _messages(caplog)), _messages(caplog)


def test_unsupported_op_falls_back(caplog):
    caplog.set_level(logging.INFO, logger="mo.compile")
    model, _ = _build(lambda: (WithUnsupported(), None))
    compiled = torch.compile(model, backend="mo", options=F32)
    _check(model, compiled, dict(x=torch.randn(3, 8)))
    messages = _messages(caplog)
    assert any("stay in PyTorch" in m and OP_NAME in m and "no translator" in m for m in messages), messages
    assert sum("converted and compiled" in m for m in messages) == 2, messages   # before and after the op


def _encoder_block():
    torch.manual_seed(0)
    block = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, batch_first=True)
    return block.eval(), torch.randn(2, 16, 64)


def _precisions(caplog) -> list[str]:
    return [m.split("inference precision ")[1].split(")")[0] for m in _messages(caplog) if "inference precision" in m]


def test_default_precision_is_the_models_own(caplog):
    """Without options the parts compute in f32 as eager PyTorch does (the CPU plugin's own
    default is bf16 on CPUs that have it, 4e-3 off on this block)."""
    caplog.set_level(logging.INFO, logger="mo.compile")
    block, x = _encoder_block()
    with torch.no_grad():
        expected, actual = block(x), torch.compile(block, backend="mo")(x)
    assert (actual - expected).abs().max().item() < 1e-5
    assert _precisions(caplog) == ["f32"], _messages(caplog)


def test_autocast_and_the_option_choose_bf16(caplog):
    caplog.set_level(logging.INFO, logger="mo.compile")
    block, x = _encoder_block()
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        torch.compile(copy.deepcopy(block), backend="mo")(x)
    with torch.no_grad():
        torch.compile(copy.deepcopy(block), backend="mo", options={"inference_precision": "bf16"})(x)
        bf16_block = copy.deepcopy(block).to(torch.bfloat16)     # a bf16 model: bf16 in and out
        actual = torch.compile(bf16_block, backend="mo")(x.to(torch.bfloat16))
        expected = bf16_block(x.to(torch.bfloat16))
    assert _precisions(caplog) == ["bf16", "bf16", "bf16"], _messages(caplog)
    assert actual.dtype == torch.bfloat16 and (actual.float() - expected.float()).abs().max().item() < 0.1


def test_unsupported_op_is_an_error_without_fallback():
    model, _ = _build(lambda: (WithUnsupported(), None))
    compiled = torch.compile(model, backend="mo", options={**F32, "fallback": False})
    with pytest.raises(Exception, match=r"fallback=False.*mo_tests::untranslated"), torch.no_grad():
        compiled(torch.randn(3, 8))


def test_unknown_option_is_an_error():
    model, _ = _build(lambda: (WithUnsupported(), None))
    compiled = torch.compile(model, backend="mo", options={"precision": "f32"})
    with pytest.raises(Exception, match="Unknown option.*precision"), torch.no_grad():
        compiled(torch.randn(3, 8))


def test_weights_changed_in_place_run_in_pytorch(caplog):
    # a CLI test run earlier in this process may have left the "mo" logger at ERROR
    caplog.set_level(logging.WARNING, logger="mo.compile")
    model, _ = _build(_cnn)
    compiled = torch.compile(model, backend="mo", options=F32)
    inputs = dict(x=torch.randn(2, 3, 16, 16))
    _check(model, compiled, inputs)
    with torch.no_grad():
        model.head.weight.mul_(2)
    _check(model, compiled, inputs)
    assert any("changed in place" in m for m in _messages(caplog)), _messages(caplog)


def test_buffers_written_in_training_mode(caplog):
    caplog.set_level(logging.INFO, logger="mo.compile")
    model, _ = _build(_cnn)
    reference = copy.deepcopy(model)
    model.train()
    reference.train()
    compiled = torch.compile(model, backend="mo", options=F32)
    for _ in range(3):
        x = torch.randn(4, 3, 16, 16)
        with torch.no_grad():
            assert_close([compiled(x).numpy()], [reference(x).numpy()], rtol=1e-4, atol=1e-5)
    assert_close([b.numpy() for b in model.buffers()], [b.numpy() for b in reference.buffers()], rtol=1e-4, atol=1e-5)
    messages = _messages(caplog)
    assert any("converted and compiled" in m for m in messages) and not any("in place" in m for m in messages), \
        messages
    # the graph writes the running statistics: AOT autograd functionalizes it
    assert any("AOT autograd" in m for m in messages), messages


class InPlaceOps(torch.nn.Module):
    """In-place operations on intermediate values, and an output that is a view of the input."""

    def __init__(self):
        super().__init__()
        self.first = torch.nn.Linear(8, 8)
        self.act = torch.nn.ReLU(inplace=True)

    def forward(self, x):
        y = self.first(x)
        y.mul_(2).add_(1)
        return self.act(y), x.t()


class WritesItsInput(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.first = torch.nn.Linear(8, 8)

    def forward(self, x):
        x.mul_(2)
        return self.first(x)


@pytest.mark.parametrize("make, lowering", [(InPlaceOps, "for inference"), (WritesItsInput, "AOT autograd")])
def test_in_place_operations(make, lowering, caplog):
    """Writes to intermediate values are functionalized by the inference lowering; a write to
    an input needs AOT autograd, which writes the result back to the caller's tensor."""
    caplog.set_level(logging.INFO, logger="mo.compile")
    model, _ = _build(lambda: (make(), None))
    compiled = torch.compile(model, backend="mo", options={**F32, "fallback": False})
    x = torch.randn(3, 8)
    x_eager, x_compiled = x.clone(), x.clone()
    with torch.no_grad():
        expected, actual = model(x_eager), compiled(x_compiled)
    expected = expected if isinstance(expected, tuple) else (expected,)
    actual = actual if isinstance(actual, tuple) else (actual,)
    assert_close([a.numpy() for a in actual] + [x_compiled.numpy()],
                 [e.numpy() for e in expected] + [x_eager.numpy()], rtol=1e-4, atol=1e-5)
    messages = _messages(caplog)
    assert any(lowering in m for m in messages) and any("converted and compiled" in m for m in messages), messages


def test_in_place_operations_with_dynamic_shapes(caplog):
    """Functionalizing would specialize symbolic dimensions: a dynamic graph that writes in place
    goes through AOT autograd, and its one dynamic part serves every later shape."""
    caplog.set_level(logging.INFO, logger="mo.compile")
    model, _ = _build(lambda: (InPlaceOps(), None))
    compiled = torch.compile(model, backend="mo", options={**F32, "fallback": False})
    conversions = []
    for batch in (2, 3, 5, 4):
        x = torch.randn(batch, 8)
        with torch.no_grad():
            assert_close([a.numpy() for a in compiled(x)], [e.numpy() for e in model(x)], rtol=1e-4, atol=1e-5)
        conversions.append(sum("converted and compiled" in m for m in _messages(caplog)))
    assert conversions[1] > conversions[0] and conversions[3] == conversions[1], conversions
    assert any("AOT autograd" in m for m in _messages(caplog)), _messages(caplog)


def test_gradients_flow_through_pytorch(caplog):
    caplog.set_level(logging.INFO, logger="mo.compile")
    model, _ = _build(lambda: (WithErfinv(), None))
    compiled = torch.compile(model, backend="mo", options=F32)
    x = torch.randn(3, 8)
    compiled(x).square().sum().backward()
    grads = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    model(x).square().sum().backward()
    assert_close([g.numpy() for g in grads], [p.grad.numpy() for p in model.parameters()], rtol=1e-4, atol=1e-5)
    # the forward ran in OpenVINO, lowered by AOT autograd (which keeps the backward)
    assert any("converted and compiled" in m for m in _messages(caplog)), _messages(caplog)
    assert any("AOT autograd" in m for m in _messages(caplog)), _messages(caplog)


def test_dynamic_batch_and_sequence_length(caplog):
    caplog.set_level(logging.INFO, logger="mo.compile")
    model, _ = _build(_bert)
    compiled = torch.compile(model, backend="mo", options={**F32, "fallback": False})
    conversions = []
    for batch, length in [(2, 7), (3, 5), (5, 9), (4, 3)]:   # (Dynamo specialises a size of 1)
        inputs = dict(input_ids=torch.randint(0, 100, (batch, length)),
                      attention_mask=torch.randint(0, 2, (batch, length)))
        inputs["attention_mask"][:, 0] = 1
        _check(model, compiled, inputs)
        conversions.append(sum("converted and compiled" in m for m in _messages(caplog)))
    # the first shape converts a static graph, the second a dynamic one that serves every later shape
    assert conversions[0] > 0 and conversions[1] > conversions[0], conversions
    assert conversions[3] == conversions[1], conversions


_CACHE_SCRIPT = """
import logging, sys, torch
logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s")
from mo.torch_backend import mo_backend
if "mo" not in torch._dynamo.list_backends(exclude_tags=()):
    torch._dynamo.register_backend(mo_backend, "mo")
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Linear(16, 4)).eval()
x = torch.randn(3, 8)
compiled = torch.compile(model, backend="mo", options={"inference_precision": "f32", "cache_dir": sys.argv[1]})
with torch.no_grad():
    torch.testing.assert_close(compiled(x), model(x), rtol=1e-4, atol=1e-4)
"""


def test_cache_folder_is_reused_by_a_second_process(tmp_path):
    cache = str(tmp_path / "cache")

    def run() -> str:
        done = subprocess.run([sys.executable, "-c", _CACHE_SCRIPT, cache], cwd=ROOT, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr
        return done.stderr

    first = run()
    assert "converted and compiled" in first and "loaded from the cache" not in first, first
    assert any(f.endswith(".xml") for _, _, files in os.walk(cache) for f in files)
    second = run()
    assert "loaded from the cache" in second and "converted and compiled" not in second, second
    assert "PyTorch model decoded" not in second, second


def test_entry_point_is_declared():
    """The installed package (pip install -e .) declares the backend where torch looks for it."""
    from importlib.metadata import entry_points
    found = [e for e in entry_points(group="torch_dynamo_backends") if e.name == "mo"]
    assert found, "no torch_dynamo_backends entry point 'mo' is installed (pip install -e .)"
    assert found[0].load() is mo_backend


def test_backend_name_resolves_without_registering_it():
    """A fresh process finds backend="mo" through the entry point alone."""
    code = ("import torch; m = torch.nn.Linear(3, 2); x = torch.ones(1, 3); "
            "y = torch.compile(m, backend='mo', options={'inference_precision': 'f32'})(x); "
            "print(torch.allclose(y, m(x), rtol=1e-4, atol=1e-5))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.stdout.strip().endswith("True"), result.stderr[-2000:]
