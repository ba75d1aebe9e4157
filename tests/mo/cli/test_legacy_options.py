"""Options a user of the legacy Model Optimizer or of OpenVINO's converter reaches for: value
forms (--reverse_input_channels=True, --input 0:node / node:0 without a shape, partial layouts),
--example_input on the command line, the short forms -s / -w, and the options that are accepted
without effect or refused with what to use instead."""
import numpy as np
import onnx
import pytest

from mo import convert_model
from mo.cli.options import build_parser, make_options, parse_transforms
from mo.errors import OptionError
from tests.e2e.test_cli import run_mo
from tests.e2e.test_convert_model import X
from tests.utils.onnx_models import run_onnxruntime
from tests.utils.runtime import assert_close, core, run_ir


def test_reverse_input_channels_takes_a_value(model_path):
    plain = convert_model(model_path, reverse_input_channels="False").to_openvino()
    flipped = convert_model(model_path, reverse_input_channels=True, compress_to_fp16=False)
    assert len(plain.get_ordered_ops()) < len(flipped.to_openvino().get_ordered_ops())
    args = build_parser().parse_args(["m.onnx", "--reverse_input_channels=True", "-s", "2", "-w", "m.onnx"])
    assert args.reverse_input_channels is True and args.scale == 2.0 and args.input_model == "m.onnx"
    assert build_parser().parse_args(["--reverse_input_channels"]).reverse_input_channels is True


@pytest.mark.parametrize("cut, relu_input", [("0:relu", True), ("conv:0", False), ("c", False)])
def test_input_at_a_node_port_without_a_shape(model_path, tmp_path, cut, relu_input):
    r = run_mo(model_path, "-o", str(tmp_path), "--input", cut)
    assert r.returncode == 0, r.stderr
    model = core().read_model(str(tmp_path / "model.xml"))
    # the cut tensor's shape and type inferred from the model (its dynamic batch stays dynamic), and
    # its name: the tensor's own when the whole tensor is cut, the --input name when one use is
    assert str(model.inputs[-1].get_partial_shape()) == "[?,4,8,8]"
    assert model.inputs[-1].get_element_type().get_type_name() == "f32"
    assert model.inputs[-1].get_names() == ({"0:relu"} if relu_input else {"c"})
    core().compile_model(model, "CPU")
    r = run_mo(model_path, "-o", str(tmp_path), "--input", cut + "[1,4,8,8]", "--compress_to_fp16=False")
    assert r.returncode == 0, r.stderr
    model = core().read_model(str(tmp_path / "model.xml"))
    c = np.random.default_rng(1).standard_normal((1, 4, 8, 8)).astype(np.float32)
    if relu_input:    # only relu's input is cut: the sigmoid branch still reads the convolution of x
        assert len(model.inputs) == 2
        y, z = run_ir(str(tmp_path / "model.xml"), [X[:1], c])
        assert_close([y, z], [np.maximum(c, 0), run_onnxruntime(model_path, [X[:1]])[1]])
    else:
        assert len(model.inputs) == 1
        y, z = run_ir(str(tmp_path / "model.xml"), [c])
        assert_close([y, z], [np.maximum(c, 0), 1 / (1 + np.exp(-c))], rtol=1e-5, atol=1e-5)


def test_inner_cut_of_a_tensorflow_graph_takes_the_tensors_shape_and_type(tmp_path):
    import tensorflow as tf

    from tests.utils.tf_models import tf1_graph, write_pb
    kernel = np.random.default_rng(0).standard_normal((3, 3, 3, 4)).astype(np.float32)

    def build(x):
        r = tf.nn.relu(tf.nn.conv2d(x, kernel, 1, "SAME"), name="relu")
        return tf.argmax(tf.reduce_mean(r, axis=[1, 2]), axis=-1, name="am") + 1
    graph_def, *_ = tf1_graph(build, [np.zeros((1, 8, 8, 3), np.float32)], dynamic_batch=True)
    path = write_pb(graph_def, tmp_path / "cnn.pb")
    r = run_mo(path, "-o", str(tmp_path / "a"), "--input", "relu")
    assert r.returncode == 0, r.stderr
    model = core().read_model(str(tmp_path / "a" / "cnn.xml"))
    assert str(model.inputs[0].get_partial_shape()) == "[?,8,8,4]" and "relu" in model.inputs[0].get_names()
    x = np.random.default_rng(1).standard_normal((2, 8, 8, 4)).astype(np.float32)
    assert_close(run_ir(str(tmp_path / "a" / "cnn.xml"), [x]), [np.maximum(x, 0).mean((1, 2)).argmax(-1) + 1])
    r = run_mo(path, "-o", str(tmp_path / "b"), "--input", "am")       # an integer tensor: i64, not f32
    assert r.returncode == 0, r.stderr
    model = core().read_model(str(tmp_path / "b" / "cnn.xml"))
    assert (str(model.inputs[0].get_partial_shape()), model.inputs[0].get_element_type().get_type_name()) == ("[?]",
                                                                                                             "i64")


def test_inner_cut_of_an_exported_program_takes_the_tensors_shape(tmp_path):
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)

        def forward(self, x):
            return torch.relu(self.conv(x)).argmax(1)
    path = str(tmp_path / "net.pt2")
    torch.export.save(torch.export.export(Net().eval(), (torch.randn(1, 3, 16, 16),)), path)
    r = run_mo(path, "-o", str(tmp_path), "--input", "relu")
    assert r.returncode == 0, r.stderr
    model = core().read_model(str(tmp_path / "net.xml"))
    assert str(model.inputs[0].get_partial_shape()) == "[1,8,16,16]" and model.inputs[0].get_names() == {"relu"}
    x = np.random.default_rng(1).standard_normal((1, 8, 16, 16)).astype(np.float32) + 3    # no ties
    assert_close(run_ir(str(tmp_path / "net.xml"), [x]), [np.maximum(x, 0).argmax(1)])


def test_inner_cut_whose_shape_cannot_be_inferred_asks_for_it(tmp_path):
    from onnx import TensorProto, helper

    from tests.utils.onnx_models import make_model
    model = make_model([helper.make_node("NoSuchOp", ["x"], ["t"], name="odd", domain="com.example"),
                        helper.make_node("Relu", ["t"], ["y"], name="relu")],
                       [("x", TensorProto.FLOAT, [2])], [("y", TensorProto.FLOAT, None)])
    model.opset_import.append(helper.make_opsetid("com.example", 1))
    path = str(tmp_path / "odd.onnx")
    onnx.save(model, path)
    out = tmp_path / "out"
    r = run_mo(path, "-o", str(out), "--input", "t")
    assert r.returncode == 1 and "Traceback" not in r.stderr and not out.exists()
    assert "--input 't'" in r.stderr and "NoSuchOp" in r.stderr and "Give its shape" in r.stderr
    assert run_mo(path, "-o", str(out), "--input", "t[2,3]").returncode == 0      # cut away with a shape


def test_input_port_form_names_a_missing_port(model_path):
    with pytest.raises(OptionError, match="has no input 3"):
        convert_model(model_path, input="3:relu")


@pytest.mark.parametrize("layout, expected", [("n???", "[N,?,?,?]"), ("[n,c,...]", "[N,C,...]"),
                                              ("x(nc...)", "[N,C,...]"), ("[n,?,h,w]", "[N,?,H,W]")])
def test_partial_layouts(model_path, layout, expected):
    model = convert_model(model_path, layout=layout).to_openvino()
    assert str(model.input(0).get_node().get_layout()) == expected


def test_example_input_on_the_command_line(tmp_path):
    import torch

    class Net(torch.nn.Module):
        def forward(self, a, b):
            return torch.relu(a) * b
    path = str(tmp_path / "net.pt")
    a, b = torch.randn(2, 5), torch.randn(2, 5)
    torch.jit.save(torch.jit.trace(Net(), (a, b)), path)
    np.savez(tmp_path / "example.npz", a.numpy(), b.numpy())
    r = run_mo(path, "-o", str(tmp_path / "ir"), "--example_input", str(tmp_path / "example.npz"))
    assert r.returncode == 0, r.stderr
    model = core().read_model(str(tmp_path / "ir" / "net.xml"))
    assert [str(i.get_partial_shape()) for i in model.inputs] == ["[2,5]", "[2,5]"]
    assert_close(run_ir(str(tmp_path / "ir" / "net.xml"), [a.numpy(), b.numpy()]), [(torch.relu(a) * b).numpy()])
    r = run_mo(path, "-o", str(tmp_path / "ir"), "--example_input", str(tmp_path / "missing.npz"))
    assert r.returncode == 1 and "--example_input" in r.stderr and "not a readable .npz" in r.stderr


def test_accepted_and_refused_legacy_options(model_path, tmp_path):
    r = run_mo(model_path, "-o", str(tmp_path), "--use_new_frontend", "--share_weights=False", "--stream_output")
    assert r.returncode == 0, r.stderr
    r = run_mo(model_path, "-o", str(tmp_path), "--tensorboard_logdir", str(tmp_path / "tb"))
    assert r.returncode == 1 and "--tensorboard_logdir is not supported: --report" in r.stderr
    text = run_mo("--help").stdout
    for option in ("--use_new_frontend", "--share_weights", "--tensorboard_logdir", "--stream_output", "-s SCALE",
                   "-w INPUT_MODEL", "--transform", "--progress", "--validate", "--output_model", "--verbose"):
        assert option in text, option


def test_parse_transforms():
    assert parse_transforms("MakeStateful[param_res_names={'a':'b','c':'d'}],LowLatency2") == [
        ("MakeStateful", {"param_res_names": {"a": "b", "c": "d"}}), ("LowLatency2", {})]
    assert parse_transforms("LowLatency2[use_const_initializer=False]") == [
        ("LowLatency2", {"use_const_initializer": False})]
    with pytest.raises(OptionError, match="must be a dict"):
        parse_transforms("MakeStateful[param_res_names=x]")


def test_mo_convert_command_is_declared_and_names_itself():
    import os
    import subprocess
    import sys

    import tomllib

    from tests.e2e.test_cli import ROOT
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        scripts = tomllib.load(f)["project"]["scripts"]
    assert scripts == {"mo": "mo.main:entry", "mo-convert": "mo.main:entry"}
    code = "import sys; sys.argv[0] = '/usr/bin/mo-convert'; from mo.main import entry; entry()"
    r = subprocess.run([sys.executable, "-c", code, "--help"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0 and r.stdout.startswith("usage: mo-convert ")


def test_recorded_paths_are_their_last_component(tmp_path):
    """The IR's rt_info records the options as given, paths without the folders above them (an IR
    is shared; the converting machine's folders say nothing there)."""
    opts = make_options({"input_model": str(tmp_path / "models" / "llama"), "output_model": str(tmp_path / "out" /
                         "m.xml"), "extensions": [str(tmp_path / "ext"), "more/ext2.py"], "batch": 2})
    assert opts.given["input_model"] == "llama" and opts.given["output_dir"] == "out"
    assert opts.given["model_name"] == "m" and opts.given["extensions"] == "ext,ext2.py" and opts.given["batch"] == "2"


def test_readme_offers_the_install_of_each_framework_alone():
    import os

    import tomllib

    from tests.e2e.test_cli import ROOT
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        extras = tomllib.load(f)["project"]["optional-dependencies"]
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    for extra in ("onnx", "pytorch", "tf"):
        assert extra in extras and f'pip install ".[{extra}]"' in readme, extra
