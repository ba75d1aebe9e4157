"""Shape and type inference of the sequence ops; evaluate of the sequence ops against torch."""
import numpy as np
import pytest
import torch

from tests.utils.graphs import infer_op


def sequence_inputs(batch, seq, dirs, gates, hidden=4, inputs=3, states=1):
    state = ((batch, dirs, hidden), "f32")
    return ([((batch, seq, inputs), "f32")] + [state] * states + [((batch,), "i32"),
            ((dirs, gates * hidden, inputs), "f32"), ((dirs, gates * hidden, hidden), "f32"),
            ((dirs, gates * hidden), "f32")])


@pytest.mark.parametrize("op, gates, states", [("LSTMSequence", 4, 2), ("GRUSequence", 3, 1), ("RNNSequence", 1, 1)])
def test_sequence_output_shapes(op, gates, states):
    outs = infer_op(op, *sequence_inputs(2, -1, 2, gates, states=states), hidden_size=4, direction="bidirectional")
    assert [o.data.get_shape() for o in outs] == [(2, 2, -1, 4)] + [(2, 2, 4)] * states
    assert {o.data.get_dtype() for o in outs} == {"f32"}


def test_sequence_batch_from_initial_state_when_x_is_dynamic():
    inputs = sequence_inputs(3, 5, 1, 3)
    inputs[0] = ((-1, 5, 3), "f32")
    outs = infer_op("GRUSequence", *inputs, hidden_size=4, direction="forward")
    assert outs[1].data.get_shape() == (3, 1, 4)


# ---------------------------------------------------------------------------------- evaluate
# Compared with torch.nn.LSTM / GRU / RNN (linear_before_reset is torch's GRU) on packed sequences
# of different lengths; OpenVINO orders the gates f, i, c, o (LSTM) and z, r, h (GRU).
BATCH, SEQ, INPUT, HIDDEN = 3, 5, 4, 6
LENGTHS = np.array([5, 2, 4], np.int32)
TORCH_ORDER = {"LSTMSequence": [1, 0, 2, 3], "GRUSequence": [1, 0, 2], "RNNSequence": [0]}


def _torch_layer(op, bidirectional, nonlinearity="tanh"):
    torch.manual_seed(0)
    args = dict(input_size=INPUT, hidden_size=HIDDEN, batch_first=True, bidirectional=bidirectional)
    if op == "RNNSequence":
        return torch.nn.RNN(nonlinearity=nonlinearity, **args)
    return {"LSTMSequence": torch.nn.LSTM, "GRUSequence": torch.nn.GRU}[op](**args)


def _opset_weights(layer, op, dirs):
    """W, R, B of the sequence op from the torch layer's parameters."""
    order = TORCH_ORDER[op]

    def gates(t):
        parts = np.split(t.detach().numpy(), len(order))
        return np.concatenate([parts[i] for i in order])
    suffixes = ["", "_reverse"][:dirs]
    w = np.stack([gates(getattr(layer, f"weight_ih_l0{s}")) for s in suffixes])
    r = np.stack([gates(getattr(layer, f"weight_hh_l0{s}")) for s in suffixes])
    b_ih = [gates(getattr(layer, f"bias_ih_l0{s}")) for s in suffixes]
    b_hh = [gates(getattr(layer, f"bias_hh_l0{s}")) for s in suffixes]
    if op == "GRUSequence":     # z, r summed; the candidate's two biases kept apart
        b = np.stack([np.concatenate([bi[:2 * HIDDEN] + bh[:2 * HIDDEN], bi[2 * HIDDEN:], bh[2 * HIDDEN:]])
                      for bi, bh in zip(b_ih, b_hh)])
    else:
        b = np.stack([bi + bh for bi, bh in zip(b_ih, b_hh)])
    return w, r, b


@pytest.mark.parametrize("op", ["LSTMSequence", "GRUSequence", "RNNSequence"])
@pytest.mark.parametrize("direction", ["forward", "bidirectional"])
def test_sequence_ops_evaluate_as_torch(op, direction):
    dirs = 2 if direction == "bidirectional" else 1
    rng = np.random.default_rng(6)
    x = rng.standard_normal((BATCH, SEQ, INPUT)).astype(np.float32)
    states = [rng.standard_normal((dirs, BATCH, HIDDEN)).astype(np.float32) for _ in range(2 if op == "LSTMSequence"
                                                                                            else 1)]
    layer = _torch_layer(op, dirs == 2)
    packed = torch.nn.utils.rnn.pack_padded_sequence(torch.from_numpy(x), torch.from_numpy(LENGTHS), batch_first=True,
                                                     enforce_sorted=False)
    torch_states = tuple(torch.from_numpy(s) for s in states)
    with torch.no_grad():
        y, finals = layer(packed, torch_states if op == "LSTMSequence" else torch_states[0])
    y = torch.nn.utils.rnn.pad_packed_sequence(y, batch_first=True, total_length=SEQ)[0].numpy()
    finals = [f.numpy() for f in (finals if op == "LSTMSequence" else (finals,))]
    attrs = dict(hidden_size=HIDDEN, direction=direction)
    if op == "GRUSequence":
        attrs["linear_before_reset"] = True
    outs = infer_op(op, x, *[s.transpose(1, 0, 2) for s in states], LENGTHS, *_opset_weights(layer, op, dirs), **attrs)
    values = [o.data.get_value() for o in outs]
    np.testing.assert_allclose(values[0], y.reshape(BATCH, SEQ, dirs, HIDDEN).transpose(0, 2, 1, 3), rtol=1e-5,
                               atol=1e-5)
    for value, final in zip(values[1:], finals):
        np.testing.assert_allclose(value, final.transpose(1, 0, 2), rtol=1e-5, atol=1e-5)


def test_reverse_direction_relu_and_clip_by_hand():
    """RNN over [1, 2, 3] (one input, one hidden unit, W = R = 1): reverse reads 3, 2, 1; relu
    keeps the sums; clip 4 bounds every pre-activation."""
    x = np.array([[[1.0], [2.0], [3.0]]], np.float32)
    one = np.ones((1, 1, 1), np.float32)
    y, h = infer_op("RNNSequence", x, np.zeros((1, 1, 1), np.float32), np.array([3], np.int32), one, one,
                    np.zeros((1, 1), np.float32), hidden_size=1, direction="reverse", activations=["relu"])
    np.testing.assert_array_equal(y.data.get_value().reshape(-1), [6, 5, 3])
    assert h.data.get_value().reshape(-1).tolist() == [6]
    y, _ = infer_op("RNNSequence", x, np.zeros((1, 1, 1), np.float32), np.array([3], np.int32), one, one,
                    np.zeros((1, 1), np.float32), hidden_size=1, activations=["relu"], clip=4.0)
    np.testing.assert_array_equal(y.data.get_value().reshape(-1), [1, 3, 4])
