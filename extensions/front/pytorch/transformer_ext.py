"""Extractor of the fused transformer operations of torch.nn's inference fast path."""
from __future__ import annotations

from extensions.front.pytorch.transformer import AtenEncoderLayer, AtenNativeAttention
from extensions.load.pytorch.arguments import PyTorchExtractor


class TransformerExtractor(PyTorchExtractor):
    """Fused multi-head attention and encoder layer."""

    lowerings = {AtenNativeAttention: ("aten::_native_multi_head_attention",),
                 AtenEncoderLayer: ("aten::_transformer_encoder_layer_fwd",)}
