"""TensorFlow SpaceToBatchND / BatchToSpaceND and DepthToSpace / SpaceToDepth."""
from __future__ import annotations

import numpy as np

from extensions.front.tf.layout import back_to_data_format, in_channels_first
from extensions.load.tf.attributes import TfExtractor
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.building import input_rank


def full_block(block: np.ndarray, pads: np.ndarray, rank: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Block shape and pads over every dim of a rank-``rank`` tensor from TensorFlow's [M] block
    and [M, 2] paddings: 1 and 0 for the batch and the dims after the blocked ones."""
    tail = rank - 1 - block.size
    ones, zeros = np.ones(tail, np.int64), np.zeros(tail, np.int64)
    return (np.concatenate([[1], block.astype(np.int64), ones]),
            np.concatenate([[0], pads[:, 0].astype(np.int64), zeros]),
            np.concatenate([[0], pads[:, 1].astype(np.int64), zeros]))


# TensorFlow op type -> the opset op
BLOCK_BATCH = {"SpaceToBatchND": "SpaceToBatch", "BatchToSpaceND": "BatchToSpace"}
DEPTH_SPACE = {"DepthToSpace": "DepthToSpace", "SpaceToDepth": "SpaceToDepth"}


@translator("tf", *BLOCK_BATCH)
def space_batch_nd(node, b):
    """SpaceToBatch / BatchToSpace with TensorFlow's block_shape [M] and paddings or crops
    [M, 2] over the M dims after the batch, extended over every dim."""
    rank = input_rank(node, 0)
    block, pads = node.in_value(1), node.in_value(2)
    if block is None or pads is None:
        raise ConversionError("its block_shape and paddings (or crops) must be constant.")
    full, begin, end = full_block(np.reshape(block, -1), np.reshape(pads, (-1, 2)), rank)
    return [b.op(BLOCK_BATCH[node.fw_op], node.in_port(0).get_source(), full, begin, end)]


class DepthSpaceExtractor(TfExtractor):
    """Reads ``block_size`` and ``data_format`` (NHWC or NCHW)."""

    op_types = tuple(DEPTH_SPACE)

    @classmethod
    def extract(cls, node):
        if cls.data_format(node) not in ("NHWC", "NCHW"):
            raise ConversionError(f"{node.fw_op} '{node.name}' has data_format {cls.data_format(node)}, which is "
                                  f"not supported.")
        node.update({"block_size": int(cls.attr(node, "block_size")), "data_format": cls.data_format(node)})


@translator("tf", *DEPTH_SPACE)
def depth_space(node, b):
    """The opset op in blocks_first mode (TensorFlow's order of the channel blocks),
    channels-first."""
    x = in_channels_first(b, node.in_port(0).get_source(), node, 4)
    y = b.op(DEPTH_SPACE[node.fw_op], x, mode="blocks_first", block_size=node.block_size, name=node.name)
    return [back_to_data_format(b, y, node, 4)]
