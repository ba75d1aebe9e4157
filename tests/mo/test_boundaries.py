"""The project's module boundaries, read from the source with ``ast`` (every import statement,
also those inside functions and under ``if TYPE_CHECKING``):

* the engine (``mo/``) imports nothing from ``extensions/``: it reaches loaders, translators and
  the torch.compile backend through the registry, which finds the built-in package by its name
  as it finds a user's folder by its path;
* no module imports itself through a circle of imports.

An import names a module when ``from package import name`` names a submodule, else the module it
comes from; the implicit import of a module's parent packages is not counted.
"""
from __future__ import annotations

import ast
import os

import networkx as nx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGES = ("mo", "extensions", "tests", "benchmarks", "examples")


def project_modules() -> dict[str, str]:
    """Dotted module name -> file, for every .py file of the project's packages."""
    modules = {}
    for package in PACKAGES:
        for folder, dirs, files in os.walk(os.path.join(ROOT, package)):
            dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__")))
            for name in files:
                if name.endswith(".py"):
                    parts = os.path.relpath(os.path.join(folder, name), ROOT)[:-3].split(os.sep)
                    if parts[-1] == "__init__":
                        parts = parts[:-1]
                    modules[".".join(parts)] = os.path.join(folder, name)
    return modules


def imports_of(module: str, path: str, modules: dict[str, str]) -> list[tuple[str, int]]:
    """(imported project module, line) for every import statement of the module."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    package = module.split(".") if path.endswith("__init__.py") else module.split(".")[:-1]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target not in modules and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in modules and target != module:
                found.append((target, node.lineno))
    return found


def import_graph() -> nx.DiGraph:
    """Project modules and their imports; each edge carries the ``line`` of its first import."""
    modules = project_modules()
    graph = nx.DiGraph()
    for module, path in modules.items():
        graph.add_node(module, path=os.path.relpath(path, ROOT))
        for target, line in imports_of(module, path, modules):
            if not graph.has_edge(module, target):
                graph.add_edge(module, target, line=line)
    return graph


def test_the_engine_imports_nothing_from_extensions():
    graph = import_graph()
    crossing = [f"{graph.nodes[m]['path']}:{d['line']} imports {t}" for m, t, d in graph.edges(data=True)
                if m.split(".")[0] == "mo" and t.split(".")[0] == "extensions"]
    assert not crossing, "mo/ must reach extensions through the registry:\n" + "\n".join(crossing)


def test_no_import_cycles():
    graph = import_graph()
    cycles = []
    for component in nx.strongly_connected_components(graph):
        if len(component) > 1:
            cycle = nx.find_cycle(graph.subgraph(component))
            cycles.append(" -> ".join(f"{graph.nodes[m]['path']}:{graph.edges[m, t]['line']}" for m, t in cycle)
                          + f" -> {cycle[0][0]}")
    assert not cycles, "modules that import themselves through others:\n" + "\n".join(cycles)


def test_the_graph_sees_imports_in_functions_and_type_checking_blocks(tmp_path):
    """The checks are not vacuous: imports of every kind are found."""
    graph = import_graph()
    assert graph.has_edge("mo.pipeline.convert", "mo.pipeline.summary")      # inside a function
    assert graph.has_edge("mo.pipeline.convert", "mo.registry")               # at module level
    assert graph.has_edge("extensions.load.pytorch.loader", "extensions.load.pytorch.capture")
    source = tmp_path / "m.py"
    source.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from mo.graph import node\n"
                      "def f():\n    from . import sibling\n")
    modules = {"pkg.m": str(source), "pkg.sibling": "", "mo.graph.node": ""}
    assert imports_of("pkg.m", str(source), modules) == [("mo.graph.node", 3), ("pkg.sibling", 5)]
