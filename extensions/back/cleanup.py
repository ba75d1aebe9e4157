"""Final clean-up: dead nodes, orphan data nodes."""
from __future__ import annotations

from mo.pipeline.anchors import BackFinish
from mo.pipeline.transform import Transform


class RemoveDeadNodes(Transform):
    """Remove ops whose results reach no model output (model inputs are kept)."""

    phase = "back"
    on_save = True

    def run_after(self):
        return [BackFinish]

    def run_before(self):
        return []

    def find_and_replace_pattern(self, graph) -> None:
        keep = [p.id for p in graph.nodes_by_op("Parameter")]
        graph.remove_dead_nodes(keep=keep)
        graph.remove_orphan_data()
