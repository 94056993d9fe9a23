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
records collect while the orchestrator handles its mailbox items (a report, or a
`ReportBatch`: one actor turn's burst) and `flush` appends them as one batch once no more
items are queued (or `MAX_GROUP` messages are held), before the last item counts as done
and before subscribers hear of them.

The recorder holds the team's lease (`Store.take_lease`) from its start to `close`. When
the store fails (a full disk), what it could not take is held, in order, and appended at a
later flush, no sooner than a backoff that doubles from `RETRY_FIRST` to `RETRY_MAX`
seconds; `wake` (the orchestrator's) asks for that flush when the team is quiet. The failure
and the recovery are logged once each; the retries that fail too at the 1st, 2nd, 4th, 8th,
... (a few lines a night, never silent), and whenever their cause changes. Past
`MAX_PENDING` records or `MAX_PENDING_BYTES` the record stops: the held records stay a
consistent beginning, nothing after them is kept, and `close` says how many records were
lost and which positions they would have had.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from retinue.actors.messages import EventMessage, Message
from retinue.store import Record, Store, StoreError
from retinue.team.record_codec import encode, registry

logger = logging.getLogger(__name__)

#: Records held while the store keeps failing; past this (or `MAX_PENDING_BYTES` of their
#: data) the record stops.
MAX_PENDING = 10_000
MAX_PENDING_BYTES = 64 * 1024 * 1024
#: Seconds from a failed append to the first retry; each failure doubles it, up to the last
#: (0: retry at every flush, and never on a timer).
RETRY_FIRST = 0.5
RETRY_MAX = 30.0


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

    def __init__(
        self,
        store: Store,
        team_id: str,
        metadata: dict[str, Any] | None = None,
        *,
        wake: Callable[[], None] | None = None,
    ) -> None:
        self.store = store
        self.team_id = team_id
        store.take_lease(team_id)  # LeaseHeldError: another process runs the team
        try:
            info = store.team(team_id)
            if info is None:  # a resumed team goes on in its own stream
                info = store.create_team(team_id, metadata)
        except BaseException:
            store.release_lease(team_id)
            raise
        self._wake = wake
        self._last_position = info.last_position
        self._pending: list[Record] = []
        self._pending_bytes = 0
        self._since_prune = 0
        self._failure: StoreError | None = None  # the first of the current run of failures
        self._failed_since = 0.0  # when that run began (monotonic)
        self._retries = 0  # retries failed in it
        self._last_cause = ""  # the cause last logged
        self._delay = 0.0  # of the next retry; set at the first failure
        self._retry_at = 0.0
        self._timer: threading.Timer | None = None
        self._lost: Counter[str] = Counter()  # kinds of the records past the bound
        self._stopped_by: StoreError | None = None  # the failure the record stopped in
        self._closed = False

    def record(self, message: Message) -> None:
        """Hold the message's record for the next `flush`; a message that cannot be
        encoded is logged and left out (the rest of the record goes on)."""
        if self._lost:  # the record stopped: nothing more is kept
            self._lost[kind_of(message)] += 1
            return
        try:
            record = to_record(message)
        except Exception:
            logger.exception(
                "the record of team %s left out a %s that could not be encoded",
                self.team_id,
                type(message).__name__,
            )
            return
        size = self._pending_bytes + len(record.data)
        if len(self._pending) >= MAX_PENDING or size > MAX_PENDING_BYTES:
            self._lost[record.kind] += 1
            self._stopped_by = self._failure
            logger.error(
                "the record of team %s stops at position %d: %d records its store could not "
                "take are held, the most kept; what the team does next is not recorded",
                self.team_id,
                self._last_position + len(self._pending),
                len(self._pending),
            )
            return
        self._pending.append(record)
        self._pending_bytes = size

    def flush(self) -> None:
        """Append what is held as one batch; after a store failure, not before the backoff."""
        if self._pending and (self._failure is None or time.monotonic() >= self._retry_at):
            self._append()

    def _append(self) -> bool:
        pending = self._pending
        try:
            self._last_position = self.store.append(self.team_id, pending)
        except StoreError as exc:
            self._failed(exc)
            return False
        if self._failure is not None:
            first = self._last_position - len(pending) + 1
            logger.warning(
                "the record of team %s is written again: %d held records appended "
                "(positions %d-%d)",
                self.team_id,
                len(pending),
                first,
                self._last_position,
            )
            self._failure = None
        self._pending, self._pending_bytes = [], 0
        self._maybe_prune(len(pending))
        return True

    def _failed(self, exc: StoreError) -> None:
        if self._closed:  # the last try: `close` says what is lost
            self._failure = self._failure or exc
            return
        if self._failure is None:
            self._failure = exc
            self._delay = RETRY_FIRST
            self._failed_since = time.monotonic()
            self._retries = 0
            self._last_cause = str(exc)
            logger.error(
                "the record of team %s could not be written: %s; %d records are held and "
                "tried again",
                self.team_id,
                exc,
                len(self._pending),
            )
        else:
            self._delay = min(self._delay * 2, RETRY_MAX)
            self._retry_failed(exc)
        self._retry_at = time.monotonic() + self._delay
        if self._wake is not None and self._delay > 0:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = threading.Timer(self._delay, self._wake)
            self._timer.daemon = True
            self._timer.start()

    def _retry_failed(self, exc: StoreError) -> None:
        """Log a failed retry: the 1st, 2nd, 4th, 8th, ... and any whose cause is new."""
        self._retries += 1
        cause = str(exc)
        if self._retries & (self._retries - 1) and cause == self._last_cause:
            return
        self._last_cause = cause
        logger.warning(
            "the record of team %s still cannot be written (%d retries over %.0fs): %s; "
            "%d records held (at most %d), next try in %gs",
            self.team_id,
            self._retries,
            time.monotonic() - self._failed_since,
            cause,
            len(self._pending),
            MAX_PENDING,
            self._delay,
        )

    def close(self) -> None:
        """After the last flush (the team stopped): one more try if the store was failing,
        then say what is lost, if anything, and let the team's lease go."""
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
        try:
            if self._pending and not self._append():
                self._lost.update(record.kind for record in self._pending)
            lost = sum(self._lost.values())
            if lost:
                first = self._last_position + 1
                kinds = ", ".join(f"{n} {kind}" for kind, n in self._lost.most_common())
                if self._failure is not None:  # the store still fails
                    why = str(self._failure)
                else:  # it took the held records again; what came past the bound is gone
                    why = (
                        "past the bound of held records while the store failed "
                        f"({self._stopped_by})"
                    )
                logger.error(
                    "the record of team %s lost %d records, positions %d-%d (%s): %s",
                    self.team_id,
                    lost,
                    first,
                    first + lost - 1,
                    kinds,
                    why,
                )
        finally:
            self.store.release_lease(self.team_id)

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
