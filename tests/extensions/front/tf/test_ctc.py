"""Layer tests of TensorFlow's CTCGreedyDecoder and CTCLoss over their attributes and types."""
import numpy as np
import pytest
import tensorflow as tf

from tests.utils.tf_models import check_tf, random

raw = tf.raw_ops

T, N, C = 8, 3, 5


def logits(seed=1, dtype=np.float32):
    """Logits [T, N, C] whose best classes repeat and hit the blank often."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, (T, N, C))
    best = rng.integers(0, 3, (T, N))
    best = np.where(rng.random((T, N)) < 0.3, C - 1, best)
    np.put_along_axis(x, best[..., None], 3.0, axis=2)
    return x.astype(dtype)


LENGTHS = np.array([8, 5, 0], np.int32)


@pytest.mark.parametrize("merge", [False, True])
@pytest.mark.parametrize("blank", [-1, 0, 2])
def test_ctc_greedy_decoder(tmp_path, merge, blank):
    check_tf(tmp_path, lambda x, n: raw.CTCGreedyDecoder(inputs=x, sequence_length=n, merge_repeated=merge,
                                                         blank_index=blank), [logits(), LENGTHS])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_ctc_greedy_decoder_types(tmp_path, dtype):
    check_tf(tmp_path, lambda x: raw.CTCGreedyDecoder(inputs=x, sequence_length=np.array([8, 7, 3], np.int32),
                                                      merge_repeated=True), [logits(2, dtype)])


LABEL_INDICES = np.array([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2], [2, 0]], np.int64)
LABEL_VALUES = np.array([1, 1, 2, 0, 3, 3, 2], np.int32)


@pytest.mark.parametrize("collapse", [False, True])
@pytest.mark.parametrize("merge", [True, False])
def test_ctc_loss(tmp_path, collapse, merge):
    def fn(x, n):
        return raw.CTCLoss(inputs=x, labels_indices=LABEL_INDICES, labels_values=LABEL_VALUES, sequence_length=n,
                           preprocess_collapse_repeated=collapse, ctc_merge_repeated=merge)[0]
    check_tf(tmp_path, fn, [random((T, N, C), seed=3), np.array([8, 6, 4], np.int32)])


def test_ctc_loss_ignore_longer_outputs(tmp_path):
    def fn(x, n):
        return raw.CTCLoss(inputs=x, labels_indices=LABEL_INDICES, labels_values=LABEL_VALUES, sequence_length=n,
                           ignore_longer_outputs_than_inputs=True)[0]
    check_tf(tmp_path, fn, [random((T, N, C), seed=4), np.array([8, 2, 4], np.int32)])


def test_ctc_loss_double(tmp_path):
    def fn(x):
        return raw.CTCLoss(inputs=x, labels_indices=LABEL_INDICES, labels_values=LABEL_VALUES,
                           sequence_length=np.array([8, 8, 8], np.int32))[0]
    check_tf(tmp_path, fn, [random((T, N, C), np.float64, seed=5)])


def test_ctc_loss_gradient_is_refused(tmp_path):
    from mo.errors import ConversionError
    from tests.utils.tf_models import convert_pb, freeze, specs_for, write_pb

    def fn(x):
        return raw.CTCLoss(inputs=x, labels_indices=LABEL_INDICES, labels_values=LABEL_VALUES,
                           sequence_length=np.array([8, 8, 8], np.int32))
    x = random((T, N, C), seed=5)
    path = write_pb(freeze(fn, specs_for([x])), tmp_path / "model.pb")
    with pytest.raises(ConversionError, match="gradient output is used"):
        convert_pb(path, tmp_path / "ir")
