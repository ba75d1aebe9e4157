"""Extractors of the ONNX control-flow operators If, Loop and Scan."""
from __future__ import annotations

from extensions.front.onnx.bodies import body_outputs, check_arity, outer_input_entries
from extensions.load.onnx.attributes import OnnxExtractor
from extensions.ops.control_flow import If, port_entry
from extensions.ops.onnx_control_flow import OnnxLoop, OnnxScan


class IfExtractor(OnnxExtractor):
    """If -> If: input 0 is the condition, the tensors the branches read from the enclosing
    graph follow; output i is output i of the branch that runs."""

    op_types = ("If",)

    @classmethod
    def extract(cls, node):
        bodies = {"then_body": node.bodies["then_branch"], "else_body": node.bodies["else_branch"]}
        n_outputs = len(node.pb.output)
        inputs, outputs = [], []
        for name, body in bodies.items():
            results = body_outputs(body)
            check_arity(node, f"{name} outputs", len(results), n_outputs)
            inputs += outer_input_entries(node, name, body, len(node.pb.input))
            outputs += [port_entry(i, r, name) for i, r in enumerate(results)]
        If.update_node(node, {"bodies": bodies, "input_port_map": inputs, "output_port_map": outputs,
                              "num_outputs": n_outputs})


class LoopExtractor(OnnxExtractor):
    op_types = ("Loop",)

    @classmethod
    def extract(cls, node):
        OnnxLoop.update_node(node)


class ScanExtractor(OnnxExtractor):
    """Scan (opset 8 with a batch axis, opset 9+ without); directions default to forward and
    axes to the first axis after the batch axis (if any)."""

    op_types = ("Scan",)

    @classmethod
    def extract(cls, node):
        n_scan_in = int(cls.attr(node, "num_scan_inputs"))
        batched = node.opset < 9
        n_state = len(node.pb.input) - n_scan_in - int(batched)
        n_scan_out = len(node.pb.output) - n_state
        directions = cls.ints(node, "scan_input_directions" if not batched else "directions", [0] * n_scan_in)
        axis = int(batched)   # opset 8: the scan axis follows the batch axis
        OnnxScan.update_node(node, {
            "batched": batched, "num_state": n_state, "num_scan_inputs": n_scan_in,
            "input_axes": cls.ints(node, "scan_input_axes", [axis] * n_scan_in),
            "input_directions": directions,
            "output_axes": cls.ints(node, "scan_output_axes", [axis] * n_scan_out),
            "output_directions": cls.ints(node, "scan_output_directions", [0] * n_scan_out)})
