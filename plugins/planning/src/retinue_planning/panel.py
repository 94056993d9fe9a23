"""`PlanningPanel`: the team's task board as a frontend shows it (the `retinue_panels` hook).

Folded from the board's `PlanningChangedEvent`s, the same events a resume rebuilds the board
from, so it shows a live team's board and a recorded team's alike, without asking the board.
"""

from __future__ import annotations

import threading
from typing import ClassVar

from retinue import EventMessage, Message, Panel, PanelView

from retinue_planning.events import PlanningChangedEvent
from retinue_planning.tasks import OPEN_STATUSES, PlanningTask


class PlanningPanel(Panel):
    """The board's tasks, open ones first (`doing`, `blocked`, `todo`), then the closed."""

    name: ClassVar[str] = "planning"
    title: ClassVar[str] = "Planning board"
    kinds: ClassVar[frozenset[str]] = frozenset({"PlanningChangedEvent"})

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tasks: dict[str, PlanningTask] = {}
        self._version = 0

    def on_message(self, message: Message) -> None:
        if isinstance(message, EventMessage) and isinstance(message.event, PlanningChangedEvent):
            event = message.event
            with self._lock:
                self._tasks[event.task_id] = event.task_after
                self._version = max(self._version, event.board_version)

    def view(self) -> PanelView:
        with self._lock:
            tasks = list(self._tasks.values())
            version = self._version
        order = {status: i for i, status in enumerate(OPEN_STATUSES)}
        tasks.sort(key=lambda t: (order.get(t.status, len(order)), t.number))
        rows = [
            [t.id, t.status, t.title, t.owner or "-", ", ".join(t.depends_on) or "-"] for t in tasks
        ]
        still_open = sum(1 for t in tasks if t.is_open)
        note = (
            f"{len(tasks)} tasks, {still_open} open; board version {version}"
            if tasks
            else "no tasks yet"
        )
        return PanelView(
            columns=["task", "status", "title", "owner", "after"], rows=rows, note=note
        )
