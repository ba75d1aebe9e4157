"""How user extensions are found and loaded: a folder named ``extensions`` in the working
directory does not shadow the built-in package; --extensions takes a folder, a single .py file or
a comma-separated list; files of one folder import each other; a later entry that replaces an
op says so in the log; --list_ops names what a pattern can match."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from mo import convert_model
from mo.errors import ExtensionError
from mo.pipeline.explain import list_ops
from mo.registry import Registry
from tests.e2e.test_cli import ROOT, run_mo
from tests.utils.runtime import run_ir

SIGMOID_RELU = '''
from mo.front.translator import translator


@translator("onnx", "Relu")
def relu(node, b):
    return [b.Sigmoid(node.in_port(0).get_source())]
'''


def _write(folder, files: dict) -> str:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return str(folder)


@pytest.mark.parametrize("command", [["-c", "from mo.main import entry; entry()"], ["-m", "mo"]])
def test_an_extensions_folder_in_the_working_directory_does_not_shadow_the_built_in_one(model_path, tmp_path,
                                                                                        command):
    _write(tmp_path, {"extensions/__init__.py": "", "extensions/front/__init__.py": "",
                      "extensions/front/mine.py": "raise RuntimeError('a user file, not to be imported')\n"})
    env = {**os.environ, "PYTHONPATH": ROOT}
    r = subprocess.run([sys.executable, *command, model_path, "-o", "ir"], capture_output=True, text=True,
                       cwd=str(tmp_path), env=env)
    assert r.returncode == 0, r.stderr
    assert os.path.exists(tmp_path / "ir" / "model.xml")
    r = subprocess.run([sys.executable, *command, model_path, "-o", "ir2", "--extensions", "extensions"],
                       capture_output=True, text=True, cwd=str(tmp_path), env=env)
    assert r.returncode == 1 and "a user file, not to be imported" in r.stderr     # loaded as a user folder


def test_a_module_named_extensions_imported_before_mo_is_replaced(model_path, tmp_path):
    _write(tmp_path, {"extensions/__init__.py": "MINE = True\n"})
    code = (f"import sys; sys.path.insert(0, {str(tmp_path)!r}); import extensions; assert extensions.MINE; "
            f"sys.path.insert(0, {ROOT!r}); from mo import convert_model; convert_model({model_path!r})")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(tmp_path))
    assert r.returncode == 0 and "mo uses its built-in extensions package" in r.stderr, r.stderr


def test_extensions_as_a_file_and_a_comma_separated_list(model_path, tmp_path):
    single = _write(tmp_path / "one", {"sigmoid_relu.py": SIGMOID_RELU})
    x = np.random.default_rng(0).standard_normal((1, 3, 8, 8)).astype(np.float32)
    for given in (os.path.join(single, "sigmoid_relu.py"), f"{tmp_path / 'empty'},{single}"):
        (tmp_path / "empty").mkdir(exist_ok=True)
        ir = convert_model(model_path, extensions=given, compress_to_fp16=False)
        y, z = run_ir(ir.save(str(tmp_path / "ir" / "m.xml")).xml, [x])
        np.testing.assert_allclose(y, z, rtol=1e-6)                # Relu translated as Sigmoid
    r = run_mo(model_path, "-o", str(tmp_path / "cli"), "--extensions", f"{tmp_path / 'empty'},{single}")
    assert r.returncode == 0, r.stderr
    (tmp_path / "notes.txt").write_text("")
    with pytest.raises(ExtensionError, match="not a Python"):
        convert_model(model_path, extensions=str(tmp_path / "notes.txt"))


def test_extension_files_import_each_other(model_path, tmp_path):
    folder = _write(tmp_path / "ext", {
        "common/building.py": """
            def sigmoid_of_input(node, b):
                return [b.Sigmoid(node.in_port(0).get_source())]
            """,
        "front/onnx/relu.py": """
            from mo.front.translator import translator

            from ...common.building import sigmoid_of_input
            from . import helper


            @translator("onnx", "Relu")
            def relu(node, b):
                assert helper.VALUE == 42
                return sigmoid_of_input(node, b)
            """,
        "front/onnx/helper.py": "VALUE = 42\n"})
    registry = Registry.build([folder])
    assert registry.translator("onnx", "Relu").__module__.endswith("front.onnx.relu")
    convert_model(model_path, extensions=folder)


def test_a_later_folder_replacing_an_op_is_logged(tmp_path, caplog):
    first = _write(tmp_path / "a", {"relu.py": SIGMOID_RELU})
    second = _write(tmp_path / "b", {"relu.py": SIGMOID_RELU})
    caplog.handler.setLevel(0)
    with caplog.at_level(20, logger="mo"):
        Registry.build([first, second])
    replaced = [r for r in caplog.records if "translator onnx Relu" in r.getMessage()]
    assert [r.levelname for r in replaced] == ["INFO", "WARNING"]
    assert str(tmp_path / "b" / "relu.py") in replaced[1].getMessage()
    assert str(tmp_path / "a" / "relu.py") in replaced[1].getMessage()
    assert "extensions/front/onnx/elementwise.py" in replaced[0].getMessage()


def test_list_ops(tmp_path):
    text = list_ops(Registry.build(), "onnx")
    assert "\nReLU " in text and "ReLU-1" in text and "Multiply-1" in text and "extensions.ops.elementwise" in text
    assert "onnx operations (front phase" in text and "Resize" in text and "tf operations" not in text
    r = run_mo("--list_ops")
    assert r.returncode == 0 and "pytorch operations" in r.stdout and "aten::softmax" in r.stdout
    documented = open(os.path.join(ROOT, "docs", "ops.md")).read()
    assert "| `ReLU` | ReLU-1 |" in documented and "| `ReadValue` | ReadValue-6 |" in documented
