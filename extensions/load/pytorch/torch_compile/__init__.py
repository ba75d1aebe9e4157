"""``torch.compile(model, backend="mo")``: run the parts of a PyTorch model that mo converts in
the OpenVINO runtime, and the rest in PyTorch.

The backend is registered through the ``torch_dynamo_backends`` entry point (``mo.torch_backend``,
which calls ``PyTorchLoader.dynamo_backend``), so after installing mo ``backend="mo"`` works
without an import. Options, given as ``torch.compile(model, backend="mo", options={...})``:

* ``device``: the OpenVINO device the converted parts run on (default "CPU");
* ``inference_precision``: the device's inference precision hint ("f32", "bf16", "f16"). By
  default the model's own precision: f32 for a float32 model, so that the results match eager
  PyTorch (the CPU plugin would otherwise compute in bf16 where the CPU has it), and bf16 (f16)
  for a graph captured under ``torch.autocast("cpu", dtype=torch.bfloat16)`` (``float16``) or
  whose inputs are of that type;
* ``cache_dir``: a folder where the converted IRs are kept, keyed by the graph, its input
  signature and its weights; a later process finds them there and skips the conversion (and,
  through OpenVINO's CACHE_DIR in its subfolder ``openvino``, the device compilation);
* ``fallback``: False makes an operation mo cannot convert an error instead of running it in
  PyTorch (default True);
* ``compress_to_fp16``: store float32 weights as float16 in the IR (default False: the outputs
  then match eager PyTorch);
* ``config``: further OpenVINO properties for compile_model (a dict).

``backend.py`` lowers and partitions Dynamo's graph and converts the parts; ``runtime.py`` runs
them (through ``mo/runtime``, the only code that imports ``openvino``; the converter never does).
"""
