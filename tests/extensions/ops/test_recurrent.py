"""Shape and type inference of the sequence ops."""
import pytest

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
