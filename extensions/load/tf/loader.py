"""TensorFlow loader: any TensorFlow model form (see model_io) -> op-form Graph.

TensorFlow is imported only here, when a TensorFlow model is converted.
"""
from __future__ import annotations

import logging
import os
import sys

from extensions.load.tf.graph_builder import TfGraphBuilder
from extensions.load.tf.model_io import GRAPHDEF_SUFFIXES, KERAS_SUFFIXES, is_saved_model_dir, is_tf_object, read_model
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

    def load(self, options) -> Graph:
        import_tensorflow(quiet=not logging.getLogger("mo").isEnabledFor(logging.DEBUG))
        model = read_model(options)
        library = {f.signature.name: f for f in model.graph_def.library.function}
        builder = TfGraphBuilder(options.registry, library)
        # outputs named with --output are built even when no declared output needs them
        graph = builder.build(model.graph_def.node, options.outputs or model.outputs)
        graph.graph["model_name"] = model.name
        return graph


def import_tensorflow(quiet: bool):
    """Import TensorFlow; ``quiet`` hides what its native libraries print on stderr while they
    load (oneDNN and absl notices that no setting turns off)."""
    if "tensorflow" in sys.modules or not quiet:
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
