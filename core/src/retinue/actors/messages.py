"""The runtime's messages: the `Message` base and what the orchestrator is told.

Every message carries its parent message id and the id of the task chain it belongs to: a
message sent while an actor handles another one inherits that one's chain (see DESIGN.md §2).
Its trace context travels the same way (see `retinue.actors.turns`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny

from retinue.actors.address import ActorAddress, new_id


def _now() -> datetime:
    return datetime.now(UTC)


def _is_none(value: object) -> bool:
    return value is None


#: The fields `Message.addressed` writes.
_ADDRESSING = frozenset(
    ("id", "sender", "recipient", "team_id", "parent_id", "chain_id", "trace_context")
)
#: Sets a pydantic model's own slots, which its `__setattr__` would refuse.
_set_slot = object.__setattr__
_new_object = object.__new__


class Message(BaseModel):
    """Base of everything actors send each other.

    Schemas are built on a class's first use (`defer_build`): importing the kernel does
    not pay for the dozens of message and report types a program may never send.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, defer_build=True)

    id: str = Field(default_factory=new_id)
    sender: ActorAddress | None = None
    recipient: ActorAddress | None = None
    team_id: str | None = None
    parent_id: str | None = None
    chain_id: str | None = None
    trace_context: dict[str, str] | None = Field(default=None, exclude_if=_is_none)
    """Opaque to the kernel: what a tracer propagates (W3C `traceparent`, ...). A message sent
    during a turn inherits the handled message's, or what the turn's observers gave (see
    `retinue.actors.turns`). Left out of dumps when None, so untraced records are unchanged."""
    timestamp: datetime = Field(default_factory=_now)

    def addressed(
        self,
        sender: ActorAddress | None,
        recipient: ActorAddress,
        team_id: str | None,
        *,
        parent_id: str | None = None,
        chain_id: str | None = None,
        trace_context: dict[str, str] | None = None,
        fresh: bool = False,
    ) -> Self:
        """A copy from `sender` to `recipient` in team `team_id`; this one is left as it was.

        The one place addressing is written (a send, a report, a send from outside, a
        delivery's `SentMessage`). Its own parent, chain and trace context win: a caller
        that set them meant them; the given ones fill what it lacks (the handled message's,
        for what is sent during a turn). `fresh`: it is sent as a new message, under a new
        id, and opens a chain of its own (chain id = that id) when it has none and none is
        given; a report keeps its id and stays outside any chain when neither says one.
        """
        fields = self.__dict__.copy()
        message_id = new_id() if fresh else fields["id"]
        own_chain = fields["chain_id"]
        if own_chain is not None:
            chain_id = own_chain
        elif chain_id is None and fresh:
            chain_id = message_id
        own_parent = fields["parent_id"]
        own_trace = fields["trace_context"]
        fields.update(
            id=message_id,
            sender=sender,
            recipient=recipient,
            team_id=team_id,
            parent_id=parent_id if own_parent is None else own_parent,
            chain_id=chain_id,
            trace_context=trace_context if own_trace is None else own_trace,
        )
        if self.__pydantic_extra__ is not None or self.__pydantic_private__ is not None:
            return self.model_copy(update=fields)
        # What `model_copy(update=...)` makes, a third faster: every report of every turn is
        # addressed here, and the copy must cost about what the mutation it replaced did.
        copied = _new_object(type(self))
        _set_slot(copied, "__dict__", fields)
        _set_slot(copied, "__pydantic_fields_set__", self.__pydantic_fields_set__ | _ADDRESSING)
        _set_slot(copied, "__pydantic_extra__", None)
        _set_slot(copied, "__pydantic_private__", None)
        return copied

    def log_text(self) -> str:
        """What a log line shows of this message: its kind (subclasses add their text)."""
        return type(self).__name__


class SentMessage(Message):
    """Told to the orchestrator for every delivery: the transcript subscribers see."""

    message: SerializeAsAny[Message]


class EventMessage(Message):
    """Wraps any serializable event an actor publishes (tool calls, usage, announcements)."""

    event: SerializeAsAny[Any]


class HandledMessage(Message):
    """The message `message_id` was handled: its turn ended, or it was consumed without one
    (a purged cancel, mail read mid-run).

    Reported after everything its turn did, so the record reads: a delivered message with a
    `HandledMessage` was handled once and for all; one without was not, and a resume
    delivers it again.
    """

    message_id: str


class ReceivedMessage(Message):
    """The turn of `message_id` began: it left the mailbox, so since its `SentMessage` it
    queued. Reported by the members of a team whose `TeamConfig.turn_reports` is on, with
    the turn's first report (its timestamp is the turn's start)."""

    message_id: str


class ProcessedMessage(Message):
    """The turn of `message_id` ended, failed or not: since its `ReceivedMessage`, it was
    handled. Telemetry beside `HandledMessage`, which a resume reads (a message taken from a
    mailbox without a turn gets only that one)."""

    message_id: str


class ErrorMessage(Message):
    """A handler raised; the actor logged it and went on with the next message.

    The record of a failure, not the news of it: the agent waiting for the failed turn and the
    person hear of it through a failure notice. `traceback` is the formatted traceback (the log
    keeps it at DEBUG only), bounded so a huge exception text cannot bloat the record.
    """

    exception_type: str
    exception_value: str
    current_message_id: str | None = None
    traceback: str | None = None


class CancelMessage(Message):
    """Ask an agent to stop the run in flight, and with `cascade`, the work it set going.

    `run_id` is stamped when the cancel is sent, with the run then in flight on the target;
    only that run may be interrupted by it (`None`: the target was idle). A plain
    `CancelMessage()` stops that one run. With `cascade=True` (what a person's `/stop`
    means) the target also stops every run of the same task chain downstream of it, the
    members it delegated to and those they hired, and their queued mail of that chain is
    dropped. `stop_chain` is set on the cancels such a cascade sends to those members:
    only work of that chain is stopped (a run of another chain goes on).
    """

    run_id: str | None = None
    cascade: bool = False
    stop_chain: str | None = None


class StateChangedMessage(Message):
    """A state checkpoint: the actor's whole state after a change."""

    state: SerializeAsAny[BaseModel]


class StopRecursively(Message):
    """Ask an actor to stop once the actors it created have stopped, deepest first.

    Handled after the mail already queued, like a stop. Each actor stopped reports its own
    `StopMessage`; a member's children are the members whose parent it is (`TeamMember`).
    """


class StartMessage(Message):
    """An actor started; `config` is what it was built from, `parent` who created it.

    `member` is False for an actor that reports to the team without being a member of it
    (the planning board): the record keeps it and a resume restarts it, the roster never
    lists it.
    """

    config: SerializeAsAny[BaseModel]
    actor_class: str
    parent: ActorAddress | None = None
    member: bool = True


class StopMessage(Message):
    """An actor stopped and left its team; `shutdown`: it did not leave, this process ended
    it: its whole system shut down (not fired, not failed), which a console need not
    announce, or a resume could not bring it back here (its failure is told on its own).

    A member stopped by a shutdown stays in the team: a resume brings it back (a fired
    member stays gone), so a resume that fails leaves the record as it found it.
    """

    shutdown: bool = False


class StartFailedMessage(Message):
    """To the actor that created `member`: it could not start and has left the team.

    Runtime traffic between a parent and its child (the orchestrator gets the `ErrorMessage`);
    the parent decides who else must hear of it (an agent turns it into a failure notice).
    """

    member: ActorAddress
    exception_type: str
    exception_value: str


class ProfilesRegisteredMessage(Message):
    """Recorded by the orchestrator: these role blueprints became hireable (credentials
    redacted). A later card for the same role replaces the earlier, as in the directory."""

    cards: list[SerializeAsAny[BaseModel]]


class DeadLetterEvent(BaseModel):
    """A message could not be delivered because its recipient was not running."""

    model_config = ConfigDict(defer_build=True)

    sender: str | None
    recipient: str
    message_type: str
    message_id: str


@dataclass(frozen=True, slots=True)
class ProxyCall:
    """A method call carried through an actor's mailbox by `proxy_ask` / `proxy_tell`."""

    method: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    reply: bool = True


@dataclass(frozen=True, slots=True)
class ReportBatch:
    """Several reports for the orchestrator in one mailbox slot (one wake-up, not many).

    Runtime-only: the orchestrator handles each report in order as if it came alone.
    """

    reports: tuple[Message, ...]
