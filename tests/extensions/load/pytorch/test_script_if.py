"""`if` on values the model computes: in scripted code an If whose bodies are the two branches,
and torch.cond in exported programs."""
import re

import pytest
import torch
import torch.nn as nn

from mo import convert_model
from mo.errors import InputModelError
from tests.utils.runtime import assert_close, run_ir
from tests.utils.torch_models import torch_outputs


class Sign(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            y = x * 2
        else:
            y = x - 1
        return y


class Branches(nn.Module):
    """Nested ifs, an elif chain, module weights and enclosing values in branches, several results,
    a number result, branches of different shapes."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.scale = nn.Parameter(torch.tensor(3.0))

    def forward(self, x, flag):
        h = torch.relu(x)
        if flag.item() > 1:
            a, b = self.fc(h), x + 1
            if x.mean() > 0:
                a = a * self.scale
        elif flag.item() > 0:
            a, b = h - x, self.fc(x)
        else:
            a, b = x, x * self.scale
        if bool(flag.item() == 0):
            wide = torch.cat([x, x], 1)
            n = 2
        else:
            wide = x
            n = 5
        return a, b, wide, wide.shape[1] * n + h.sum()


class OnlyChecks(nn.Module):
    def forward(self, x):
        if x.min() < -100:
            raise ValueError("out of range")
        return x + 1


def _convert(module, example, tmp_path, saved: bool):
    scripted = torch.jit.script(module)
    if saved:
        path = str(tmp_path / "model.pt")
        torch.jit.save(scripted, path)
        return convert_model(input_model=path, example_input=example, output_dir=str(tmp_path),
                             compress_to_fp16=False).xml
    return convert_model(input_model=scripted, example_input=example, output_dir=str(tmp_path),
                         compress_to_fp16=False).xml


@pytest.mark.parametrize("saved", [False, True], ids=["script", "ts_file"])
def test_if_on_computed_condition(tmp_path, saved):
    xml = _convert(Sign(), (torch.randn(2, 3),), tmp_path, saved)
    assert 'type="If"' in open(xml).read()
    for x in (torch.ones(2, 3), -torch.ones(2, 3)):
        assert_close(run_ir(xml, [x.numpy()]), torch_outputs(Sign(), (x,)))


@pytest.mark.parametrize("saved", [False, True], ids=["script", "ts_file"])
def test_if_branches(tmp_path, saved):
    torch.manual_seed(0)
    module = Branches().eval()
    x = torch.randn(2, 4)
    xml = _convert(module, (x, torch.tensor(2)), tmp_path, saved)
    assert len(re.findall(r'type="If"', open(xml).read())) >= 3
    for flag in (0, 1, 2):
        for sign in (1, -1):
            inputs = (sign * x.abs(), torch.tensor(flag))
            assert_close(run_ir(xml, [t.numpy() for t in inputs]), torch_outputs(module, inputs))


def test_branch_without_results_is_a_check(tmp_path):
    xml = _convert(OnlyChecks(), (torch.randn(2, 3),), tmp_path, False)
    assert 'type="If"' not in open(xml).read()


class ListResult(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            y = [x, x]
        else:
            y = [x]
        return y[0]


def test_branch_with_a_list_result_is_refused(tmp_path):
    with pytest.raises(InputModelError, match="only tensors and numbers"):
        _convert(ListResult(), (torch.randn(2, 3),), tmp_path, False)


class Cond(nn.Module):
    """torch.cond in an exported program: branches reading operands and a parameter, two results."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.tensor(3.0))

    def forward(self, x, y):
        def then(a, b):
            return a * self.w + b, a.sum(0)

        def otherwise(a, b):
            return a - b, torch.cond(b.mean() > 0, lambda c: c.amax(0), lambda c: c.amin(0), (a,))
        return torch.cond(x.sum() > 0, then, otherwise, (x, y))


@pytest.mark.parametrize("saved", [False, True], ids=["module", "pt2_file"])
def test_torch_cond(tmp_path, saved):
    module = Cond()
    example = (torch.randn(2, 3), torch.randn(2, 3))
    if saved:
        path = str(tmp_path / "model.pt2")
        torch.export.save(torch.export.export(module, example), path)
        xml = convert_model(input_model=path, output_dir=str(tmp_path), compress_to_fp16=False).xml
    else:
        xml = convert_model(input_model=module, example_input=example, output_dir=str(tmp_path),
                            compress_to_fp16=False).xml
    assert len(re.findall(r'type="If"', open(xml).read())) == 2
    for sign_x, sign_y in ((1, 1), (-1, 1), (-1, -1)):
        inputs = (sign_x * example[0].abs(), sign_y * example[1].abs())
        assert_close(run_ir(xml, [t.numpy() for t in inputs]), torch_outputs(module, inputs))
