"""Clean-ups after the layout step and the scale-shift fusions: zero padding before a convolution
or pooling becomes the op's own padding (TensorFlow's and transformers' explicit "same" padding),
and a Concat of a Concat along the same axis becomes one."""
from __future__ import annotations

import numpy as np

from extensions.middle.scale_shift_fusions import MergeConstantAdds
from extensions.middle.transpose_rules import const_input, perm_of
from extensions.middle.transpose_sinking import merge_duplicates
from mo.graph.builder import OpBuilder
from mo.pipeline.transform import Transform
from mo.utils.shape import normalize_axis

CONVOLUTIONS = ("Convolution", "GroupConvolution")


def _pads(node) -> tuple[list[int], list[int]]:
    """The explicit pads of a windowed op (zeros for valid padding)."""
    n = len(node.in_port(0).data.get_shape()) - 2
    explicit = node.auto_pad == "explicit"
    return (list(node.pads_begin) if explicit and node.pads_begin else [0] * n,
            list(node.pads_end) if explicit and node.pads_end else [0] * n)


def non_negative(port) -> bool:
    """Whether the tensor at ``port`` cannot hold negative values (a ReLU's output...)."""
    node = port.node
    return node.op in ("ReLU", "Sigmoid", "Exp", "SoftPlus") or (node.op == "Clamp" and node.min >= 0)


def takes_zero_pads(reader, source, begin: np.ndarray) -> bool:
    """Whether a reader of Pad(source, zeros) can pad by itself instead: convolutions always;
    average pooling counting the padding (TensorFlow's VALID pooling of padded data); max pooling
    of non-negative data when every window still holds a real element."""
    node = reader.node
    if reader.idx != 0 or node.get("auto_pad") not in ("explicit", "valid"):
        return False
    if node.op in CONVOLUTIONS:
        return True
    if node.op == "AvgPool":
        return not any(sum(_pads(node), [])) or not node["exclude-pad"]
    if node.op == "MaxPool":     # its indices would count the pad: only when nothing reads them
        return non_negative(source) and all(int(p) < k for p, k in zip(begin[2:], node.kernel)) and \
            not (node.op_class.outputs_count(node) > 1 and node.out_port(1).is_connected())
    return False


class PadIntoConvolution(Transform):
    """Pad (constant 0, spatial dims only) -> Convolution, AvgPool or MaxPool (see
    takes_zero_pads) with explicit or valid padding: the pads are added to the op's. A Transpose
    between the Pad and the op moves before the Pad first."""

    phase = "middle"

    def run_after(self):
        return [MergeConstantAdds]

    def find_and_replace_pattern(self, graph) -> None:
        for t in graph.nodes_by_op("Transpose"):
            self.swap_with_pad(graph, t)
        merge_duplicates(graph)
        for pad in graph.nodes_by_op("Pad"):
            readers = pad.out_port(0).get_destinations()
            begin, end = const_input(pad, 1), const_input(pad, 2)
            value = const_input(pad, 3) if pad.is_in_port_connected(3) else np.zeros(1)
            if pad.pad_mode != "constant" or begin is None or end is None or value is None or np.any(value != 0) \
                    or np.any(begin[:2] != 0) or np.any(end[:2] != 0) or np.any(begin < 0) or np.any(end < 0):
                continue
            source = pad.in_port(0).get_source()
            if not readers or not all(takes_zero_pads(r, source, begin) for r in readers):
                continue
            for reader in readers:
                node = reader.node
                old_begin, old_end = _pads(node)
                node.update({"auto_pad": "explicit",
                             "pads_begin": [int(a + b) for a, b in zip(old_begin, begin[2:])],
                             "pads_end": [int(a + b) for a, b in zip(old_end, end[2:])]})
                if node.op == "AvgPool":
                    node["exclude-pad"] = False
                if node.op == "MaxPool" and node.op_class.outputs_count(node) > 1:
                    node.out_port(1).drop_names()     # indices into the unpadded tensor now
                source.connect(reader)
            graph.remove_node(pad.id)


    @staticmethod
    def swap_with_pad(graph, t) -> None:
        """Transpose(Pad(x), P) -> Pad(Transpose(x, P)) when the Transpose is the Pad's only
        reader (a model input padded before its first convolution), so the Pad meets the
        convolution."""
        pad = t.in_port(0).get_source().node
        perm = perm_of(t)
        if pad.op != "Pad" or perm is None or len(pad.out_port(0).get_destinations()) != 1:
            return
        begin, end = const_input(pad, 1), const_input(pad, 2)
        if begin is None or end is None or begin.size != len(perm):
            return
        b = OpBuilder(graph, t.name)
        moved = b.Transpose(pad.in_port(0).get_source(), np.array(perm, np.int64), name=t.name)
        extra = [pad.in_port(3).get_source()] if pad.is_in_port_connected(3) else []
        new = b.Pad(moved, begin.reshape(-1)[perm], end.reshape(-1)[perm], *extra, pad_mode=pad.pad_mode,
                    name=pad.name)
        t.out_port(0).get_connection().set_source(new)
        graph.remove_node(t.id)
        graph.remove_node(pad.id)


class FlattenConcats(Transform):
    """Concat(a, Concat(b, c), d) along one axis, the inner read by nothing else ->
    Concat(a, b, c, d)."""

    phase = "middle"

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
