"""Registry: discovery, deterministic transform order with anchors, user overrides, no shared state."""
import textwrap

import pytest

from mo.errors import ExtensionError
from mo.registry import Registry


def test_builtin_contents():
    reg = Registry.build()
    assert reg.op("Convolution").version == "opset1"
    assert reg.extractor("onnx", "Conv") is not None
    assert "onnx" in reg.loaders


def test_transform_order_is_deterministic_and_anchored():
    first = [t.name() for t in Registry.build().transforms("front", "onnx")]
    second = [t.name() for t in Registry.build().transforms("front", "onnx")]
    assert first == second
    assert first[0] == "FrontStart" and first[-1] == "FrontFinish"


def _write(folder, rel, text):
    path = folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


def test_user_extension_overrides_and_is_not_shared(tmp_path):
    _write(tmp_path, "ops/relu.py", """
        from mo.ops.op import Op
        class MyReLU(Op):
            op = "ReLU"
            version = "opset1"
    """)
    _write(tmp_path, "front/my_pass.py", """
        from mo.pipeline.transform import Transform
        class MyPass(Transform):
            phase = "front"
            def find_and_replace_pattern(self, graph):
                pass
    """)
    with_ext = Registry.build([str(tmp_path)])
    assert with_ext.op("ReLU").__name__ == "MyReLU"
    assert "MyPass" in [t.name() for t in with_ext.transforms("front", "onnx")]
    plain = Registry.build()
    assert plain.op("ReLU").__name__ == "ReLU"
    assert "MyPass" not in [t.name() for t in plain.transforms("front", "onnx")]


def test_cycle_in_user_transforms_names_classes(tmp_path):
    _write(tmp_path, "front/cyc.py", """
        from mo.pipeline.transform import Transform
        class A(Transform):
            phase = "front"
            def run_after(self):
                return [B]
        class B(Transform):
            phase = "front"
            def run_after(self):
                return [A]
    """)
    with pytest.raises(ExtensionError, match="cycle.*cyc.py"):
        Registry.build([str(tmp_path)]).transforms("front", "onnx")


def test_broken_user_module_names_file(tmp_path):
    _write(tmp_path, "front/broken.py", "import does_not_exist_module\n")
    with pytest.raises(ExtensionError, match="broken.py"):
        Registry.build([str(tmp_path)])


def test_builtin_names_are_registered_once():
    """Two built-in classes for one op name or framework op would silently shadow each other."""
    from collections import Counter

    from mo.front.extractor import Extractor
    from mo.front.translator import translator_keys
    from mo.ops.op import Op
    from mo.pipeline.transform import Transform
    from mo.registry import builtin_classes
    members = builtin_classes()
    classes = [c for c in members if isinstance(c, type)]
    ops = Counter(c.op for c in classes if issubclass(c, Op))
    extractors = Counter((c.framework, t) for c in classes if issubclass(c, Extractor) for t in c.op_types)
    translators = Counter((fw, t) for f in members for fw, types in translator_keys(f) for t in types)
    transforms = Counter(c.__name__ for c in classes if issubclass(c, Transform))
    assert [k for k, v in ops.items() if v > 1] == []
    assert [k for k, v in extractors.items() if v > 1] == []
    assert [k for k, v in translators.items() if v > 1] == []
    assert [k for k, v in transforms.items() if v > 1] == []


def test_a_framework_op_has_a_translator_or_a_mapping_extractor_not_both():
    """A built-in extractor that maps an op type to an op would be overridden by a translator of
    the same type; one of them is dead code."""
    import inspect

    from mo.front.extractor import Extractor
    from mo.registry import builtin_classes
    reg = Registry(builtin_classes())
    both = sorted(k for k in reg.translators if k in reg.extractors
                  and "update_node" in inspect.getsource(reg.extractors[k].extract))
    assert both == []
    assert all(issubclass(c, Extractor) for c in reg.extractors.values())


def test_subclassed_ops_get_their_own_ir_type():
    reg = Registry.build()
    assert reg.op("ConvertLike").type == "ConvertLike"
    assert all(c.type in (None, name) for name, c in reg.ops.items())


def _gemm_model(tmp_path):
    import onnx
    from onnx import TensorProto, helper

    from tests.utils.onnx_models import make_model
    model = make_model([helper.make_node("Gemm", ["a", "b"], ["y"], name="gemm"),
                        helper.make_node("Relu", ["y"], ["z"], name="relu")],
                       [("a", TensorProto.FLOAT, [2, 3]), ("b", TensorProto.FLOAT, [3, 4])],
                       [("z", TensorProto.FLOAT, [2, 4])])
    path = str(tmp_path / "gemm.onnx")
    onnx.save(model, path)
    return path


def test_user_translators_replace_builtin_translators_and_mapping_extractors(tmp_path):
    """A user translator takes over an op type that the project translates (Gemm) and one that a
    built-in extractor maps to an op (Relu)."""
    import numpy as np

    from mo import convert_model
    from tests.utils.runtime import run_ir
    _write(tmp_path / "ext", "front/onnx/mine.py", """
        from mo.front.translator import translator

        @translator("onnx", "Gemm")
        def gemm_as_matmul_plus_one(node, b):
            import numpy as np
            a, w = node.in_port(0).get_source(), node.in_port(1).get_source()
            return [b.Add(b.MatMul(a, w), np.float32(1))]

        @translator("onnx", "Relu")
        def relu_as_clamp(node, b):
            return [b.Clamp(node.in_port(0).get_source(), min=0.0, max=2.0)]
    """)
    reg = Registry.build([str(tmp_path / "ext")])
    assert reg.translator("onnx", "Gemm").__name__ == "gemm_as_matmul_plus_one"
    assert reg.translator("onnx", "Relu").__name__ == "relu_as_clamp"
    paths = convert_model(_gemm_model(tmp_path), output_dir=str(tmp_path / "out"), extensions=[str(tmp_path / "ext")])
    a, w = np.ones((2, 3), np.float32), np.ones((3, 4), np.float32)
    np.testing.assert_allclose(run_ir(paths.xml, [a, w])[0], np.full((2, 4), 2.0))   # min(3 + 1, 2)


def test_a_user_extractor_wins_over_an_earlier_translator(tmp_path):
    """A user extractor for an op type the project translates decides what the op becomes."""
    _write(tmp_path, "front/onnx/gemm.py", """
        from extensions.load.onnx.attributes import OnnxExtractor

        class GemmAsMatMul(OnnxExtractor):
            op_types = ("Gemm",)

            @classmethod
            def extract(cls, node):
                node.graph.registry.op("MatMul").update_node(node, {"transpose_a": False, "transpose_b": False})
    """)
    reg = Registry.build([str(tmp_path)])
    assert reg.extractor("onnx", "Gemm").__name__ == "GemmAsMatMul"
    assert reg.translator("onnx", "Gemm") is None
    assert Registry.build().translator("onnx", "Gemm") is not None
