"""Fixtures of the engine tests: ``model_path`` (the small ONNX conv/relu/sigmoid model, as a
file) is the command-line tests' own."""
from tests.e2e.test_cli import model_path  # noqa: F401
