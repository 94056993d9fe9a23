"""The board's data: tasks, their notes, and what a caller asks to create or change.

Plain, frozen pydantic models: a task is never changed in place (a change makes a new one),
so a published board can be read by any thread, shared by every reader and put into events
and checkpoints as it is; and each round-trips through JSON to an equal value, which is what
rebuilding a board from its recorded events relies on.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from retinue_planning.errors import PlanningError

TaskStatus = Literal["todo", "doing", "blocked", "done", "dropped"]
"""Where a task stands: `todo`, `doing` and `blocked` are open; `done` and `dropped` closed."""

STATUSES: tuple[TaskStatus, ...] = get_args(TaskStatus)
OPEN_STATUSES: tuple[TaskStatus, ...] = ("doing", "blocked", "todo")
"""Open statuses, in the order a summary lists them (work in hand first)."""
CLOSED_STATUSES: tuple[TaskStatus, ...] = ("done", "dropped")

_ID = re.compile(r"[Tt]?([1-9][0-9]{0,8})")


def now() -> datetime:
    """The time stamped on a change (UTC)."""
    return datetime.now(UTC)


def task_id(number: int) -> str:
    """The id of the task numbered `number`: `T1`, `T2`, ..."""
    return f"T{number}"


def task_number(task: str) -> int:
    """The number in a task id (`T12` is 12); `PlanningError` for anything else."""
    found = _ID.fullmatch(task.strip())
    if found is None:
        shown = task if len(task) <= 40 else task[:39] + "…"
        raise PlanningError(f"{shown!r} is not a task id; task ids look like T1, T2, T12")
    return int(found[1])


def normal_id(task: str) -> str:
    """A task id as the board writes it: `t3`, ` T3 ` and `3` all mean `T3`."""
    return task_id(task_number(task))


def is_open(status: str) -> bool:
    """Whether a task with this status still needs work."""
    return status in OPEN_STATUSES


class PlanningNote(BaseModel):
    """A note on a task: who wrote it, when, and what."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    author: str
    time: datetime
    text: str


class PlanningTask(BaseModel):
    """One task on the board, as of one version; a change makes a new object."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    """Short and stable: `T1`, `T2`, ... in the order tasks were created; never reused."""
    title: str
    description: str = ""
    status: TaskStatus = "todo"
    owner: str = ""
    """The member who owns the task (`@Ada`), or empty when nobody does."""
    depends_on: tuple[str, ...] = ()
    """Ids of the tasks that must be done before this one can be."""
    notes: tuple[PlanningNote, ...] = ()
    """The latest notes, oldest first (at most the board's cap; see `earlier_notes`)."""
    earlier_notes: int = 0
    """How many older notes were let go to keep the task small (the events keep them)."""
    created_at: datetime
    created_by: str
    updated_at: datetime
    updated_by: str

    @property
    def number(self) -> int:
        """The number in the id (`T12` is 12), for sorting."""
        return int(self.id[1:])

    @property
    def is_open(self) -> bool:
        """Whether the task still needs work (`todo`, `doing` or `blocked`)."""
        return is_open(self.status)

    @property
    def note_count(self) -> int:
        """Every note ever written on the task, the ones let go included."""
        return self.earlier_notes + len(self.notes)

    def __str__(self) -> str:
        from retinue_planning.rendering import render_task

        return render_task(self)


class NewTask(BaseModel):
    """A task to create: only the title is required.

    `depends_on` names existing tasks (`T3`) or, by `#n`, the n-th task of the same call,
    so a whole plan with its order can be written in one call.
    """

    model_config = ConfigDict(extra="forbid")

    title: str = Field(description="What is to be done, in one short line.")
    description: str = Field(default="", description="Details: the goal, the limits, links.")
    owner: str = Field(
        default="", description="The member who will do it, such as @Ada; empty for nobody."
    )
    depends_on: list[str] = Field(
        default_factory=list,
        description="Tasks that must be done first: ids such as T3, or #1, #2 for tasks "
        "created earlier in this same call.",
    )
    status: TaskStatus = Field(default="todo", description="Usually todo; doing if started.")


class TaskChanges(BaseModel):
    """What to change on a task; a field left as None stays as it is.

    An empty `owner` takes the task away from its owner; an empty `depends_on` list
    removes every dependency. `note` adds a note in the same change (say why).
    """

    model_config = ConfigDict(extra="forbid")

    status: TaskStatus | None = None
    owner: str | None = None
    title: str | None = None
    description: str | None = None
    depends_on: list[str] | None = None
    note: str | None = None

    def is_empty(self) -> bool:
        """Whether nothing at all was asked for."""
        return all(getattr(self, name) is None for name in type(self).model_fields)
