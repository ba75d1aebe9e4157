"""ONNX If, Loop and Scan converted with mo, run in OpenVINO and compared with ONNX Runtime."""
import numpy as np
import pytest
from onnx import TensorProto, helper

from mo import convert_model
from tests.utils.onnx_models import make_model, run_onnxruntime
from tests.utils.runtime import assert_close, run_ir

F = TensorProto.FLOAT
rng = np.random.default_rng(0)


def check(model, inputs, tmp_path):
    paths = convert_model(input_model=model, output_dir=str(tmp_path), compress_to_fp16=False)
    assert_close(run_ir(paths.xml, inputs), run_onnxruntime(model, inputs))


def graph(nodes, name, inputs, outputs):
    return helper.make_graph(nodes, name, [helper.make_tensor_value_info(*i) for i in inputs],
                             [helper.make_tensor_value_info(*o) for o in outputs])


@pytest.mark.parametrize("cond", [True, False])
def test_if_with_outer_tensors(tmp_path, cond):
    then_g = graph([helper.make_node("Add", ["x", "y"], ["t"])], "then", [], [("t", F, None)])
    else_g = graph([helper.make_node("Mul", ["x", "x"], ["e"]), helper.make_node("Sub", ["e", "y"], ["e2"])],
                   "else", [], [("e2", F, None)])
    model = make_model([helper.make_node("If", ["c"], ["out"], then_branch=then_g, else_branch=else_g)],
                       [("c", TensorProto.BOOL, []), ("x", F, [2, 3]), ("y", F, [3])], [("out", F, None)])
    x, y = rng.standard_normal((2, 3)).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    check(model, [np.array(cond), x, y], tmp_path)


def loop_model(trip_input="M", cond_input="c"):
    """acc += x while i < M and i < stop (read from the enclosing graph); stacks every acc."""
    body = graph([
        helper.make_node("Add", ["acc_in", "x"], ["acc_out"]),
        helper.make_node("Less", ["i", "stop"], ["cond_out"]),
        helper.make_node("Identity", ["acc_out"], ["scan"])],
        "body", [("i", TensorProto.INT64, []), ("cond_in", TensorProto.BOOL, []), ("acc_in", F, [3])],
        [("cond_out", TensorProto.BOOL, []), ("acc_out", F, [3]), ("scan", F, [3])])
    node = helper.make_node("Loop", [trip_input, cond_input, "acc0"], ["acc", "all"], body=body)
    inputs = [("M", TensorProto.INT64, []), ("c", TensorProto.BOOL, [])]
    inputs = [i for i in inputs if i[0] in (trip_input, cond_input)]
    return make_model([node], inputs + [("acc0", F, [3]), ("x", F, [3]), ("stop", TensorProto.INT64, [])],
                      [("acc", F, None), ("all", F, None)])


@pytest.mark.parametrize("trip, stop", [(6, 100), (10, 3)])
def test_loop_with_condition_carried_value_and_scan_output(tmp_path, trip, stop):
    x = np.array([1, 2, 3], np.float32)
    check(loop_model(), [np.array(trip, np.int64), np.array(True), np.zeros(3, np.float32), x,
                         np.array(stop, np.int64)], tmp_path)


@pytest.mark.parametrize("trip_input, cond_input", [("", "c"), ("M", "")])
def test_loop_without_trip_count_or_condition(tmp_path, trip_input, cond_input):
    inputs = [np.array(5, np.int64)] if trip_input else [np.array(True)]
    check(loop_model(trip_input, cond_input), inputs + [np.zeros(3, np.float32), np.ones(3, np.float32),
                                                        np.array(3, np.int64)], tmp_path)


def scan_body():
    return graph([helper.make_node("Add", ["s_in", "xi"], ["s_out"]),
                  helper.make_node("Mul", ["p_in", "xi"], ["p_out"]),
                  helper.make_node("Add", ["s_out", "bias"], ["y"])],
                 "body", [("s_in", F, None), ("p_in", F, None), ("xi", F, None)],
                 [("s_out", F, None), ("p_out", F, None), ("y", F, None)])


def test_scan9_reverse_and_axes(tmp_path):
    node = helper.make_node("Scan", ["s0", "p0", "x"], ["s", "p", "ys"], body=scan_body(), num_scan_inputs=1,
                            scan_input_axes=[1], scan_input_directions=[1], scan_output_axes=[-1],
                            scan_output_directions=[1])
    model = make_model([node], [("s0", F, [2]), ("p0", F, [2]), ("x", F, [2, 4]), ("bias", F, [2])],
                       [("s", F, None), ("p", F, None), ("ys", F, None)])
    inputs = [rng.standard_normal(2).astype(np.float32) for _ in range(2)]
    check(model, inputs + [rng.standard_normal((2, 4)).astype(np.float32), np.ones(2, np.float32)], tmp_path)


def test_scan8_batched(tmp_path):
    node = helper.make_node("Scan", ["", "s0", "p0", "x"], ["s", "p", "ys"], body=scan_body(), num_scan_inputs=1)
    model = make_model([node], [("s0", F, [3, 2]), ("p0", F, [3, 2]), ("x", F, [3, 4, 2]), ("bias", F, [2])],
                       [("s", F, None), ("p", F, None), ("ys", F, None)], opset=8, ir_version=3)
    inputs = [rng.standard_normal((3, 2)).astype(np.float32) for _ in range(2)]
    check(model, inputs + [rng.standard_normal((3, 4, 2)).astype(np.float32), np.ones(2, np.float32)], tmp_path)


def test_if_nested_in_loop_reads_tensors_from_both_enclosing_graphs(tmp_path):
    """Each iteration adds x (a tensor of the main graph) when i < switch, else subtracts it;
    the If sits in the Loop body and reads the body's acc_in and the main graph's x."""
    then_g = graph([helper.make_node("Add", ["acc_in", "x"], ["t"])], "then", [], [("t", F, None)])
    else_g = graph([helper.make_node("Sub", ["acc_in", "x"], ["e"])], "else", [], [("e", F, None)])
    body = graph([
        helper.make_node("Less", ["i", "switch"], ["up"]),
        helper.make_node("If", ["up"], ["acc_out"], then_branch=then_g, else_branch=else_g),
        helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body", [("i", TensorProto.INT64, []), ("cond_in", TensorProto.BOOL, []), ("acc_in", F, [2])],
        [("cond_out", TensorProto.BOOL, []), ("acc_out", F, [2])])
    node = helper.make_node("Loop", ["M", "", "acc0"], ["acc"], body=body)
    model = make_model([node], [("M", TensorProto.INT64, []), ("acc0", F, [2]), ("x", F, [2]),
                                ("switch", TensorProto.INT64, [])], [("acc", F, None)])
    check(model, [np.array(5, np.int64), np.zeros(2, np.float32), np.array([1, 2], np.float32),
                  np.array(3, np.int64)], tmp_path)
