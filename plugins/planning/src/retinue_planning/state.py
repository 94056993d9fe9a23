"""`PlanningBoardState`: a whole board as of one version, as plain data.

It is at once the board actor's checkpointed state, the snapshot every reader gets, and
what `rebuild_board` makes from the recorded events. It is frozen (a change makes the next
one), so a published snapshot can be shared by every thread without copying, and a
checkpoint of it costs nothing: the tasks are one `FrozenMap` of frozen tasks.
"""

from __future__ import annotations

from pydantic import ConfigDict, Field
from retinue import FrozenMap
from retinue.kit import VersionedState

from retinue_planning.tasks import PlanningTask


def _no_tasks() -> FrozenMap[str, PlanningTask]:
    return FrozenMap()


class PlanningBoardState(VersionedState):
    """Every task of one board by id, in creation order, and the version they make (each
    change to one task adds one)."""

    model_config = ConfigDict(frozen=True)

    next_number: int = Field(default=1, ge=1)
    """The number the next task created will get (`T<next_number>`)."""
    tasks: FrozenMap[str, PlanningTask] = Field(default_factory=_no_tasks)
