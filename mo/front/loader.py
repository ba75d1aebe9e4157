"""Loader base class: reads a model of one framework into an op-form Graph."""
from __future__ import annotations

from mo.errors import OptionError
from mo.graph.graph import Graph


class Loader:
    """Builds a Graph from a model. Subclasses set ``framework`` and implement ``load``.

    ``load(options)`` returns an op-form Graph: one node per framework operation with ``fw_op``
    (the framework type) and whatever the extractors need (``pb`` for protobuf formats), one
    ``Parameter`` node per model input and one ``Result`` node per model output. Tensor names
    are recorded in each producer's ``tensor_names``. A node may carry ``input_check``: a
    function of the node that the translate step calls once the node's inputs are inferred, before
    translating or inferring it, to refuse inputs the framework's operator does not take (ONNX:
    the element types of its schema)."""

    abstract = True
    framework: str = ""
    # File name endings this loader claims when --framework is not given.
    suffixes: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "abstract" not in cls.__dict__:
            cls.abstract = False

    @classmethod
    def accepts(cls, path: str) -> bool:
        """Whether ``path`` looks like a model of this framework (used to guess --framework)."""
        return path.lower().endswith(cls.suffixes)

    def load(self, options) -> Graph:
        raise NotImplementedError

    def source_model(self, options):
        """The model as its own framework runs it, for ``--validate`` (``mo/runtime/frameworks.py``
        runs it on the IR's inputs): what that is depends on the framework (TensorFlow: the
        frozen graph read with TensorFlow; PyTorch: the module). A loader that does not give one
        cannot be validated."""
        raise OptionError(f"--validate cannot run the models {type(self).__name__} reads in their framework.")

    def source_layers(self, options, ir_inputs: list, feed: list):
        """For ``--validate_layers``: the model in its own framework, ready to run on ``feed``
        (arrays in the order of the IR's inputs ``ir_inputs``, ``TensorInfo``-like: ``name``,
        ``names``), as a ``mo.runtime.layers.SourceLayers``: the tensors its nodes make, in
        topological order, and their values by name. A loader without it cannot compare layers."""
        raise OptionError(f"--validate_layers cannot run the models {type(self).__name__} reads in their framework.")
