"""Extractors of ONNX LSTM, GRU and RNN."""
from __future__ import annotations

from extensions.load.onnx.attributes import OnnxExtractor
from extensions.ops.onnx_recurrent import OnnxRecurrent
from extensions.ops.recurrent import num_directions

# ONNX activation names OpenVINO's sequence operations implement.
ACTIVATIONS = {"sigmoid": "sigmoid", "tanh": "tanh", "relu": "relu"}
DEFAULT_ACTIVATIONS = {"LSTM": ["Sigmoid", "Tanh", "Tanh"], "GRU": ["Sigmoid", "Tanh"], "RNN": ["Tanh"]}


def activations(node, names: list[str], alpha: list[float], beta: list[float], per_direction: int) -> dict:
    """OpenVINO activations (one set for all directions) from the ONNX list (one set per
    direction)."""
    sets = [names[i:i + per_direction] for i in range(0, len(names), per_direction)] or [names]
    if any(s != sets[0] for s in sets):
        raise ValueError(f"directions with different activations ({names}) are not supported")
    unknown = [a for a in sets[0] if a.lower() not in ACTIVATIONS]
    if unknown:
        raise ValueError(f"activation functions {unknown} are not supported (only Sigmoid, Tanh, Relu)")
    return {"activations": [ACTIVATIONS[a.lower()] for a in sets[0]],
            "activations_alpha": alpha[:per_direction], "activations_beta": beta[:per_direction]}


class RecurrentExtractor(OnnxExtractor):
    op_types = ("LSTM", "GRU", "RNN")

    @classmethod
    def extract(cls, node):
        cell = node.fw_op
        direction = str(cls.attr(node, "direction", "forward")).lower()
        if direction not in ("forward", "reverse", "bidirectional"):
            raise ValueError(f"unknown direction '{direction}'")
        if int(cls.attr(node, "input_forget", 0)):
            raise ValueError("LSTM with input_forget=1 (coupled input and forget gates) is not supported")
        names = list(cls.attr(node, "activations", []) or DEFAULT_ACTIVATIONS[cell] * num_directions(direction))
        per_direction = len(DEFAULT_ACTIVATIONS[cell])
        alpha = [float(a) for a in cls.attr(node, "activation_alpha", []) or []]
        beta = [float(b) for b in cls.attr(node, "activation_beta", []) or []]
        OnnxRecurrent.update_node(node, {
            "cell": cell, "hidden_size": cls.attr(node, "hidden_size"), "direction": direction,
            "clip": float(cls.attr(node, "clip", 0.0)), "layout": int(cls.attr(node, "layout", 0)),
            "linear_before_reset": bool(cls.attr(node, "linear_before_reset", 0)),
            **activations(node, names, alpha, beta, per_direction)})
