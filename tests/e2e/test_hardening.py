"""Broken models, hostile names and odd output folders: a clean error (one message, exit 1, no
traceback, nothing left behind) or an IR the runtime reads, never an internal error."""
import errno
import os
import subprocess
import sys
from unittest import mock

import numpy as np
import onnx
import pytest
from defusedxml import ElementTree
from onnx import TensorProto, helper

from mo import convert_model
from mo.errors import InputModelError, OutputError
from tests.e2e.test_cli import _assert_clean_failure, run_mo
from tests.utils.onnx_models import conv_relu_model, make_model
from tests.utils.runtime import core


def _relu_model(name: str = "x") -> onnx.ModelProto:
    return make_model([helper.make_node("Relu", [name], ["y"], name="relu")],
                      [(name, TensorProto.FLOAT, [2])], [("y", TensorProto.FLOAT, [2])])


def _external_model(tmp_path, offset: str):
    """A model whose weight W lives in w.bin at ``offset`` (as the external-data entry says)."""
    (tmp_path / "w.bin").write_bytes(np.arange(16, dtype=np.float32).tobytes())
    weight = TensorProto(name="W", data_type=TensorProto.FLOAT, dims=[2])
    weight.data_location = TensorProto.EXTERNAL
    for key, value in (("location", "w.bin"), ("offset", offset), ("length", "8")):
        weight.external_data.add(key=key, value=value)
    model = make_model([helper.make_node("Add", ["x", "W"], ["y"], name="add")],
                       [("x", TensorProto.FLOAT, [2])], [("y", TensorProto.FLOAT, [2])])
    model.graph.initializer.append(weight)
    path = tmp_path / "model.onnx"
    path.write_bytes(model.SerializeToString())
    return str(path)


@pytest.mark.parametrize("offset", ["-64", "abc", "1.5"])
def test_external_data_offsets_that_are_not_byte_counts(tmp_path, offset):
    path = _external_model(tmp_path, offset)
    out = tmp_path / "out"
    _assert_clean_failure(run_mo("--input_model", path, "--output_dir", str(out)), out, "'W'", f"offset '{offset}'")


def test_external_data_at_a_valid_offset_converts(tmp_path):
    paths = convert_model(_external_model(tmp_path, "8"), output_dir=str(tmp_path / "out"))
    assert core().read_model(paths.xml) is not None


def test_names_xml_cannot_carry_are_replaced_and_the_ir_loads(tmp_path):
    model = _relu_model("in\x00x\x07")
    paths = convert_model(model, output_dir=str(tmp_path))
    ElementTree.parse(paths.xml)                      # well-formed
    compiled = core().compile_model(core().read_model(paths.xml), "CPU")
    assert compiled([np.array([-1, 2], np.float32)])[0].tolist() == [0, 2]


def test_a_name_that_is_not_utf8_is_refused(tmp_path):
    data = _relu_model("in\u00e9x").SerializeToString().replace("in\u00e9x".encode(), b"in\xff\xfex")
    path = tmp_path / "model.onnx"
    path.write_bytes(data)
    out = tmp_path / "out"
    _assert_clean_failure(run_mo("--input_model", str(path), "--output_dir", str(out)), out, "not UTF-8")


def test_a_recursive_model_local_function_is_refused(tmp_path):
    call = helper.make_node("Loopy", ["a"], ["b"], domain="local")
    function = helper.make_function("local", "Loopy", ["a"], ["b"], [call], [helper.make_opsetid("", 17)])
    model = make_model([helper.make_node("Loopy", ["x"], ["y"], domain="local")],
                       [("x", TensorProto.FLOAT, [2])], [("y", TensorProto.FLOAT, [2])])
    model.opset_import.append(helper.make_opsetid("local", 1))
    model.functions.append(function)
    path = tmp_path / "model.onnx"
    path.write_bytes(model.SerializeToString())
    out = tmp_path / "out"
    _assert_clean_failure(run_mo("--input_model", str(path), "--output_dir", str(out)), out,
                          "model-local functions", "recursive")


def test_an_opset_newer_than_onnx_defines_is_refused(tmp_path):
    model = _relu_model()
    model.opset_import[0].version = 99
    with pytest.raises(InputModelError, match="opset 99"):
        convert_model(model, output_dir=str(tmp_path))


def test_output_dir_that_is_a_file(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    path = tmp_path / "model.onnx"
    onnx.save(conv_relu_model(), str(path))
    r = run_mo("--input_model", str(path), "--output_dir", str(blocker))
    assert r.returncode == 1 and "must name a folder" in r.stderr and "internal error" not in r.stderr


@pytest.mark.parametrize("code, words", [(errno.ENOSPC, "disk is full"), (errno.EACCES, "no permission")])
def test_output_folder_that_cannot_be_written(tmp_path, code, words):
    real_replace = os.replace

    def failing_replace(src, dst):
        if str(dst).endswith(".bin"):
            raise OSError(code, os.strerror(code))
        return real_replace(src, dst)

    with mock.patch("mo.emit.ir.os.replace", failing_replace), pytest.raises(OutputError, match=words):
        convert_model(conv_relu_model(), output_dir=str(tmp_path))
    assert os.listdir(tmp_path) == []


def test_a_crash_never_leaves_an_old_xml_beside_a_new_bin(tmp_path):
    first = convert_model(conv_relu_model(), output_dir=str(tmp_path), model_name="m")
    old_bin = open(first.bin, "rb").read()
    real_replace = os.replace

    def killed_after_bin(src, dst):
        real_replace(src, dst)
        if str(dst).endswith(".bin"):
            raise KeyboardInterrupt      # stands for SIGKILL between the two renames
    with mock.patch("mo.emit.ir.os.replace", killed_after_bin), pytest.raises(KeyboardInterrupt):
        convert_model(conv_relu_model(batch=1), output_dir=str(tmp_path), model_name="m",
                      compress_to_fp16=False)
    assert not os.path.exists(first.xml)              # no IR rather than a mixed one
    assert open(first.bin, "rb").read() != old_bin


def test_temporary_files_of_a_killed_run_are_removed(tmp_path):
    stale = [tmp_path / ".m.abc123.bin.tmp", tmp_path / ".m.def456.xml.tmp"]
    for p in stale:
        p.write_bytes(b"x" * 100)
    other = tmp_path / ".other.abc.bin.tmp"
    other.write_bytes(b"x")
    convert_model(conv_relu_model(), output_dir=str(tmp_path), model_name="m")
    assert not any(p.exists() for p in stale) and other.exists()


def test_model_name_with_a_folder_is_refused(tmp_path):
    path = tmp_path / "model.onnx"
    onnx.save(conv_relu_model(), str(path))
    out = tmp_path / "out"
    _assert_clean_failure(run_mo("--input_model", str(path), "--output_dir", str(out), "--model_name", "a/b"),
                          out, "--model_name 'a/b'")


def test_a_missing_framework_package_says_what_to_install(tmp_path):
    path = tmp_path / "model.onnx"
    onnx.save(conv_relu_model(), str(path))
    code = ("import sys; sys.modules['onnx'] = None; from mo.main import main; "
            f"sys.exit(main(['--input_model', {str(path)!r}, '--output_dir', {str(tmp_path / 'out')!r}]))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    assert r.returncode == 1 and "pip install onnx" in r.stderr and "internal error" not in r.stderr


def test_output_piped_into_a_reader_that_closes_early():
    """`mo --list_transforms | head -1`: stdout is a pipe whose reader is gone; no traceback."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    code = ("import os, sys; r, w = os.pipe(); os.close(r); os.dup2(w, 1); "
            "sys.argv = ['mo', '--list_transforms']; from mo.main import entry; entry()")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root)
    assert r.returncode == 0 and "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr


def _tiny_cnn(tmp_path):
    path = tmp_path / "model.onnx"
    onnx.save(conv_relu_model(batch=1), str(path))
    return str(path)


def _compiles(xml):
    model = core().read_model(xml)
    core().compile_model(model, "CPU")
    return model


def test_an_input_type_the_model_does_not_compute_in_gets_a_convert(tmp_path):
    paths = convert_model(_tiny_cnn(tmp_path), output_dir=str(tmp_path / "out"), input="x{u8}",
                          mean_values="[1,2,3]", compress_to_fp16=False)
    model = _compiles(paths.xml)
    assert model.input(0).get_element_type().get_type_name() == "u8"
    from tests.utils.onnx_models import run_onnxruntime
    from tests.utils.runtime import assert_close, run_ir
    x = np.random.default_rng(0).integers(0, 8, (1, 3, 8, 8)).astype(np.uint8)
    mean = np.array([1, 2, 3], np.float32).reshape(1, 3, 1, 1)
    assert_close(run_ir(paths.xml, [x]), run_onnxruntime(_tiny_cnn(tmp_path), [x.astype(np.float32) - mean]))


@pytest.mark.parametrize("layout, expected", [("n...", "[N,...]"), ("nc...", "[N,C,...]"), ("...c", "[...,C]"),
                                              ("n?hw", "[N,?,H,W]")])
def test_layouts_with_unnamed_dimensions_give_an_ir_that_loads(tmp_path, layout, expected):
    paths = convert_model(_tiny_cnn(tmp_path), output_dir=str(tmp_path / "out"), layout=layout)
    assert _compiles(paths.xml).input(0).get_node().get_layout().to_string() == expected


@pytest.mark.parametrize("layout, words", [("nc", "rank 4"), ("n.c", "Malformed layout"),
                                           ("x(n...->nchw)", "same dimensions"), ("nchw->n?hw", "same dimensions")])
def test_layouts_that_cannot_fit_are_refused(tmp_path, layout, words):
    out = tmp_path / "out"
    _assert_clean_failure(run_mo("--input_model", _tiny_cnn(tmp_path), "--output_dir", str(out), "--layout", layout),
                          out, words)


@pytest.mark.parametrize("node, words", [
    (helper.make_node("Add", ["x"], ["y"], name="add"), "lacks its required input 1 ('B')"),
    (helper.make_node("Conv", ["", "x"], ["y"], name="conv"), "lacks its required input 0 ('X')"),
    (helper.make_node("Relu", ["x"], ["y", "z"], name="relu"), "has 2 outputs where the operator gives 1"),
    (helper.make_node("Sum", [], ["y"], name="sum"), "has 0 inputs where the operator takes at least 1"),
    (helper.make_node("Loop", ["", "", "x"], ["y"], name="loop"), "lacks its required attribute 'body'"),
])
def test_nodes_that_break_their_operator_schema_are_refused(tmp_path, node, words):
    model = make_model([node], [("x", TensorProto.FLOAT, [2])], [("y", TensorProto.FLOAT, [2])])
    path = tmp_path / "model.onnx"
    path.write_bytes(model.SerializeToString())
    out = tmp_path / "out"
    _assert_clean_failure(run_mo("--input_model", str(path), "--output_dir", str(out)), out, f"'{node.name}'", words)


def test_tf_type_attribute_of_the_wrong_kind_is_refused(tmp_path):
    import tensorflow as tf

    from tests.utils.tf_models import freeze, specs_for, write_pb
    x = np.ones((2, 3), np.float32)
    graph_def = freeze(tf.function(lambda a: tf.math.rsqrt(a) + 1.0), specs_for([x]))
    node = next(n for n in graph_def.node if n.op == "Rsqrt")
    node.attr["T"].Clear()
    node.attr["T"].f = float("nan")
    path = write_pb(graph_def, str(tmp_path / "model.pb"))
    out = tmp_path / "out"
    _assert_clean_failure(run_mo("--input_model", path, "--output_dir", str(out)), out,
                          "Attribute 'T'", "(Rsqrt)", "should be an element type")


def _external_with_location(tmp_path, location: str, data_at=None):
    (tmp_path / "model_dir").mkdir(exist_ok=True)
    weight = TensorProto(name="W", data_type=TensorProto.FLOAT, dims=[2])
    weight.data_location = TensorProto.EXTERNAL
    weight.external_data.add(key="location", value=location)
    model = make_model([helper.make_node("Add", ["x", "W"], ["y"], name="add")],
                       [("x", TensorProto.FLOAT, [2])], [("y", TensorProto.FLOAT, [2])])
    model.graph.initializer.append(weight)
    path = tmp_path / "model_dir" / "model.onnx"
    path.write_bytes(model.SerializeToString())
    return str(path)


@pytest.mark.parametrize("kind", ["symlink_outside", "fifo", "device", "beyond_end"])
def test_external_data_that_is_not_a_file_in_the_model_folder_is_refused(tmp_path, kind):
    outside = tmp_path / "secret.bin"
    outside.write_bytes(np.arange(2, dtype=np.float32).tobytes())
    path = _external_with_location(tmp_path, "w.bin")
    target = tmp_path / "model_dir" / "w.bin"
    if kind == "symlink_outside":
        target.symlink_to(outside)
    elif kind == "fifo":
        os.mkfifo(target)
    elif kind == "device":
        target.symlink_to("/dev/zero")
    else:
        target.write_bytes(b"\0" * 4)               # 4 bytes where the tensor needs 8
    out = tmp_path / "out"
    r = run_mo("--input_model", path, "--output_dir", str(out))
    _assert_clean_failure(r, out, "'W'")


def test_keras_lambda_layers_are_refused_by_safe_mode(tmp_path):
    import tensorflow as tf
    marker = tmp_path / "ran"
    inputs = tf.keras.Input((3,))
    outputs = tf.keras.layers.Lambda(lambda t: t * 2.0)(inputs)
    model = tf.keras.Model(inputs, outputs)
    path = str(tmp_path / "model.keras")
    model.save(path)
    out = tmp_path / "out"
    r = run_mo("--input_model", path, "--output_dir", str(out))
    _assert_clean_failure(r, out)
    assert "Lambda" in r.stderr or "safe" in r.stderr.lower()
    assert not marker.exists()


def test_saved_model_file_ops_are_not_run(tmp_path):
    """A SavedModel whose function writes a file: converting never runs it (the op is refused as
    unsupported or converted, but the file is not written)."""
    import tensorflow as tf
    target = tmp_path / "written_by_the_model.txt"

    class Writer(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
        def __call__(self, x):
            tf.io.write_file(str(target), tf.strings.as_string(x[0]))
            return x * 2.0

    saved = str(tmp_path / "saved")
    tf.saved_model.save(Writer(), saved)
    assert not target.exists()
    r = run_mo("--saved_model_dir", saved, "--output_dir", str(tmp_path / "out"))
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    assert not target.exists()


def _weights_model(path, seed: int) -> None:
    """An ONNX model with ~24 MiB of weights (a few MatMuls), distinct per seed."""
    rng = np.random.default_rng(seed)
    nodes, inits, prev = [], {}, "x"
    for i in range(6):
        inits[f"w{i}"] = rng.standard_normal((1024, 1024)).astype(np.float32)
        nodes.append(helper.make_node("MatMul", [prev, f"w{i}"], [f"h{i}"], name=f"mm{i}"))
        prev = f"h{i}"
    onnx.save(make_model(nodes, [("x", TensorProto.FLOAT, [1, 1024])], [(prev, TensorProto.FLOAT, None)], inits),
              str(path))


def test_killed_conversions_never_leave_an_old_xml_beside_a_new_bin(tmp_path):
    """SIGKILL at several moments of a conversion into a folder holding an older IR of the same
    name: afterwards the folder holds the old pair, the new pair, or no .xml, never a mix; the
    next run removes the temporaries a killed one left."""
    import signal
    import time
    old_model, new_model = tmp_path / "old.onnx", tmp_path / "new.onnx"
    _weights_model(old_model, 1)
    _weights_model(new_model, 2)
    out = tmp_path / "out"
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    pairs = {}
    for name, model in (("new", new_model), ("old", old_model)):   # the same options as the killed runs
        r = run_mo("--input_model", str(model), "--output_dir", str(out), "--model_name", "m")
        assert r.returncode == 0, r.stderr
        pairs[name] = ((out / "m.xml").read_bytes(), (out / "m.bin").read_bytes())
    for delay in (0.2, 0.6, 1.0, 1.4, 1.8, 2.2, 2.6, 3.0, 3.5, 4.0):
        for f in os.listdir(out):
            os.unlink(out / f)
        (out / "m.xml").write_bytes(pairs["old"][0])
        (out / "m.bin").write_bytes(pairs["old"][1])
        proc = subprocess.Popen([sys.executable, os.path.join(root, "mo.py"), "--input_model", str(new_model),
                                 "--output_dir", str(out), "--model_name", "m"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        xml = (out / "m.xml").read_bytes() if (out / "m.xml").exists() else None
        bin_ = (out / "m.bin").read_bytes() if (out / "m.bin").exists() else None
        if xml is not None:
            assert (xml, bin_) in (pairs["old"], pairs["new"]), f"mixed IR after a kill at {delay} s"
    convert_model(str(old_model), output_dir=str(out), model_name="m")
    assert sorted(os.listdir(out)) == ["m.bin", "m.xml"]
