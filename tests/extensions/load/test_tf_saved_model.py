"""SavedModels read without TensorFlow (extensions/load/tf/saved_model.py, tensor_bundle.py):
tf.Module and Keras models written by tf.saved_model.save / Model.export are converted in a child
process that must not import TensorFlow; the IR's outputs are compared with the signature's
and named after its keys."""
import json
import os
import subprocess
import sys

import keras
import numpy as np
import pytest
import tensorflow as tf

from tests.utils.runtime import assert_close, core, run_ir
from tests.utils.tf_models import random

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
W = random((4, 3), seed=2)

CHILD = """
import json, logging, sys
from mo import convert_model
records = []
handler = logging.Handler()
handler.emit = lambda record: records.append(record.getMessage())
logging.getLogger("mo").addHandler(handler)
logging.getLogger("mo").setLevel(logging.INFO)
options = json.loads(sys.argv[2])
convert_model(saved_model_dir=sys.argv[1], output_dir=sys.argv[3], compress_to_fp16=False, model_name="model",
              **options)
print(json.dumps({"tensorflow": "tensorflow" in sys.modules, "keras": "keras" in sys.modules,
                  "log": [r for r in records if "TensorFlow" in r]}))
"""


def convert_in_child(path: str, out, **options) -> tuple[str, dict]:
    """Convert in a fresh process; (IR path, what it imported and logged)."""
    result = subprocess.run([sys.executable, "-c", CHILD, path, json.dumps(options), str(out)],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    return str(out / "model.xml"), json.loads(result.stdout.strip().splitlines()[-1])


def check(tmp_path, path: str, inputs: dict, signature: str = "serving_default", rtol=1e-4, atol=1e-4,
          **options) -> dict:
    """Convert without TensorFlow, compare every output with the signature's by name."""
    xml, child = convert_in_child(path, tmp_path / "ir", **options)
    assert not child["tensorflow"] and not child["keras"], child
    expected = tf.saved_model.load(path).signatures[signature](**{k: tf.constant(v) for k, v in inputs.items()})
    model = core().read_model(xml)
    names = [sorted(o.get_names()) for o in model.outputs]
    assert [n for n in names if not set(n) & set(expected)] == [], names
    order = [next(iter(set(n) & set(expected))) for n in names]
    assert sorted(order) == sorted(expected)
    assert sorted(i.get_any_name() for i in model.inputs) == sorted(inputs)
    actual = run_ir(xml, {k: v for k, v in inputs.items()})
    assert_close(actual, [expected[k].numpy() for k in order], rtol=rtol, atol=atol)
    return child


class ReadTwice(tf.Module):
    """One resource variable read several times, a captured eager constant, two signatures."""

    def __init__(self):
        super().__init__()
        self.w = tf.Variable(W)
        self.b = tf.constant(np.arange(3, dtype=np.float32))

    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
    def __call__(self, x):
        return {"y": tf.nn.relu(tf.matmul(x, self.w)) + tf.reduce_sum(self.w) + self.w[0] + self.b}

    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32), tf.TensorSpec([], tf.float32)])
    def scaled(self, x, scale):
        return {"z": tf.matmul(x, self.w) * scale, "w": tf.identity(self.w) * 1.0}


def test_module_variable_read_several_times_and_two_signatures(tmp_path):
    module = ReadTwice()
    path = str(tmp_path / "module")
    tf.saved_model.save(module, path, signatures={"serving_default": module.__call__, "scaled": module.scaled})
    x = random((2, 4), seed=3)
    check(tmp_path / "a", path, {"x": x})
    check(tmp_path / "b", path, {"x": x, "scale": np.float32(1.5)}, signature="scaled", saved_model_signature="scaled")


def test_module_without_signatures_converts_its_call_function(tmp_path):
    """No signature: the root object's __call__ (its one concrete function) is converted; inputs
    are named after its arguments, outputs output_<i>."""
    module = ReadTwice()
    path = str(tmp_path / "module")
    tf.saved_model.save(module, path)
    assert not tf.saved_model.load(path).signatures
    xml, child = convert_in_child(path, tmp_path / "ir")
    assert not child["tensorflow"], child
    x = random((2, 4), seed=3)
    model = core().read_model(xml)
    assert [i.get_any_name() for i in model.inputs] == ["x"]
    assert "output_0" in model.outputs[0].get_names()
    assert_close(run_ir(xml, [x]), [module(x)["y"].numpy()])


def sharded_module(path: str, max_shard_size: int) -> None:
    module = tf.Module()
    module.weights = [tf.Variable(random((64, 64), seed=k)) for k in range(4)]
    module.f = tf.function(lambda x: {"y": tf.add_n([tf.matmul(x, w) for w in module.weights])},
                           input_signature=[tf.TensorSpec([None, 64], tf.float32, name="x")])
    options = tf.saved_model.SaveOptions(
        experimental_sharding_callback=tf.train.experimental.MaxShardSizePolicy(max_shard_size=max_shard_size))
    tf.saved_model.save(module, path, signatures={"serving_default": module.f}, options=options)
    shards = [f for f in os.listdir(os.path.join(path, "variables")) if ".data-" in f]
    assert len(shards) > 1, shards


def test_sharded_variables(tmp_path):
    path = str(tmp_path / "sharded")
    sharded_module(path, 64 * 64 * 4)         # one variable a shard
    check(tmp_path, path, {"x": random((2, 64), seed=5)}, rtol=1e-3, atol=1e-3)


def test_sliced_variables_fall_back_to_tensorflow(tmp_path):
    """Variables saved in slices (split over shards) are read by TensorFlow, saying why."""
    path = str(tmp_path / "sliced")
    sharded_module(path, 20000)
    x = random((2, 64), seed=5)
    xml, child = convert_in_child(path, tmp_path / "ir")
    assert child["tensorflow"] and any("saved in slices" in r for r in child["log"]), child
    expected = tf.saved_model.load(path).signatures["serving_default"](x=tf.constant(x))["y"].numpy()
    assert_close(run_ir(xml, [x]), [expected], rtol=1e-3, atol=1e-3)


def keras_model(kind: str) -> keras.Model:
    keras.utils.set_random_seed(0)
    if kind == "dense":
        inputs = keras.Input((6,), name="features")
        hidden = keras.layers.Dense(5, activation="relu", name="hidden")(inputs)
        outputs = [keras.layers.Dense(2, name="score")(hidden), keras.layers.Dense(3, name="logits")(hidden)]
        return keras.Model(inputs, outputs)
    if kind == "conv_bn":
        model = keras.Sequential([keras.Input((8, 8, 3), name="image"), keras.layers.Conv2D(4, 3, padding="same"),
                                  keras.layers.BatchNormalization(), keras.layers.ReLU(),
                                  keras.layers.GlobalAveragePooling2D(), keras.layers.Dense(2)])
        bn = model.layers[1]
        bn.moving_mean.assign(random((4,), seed=7))
        bn.moving_variance.assign(random((4,), seed=8, low=0.5, high=2.0))
        return model
    return keras.Sequential([keras.Input((5, 3), name="sequence"), keras.layers.LSTM(4), keras.layers.Dense(2)])


INPUT_SHAPES = {"dense": (2, 6), "conv_bn": (2, 8, 8, 3), "lstm": (2, 5, 3)}


@pytest.mark.parametrize("kind", sorted(INPUT_SHAPES))
@pytest.mark.parametrize("writer", ["export", "saved_model_save"])
def test_keras_models(tmp_path, kind, writer):
    model = keras_model(kind)
    path = str(tmp_path / "keras")
    if writer == "export":
        model.export(path, verbose=False)
    else:
        tf.saved_model.save(model, path)
    signature = tf.saved_model.load(path).signatures["serving_default"]
    name = next(iter(signature.structured_input_signature[1]))
    check(tmp_path, path, {name: random(INPUT_SHAPES[kind], seed=4)}, rtol=1e-3, atol=1e-3)


def test_broken_checkpoint_is_one_clear_error(tmp_path):
    module = ReadTwice()
    path = str(tmp_path / "module")
    tf.saved_model.save(module, path, signatures={"serving_default": module.__call__})
    from mo import convert_model
    from mo.errors import InputModelError
    shard = os.path.join(path, "variables", "variables.data-00000-of-00001")
    with open(shard, "r+b") as f:
        f.truncate(8)
    with pytest.raises(InputModelError, match="past the end of its shard"):
        convert_model(saved_model_dir=path, output_dir=str(tmp_path / "a"))
    os.remove(shard)
    with pytest.raises(InputModelError, match="shard .* is missing"):
        convert_model(saved_model_dir=path, output_dir=str(tmp_path / "b"))
    index = os.path.join(path, "variables", "variables.index")
    with open(index, "wb") as f:
        f.write(b"not a table")
    with pytest.raises(InputModelError, match="not a TensorFlow checkpoint index"):
        convert_model(saved_model_dir=path, output_dir=str(tmp_path / "c"))


@pytest.mark.parametrize("use_resource", [False, True])
def test_tf1_saved_model(tmp_path, use_resource):
    """A TF1 SavedModel (simple_save): ref or resource variables read from the checkpoint by
    their names, inputs and outputs named after the signature's keys."""
    v1 = tf.compat.v1
    path = str(tmp_path / "tf1")
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [None, 4], name="features")
        w = v1.get_variable("w", initializer=W, use_resource=use_resource)
        b = v1.get_variable("b", initializer=np.arange(3, dtype=np.float32), use_resource=use_resource)
        y = tf.nn.relu(tf.matmul(x, w) + b, name="y")
        z = tf.reduce_sum(w, name="z") * x[:, :1]
        with v1.Session() as session:
            session.run(v1.global_variables_initializer())
            v1.saved_model.simple_save(session, path, {"x": x}, {"out": y, "total": z})
    xml, child = convert_in_child(path, tmp_path / "ir")
    assert not child["tensorflow"], child
    data = random((2, 4), seed=6)
    model = core().read_model(xml)
    assert [i.get_any_name() for i in model.inputs] == ["x"]
    assert ["out" in o.get_names() for o in model.outputs] == [True, False]
    assert "total" in model.outputs[1].get_names()
    assert_close(run_ir(xml, [data]), [np.maximum(data @ W + np.arange(3, dtype=np.float32), 0), W.sum() * data[:, :1]])


def test_meta_graph_with_checkpoint_is_read_without_tensorflow(tmp_path):
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [None, 4], name="x")
        w = v1.get_variable("w", initializer=W)
        tf.identity(tf.nn.relu(tf.matmul(x, w)), name="y")
        with v1.Session() as session:
            session.run(v1.global_variables_initializer())
            prefix = v1.train.Saver().save(session, str(tmp_path / "ckpt" / "model"))
    code = ("import sys; from mo import convert_model; "
            f"convert_model(r'{prefix}.meta', output_dir=r'{tmp_path / 'ir'}', compress_to_fp16=False); "
            "print('tensorflow' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.stdout.strip() == "False", result.stderr
    data = random((2, 4), seed=6)
    assert_close(run_ir(str(tmp_path / "ir" / "model.xml"), [data]), [np.maximum(data @ W, 0)])


def test_read_model_with_tensorflow_for_running_the_model(tmp_path):
    """read_model(with_tensorflow=True) (what running the original model, as --validate does,
    needs) loads a SavedModel with TensorFlow: its variables are frozen by TensorFlow, not
    constants of resource handles."""
    from types import SimpleNamespace

    from extensions.load.tf.model_io import read_model
    module = ReadTwice()
    path = str(tmp_path / "module")
    tf.saved_model.save(module, path, signatures={"serving_default": module.__call__})
    opts = SimpleNamespace(input_model=path, saved_model_tags=None, saved_model_signature=None, outputs=None,
                           input_checkpoint=None)
    light, loaded = read_model(opts), read_model(opts, with_tensorflow=True)
    assert light.op_defs is not None and loaded.op_defs is None
    assert type(loaded.nodes[0]).__module__.startswith("tensorflow")
