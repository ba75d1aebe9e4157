"""Running IRs and source models (``--validate``, ``IRModel.to_openvino``). The only modules of
the converter that import openvino, onnxruntime, and (for running, not loading) TensorFlow and
PyTorch; nothing else imports them, and they import those packages only when called."""
