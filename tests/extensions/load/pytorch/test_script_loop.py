"""Loops in scripted code: unrolled when the trip count and conditions are known when converting,
else a Loop over the loop's block (a trip count from a dynamic size, a `while` on a computed
condition, `range(start, end, step)`, values carried and growing across iterations)."""
from typing import Dict, List

import pytest
import torch
import torch.nn as nn

from mo import convert_model
from mo.errors import InputModelError
from tests.utils.runtime import assert_close, run_ir
from tests.utils.torch_models import torch_outputs


class ForSize(nn.Module):
    def forward(self, x):
        y = x
        s = 0
        for i in range(x.shape[0]):
            y = y * 2 + i
            s = s + i
        return y, y.sum() + s


class While(nn.Module):
    def forward(self, x):
        n = 0
        while x.sum() < 100:
            x = x * 2
            n += 1
        return x, n


class RangeStep(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        acc = torch.zeros_like(x)
        for i in range(1, x.shape[0], 2):
            acc = self.fc(acc) + x * i
        return acc


class Growing(nn.Module):
    def forward(self, x):
        y = x
        for _ in range(x.shape[0]):
            y = torch.cat([y, x], 0)
            if y.sum() > 0:
                y = y - 1
        return y


class Known(nn.Module):
    def forward(self, x):
        for i in range(3):
            x = x + i
        k = 0
        while k < 2:
            x = x * 2
            k += 1
        return x


def _convert(module, example, tmp_path):
    spec = "x[" + ",".join("?" for _ in example.shape) + "]"
    return convert_model(input_model=torch.jit.script(module), example_input=(example,), input=spec,
                         output_dir=str(tmp_path), compress_to_fp16=False).xml


@pytest.mark.parametrize("module,inputs", [
    (ForSize(), [torch.randn(3, 2), torch.randn(5, 2)]),
    (While(), [torch.rand(2, 2) + 0.1, torch.rand(3, 2) + 1]),
    (RangeStep(), [torch.randn(4, 3), torch.randn(7, 3)]),
    (Growing(), [torch.randn(2, 3), torch.randn(3, 3)])], ids=lambda v: type(v).__name__)
def test_runtime_loops(tmp_path, module, inputs):
    torch.manual_seed(0)
    module.eval()
    xml = _convert(module, inputs[0], tmp_path)
    assert 'type="Loop"' in open(xml).read()
    for x in inputs:
        assert_close(run_ir(xml, [x.numpy()]), torch_outputs(module, (x,)))


class KnownAppend(nn.Module):
    """A list built by append / insert / item assignment and a dict by item assignment."""

    def forward(self, x):
        parts: List[torch.Tensor] = []
        for i in range(3):
            parts.append(x * i)
        parts.insert(0, x)
        parts[1] = x - 1
        named: Dict[str, torch.Tensor] = {}
        named["a"] = parts[2]
        return torch.stack(parts), named["a"]


@pytest.mark.parametrize("module", [Known(), KnownAppend()], ids=lambda m: type(m).__name__)
def test_known_loops_are_unrolled(tmp_path, module):
    xml = _convert(module, torch.randn(2, 3), tmp_path)
    assert 'type="Loop"' not in open(xml).read()
    x = torch.randn(4, 3)
    assert_close(run_ir(xml, [x.numpy()]), torch_outputs(module, (x,)))


class Appending(nn.Module):
    def forward(self, x):
        parts: List[torch.Tensor] = []
        for i in range(x.shape[0]):
            parts.append(x[i] * 2)
        return torch.stack(parts)


def test_loop_carrying_a_list_is_refused(tmp_path):
    with pytest.raises(InputModelError, match="changes a list or dict.*only tensors and numbers"):
        _convert(Appending(), torch.randn(3, 2), tmp_path)


class InplaceInBodies(nn.Module):
    """In-place writes inside a Loop and an If to tensors of the enclosing code (also through a
    view): the new values come out of the Loop / If."""

    def forward(self, x):
        y = x.clone()
        z = x * 0
        for i in range(x.shape[0]):
            y.add_(1)
            z[0].add_(float(i))
        if x.sum() > 0:
            y.mul_(2)
        else:
            z.sub_(5)
        return y, z


def test_inplace_writes_in_bodies(tmp_path):
    xml = _convert(InplaceInBodies(), torch.randn(3, 2), tmp_path)
    text = open(xml).read()
    assert 'type="Loop"' in text and 'type="If"' in text
    for x in (torch.rand(3, 2), -torch.rand(4, 2)):
        assert_close(run_ir(xml, [x.numpy()]), torch_outputs(InplaceInBodies(), (x,)))
