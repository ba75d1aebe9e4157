"""GroupNormalization written as Reshape -> MVN -> Reshape -> Multiply -> Add where the OpenVINO CPU
plugin would crash compiling it.

The CPU plugin (2026.4) turns a GroupNormalization of static shape into a snippets kernel
(``TokenizeGNSnippets``) and fuses elementwise chains into snippets too. When the
GroupNormalization's output goes straight into a binary elementwise op whose other input is
made by an elementwise op (``GroupNorm(x) + Relu(y)``: the residual add of a ResNetV2 bottleneck
after its last norm, as in timm's ``vit_small_r26_s32_224``), ``compile_model`` dies with SIGSEGV
inside that tokenization. Smallest IR that crashes: ``x[1,32,7,7] -> Relu -> GroupNormalization
(2+ groups) -> Add(., Relu output) -> Result``. It compiles when the shape is dynamic (the plugin
then decomposes the op itself), with one group, when another op sits between the norm and the
add, or when the add's other input comes from a Parameter, Convolution, Reshape or another
GroupNormalization. OpenVINO's own converter writes the same op and its IR crashes the same way
once its batch is made static.

Only those GroupNormalizations are decomposed, into the form the plugin itself uses for dynamic
shapes (an MVN over each group): elsewhere the native op stays, it is the faster kernel.
"""
from __future__ import annotations

import numpy as np

from extensions.back.compress_fp16 import CompressWeightsToFP16
from extensions.ops.elementwise import BinaryElementwise, Convert, PRelu, UnaryElementwise
from mo.graph.builder import OpBuilder
from mo.pipeline.anchors import BackStart
from mo.pipeline.transform import ReplaceOp

ELEMENTWISE = (BinaryElementwise, UnaryElementwise, PRelu, Convert)


def _made_by_elementwise(port) -> bool:
    source = port.get_source()
    return source is not None and issubclass(source.node.op_class, ELEMENTWISE)


def feeds_elementwise_with_elementwise(node) -> bool:
    """Whether an output of ``node`` is one input of a binary elementwise op whose other input is
    made by an elementwise op (the form that crashes the CPU plugin)."""
    for dest in node.out_port(0).get_destinations():
        consumer = dest.node
        if not issubclass(consumer.op_class, BinaryElementwise):
            continue
        others = [p for i, p in consumer.in_ports().items() if i != dest.idx]
        if any(_made_by_elementwise(p) for p in others):
            return True
    return False


class GroupNormalizationBeforeEltwiseToMVN(ReplaceOp):
    """GroupNormalization of static shape whose output meets an elementwise op's output in a
    binary elementwise op -> Reshape [N, groups, -1] -> MVN over the group -> Reshape back ->
    Multiply scale -> Add bias (module docstring: the CPU plugin crashes on the op there)."""

    phase = "back"
    op = "GroupNormalization"

    def run_after(self):
        return [BackStart]

    def run_before(self):
        return [CompressWeightsToFP16]

    def replace_op(self, graph, node):
        shape = node.in_port(0).data.get_shape()
        if shape is None or len(shape) < 2 or any(d < 0 for d in shape) or node.num_groups < 2:
            return None
        if not feeds_elementwise_with_elementwise(node):
            return None
        b = OpBuilder(graph, node.name)
        x = node.in_port(0).get_source()
        rank = len(shape)
        grouped = b.Reshape(x, np.array([0, node.num_groups, -1], np.int64), special_zero=True)
        normalized = b.MVN(grouped, np.array([2], np.int64), eps=float(node.epsilon), normalize_variance=True,
                           eps_mode="inside_sqrt")
        out = b.Reshape(normalized, b.ShapeOf(x, output_type="i64"), special_zero=False)
        per_channel = (shape[1],) + (1,) * (rank - 2)
        for idx, (op_name, neutral) in ((1, ("Multiply", 1)), (2, ("Add", 0))):
            factor = node.in_port(idx).get_source()
            value = factor.data.get_value()
            if value is not None and np.all(value == neutral):
                continue
            if value is not None:
                factor = b.const(np.ascontiguousarray(value).reshape(per_channel), element_type=factor.data.get_dtype())
            else:
                factor = b.Reshape(factor, np.array(per_channel, np.int64), special_zero=False)
            out = b.op(op_name, out, factor)
        return [out]
