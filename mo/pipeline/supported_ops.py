"""The list of framework op types the built-in registry converts, as Markdown
(``reports/supported_ops.md``): ``python -m mo.pipeline.supported_ops`` rewrites it, and a test
checks that the file in the repository matches the registry.
"""
from __future__ import annotations

import os
import sys

from mo.registry import Registry

FRAMEWORKS = {"onnx": "ONNX", "tf": "TensorFlow", "pytorch": "PyTorch (ATen / prim / quantized)"}
REPORT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                      "reports", "supported_ops.md")


def supported_op_types(registry: Registry, framework: str) -> list[str]:
    """Op types of ``framework`` that an extractor or a translator handles (ONNX types of other
    domains as ``domain::Type``)."""
    keys = {t for fw, t in registry.extractors if fw == framework}
    keys |= {t for fw, t in registry.translators if fw == framework}
    return sorted(keys, key=lambda t: (t.lower(), t))


def markdown(registry: Registry) -> str:
    lines = ["# Supported framework operations", "",
             "Generated from the registry by `python -m mo.pipeline.supported_ops`; do not edit.",
             "`mo --explain <framework>:<op type>` shows the extractor and translator of any of them.", ""]
    for framework, title in FRAMEWORKS.items():
        types = supported_op_types(registry, framework)
        lines += [f"## {title}: {len(types)} op types", "", ", ".join(f"`{t}`" for t in types), ""]
    return "\n".join(lines)


def main() -> int:
    text = markdown(Registry.build())
    with open(REPORT, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {REPORT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
