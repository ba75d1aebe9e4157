"""Installs mo: the `mo` and `extensions` packages and the `mo` command."""
from setuptools import find_packages, setup

ONNX = ["onnx>=1.16", "onnxruntime"]
PYTORCH = ["torch==2.13.0", "transformers"]
TF = ["tensorflow-cpu>=2.15"]
TEST = ["pytest>=8", "pytest-xdist>=3", "ruff", "openvino>=2025.0"]

setup(
    name="mo",
    version="0.1.0",
    description="Model optimizer: converts ONNX and TensorFlow models to OpenVINO IR v11",
    packages=find_packages(include=["mo", "mo.*", "extensions", "extensions.*"]),
    py_modules=[],
    package_data={"extensions.load.tf": ["op_arity.json"]},
    python_requires=">=3.10",
    install_requires=["numpy>=1.24", "networkx>=3.0", "protobuf>=4.21", "defusedxml>=0.7"],
    extras_require={
        "onnx": ONNX,
        "pytorch": PYTORCH,
        "tf": TF,
        "test": TEST,
        "all": ONNX + PYTORCH + TF + TEST,
    },
    entry_points={"console_scripts": ["mo=mo.main:entry"],
                  # torch.compile(model, backend="mo")
                  "torch_dynamo_backends": ["mo = mo.torch_backend:mo_backend"]},
)
