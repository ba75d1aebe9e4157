"""FrozenModel: what every TensorFlow model form is read into (a frozen graph, its functions and
outputs), shared by the readers (model_io.py, saved_model.py) and the loader."""
from __future__ import annotations

from dataclasses import dataclass, field

from mo.errors import InputModelError


@dataclass
class FrozenModel:
    """The nodes of a frozen GraphDef, its function library ({name: FunctionDef}), the tensors
    that are its outputs (None: found from the graph), a model name, the order of its inputs
    (Placeholder names; None: as the GraphDef lists them), the values of the nodes that stand
    for captured variables, the op definitions ({op type: OpDef}) that its functions are read
    with (None: TensorFlow reads them) and the names of its outputs ({tensor: name})."""

    nodes: list
    library: dict
    outputs: list[str] | None
    name: str
    inputs: list[str] | None = None
    constants: dict = field(default_factory=dict)
    # the concrete function it was frozen from (TF2 forms) and the object that keeps its
    # variables alive, for running it (--validate)
    function: object = None
    owner: object = None
    op_defs: dict | None = None
    output_names: dict = field(default_factory=dict)

    @classmethod
    def of(cls, graph_def, outputs: list[str] | None, name: str, inputs: list[str] | None = None) -> "FrozenModel":
        """From a TensorFlow GraphDef."""
        library = {f.signature.name: f for f in graph_def.library.function}
        return cls(list(graph_def.node), library, outputs, name, inputs)


_TRAINING_PREFIXES = ("save/", "gradients/", "train/", "init")


def meta_outputs(meta, graph_def) -> list[str]:
    """Outputs of a MetaGraph: its serving signature's, else output 0 of the nodes that depend
    on a Placeholder and that nothing reads (leaving out saving and training nodes)."""
    if meta is not None:
        for key in ("serving_default", *sorted(meta.signature_def)):
            sig = meta.signature_def.get(key)
            if sig is not None and sig.outputs:
                return [sig.outputs[k].name for k in sorted(sig.outputs)]
    nodes = [n for n in graph_def.node if not n.name.startswith(_TRAINING_PREFIXES)]
    readers: dict[str, list[str]] = {}
    for n in nodes:
        for i in n.input:
            readers.setdefault(i.lstrip("^").split(":")[0], []).append(n.name)
    fed = set()
    stack = [n.name for n in nodes if n.op == "Placeholder"]
    while stack:
        name = stack.pop()
        if name not in fed:
            fed.add(name)
            stack.extend(readers.get(name, []))
    outputs = [f"{n.name}:0" for n in nodes if n.name in fed and n.op not in ("Placeholder", "NoOp")
               and not readers.get(n.name)]
    if not outputs:
        raise InputModelError("Cannot tell the outputs of the MetaGraph; name them with --output.")
    return outputs
