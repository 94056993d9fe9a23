"""Finding tasks: words, a status (or `open` / `closed`), an owner (or `unassigned`)."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict
from retinue.kit import clean_line

from retinue_planning.errors import PlanningError
from retinue_planning.rendering import by_status, listing_line
from retinue_planning.state import PlanningBoardState
from retinue_planning.tasks import CLOSED_STATUSES, OPEN_STATUSES, STATUSES, PlanningTask
from retinue_planning.text import neutralize, shorten

UNASSIGNED = ("-", "unassigned", "nobody")
"""Owner filters that find the tasks nobody owns."""


class PlanningSearch(BaseModel):
    """The tasks a search found (the first `limit` of `total`), and what was asked."""

    model_config = ConfigDict(frozen=True)

    asked: str
    tasks: tuple[PlanningTask, ...]
    total: int

    def __str__(self) -> str:
        if not self.total:
            return neutralize(f"No task {self.asked}.")
        lines = [f"{self.total} task{'s' if self.total != 1 else ''} {self.asked}:"]
        lines.extend(listing_line(t) for t in self.tasks)
        if self.total > len(self.tasks):
            lines.append(
                f"… and {self.total - len(self.tasks)} more; narrow the search to see them"
            )
        return neutralize("\n".join(lines))


def statuses_for(status: str | None) -> Sequence[str]:
    """The statuses a status filter stands for; `PlanningError` for an unknown one."""
    if status is None or not status.strip():
        return STATUSES
    wanted = status.strip().lower()
    if wanted == "open":
        return OPEN_STATUSES
    if wanted == "closed":
        return CLOSED_STATUSES
    if wanted in STATUSES:
        return (wanted,)
    shown = shorten(clean_line(status), 40)
    raise PlanningError(
        f"{shown!r} is not a status; use one of {', '.join(STATUSES)}, or open or closed"
    )


def owner_filter(owner: str | None) -> str | None:
    """The owner a filter stands for: None for any, "" for nobody, else `@Name`."""
    if owner is None:
        return None
    name = clean_line(owner)
    if not name:
        return None
    if name.lower() in UNASSIGNED:
        return ""
    return name if name.startswith("@") else f"@{name}"


def search_tasks(
    board: PlanningBoardState,
    query: str = "",
    status: str | None = None,
    owner: str | None = None,
    limit: int = 50,
) -> PlanningSearch:
    """The tasks matching every word of `query` (in id, title, description, owner, notes)."""
    statuses = statuses_for(status)
    who = owner_filter(owner)
    words = clean_line(query).casefold().split()
    found = [
        task
        for task in board.tasks.values()
        if task.status in statuses
        and (who is None or task.owner == who)
        and all(word in _haystack(task) for word in words)
    ]
    return PlanningSearch(
        asked=_asked(words, status, who), tasks=tuple(by_status(found)[:limit]), total=len(found)
    )


def _haystack(task: PlanningTask) -> str:
    notes = " ".join(note.text for note in task.notes)
    return f"{task.id} {task.title} {task.description} {task.owner} {notes}".casefold()


def _asked(words: list[str], status: str | None, owner: str | None) -> str:
    parts: list[str] = []
    if words:
        parts.append(f"with {shorten(' '.join(words), 60)!r}")
    if status is not None and status.strip():
        parts.append(f"with status {status.strip().lower()}")
    if owner == "":
        parts.append("owned by nobody")
    elif owner is not None:
        parts.append(f"owned by {shorten(owner, 60)}")
    return " and ".join(parts) if parts else "on the board"
