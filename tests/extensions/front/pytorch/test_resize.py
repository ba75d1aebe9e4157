"""Layer tests of the ATen resize (interpolate) and padding lowerings."""
import pytest
import torch
import torch.nn.functional as F

from tests.utils.torch_models import PATHS, check_module

torch.manual_seed(0)


class Resizes(torch.nn.Module):
    def forward(self, x):
        seq = x.flatten(2)
        return F.interpolate(x, scale_factor=2, mode="nearest"), F.interpolate(x, size=(5, 7), mode="nearest"), \
            F.interpolate(x, size=(7, 9), mode="bilinear"), F.interpolate(x, scale_factor=1.5, mode="bilinear",
                                                                          align_corners=True), \
            F.interpolate(x, size=(6, 5), mode="bicubic"), F.interpolate(x, scale_factor=2, mode="nearest-exact"), \
            F.interpolate(seq, size=30, mode="linear"), F.interpolate(seq, scale_factor=3, mode="nearest"), \
            F.upsample(x, scale_factor=(2, 3))


class Pads(torch.nn.Module):
    def forward(self, x):
        return F.pad(x, (1, 2)), F.pad(x, (1, 2, 0, 1), value=-1.5), F.pad(x, (1, 1, 2, 2), mode="reflect"), \
            F.pad(x, (2, 1, 1, 2), mode="replicate"), F.pad(x, (1, 2, 2, 1), mode="circular"), F.pad(x, (-1, 1)), \
            torch.nn.ZeroPad2d(1)(x), torch.nn.ReflectionPad1d(2)(x.flatten(2))


X = torch.randn(2, 3, 4, 6)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("module", [Resizes(), Pads()], ids=["resize", "pad"])
def test_resize(module, path, tmp_path):
    check_module(module, (X,), tmp_path, path)


class AtenPads(torch.nn.Module):
    """The padding ops that torch.nn.functional.pad dispatches to, called as ATen ops."""

    def forward(self, x):
        aten = torch.ops.aten
        return aten.constant_pad_nd(x, [1, 2, 0, 1], 0.5), aten.reflection_pad2d(x, [1, 2, 2, 1]), \
            aten.replication_pad1d(x.flatten(2), [2, 3]), aten._pad_circular(x, [1, 2, 3, 0]), \
            aten.reflection_pad3d(x.unsqueeze(0), [1, 1, 1, 1, 1, 1])


@pytest.mark.parametrize("path", PATHS)
def test_aten_pads(path, tmp_path):
    check_module(AtenPads(), (X,), tmp_path, path)
