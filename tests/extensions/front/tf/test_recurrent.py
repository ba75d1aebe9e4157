"""Layer tests of TensorFlow's LSTMBlockCell, BlockLSTM, BlockLSTMV2 and GRUBlockCell over
peepholes, the cell clip, the forget bias, seq_len_max and the outputs used."""
import numpy as np
import pytest
import tensorflow as tf

from tests.utils.tf_models import check_tf, ir_op_types, random

raw = tf.raw_ops

T, B, I, H = 5, 2, 3, 4
X = random((T, B, I), seed=1)
CS, HS = random((B, H), seed=2), random((B, H), seed=3)
W = random((I + H, 4 * H), seed=4, low=-0.8, high=0.8)
BIAS = random((4 * H,), seed=5, low=-0.5, high=0.5)
PEEP = [random((H,), seed=s, low=-0.5, high=0.5) for s in (6, 7, 8)]


def block_lstm(op, x, peephole=False, clip=-1.0, forget=1.0, seq_len_max=T, dtype=np.float32):
    attrs = {"cell_clip": clip, "use_peephole": peephole}
    if op == "BlockLSTM":
        attrs["forget_bias"] = forget
    return getattr(raw, op)(seq_len_max=np.int64(seq_len_max), x=x, cs_prev=CS.astype(dtype), h_prev=HS.astype(dtype),
                            w=W.astype(dtype), wci=PEEP[0].astype(dtype), wcf=PEEP[1].astype(dtype),
                            wco=PEEP[2].astype(dtype), b=BIAS.astype(dtype), **attrs)


@pytest.mark.parametrize("op", ["BlockLSTM", "BlockLSTMV2"])
@pytest.mark.parametrize("seq_len_max", [T, 3])
def test_block_lstm_sequence(tmp_path, op, seq_len_max):
    """Only h used, no peepholes, no clip: one LSTMSequence."""
    xml = check_tf(tmp_path, lambda x: block_lstm(op, x, seq_len_max=seq_len_max).h, [X])
    assert "LSTMSequence" in ir_op_types(xml)


def test_block_lstm_sequence_forget_bias_and_dynamic_batch(tmp_path):
    check_tf(tmp_path, lambda x: block_lstm("BlockLSTM", x, forget=0.3).h, [X])

    def dynamic(x):
        x = tf.transpose(x, [1, 0, 2])
        zeros = tf.zeros(tf.stack([tf.shape(x)[1], H]))
        return raw.BlockLSTM(seq_len_max=np.int64(T), x=x, cs_prev=zeros, h_prev=zeros + 0.5, w=W, wci=PEEP[0],
                             wcf=PEEP[1], wco=PEEP[2], b=BIAS, cell_clip=-1.0).h
    check_tf(tmp_path / "dyn", dynamic, [X.transpose(1, 0, 2)], dynamic_batch=True)


@pytest.mark.parametrize("op", ["BlockLSTM", "BlockLSTMV2"])
@pytest.mark.parametrize("peephole,clip", [(False, -1.0), (True, -1.0), (False, 0.5), (True, 0.4)])
@pytest.mark.parametrize("seq_len_max", [T, 2])
def test_block_lstm_unrolled(tmp_path, op, peephole, clip, seq_len_max):
    """Every output, so the steps are unrolled. Past seq_len_max TensorFlow zeroes cs and h and
    leaves the gate outputs uninitialized: only cs and h are compared there."""
    def fn(x):
        out = block_lstm(op, x, peephole, clip, seq_len_max=seq_len_max)
        return tuple(out) if seq_len_max == T else (out.cs, out.h)
    check_tf(tmp_path, fn, [X])


def test_block_lstm_half(tmp_path):
    check_tf(tmp_path, lambda x: block_lstm("BlockLSTM", x, dtype=np.float16).h, [X.astype(np.float16)], atol=3e-3,
             rtol=3e-3)


@pytest.mark.parametrize("peephole,clip,forget", [(False, -1.0, 1.0), (True, 0.5, 0.2)])
def test_lstm_block_cell(tmp_path, peephole, clip, forget):
    def fn(x):
        return tuple(raw.LSTMBlockCell(x=x, cs_prev=CS, h_prev=HS, w=W, wci=PEEP[0], wcf=PEEP[1], wco=PEEP[2], b=BIAS,
                                       forget_bias=forget, cell_clip=clip, use_peephole=peephole))
    check_tf(tmp_path, fn, [X[0]])


def test_gru_block_cell(tmp_path):
    w_ru = random((I + H, 2 * H), seed=9, low=-0.8, high=0.8)
    w_c = random((I + H, H), seed=10, low=-0.8, high=0.8)
    b_ru, b_c = random((2 * H,), seed=11), random((H,), seed=12)
    check_tf(tmp_path, lambda x, h: tuple(raw.GRUBlockCell(x=x, h_prev=h, w_ru=w_ru, w_c=w_c, b_ru=b_ru, b_c=b_c)),
             [X[0], HS])
