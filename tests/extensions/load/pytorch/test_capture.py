"""Dynamic dimensions of an nn.Module converted from Python: every way of asking for them (?, -1,
bounds a..b, torch.export.Dim), also where the example's size is 1; static by default."""
import re
from unittest import mock

import pytest
import torch
import torch.nn as nn
from torch.export import Dim

from mo import convert_model
from tests.utils.runtime import assert_close, run_ir
from tests.utils.torch_models import torch_outputs


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        return self.conv(x).flatten(1).softmax(-1)


class TwoInputs(nn.Module):
    def forward(self, x, y):
        return x + y, x.shape[0] * y


def _input_shapes(xml: str) -> list[list[str]]:
    text = open(xml).read()
    ports = re.findall(r'type="Parameter".*?<port id="0"[^>]*>(.*?)</port>', text, re.S)
    return [re.findall(r"<dim>([^<]*)</dim>", p) for p in ports]


def _refuse_export(*args, **kwargs):
    raise RuntimeError("export disabled by the test")


@pytest.mark.parametrize("spec", ["x[?,3,8,8]", "x[-1,3,8,8]", "x[1..8,3,8,8]", "[?,3,8,8]",
                                  [("x", [-1, 3, 8, 8])], [("x", [None, 3, 8, 8])],
                                  [("x", [Dim("batch", max=8), 3, 8, 8])]],
                         ids=["question", "minus_one", "bounds", "unnamed", "list", "none", "dim"])
@pytest.mark.parametrize("batch", [1, 2])
def test_dynamic_batch_in_every_form(tmp_path, spec, batch):
    """The batch asked dynamic stays dynamic, also when the example has batch 1 (torch.export
    alone makes a dim of size 1 static)."""
    model = Net().eval()
    xml = convert_model(input_model=model, example_input=torch.randn(batch, 3, 8, 8), input=spec,
                        output_dir=str(tmp_path), compress_to_fp16=False).xml
    assert _input_shapes(xml) == [["-1", "3", "8", "8"]]
    x = torch.randn(3, 3, 8, 8)
    assert_close(run_ir(xml, [x.numpy()]), torch_outputs(model, (x,)))


def test_static_by_default(tmp_path):
    """Without --input the example's shapes are the inputs' shapes (OpenVINO's own converter makes
    them dynamic)."""
    xml = convert_model(input_model=Net(), example_input=torch.randn(1, 3, 8, 8), output_dir=str(tmp_path)).xml
    assert _input_shapes(xml) == [["1", "3", "8", "8"]]


def test_dims_shared_by_inputs(tmp_path):
    """One Dim object for the batch of two inputs, spatial dims with ?; examples of size 1."""
    batch = Dim("batch", max=16)
    xml = convert_model(input_model=TwoInputs(), example_input=(torch.randn(1, 4), torch.randn(1, 1)),
                        input=[("x", [batch, "?"]), ("y", [batch, 1])], output_dir=str(tmp_path),
                        compress_to_fp16=False).xml
    assert _input_shapes(xml) == [["-1", "-1"], ["-1", "1"]]
    inputs = (torch.randn(5, 3), torch.randn(5, 1))
    assert_close(run_ir(xml, [t.numpy() for t in inputs]), torch_outputs(TwoInputs(), inputs))


def test_dynamic_batch_through_trace(tmp_path):
    """A module torch.export cannot capture is traced; the dims asked dynamic stay dynamic."""
    model = Net().eval()
    with mock.patch.object(torch.export, "export", _refuse_export):
        xml = convert_model(input_model=model, example_input=torch.randn(1, 3, 8, 8), input="x[?,3,8,8]",
                            output_dir=str(tmp_path), compress_to_fp16=False).xml
    assert _input_shapes(xml) == [["-1", "3", "8", "8"]]
    x = torch.randn(2, 3, 8, 8)
    assert_close(run_ir(xml, [x.numpy()]), torch_outputs(model, (x,)))


def test_example_is_not_changed(tmp_path):
    x = torch.ones(1, 3, 8, 8)
    convert_model(input_model=Net(), example_input=x, input="x[?,3,8,8]", output_dir=str(tmp_path))
    assert x.shape == (1, 3, 8, 8) and bool((x == 1).all())
