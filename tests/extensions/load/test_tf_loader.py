"""The TensorFlow model forms: frozen GraphDefs (binary and text), SavedModels (signatures,
tags), Keras files, MetaGraphs with checkpoints, Python objects; outputs, cuts, function calls
and the errors a broken or unsupported model gives."""
import os
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf

from tests.utils.runtime import assert_close, run_ir
from tests.utils.tf_models import freeze, ir_op_types, random, specs_for, write_pb

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
X = random((2, 4), seed=1)
W = random((4, 3), seed=2)


def convert(model, out, **options):
    from mo import convert_model
    return convert_model(model, output_dir=str(out), compress_to_fp16=False, **options).xml


class Dense(tf.Module):
    """A module with a variable and two signatures."""

    def __init__(self):
        super().__init__()
        self.w = tf.Variable(W)

    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32, name="x")])
    def __call__(self, x):
        return tf.nn.relu(tf.matmul(x, self.w))

    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32, name="x")])
    def doubled(self, x):
        return {"y": tf.matmul(x, self.w) * 2.0}


def reference(x):
    return [np.maximum(x @ W, 0)]


def test_frozen_text_graph_def(tmp_path):
    graph_def = freeze(lambda x: tf.nn.relu(tf.matmul(x, W)), specs_for([X]))
    path = tmp_path / "model.pbtxt"
    path.write_text(str(graph_def))
    assert_close(run_ir(convert(str(path), tmp_path / "a"), [X]), reference(X))
    other = tmp_path / "model.txt"
    other.write_text(str(graph_def))
    assert_close(run_ir(convert(str(other), tmp_path / "b", input_model_is_text=True, framework="tf"), [X]),
                 reference(X))


def test_saved_model_signatures_and_tags(tmp_path):
    module = Dense()
    path = str(tmp_path / "saved")
    tf.saved_model.save(module, path, signatures={"serving_default": module.__call__, "doubled": module.doubled})
    assert_close(run_ir(convert(path, tmp_path / "a"), [X]), reference(X))
    assert_close(run_ir(convert(None, tmp_path / "b", saved_model_dir=path, saved_model_tags="serve",
                                saved_model_signature="doubled"), [X]), [X @ W * 2])
    from mo.errors import ConversionError
    with pytest.raises(ConversionError, match="no signature 'nope'.*doubled, serving_default"):
        convert(path, tmp_path / "c", saved_model_signature="nope")


@pytest.mark.parametrize("suffix", [".keras", ".h5"])
def test_keras_files(tmp_path, suffix):
    import keras
    inp = keras.Input((4,), name="features")
    model = keras.Model(inp, keras.layers.Dense(3, activation="tanh")(inp))
    path = str(tmp_path / f"model{suffix}")
    model.save(path)
    assert_close(run_ir(convert(path, tmp_path / "ir"), [X]), [model(X).numpy()])


def test_meta_graph_with_checkpoint(tmp_path):
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [None, 4], name="x")
        w = v1.get_variable("w", initializer=W)
        tf.identity(tf.nn.relu(tf.matmul(x, w)), name="y")
        saver = v1.train.Saver()
        with v1.Session(graph=graph) as sess:
            sess.run(v1.global_variables_initializer())
            prefix = saver.save(sess, str(tmp_path / "ckpt" / "model"))
    assert_close(run_ir(convert(None, tmp_path / "a", input_meta_graph=prefix + ".meta"), [X]), reference(X))
    moved = tmp_path / "graph.meta"
    os.rename(prefix + ".meta", moved)
    assert_close(run_ir(convert(str(moved), tmp_path / "b", input_checkpoint=prefix, output="y"), [X]), reference(X))


def test_python_objects(tmp_path):
    import keras
    module = Dense()
    assert_close(run_ir(convert(module, tmp_path / "module"), [X]), reference(X))
    assert_close(run_ir(convert(module.__call__, tmp_path / "function"), [X]), reference(X))
    assert_close(run_ir(convert(module.doubled.get_concrete_function(), tmp_path / "concrete"), [X]), [X @ W * 2])
    inp = keras.Input((4,))
    model = keras.Model(inp, keras.layers.Dense(2)(inp))
    assert_close(run_ir(convert(model, tmp_path / "keras"), [X]), [model(X).numpy()])


def test_function_calls_are_inlined(tmp_path):
    @tf.function
    def inner(a):
        return tf.nn.relu(a) + 1.0

    @tf.function
    def outer(a):
        return inner(a) * inner(-a)
    concrete = tf.function(lambda x: outer(x)).get_concrete_function(*specs_for([X]))
    graph_def = concrete.graph.as_graph_def()
    assert any(n.op in ("PartitionedCall", "StatefulPartitionedCall") for n in graph_def.node)
    xml = convert(write_pb(graph_def, tmp_path / "calls.pb"), tmp_path / "ir")
    assert_close(run_ir(xml, [X]), [(np.maximum(X, 0) + 1) * (np.maximum(-X, 0) + 1)])


def test_graph_def_with_functions_is_read_without_tensorflow(tmp_path):
    """Function calls and a While loop's body functions are read with the op table, not TensorFlow."""
    @tf.function
    def inner(a):
        return tf.nn.relu(a) + 1.0

    def fn(x):
        _, y = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, inner(v) * 0.5), (tf.constant(0), x))
        return tf.split(y, 2, axis=1)[1]
    pb = write_pb(freeze(fn, specs_for([X])), tmp_path / "loop.pb")
    code = ("import sys; from mo import convert_model; "
            f"convert_model(r'{pb}', output_dir=r'{tmp_path / 'ir'}', compress_to_fp16=False); "
            "print('tensorflow' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.stdout.strip() == "False", result.stderr
    expected = X
    for _ in range(3):
        expected = (np.maximum(expected, 0) + 1) * 0.5
    assert_close(run_ir(str(tmp_path / "ir" / "loop.xml"), [X]), [expected[:, 2:]])


def test_cut_and_placeholder_with_default(tmp_path):
    def fn(x):
        scale = tf.raw_ops.PlaceholderWithDefault(input=np.float32(2.0), shape=[], name="scale")
        hidden = tf.identity(tf.matmul(x, W), name="hidden")
        return tf.nn.relu(hidden) * scale
    path = write_pb(freeze(fn, specs_for([X])), tmp_path / "model.pb")
    assert_close(run_ir(convert(path, tmp_path / "a"), [X]), [np.maximum(X @ W, 0) * 2])
    assert_close(run_ir(convert(path, tmp_path / "b", output="hidden:0"), [X]), [X @ W])
    xml = convert(path, tmp_path / "c", input="x0[3,4],scale[]")
    assert_close(run_ir(xml, [X[:1].repeat(3, 0), np.float32(3)]), [np.maximum(X[:1].repeat(3, 0) @ W, 0) * 3])


def test_unsupported_ops_are_listed_together(tmp_path):
    from tensorflow.core.framework.graph_pb2 import GraphDef
    from tensorflow.core.framework.node_def_pb2 import NodeDef
    graph_def = GraphDef()
    for name, op, inputs in (("x", "Placeholder", []), ("a", "FancyOp", ["x"]), ("b", "OtherOp", ["a"]),
                             ("c", "FancyOp", ["b"])):
        node = NodeDef(name=name, op=op, input=inputs)
        if op == "Placeholder":
            node.attr["dtype"].type = 1
        graph_def.node.append(node)
    from mo.errors import UnsupportedOpsError
    with pytest.raises(UnsupportedOpsError) as info:
        convert(write_pb(graph_def, tmp_path / "m.pb"), tmp_path / "ir")
    assert info.value.unsupported == {"FancyOp": ["a", "c"], "OtherOp": ["b"]}


def run_mo(*args):
    return subprocess.run([sys.executable, os.path.join(ROOT, "mo.py"), *args], capture_output=True, text=True)


def test_cli_broken_file_and_saved_model(tmp_path):
    bad = tmp_path / "broken.pb"
    bad.write_bytes(b"\x0a\x05hello, this is not a graph")
    result = run_mo("--input_model", str(bad), "--output_dir", str(tmp_path / "out"))
    assert result.returncode == 1 and "Traceback" not in result.stderr and "broken.pb" in result.stderr, result.stderr
    module = Dense()
    path = str(tmp_path / "saved")
    tf.saved_model.save(module, path)
    result = run_mo("--saved_model_dir", path, "--output_dir", str(tmp_path / "ir"), "--compress_to_fp16=False")
    assert result.returncode == 0, result.stderr
    assert_close(run_ir(str(tmp_path / "ir" / "saved.xml"), [X]), reference(X))


def test_onnx_conversion_does_not_import_tensorflow(tmp_path):
    code = ("import sys, onnx; from tests.utils.onnx_models import conv_relu_model; from mo import convert_model; "
            f"onnx.save(conv_relu_model(), r'{tmp_path / 'm.onnx'}'); "
            f"convert_model(r'{tmp_path / 'm.onnx'}', output_dir=r'{tmp_path}'); "
            "print('tensorflow' in sys.modules, 'keras' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.stdout.strip() == "False False", result.stderr


def test_ir_keeps_nhwc_inputs_and_outputs(tmp_path):
    w = random((3, 3, 3, 5), seed=3)
    path = write_pb(freeze(lambda x: tf.nn.conv2d(x, w, 1, "SAME"), specs_for([random((1, 6, 7, 3))])),
                    tmp_path / "m.pb")
    xml = convert(path, tmp_path / "ir")
    from tests.utils.runtime import core
    model = core().read_model(xml)
    assert list(model.inputs[0].get_partial_shape().to_shape()) == [1, 6, 7, 3]
    assert list(model.outputs[0].get_partial_shape().to_shape()) == [1, 6, 7, 5]
    assert ir_op_types(xml).count("Transpose") == 2


def test_preprocessing_uses_the_nhwc_channel_axis(tmp_path):
    x = random((1, 4, 5, 3), seed=4)
    w = random((1, 1, 3, 2), seed=5)
    path = write_pb(freeze(lambda a: tf.nn.conv2d(a, w, 1, "VALID"), specs_for([x])), tmp_path / "m.pb")
    xml = convert(path, tmp_path / "ir", mean_values=[1.0, 2.0, 3.0], reverse_input_channels=True)
    expected = tf.nn.conv2d(x[..., ::-1] - np.float32([1, 2, 3]), w, 1, "VALID").numpy()
    assert_close(run_ir(xml, [x]), [expected])


def test_keras_recurrent_model_object_reads_its_variables_in_the_loop(tmp_path):
    import keras
    inp = keras.Input((5, 3))
    model = keras.Model(inp, keras.layers.GRU(4)(keras.layers.LSTM(6, return_sequences=True)(inp)))
    x = random((2, 5, 3), seed=6)
    assert_close(run_ir(convert(model, tmp_path / "ir"), [x]), [model(x).numpy()])


def test_op_arity_table_matches_tensorflow():
    """extensions/load/tf/op_arity.json is what TensorFlow's op registry says (regenerate with
    python -m tests.utils.tf_op_arity)."""
    import json

    from tests.utils.tf_op_arity import TABLE, compute_arity
    with open(TABLE) as f:
        table = json.load(f)
    computed = compute_arity()
    assert {k: table.get(k) for k in computed} == computed


def test_op_outputs_table_matches_tensorflow():
    """extensions/load/tf/op_outputs.json is what TensorFlow's op registry says."""
    import json

    from tests.utils.tf_op_arity import OUTPUTS_TABLE, compute_outputs
    with open(OUTPUTS_TABLE) as f:
        table = json.load(f)
    assert table == compute_outputs()
