"""What a team's record says a resume must bring back: `read_team_record` → `TeamRecord`.

One pass over the team's stream, folded into: the orchestrator as it started, the role
profiles registered, every actor started and whether it was still in the team when the
record ends, what each actor reported (its events, oldest first), its latest checkpoint (the
store's snapshot), and the messages delivered but never handled.

The rules, each from the record alone:

- **Alive**: an actor with a `StartMessage` and no later `StopMessage`, or whose last stop
  says the system's shutdown caused it (`shutdown`): its process ended, it did not leave.
  A fired member (a stop without `shutdown`) stays gone. The orchestrator is the team.
- **Handled**: a delivered message (a `SentMessage`) with a `HandledMessage` for its id. An
  actor reports that after everything its turn did (checkpoint, sends, errors), and the
  orchestrator commits what it observed in that order, so a record cut short anywhere never
  says handled for a turn whose effects it lost.
- **Owed**: delivered to an alive actor and not handled. Delivered again on resume, with its
  own id and before anything new, so when it is handled then the record says so once.

A fork's record reads through its origin (`retinue.resume.lineage`): the source's records up
to the fork's position, then its own; the source's orchestrator stands for the fork's until
the fork's own has started. `at` reads a record as it was at a position (to fork it there):
each actor's state is then its latest checkpoint at or before it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from retinue.actors.address import ActorAddress
from retinue.actors.messages import (
    EventMessage,
    HandledMessage,
    Message,
    ProfilesRegisteredMessage,
    SentMessage,
    StartMessage,
    StateChangedMessage,
    StopMessage,
)
from retinue.resume.lineage import lineage_records
from retinue.store import Record, Store
from retinue.team.card import AgentCard
from retinue.team.record_codec import RecordDecodeError, decode

logger = logging.getLogger(__name__)


class ResumeError(Exception):
    """A team cannot be resumed from this record; the message names the team and why."""


@dataclass(slots=True)
class RecordedActor:
    """An actor as the record knows it: how it started, what it reported, where it ended."""

    address: ActorAddress
    start: StartMessage
    alive: bool = True
    events: list[EventMessage] = field(default_factory=list)
    state: Any = None
    """Its latest checkpointed state (decoded), or None if it never checkpointed."""

    @property
    def is_member(self) -> bool:
        """On the roster (an agent, a person's proxy); False for an attached actor."""
        return self.start.member


@dataclass(slots=True)
class TeamRecord:
    """Everything a resume of `team_id` needs, read from its record."""

    team_id: str
    orchestrator: RecordedActor
    profiles: dict[str, AgentCard] = field(default_factory=dict)
    actors: dict[str, RecordedActor] = field(default_factory=dict)
    """Every actor started in the team but the orchestrator, by id, in order of first start."""
    owed: list[Message] = field(default_factory=list)
    """Delivered to an alive actor and not handled, in the order they were delivered."""
    person_wrote_to: ActorAddress | None = None
    """The member a person's proxy last sent a message to."""
    last_position: int = 0
    events: list[Message] = field(default_factory=list)
    """The team's recorded events (`EventMessage`s), in order: the budget's tally is folded
    from them."""
    history: list[Message] = field(default_factory=list)
    """Its deliveries (`SentMessage`s) and events, in record order: the task chains (who
    delegated to whom, what was stopped or held) are replayed from them."""

    @property
    def alive(self) -> list[RecordedActor]:
        """The actors a resume restarts, in the order they first started."""
        return [actor for actor in self.actors.values() if actor.alive]


def read_team_record(
    store: Store, team_id: str, *, load_classes: bool = False, at: int | None = None
) -> TeamRecord:
    """The resume plan of `team_id` in `store`; `ResumeError` when there is none to resume.

    `load_classes`: import the classes the record names (its actors', its cards'), as a resume
    that starts them does; otherwise nothing is imported and cards keep class paths. `at`:
    the record as it was at that position (`ResumeError` when the team has none such).
    """
    info = store.team(team_id)
    if info is None:
        known = ", ".join(info.team_id for info in store.list_teams()) or "none"
        raise ResumeError(f"{store.describe()} has no team {team_id} (teams: {known})")
    if at is not None and not 1 <= at <= info.last_position:
        raise ResumeError(
            f"team {team_id} has no position {at}: its record runs from 1 to {info.last_position}"
        )
    folder = _Folder(team_id)
    history: list[Message] = []
    for holder, record in lineage_records(store, team_id, at):
        message = _decoded(record, load_classes)
        if message is not None:
            folder.add(message, own=holder == team_id)
            if isinstance(message, EventMessage | SentMessage):
                history.append(message)
        if holder == team_id:
            folder.last_position = record.position
    plan = folder.plan(store.describe())
    plan.history = history
    plan.events = [message for message in history if isinstance(message, EventMessage)]
    if at is None:  # the latest checkpoints: the store keeps them even when older ones go
        for actor_id, snapshot in store.snapshots(team_id).items():
            actor = plan.actors.get(actor_id)
            message = _decoded(snapshot, load_classes)
            if actor is not None and message is not None:
                actor.state = getattr(message, "state", None)
    return plan


def _decoded(record: Record, load_classes: bool) -> Message | None:
    try:
        return decode(record.data, load_classes=load_classes)
    except RecordDecodeError as exc:
        logger.warning(
            "record %d (%s) of team %s could not be read and was skipped: %s",
            record.position,
            record.kind,
            record.team_id,
            exc,
        )
        return None


def _reported(actor: RecordedActor, message: Message) -> None:
    """What an actor's checkpoint, stop or event says of it."""
    if isinstance(message, StateChangedMessage):
        actor.state = message.state
    elif isinstance(message, StopMessage):
        actor.alive = message.shutdown
    elif isinstance(message, EventMessage):
        actor.events.append(message)


class _Folder:
    """Folds the stream, record by record, into a `TeamRecord`."""

    def __init__(self, team_id: str) -> None:
        self.team_id = team_id
        self.orchestrator: RecordedActor | None = None
        self.profiles: dict[str, AgentCard] = {}
        self.actors: dict[str, RecordedActor] = {}
        self.delivered: dict[str, Message] = {}
        self.handled: set[str] = set()
        self.person_wrote_to: ActorAddress | None = None
        self.last_position = 0
        #: The latest orchestrator start of the team's origin (a fork's, before its own).
        self.origin: RecordedActor | None = None

    def add(self, message: Message, own: bool = True) -> None:
        sender = message.sender
        actor_id = sender.agent_id if sender is not None else None
        actor = self.actors.get(actor_id) if actor_id is not None else None
        if isinstance(message, StartMessage) and sender is not None:
            self._started(sender, message, own)
        elif isinstance(message, StateChangedMessage | StopMessage | EventMessage):
            if actor is not None:
                _reported(actor, message)
        elif isinstance(message, SentMessage):
            delivered = message.message
            self.delivered[delivered.id] = delivered
            if delivered.sender is not None and delivered.sender.is_user_proxy:
                self.person_wrote_to = delivered.recipient
        elif isinstance(message, HandledMessage):
            self.handled.add(message.message_id)
        elif isinstance(message, ProfilesRegisteredMessage):
            for card in message.cards:
                if isinstance(card, AgentCard):
                    self.profiles[card.role] = card

    def _started(self, sender: ActorAddress, start: StartMessage, own: bool) -> None:
        if not own and sender.agent_id == sender.team_id:  # the origin's orchestrator
            self.origin = RecordedActor(address=sender, start=start)
            return
        if sender.agent_id == self.team_id:
            if self.orchestrator is None:
                self.orchestrator = RecordedActor(address=sender, start=start)
            return
        actor = self.actors.get(sender.agent_id)
        if actor is None:
            self.actors[sender.agent_id] = RecordedActor(address=sender, start=start)
        else:  # started again by an earlier resume: the same actor goes on, as last started
            actor.alive = True
            actor.address, actor.start = sender, start

    def plan(self, where: str) -> TeamRecord:
        if self.orchestrator is None and self.origin is not None:  # a fork, not started yet
            origin = self.origin.address
            address = origin.model_copy(update={"agent_id": self.team_id, "team_id": self.team_id})
            self.orchestrator = RecordedActor(address=address, start=self.origin.start)
        if self.orchestrator is None:
            raise ResumeError(
                f"the record of team {self.team_id} in {where} has no start of its "
                "orchestrator: it cannot be resumed"
            )
        return TeamRecord(
            team_id=self.team_id,
            orchestrator=self.orchestrator,
            profiles=self.profiles,
            actors=self.actors,
            owed=list(self._owed()),
            person_wrote_to=self.person_wrote_to,
            last_position=self.last_position,
        )

    def _owed(self) -> Iterator[Message]:
        for message_id, message in self.delivered.items():
            recipient = message.recipient
            if message_id in self.handled or recipient is None:
                continue
            actor = self.actors.get(recipient.agent_id)
            if actor is not None and actor.alive:
                yield message
