"""Sequence processing: CTCGreedyDecoderSeqLen-6 and CTCLoss-4."""
from __future__ import annotations

import numpy as np

from mo.ops.op import Op
from mo.utils.types import np_dtype


def _blank(blank_index, classes: int) -> int:
    return classes - 1 if blank_index is None else int(np.asarray(blank_index).reshape(-1)[0])


class CTCGreedyDecoderSeqLen(Op):
    """Best-path decoding of data [N, T, C] over the first sequence_length [N] steps: the most
    likely class per step, repeats merged (``merge_repeated``), blanks (input 2, default C - 1)
    removed. Outputs the classes [N, T] padded with -1 and their count [N]."""

    op = "CTCGreedyDecoderSeqLen"
    version = "opset6"
    defaults = {"merge_repeated": True, "classes_index_type": "i32", "sequence_length_type": "i32"}
    ir_attrs = ("merge_repeated", "classes_index_type", "sequence_length_type")
    num_outputs = 2

    @classmethod
    def type_infer(cls, node):
        node.out_port(0).data.set_dtype(node.classes_index_type)
        node.out_port(1).data.set_dtype(node.sequence_length_type)

    @classmethod
    def infer_shapes(cls, node):
        shape = node.in_shape(0)
        if shape is None:
            return [None, None]
        if len(shape) != 3:
            raise ValueError(f"CTCGreedyDecoderSeqLen takes data of rank 3, not {len(shape)}")
        return [tuple(shape[:2]), (shape[0],)]

    @classmethod
    def evaluate(cls, node, data, lengths, blank_index=None):
        batch, steps, classes = data.shape
        blank = _blank(blank_index, classes)
        decoded = np.full((batch, steps), -1, np_dtype(node.classes_index_type))
        counts = np.zeros(batch, np_dtype(node.sequence_length_type))
        best = np.argmax(data, axis=2)
        for n in range(batch):
            previous, out = None, []
            for t in range(min(int(lengths[n]), steps)):
                c = int(best[n, t])
                if c != blank and not (node.merge_repeated and c == previous):
                    out.append(c)
                previous = c
            decoded[n, :len(out)] = out
            counts[n] = len(out)
        return decoded, counts


def _log_sum(*terms: float) -> float:
    terms = [t for t in terms if t > -np.inf]
    if not terms:
        return -np.inf
    top = max(terms)
    return top + float(np.log(sum(np.exp(t - top) for t in terms)))


def ctc_negative_log_likelihood(log_probs: np.ndarray, target: list[int], blank: int, merge_repeated: bool) -> float:
    """-log of the summed probability of every path over ``log_probs`` [T, C] that decodes to
    ``target``: blanks removed, and repeats merged when ``merge_repeated`` (else each non-blank
    step is one label)."""
    states = [blank]
    for label in target:
        states += [label, blank]
    alpha = np.full(len(states), -np.inf)
    alpha[0] = log_probs[0, blank]
    if len(states) > 1:
        alpha[1] = log_probs[0, states[1]]
    for t in range(1, log_probs.shape[0]):
        new = np.full(len(states), -np.inf)
        for s, label in enumerate(states):
            terms = [alpha[s - 1]] if s >= 1 else []
            if label == blank or merge_repeated:
                terms.append(alpha[s])
            if label != blank and s >= 2 and (states[s - 2] != label or not merge_repeated):
                terms.append(alpha[s - 2])
            new[s] = _log_sum(*terms) + log_probs[t, label]
        alpha = new
    return -_log_sum(*alpha[-2:])


class CTCLoss(Op):
    """CTC loss [N] of logits [N, T, C] (softmax over C) of logit_length [N] steps for the targets
    labels [N, L] of label_length [N] (repeats merged first with ``preprocess_collapse_repeated``,
only the first of each label kept with ``unique``); blank (input 4) default C - 1."""

    op = "CTCLoss"
    version = "opset4"
    defaults = {"preprocess_collapse_repeated": False, "ctc_merge_repeated": True, "unique": False}
    ir_attrs = ("preprocess_collapse_repeated", "ctc_merge_repeated", "unique")

    @classmethod
    def infer_shapes(cls, node):
        shape, labels = node.in_shape(0), node.in_shape(2)
        if shape is not None and labels is not None and min(shape[1], labels[1]) >= 0 and shape[1] != labels[1]:
            raise ValueError(f"CTCLoss labels [N, L] need L ({labels[1]}) equal to the logits' steps ({shape[1]})")
        return [None if shape is None else (shape[0],)]

    @classmethod
    def evaluate(cls, node, logits, logit_length, labels, label_length, blank_index=None):
        blank = _blank(blank_index, logits.shape[2])
        shifted = logits.astype(np.float64) - logits.max(axis=2, keepdims=True)
        log_probs = shifted - np.log(np.exp(shifted).sum(axis=2, keepdims=True))
        losses = []
        for n in range(logits.shape[0]):
            target = [int(v) for v in labels[n, :int(label_length[n])]]
            if node.preprocess_collapse_repeated:
                target = [v for i, v in enumerate(target) if i == 0 or v != target[i - 1]]
            if node.unique:
                target = list(dict.fromkeys(target))
            losses.append(ctc_negative_log_likelihood(log_probs[n, :int(logit_length[n])], target, blank,
                                                      node.ctc_merge_repeated))
        return np.array(losses, logits.dtype)
