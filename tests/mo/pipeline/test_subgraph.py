"""Sub-graph replacement (mo/pipeline/subgraph.py): by name scope or start/end points, driven by
--transformations_config (the legacy JSON format) or by the class's own scope, and the
multi-output pattern rewrite (mo/pipeline/pattern.py), both through the example extensions."""
import json
import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from mo import convert_model
from mo.errors import ExtensionError, OptionError
from mo.registry import Registry
from tests.e2e.test_cli import ROOT, run_mo
from tests.utils.onnx_models import make_model, run_onnxruntime
from tests.utils.reference import assert_rewrite, assert_untouched
from tests.utils.runtime import assert_close, run_ir
from tests.utils.tf_models import ir_op_types

EXAMPLES = os.path.join(ROOT, "examples", "extensions")
CONFIG = os.path.join(ROOT, "examples", "transformations_config.json")
X = np.random.default_rng(0).standard_normal((2, 6)).astype(np.float32)


def manual_softmax_model():
    """logits = x @ w; a softmax by hand under head/softmax/; y = probabilities * 2."""
    nodes = [helper.make_node("MatMul", ["x", "w"], ["logits"], name="head/dense"),
             helper.make_node("Exp", ["logits"], ["e"], name="head/softmax/exp"),
             helper.make_node("ReduceSum", ["e", "axes"], ["s"], name="head/softmax/sum", keepdims=1),
             helper.make_node("Div", ["e", "s"], ["p"], name="head/softmax/div"),
             helper.make_node("Mul", ["p", "two"], ["y"], name="scale")]
    return make_model(nodes, [("x", TensorProto.FLOAT, [2, 6])], [("y", TensorProto.FLOAT, None)],
                      {"w": np.random.default_rng(1).standard_normal((6, 5)).astype(np.float32),
                       "axes": np.array([1], np.int64), "two": np.array(2, np.float32)})


def test_transformations_config_through_the_cli(tmp_path):
    path = str(tmp_path / "m.onnx")
    onnx.save(manual_softmax_model(), path)
    r = run_mo(path, "-o", str(tmp_path / "ir"), "--extensions", EXAMPLES, "--transformations_config", CONFIG,
               "--compress_to_fp16=False")
    assert r.returncode == 0, r.stderr
    xml = str(tmp_path / "ir" / "m.xml")
    types = ir_op_types(xml)
    assert "Softmax" in types and not {"Exp", "ReduceSum", "Divide"} & set(types)
    assert_close(run_ir(xml, [X]), run_onnxruntime(path, [X]))
    plain = run_mo(path, "-o", str(tmp_path / "plain"), "--extensions", EXAMPLES)     # no config: untouched
    assert plain.returncode == 0 and "Exp" in ir_op_types(str(tmp_path / "plain" / "m.xml"))


def test_points_from_a_config_given_as_python_objects(tmp_path):
    config = [{"id": "ManualSoftmax", "match_kind": "points", "custom_attributes": {"axis": 1},
               "instances": {"start_points": ["head/softmax/exp"], "end_points": ["head/softmax/div"]}}]
    ir = convert_model(manual_softmax_model(), extensions=EXAMPLES, transformations_config=config,
                       compress_to_fp16=False)
    assert 'type="Softmax"' in ir.xml and 'type="Exp"' not in ir.xml
    assert_close(run_ir(ir.save(str(tmp_path / "m.xml")).xml, [X]), run_onnxruntime(manual_softmax_model(), [X]))


def test_a_class_with_its_own_scope_and_a_wrong_replacement(tmp_path):
    folder = tmp_path / "ext"
    folder.mkdir()
    (folder / "scoped.py").write_text(
        "from mo.pipeline.subgraph import SubgraphReplacement\n\n\n"
        "class Scoped(SubgraphReplacement):\n"
        "    scope = 'head/softmax/'\n\n"
        "    def replace_subgraph(self, b, match):\n"
        "        assert match.input_names() == ['head/dense'] and match.output_names() == ['head/softmax/div']\n"
        "        return [b.Softmax(match.inputs[0], axis=1), b.Softmax(match.inputs[0], axis=1)]\n")
    with pytest.raises(ExtensionError, match="returned 2 ports for the 1 outputs"):
        convert_model(manual_softmax_model(), extensions=str(folder))


def test_config_errors(tmp_path):
    with pytest.raises(OptionError, match="no extension class has that replacement_id"):
        convert_model(manual_softmax_model(), transformations_config=CONFIG)
    bad = tmp_path / "bad.json"
    bad.write_text("[{")
    with pytest.raises(OptionError, match="not valid JSON"):
        convert_model(manual_softmax_model(), transformations_config=str(bad))
    bad.write_text(json.dumps([{"id": "X", "match_kind": "general"}]))
    with pytest.raises(OptionError, match="'general' is not supported"):
        convert_model(manual_softmax_model(), transformations_config=str(bad))
    bad.write_text(json.dumps([{"id": "X", "match_kind": "points", "instances": ["a"]}]))
    with pytest.raises(OptionError, match="start_points"):
        convert_model(manual_softmax_model(), transformations_config=str(bad))


def _mean_variance_rewrite():
    return next(c for c in Registry.build([EXAMPLES]).transform_classes() if c.__name__ == "MeanVarianceOnePass")


def mean_and_variance(b, axes2=(1,)):
    x = b.Parameter(shape=(3, 8), element_type="f32", name="x")
    mean = b.ReduceMean(x, np.array([1], np.int64), keep_dims=True)
    centered = b.Subtract(x, mean)
    return [mean, b.ReduceMean(b.Multiply(centered, centered), np.array(axes2, np.int64), keep_dims=True)]


def test_multi_output_pattern_rewrites_both_outputs():
    assert_rewrite(mean_and_variance, _mean_variance_rewrite(), rtol=1e-4, atol=1e-5,
                   expect_ops=["ReduceMean", "Multiply", "ReduceMean", "Multiply", "Subtract"])


def test_multi_output_pattern_condition_and_outside_consumers():
    assert_untouched(lambda b: mean_and_variance(b, axes2=(0,)), _mean_variance_rewrite())

    def centered_also_used(b):
        mean, var = mean_and_variance(b)
        centered = var.node.in_port(0).get_source().node.in_port(0).get_source()
        return [mean, var, b.Abs(centered)]
    assert_untouched(centered_also_used, _mean_variance_rewrite())


@pytest.mark.parametrize("instances, detail", [
    (["tail/softmax/"], "scope 'tail/softmax/'"),
    ({"start_points": ["head/softmax/exp"], "end_points": ["nope"]}, "not nodes of the model: 'nope'"),
    ({"start_points": ["head/softmax/div"], "end_points": ["head/softmax/exp"]}, "no path leads")])
def test_a_config_entry_that_matches_nothing_is_a_warning_naming_its_id(tmp_path, instances, detail):
    path = str(tmp_path / "m.onnx")
    onnx.save(manual_softmax_model(), path)
    config = tmp_path / "config.json"
    config.write_text(json.dumps([{"id": "ManualSoftmax", "instances": instances,
                                   "match_kind": "scope" if isinstance(instances, list) else "points"}]))
    r = run_mo(path, "-o", str(tmp_path / "ir"), "--extensions", EXAMPLES, "--transformations_config", str(config))
    assert r.returncode == 0, r.stderr       # the legacy tool goes on too
    warnings = [line for line in r.stderr.splitlines() if line.startswith("[ WARNING ]")]
    assert len(warnings) == 1 and "entry 'ManualSoftmax' matched no node" in warnings[0], r.stderr
    assert detail in warnings[0] and "Exp" in ir_op_types(str(tmp_path / "ir" / "m.xml"))
