"""Front transform example: ONNX Min(Max(x, 0), 6) -> Clamp(x, 0, 6)."""

from mo.graph.builder import OpBuilder
from mo.pipeline.transform import Transform, replace_outputs


def _scalar(port, expected: float) -> bool:
    """Whether the op-form input at ``port`` is a Const equal to ``expected``."""
    value = port.data.get_value()
    return value is not None and value.size == 1 and float(value.reshape(-1)[0]) == expected


class Relu6Fusion(Transform):
    """Fuses the two-op spelling of ReLU6 into one Clamp. It runs on the op graph before the
    translate step, so it matches the framework ops (``onnx:Max``, ``onnx:Min``) of two inputs."""

    phase = "front"
    frameworks = ("onnx",)
    ops = ("onnx:Min", "onnx:Max")

    def find_and_replace_pattern(self, graph) -> None:
        for minimum in graph.nodes_by_op("onnx:Min"):
            if minimum.id not in graph or sorted(minimum.in_ports()) != [0, 1]:
                continue
            maximum = minimum.in_port(0).get_source()
            if maximum is None or maximum.node.op != "onnx:Max" or sorted(maximum.node.in_ports()) != [0, 1] \
                    or not _scalar(minimum.in_port(1), 6.0):
                continue
            if not _scalar(maximum.node.in_port(1), 0.0) or len(maximum.get_destinations()) != 1:
                continue
            b = OpBuilder(graph, minimum.name)
            clamp = b.Clamp(maximum.node.in_port(0).get_source(), min=0.0, max=6.0, name=minimum.name)
            old = maximum.node
            replace_outputs(minimum, [clamp])
            graph.remove_node(old.id)
