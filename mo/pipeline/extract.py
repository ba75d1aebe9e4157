"""Extraction: every framework node gets its op and attributes from its registered extractor."""
from __future__ import annotations

from mo.errors import ConversionError, ExtensionError, GraphError, UnsupportedOpsError
from mo.registry import class_origin, is_user_class

FRAMEWORK_NAMES = {"onnx": "ONNX", "tf": "TensorFlow"}


def extract(graph, framework: str) -> None:
    """Run the extractor of every node not extracted yet (``op`` is None), recursing into
    bodies. All unsupported op types are reported together."""
    registry = graph.graph["registry"]
    unsupported: dict[str, list[str]] = {}
    _extract(graph, framework, registry, unsupported)
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
        extractor = registry.extractor(framework, fw_op, domain)
        if extractor is None:
            key = f"{domain}::{fw_op}" if domain else fw_op
            source = node.get("source")   # where the framework op comes from in the model's code
            unsupported.setdefault(key, []).append(f"{node.name} ({source})" if source else node.name)
            continue
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
        if node.get("op") is None:
            raise GraphError(f"Extractor {extractor.__name__} did not set the op of node '{node.name}'.")
