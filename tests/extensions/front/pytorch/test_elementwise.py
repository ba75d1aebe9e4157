"""Layer tests of the ATen elementwise lowerings through each capture path."""
import pytest
import torch

from mo import convert_model
from mo.errors import ConversionError
from tests.utils.torch_models import PATHS, check_module

torch.manual_seed(0)
X = torch.randn(2, 3, 4)
Y = torch.randn(2, 3, 4)
I = torch.randint(-5, 6, (2, 3, 4))


class Arithmetic(torch.nn.Module):
    def forward(self, x, y):
        return x + 2 * y - 1, torch.sub(x, y, alpha=0.5), (x * y) / 3, 1 - x, x ** 2, torch.maximum(x, y), \
            torch.minimum(x, y), torch.remainder(x, 0.7), torch.fmod(x, 0.7), 2 ** y, \
            torch.addcmul(x, x, y, value=0.5), torch.addcdiv(x, x, y.abs() + 1), torch.lerp(x, y, 0.3)


class IntegerArithmetic(torch.nn.Module):
    def forward(self, i):
        return i // 2, torch.div(i, 3, rounding_mode="trunc"), i / 2, i * 2.5, i + True, i % 3, \
            torch.div(i, -4, rounding_mode="floor"), (i > 0) + (i < 2)


class Comparisons(torch.nn.Module):
    def forward(self, x, y):
        return x > y, x <= 0.5, x == x, x != y, (x > 0) & (y > 0), (x > 0) | (y > 0), ~(x > 0), \
            torch.logical_xor(x > 0, y > 0), torch.logical_not(x)


class Unary(torch.nn.Module):
    def forward(self, x):
        p = x.abs() + 0.1
        return torch.exp(x), torch.log(p), torch.sqrt(p), torch.rsqrt(p), torch.sin(x), torch.cos(x), torch.tanh(x), \
            torch.sigmoid(x), torch.erf(x), torch.floor(x), torch.ceil(x), torch.round(x * 3), torch.trunc(x * 3), \
            torch.sign(x), torch.neg(x), torch.reciprocal(p), torch.log2(p), torch.log1p(p), torch.square(x), \
            torch.isnan(torch.log(x)), torch.atan(x), torch.expm1(x)


class IntegerMath(torch.nn.Module):
    def forward(self, i):
        b = i > 0
        return torch.exp(i), torch.floor(i), torch.trunc(i), torch.round(i), torch.square(i), torch.square(b), \
            torch.sgn(i), i.abs(), torch.isinf(i), torch.isfinite(i), i & 6, i | 1, i ^ 3, ~i, ~b, b ^ (i < 2), \
            torch.bitwise_not(i), torch.logical_and(i, b), torch.rsub(i, 3, alpha=2)


class MoreFloatMath(torch.nn.Module):
    def forward(self, x, y):
        p = x.abs() + 0.1
        return torch.div(x, y, rounding_mode="floor"), torch.div(x, y, rounding_mode="trunc"), torch.frac(x * 3), \
            torch.round(x, decimals=2), torch.log10(p), torch.exp2(x), torch.erfc(x), torch.sgn(x), \
            torch.isinf(torch.log(torch.relu(x))), torch.isfinite(torch.log(x)), torch.clamp_min(x, 0.2), \
            torch.rsub(x, y, alpha=2), x.pow(y.round()), torch.float_power(p, 2).float()


class WhereClamp(torch.nn.Module):
    def forward(self, x, y):
        return torch.where(x > 0, x, y), torch.where(x > 0, x, 0.0), x.masked_fill(y > 0, -1.5), \
            torch.clamp(x, -0.5, 0.5), torch.clamp(x, min=0.1), x.clamp_max(y), torch.clip(x, y, y + 1)


class InPlace(torch.nn.Module):
    def forward(self, x, y):
        z = x.clone()
        z.add_(y)
        z.mul_(2)
        z.relu_()
        z[:, 1] = 7.0
        z[0, :, 1:3] = y[0, :, :2]
        return z


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("module, inputs", [
    (Arithmetic(), (X, Y)), (IntegerArithmetic(), (I,)), (Comparisons(), (X, Y)), (Unary(), (X,)),
    (WhereClamp(), (X, Y)), (InPlace(), (X, Y)), (IntegerMath(), (I,)), (MoreFloatMath(), (X, Y))],
    ids=["arithmetic", "integer", "compare", "unary", "where", "inplace", "integer-math", "float-math"])
def test_elementwise(module, inputs, path, tmp_path):
    check_module(module, inputs, tmp_path, path)


class NegativePower(torch.nn.Module):
    def forward(self, i):
        return i ** -1


class IntegerAddcdiv(torch.nn.Module):
    def forward(self, i):
        return torch.addcdiv(i, i, i)


class WhereOneArgument(torch.nn.Module):
    def forward(self, x):
        return torch.where(x > 0)[0]


@pytest.mark.parametrize("module, message", [
    (NegativePower(), "negative integer powers"), (IntegerAddcdiv(), "addcdiv of integer tensors"),
    (WhereOneArgument(), "use nonzero")], ids=["pow", "addcdiv", "where"])
def test_refused(module, message, tmp_path):
    """What PyTorch refuses (it would fail when run) or the IR cannot express is a clear error."""
    with pytest.raises(ConversionError, match=message):
        convert_model(input_model=torch.jit.script(module), example_input=(I,), output_dir=str(tmp_path))


# ---------------------------------------------------------------------------- two-argument math

class Atan2(torch.nn.Module):
    def forward(self, y, x):
        return torch.atan2(y, x), torch.rad2deg(y), torch.deg2rad(x), torch.special.expit(y), torch.arctan2(x, y)


class LogAddExp(torch.nn.Module):
    def forward(self, x, y):
        return torch.logaddexp(x, y), torch.logaddexp2(x, y)


class Gcd(torch.nn.Module):
    def forward(self, x, y):
        return torch.gcd(x, y)


def _quadrants(dtype):
    """Points in every quadrant, on both axes and at the origin (in f32 also at infinity: the CPU
    plugin computes f64 in f32 and turns infinities into the largest f32)."""
    y = torch.tensor([[1, 1, -1, -1, 0, 0, 2, -2, 0], [3, -3, 2, -1, 5, 0, 1, 0, 4]])
    x = torch.tensor([[1, -1, 1, -1, 2, -2, 0, 0, 0], [-2, 4, 0, -5, -1, 3, 1, 2, 0]])
    if not dtype.is_floating_point:
        return y.to(dtype), x.to(dtype)
    y, x = y.to(dtype) * 0.7, x.to(dtype) * 1.3
    if dtype == torch.float32:
        inf = float("inf")
        y = torch.cat([y, torch.tensor([[inf, inf, -inf, -inf, inf, -inf, 1, -1, inf]])])
        x = torch.cat([x, torch.tensor([[inf, -inf, inf, -inf, 1, -2, inf, -inf, 0]])])
    return y, x


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int32])
def test_atan2_angles(dtype, path, tmp_path):
    """atan2 in every quadrant (integers in f32), rad2deg / deg2rad, special.expit."""
    check_module(Atan2(), _quadrants(dtype), tmp_path, path)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_logaddexp(dtype, path, tmp_path):
    """Also equal arguments, equal infinities and one infinite argument (in f32: the CPU plugin
    computes f64 in f32 and turns infinities into the largest f32)."""
    inf = float("inf") if dtype == torch.float32 else 1e30
    x = torch.tensor([0.5, -3.0, 20.0, 1.0, -inf, inf, -inf, 4.0], dtype=dtype)
    y = torch.tensor([0.5, 2.0, -20.0, -60.0, -inf, inf, 1.5, inf], dtype=dtype)
    check_module(LogAddExp(), (x, y), tmp_path, path)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("x_type, y_type", [(torch.int64, torch.int64), (torch.int32, torch.int8),
                                            (torch.uint8, torch.uint8)])
def test_gcd(x_type, y_type, path, tmp_path):
    """Signs, zeros, broadcasting, and the promoted type (u8 with i8 is i16). Values stay below
    2^24: the CPU plugin divides integers in f32."""
    x = torch.tensor([[0, 12, 7, 0, 221, 2 ** 23 if x_type == torch.int64 else 96], [9, 100, 1, 35, 64, 81]])
    y = torch.tensor([5, 18, 14, 0, 17, 48])
    if y_type != torch.uint8:
        x, y = x * torch.tensor([1, -1, 1, 1, -1, 1]), -y
    check_module(Gcd(), (x.to(x_type), y.to(y_type)), tmp_path, path)


class IntegerLogAddExp(torch.nn.Module):
    def forward(self, i):
        return torch.logaddexp(i, i)


def test_logaddexp_of_integers_refused(tmp_path):
    with pytest.raises(ConversionError, match="floating point tensors only"):
        convert_model(input_model=torch.jit.script(IntegerLogAddExp()), example_input=(I,), output_dir=str(tmp_path))
