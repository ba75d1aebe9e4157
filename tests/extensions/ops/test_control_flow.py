"""If / Loop / TensorIterator: body inference, IR structure of the port maps and bodies, and a
run of the written IR in the OpenVINO runtime."""
import numpy as np
import pytest
from defusedxml import ElementTree as ET

from extensions.ops.control_flow import port_entry, sliced_entry
from mo.emit.ir import emit_ir
from tests.utils.graphs import new_graph
from tests.utils.runtime import assert_close, run_ir


def body_graph():
    return new_graph(data_form=True)


def build_if(x_shape=(2, 3)):
    """out = cond ? x + y : x * x (y only reaches the then body)."""
    g, b = new_graph(data_form=True)
    cond = b.Parameter(shape=(), element_type="boolean", name="cond")
    x = b.Parameter(shape=x_shape, element_type="f32", name="x")
    y = b.Parameter(shape=(3,), element_type="f32", name="y")
    then_g, tb = body_graph()
    tx = tb.Parameter(shape=None, name="tx")
    ty = tb.Parameter(shape=None, name="ty")
    t_res = tb.node("Result", tb.Add(tx, ty))
    else_g, eb = body_graph()
    ex = eb.Parameter(shape=None, name="ex")
    e_res = eb.node("Result", eb.Multiply(ex, ex))
    node = b.node(
        "If", cond, x, y, name="if",
        bodies={"then_body": then_g, "else_body": else_g},
        input_port_map=[
            {"external_port_id": 1, "body": "then_body", "internal_id": tx.node.id},
            {"external_port_id": 2, "body": "then_body", "internal_id": ty.node.id},
            {"external_port_id": 1, "body": "else_body", "internal_id": ex.node.id}],
        output_port_map=[
            {"external_port_id": 0, "body": "then_body", "internal_id": t_res.id},
            {"external_port_id": 0, "body": "else_body", "internal_id": e_res.id}])
    b.node("Result", node.out_port(0), name="out")
    return g, node


def build_loop(trip=4):
    """acc = init; for i < trip: acc = acc + x[i] + i; outputs acc and every acc (stacked)."""
    g, b = new_graph(data_form=True)
    init = b.Parameter(shape=(2,), element_type="f32", name="init")
    x = b.Parameter(shape=(5, 2), element_type="f32", name="x")
    body, bb = body_graph()
    it = bb.Parameter(shape=(), element_type="i64", name="it")
    acc = bb.Parameter(shape=None, name="acc")
    xi = bb.Parameter(shape=None, name="xi")
    total = bb.Add(bb.Add(acc, bb.Squeeze(xi, np.array([0]))), bb.Convert(it, destination_type="f32"))
    cond_res = bb.node("Result", bb.const(np.array(True)), name="cond")
    acc_res = bb.node("Result", total, name="acc_out")
    all_res = bb.node("Result", bb.Unsqueeze(total, np.array([0])), name="all_out")
    node = b.node(
        "Loop", b.const(np.array(trip, np.int64)), b.const(np.array(True)), init, x, name="loop",
        bodies={"body": body},
        input_port_map=[
            {"external_port_id": -1, "body": "body", "internal_id": it.node.id, "purpose": "current_iteration"},
            {"external_port_id": 2, "body": "body", "internal_id": acc.node.id},
            {"external_port_id": 3, "body": "body", "internal_id": xi.node.id, "axis": 0, "part_size": 1}],
        output_port_map=[
            {"external_port_id": -1, "body": "body", "internal_id": cond_res.id, "purpose": "execution_condition"},
            {"external_port_id": 0, "body": "body", "internal_id": acc_res.id},
            {"external_port_id": 1, "body": "body", "internal_id": all_res.id, "axis": 0}],
        back_edges=[{"from": acc_res.id, "to": acc.node.id}])
    b.node("Result", node.out_port(0), name="acc_final")
    b.node("Result", node.out_port(1), name="acc_all")
    return g, node


def test_if_infers_bodies_and_merges_shapes():
    g, node = build_if()
    then_g = node.bodies["then_body"]
    assert [then_g.node(e["internal_id"]).shape for e in node.input_port_map[:2]] == [(2, 3), (3,)]
    assert node.out_port(0).data.get_shape() == (2, 3)
    assert node.out_port(0).data.get_dtype() == "f32"


def test_if_differing_branch_dims_become_dynamic():
    g, b = new_graph(data_form=True)
    cond = b.Parameter(shape=(), element_type="boolean")
    bodies, results = {}, []
    for name, size in (("then_body", 2), ("else_body", 3)):
        body, bb = body_graph()
        results.append(bb.node("Result", bb.const(np.zeros((4, size), np.float32))))
        bodies[name] = body
    node = b.node("If", cond, bodies=bodies, output_port_map=[
        {"external_port_id": 0, "body": n, "internal_id": r.id} for n, r in zip(bodies, results)])
    assert node.out_port(0).data.get_shape() == (4, -1)


def test_loop_infers_iterations_and_relaxes_back_edges():
    g, node = build_loop()
    assert node.out_port(0).data.get_shape() == (2,)
    assert node.out_port(1).data.get_shape() == (4, 2)


def test_loop_back_edge_growing_shape_becomes_dynamic():
    g, b = new_graph(data_form=True)
    init = b.Parameter(shape=(1,), element_type="f32")
    body, bb = body_graph()
    acc = bb.Parameter(shape=None, name="acc")
    res = bb.node("Result", bb.Concat(acc, acc, axis=0))
    node = b.node("Loop", b.const(np.array(3, np.int64)), b.const(np.array(True)), init, bodies={"body": body},
                  input_port_map=[{"external_port_id": 2, "body": "body", "internal_id": acc.node.id}],
                  output_port_map=[{"external_port_id": 0, "body": "body", "internal_id": res.id}],
                  back_edges=[{"from": res.id, "to": acc.node.id}])
    assert body.node(acc.node.id).shape == (-1,)
    assert node.out_port(0).data.get_shape() == (-1,)


def layer(root, type_):
    return next(layer for layer in root.iter("layer") if layer.get("type") == type_)


def test_if_xml_structure(tmp_path):
    g, _ = build_if()
    xml, _ = emit_ir(g, str(tmp_path), "m", {})
    node = layer(ET.parse(xml).getroot(), "If")
    assert node.get("version") == "opset8"
    then_map = node.find("then_port_map")
    assert [(e.tag, e.get("external_port_id")) for e in then_map] == [("input", "1"), ("input", "2"), ("output", "3")]
    assert [(e.tag, e.get("external_port_id")) for e in node.find("else_port_map")] == [("input", "1"), ("output", "3")]
    body_layers = {e.get("id"): e.get("type") for e in node.find("then_body").find("layers")}
    assert {body_layers[e.get("internal_layer_id")] for e in then_map} == {"Parameter", "Result"}


def test_loop_xml_structure(tmp_path):
    g, _ = build_loop()
    xml, _ = emit_ir(g, str(tmp_path), "m", {})
    node = layer(ET.parse(xml).getroot(), "Loop")
    entries = node.find("port_map")
    purposes = {e.get("purpose"): e.get("external_port_id") for e in entries if e.get("purpose")}
    assert purposes == {"current_iteration": "-1", "execution_condition": "-1"}
    sliced = [e for e in entries if e.get("axis") is not None]
    assert [(e.tag, e.get("external_port_id"), e.get("part_size")) for e in sliced] == [("input", "3", "1"),
                                                                                          ("output", "5", "1")]
    edge = node.find("back_edges").find("edge")
    layers = {e.get("id"): e for e in node.find("body").find("layers")}
    assert layers[edge.get("from-layer")].get("type") == "Result"
    assert layers[edge.get("to-layer")].get("name") == "acc"


@pytest.mark.parametrize("cond", [True, False])
def test_if_runs(tmp_path, cond):
    g, _ = build_if()
    xml, _ = emit_ir(g, str(tmp_path), "m", {})
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = np.array([1, 2, 3], np.float32)
    (out,) = run_ir(xml, [np.array(cond), x, y])
    assert_close([out], [x + y if cond else x * x])


def test_loop_runs(tmp_path):
    g, _ = build_loop()
    xml, _ = emit_ir(g, str(tmp_path), "m", {})
    init = np.array([1, -1], np.float32)
    x = np.arange(10, dtype=np.float32).reshape(5, 2)
    acc, stacked = init, []
    for i in range(4):
        acc = acc + x[i] + i
        stacked.append(acc)
    assert_close(run_ir(xml, [init, x]), [acc, np.stack(stacked)])


def build_reverse_tensor_iterator():
    """Sums the columns of x [2, 5] last to first, starting from s0 [2]; every partial sum is
    kept along axis -1 (outputs: the last sum, all sums)."""
    g, b = new_graph(data_form=True)
    x = b.Parameter(shape=(2, 5), element_type="f32")
    s0 = b.Parameter(shape=(2,), element_type="f32")
    body, bb = body_graph()
    xi, s = bb.Parameter(shape=None, name="xi"), bb.Parameter(shape=None, name="s")
    total = bb.Add(s, bb.Squeeze(xi, np.array([-1])))
    s_res = bb.node("Result", total)
    all_res = bb.node("Result", bb.Unsqueeze(total, np.array([-1])))
    node = b.node("TensorIterator", x, s0, bodies={"body": body}, input_port_map=[
        sliced_entry(0, xi.node, -1, reverse=True), port_entry(1, s.node)],
        output_port_map=[port_entry(0, s_res), sliced_entry(1, all_res, -1, reverse=True)],
        back_edges=[{"from": s_res.id, "to": s.node.id}])
    b.Result(node.out_port(0))
    b.Result(node.out_port(1))
    return g, node


def test_tensor_iterator_reverse_slices_and_negative_axes():
    g, node = build_reverse_tensor_iterator()
    body = node.bodies["body"]
    assert body.node(node.input_port_map[0]["internal_id"]).shape == (2, 1)
    assert [node.out_port(i).data.get_shape() for i in range(2)] == [(2,), (2, 5)]
    assert [e["axis"] for e in node.input_port_map + node.output_port_map if "axis" in e] == [1, 1]
