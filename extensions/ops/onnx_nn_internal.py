"""ONNX neural-network operators kept as extracted until a transform lowers them to opset ops.

``OnnxMiddleOp`` ones wait for the middle phase, because the lowering needs the input rank or
shape; each infers the exact output shapes, so the graph downstream of it is right before the
lowering. ``FrontOnlyOp`` ones are lowered in the front phase."""
from __future__ import annotations

from extensions.ops.borrowed import matmul_shape
from extensions.ops.convolution import ConvolutionBase
from mo.ops.internal import FrontOnlyOp
from mo.ops.op import Op
from mo.utils.shape import DYN, normalize_axis


class OnnxMiddleOp(Op):
    """Base: internal op (no IR type) whose outputs default to the shape of input 0."""

    abstract = True
    type = None


class OnnxLayerNorm(OnnxMiddleOp):
    """LayerNormalization (``axis``, ``epsilon``, ``stash_type``): Y, Mean, InvStdDev; the
    statistics keep the dims before ``axis`` and have 1 from there on."""

    op = "onnx::LayerNormalization"
    num_outputs = 3

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.in_dtype(0))
        for i in (1, 2):
            node.out_port(i).data.set_dtype(node.get("stash_dtype") or node.in_dtype(0))

    @classmethod
    def infer_shapes(cls, node):
        x = node.in_shape(0)
        if x is None:
            return [None] * 3
        axis = normalize_axis(node.axis, len(x))
        stats = tuple(x[:axis]) + (1,) * (len(x) - axis)
        return [x, stats, stats]


class OnnxRMSNorm(OnnxMiddleOp):
    """RMSNormalization (``axis``, ``epsilon``, ``stash_type``)."""

    op = "onnx::RMSNormalization"


class OnnxInstanceNorm(OnnxMiddleOp):
    """InstanceNormalization (``epsilon``): x, scale [C], bias [C]."""

    op = "onnx::InstanceNormalization"


class OnnxGroupNormPerGroup(OnnxMiddleOp):
    """GroupNormalization of opset 18, whose scale and bias have one value per group."""

    op = "onnx::GroupNormalizationPerGroup"


class OnnxBatchNormTraining(OnnxMiddleOp):
    """BatchNormalization with ``training_mode``: Y from the batch statistics, and the running
    mean and variance updated with ``momentum``."""

    op = "onnx::BatchNormalizationTraining"
    num_outputs = 3

    @classmethod
    def infer_shapes(cls, node):
        return [node.in_shape(0), node.in_shape(3), node.in_shape(4)]


class OnnxLRN(FrontOnlyOp):
    """LRN across channels (``alpha``, ``beta``, ``bias``, ``size``)."""

    op = "onnx::LRN"


class OnnxLpNormalization(FrontOnlyOp):
    """LpNormalization along ``axis`` with ``p`` 1 or 2."""

    op = "onnx::LpNormalization"


class OnnxMeanVarianceNormalization(FrontOnlyOp):
    """MeanVarianceNormalization over ``axes`` (epsilon 1e-9 added to the standard deviation)."""

    op = "onnx::MeanVarianceNormalization"


class OnnxMaxUnpool(FrontOnlyOp):
    """MaxUnpool: values, their flat indices and the optional output shape; window attributes."""

    op = "onnx::MaxUnpool"


class OnnxDeformConv(FrontOnlyOp):
    """DeformConv: X, W, offset, optional B and mask; ``group``, ``offset_group``, window attrs."""

    op = "onnx::DeformConv"


class OnnxQuantizeLinear(OnnxMiddleOp):
    """QuantizeLinear: x, y_scale, optional y_zero_point; ``axis``, ``block_size``; the output
    type is ``output_dtype``, else the zero point's, else u8."""

    op = "onnx::QuantizeLinear"

    @classmethod
    def type_infer(cls, node):
        dtype = node.get("output_dtype") or (node.in_dtype(2) if node.is_in_port_connected(2) else "u8")
        node.out_port(0).data.set_dtype(dtype)


class OnnxDequantizeLinear(OnnxMiddleOp):
    """DequantizeLinear: x, x_scale, optional x_zero_point; ``axis``, ``block_size``; the output
    type is ``output_dtype``, else the scale's."""

    op = "onnx::DequantizeLinear"

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.get("output_dtype") or node.in_dtype(1))


class OnnxQuantizedConv(OnnxMiddleOp):
    """QLinearConv (x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, optional int32 bias;
    output of y_zp's type) and ConvInteger (x, w, optional x_zp and w_zp; i32 output), with the
    window attributes and ``group`` of Conv."""

    op = "onnx::QuantizedConv"

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.in_dtype(7) if node.qlinear else "i32")

    @classmethod
    def infer_shapes(cls, node):
        x, w = node.in_shape(0), node.in_shape(3 if node.qlinear else 1)
        if x is None or w is None:
            return [None]
        return [(x[0], w[0], *ConvolutionBase._spatial(node, x, w[2:]))]


class OnnxQuantizedMatMul(OnnxMiddleOp):
    """QLinearMatMul (a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp; output of y_zp's type)
    and MatMulInteger (a, b, optional a_zp per row and b_zp per column; i32 output)."""

    op = "onnx::QuantizedMatMul"

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.in_dtype(7) if node.qlinear else "i32")

    @classmethod
    def infer_shapes(cls, node):
        return [matmul_shape(node.in_shape(0), node.in_shape(3 if node.qlinear else 1))]


class OnnxDynamicQuantizeLinear(FrontOnlyOp):
    """DynamicQuantizeLinear: x -> y (u8), y_scale, y_zero_point from the range of x."""

    op = "onnx::DynamicQuantizeLinear"


class OnnxNonMaxSuppression(FrontOnlyOp):
    """NonMaxSuppression: boxes, scores and the optional max_output_boxes_per_class,
    iou_threshold, score_threshold; ``center_point_box``."""

    op = "onnx::NonMaxSuppression"


class OnnxAffineGrid(OnnxMiddleOp):
    """AffineGrid: theta [N, n, n+1] and size [N, C, spatial...] (n spatial dims) -> grid
    [N, spatial..., n]; ``align_corners``."""

    op = "onnx::AffineGrid"

    @classmethod
    def infer_shapes(cls, node):
        theta, size = node.in_shape(0), node.in_value(1)
        if size is not None:
            size = [int(v) for v in size.reshape(-1)]
            return [(size[0], *size[2:], len(size) - 2)]
        size_shape = node.in_shape(1)
        n = theta[1] if theta is not None and theta[1] >= 0 else \
            (size_shape[0] - 2 if size_shape is not None and size_shape[0] >= 0 else None)
        if n is None:
            return [None]
        return [(DYN if theta is None else theta[0],) + (DYN,) * n + (n,)]


def _add_dims(a: int, b: int) -> int:
    return DYN if a < 0 or b < 0 else a + b


def _heads_view(shape: tuple | None, heads: int | None) -> tuple | None:
    """[B, S, hidden] -> [B, heads, S, hidden / heads]; 4-D shapes are returned as they are."""
    if shape is None or len(shape) == 4:
        return shape
    size = DYN if shape[2] < 0 or not heads else shape[2] // heads
    return (shape[0], heads or DYN, shape[1], size)


class OnnxAttention(OnnxMiddleOp):
    """Attention (opset 23+): Q, K, V, optional attn_mask, past_key, past_value,
    nonpad_kv_seqlen -> Y, present_key, present_value, qk_matmul_output. 3-D inputs are
    [batch, seq, heads * head_size] with ``q_num_heads`` / ``kv_num_heads``."""

    op = "onnx::Attention"
    num_outputs = 4

    @classmethod
    def infer_shapes(cls, node):
        q3 = node.in_shape(0)
        q = _heads_view(q3, node.get("q_num_heads"))
        k = _heads_view(node.in_shape(1), node.get("kv_num_heads"))
        v = _heads_view(node.in_shape(2), node.get("kv_num_heads"))
        if q is None or k is None or v is None:
            return [None] * 4
        past = node.in_shape(4) if node.is_in_port_connected(4) else None
        total = k[2] if past is None else _add_dims(past[2], k[2])
        y = (q[0], q[1], q[2], v[3])
        if len(q3) == 3:
            y = (q[0], q[2], DYN if q[1] < 0 or v[3] < 0 else q[1] * v[3])
        return [y, (k[0], k[1], total, k[3]), (v[0], v[1], total, v[3]), (q[0], q[1], q[2], total)]


class OnnxRotaryEmbedding(OnnxMiddleOp):
    """RotaryEmbedding: x ([B, H, S, D], or [B, S, H * D] with ``num_heads``), cos_cache,
    sin_cache, optional position_ids; ``interleaved``, ``rotary_embedding_dim``."""

    op = "onnx::RotaryEmbedding"


class OnnxSwiGLU(FrontOnlyOp):
    """SwiGLU: a * sigmoid(``alpha`` * a) * b."""

    op = "onnx::SwiGLU"


class OnnxDFT(OnnxMiddleOp):
    """DFT: x [..., 1 or 2], optional dft_length, axis (attribute before opset 20, input 2
    from it); ``inverse``, ``onesided``."""

    op = "onnx::DFT"

    @classmethod
    def axis(cls, node) -> int | None:
        if node.get("axis") is not None:
            return node.axis
        if not node.is_in_port_connected(2):
            return -2
        value = node.in_value(2)
        return None if value is None else int(value.reshape(()))

    @classmethod
    def infer_shapes(cls, node):
        x = node.in_shape(0)
        if x is None:
            return [None]
        last = 1 if node.inverse and node.onesided else 2
        axis = cls.axis(node)
        if axis is None:
            return [(DYN,) * (len(x) - 1) + (last,)]
        axis = normalize_axis(axis, len(x))
        out = list(x[:-1]) + [last]
        if node.is_in_port_connected(1):
            length = node.in_value(1)
            out[axis] = DYN if length is None else int(length.reshape(()))
        elif node.inverse and node.onesided:
            out[axis] = DYN if x[axis] < 0 else 2 * (x[axis] - 1)
        if node.onesided and not node.inverse and out[axis] >= 0:
            out[axis] = out[axis] // 2 + 1
        return [tuple(out)]


class OnnxSTFT(FrontOnlyOp):
    """STFT: signal [batch, length, 1 or 2], frame_step, optional window and frame_length;
    ``onesided``."""

    op = "onnx::STFT"


class OnnxWindow(FrontOnlyOp):
    """HannWindow / HammingWindow / BlackmanWindow: size -> the window of cosine terms
    ``coefficients`` (a0, a1, a2: a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N)); N is size when
    ``periodic``, else size - 1."""

    op = "onnx::Window"


class OnnxMelWeightMatrix(FrontOnlyOp):
    """MelWeightMatrix: num_mel_bins, dft_length, sample_rate, lower_edge_hertz,
    upper_edge_hertz -> [dft_length // 2 + 1, num_mel_bins] triangular filters."""

    op = "onnx::MelWeightMatrix"


class OnnxCausalConvWithState(OnnxMiddleOp):
    """CausalConvWithState: input [B, C, L], depthwise weight [C, 1, k], optional bias [C] and
    past_state [B, C, k - 1] -> output [B, C, L], present_state [B, C, k - 1]; ``activation``."""

    op = "onnx::CausalConvWithState"
    num_outputs = 2

    @classmethod
    def infer_shapes(cls, node):
        x, w = node.in_shape(0), node.in_shape(1)
        if x is None:
            return [None, None]
        state = DYN if w is None or w[2] < 0 else w[2] - 1
        return [x, (x[0], x[1], state)]


class OnnxLinearAttention(OnnxMiddleOp):
    """LinearAttention: query [B, T, Hq * dk], key [B, T, Hkv * dk], value [B, T, Hkv * dv],
    optional past_state [B, Hkv, dk, dv], decay, beta -> output [B, T, Hq * dv], present_state;
    ``q_num_heads``, ``kv_num_heads``, ``scale``, ``update_rule``."""

    op = "onnx::LinearAttention"
    num_outputs = 2

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.in_dtype(0))
        state = node.in_dtype(3) if node.is_in_port_connected(3) else node.in_dtype(0)
        node.out_port(1).data.set_dtype(state)

    @classmethod
    def infer_shapes(cls, node):
        q, k, v = node.in_shape(0), node.in_shape(1), node.in_shape(2)
        if q is None or k is None or v is None:
            return [None, None]
        hq, hkv = node.q_num_heads, node.kv_num_heads
        dk = DYN if k[2] < 0 else k[2] // hkv
        dv = DYN if v[2] < 0 else v[2] // hkv
        return [(q[0], q[1], DYN if dv < 0 else hq * dv), (q[0], hkv, dk, dv)]
