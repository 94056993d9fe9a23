"""`EventSubscriber`, `MessageLog` and `MessageSink`: how the outside world observes a team."""

from __future__ import annotations

import threading
from typing import Protocol, runtime_checkable

from retinue.actors.messages import Message


class EventSubscriber:
    """Receives every message the orchestrator records, in the orchestrator's thread.

    Keep `on_message` quick: it runs between the orchestrator's other messages.
    """

    def on_message(self, message: Message) -> None:
        """One recorded message (a `SentMessage`, an `EventMessage`, an error, ...)."""

    def on_stop(self) -> None:
        """The orchestrator is stopping."""


class MessageLog(EventSubscriber):
    """Keeps every message the orchestrator records, in order.

    The orchestrator's thread appends while another thread reads, so both take a lock.
    """

    def __init__(self) -> None:
        self._messages: list[Message] = []
        self._lock = threading.Lock()

    def on_message(self, message: Message) -> None:
        with self._lock:
            self._messages.append(message)

    @property
    def messages(self) -> list[Message]:
        """A copy of what was recorded so far, oldest first."""
        with self._lock:
            return list(self._messages)


@runtime_checkable
class MessageSink(Protocol):
    """Where the full record goes (the event store); the orchestrator keeps only a window.

    `record` is called for each message in order, `flush` at the end of a group: after an
    item of the orchestrator's mailbox (one report, or a `ReportBatch`: one actor turn's
    burst) when nothing more is queued behind it, else after at most `MAX_GROUP` messages.
    A sink commits there, before the item counts as done and before subscribers hear of
    what it took. A sink with a `close()` method has it called once, after the last flush,
    when the team stops.
    """

    def record(self, message: Message) -> None:
        """Take one message (held until `flush`, or persisted at once)."""
        ...

    def flush(self) -> None:
        """Make everything taken so far durable."""
        ...
