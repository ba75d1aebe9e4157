"""TensorFlow loader: any TensorFlow model form (see model_io) -> op-form Graph.

TensorFlow is imported only when a TensorFlow model needs it: GraphDefs and TF2 SavedModels are
read without it (extensions/load/tf/protos.py, saved_model.py).
"""
from __future__ import annotations

from extensions.load.tf.frozen_model import FrozenModel
from extensions.load.tf.graph_builder import TfGraphBuilder
from extensions.load.tf.model_io import (
    GRAPHDEF_SUFFIXES,
    KERAS_SUFFIXES,
    import_tensorflow,
    is_saved_model_dir,
    is_tf_object,
    read_model,
)
from mo.errors import MissingPackageError
from mo.front.loader import Loader
from mo.graph.graph import Graph


class TfLoader(Loader):
    """Loads frozen GraphDefs, SavedModels, Keras models, MetaGraphs with checkpoints and
    TensorFlow function objects; the graph's default layout is NHWC."""

    framework = "tf"
    suffixes = GRAPHDEF_SUFFIXES + KERAS_SUFFIXES + (".meta",)

    @classmethod
    def accepts(cls, path) -> bool:
        if not isinstance(path, str):
            return is_tf_object(path)
        return super().accepts(path) or is_saved_model_dir(path)

    def load(self, context) -> Graph:
        options = context.options
        model = read_model(options, context.progress)
        builder = TfGraphBuilder(context, model.library, model.constants, model.op_defs)
        # outputs named with --output are built even when no declared output needs them
        graph = builder.build(model.nodes, options.outputs or model.outputs, inputs=model.inputs)
        if model.output_names and not options.outputs:
            for node in graph.nodes_by_op("Result"):
                name = model.output_names.get(node.get("tf_declared_output"))
                if name:
                    node.in_port(0).get_source().add_tensor_names([name])
        graph.graph["model_name"] = model.name
        return graph


    def source_layers(self, options, ir_inputs: list, feed: list):
        from extensions.load.tf.layer_outputs import TfLayers
        return TfLayers(options, ir_inputs, feed)

    def source_model(self, options) -> FrozenModel:
        """The frozen graph TensorFlow runs for --validate (SavedModels and MetaGraphs loaded by
        TensorFlow itself, which is imported here)."""
        try:
            import_tensorflow()
        except ImportError as e:
            raise MissingPackageError("--validate of a TensorFlow model runs it in TensorFlow: pip install "
                                      "tensorflow-cpu") from e
        return read_model(options, with_tensorflow=True)
