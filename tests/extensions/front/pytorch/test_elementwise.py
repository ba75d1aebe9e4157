"""Layer tests of the ATen elementwise lowerings through each capture path."""
import pytest
import torch

from mo import convert_model
from mo.errors import ConversionError
from tests.utils.runtime import assert_close, run_ir
from tests.utils.torch_models import PATHS, check_module, check_scripted, torch_outputs

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


@pytest.mark.parametrize("module, message", [
    (NegativePower(), "negative integer powers"), (IntegerAddcdiv(), "addcdiv of integer tensors")],
    ids=["pow", "addcdiv"])
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
        return torch.gcd(x, y), torch.lcm(x, y)


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
    """gcd and lcm: signs, zeros, broadcasting, and the promoted type (u8 with i8 is i16). Values
    stay below 2^24: the CPU plugin divides integers in f32."""
    x = torch.tensor([[0, 12, 7, 0, 221, 2 ** 23 if x_type == torch.int64 else 96], [9, 100, 1, 35, 64, 81]])
    y = torch.tensor([5, 18, 14, 0, 17, 48])
    if y_type != torch.uint8:
        x, y = x * torch.tensor([1, -1, 1, 1, -1, 1]), -y
    else:   # lcms that fit in u8 (PyTorch wraps around, the CPU plugin saturates)
        x[1] = torch.tensor([9, 6, 1, 35, 4, 16])
    check_module(Gcd(), (x.to(x_type), y.to(y_type)), tmp_path, path)


class IntegerLogAddExp(torch.nn.Module):
    def forward(self, i):
        return torch.logaddexp(i, i)


def test_logaddexp_of_integers_refused(tmp_path):
    with pytest.raises(ConversionError, match="floating point tensors only"):
        convert_model(input_model=torch.jit.script(IntegerLogAddExp()), example_input=(I,), output_dir=str(tmp_path))


class OuterEqual(torch.nn.Module):
    def forward(self, v, i):
        return torch.outer(v, i), torch.outer(i, i), torch.ger(v, v), \
            torch.tensor([torch.equal(v, i), torch.equal(v, v), torch.equal(v, v[:1]), torch.equal(v[0], v[0])])


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.float64])
@pytest.mark.parametrize("path", PATHS)
def test_outer(path, dtype, tmp_path):
    check_module(OuterEqual(), ((torch.randn(5) * 3).to(dtype), torch.arange(5)), tmp_path, path)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
def test_equal(dtype, tmp_path):
    """torch.equal stays a node in scripted code (a trace records its value)."""
    check_scripted(OuterEqual(), ((torch.arange(5) * 1).to(dtype), torch.arange(5)), tmp_path)


class Shifts(torch.nn.Module):
    def forward(self, x, y):
        return x << 2, x >> 1, x << y, x >> y, torch.bitwise_left_shift(x, y), torch.bitwise_right_shift(x, y), \
            torch.bitwise_left_shift(x, 3), torch.bitwise_right_shift(x, 2), torch.bitwise_left_shift(3, y)


SHIFT_TYPES = [torch.int32, torch.int64, torch.uint8, torch.int8, torch.int16]


@pytest.mark.parametrize("dtype", SHIFT_TYPES)
@pytest.mark.parametrize("path", PATHS + ("script",))
def test_shifts(path, dtype, tmp_path):
    x = torch.tensor([[1, 5, -8, 100], [-1, 0, 7, -13]]).to(dtype)
    y = torch.tensor([[0, 1, 2, 3], [4, 4, 1, 2]]).to(dtype)
    if path == "script":
        check_scripted(Shifts(), (x, y), tmp_path)
    else:
        check_module(Shifts(), (x, y), tmp_path, path)


class WhereOneArgument(torch.nn.Module):
    def forward(self, x):
        rows, cols = torch.where(x > 0)
        return rows, cols, torch.where(x[0])[0], torch.where(x)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool])
@pytest.mark.parametrize("path", PATHS + ("script",))
def test_where_one_argument(path, dtype, tmp_path):
    """torch.where(condition): the coordinates of the set elements, one tensor per dim (was refused)."""
    x = (torch.randn(3, 4) * 2).to(dtype)
    if path == "script":
        check_scripted(WhereOneArgument(), (x,), tmp_path)
    else:
        check_module(WhereOneArgument(), (x,), tmp_path, path)


class Squares(torch.nn.Module):
    def forward(self, x):
        return torch.square(x), x.square(), x ** 2, torch.pow(x, 2)


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.uint8, torch.int8, torch.float64, torch.bool])
@pytest.mark.parametrize("path", PATHS)
def test_square_types(path, dtype, tmp_path):
    """square keeps integer types (booleans give i64), values small enough not to wrap."""
    check_module(Squares(), (torch.tensor([[0, 1, 3], [7, 11, 2]]).to(dtype),), tmp_path, path)


class Equal(torch.nn.Module):
    def forward(self, x, y):
        return torch.tensor([torch.equal(x, y), torch.equal(x, x)])


def test_equal_dynamic_shapes(tmp_path):
    """torch.equal of tensors whose shapes are known only at run time: other shapes (even of the
    same element count) are unequal, never a broadcast failure."""
    module = Equal().eval()
    example = (torch.randn(2, 3), torch.randn(2, 3))
    xml = convert_model(input_model=torch.jit.script(module), example_input=example, input="x[?,?]{f32},y[?,?]{f32}",
                        output_dir=str(tmp_path), compress_to_fp16=False).xml
    x = torch.randn(2, 2)
    for inputs in ((x, torch.randn(2, 3)), (torch.randn(2, 3), torch.randn(3, 2)), (torch.randn(1, 4), x),
                   (torch.randn(0, 3), torch.randn(0, 3)), (x, x.clone()), (x, x + 1)):
        assert_close(run_ir(xml, [t.numpy() for t in inputs]), torch_outputs(module, inputs))
