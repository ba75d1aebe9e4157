"""PyTorch loading: capture forms (ExportedProgram file and object, ScriptModule, nn.Module through
export or trace), dynamic dimensions, weights shared with the model, output names, errors."""
import logging
import os
import subprocess
import sys
from unittest import mock

import numpy as np
import pytest
import torch

from mo import convert_model
from mo.cli.options import make_options
from mo.errors import InputModelError, OptionError, UnsupportedOpsError
from mo.pipeline.context import ConversionContext
from tests.utils.graphs import registry
from tests.utils.runtime import assert_close, core, run_ir
from tests.utils.torch_custom_op import OP_NAME, untranslated

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.fc = torch.nn.Linear(4, 2)

    def forward(self, x):
        return {"logits": self.fc(self.conv(x).mean((2, 3))), "features": torch.relu(self.conv(x))}


X = torch.randn(2, 3, 8, 8)


def _expected(module, x):
    with torch.no_grad():
        return [v.numpy() for v in module(x).values()]


def test_exported_program_file_keeps_dynamic_batch(tmp_path):
    module = Block().eval()
    program = torch.export.export(module, (X,), dynamic_shapes=({0: torch.export.Dim("batch")},))
    path = str(tmp_path / "block.pt2")
    torch.export.save(program, path)
    result = subprocess.run([sys.executable, os.path.join(ROOT, "mo.py"), "--input_model", path, "--output_dir",
                             str(tmp_path), "--compress_to_fp16=False"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    xml = str(tmp_path / "block.xml")
    assert str(core().read_model(xml).input(0).get_partial_shape()) == "[?,3,8,8]"
    x = torch.randn(5, 3, 8, 8)
    assert_close(run_ir(xml, [x.numpy()]), _expected(module, x))


def test_exported_program_object_and_output_names(tmp_path):
    module = Block().eval()
    program = torch.export.export(module, (X,))
    xml = convert_model(input_model=program, output_dir=str(tmp_path), compress_to_fp16=False).xml
    outputs = core().read_model(xml).outputs
    assert "logits" in outputs[0].get_names() and "features" in outputs[1].get_names()
    assert_close(run_ir(xml, [X.numpy()]), _expected(module, X))


def test_program_left_with_in_place_writes_into_views(tmp_path):
    class Writes(torch.nn.Module):
        def forward(self, x):
            y = x.clone()
            y.mul_(2)
            y[:, 1] = 7.0
            y[0, 1:3].relu_()
            return y

    x = torch.randn(2, 4)
    program = torch.export.export(Writes(), (x,))
    with mock.patch.object(type(program), "run_decompositions", side_effect=RuntimeError("not functionalised")):
        xml = convert_model(input_model=program, output_dir=str(tmp_path), compress_to_fp16=False).xml
    assert_close(run_ir(xml, [x.numpy()]), [Writes()(x).numpy()])


def test_script_module_with_control_flow_on_attributes(tmp_path):
    class Scripted(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = 2.0

        def forward(self, x, y):
            if self.training:
                x = x * 0
            z = x * self.scale
            for _ in range(2):
                z = z + y
            return z, x.size(1)

    scripted = torch.jit.script(Scripted().eval())
    x, y = torch.randn(2, 3), torch.randn(2, 3)
    xml = convert_model(input_model=scripted, example_input=(x, y), output_dir=str(tmp_path)).xml
    z, size = run_ir(xml, [x.numpy(), y.numpy()])
    np.testing.assert_allclose(z, (x * 2 + 2 * y).numpy(), rtol=1e-5)
    assert int(size) == 3


class _Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.INFO)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def test_scripted_gru_overloaded_forward_and_optional_state(tmp_path):
    module = torch.nn.GRU(4, 5, batch_first=True).eval()
    x = torch.randn(2, 3, 4)
    path = str(tmp_path / "gru.pt")
    torch.jit.save(torch.jit.script(module), path)
    xml = convert_model(input_model=path, example_input=(x,), output_dir=str(tmp_path), compress_to_fp16=False).xml
    assert len(core().read_model(xml).inputs) == 1
    with torch.no_grad():
        expected = [t.numpy() for t in module(x)]
    assert_close(run_ir(xml, [x.numpy()]), expected)


def test_module_capture_path_is_logged(tmp_path):
    logger = logging.getLogger("mo")
    records, level = _Records(), logger.level
    logger.addHandler(records)
    logger.setLevel(logging.INFO)
    try:
        convert_model(input_model=Block(), example_input=X, output_dir=str(tmp_path / "a"))
        assert any("with torch.export" in m for m in records.messages)
        records.messages.clear()
        with mock.patch.object(torch.export, "export", side_effect=RuntimeError("no")):
            xml = convert_model(input_model=Block(), example_input=X, output_dir=str(tmp_path / "b"),
                                compress_to_fp16=False).xml
    finally:
        logger.removeHandler(records)
        logger.setLevel(level)
    text = "\n".join(records.messages)
    assert "torch.export of Block failed" in text and "with torch.jit.trace" in text
    assert_close(run_ir(xml, [X.numpy()]), _expected(Block().eval(), X))


def test_module_with_dynamic_input_option_exports_dynamic_dims(tmp_path):
    xml = convert_model(input_model=Block(), example_input=X, input="x[?,3,?,?]", output_dir=str(tmp_path),
                        compress_to_fp16=False).xml
    assert str(core().read_model(xml).input(0).get_partial_shape()) == "[?,3,?,?]"
    x = torch.randn(1, 3, 5, 6)
    assert_close(run_ir(xml, [x.numpy()]), _expected(Block().eval(), x))


def test_size_arithmetic_on_dynamic_dims_and_specialized_dims(tmp_path):
    import math

    class Scaled(torch.nn.Module):
        def forward(self, x):   # math.sqrt of a size makes torch.export specialize that dim
            return x / math.sqrt(x.shape[-1]) + x.shape[0] * 2, x.view(x.shape[0] * x.shape[1], -1)

    xml = convert_model(input_model=Scaled(), example_input=torch.randn(2, 3, 4), input="x[?,?,?]",
                        output_dir=str(tmp_path), compress_to_fp16=False).xml
    assert str(core().read_model(xml).input(0).get_partial_shape()) == "[?,?,4]"
    x = torch.randn(3, 5, 4)
    assert_close(run_ir(xml, [x.numpy()]), [t.numpy() for t in Scaled()(x)])


def test_weights_share_memory_with_the_module():
    from extensions.load.pytorch.loader import PyTorchLoader
    module = Block().eval()
    opts = make_options({"input_model": module, "example_input": X})
    graph = PyTorchLoader().load(ConversionContext(opts, registry(), "pytorch"))
    weight = module.conv.weight.detach().numpy()
    assert any(np.shares_memory(n.value, weight) for n in graph.nodes_by_op("Const"))


def test_unsupported_ops_are_listed_together_with_source_lines(tmp_path):
    class Odd(torch.nn.Module):
        def forward(self, x):
            y = untranslated(x)
            z = torch.poisson(x.abs())
            return y + z + untranslated(z)

    with pytest.raises(UnsupportedOpsError) as info:
        convert_model(input_model=Odd(), example_input=torch.randn(3), output_dir=str(tmp_path))
    text = str(info.value)
    assert OP_NAME in text and "aten::poisson" in text
    assert "test_pytorch_loader.py:" in text
    assert not os.path.exists(tmp_path) or not os.listdir(tmp_path)


def test_unused_unsupported_op_does_not_block(tmp_path):
    class Unused(torch.nn.Module):
        def forward(self, x):
            untranslated(x)
            return x + 1

    x = torch.randn(3)
    xml = convert_model(input_model=Unused(), example_input=(x,), output_dir=str(tmp_path)).xml
    assert_close(run_ir(xml, [x.numpy()]), [(x + 1).numpy()], rtol=1e-7, atol=0)


def test_module_needs_example_input(tmp_path):
    with pytest.raises(OptionError, match="example_input"):
        convert_model(input_model=Block(), output_dir=str(tmp_path))


def test_pickled_module_file_is_refused_with_advice(tmp_path):
    path = str(tmp_path / "model.pt")
    torch.save(Block(), path)
    with pytest.raises(InputModelError, match="torch.jit.save"):
        convert_model(input_model=path, output_dir=str(tmp_path))


def test_converting_onnx_does_not_import_torch(tmp_path):
    code = ("import sys, onnx\n"
            "from tests.utils.onnx_models import conv_relu_model\n"
            "from mo import convert_model\n"
            f"convert_model(input_model=conv_relu_model(), output_dir={str(tmp_path)!r})\n"
            "assert 'torch' not in sys.modules, 'torch was imported'\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


class _CountedLoop(torch.nn.Module):
    def forward(self, x):
        i = 0
        while True:
            x = x + 1
            i += 1
            if i >= 3:
                break
        return x


class _EndlessLoop(torch.nn.Module):
    def forward(self, x):
        while True:
            x = x + 1
        return x


def test_scripted_while_true_with_a_known_break_is_unrolled(tmp_path):
    path = str(tmp_path / "loop.pt")
    torch.jit.save(torch.jit.script(_CountedLoop()), path)
    paths = convert_model(input_model=path, input="x[2]{f32}", output_dir=str(tmp_path))
    x = np.array([1, 2], np.float32)
    assert_close(run_ir(paths.xml, [x]), [x + 3])


def test_scripted_endless_loop_is_refused_not_unrolled_forever(tmp_path):
    path = str(tmp_path / "forever.pt")
    torch.jit.save(torch.jit.script(_EndlessLoop()), path)
    with pytest.raises(InputModelError, match="more than 4096 iterations"):
        convert_model(input_model=path, input="x[2]{f32}", output_dir=str(tmp_path))


def test_damaged_archive_is_refused(tmp_path):
    path = str(tmp_path / "model.pt")
    torch.jit.save(torch.jit.script(_CountedLoop()), path)
    data = bytearray(open(path, "rb").read())
    central = data.rfind(b"PK\x01\x02")              # a file name in the central directory
    data[central + 47] = 0xE9                          # becomes invalid UTF-8 (with the UTF-8 flag)
    data[central + 8] |= 0x08
    data[central + 9] |= 0x08
    open(path, "wb").write(bytes(data))
    with pytest.raises(InputModelError):
        convert_model(input_model=path, input="x[2]{f32}", output_dir=str(tmp_path))


class _Payload:
    """Pickles to a call that leaves a marker file: what a hostile archive would run."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_exported_program_with_a_pickle_payload_is_refused_without_running_it(tmp_path):
    import io
    import zipfile
    ep = torch.export.export(_CountedLoop(), (torch.randn(2),))
    path = str(tmp_path / "model.pt2")
    torch.export.save(ep, path)
    marker = tmp_path / "ran"
    payload = io.BytesIO()
    torch.save((_Payload(str(marker)),), payload)
    hostile = str(tmp_path / "hostile.pt2")
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(hostile, "w") as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            dst.writestr(item, payload.getvalue() if item.filename.endswith("sample_inputs/model.pt") else data)
    with pytest.raises(InputModelError, match="pickled Python objects"):
        convert_model(input_model=hostile, output_dir=str(tmp_path / "out"))
    assert not marker.exists()
    assert not os.path.exists(tmp_path / "out") or os.listdir(tmp_path / "out") == []


def _rewrite_archive(src, dst, change):
    """A copy of the zip ``src`` with each entry's bytes passed through ``change(name, data)``."""
    import zipfile
    with zipfile.ZipFile(src) as old, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as new:
        for info in old.infolist():
            new.writestr(info.filename, change(info.filename, old.read(info)))
    return str(dst)


def test_damaged_debug_records_are_refused_before_torch_reads_them(tmp_path):
    """torch trusts the indices in *.debug_pkl and crashes on a bad one when a node's source is
    asked for; such an archive is refused, and a record naming any callable is not executed."""
    import pickle
    import zipfile

    from extensions.load.pytorch.debug_info import record_problem
    path = str(tmp_path / "ok.pt")
    torch.jit.save(torch.jit.trace(torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU()), torch.zeros(1, 3)),
                   path)
    with zipfile.ZipFile(path) as archive:
        records = [archive.read(n) for n in archive.namelist() if n.endswith(".debug_pkl")]
    assert records and all(record_problem(r) is None for r in records)

    bad_index = pickle.dumps(("FORMAT_WITH_STRING_TABLE", ("",), ((0, (([5], 0, 0), 0, 0), 0),)), protocol=2)
    assert record_problem(bad_index) == "an index lies outside its string table"
    assert "it names os.system" in record_problem(b"cos\nsystem\n(S'echo'\ntR.")
    assert "not a readable record" in record_problem(records[0][:-7])

    damaged = _rewrite_archive(path, tmp_path / "damaged.pt",
                               lambda name, data: bad_index if name.endswith(".debug_pkl") else data)
    with pytest.raises(InputModelError, match=r"damaged TorchScript archive: its debug information is invalid "
                                              r"\(.*\.debug_pkl: an index lies outside its string table\)"):
        convert_model(damaged, output_dir=str(tmp_path / "ir"), input="input[1,3]")
    assert not os.path.exists(tmp_path / "ir") or not os.listdir(tmp_path / "ir")
