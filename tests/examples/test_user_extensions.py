"""The example user extensions, used through the command line, and errors in user extensions."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import onnx
from defusedxml import ElementTree
from onnx import TensorProto, helper

from tests.utils.onnx_models import make_model
from tests.utils.runtime import assert_close, run_ir

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples", "extensions")


def run_mo(*args):
    return subprocess.run([sys.executable, os.path.join(ROOT, "mo.py"), *args], capture_output=True, text=True)


def _types(xml):
    return [layer.get("type") for layer in ElementTree.parse(xml).getroot().iter("layer")]


def _model(tmp_path):
    nodes = [helper.make_node("ScaledTanh", ["x"], ["t"], domain="com.example", alpha=2.0, beta=0.5),
             helper.make_node("Max", ["t", "zero"], ["m"]),
             helper.make_node("Min", ["m", "six"], ["r6"]),
             helper.make_node("Reshape", ["r6", "same"], ["y"])]
    model = make_model(nodes, [("x", TensorProto.FLOAT, [2, 3])], [("y", TensorProto.FLOAT, [2, 3])],
                       {"zero": np.array(0, np.float32), "six": np.array(6, np.float32),
                        "same": np.array([2, 3], np.int64)})
    model.opset_import.append(helper.make_opsetid("com.example", 1))
    path = str(tmp_path / "custom.onnx")
    onnx.save(model, path)
    return path


def test_examples_convert_a_custom_op_and_apply_both_transforms(tmp_path):
    path = _model(tmp_path)
    without = run_mo("--input_model", path, "--output_dir", str(tmp_path / "plain"))
    assert without.returncode == 1 and "com.example::ScaledTanh" in without.stderr
    r = run_mo("--input_model", path, "--output_dir", str(tmp_path / "out"), "--extensions", EXAMPLES,
               "--compress_to_fp16=False")
    assert r.returncode == 0, r.stderr
    xml = str(tmp_path / "out" / "custom.xml")
    types = _types(xml)
    assert "Clamp" in types and "Maximum" not in types and "Minimum" not in types
    assert "Reshape" not in types and types.count("Tanh") == 1
    x = np.array([[-4, -1, 0], [1, 5, 30]], np.float32)
    assert_close(run_ir(xml, [x]), [np.clip(2 * np.tanh(0.5 * x), 0, 6)], rtol=1e-6, atol=0)


def _ext(tmp_path, rel, text):
    path = tmp_path / "ext" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return str(tmp_path / "ext")


def _relu_model(tmp_path):
    path = str(tmp_path / "relu.onnx")
    onnx.save(make_model([helper.make_node("Relu", ["x"], ["y"])], [("x", TensorProto.FLOAT, [2])],
                         [("y", TensorProto.FLOAT, [2])]), path)
    return path


def test_infer_error_in_user_op_names_file_and_class(tmp_path):
    ext = _ext(tmp_path, "ops/bad_relu.py", """
        from mo.ops.op import Op
        class BadReLU(Op):
            op = "ReLU"
            @classmethod
            def infer(cls, node):
                raise RuntimeError("boom")
    """)
    r = run_mo("--input_model", _relu_model(tmp_path), "--output_dir", str(tmp_path / "o"), "--extensions", ext)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "BadReLU" in r.stderr and "bad_relu.py" in r.stderr and "boom" in r.stderr


def test_import_error_in_user_extension_names_file(tmp_path):
    ext = _ext(tmp_path, "front/broken.py", "import not_a_real_module_name\n")
    r = run_mo("--input_model", _relu_model(tmp_path), "--output_dir", str(tmp_path / "o"), "--extensions", ext)
    assert r.returncode == 1 and "broken.py" in r.stderr and "Traceback" not in r.stderr


def test_failing_user_transform_names_file_and_class(tmp_path):
    ext = _ext(tmp_path, "middle/fails.py", """
        from mo.pipeline.transform import Transform
        class AlwaysFails(Transform):
            phase = "middle"
            def find_and_replace_pattern(self, graph):
                raise ValueError("nope")
    """)
    r = run_mo("--input_model", _relu_model(tmp_path), "--output_dir", str(tmp_path / "o"), "--extensions", ext)
    assert r.returncode == 1 and "AlwaysFails" in r.stderr and "fails.py" in r.stderr
    assert not os.path.exists(tmp_path / "o") or not os.listdir(tmp_path / "o")
