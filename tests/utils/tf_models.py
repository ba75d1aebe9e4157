"""TensorFlow models for tests: freeze a tf.function, convert it, run it and compare with
TensorFlow's own output.

    check_tf(tmp_path, lambda x: tf.nn.relu(x), [x])
"""
from __future__ import annotations

import os

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def specs_for(inputs: list[np.ndarray], dynamic_batch: bool = False):
    import tensorflow as tf
    specs = []
    for i, x in enumerate(inputs):
        shape = list(np.shape(x))
        if dynamic_batch and shape:
            shape[0] = None
        specs.append(tf.TensorSpec(shape, tf.as_dtype(np.asarray(x).dtype), name=f"x{i}"))
    return specs


def freeze(fn, specs):
    """Frozen GraphDef of ``fn`` traced with ``specs`` (functional control flow kept), its
    Placeholders first in the order of ``specs`` (which a GraphDef file has no other way to
    tell, and the IR takes its input order from)."""
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2
    concrete = tf.function(fn).get_concrete_function(*specs)
    frozen = convert_variables_to_constants_v2(concrete, lower_control_flow=False)
    graph_def = frozen.graph.as_graph_def()
    order = {t.name.split(":")[0]: i for i, t in enumerate(frozen.inputs)}
    nodes = sorted(graph_def.node, key=lambda n: order.get(n.name, len(order)))
    del graph_def.node[:]
    graph_def.node.extend(nodes)
    return graph_def


def write_pb(graph_def, path) -> str:
    with open(path, "wb") as f:
        f.write(graph_def.SerializeToString())
    return str(path)


def tf_outputs(fn, inputs: list[np.ndarray]) -> list[np.ndarray]:
    import tensorflow as tf
    result = fn(*[tf.constant(x) for x in inputs])
    return [np.asarray(r) for r in tf.nest.flatten(result)]


def convert_pb(path: str, out_dir, **options) -> str:
    from mo import convert_model
    options.setdefault("compress_to_fp16", False)
    return convert_model(path, output_dir=str(out_dir), **options).xml


def check_tf(tmp_path, fn, inputs: list[np.ndarray], rtol: float = 1e-4, atol: float = 1e-4,
             dynamic_batch: bool = False, reference=None, graph_patch=None, **options) -> str:
    """Freeze ``fn`` for ``inputs``, convert it, run the IR on ``inputs`` and assert the outputs
    match TensorFlow's (computed by ``reference`` when TensorFlow cannot run ``fn`` itself, e.g.
    NCHW ops on CPU); ``graph_patch(graph_def)`` edits the frozen graph in place before it is
    converted (e.g. to turn an op into a legacy form TensorFlow 2 no longer builds); returns the
    IR path."""
    from tests.utils.runtime import assert_close, run_ir
    inputs = [np.asarray(x) for x in inputs]
    os.makedirs(tmp_path, exist_ok=True)
    graph_def = freeze(fn, specs_for(inputs, dynamic_batch))
    if graph_patch is not None:
        graph_patch(graph_def)
    path = write_pb(graph_def, tmp_path / "model.pb")
    xml = convert_pb(path, tmp_path / "ir", **options)
    assert_close(run_ir(xml, inputs), tf_outputs(reference or fn, inputs), rtol=rtol, atol=atol)
    return xml


def ir_op_types(xml: str) -> list[str]:
    """Layer types of an IR's main graph, in file order."""
    from defusedxml import ElementTree
    return [layer.get("type") for layer in ElementTree.parse(xml).getroot().find("layers")]


def renamed_op(old: str, new: str, drop_inputs_from: int | None = None, **int_attrs):
    """A ``graph_patch`` for check_tf: every ``old`` node becomes a ``new`` node, keeping its
    data inputs before ``drop_inputs_from`` and getting the integer attributes ``int_attrs``."""
    def patch(graph_def):
        for node in graph_def.node:
            if node.op == old:
                node.op = new
                if drop_inputs_from is not None:
                    del node.input[drop_inputs_from:]
                for name, value in int_attrs.items():
                    node.attr[name].i = value
    return patch


def random(shape, dtype=np.float32, seed: int = 0, low: float = -2.0, high: float = 2.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(int(low), int(high) + 1, shape).astype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) > 0.5
    return rng.uniform(low, high, shape).astype(dtype)
