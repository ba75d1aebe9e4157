"""CTCGreedyDecoderSeqLen and CTCLoss evaluate, against decoding and path enumeration written
out directly."""
import itertools

import numpy as np
import pytest

from tests.utils.graphs import infer_op


def test_ctc_greedy_decoder_merges_repeats_and_drops_blanks():
    best = np.array([[0, 0, 3, 0, 1, 1, 3], [2, 2, 2, 3, 3, 3, 3]])      # blank 3
    data = np.eye(4, dtype=np.float32)[best]
    lengths = np.array([7, 2], np.int32)
    node = infer_op("CTCGreedyDecoderSeqLen", (data.shape, "f32"), (lengths.shape, "i32"))[0].node
    decoded, counts = node.op_class.evaluate(node, data, lengths)
    np.testing.assert_array_equal(decoded, [[0, 0, 1, -1, -1, -1, -1], [2, -1, -1, -1, -1, -1, -1]])
    np.testing.assert_array_equal(counts, [3, 1])
    node = infer_op("CTCGreedyDecoderSeqLen", (data.shape, "f32"), (lengths.shape, "i32"), merge_repeated=False)[0].node
    decoded, counts = node.op_class.evaluate(node, data, lengths, np.int32(0))     # blank 0
    np.testing.assert_array_equal(decoded[0, :counts[0]], [3, 1, 1, 3])
    np.testing.assert_array_equal(decoded[1, :counts[1]], [2, 2])


def decode(path, blank, merge):
    out, previous = [], None
    for c in path:
        if c != blank and not (merge and c == previous):
            out.append(c)
        previous = c
    return out


@pytest.mark.parametrize("merge", [True, False])
@pytest.mark.parametrize("collapse", [False, True])
def test_ctc_loss_sums_every_aligned_path(merge, collapse):
    rng = np.random.default_rng(0)
    logits = rng.uniform(-1, 1, (2, 4, 3)).astype(np.float32)
    labels = np.array([[1, 1, 0, 0], [0, 1, 0, 0]], np.int32)
    label_length, logit_length = np.array([2, 1], np.int32), np.array([4, 3], np.int32)
    node = infer_op("CTCLoss", (logits.shape, "f32"), ((2,), "i32"), (labels.shape, "i32"), ((2,), "i32"),
                    ctc_merge_repeated=merge, preprocess_collapse_repeated=collapse)[0].node
    loss = node.op_class.evaluate(node, logits, logit_length, labels, label_length)
    probs = np.exp(logits) / np.exp(logits).sum(axis=2, keepdims=True)
    for n in range(2):
        target = labels[n, :label_length[n]].tolist()
        if collapse:
            target = [v for i, v in enumerate(target) if i == 0 or v != target[i - 1]]
        total = sum(np.prod([probs[n, t, c] for t, c in enumerate(path)])
                    for path in itertools.product(range(3), repeat=int(logit_length[n]))
                    if decode(path, 2, merge) == target)
        np.testing.assert_allclose(loss[n], -np.log(total), rtol=1e-5)
