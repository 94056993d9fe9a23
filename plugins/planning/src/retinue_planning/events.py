"""`PlanningChangedEvent`, and `rebuild_board`: the board is the sum of its events.

Every change to a task is published as one event holding the task before (None when it
was created) and after the change, who made it, and the board version it made. Versions
count changes one by one, so the events of a board form one unbroken line, and folding them
in version order gives back the board exactly: that is how a team is resumed from its
record, and how a reader can tell that an event is missing instead of silently building a
different board.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from retinue_planning.state import PlanningBoardState
from retinue_planning.tasks import PlanningTask


class PlanningChangedEvent(BaseModel):
    """One task created or changed on a team's planning board."""

    model_config = ConfigDict(frozen=True)

    task_before: PlanningTask | None
    """The task as it was; None when this change created it."""
    task_after: PlanningTask
    """The task as the change left it."""
    author: str
    """Who made the change: a member's `@name`."""
    board_version: int = Field(ge=1)
    """The board's version after this change; the first change makes version 1."""

    @property
    def task_id(self) -> str:
        """The id of the task that changed."""
        return self.task_after.id

    def describe(self) -> str:
        """One line saying what changed, for logs and people."""
        from retinue_planning.rendering import describe_change

        return describe_change(self.task_before, self.task_after, self.author)


def rebuild_board(
    events: Iterable[PlanningChangedEvent | Mapping[str, Any]],
    start: PlanningBoardState | None = None,
) -> PlanningBoardState:
    """The board that `events` describe, from an empty board (or from `start`).

    `events` may come in any order and as dumped dicts (read back from a store); events at
    or before `start`'s version are skipped, and an event recorded twice counts once. Raises
    `ValueError` naming the version when the line is broken: a version missing, two
    different events for one version, or an event whose `task_before` is not the task as
    the events before it left it.
    """
    board = start if start is not None else PlanningBoardState()
    by_version: dict[int, PlanningChangedEvent] = {}
    for item in events:
        event = (
            item
            if isinstance(item, PlanningChangedEvent)
            else PlanningChangedEvent.model_validate(item)
        )
        if event.board_version <= board.version:
            continue
        seen = by_version.setdefault(event.board_version, event)
        if seen != event:
            raise ValueError(
                f"two different planning events were recorded for board version "
                f"{event.board_version} ({seen.task_id} and {event.task_id})"
            )
    version, next_number = board.version, board.next_number
    tasks = dict(board.tasks)
    for expected, number in enumerate(sorted(by_version), start=version + 1):
        if number != expected:
            raise ValueError(
                f"the planning events jump from board version {expected - 1} to {number}: "
                f"the events for {_span(expected, number - 1)} are missing"
            )
        event = by_version[number]
        after = event.task_after
        if tasks.get(after.id) != event.task_before:
            raise ValueError(
                f"the planning event for board version {number} changes {after.id}, but its "
                f"task_before is not {after.id} as the earlier events left it"
            )
        tasks[after.id] = after
        version = number
        next_number = max(next_number, after.number + 1)
    return PlanningBoardState(version=version, next_number=next_number, tasks=tasks)


def _span(first: int, last: int) -> str:
    return f"version {first}" if first == last else f"versions {first} to {last}"
