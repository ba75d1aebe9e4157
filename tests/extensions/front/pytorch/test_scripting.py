"""Layer tests of what only scripted code records: loop index helpers, item assignment in lists
and dicts, augmented assignments of the bitwise operators, fork / wait."""
from typing import Dict, List, Optional, Tuple

import pytest
import torch

from tests.utils.torch_models import check_scripted

torch.manual_seed(0)


class RangeLoops(torch.nn.Module):
    def forward(self, x):
        y = x
        for i in range(1, 7, 2):
            y = y + i
        rows = [x[i] for i in range(3, -1, -2)]
        return y, torch.stack(rows)


def _derive_index(index: int, start: int, step: int) -> int:
    return torch.ops.aten.__derive_index(index, start, step)


def _range_length(lo: int, hi: int, step: int) -> int:
    return torch.ops.aten.__range_length(lo, hi, step)


class ComputedRanges(torch.nn.Module):
    """__derive_index / __range_length of values the model computes (a dynamic dim)."""

    def forward(self, x):
        n = x.shape[0]
        values = [_derive_index(2, n, 3), _derive_index(n, 1, -1), _range_length(1, n, 2), _range_length(n, -3, -2),
                  _range_length(n, 1, 2), _range_length(0, n, 1)]
        return torch.tensor(values), x[_range_length(1, n, 2)]


class SetItems(torch.nn.Module):
    def forward(self, x):
        tensors: List[torch.Tensor] = [x, x]
        tensors[1] = x * 2
        tensors[-2] = x - 3
        named: Dict[str, torch.Tensor] = {"a": x}
        named["b"] = x + 1
        named["a"] = x - 1
        numbered: Dict[int, torch.Tensor] = {}
        numbered[4] = x * x
        copied = list(tensors)
        copied[0] = x * 5
        sizes = list(x.shape)
        sizes[0] = 1
        sizes[-1] = x.shape[0]
        return tensors[0], tensors[1], named["a"], named["b"], numbered[4], x.sum(0, keepdim=True).reshape(sizes), \
            copied[0]


class AugmentedBitwise(torch.nn.Module):
    def forward(self, x, y):
        a, b, c = x.clone(), x.clone(), x.clone()
        a &= y
        b |= y
        c ^= y
        return a, b, c


def _halves(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    return x[:2], x[2:] * 3


class Forked(torch.nn.Module):
    def forward(self, x):
        future = torch.jit.fork(torch.relu, x)
        pair = torch.jit.fork(torch.add, x, 2)
        halves = torch.jit.fork(_halves, x)
        y = x * 2
        first, second = torch.jit.wait(halves)
        return torch.jit.wait(future) + y, torch.jit.wait(pair), first, second


def test_range_loops(tmp_path):
    check_scripted(RangeLoops(), (torch.randn(4, 3),), tmp_path)


@pytest.mark.parametrize("rows", [5, 8])
def test_computed_ranges(rows, tmp_path):
    check_scripted(ComputedRanges(), (torch.randn(rows, 2),), tmp_path)


def test_set_items(tmp_path):
    check_scripted(SetItems(), (torch.randn(3, 3),), tmp_path)


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.uint8, torch.bool])
def test_augmented_bitwise(dtype, tmp_path):
    x = torch.tensor([[1, 5, 8, 100], [3, 0, 7, 12]]).to(dtype)
    y = torch.tensor([[0, 1, 2, 3], [4, 4, 15, 1]]).to(dtype)
    check_scripted(AugmentedBitwise(), (x, y), tmp_path)


def test_fork_wait(tmp_path):
    check_scripted(Forked(), (torch.randn(5),), tmp_path)


class OptionalInput(torch.nn.Module):
    def forward(self, x, y: Optional[torch.Tensor] = None):
        if y is not None:
            x = x + y
        if y is None:
            x = x * 0
        return x


def test_is_none_of_a_tensor(tmp_path):
    """`t is None` of a tensor the model computes or gets is known when converting: False."""
    check_scripted(OptionalInput(), (torch.randn(3), torch.randn(3)), tmp_path)


class Clamped(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clamp(min=0)

    @staticmethod
    def backward(ctx, grad):
        return grad


class UsesAutogradFunction(torch.nn.Module):
    def forward(self, x):
        return Clamped.apply(x) * 2


def test_python_op_is_refused_naming_the_function(tmp_path):
    """prim::PythonOp (an autograd Function in a traced model) is refused with the class's name
    and what to do; the module itself converts through torch.export."""
    import numpy as np

    from mo import convert_model
    from mo.errors import ConversionError
    from tests.utils.runtime import run_ir
    x = torch.randn(2, 3)
    traced = torch.jit.trace(UsesAutogradFunction(), (x,))
    expected = r"autograd Function Clamped .*torch\.export.*torch\.library.*--extensions"
    with pytest.raises(ConversionError, match=expected):
        convert_model(traced, example_input=(x,), output_dir=str(tmp_path / "traced"))
    xml = convert_model(UsesAutogradFunction(), example_input=(x,), output_dir=str(tmp_path / "exported")).xml
    np.testing.assert_allclose(run_ir(xml, [x.numpy()])[0], (x.clamp(min=0) * 2).numpy())
