"""The Python API's results and OpenVINO's argument forms: an in-memory IRModel (save,
to_openvino), input= as a shape / shapes / (name, shape) / dict, output_model= and the positional
model path on the command line."""
import os
import subprocess
import sys

import numpy as np
import pytest

from mo import convert_model
from mo.errors import OptionError
from mo.model import IRModel, IRPaths
from tests.e2e.test_cli import run_mo
from tests.e2e.test_convert_model import X
from tests.utils.onnx_models import run_onnxruntime
from tests.utils.runtime import assert_close, core, run_ir


def test_in_memory_model_saves_and_runs(model_path, tmp_path):
    ir = convert_model(model_path, compress_to_fp16=False)
    assert isinstance(ir, IRModel) and ir.name == "model" and ir.xml.startswith("<?xml")
    assert [(i.name, i.shape, i.element_type) for i in ir.inputs] == [("x", (-1, 3, 8, 8), "f32")]
    assert [o.name for o in ir.outputs] == ["y", "z"] and "IRModel 'model'" in repr(ir)
    paths = ir.save(str(tmp_path / "out" / "net.xml"))
    assert paths == IRPaths(str(tmp_path / "out" / "net.xml"), str(tmp_path / "out" / "net.bin"))
    assert_close(run_ir(paths.xml, [X]), run_onnxruntime(model_path, [X]))
    assert open(paths.bin, "rb").read() == ir.weights
    folder = tmp_path / "folder"
    folder.mkdir()
    assert ir.save(str(folder)).xml == str(folder / "model.xml")
    written = convert_model(model_path, output_dir=str(tmp_path / "w"), compress_to_fp16=False)
    same_layers = open(written.xml).read().split("<rt_info>")[0] == ir.xml.split("<rt_info>")[0]
    assert same_layers and open(written.bin, "rb").read() == ir.weights


def test_to_openvino(model_path):
    ov_model = convert_model(model_path).to_openvino()
    compiled = core().compile_model(ov_model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    request.infer({0: X})
    actual = [np.array(request.get_output_tensor(i).data) for i in range(2)]
    assert_close(actual, run_onnxruntime(model_path, [X]), rtol=1e-2, atol=1e-2)


def test_converter_and_in_memory_model_do_not_import_openvino(model_path):
    code = ("import sys; from mo import convert_model; ir = convert_model(%r); ir.save('m.xml'); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('openvino', 'torch', 'tensorflow', 'onnxruntime')))" % model_path)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=os.path.dirname(model_path), env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert r.returncode == 0 and r.stdout.strip() == "[]", r.stdout + r.stderr


@pytest.mark.parametrize("given, shape", [
    ([2, 3, 8, 8], [2, 3, 8, 8]),
    ([[2, 3, 8, 8]], [2, 3, 8, 8]),
    (("x", [4, 3, 8, 8]), [4, 3, 8, 8]),
    ([("x", [1, 3, 8, 8], np.float32)], [1, 3, 8, 8]),
    ({"x": [5, 3, 8, 8]}, [5, 3, 8, 8]),
    ([-1, 3, 8, 8], "[?,3,8,8]"),
    ([None, 3, 8, 8], "[?,3,8,8]"),
    (["1..8", 3, 8, 8], "[1..8,3,8,8]"),
])
def test_input_in_openvino_forms(model_path, given, shape):
    model = convert_model(model_path, input=given).to_openvino()
    pshape = model.input(0).get_partial_shape()
    assert (list(pshape.to_shape()) if pshape.is_static else str(pshape)) == shape


def test_bounded_dims_on_the_command_line(model_path, tmp_path):
    r = run_mo(model_path, "-o", str(tmp_path), "--input", "x[1..8,3,8,8]")
    assert r.returncode == 0, r.stderr
    assert 'shape="1..8,3,8,8"' in open(tmp_path / "model.xml").read()
    assert str(core().read_model(str(tmp_path / "model.xml")).input(0).get_partial_shape()) == "[1..8,3,8,8]"


def test_bad_input_forms(model_path):
    with pytest.raises(OptionError, match="Malformed input 1.5"):
        convert_model(model_path, input=[1.5, 3, 8, 8])
    with pytest.raises(OptionError, match="upper bound below"):
        convert_model(model_path, input="x[8..1,3,8,8]")


def test_output_model_and_positional_model(model_path, tmp_path):
    paths = convert_model(model_path, output_model=str(tmp_path / "a" / "net.xml"))
    assert paths.xml == str(tmp_path / "a" / "net.xml") and os.path.exists(paths.bin)
    r = run_mo(model_path, "--output_model", str(tmp_path / "b" / "cli.xml"))
    assert r.returncode == 0 and os.path.exists(tmp_path / "b" / "cli.xml"), r.stderr
    r = run_mo(model_path, cwd=str(tmp_path))
    assert r.returncode == 0 and os.path.exists(tmp_path / "model.xml"), r.stderr
    r = run_mo(model_path, "--input_model", str(tmp_path / "other.onnx"))
    assert r.returncode == 1 and "Give the model once" in r.stderr
    with pytest.raises(OptionError, match="disagree"):
        convert_model(model_path, output_model=str(tmp_path / "c" / "x.xml"), model_name="y")
