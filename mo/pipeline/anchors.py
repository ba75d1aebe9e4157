"""Phase anchors: empty transforms that mark the start and end of each phase, so a transform can
say ``run_after(FrontStart)`` or ``run_before(MiddleFinish)``. Every transform of a phase runs
after its Start anchor and before its Finish anchor unless it orders itself against them."""
from __future__ import annotations

from mo.pipeline.transform import Transform


class _Anchor(Transform):
    abstract = True

    def find_and_replace_pattern(self, graph) -> None:
        pass


class FrontStart(_Anchor):
    phase = "front"


class FrontFinish(_Anchor):
    phase = "front"


class MiddleStart(_Anchor):
    phase = "middle"


class MiddleFinish(_Anchor):
    phase = "middle"


class BackStart(_Anchor):
    phase = "back"


class BackFinish(_Anchor):
    phase = "back"


ANCHORS = {"front": (FrontStart, FrontFinish), "middle": (MiddleStart, MiddleFinish),
           "back": (BackStart, BackFinish)}
