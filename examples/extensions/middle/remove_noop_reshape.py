"""Middle transform example: remove Reshapes whose output shape equals their input shape."""
from mo.pipeline.transform import Transform
from mo.utils.shape import is_static


class RemoveNoOpReshape(Transform):
    """Reads both shapes through Ports; a Reshape that changes nothing is bypassed."""

    phase = "middle"

    def find_and_replace_pattern(self, graph) -> None:
        for reshape in graph.nodes_by_op("Reshape"):
            source = reshape.in_port(0).get_source()
            in_shape = reshape.in_port(0).data.get_shape()
            out_shape = reshape.out_port(0).data.get_shape()
            if is_static(in_shape) and in_shape == out_shape:
                reshape.out_port(0).get_connection().set_source(source)
                graph.remove_node(reshape.id)
