"""Layer tests of the ATen activation and softmax lowerings."""
import pytest
import torch
import torch.nn.functional as F

from tests.utils.torch_models import PATHS, check_module

torch.manual_seed(0)
X = torch.randn(2, 3, 5) * 3


class Activations(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.prelu = torch.nn.PReLU(3)

    def forward(self, x):
        return F.relu(x), F.relu6(x), F.hardtanh(x, -2, 2), F.leaky_relu(x, 0.2), F.elu(x, 0.7), F.selu(x), \
            F.celu(x, 1.5), F.gelu(x), F.gelu(x, approximate="tanh"), F.silu(x), F.mish(x), F.hardswish(x), \
            F.hardsigmoid(x), F.softplus(x), F.softplus(x, beta=2, threshold=3), F.softsign(x), self.prelu(x), \
            F.glu(x, dim=-1 if x.shape[-1] % 2 == 0 else 1) if False else F.glu(x[..., :4]), F.logsigmoid(x), \
            F.threshold(x, 0.5, -1.0), F.hardshrink(x, 0.7), F.softshrink(x, 1.2)


class Softmaxes(torch.nn.Module):
    def forward(self, x):
        return F.softmax(x, dim=-1), F.log_softmax(x, dim=1), F.softmin(x, dim=0), torch.softmax(x, 1, torch.float64)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("module", [Activations(), Softmaxes()], ids=["activations", "softmax"])
def test_activations(module, path, tmp_path):
    check_module(module, (X,), tmp_path, path)


class ExportForms(torch.nn.Module):
    """log_sigmoid_forward and _safe_softmax (what decomposed exported programs hold), called as
    ATen ops so that every capture path records them; _safe_softmax gives 0 on slices that are
    -inf throughout (a dtype of f64 is left out with infinities: the CPU plugin computes f64 in
    f32 and turns infinities into the largest f32)."""

    def forward(self, x, masked):
        aten = torch.ops.aten
        return aten.log_sigmoid_forward(x)[0], aten._safe_softmax(x, 1), aten._safe_softmax(masked, -1), \
            aten._safe_softmax(masked, 0), aten._safe_softmax(x, 2, torch.float64)


@pytest.mark.parametrize("path", PATHS)
def test_export_forms_of_activations(path, tmp_path):
    masked = X.clone()
    masked[0, 1] = float("-inf")
    masked[:, :, 2] = float("-inf")
    check_module(ExportForms(), (X, masked), tmp_path, path)
