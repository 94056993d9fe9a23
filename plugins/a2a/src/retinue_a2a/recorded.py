"""What a served team's record keeps of A2A, and how a restarted server reads it back.

Two events of the context's team, written through its orchestrator (`record_now`: committed
before the call returns, so a task's answer survives even a `SIGKILL` right after it):

- `A2AContextEvent`, the team's first A2A record: the context it serves;
- `A2ATaskEvent`, each time a task's state changes: the whole A2A `Task` (status, history,
  metadata with the usage) as the protocol's JSON, and who waits for the client's answer.

A server started on the same store reads them back (`read_contexts`): which team is which
context, and each task as last recorded. A task the record leaves `submitted` or `working`
was cut short by the restart: it comes back `failed`, saying so.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from a2a.helpers import new_text_message
from a2a.types.a2a_pb2 import Role, Task, TaskState
from google.protobuf.json_format import (  # type: ignore[import-untyped]
    MessageToDict,
    ParseDict,
    ParseError,
)
from pydantic import BaseModel, ConfigDict
from retinue import EventMessage
from retinue.record import decode

from retinue_a2a.states import PAUSED, TERMINAL

if TYPE_CHECKING:
    from retinue.store import Store
    from retinue.teamfile import RunningTeam

logger = logging.getLogger("retinue_a2a.serve")

E = TypeVar("E", bound=BaseModel)

CUT_SHORT = "The server restarted while this task was in progress: send the message again."


class A2AContextEvent(BaseModel):
    """This team is A2A context `context_id` of a served team file's team `team`."""

    model_config = ConfigDict(frozen=True)

    context_id: str
    team: str


class A2ATaskEvent(BaseModel):
    """An A2A task of this team's context as it now stands: `task`, the A2A `Task` as JSON;
    `asking`, the member who waits for the client's answer (an `input-required` task)."""

    model_config = ConfigDict(frozen=True)

    task: dict[str, Any]
    asking: str = ""


#: The kinds of their records (a record's kind is its event's class name).
CONTEXT_KIND = A2AContextEvent.__name__
TASK_KIND = A2ATaskEvent.__name__


@dataclass
class RecordedContext:
    """A context the record knows: its team, and its tasks as last recorded."""

    team_id: str
    tasks: dict[str, Task] = field(default_factory=dict)
    asking: dict[str, str] = field(default_factory=dict)


def record_event(running: RunningTeam, event: BaseModel) -> None:
    """Record `event` in `running`'s team now (committed when this returns)."""
    orchestrator = running.orchestrator
    running.team.record_now(
        EventMessage(
            event=event,
            sender=orchestrator,
            recipient=orchestrator,
            team_id=orchestrator.team_id,
        )
    )


def task_event(task: Task, asking: str = "") -> A2ATaskEvent:
    return A2ATaskEvent(task=MessageToDict(task), asking=asking)


def read_contexts(store: Store, team: str) -> dict[str, RecordedContext]:
    """Every context of the team file's team `team` that `store` records, by context id."""
    found: dict[str, RecordedContext] = {}
    for info in store.list_teams():
        first = next(iter(store.read(info.team_id, kinds=[CONTEXT_KIND], limit=1)), None)
        context = _event(first.data, A2AContextEvent) if first is not None else None
        if context is None or context.team != team:
            continue
        recorded = RecordedContext(info.team_id)
        for record in store.read(info.team_id, kinds=[TASK_KIND]):
            event = _event(record.data, A2ATaskEvent)
            task = _task(event.task) if event is not None else None
            if event is None or task is None:
                logger.warning("team %s: an unreadable A2A task record skipped", info.team_id)
                continue
            recorded.tasks[task.id] = task
            recorded.asking[task.id] = event.asking
        for task in recorded.tasks.values():
            _settle(task)
        found[context.context_id] = recorded
    return found


def _event(data: str, cls: type[E]) -> E | None:
    try:
        message = decode(data)
    except ValueError:
        return None
    event = getattr(message, "event", None)
    return event if isinstance(event, cls) else None


def _task(data: dict[str, Any]) -> Task | None:
    try:
        task: Task = ParseDict(data, Task(), ignore_unknown_fields=True)
    except ParseError:
        return None
    return task if task.id and task.context_id else None


def _settle(task: Task) -> None:
    """A task the record leaves neither ended nor waiting for the client was cut short."""
    state = task.status.state
    if state in TERMINAL or state in PAUSED:
        return
    if task.status.HasField("message"):
        task.history.append(task.status.message)
    task.status.state = TaskState.TASK_STATE_FAILED
    task.status.message.CopyFrom(
        new_text_message(
            CUT_SHORT, context_id=task.context_id, task_id=task.id, role=Role.ROLE_AGENT
        )
    )
