"""Layer tests of the ATen lowerings that create tensors, convert types and read sizes."""
import pytest
import torch

from mo import convert_model
from tests.utils.runtime import assert_close, run_ir
from tests.utils.torch_models import PATHS, check_module, check_scripted, torch_outputs

torch.manual_seed(0)
X = torch.randn(2, 3, 4)


class Creation(torch.nn.Module):
    def forward(self, x):
        n = x.size(1)
        return torch.arange(n), torch.arange(1, x.shape[2], 2), torch.arange(0.5, 3.0, 0.5), \
            torch.zeros(2, n), torch.ones_like(x), torch.full((2, 2), 3), torch.full((2,), 1.5), \
            torch.full_like(x, 7, dtype=torch.int32), x.new_zeros(3), x.new_ones((2, n)), x.new_full((2,), 2.0), \
            torch.zeros(x.shape[0], dtype=torch.long), torch.empty(2, 3).fill_(4.0), \
            torch.tensor([1.0, 2.0]) * x[0, 0, :2], \
            torch.arange(x.shape[2], dtype=torch.float32) + x


class Conversions(torch.nn.Module):
    def forward(self, x, i):
        return x.long(), x.to(torch.int32), i.float(), x.type_as(i), i.to(x.dtype), (x > 0).int(), \
            i.bool(), x.double(), x.to(i), i.to(torch.float32) / 2


class Sizes(torch.nn.Module):
    def forward(self, x):
        b, c, w = x.shape
        return torch.tensor(x.dim()) + x.numel() + 0 * x.sum(), x.reshape(b * c, w), \
            x.view(-1, x.size(-1) // 2, 2), x.new_zeros(x.size()), x.reshape(x.shape[:2] + (2, 2))


class Fills(torch.nn.Module):
    def forward(self, x):
        return torch.zeros_like(x, dtype=torch.int32), torch.empty_like(x).zero_(), x.new_empty(3).fill_(2), \
            torch.arange(5, dtype=torch.float32), x.clone().zero_(), \
            torch.empty(2, 3, dtype=torch.int64).fill_(x.shape[1]), torch.ones(x.shape[:2], dtype=torch.bool), \
            x.new_full((x.size(0), 2), 3, dtype=torch.int8), torch.zeros(2).copy_(x[0, 0, :2]), \
            torch.arange(0, 6, 2, dtype=torch.float32) * x[..., :3]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("module, inputs", [
    (Creation(), (X,)), (Conversions(), (X, torch.tensor([[1, -2], [3, 4]]))), (Sizes(), (X,)), (Fills(), (X,))],
    ids=["creation", "conversion", "sizes", "fills"])
def test_creation(module, inputs, path, tmp_path):
    check_module(module, inputs, tmp_path, path)


class EyeLinspace(torch.nn.Module):
    def forward(self, x):
        n = x.shape[0]
        return torch.eye(3), torch.eye(2, 4, dtype=torch.int32), torch.eye(n) + x[:, :1], \
            torch.eye(n, x.shape[1], dtype=torch.bool), torch.linspace(0, 1, 5), \
            torch.linspace(-3, 7.5, 10, dtype=torch.float64), torch.linspace(0, 10, 7, dtype=torch.int64), \
            torch.linspace(2, 3, 1), torch.linspace(-1, 1, 2 * n + 1), torch.linspace(-5, 4, 6, dtype=torch.int32), \
            torch.linspace(0.1, -0.2, 9), torch.ops.aten._shape_as_tensor(x)


@pytest.mark.parametrize("path", PATHS)
def test_eye_linspace(path, tmp_path):
    check_module(EyeLinspace(), (torch.randn(3, 4),), tmp_path, path)


class RunTimeSizes(torch.nn.Module):
    def forward(self, x):
        n = x.shape[0]
        return torch.eye(n, dtype=torch.int64), torch.eye(2, n), torch.linspace(x[0, 0], x[0, 1], 5)


def test_run_time_sizes(tmp_path):
    """eye of sizes and linspace of bounds the model computes (export keeps them symbolic)."""
    module = RunTimeSizes().eval()
    x = torch.randn(4, 3)
    program = torch.export.export(module, (x,), dynamic_shapes={"x": {0: torch.export.Dim("n", min=2, max=16)}})
    xml = convert_model(input_model=program, output_dir=str(tmp_path), compress_to_fp16=False).xml
    for rows in (4, 7):
        y = torch.randn(rows, 3)
        assert_close(run_ir(xml, [y.numpy()]), torch_outputs(module, (y,)))


class Items(torch.nn.Module):
    def forward(self, i, f, flag):
        return i.item(), f.item(), flag.item(), torch.is_nonzero(f), torch.is_nonzero(i[0])


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.uint8])
def test_items(dtype, tmp_path):
    """item() gives the Python number's type: i64 for integers (was the tensor's i32), f64 for
    floats; is_nonzero a bool (scripted code)."""
    check_scripted(Items(), (torch.tensor([7], dtype=dtype), torch.tensor(0.0), torch.tensor([True])), tmp_path)


class ExportedItems(torch.nn.Module):
    def forward(self, i, f, flag):
        return i.item(), f.item(), flag.item()


@pytest.mark.parametrize("dtype", [torch.int32, torch.float32])
def test_item_export(dtype, tmp_path):
    check_module(ExportedItems(), (torch.tensor([7], dtype=dtype), torch.tensor(2.5), torch.tensor([False])), tmp_path,
                 "export")


class LinspaceOut(torch.nn.Module):
    """linspace / logspace with ``out=`` a module buffer of another type (issue 21: the result
    was f32 whatever the buffer's type) and from computed bounds."""

    def __init__(self, dtype):
        super().__init__()
        self.out = torch.empty(25, dtype=dtype)

    def forward(self, start, end, steps):
        return torch.linspace(start=start, end=end, steps=steps, out=self.out)


@pytest.mark.parametrize("dtype", [torch.float64, torch.int32, torch.int64])
@pytest.mark.parametrize("form", ["script", "trace"])
def test_linspace_into_out_buffer(form, dtype, tmp_path):
    inputs = (torch.tensor(-2), torch.tensor(1), torch.tensor(5))
    if form == "script":
        check_scripted(LinspaceOut(dtype), inputs, tmp_path)
    else:
        check_module(LinspaceOut(dtype), inputs, tmp_path, "trace")


class TypeForms(torch.nn.Module):
    """The forms of converting to another tensor's type: x.type(y.type()), x.to(y), x.to(y.dtype),
    x.type_as(y) (x.to(y.type()) itself is refused by PyTorch: 'Invalid device string'), and
    logspace."""

    def forward(self, x, y):
        return x.type(y.type()), x.to(y), x.to(y.dtype), x.type_as(y), x.to(y, non_blocking=True, copy=True), \
            torch.logspace(-1.0, 2.0, 7, base=2.0) * x.sum(), torch.logspace(0, 3, 4, dtype=torch.float64)


@pytest.mark.parametrize("path", PATHS)
def test_type_forms(path, tmp_path):
    check_module(TypeForms(), (torch.randn(2, 3) * 5, torch.ones(2, dtype=torch.int32)), tmp_path, path)
