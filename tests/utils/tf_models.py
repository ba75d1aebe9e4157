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


# ---------------------------------------------------------------- TF1 graphs (helper tf-cf)
def tf1_graph(build, inputs: list[np.ndarray], control_flow_v2: bool = False, dynamic_batch: bool = False):
    """(frozen GraphDef, input names, output names, TensorFlow's outputs) of a tf.compat.v1
    graph: ``build(*placeholders)`` returns the output tensors; control flow v1 (Switch/Merge/
    Enter/Exit frames, TensorArrayV3) unless ``control_flow_v2``; variables are frozen; with
    ``dynamic_batch`` the placeholders' first dims are unknown."""
    import tensorflow as tf
    from tensorflow.python.ops import control_flow_util
    v1 = tf.compat.v1
    saved = control_flow_util.ENABLE_CONTROL_FLOW_V2
    control_flow_util.ENABLE_CONTROL_FLOW_V2 = control_flow_v2
    try:
        graph = tf.Graph()
        with graph.as_default():
            shapes = [(None,) + x.shape[1:] if dynamic_batch and x.ndim else x.shape for x in inputs]
            placeholders = [v1.placeholder(tf.as_dtype(x.dtype), shape, name=f"x{i}")
                            for i, (x, shape) in enumerate(zip(inputs, shapes))]
            outputs = tf.nest.flatten(build(*placeholders))
            outputs = [tf.identity(o, name=f"y{i}") for i, o in enumerate(outputs)]
            with v1.Session(graph=graph) as session:
                session.run(v1.global_variables_initializer())
                expected = session.run(outputs, dict(zip(placeholders, inputs)))
                graph_def = v1.graph_util.convert_variables_to_constants(
                    session, graph.as_graph_def(), [o.op.name for o in outputs])
    finally:
        control_flow_util.ENABLE_CONTROL_FLOW_V2 = saved
    return graph_def, [p.op.name for p in placeholders], [o.op.name for o in outputs], expected


def check_tf1(tmp_path, build, inputs: list, rtol: float = 1e-4, atol: float = 1e-4, control_flow_v2: bool = False,
              dynamic_batch: bool = False, **options) -> str:
    """Build a tf.compat.v1 graph (see ``tf1_graph``), convert it, run the IR on ``inputs`` and
    assert the outputs match TensorFlow's; returns the IR path."""
    inputs = [np.asarray(x) for x in inputs]
    return check_graph_def(tmp_path, tf1_graph(build, inputs, control_flow_v2, dynamic_batch), inputs, rtol, atol,
                           **options)


def check_graph_def(tmp_path, made: tuple, inputs: list[np.ndarray], rtol: float, atol: float, **options) -> str:
    """Convert ``made`` = (GraphDef, input names, output names, TensorFlow's outputs) with those
    inputs and outputs, run the IR on ``inputs`` and assert the outputs match; returns the IR path."""
    from tests.utils.runtime import assert_close, run_ir
    graph_def, names, outputs, expected = made
    os.makedirs(tmp_path, exist_ok=True)
    path = write_pb(graph_def, tmp_path / "model.pb")
    options.setdefault("input", ",".join(names))
    options.setdefault("output", ",".join(outputs))
    xml = convert_pb(path, tmp_path / "ir", **options)
    assert_close(run_ir(xml, inputs), expected, rtol=rtol, atol=atol)
    return xml


def tf1_raw_graph(build, inputs: list[np.ndarray] | None):
    """(GraphDef as built, not frozen, input names, output tensor names, TensorFlow's outputs) of a
    tf.compat.v1 graph: ``build()`` makes its placeholders (fed ``inputs`` in the order they are
    made) and returns the output tensors; the session runs only what the outputs need (no
    initializer), and not at all without ``inputs`` (the outputs are then None)."""
    import tensorflow as tf
    v1 = tf.compat.v1
    graph = tf.Graph()
    expected = None
    with graph.as_default():
        outputs = tf.nest.flatten(build())
        placeholders = [op.outputs[0] for op in graph.get_operations() if op.type == "Placeholder"]
        if inputs is not None:
            with v1.Session(graph=graph) as session:
                expected = session.run(outputs, dict(zip(placeholders, inputs)))
    return graph.as_graph_def(), [p.op.name for p in placeholders], [o.name for o in outputs], expected


def check_tf1_raw(tmp_path, build, inputs: list, rtol: float = 1e-4, atol: float = 1e-4, **options) -> str:
    """Build a tf.compat.v1 graph as it is, not frozen (see ``tf1_raw_graph``), convert it, run the
    IR on ``inputs`` and assert the outputs match TensorFlow's; returns the IR path."""
    inputs = [np.asarray(x) for x in inputs]
    return check_graph_def(tmp_path, tf1_raw_graph(build, inputs), inputs, rtol, atol, **options)
