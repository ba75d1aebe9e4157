"""Results of a conversion: the paths of a written IR, or an IR held in memory.

``convert_model(..., output_dir=None)`` (the Python API's default) returns an ``IRModel``: the
IR's XML text and weights bytes, its inputs and outputs, ``save(path)`` to write it and
``to_openvino()`` to get an ``openvino.Model`` (the only place besides ``--validate`` where the
openvino package is imported, and only when called). Its float weights are float32 unless the
conversion was asked to compress them; ``save`` writes them as float16 by default, as OpenVINO's
``save_model`` does.
"""
from __future__ import annotations

import os
from typing import NamedTuple


class IRPaths(NamedTuple):
    """Paths of the written IR files."""

    xml: str
    bin: str


class IRModel:
    """An IR v11 in memory: ``xml`` (text), ``weights`` (the .bin bytes), ``name``, ``inputs`` and
    ``outputs`` (``mo.pipeline.summary.TensorInfo``: name, names, shape, element_type) and
    ``summary`` (what ``--log_level INFO`` prints); ``companions``: files that ``save`` writes
    beside the IR (a transformers model's configuration and tokenizer)."""

    def __init__(self, name: str, xml: str, weights: bytes, inputs: list, outputs: list, summary=None,
                 companions: tuple = ()):
        self.name = name
        self.xml = xml
        self.weights = weights
        self.inputs = inputs
        self.outputs = outputs
        self.summary = summary
        # what save() does by default, and what it compresses with (None: nothing to compress;
        # mo/pipeline/save_compressed.py)
        self.compress_on_save = False
        self.compressor = None
        self.companions = tuple(companions)

    def __repr__(self) -> str:
        ins = ", ".join(map(str, self.inputs))
        outs = ", ".join(map(str, self.outputs))
        return f"<IRModel '{self.name}': inputs {ins}; outputs {outs}; {len(self.weights)} bytes of weights>"

    def save(self, path: str, compress_to_fp16: bool | None = None) -> IRPaths:
        """Write the IR: ``path`` is the .xml file to write (the .bin goes beside it) or an
        existing folder (then the files are named after the model). Returns their paths.

        ``compress_to_fp16``: float32 weights written as float16 with a decompression Convert, as
        ``convert_model(..., output_dir=...)`` and the command line write them. The default is
        True, or what the conversion was given (``convert_model(m, compress_to_fp16=False)``
        saves float32). Weights the conversion already compressed are written as they are."""
        from mo.emit.ir import save_ir
        path = os.fspath(path)
        if os.path.isdir(path) or path.endswith(("/", os.sep)):
            folder, name = path, self.name
        else:
            folder, base = os.path.split(path)
            name = base[:-4] if base.lower().endswith(".xml") else base
        compress = self.compress_on_save if compress_to_fp16 is None else bool(compress_to_fp16)
        if compress and self.compressor is not None:
            paths = IRPaths(*self.compressor.save(folder or ".", name))
        else:
            paths = IRPaths(*save_ir(folder or ".", name, self.xml, self.weights))
        for companion in self.companions:
            companion.write(folder or ".")
        return paths

    def to_openvino(self):
        """The IR as an ``openvino.Model`` (needs the openvino package)."""
        from mo.runtime.openvino_ir import read_ir
        return read_ir(self.xml, self.weights)
