"""The OpenVINO runtime side: reading an IR (from files or memory) and running it on CPU."""
from __future__ import annotations

import functools

import numpy as np

from mo.errors import MissingPackageError


def import_openvino():
    try:
        import openvino
    except ImportError as e:
        raise MissingPackageError("This needs the OpenVINO runtime, which is not installed: pip install openvino "
                                  "(the conversion itself does not need it).") from e
    return openvino


@functools.cache
def core():
    """The process's one ``openvino.Core`` (creating one loads the plugins: not per model)."""
    return import_openvino().Core()


def read_ir(xml: str, weights: bytes):
    """An ``openvino.Model`` from IR text and weights bytes held in memory."""
    ov = import_openvino()
    data = np.frombuffer(weights, dtype=np.uint8) if weights else np.zeros(0, np.uint8)
    return core().read_model(model=xml, weights=ov.Tensor(data))


def read_ir_file(xml_path: str):
    return core().read_model(xml_path)


def compile_f32(model):
    """Compiled for CPU computing in f32 (no bf16/f16 inference precision, whatever the CPU), so
    a comparison measures the conversion, not the device's precision."""
    return compile_at(model, "f32")


def compile_at(model, precision: str):
    """Compiled for CPU with the inference precision ``precision`` (f32, bf16 or f16)."""
    return core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": precision})


def run(compiled, feed: list[np.ndarray]) -> list[np.ndarray]:
    request = compiled.create_infer_request()
    request.infer({i: np.ascontiguousarray(v) for i, v in enumerate(feed)})
    return [np.array(request.get_output_tensor(i).data) for i in range(len(compiled.outputs))]
