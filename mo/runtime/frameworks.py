"""Running the source model for ``--validate``: ONNX Runtime for ONNX, TensorFlow for TensorFlow
models, PyTorch for PyTorch files and objects, on the inputs the IR is run with.

Each runner takes the IR's inputs and outputs (``TensorInfo``-like: ``names``) and the input
arrays in IR order, and returns the framework's values in the IR's output order. Inputs the
conversion froze (``--input "x->1"``, ``--freeze_placeholder_with_value``) are fed their values.
"""
from __future__ import annotations

import os

import numpy as np

from mo.errors import MissingPackageError, OptionError

ONNX_TYPES = {"tensor(float)": np.float32, "tensor(double)": np.float64, "tensor(float16)": np.float16,
              "tensor(int64)": np.int64, "tensor(int32)": np.int32, "tensor(int16)": np.int16,
              "tensor(int8)": np.int8, "tensor(uint8)": np.uint8, "tensor(uint16)": np.uint16,
              "tensor(uint32)": np.uint32, "tensor(uint64)": np.uint64, "tensor(bool)": np.bool_}


def _frozen_values(opts) -> dict:
    return {spec.name: spec.value for spec in opts.inputs if spec.value is not None and spec.name}


def source_loader(opts, framework: str):
    """The loader of ``framework`` in the registry of the conversion: its ``source_model`` gives
    the model as its framework runs it."""
    from mo.registry import Registry
    return Registry.build(opts.extensions).loaders[framework]()


def _pick(names: list[str], known, what: str, where: str, used: set | None = None, order=()) -> str:
    """The first of ``names`` the framework knows (in ``order`` first: its declared outputs),
    skipping those in ``used``: two IR outputs of one tensor (merged by the converter) carry the
    same names and take them in turn."""
    ranked = [n for n in order if n in names] + [n for n in names if n not in order]
    for name in ranked:
        if name in known and (used is None or name not in used):
            if used is not None:
                used.add(name)
            return name
    raise OptionError(f"--validate runs the whole source model, but the IR's {what} '{names[0] if names else '?'}' "
                      f"is not one of {where} (the graph was cut with --input/--output): validate the model "
                      f"without the cut.")


def run_onnx(opts, ir_inputs, ir_outputs, feed: list[np.ndarray]) -> tuple[str, list[np.ndarray]]:
    try:
        import onnx
        import onnxruntime as ort
    except ImportError as e:
        raise MissingPackageError("--validate of an ONNX model runs it in ONNX Runtime: pip install onnxruntime") from e
    model = opts.input_model
    proto = onnx.load(model) if isinstance(model, str) else model
    initializers = {t.name for t in proto.graph.initializer}
    graph_inputs = [i.name for i in proto.graph.input if i.name not in initializers]
    graph_outputs = [o.name for o in proto.graph.output]
    produced = {name for node in proto.graph.node for name in node.output if name}
    used: set = set()
    outputs = [_pick(o.names or [o.name], set(graph_outputs) | produced, "output", "the ONNX model's tensors",
                     used, graph_outputs) for o in ir_outputs]
    for info, name in zip(ir_outputs, outputs):
        info.name = name
    extra = [name for name in outputs if name not in graph_outputs]
    if extra:
        proto = onnx.ModelProto.FromString(proto.SerializeToString())
        proto.graph.output.extend(onnx.helper.make_empty_tensor_value_info(n) for n in extra)
    source = model if isinstance(model, str) and not extra else proto.SerializeToString()
    session = ort.InferenceSession(source, providers=["CPUExecutionProvider"])
    types = {i.name: ONNX_TYPES.get(i.type) for i in session.get_inputs()}
    inputs = {}
    for info, value in zip(ir_inputs, feed):
        name = _pick(info.names or [info.name], set(graph_inputs), "input", "the ONNX model's inputs")
        inputs[name] = value
    for name, value in _frozen_values(opts).items():
        if name in types:
            inputs[name] = np.asarray(value)
    inputs = {k: v.astype(types[k]) if types.get(k) is not None else v for k, v in inputs.items()}
    return f"ONNX Runtime {ort.__version__}", session.run(outputs, inputs)


def tf_graph(opts):
    """(tensorflow module, the ``tf.Graph`` of the frozen graph the converter read (every
    TensorFlow model form becomes one), {tensor name: value} to feed for the variables it
    stands for, its declared output tensors, {signature key: output tensor} of a SavedModel). A
    function with variables is frozen by TensorFlow itself first."""
    frozen = source_loader(opts, "tf").source_model(opts)    # TensorFlow is imported by then
    import tensorflow as tf
    if frozen.constants and frozen.function is not None:
        # variables: TensorFlow's own freezing of the function the converter read
        from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2
        graph_def = convert_variables_to_constants_v2(frozen.function, lower_control_flow=False).graph.as_graph_def()
        constants = {}
    else:
        graph_def = tf.compat.v1.GraphDef()
        for node in frozen.nodes:
            graph_def.node.add().ParseFromString(node.SerializeToString())
        for function in frozen.library.values():
            graph_def.library.function.add().ParseFromString(function.SerializeToString())
        constants = frozen.constants
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.import_graph_def(graph_def, name="")
    feed = {graph.get_operation_by_name(name).outputs[0].name: value for name, value in constants.items()}
    # a SavedModel's outputs by their signature keys, which the IR's outputs carry as names: the
    # light reader and TensorFlow name the tensors of nested function calls differently
    by_key = {key: ref if ":" in ref else ref + ":0" for ref, key in frozen.output_names.items()}
    return tf, graph, feed, [n if ":" in n else n + ":0" for n in frozen.outputs or []], by_key


def tf_feed(opts, graph, ir_inputs, feed: list[np.ndarray]) -> dict:
    """The feed dict of the TensorFlow graph: the IR's inputs by name, and the inputs the
    conversion froze."""
    tensors = {t.name for op in graph.get_operations() for t in op.outputs}
    feed_dict = {}
    for info, value in zip(ir_inputs, feed):
        feed_dict[_pick(_tf_tensor_names(info), tensors, "input", "the TensorFlow graph's tensors")] = value
    for name, value in _frozen_values(opts).items():
        if f"{name}:0" in tensors:
            feed_dict[f"{name}:0"] = np.asarray(value)
    return feed_dict


def _tf_tensor_names(info) -> list[str]:
    return [n if ":" in n else n + ":0" for n in (info.names or [info.name])]


def run_tf(opts, ir_inputs, ir_outputs, feed: list[np.ndarray]) -> tuple[str, list[np.ndarray]]:
    """The frozen graph the converter read, run in a TensorFlow session (``tf_graph``)."""
    tf, graph, constants, declared, by_key = tf_graph(opts)
    tensors = {t.name for op in graph.get_operations() for t in op.outputs}
    feed_dict = {**tf_feed(opts, graph, ir_inputs, feed), **constants}
    used: set = set()
    fetches = []
    for o in ir_outputs:
        key = next((n for n in o.names or [] if n in by_key and by_key[n] in tensors and by_key[n] not in used), None)
        if key is None:
            fetches.append(_pick(_tf_tensor_names(o), tensors, "output", "the TensorFlow graph's tensors", used,
                                 declared))
            o.name = fetches[-1]
        else:
            used.add(by_key[key])
            fetches.append(by_key[key])
            o.name = key
    with tf.compat.v1.Session(graph=graph) as session:
        values = session.run(fetches, feed_dict)
    return f"TensorFlow {tf.__version__}", [np.asarray(v) for v in values]


def _flatten_torch(value, into: list) -> None:
    import torch
    if isinstance(value, torch.Tensor):
        into.append(value.detach().numpy())
    elif isinstance(value, dict):
        for v in value.values():
            _flatten_torch(v, into)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _flatten_torch(v, into)
    elif isinstance(value, (bool, int, float)):
        into.append(np.asarray(value))


def run_torch(opts, ir_inputs, ir_outputs, feed: list[np.ndarray]) -> tuple[str, list[np.ndarray]]:
    try:
        import torch
    except ImportError as e:
        raise MissingPackageError("--validate of a PyTorch model runs it in PyTorch: pip install torch") from e
    if _frozen_values(opts):
        raise OptionError("--validate cannot feed a PyTorch model inputs that --input froze to values: validate "
                          "without freezing them.")
    loader = source_loader(opts, "pytorch")
    module = loader.source_model(opts)
    tensors = [torch.from_numpy(np.ascontiguousarray(v)) for v in feed]
    names = [info.name for info in ir_inputs]
    with torch.no_grad():
        by_name = loader.run_decoder(module, dict(zip(names, tensors))) if "input_ids" in names else None
        if by_name is not None:   # a decoder converted with its cache
            missing = [o.name for o in ir_outputs if o.name not in by_name]
            if missing:
                raise OptionError(f"--validate: the decoder gives no output named {', '.join(missing)} (the graph was "
                                  f"cut with --output?): validate without the cut.")
            return f"PyTorch {torch.__version__}", [by_name[o.name] for o in ir_outputs]
        if isinstance(opts.input_model, str) and os.path.isdir(opts.input_model):
            # a checkpoint folder (PyTorch's one folder form): its model takes the IR's inputs by name
            result = module(**{info.name: t for info, t in zip(ir_inputs, tensors)})
        elif isinstance(opts.example_input, dict):
            keys = list(opts.example_input)
            named = {info.name: t for info, t in zip(ir_inputs, tensors)}
            result = module(**{k: named.get(k, t) for k, t in zip(keys, tensors)})
        else:
            result = module(*tensors)
    flat: list = []
    _flatten_torch(result, flat)
    if len(flat) != len(ir_outputs):
        raise OptionError(f"--validate: the PyTorch model gives {len(flat)} outputs but the IR has "
                          f"{len(ir_outputs)} (the graph was cut with --output?): validate without the cut.")
    return f"PyTorch {torch.__version__}", flat


RUNNERS = {"onnx": run_onnx, "tf": run_tf, "pytorch": run_torch}
