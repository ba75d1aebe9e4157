"""Layer tests of the ATen resize (interpolate) and padding lowerings."""
import pytest
import torch
import torch.nn.functional as F

from mo import convert_model
from mo.errors import ConversionError
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


class GridSample(torch.nn.Module):
    def __init__(self, mode, padding, corners):
        super().__init__()
        self.mode, self.padding, self.corners = mode, padding, corners

    def forward(self, x, grid):
        return F.grid_sample(x, grid, mode=self.mode, padding_mode=self.padding, align_corners=self.corners)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("corners", [False, True], ids=["centres", "corners"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
def test_grid_sample(mode, padding, corners, path, tmp_path):
    """Every mode, padding and alignment, with grid points outside the image (batch 2: OpenVINO's
    CPU plugin crashes on border padding with batch 1)."""
    x, grid = torch.randn(2, 3, 5, 6), torch.rand(2, 4, 7, 2) * 2.6 - 1.3
    check_module(GridSample(mode, padding, corners), (x, grid), tmp_path, path)


class GridSampler2d(torch.nn.Module):
    """grid_sampler_2d (what decomposed exported programs hold) called as an ATen op: modes and
    paddings as numbers."""

    def forward(self, x, grid):
        return torch.ops.aten.grid_sampler_2d(x, grid, 0, 2, False), torch.ops.aten.grid_sampler_2d(x, grid, 2, 0, True)


@pytest.mark.parametrize("path", PATHS)
def test_grid_sampler_2d(path, tmp_path):
    check_module(GridSampler2d(), (torch.randn(2, 3, 5, 6), torch.rand(2, 4, 7, 2) * 2.6 - 1.3), tmp_path, path)


@pytest.mark.parametrize("path", PATHS)
def test_grid_sample_f64(path, tmp_path):
    x, grid = torch.randn(2, 2, 4, 5, dtype=torch.float64), torch.rand(2, 3, 3, 2, dtype=torch.float64) * 2 - 1
    check_module(GridSample("bilinear", "zeros", False), (x, grid), tmp_path, path)


@pytest.mark.parametrize("corners", [False, True], ids=["centres", "corners"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_volumetric_grid_sample(mode, padding, corners, tmp_path):
    """5-D sampling (gathered: GridSample is 4-D only), grid points outside the volume too."""
    x, grid = torch.randn(2, 3, 4, 5, 6), torch.rand(2, 3, 4, 5, 3) * 3.2 - 1.6
    check_module(GridSample(mode, padding, corners), (x, grid), tmp_path, "export")


class Antialiased(torch.nn.Module):
    def __init__(self, mode):
        super().__init__()
        self.mode = mode

    def forward(self, x):
        def resized(**kw):
            return F.interpolate(x, mode=self.mode, antialias=True, **kw)
        aa = getattr(torch.ops.aten, f"_upsample_{self.mode}2d_aa")
        return resized(size=(5, 7)), resized(size=(20, 9)), resized(size=(12, 16)), resized(scale_factor=0.5), \
            resized(scale_factor=(0.25, 2.0), recompute_scale_factor=False), \
            resized(scale_factor=0.3, recompute_scale_factor=True), aa(x, [5, 7], False), \
            aa(x, [6, 4], False, 0.5, 0.25)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_antialiased_resize(mode, path, tmp_path):
    """Down- and upscaling by sizes and by scale factors that are the ratio of the sizes (also
    the overload with sizes and scales, called as an ATen op)."""
    check_module(Antialiased(mode), (torch.randn(2, 3, 12, 16),), tmp_path, path)


class AntialiasedBy(torch.nn.Module):
    def __init__(self, **options):
        super().__init__()
        self.options = options

    def forward(self, x):
        return F.interpolate(x, mode="bilinear", antialias=True, **self.options)


@pytest.mark.parametrize("options, message", [
    ({"size": (5, 7), "align_corners": True}, "align_corners=True cannot be expressed"),
    ({"scale_factor": 0.3}, "Give size=... or recompute_scale_factor=True")], ids=["corners", "scale"])
def test_antialiased_resize_refused(options, message, tmp_path):
    """Antialiasing with align_corners, or by a scale factor that is not the ratio of the sizes
    (OpenVINO's filter follows the sizes), cannot be expressed."""
    with pytest.raises(ConversionError, match=message):
        convert_model(input_model=AntialiasedBy(**options), example_input=(torch.randn(1, 2, 12, 16),),
                      output_dir=str(tmp_path))


class AffineGrids(torch.nn.Module):
    """F.affine_grid (aten::affine_grid_generator), 2-D and 3-D, with and without align_corners,
    and the grid sampled."""

    def forward(self, theta, theta3, image):
        grid = F.affine_grid(theta, [2, 3, 4, 5], align_corners=False)
        return grid, F.affine_grid(theta, [2, 1, 3, 1], align_corners=True), \
            F.affine_grid(theta3, [1, 2, 2, 3, 4], align_corners=False), \
            F.grid_sample(image, grid, align_corners=False)


@pytest.mark.parametrize("path", PATHS)
def test_affine_grid(path, tmp_path):
    theta = torch.tensor([[[0.9, -0.2, 0.1], [0.3, 1.1, -0.2]], [[1.0, 0.0, 0.0], [0.0, 0.5, 0.3]]])
    theta3 = torch.randn(1, 3, 4)
    check_module(AffineGrids(), (theta, theta3, torch.randn(2, 3, 6, 7)), tmp_path, path)
