"""Extraction: every framework node gets its attributes from its registered extractor, and
becomes either an op (when the extractor maps it to one) or a framework op that the translate
step hands to its translator."""
from __future__ import annotations

from mo.errors import ConversionError, ExtensionError, GraphError, UnsupportedOpsError
from mo.graph.node import Node
from mo.registry import op_key
from mo.utils.origin import class_origin, is_user_class

FRAMEWORK_NAMES = {"onnx": "ONNX", "tf": "TensorFlow", "pytorch": "PyTorch"}


def framework_op_name(framework: str, key: str) -> str:
    """The ``op`` of a framework node waiting for its translator: ``onnx:Resize``,
    ``tf:FusedBatchNormV3``, ``pytorch:aten::layer_norm``."""
    return f"{framework}:{key}"


def mark_framework_op(node: Node, framework: str, key: str) -> None:
    """Make ``node`` a framework op translated by the translator registered for ``key``."""
    node.update({"op": framework_op_name(framework, key), "type": None, "translate": key})


def is_framework_op(node: Node) -> bool:
    """Whether ``node`` is a framework op not translated yet."""
    return node.get("translate") is not None


def extract(graph, framework: str) -> None:
    """Run the extractor of every node not extracted yet (``op`` is None), recursing into
    bodies, and mark the nodes that have a translator. All unsupported op types are reported
    together."""
    unsupported: dict[str, list[str]] = {}
    _extract(graph, framework, graph.registry, unsupported)
    if unsupported:
        raise UnsupportedOpsError(FRAMEWORK_NAMES.get(framework, framework), unsupported)


def _extract(graph, framework, registry, unsupported) -> None:
    for node in list(graph.ops_iter()):
        for body in (node.get("bodies") or {}).values():
            _extract(body, framework, registry, unsupported)
        if node.get("op") is not None:
            continue
        fw_op = node.fw_op
        domain = node.get("domain", "")
        key = op_key(fw_op, domain)
        extractor = registry.extractor(framework, fw_op, domain)
        translator = registry.translator(framework, fw_op, domain)
        if extractor is None and translator is None:
            source = node.get("source")   # where the framework op comes from in the model's code
            unsupported.setdefault(key, []).append(f"{node.name} ({source})" if source else node.name)
            continue
        if extractor is not None:
            _run_extractor(extractor, node, fw_op)
        if translator is not None:
            mark_framework_op(node, framework, key)
        elif node.get("op") is None:
            raise GraphError(f"Extractor {extractor.__name__} did not set the op of node '{node.name}'.")


def _run_extractor(extractor, node: Node, fw_op: str) -> None:
    try:
        extractor.extract(node)
    except ConversionError:
        raise
    except Exception as e:
        if is_user_class(extractor):
            raise ExtensionError(f"Extension extractor {class_origin(extractor)} failed on node '{node.name}' "
                                 f"({fw_op}): {type(e).__name__}: {e}") from e
        raise GraphError(f"Cannot read the attributes of node '{node.name}' ({fw_op}): "
                         f"{type(e).__name__}: {e}") from e
