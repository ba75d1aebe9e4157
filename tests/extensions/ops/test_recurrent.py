"""Shape and type inference of the sequence ops and of the extracted ONNX recurrent op."""
import pytest

from mo.errors import GraphError
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


@pytest.mark.parametrize("layout, y, state", [(0, (7, 2, 3, 4), (2, 3, 4)), (1, (3, 7, 2, 4), (3, 2, 4))])
def test_onnx_recurrent_layouts(layout, y, state):
    x = ((7, 3, 5), "f32") if layout == 0 else ((3, 7, 5), "f32")
    outs = infer_op("onnx::Recurrent", x, ((2, 16, 5), "f32"), ((2, 16, 4), "f32"), cell="LSTM", hidden_size=None,
                    direction="bidirectional", layout=layout, num_outputs=3)
    assert [o.data.get_shape() for o in outs] == [y, state, state]
    assert outs[0].node.hidden_size == 4


def test_onnx_recurrent_without_hidden_size_or_r_shape():
    with pytest.raises(GraphError, match="hidden_size"):
        infer_op("onnx::Recurrent", ((7, 3, 5), "f32"), ((1, 4, 5), "f32"), (None, "f32"), cell="RNN",
                 hidden_size=None, num_outputs=2)
