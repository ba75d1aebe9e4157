"""TensorFlow CTCGreedyDecoder (CTCGreedyDecoderSeqLen, its dense result made sparse) and
CTCLoss (CTCLoss-4 of the densified labels). Both take time-major inputs [T, N, C]."""
from __future__ import annotations

import numpy as np

from extensions.load.tf.attributes import TfExtractor
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.builder import OpBuilder
from mo.graph.building import convert, dim, i64, scalar_like
from mo.graph.port import Port

# element types the runtime's CTC ops compute in; others (f64) go through f32
CTC_TYPES = ("f32", "f16")


def _batch_major(b: OpBuilder, inputs: Port, node) -> Port:
    if inputs.data.get_rank() not in (None, 3):
        raise ConversionError(f"its inputs have rank {inputs.data.get_rank()} where TensorFlow takes rank 3 "
                              f"[max_time, batch, classes].")
    data = b.Transpose(inputs, i64(1, 0, 2))
    return data if data.data.get_dtype() in CTC_TYPES else convert(b, data, "f32")


def _steps_mask(b: OpBuilder, steps: Port, lengths: Port) -> Port:
    """[N, T] true at the steps t < lengths[n]."""
    positions = b.Range(np.int64(0), steps, np.int64(1), output_type="i64")
    return b.Less(b.Unsqueeze(positions, i64(0)), b.Unsqueeze(convert(b, lengths, "i64"), i64(1)))


@translator("tf", "CTCGreedyDecoder")
def ctc_greedy_decoder(node, b):
    """Outputs the SparseTensor (indices [K, 2], values [K], dense shape [N, longest]) of the
    decoded classes, and log_probability [N, 1]: minus the sum of each step's largest logit over
    the sequence's steps."""
    inputs, lengths = node.in_port(0).get_source(), node.in_port(1).get_source()
    data = _batch_major(b, inputs, node)
    blank = int(TfExtractor.attr(node, "blank_index", -1))
    blank_port = b.const(np.int64(blank)) if blank >= 0 else b.Add(dim(b, inputs, 2), np.int64(blank))
    decoded, counts = b.CTCGreedyDecoderSeqLen(data, convert(b, lengths, "i64"), blank_port,
                                               merge_repeated=bool(TfExtractor.attr(node, "merge_repeated", False)),
                                               classes_index_type="i64", sequence_length_type="i64", name=node.name)
    steps = dim(b, inputs, 0)
    indices = b.Transpose(b.NonZero(_steps_mask(b, steps, counts), output_type="i64"), i64(1, 0))
    values = b.GatherND(decoded, indices)
    longest = b.ReduceMax(b.Concat(counts, i64(0), axis=0), i64(0), keep_dims=True)
    shape = b.Concat(b.Reshape(dim(b, inputs, 1), i64(1), special_zero=False), longest, axis=0)
    best = b.ReduceMax(b.Transpose(inputs, i64(1, 0, 2)), i64(2), keep_dims=False)          # [N, T]
    kept = b.Select(_steps_mask(b, steps, lengths), best, scalar_like(b, 0, best))
    log_probability = b.Negative(b.ReduceSum(kept, i64(1), keep_dims=True))
    return [indices, values, shape, log_probability]


@translator("tf", "CTCLoss")
def ctc_loss(node, b):
    """The loss [N] (blank: the last class); with ignore_longer_outputs_than_inputs a target
    longer than its input gets 0. The gradient output is not computed: a model that uses it is
    refused."""
    if node.out_port(1).get_destinations():
        raise ConversionError("its gradient output is used; only the loss is converted (freeze the model for "
                              "inference).")
    inputs, label_indices, label_values, lengths = (node.in_port(i).get_source() for i in range(4))
    data = _batch_major(b, inputs, node)
    batch = b.Reshape(dim(b, inputs, 1), i64(1), special_zero=False)
    label_indices = convert(b, label_indices, "i64")
    owners, positions = (b.Squeeze(p, i64(1)) for p in b.Split(label_indices, np.int64(1), num_splits=2))
    # labels [N, T]: the op wants as many label positions as steps; a longer target (only valid when
    # ignored) is cut
    steps = b.Reshape(dim(b, inputs, 0), i64(1), special_zero=False)
    kept = b.Less(positions, steps)
    last = b.Subtract(steps, i64(1))
    label_indices = b.Concat(b.Unsqueeze(owners, i64(1)), b.Unsqueeze(b.Select(kept, positions, last), i64(1)), axis=1)
    labels = b.ScatterNDUpdate(b.Broadcast(np.int32(0), b.Concat(batch, steps, axis=0)), label_indices,
                               b.Select(kept, convert(b, label_values, "i32"), np.int32(0)))
    rows = b.Range(np.int64(0), b.Squeeze(batch, i64(0)), np.int64(1), output_type="i64")
    label_length = b.ReduceSum(b.Convert(b.Equal(b.Unsqueeze(rows, i64(1)), b.Unsqueeze(owners, i64(0))),
                                         destination_type="i32"), i64(1), keep_dims=False)
    logit_length = convert(b, lengths, "i32")
    ignore = bool(TfExtractor.attr(node, "ignore_longer_outputs_than_inputs", False))
    longer = b.Greater(label_length, logit_length) if ignore else None
    if ignore:      # the runtime refuses a target longer than its input: cut it, its loss is 0 anyway
        label_length = b.Minimum(label_length, logit_length)
    loss = b.CTCLoss(data, logit_length, labels, label_length, name=node.name,
                     preprocess_collapse_repeated=bool(TfExtractor.attr(node, "preprocess_collapse_repeated", False)),
                     ctc_merge_repeated=bool(TfExtractor.attr(node, "ctc_merge_repeated", True)), unique=False)
    if ignore:
        loss = b.Select(longer, scalar_like(b, 0, loss), loss)
    return [convert(b, loss, inputs.data.get_dtype()), None]
