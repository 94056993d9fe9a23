"""`Recorder`: the orchestrator's sink that appends what it sees to a `Store`.

Each message the orchestrator observes becomes one `retinue.store.Record` (its columns are
described in `retinue.store.records`; its `data` is `record_codec.encode(message)`):

- `SentMessage`: kind `SentMessage`; actor_id the sender's; sender and recipient are the
  conversation's own (who wrote to whom).
- `EventMessage`: kind = its event's class name (`ModelMessageEvent`, `LlmUsageEvent`, ...);
  actor_id the reporter's; usage columns filled for `LlmUsageEvent`.
- `StateChangedMessage`: actor_id = whose state (the store keeps each actor's latest).
- `StartMessage` / `StopMessage`: actor_id = who started / stopped.
- anything else: kind = its class name, actor_id the reporter's.

The orchestrator's own start and stop are recorded too (actor id = team id). Group commit:
records collect while the orchestrator handles one mailbox item (a report or a
`ReportBatch`: one actor turn's burst) and `flush` appends them as one batch, before the
item counts as done and before subscribers hear of them.
"""

from __future__ import annotations

import logging
from typing import Any

from retinue.actors.messages import EventMessage, Message
from retinue.actors.record_codec import encode, registry
from retinue.store import Record, Store, StoreError

logger = logging.getLogger(__name__)

#: Records held while the store keeps failing; past this the oldest are dropped (and logged).
MAX_PENDING = 10_000


def kind_of(message: Message) -> str:
    """A record's kind: the message's class name, an event's own class name."""
    if isinstance(message, EventMessage):
        return type(message.event).__name__
    return type(message).__name__


def _usage(message: Message) -> dict[str, Any]:
    if not isinstance(message, EventMessage):
        return {}
    event = message.event
    if getattr(event, "event_type", None) != "llm_usage":
        return {}
    return {
        "requests": int(getattr(event, "requests", 0) or 0),
        "input_tokens": int(getattr(event, "input_tokens", 0) or 0),
        "output_tokens": int(getattr(event, "output_tokens", 0) or 0),
        "cost_usd": float(getattr(event, "cost_usd", 0.0) or 0.0),
    }


def to_record(message: Message) -> Record:
    """The record of one observed message (before the store places it)."""
    sender = message.sender
    recipient = message.recipient
    return Record(
        kind=kind_of(message),
        type=registry.name_of(type(message)),
        data=encode(message),
        message_id=message.id,
        actor_id=sender.agent_id if sender is not None else None,
        sender=sender.name if sender is not None else None,
        recipient=recipient.name if recipient is not None else None,
        parent_id=message.parent_id,
        chain_id=message.chain_id,
        timestamp=message.timestamp.timestamp(),
        **_usage(message),
    )


class Recorder:
    """A `MessageSink` appending one team's messages to a store, a batch per `flush`."""

    def __init__(self, store: Store, team_id: str, metadata: dict[str, Any] | None = None) -> None:
        self.store = store
        self.team_id = team_id
        if store.team(team_id) is None:  # a resumed team goes on in its own stream
            store.create_team(team_id, metadata)
        self._pending: list[Record] = []
        self._since_prune = 0
        self._failing = False

    def record(self, message: Message) -> None:
        """Hold the message's record for the next `flush`; a message that cannot be
        encoded is logged and left out (the rest of the record goes on)."""
        try:
            self._pending.append(to_record(message))
        except Exception:
            logger.exception(
                "the record of team %s left out a %s that could not be encoded",
                self.team_id,
                type(message).__name__,
            )

    def flush(self) -> None:
        """Append what is held as one batch; on a store failure keep it for the next flush."""
        pending = self._pending
        if not pending:
            return
        try:
            self.store.append(self.team_id, pending)
        except StoreError as exc:
            self._keep_after_failure(exc)
            return
        if self._failing:
            logger.warning("the record of team %s is written again", self.team_id)
            self._failing = False
        self._pending = []
        self._maybe_prune(len(pending))

    def _keep_after_failure(self, exc: StoreError) -> None:
        if not self._failing:
            logger.error("the record of team %s could not be written: %s", self.team_id, exc)
            self._failing = True
        excess = len(self._pending) - MAX_PENDING
        if excess > 0:
            del self._pending[:excess]
            logger.error(
                "the record of team %s lost %d records while its store failed",
                self.team_id,
                excess,
            )

    def _maybe_prune(self, appended: int) -> None:
        every = self.store.retention.every
        if every <= 0:
            return
        self._since_prune += appended
        if self._since_prune < every:
            return
        self._since_prune = 0
        try:
            self.store.prune(self.team_id)
        except StoreError:
            logger.exception("pruning the record of team %s failed", self.team_id)

    @property
    def pending(self) -> int:
        """Records held, not yet appended."""
        return len(self._pending)
