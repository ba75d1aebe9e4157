"""The emitter: XML structure, port numbering, tensor names, .bin de-duplication, determinism."""
import os

import numpy as np
from defusedxml import ElementTree

from mo.emit.ir import emit_ir
from tests.utils.graphs import new_graph
from tests.utils.runtime import run_ir


def _graph():
    g, b = new_graph(data_form=True)
    x = b.node("Parameter", shape=(-1, 3), element_type="f32", name="x")
    x.out_port(0).add_tensor_names(["x"])
    w = np.arange(3, dtype=np.float32)
    add = b.node("Add", x, b.const(w, name="w1"), name="add")
    mul = b.node("Multiply", add, b.const(w.copy(), name="w2"), name="mul")
    mul.out_port(0).add_tensor_names(["y", "alias,with,commas"])
    b.node("Result", mul, name="y/sink_port_0")
    return g


def test_xml_structure_and_dedup(tmp_path):
    xml, bin_ = emit_ir(_graph(), str(tmp_path), "m", {"conversion_parameters": {"input_model": "m.onnx"}})
    root = ElementTree.parse(xml).getroot()
    assert root.tag == "net" and root.get("version") == "11"
    layers = {layer.get("name"): layer for layer in root.iter("layer")}
    types = [layer.get("type") for layer in root.find("layers")]
    assert types[0] == "Parameter" and types[-1] == "Result"
    assert sorted(types) == sorted(["Parameter", "Const", "Const", "Add", "Multiply", "Result"])
    assert [layer.get("id") for layer in root.find("layers")] == [str(i) for i in range(6)]
    assert layers["x"].find("data").get("shape") == "?,3"
    add_ports = layers["add"]
    assert [p.get("id") for p in add_ports.find("input")] == ["0", "1"]
    assert add_ports.find("output/port").get("id") == "2"
    assert [d.text for d in add_ports.find("output/port").iter("dim")] == ["-1", "3"]
    assert layers["mul"].find("output/port").get("names") == "y,alias\\,with\\,commas"
    w1, w2 = layers["w1"].find("data"), layers["w2"].find("data")
    assert w1.get("offset") == w2.get("offset") == "0" and w1.get("size") == "12"
    assert os.path.getsize(bin_) == 12
    edges = [(e.get("from-layer"), e.get("from-port"), e.get("to-layer"), e.get("to-port"))
             for e in root.find("edges")]
    ids = {layer.get("name"): layer.get("id") for layer in root.iter("layer")}
    assert (ids["add"], "2", ids["mul"], "0") in edges and (ids["x"], "0", ids["add"], "0") in edges
    assert root.find("rt_info/conversion_parameters/input_model").get("value") == "m.onnx"


def test_emission_is_byte_identical(tmp_path):
    a = emit_ir(_graph(), str(tmp_path / "a"), "m", {})
    b = emit_ir(_graph(), str(tmp_path / "b"), "m", {})
    for pa, pb in zip(a, b):
        with open(pa, "rb") as fa, open(pb, "rb") as fb:
            assert fa.read() == fb.read()


def test_runtime_reads_emitted_ir(tmp_path):
    xml, _ = emit_ir(_graph(), str(tmp_path), "m", {})
    x = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    (y,) = run_ir(xml, [x])
    np.testing.assert_allclose(y, (x + np.arange(3)) * np.arange(3))


def test_no_temporary_files_left(tmp_path):
    emit_ir(_graph(), str(tmp_path), "m", {})
    assert sorted(os.listdir(tmp_path)) == ["m.bin", "m.xml"]
