"""Layer tests of the ATen normalization lowerings."""
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from mo import convert_model
from tests.utils.runtime import assert_close, run_ir
from tests.utils.torch_models import PATHS, check_module, torch_outputs

torch.manual_seed(0)


def _randomized(bn):
    bn.running_mean.uniform_(-1, 1)
    bn.running_var.uniform_(0.5, 2)
    bn.weight.data.uniform_(0.5, 1.5)
    bn.bias.data.uniform_(-0.5, 0.5)
    return bn


class Norms(nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = _randomized(nn.BatchNorm2d(4))
        self.bn1 = _randomized(nn.BatchNorm1d(4))
        self.bn_plain = nn.BatchNorm2d(4, affine=False)
        self.ln = nn.LayerNorm([7, 6])
        self.ln_plain = nn.LayerNorm(6, elementwise_affine=False)
        self.gn = nn.GroupNorm(2, 4)
        self.inorm = nn.InstanceNorm2d(4, affine=True)
        self.rms = nn.RMSNorm(6, eps=1e-6)

    def forward(self, x):
        return self.bn(x), self.bn1(x.flatten(2)), self.bn_plain(x), self.ln(x), self.ln_plain(x), self.gn(x), \
            self.inorm(x), self.rms(x), F.normalize(x, dim=1), F.layer_norm(x, (6,), eps=1e-3)


@pytest.mark.parametrize("path", PATHS)
def test_normalization(path, tmp_path):
    check_module(Norms(), (torch.randn(2, 4, 7, 6) * 2 + 1,), tmp_path, path)


class WeightNormConv(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.utils.parametrizations.weight_norm(nn.Conv1d(4, 6, 3, padding=1), dim=2)
        self.legacy = nn.utils.weight_norm(nn.Linear(4, 3))

    def forward(self, x):
        return self.conv(x), self.legacy(x.transpose(1, 2))


@pytest.mark.parametrize("path", PATHS)
def test_weight_norm(path, tmp_path):
    check_module(WeightNormConv(), (torch.randn(2, 4, 9),), tmp_path, path)


class NativeNorms(nn.Module):
    """The native_ / _native_ forms (their first output) and norms without affine parameters or
    running statistics, called as ATen ops so that every capture path records them."""

    def __init__(self):
        super().__init__()
        self.bn = _randomized(nn.BatchNorm2d(4))
        self.gn_plain = nn.GroupNorm(2, 4, affine=False)
        self.bn_batch_stats = nn.BatchNorm2d(4, track_running_stats=False)
        self.inorm_running = nn.InstanceNorm2d(4, track_running_stats=True)
        self.inorm_running.running_mean.uniform_(-1, 1)
        self.inorm_running.running_var.uniform_(0.5, 2)

    def forward(self, x):
        aten = torch.ops.aten
        w, b, mean, var = self.bn.weight, self.bn.bias, self.bn.running_mean, self.bn.running_var
        return aten.native_batch_norm(x, w, b, mean, var, False, 0.1, 1e-5)[0], \
            aten._native_batch_norm_legit(x, w, b, True, 0.1, 1e-3)[0], \
            aten.native_layer_norm(x, [7, 6], None, None, 1e-5)[0], \
            aten.native_group_norm(x, w, b, 2, 4, 42, 2, 1e-5)[0], \
            *aten._weight_norm_interface(x.flatten(2)[0], w.reshape(4, 1), 0), \
            self.gn_plain(x), self.bn_batch_stats(x), self.inorm_running(x)


@pytest.mark.parametrize("path", PATHS)
def test_native_normalization(path, tmp_path):
    check_module(NativeNorms(), (torch.randn(2, 4, 7, 6) * 2 + 1,), tmp_path, path)


class ImplIndex(nn.Module):
    """_batch_norm_impl_index (its int output cannot be traced, so the module is scripted)."""

    def __init__(self):
        super().__init__()
        self.bn = _randomized(nn.BatchNorm2d(4))

    def forward(self, x):
        bn = self.bn
        return torch._batch_norm_impl_index(x, bn.weight, bn.bias, bn.running_mean, bn.running_var, False, 0.1,
                                            1e-5, True)[0]


def test_batch_norm_impl_index(tmp_path):
    module = ImplIndex().eval()
    x = torch.randn(2, 4, 7, 6)
    xml = convert_model(input_model=torch.jit.script(module), example_input=(x,), output_dir=str(tmp_path),
                        compress_to_fp16=False).xml
    assert_close(run_ir(xml, [x.numpy()]), torch_outputs(module, (x,)))


class FunctionalBatchNorm(nn.Module):
    """_native_batch_norm_legit_functional, which torch.export makes of a batch norm updating its
    running statistics: called as an ATen op (every output), and as F.batch_norm in training mode."""

    def __init__(self, training: bool):
        super().__init__()
        self.training_mode = training
        self.bn = _randomized(nn.BatchNorm1d(3))

    def forward(self, x):
        bn = self.bn
        outputs = torch.ops.aten._native_batch_norm_legit_functional(x, bn.weight, None, bn.running_mean,
                                                                     bn.running_var, self.training_mode, 0.2, 1e-3)
        used = outputs if self.training_mode else (outputs[0], outputs[3], outputs[4])
        return *used, F.batch_norm(x, bn.running_mean.clone(), bn.running_var.clone(), bn.weight, bn.bias,
                                   training=self.training_mode, momentum=0.3)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("training", [True, False], ids=["batch-stats", "running-stats"])
def test_functional_batch_norm(training, path, tmp_path):
    check_module(FunctionalBatchNorm(training), (torch.randn(4, 3, 5) * 2 + 1,), tmp_path, path)
