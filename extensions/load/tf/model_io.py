"""Every form a TensorFlow model comes in, read as one frozen GraphDef.

* frozen GraphDef: ``.pb`` (binary) or ``.pbtxt`` / ``--input_model_is_text`` (text);
* SavedModel folder: the signature ``--saved_model_signature`` (default ``serving_default``) of
  the MetaGraph with ``--saved_model_tags``, its variables frozen into constants;
* Keras model file (``.keras``, ``.h5``) and ``tf.keras.Model`` objects;
* MetaGraph ``.meta`` with its checkpoint (``--input_checkpoint``, default: the .meta path
  without the suffix), variables restored and frozen;
* ``tf.function`` with an input signature, a concrete function, or a ``tf.Module`` whose
  ``__call__`` is such a function.

GraphDefs (with their function libraries), SavedModels (TF2 and TF1) and MetaGraphs with
checkpoints are read without TensorFlow (protos.py, saved_model.py, tensor_bundle.py); TensorFlow
is imported for Keras files, Python objects, and the models that use what the light readers do
not read (logged with the reason). Variables are then frozen with TensorFlow's own conversion, keeping
functional control flow (While/If with function bodies) as it is.
"""
from __future__ import annotations

import logging
import os
import re
import sys

from extensions.load.tf.frozen_model import FrozenModel, meta_outputs
from mo.errors import InputModelError, OptionError

KERAS_SUFFIXES = (".keras", ".h5", ".hdf5")
GRAPHDEF_SUFFIXES = (".pb", ".pbtxt", ".pbtx")
FRAMEWORK_PACKAGES = ("tensorflow", "keras", "tf_keras")


def import_tensorflow():
    """Import TensorFlow, hiding what its native libraries print on stderr while they load
    (oneDNN and absl notices that no setting turns off) unless the log level is DEBUG."""
    if "tensorflow" in sys.modules or logging.getLogger("mo").isEnabledFor(logging.DEBUG):
        import tensorflow
        return tensorflow
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    sys.stderr.flush()
    saved, devnull = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        import tensorflow
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)
    return tensorflow


def is_saved_model_dir(path: str) -> bool:
    return os.path.isdir(path) and any(os.path.isfile(os.path.join(path, f))
                                       for f in ("saved_model.pb", "saved_model.pbtxt"))


def is_tf_object(model) -> bool:
    """Whether ``model`` is a TensorFlow/Keras object (checked without importing TensorFlow)."""
    return any((getattr(c, "__module__", "") or "").split(".")[0] in FRAMEWORK_PACKAGES for c in type(model).__mro__)


def read_model(opts, progress=None, with_tensorflow: bool = False) -> FrozenModel:
    """The frozen model that ``opts`` describes (``progress``: told the bytes of a GraphDef file
    read). ``with_tensorflow``: SavedModels and MetaGraphs loaded by TensorFlow (a concrete
    function or a frozen graph TensorFlow can run, as --validate needs), not by the light readers
    (whose variables are constants of resource handles)."""
    model = opts.input_model
    if not isinstance(model, str):
        return from_object(model)
    if is_saved_model_dir(model):
        return from_saved_model(model, opts.saved_model_tags, opts.saved_model_signature, light=not with_tensorflow)
    if not is_graph_def_file(model) and not model.lower().endswith(".meta"):
        import_tensorflow()
    if os.path.isdir(model):
        raise InputModelError(f"'{model}' is a folder without saved_model.pb: not a SavedModel.")
    lower = model.lower()
    if lower.endswith(KERAS_SUFFIXES):
        return from_keras_file(model)
    if lower.endswith(".meta"):
        return from_meta_graph(model, opts.input_checkpoint, opts.outputs, light=not with_tensorflow)
    text = opts.input_model_is_text or lower.endswith((".pbtxt", ".pbtx"))
    return read_graph_def(model, text, progress)


def is_graph_def_file(path: str) -> bool:
    return os.path.isfile(path) and not path.lower().endswith(KERAS_SUFFIXES + (".meta",))


def _stem(path: str) -> str:
    return os.path.splitext(os.path.basename(os.path.normpath(path)))[0] or "model"


READ_CHUNK = 64 << 20


def read_file(path: str, progress=None) -> bytes:
    """The bytes of ``path``, read in chunks that ``progress`` (--progress) is told about."""
    if progress is None:
        with open(path, "rb") as f:
            return f.read()
    total = os.path.getsize(path)
    data = bytearray()
    with open(path, "rb") as f:
        while chunk := f.read(READ_CHUNK):
            data += chunk
            progress.bytes(len(data), total, "read")
    return bytes(data)


def read_graph_def(path: str, text: bool, progress=None) -> FrozenModel:
    """The model of a GraphDef file; a broken file is one InputModelError naming it. Read with
    the light reader; its function bodies are read with the op definitions of TensorFlow's op
    registry that op_outputs.json records. Read again with TensorFlow when a function uses an op
    that table does not know (or, in text form, the file has fields the light reader does not
    know)."""
    from extensions.load.tf.functions import op_outputs
    from extensions.load.tf.protos import graph_def_class
    data = read_file(path, progress)
    try:
        light = _parse(graph_def_class()(), data, text)
    except InputModelError as e:
        if not text:
            raise InputModelError(f"'{path}' {e}; it is truncated or of another format (give "
                                  f"--input_model_is_text for a text GraphDef).") from None
        light = None
    if light is not None:
        if not light.node:
            raise InputModelError(f"'{path}' is not a TensorFlow GraphDef: it has no nodes.")
        library = {f.signature.name: f for f in light.library.function}
        unknown = sorted({nd.op for f in library.values() for nd in f.node_def
                          if nd.op not in library and nd.op not in op_outputs()})
        if not unknown:
            return FrozenModel(list(light.node), library, None, _stem(path), op_defs={})
        logging.getLogger("mo").info("Reading the functions of '%s' with TensorFlow: they use op types it "
                                     "alone defines (%s).", path, ", ".join(unknown[:5]))
    del light
    import_tensorflow()
    from tensorflow.core.framework.graph_pb2 import GraphDef
    try:
        graph_def = _parse(GraphDef(), data, text)
    except InputModelError as e:
        raise InputModelError(f"'{path}' {e}.") from None
    return FrozenModel.of(graph_def, None, _stem(path))


def _parse(message, data: bytes, text: bool):
    from google.protobuf import text_format
    try:
        if text:
            text_format.Parse(data.decode("utf-8"), message)
        else:
            message.ParseFromString(data)
    except Exception as e:
        raise InputModelError(f"is not a {'text' if text else 'binary'} TensorFlow GraphDef "
                              f"({type(e).__name__}: {e})") from None
    return message


# ---------------------------------------------------------------------------- TF2 functions
def freeze_function(concrete, name: str) -> FrozenModel:
    """A concrete function with its variables as constants: the values of what its graph
    captures (variables and eager tensors) replace the Placeholders that stand for them, and
    ReadVariableOp reads them like an Identity. When a capture cannot be resolved, TensorFlow's
    own freezing (which runs its graph optimizer, slower and larger) is used."""
    values = captured_values(concrete)
    if values is not None:
        graph_def = concrete.graph.as_graph_def()
        inputs = [t.name.split(":")[0] for t in concrete.inputs if t.name.split(":")[0] not in values]
        model = FrozenModel.of(graph_def, [t.name for t in concrete.outputs], name, inputs)
        model.constants = values
        model.function = concrete
        return model
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2
    try:
        frozen = convert_variables_to_constants_v2(concrete, lower_control_flow=False)
    except Exception as e:
        raise InputModelError(f"Cannot freeze the variables of '{name}': {type(e).__name__}: {e}") from e
    outputs = [t.name for t in frozen.outputs]
    inputs = [t.name.split(":")[0] for t in frozen.inputs]
    return FrozenModel.of(frozen.graph.as_graph_def(), outputs, name, inputs)


def captured_values(concrete) -> dict | None:
    """{placeholder name: numpy value} of every capture of the function's graph, or None."""
    import tensorflow as tf
    variables = {id(v.handle): v for v in concrete.variables}
    values = {}
    for external, internal in concrete.graph.captures:
        try:
            if external.dtype == tf.resource:
                value = variables[id(external)].numpy()
            else:
                value = external.numpy()
        except Exception:
            return None
        values[internal.op.name] = value
    return values


def from_saved_model(path: str, tags: list[str] | None, signature: str | None, light: bool = True) -> FrozenModel:
    """Read without TensorFlow (saved_model.py) unless the model uses what that reader does not
    read (or ``light`` is False); then loaded with TensorFlow and its signature's function frozen."""
    from extensions.load.tf.saved_model import Unsupported, read_saved_model
    if light:
        try:
            return read_saved_model(path, tags, signature, _stem(path))
        except Unsupported as e:
            logging.getLogger("mo").info("Loading the SavedModel '%s' with TensorFlow: %s.", path, e)
    tf = import_tensorflow()
    try:
        loaded = tf.saved_model.load(path, tags=tags or None)
    except Exception as e:
        raise InputModelError(f"Cannot load the SavedModel '{path}'"
                              f"{' with tags ' + ','.join(tags) if tags else ''}: {type(e).__name__}: {e}") from e
    signatures = dict(getattr(loaded, "signatures", {}) or {})
    wanted = signature or "serving_default"
    if wanted not in signatures:
        if signature is None and not signatures and _call_function(loaded) is not None:
            return _owned(freeze_function(_call_function(loaded), _stem(path)), loaded)
        known = ", ".join(sorted(signatures)) or "none"
        raise OptionError(f"The SavedModel '{path}' has no signature '{wanted}' (signatures: {known}); "
                          f"name one with --saved_model_signature.")
    return _owned(_named_outputs(freeze_function(signatures[wanted], _stem(path)), signatures[wanted]), loaded)


def _named_outputs(model: FrozenModel, signature) -> FrozenModel:
    """The signature's output keys as the names of the frozen function's outputs (as the light
    reader names them): a signature returns a dict, flattened in key order."""
    structured = getattr(signature, "structured_outputs", None)
    if isinstance(structured, dict) and model.outputs and len(structured) == len(model.outputs):
        model.output_names = dict(zip(model.outputs, sorted(structured)))
    return model


def _owned(model: FrozenModel, owner) -> FrozenModel:
    model.owner = owner
    return model


def _call_function(module):
    """The concrete function of a module's ``__call__`` when it has a single input signature."""
    call = getattr(module, "__call__", None)
    if call is None or not hasattr(call, "get_concrete_function"):
        return None
    try:
        return call.get_concrete_function()
    except Exception:
        return None


def from_keras_file(path: str) -> FrozenModel:
    import tensorflow as tf
    try:
        model = tf.keras.models.load_model(path, compile=False)
    except Exception as e:
        raise InputModelError(f"Cannot load the Keras model '{path}': {type(e).__name__}: {e}") from e
    return from_keras_model(model, _stem(path))


def from_keras_model(model, name: str | None = None):
    import tensorflow as tf
    inputs = list(getattr(model, "inputs", None) or [])
    if not inputs:
        raise InputModelError("The Keras model has no defined inputs (build it or call it once first).")
    specs = [tf.TensorSpec(tuple(i.shape), i.dtype, name=_input_name(i, k)) for k, i in enumerate(inputs)]

    def call(*args):
        result = model(args[0] if len(args) == 1 else list(args), training=False)
        return tf.nest.flatten(result)
    concrete = tf.function(call).get_concrete_function(*specs)
    return freeze_function(concrete, name or getattr(model, "name", None) or "model")


def _input_name(tensor, index: int) -> str:
    name = getattr(tensor, "name", None) or f"input_{index}"
    return name.split(":")[0].replace("/", "_")


def object_name(model) -> str:
    """A model name from a function or module: its name without TensorFlow's decorations."""
    name = getattr(model, "__name__", None) or getattr(model, "name", None) or "model"
    if isinstance(name, bytes):
        name = name.decode("utf-8", "replace")
    name = re.sub(r"^__inference_|_\d+$", "", str(name))
    return re.sub(r"[^\w.-]", "_", name) or "model"


def from_object(model) -> FrozenModel:
    """A Keras model, tf.function, concrete function or tf.Module."""
    import tensorflow as tf
    if isinstance(model, tf.keras.Model) or type(model).__module__.startswith("keras"):
        if hasattr(model, "inputs"):
            return from_keras_model(model)
    name = object_name(model)
    if hasattr(model, "structured_input_signature") and hasattr(model, "graph"):
        return freeze_function(model, name)
    if hasattr(model, "get_concrete_function"):
        try:
            return freeze_function(model.get_concrete_function(), name)
        except (TypeError, ValueError) as e:
            raise InputModelError(f"The tf.function '{name}' has no input signature to trace it with: "
                                  f"give it one (input_signature=[tf.TensorSpec(...)]).") from e
    if isinstance(model, tf.Module):
        concrete = _call_function(model)
        if concrete is not None:
            return freeze_function(concrete, name)
        raise InputModelError("The tf.Module has no __call__ tf.function with an input signature to convert.")
    raise InputModelError(f"Cannot convert a {type(model).__name__}: give a Keras model, a tf.function with an "
                          f"input signature, a concrete function or a tf.Module.")


# ---------------------------------------------------------------------------- TF1 checkpoints
def from_meta_graph(path: str, checkpoint: str | None, outputs: list[str] | None = None,
                    light: bool = True) -> FrozenModel:
    """Import a MetaGraph, restore its variables from the checkpoint and freeze what the
    outputs (given, or found by ``_meta_outputs``) need; read without TensorFlow (saved_model.py)
    unless the model uses what that reader does not read."""
    from extensions.load.tf.saved_model import Unsupported, read_meta_graph
    if light and os.path.isfile(path):
        try:
            return read_meta_graph(path, checkpoint, outputs, _stem(path))
        except Unsupported as e:
            logging.getLogger("mo").info("Loading the MetaGraph '%s' with TensorFlow: %s.", path, e)
    tf = import_tensorflow()
    v1 = tf.compat.v1
    prefix = checkpoint or path[: -len(".meta")]
    graph = tf.Graph()
    with graph.as_default():
        try:
            saver = v1.train.import_meta_graph(path, clear_devices=True)
        except Exception as e:
            raise InputModelError(f"Cannot read the MetaGraph '{path}': {type(e).__name__}: {e}") from e
        meta = saver.export_meta_graph() if saver is not None else None
        outputs = list(outputs or []) or meta_outputs(meta, graph.as_graph_def())
        with v1.Session(graph=graph) as sess:
            if saver is not None:
                try:
                    saver.restore(sess, prefix)
                except Exception as e:
                    raise InputModelError(f"Cannot restore the checkpoint '{prefix}' of '{path}' (give it with "
                                          f"--input_checkpoint): {type(e).__name__}: {e}") from e
            frozen = v1.graph_util.convert_variables_to_constants(
                sess, graph.as_graph_def(), sorted({o.split(":")[0] for o in outputs}))
    return FrozenModel.of(frozen, outputs, _stem(path))
