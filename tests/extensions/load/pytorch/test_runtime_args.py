"""Arguments that scripted code computes at run time (from dynamic sizes): padding, slice steps,
repeat counts, alpha, max of a list, list indexing; ``out=`` arguments, in-place ops on inputs,
``to`` another input's type, and list / tuple / dict model inputs."""
import inspect
from typing import Dict, List, Tuple

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from mo import convert_model
from mo.errors import InputModelError
from tests.utils.runtime import assert_close, run_ir
from tests.utils.torch_models import check_module, torch_outputs


def _check_dynamic(module, examples: list[tuple], tmp_path, **options):
    """Script ``module``, convert it with every input dim dynamic and compare with PyTorch on each
    input tuple of ``examples`` (of different shapes)."""
    names = list(inspect.signature(module.forward).parameters)
    spec = ",".join(f"{n}[{','.join('?' for _ in t.shape)}]" for n, t in zip(names, examples[0]))
    xml = convert_model(input_model=torch.jit.script(module), example_input=examples[0], input=spec,
                        output_dir=str(tmp_path), compress_to_fp16=False, **options).xml
    for inputs in examples:
        assert_close(run_ir(xml, [t.numpy() for t in inputs]), torch_outputs(module, inputs))


class Pad(nn.Module):
    def forward(self, x):
        n = x.shape[-1] // 2
        return F.pad(x, [n, 1, 0, n]), F.pad(x, [1, n], mode="reflect"), F.pad(x, [n, n, 1, 0, 0, 1], value=2.0)


class SliceStep(nn.Module):
    def forward(self, x):
        return x[:, ::x.shape[0]], x[x.shape[0] - 1::x.shape[0]]


class RepeatInterleave(nn.Module):
    def forward(self, x):
        return x.repeat_interleave(x.shape[0], dim=1), x.repeat_interleave(x.shape[1])


class Alpha(nn.Module):
    def forward(self, x):
        return torch.sub(x, x * 2, alpha=x.shape[0]), torch.rsub(x, 1.0, alpha=x.shape[1]), \
            torch.add(x, x, alpha=x.shape[1])


class MaxOfList(nn.Module):
    def forward(self, x):
        return x + max([x.shape[0], x.shape[1], 2]), x * min(x.shape[0], x.shape[1])


class ListIndex(nn.Module):
    def forward(self, x):
        return [x, x * 2, x * 3][x.shape[0] - 1], [x.shape[1], 5, 7][x.shape[0] - 2] * x


@pytest.mark.parametrize("module", [Pad(), SliceStep(), RepeatInterleave(), Alpha(), MaxOfList(), ListIndex()],
                         ids=lambda m: type(m).__name__)
def test_computed_arguments(tmp_path, module):
    _check_dynamic(module, [(torch.randn(2, 3, 6),), (torch.randn(3, 2, 4),)], tmp_path)


class Narrow(nn.Module):
    def forward(self, x):
        return x.narrow(x.shape[0] - 1, 1, x.shape[2] - 2), x.narrow(-x.shape[0] + 1, -2, 1)


def test_narrow_computed_dim(tmp_path):
    """The dim picks the sliced axis at run time."""
    _check_dynamic(Narrow(), [(torch.randn(2, 5, 3),), (torch.randn(3, 4, 6),)], tmp_path)


class DictByComputedKey(nn.Module):
    def forward(self, x):
        d = {0: x, 1: x * 2}
        return d[x.shape[0] - 2]


class KeyFromIf(nn.Module):
    def forward(self, x):
        d = {"a": x, "b": x * 2}
        return d["a" if x.shape[0] > 1 else "b"]


def test_dict_by_computed_key_is_refused(tmp_path):
    with pytest.raises(InputModelError, match="dict keys.*must be known when converting"):
        _check_dynamic(DictByComputedKey(), [(torch.randn(2, 3),)], tmp_path)
    with pytest.raises(InputModelError, match="`if` on a value the model computes gives a str"):
        _check_dynamic(KeyFromIf(), [(torch.randn(2, 3),)], tmp_path)


class OutArgument(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        torch.add(x, 1, out=out)
        wide = torch.empty(x.shape, dtype=torch.float64)
        torch.mul(x, 3, out=wide)
        return out * 2, wide


def test_out_arguments(tmp_path):
    _check_dynamic(OutArgument(), [(torch.randn(2, 3),), (torch.randn(4, 1),)], tmp_path)


class InplaceOnInput(nn.Module):
    def forward(self, x):
        x.unsqueeze_(0)
        return x * 2


@pytest.mark.parametrize("path", ["export", "trace"])
def test_inplace_op_on_input_keeps_its_shape(tmp_path, path):
    """Tracing runs the module: the example input must keep its shape, which the IR's input gets."""
    x = torch.randn(2, 3)
    example = x.clone()
    xml = convert_model(input_model=InplaceOnInput(), example_input=(example,), output_dir=str(tmp_path),
                        compress_to_fp16=False).xml
    assert example.shape == (2, 3)
    assert_close(run_ir(xml, [x.numpy()]), torch_outputs(InplaceOnInput(), (x.clone(),)))


class ToOther(nn.Module):
    def forward(self, x, y):
        return x.to(y.dtype), x.to(dtype=y.dtype) + y


@pytest.mark.parametrize("path", ["export", "trace", "ts_file", "script"])
def test_to_dtype_of_another_input(tmp_path, path):
    inputs = (torch.randn(2, 3) * 4, torch.ones(3, dtype=torch.int32))
    if path == "script":
        _check_dynamic(ToOther(), [inputs, (torch.randn(4, 3), torch.ones(3, dtype=torch.int32))], tmp_path)
    else:
        check_module(ToOther(), inputs, tmp_path, path)


class DictInput(nn.Module):
    def forward(self, d: Dict[str, torch.Tensor]):
        return d["a"] + d["b"] * 2


class ListInput(nn.Module):
    def forward(self, xs: List[torch.Tensor], y):
        return xs[0] * xs[1] + y, xs[-1]


class TupleInput(nn.Module):
    def forward(self, xs: Tuple[torch.Tensor, torch.Tensor]):
        return xs[0] - xs[1]


_A, _B, _Y = torch.randn(2, 3), torch.randn(2, 3), torch.randn(2, 3)


@pytest.mark.parametrize("form", ["module", "script", "trace"])
@pytest.mark.parametrize("module,example,names", [
    (DictInput(), ({"a": _A, "b": _B},), ["d_a", "d_b"]),
    (ListInput(), ([_A, _B], _Y), ["xs_0", "xs_1", "y"]),
    (TupleInput(), ((_A, _B),), ["xs_0", "xs_1"])], ids=["dict", "list", "tuple"])
def test_structured_inputs(tmp_path, form, module, example, names):
    """List, tuple and dict inputs become one input per tensor, named as torch.export names them."""
    model = module if form == "module" else torch.jit.script(module) if form == "script" else \
        torch.jit.trace(module, example, strict=False)
    xml = convert_model(input_model=model, example_input=example, output_dir=str(tmp_path),
                        compress_to_fp16=False).xml
    inputs = {"d_a": _A, "d_b": _B, "xs_0": _A, "xs_1": _B, "y": _Y}
    assert_close(run_ir(xml, {n: inputs[n].numpy() for n in names}), torch_outputs(module, example))


def test_structured_input_needs_an_example(tmp_path):
    with pytest.raises(InputModelError, match="give it .* in example_input"):
        convert_model(input_model=torch.jit.script(ListInput()), example_input=(None, _Y), output_dir=str(tmp_path))
