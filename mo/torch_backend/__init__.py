"""``torch.compile(model, backend="mo")``: run the parts of a PyTorch model that mo converts in
the OpenVINO runtime, and the rest in PyTorch.

The backend is registered through the ``torch_dynamo_backends`` entry point (see setup.py), so
after installing mo ``backend="mo"`` works without an import. Options, given as
``torch.compile(model, backend="mo", options={...})``:

* ``device``: the OpenVINO device the converted parts run on (default "CPU");
* ``inference_precision``: the device's inference precision hint, e.g. "f32" or "bf16" (default:
  the device's own choice);
* ``cache_dir``: a folder where the converted IRs are kept, keyed by the graph, its input
  signature and its weights; a later process finds them there and skips the conversion (and,
  through OpenVINO's CACHE_DIR in its subfolder ``openvino``, the device compilation);
* ``fallback``: False makes an operation mo cannot convert an error instead of running it in
  PyTorch (default True);
* ``compress_to_fp16``: store float32 weights as float16 in the IR (default False: the outputs
  then match eager PyTorch);
* ``config``: further OpenVINO properties for compile_model (a dict).

Only this package's runtime part imports ``openvino``; the converter it calls never does.
"""
from __future__ import annotations


def mo_backend(gm, example_inputs, options: dict | None = None):
    """The Dynamo backend: lowers ``gm`` to ATen, converts what mo supports, returns a callable."""
    from mo.torch_backend.backend import compile_graph
    return compile_graph(gm, example_inputs, options)


__all__ = ["mo_backend"]
