"""Extractor of the ATen operations that rearrange tensors."""
from __future__ import annotations

from extensions.front.pytorch import shape as sh
from extensions.load.pytorch.arguments import PyTorchExtractor


class ShapeExtractor(PyTorchExtractor):
    """Reshapes, permutations, expansions, joins, splits and other rearrangements."""

    lowerings = {
        sh.AtenReshape: ("aten::view", "aten::reshape", "aten::_unsafe_view", "aten::view_as", "aten::reshape_as",
                         "aten::flatten", "aten::unflatten"),
        sh.AtenPermute: ("aten::permute", "aten::transpose", "aten::t", "aten::movedim", "aten::moveaxis",
                         "aten::swapaxes", "aten::swapdims", "aten::numpy_T"),
        sh.AtenSqueeze: ("aten::squeeze", "aten::unsqueeze"),
        sh.AtenExpand: ("aten::expand", "aten::broadcast_to", "aten::expand_as", "aten::repeat", "aten::tile",
                        "aten::repeat_interleave"),
        sh.AtenConcat: ("aten::cat", "aten::concat", "aten::concatenate", "aten::stack"),
        sh.AtenSplit: ("aten::split", "aten::split_with_sizes", "aten::chunk", "aten::unbind", "aten::unsafe_split",
                       "aten::unsafe_chunk"),
        sh.AtenFlip: ("aten::flip", "aten::roll"),
        sh.AtenNarrow: ("aten::narrow",),
        sh.AtenDiff: ("aten::diff",),
        sh.AtenMeshgrid: ("aten::meshgrid",),
        sh.AtenTriangle: ("aten::tril", "aten::triu"),
        sh.AtenPixelShuffle: ("aten::pixel_shuffle", "aten::pixel_unshuffle"),
        sh.AtenChannelShuffle: ("aten::channel_shuffle", "aten::native_channel_shuffle"),
    }
