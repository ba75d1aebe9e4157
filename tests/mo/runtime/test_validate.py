"""--validate: the IR run in OpenVINO against the source framework, for each framework, passing
and with a translator replaced by a wrong one (an --extensions folder), from the CLI (exit status
2 on a failure) and the Python API (ValidationFailed)."""
import numpy as np
import pytest

from mo import convert_model
from mo.errors import ConversionError
from mo.runtime.validate import ValidationFailed, compare_output
from tests.e2e.test_cli import run_mo

WRONG_RELU = '''
from extensions.load.pytorch.arguments import aten
from mo.front.translator import translator


@translator("onnx", "Relu")
@translator("tf", "Relu")
def wrong_relu(node, b):
    return [b.Sigmoid(node.in_port(0).get_source())]


@aten("aten::relu")
def wrong_aten_relu(node, a, b):
    return [b.Sigmoid(a.tensor(0))]
'''


@pytest.fixture
def broken(tmp_path):
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "wrong_relu.py").write_text(WRONG_RELU)
    return str(folder)


def _rows(stdout: str) -> dict:
    """output name -> PASS/FAIL from the report's table."""
    rows = {}
    for line in stdout.splitlines():
        parts = line.split()
        if line.startswith("[ VALIDATE ]") and len(parts) >= 7 and parts[6] in ("PASS", "FAIL"):
            rows[parts[3]] = parts[6]
    return rows


def test_onnx_cli_passes(model_path, tmp_path):
    r = run_mo(model_path, "-o", str(tmp_path / "ir"), "--validate")
    assert r.returncode == 0, r.stdout + r.stderr
    assert _rows(r.stdout) == {"y": "PASS", "z": "PASS"}
    assert "ONNX Runtime" in r.stdout and "x[1,3,8,8]" in r.stdout
    assert "tolerance 0.01" in r.stdout and "fp16" in r.stdout


def test_onnx_cli_broken_translator_fails_with_status_2(model_path, tmp_path, broken):
    r = run_mo(model_path, "-o", str(tmp_path / "ir"), "--validate", "--extensions", broken,
               "--compress_to_fp16=False")
    assert r.returncode == 2, r.stdout + r.stderr
    assert _rows(r.stdout) == {"y": "FAIL", "z": "PASS"}
    assert "tolerance 0.0001" in r.stdout
    assert "[ ERROR ] --validate: output y" in r.stderr and "Traceback" not in r.stderr


def test_validate_shapes_and_inputs_file(model_path, tmp_path):
    r = run_mo(model_path, "-o", str(tmp_path / "ir"), "--validate", "--validate_shapes", "x[3,3,8,8]")
    assert r.returncode == 0 and "x[3,3,8,8]" in r.stdout, r.stdout + r.stderr
    np.savez(tmp_path / "in.npz", x=np.ones((2, 3, 8, 8), np.float32))
    r = run_mo(model_path, "-o", str(tmp_path / "ir"), "--validate", "--validate_inputs", str(tmp_path / "in.npz"),
               "--validate_tolerance", "1e-3")
    assert r.returncode == 0 and "from --validate_inputs" in r.stdout and "x[2,3,8,8]" in r.stdout, r.stdout
    assert "tolerance 0.001" in r.stdout


def test_bounded_dimension_takes_its_lower_bound(model_path):
    ir = convert_model(model_path, input="x[2..6,3,8,8]", validate=True)
    assert ir.validation.passed and ir.validation.inputs[0][1] == (2, 3, 8, 8)


def test_api_in_memory_model_and_failure(model_path, broken):
    ir = convert_model(model_path, validate=True, compress_to_fp16=False)
    assert ir.validation.passed and ir.validation.tolerance == 1e-4
    with pytest.raises(ValidationFailed) as failure:
        convert_model(model_path, validate=True, extensions=broken)
    assert [c.passed for c in failure.value.report.checks] == [False, True]


@pytest.mark.parametrize("options", [
    {"mean_values": [1, 2, 3], "scale_values": [2, 4, 8], "reverse_input_channels": True},
    {"scale": 255, "layout": "nchw->nhwc"},
    {"mean_values": "x[0.5,0.5,0.5]", "layout": "x(nchw->nhwc)", "reverse_input_channels": True},
])
def test_preprocessing_is_applied_to_the_source_models_inputs(model_path, options):
    assert convert_model(model_path, validate=True, compress_to_fp16=False, **options).validation.passed


def test_tensorflow_nhwc_preprocessing(tmp_path):
    import tensorflow as tf

    from tests.utils.tf_models import freeze, specs_for, write_pb
    x = np.zeros((1, 4, 4, 3), np.float32)
    path = write_pb(freeze(lambda a: tf.nn.relu(a) * tf.constant([1.0, 2.0, 3.0]), specs_for([x])), tmp_path / "m.pb")
    report = convert_model(path, validate=True, mean_values=[1, 2, 3], reverse_input_channels=True).validation
    assert report.passed


def _tf_model():
    import tensorflow as tf

    from tests.utils.tf_models import freeze, specs_for, write_pb
    x = np.zeros((2, 5), np.float32)

    def fn(a, b):
        return tf.nn.relu(a) * b, tf.reduce_sum(a, axis=1)
    return freeze(fn, specs_for([x, x], dynamic_batch=True)), write_pb


def test_tensorflow_graph_def_passes_and_broken_fails(tmp_path, broken):
    graph_def, write_pb = _tf_model()
    path = write_pb(graph_def, tmp_path / "model.pb")
    ir = convert_model(path, validate=True, compress_to_fp16=False)
    assert ir.validation.passed and ir.validation.framework.startswith("TensorFlow")
    assert [s for _, s, _ in ir.validation.inputs] == [(1, 5), (1, 5)]
    with pytest.raises(ValidationFailed) as failure:
        convert_model(path, validate=True, extensions=broken)
    assert [c.passed for c in failure.value.report.checks] == [False, True]


def test_tensorflow_saved_model_with_variables(tmp_path, broken):
    import tensorflow as tf

    class Dense(tf.Module):
        def __init__(self):
            self.w = tf.Variable(np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32))

        @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
        def __call__(self, x):
            return {"out": tf.nn.relu(tf.matmul(x, self.w))}
    tf.saved_model.save(Dense(), str(tmp_path / "sm"))
    assert convert_model(str(tmp_path / "sm"), validate=True).validation.passed
    with pytest.raises(ValidationFailed):
        convert_model(str(tmp_path / "sm"), validate=True, extensions=broken, compress_to_fp16=False)


def test_keras_export_saved_model_cli(tmp_path, broken):
    """model.export() (Keras 3) writes a signature that calls the model's function inside another
    call: its tensors are named differently by mo's reader and by TensorFlow. The outputs are
    matched by their signature keys (output_0, ...), nothing was cut."""
    import keras
    keras.utils.set_random_seed(0)
    x = keras.Input((6,), name="x")
    h = keras.layers.Dense(8)(x)
    model = keras.Model(x, [keras.layers.Dense(3)(h), keras.layers.Dense(2, activation="relu")(h)])
    saved = str(tmp_path / "exported")
    model.export(saved, verbose=False)
    result = run_mo("--saved_model_dir", saved, "--output_dir", str(tmp_path / "ir"), "--validate")
    assert result.returncode == 0, result.stderr
    assert _rows(result.stdout) == {"output_0": "PASS", "output_1": "PASS"}
    failed = run_mo("--saved_model_dir", saved, "--output_dir", str(tmp_path / "bad"), "--validate",
                    "--extensions", broken)
    assert failed.returncode == 2 and _rows(failed.stdout) == {"output_0": "PASS", "output_1": "FAIL"}


def _torch_module():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(6, 4)

        def forward(self, x, y):
            return torch.relu(self.linear(x)) + y, x.sum(1)
    torch.manual_seed(0)
    return Net().eval(), (torch.randn(2, 6), torch.randn(2, 4))


def test_pytorch_object_passes_and_broken_fails(broken):
    module, example = _torch_module()
    ir = convert_model(module, example_input=example, validate=True, compress_to_fp16=False)
    assert ir.validation.passed and ir.validation.framework.startswith("PyTorch")
    with pytest.raises(ValidationFailed) as failure:
        convert_model(module, example_input=example, validate=True, extensions=broken)
    assert [c.passed for c in failure.value.report.checks] == [False, True]


def test_pytorch_torchscript_file_cli(tmp_path, broken):
    import torch
    module, example = _torch_module()
    path = str(tmp_path / "net.pt")
    torch.jit.save(torch.jit.trace(module, example), path)
    args = (path, "-o", str(tmp_path / "ir"), "--input", "x[2,6],y[2,4]", "--validate")
    r = run_mo(*args)
    assert r.returncode == 0 and list(_rows(r.stdout).values()) == ["PASS", "PASS"], r.stdout + r.stderr
    r = run_mo(*args, "--extensions", broken)
    assert r.returncode == 2 and "FAIL" in r.stdout, r.stdout + r.stderr


def test_pytorch_exported_program_file(tmp_path):
    import torch
    module, example = _torch_module()
    path = str(tmp_path / "net.pt2")
    torch.export.save(torch.export.export(module, example), path)
    assert convert_model(path, validate=True).validation.passed


@pytest.mark.parametrize("actual, expected, passed", [
    (np.array([1.0, 2.0]), np.array([1.0, 2.00001]), True),
    (np.array([100.0, 0.0]), np.array([100.005, 0.0]), True),     # relative to the output's largest value
    (np.array([1.0, 0.0]), np.array([1.0, 0.01]), False),
    (np.array([1, 2], np.int64), np.array([1, 3], np.int64), False),
    (np.array([np.nan, 1.0]), np.array([np.nan, 1.0]), True),
    (np.array([np.nan, 1.0]), np.array([0.0, 1.0]), False),
    (np.zeros((2, 3)), np.zeros((3, 2)), False),
])
def test_compare_output(actual, expected, passed):
    assert compare_output("o", actual, expected, 1e-4).passed is passed


def test_output_cut_validates_against_the_inner_tensor(model_path):
    ir = convert_model(model_path, output="c", validate=True, compress_to_fp16=False)
    assert [c.name for c in ir.validation.checks] == ["c"] and ir.validation.passed


def test_input_cut_is_refused_with_what_to_do(model_path):
    with pytest.raises(ConversionError, match="validate the model without the cut"):
        convert_model(model_path, input="c[1,4,8,8]", validate=True)
