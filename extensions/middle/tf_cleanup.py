"""Clean-ups of what TensorFlow graphs leave after the layout step and the scale-shift fusions:
zero padding before a convolution becomes the convolution's own padding, adding zero or
multiplying by one disappears, and a Concat of a Concat along the same axis becomes one."""
from __future__ import annotations

import numpy as np

from extensions.middle.scale_shift_fusions import MergeConstantAdds
from extensions.middle.transpose_rules import const_input
from mo.pipeline.transform import Transform
from mo.utils.shape import normalize_axis

CONVOLUTIONS = ("Convolution", "GroupConvolution")
NEUTRAL = {"Add": 0, "Subtract": 0, "Multiply": 1, "Divide": 1}


class TfPadIntoConvolution(Transform):
    """Pad (constant 0, spatial dims only) -> Convolution with explicit or valid padding: the pads
    are added to the convolution's."""

    phase = "middle"
    frameworks = ("tf",)

    def run_after(self):
        return [MergeConstantAdds]

    def find_and_replace_pattern(self, graph) -> None:
        for pad in graph.nodes_by_op("Pad"):
            readers = pad.out_port(0).get_destinations()
            begin, end = const_input(pad, 1), const_input(pad, 2)
            value = const_input(pad, 3) if pad.is_in_port_connected(3) else np.zeros(1)
            if pad.pad_mode != "constant" or begin is None or end is None or value is None or np.any(value != 0):
                continue
            if any(r.node.op not in CONVOLUTIONS or r.idx != 0 or r.node.auto_pad not in ("explicit", "valid")
                   for r in readers) or np.any(begin[:2] != 0) or np.any(end[:2] != 0) or np.any(begin < 0) \
                    or np.any(end < 0):
                continue
            source = pad.in_port(0).get_source()
            for reader in readers:
                conv = reader.node
                n = len(begin) - 2
                old_begin = conv.pads_begin if conv.auto_pad == "explicit" and conv.pads_begin else [0] * n
                old_end = conv.pads_end if conv.auto_pad == "explicit" and conv.pads_end else [0] * n
                conv.update({"auto_pad": "explicit",
                             "pads_begin": [int(a + b) for a, b in zip(old_begin, begin[2:])],
                             "pads_end": [int(a + b) for a, b in zip(old_end, end[2:])]})
                source.connect(reader)
            graph.remove_node(pad.id)


class TfRemoveNeutralElementwise(Transform):
    """x + 0, x - 0, x * 1, x / 1 -> x when the constant changes neither the shape nor the type
    (a zero bias or an identity BatchNorm of an untrained model)."""

    phase = "middle"
    frameworks = ("tf",)

    def run_after(self):
        return [MergeConstantAdds]

    def find_and_replace_pattern(self, graph) -> None:
        for op, neutral in NEUTRAL.items():
            for node in graph.nodes_by_op(op):
                value = const_input(node, 1)
                x = node.in_port(0).get_source()
                if value is None or value.size == 0 or np.any(value != neutral):
                    continue
                if x.data.get_shape() != node.out_port(0).data.get_shape() or \
                        x.data.get_dtype() != node.out_port(0).data.get_dtype():
                    continue
                node.out_port(0).get_connection().set_source(x)
                graph.remove_node(node.id)


class TfFlattenConcats(Transform):
    """Concat(a, Concat(b, c), d) along one axis, the inner read by nothing else ->
    Concat(a, b, c, d)."""

    phase = "middle"
    frameworks = ("tf",)

    def run_after(self):
        return [MergeConstantAdds]

    def find_and_replace_pattern(self, graph) -> None:
        for outer in graph.nodes_by_op("Concat"):
            if outer.id not in graph or outer.out_port(0).data.get_rank() is None:
                continue
            rank = outer.out_port(0).data.get_rank()
            axis = normalize_axis(outer.axis, rank)
            sources = []
            for i in sorted(outer.in_ports()):
                src = outer.in_port(i).get_source()
                inner = src.node
                if inner.op == "Concat" and len(src.get_destinations()) == 1 and \
                        normalize_axis(inner.axis, rank) == axis:
                    sources += [inner.in_port(j).get_source() for j in sorted(inner.in_ports())]
                else:
                    sources.append(src)
            if len(sources) == len(outer.in_ports()):
                continue
            inners = [outer.in_port(i).get_source().node for i in sorted(outer.in_ports())]
            for i in sorted(outer.in_ports()):
                outer.in_port(i).disconnect()
            for i, src in enumerate(sources):
                src.connect(outer.in_port(i))
            for inner in inners:
                if inner.id in graph and inner.op == "Concat" and not inner.out_port(0).is_connected():
                    graph.remove_node(inner.id)
