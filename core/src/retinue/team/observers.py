"""Who hears what a team records: its sinks at once, its subscribers after each commit.

The `Orchestrator` holds one and hands it every message it observes. Sinks (the recorder,
the team's lease) take each message as it comes and are flushed in groups; subscribers hear
of a message only once the group holding it is durable, so nothing is announced that a crash
could take back. One sink or subscriber failing never keeps a message from the others.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from retinue.actors.errors import log_failure
from retinue.team.team_log import TeamLog

if TYPE_CHECKING:
    from retinue.actors.mailbox import Mailbox
    from retinue.actors.messages import Message
    from retinue.team.subscriber import EventSubscriber, MessageSink

#: The orchestrator's log lines keep the name they always had.
logger = logging.getLogger("retinue.team.orchestrator")

#: Most messages one group commit holds while more reports keep arriving.
MAX_GROUP = 500


class TeamObservers:
    """A team's sinks and subscribers, the recent window, and what awaits the next commit."""

    def __init__(self, window: int) -> None:
        #: The recent window of messages and each actor's latest checkpoint.
        self.log = TeamLog(window)
        self._subscribers: list[EventSubscriber] = []
        self._sinks: list[MessageSink] = []
        self._unannounced: list[Message] = []  # observed, for subscribers after the commit

    @property
    def sinks(self) -> tuple[MessageSink, ...]:
        """The durable record keepers, in the order they were added."""
        return tuple(self._sinks)

    def add_sink(self, sink: MessageSink) -> None:
        self._sinks.append(sink)

    def subscribe(self, subscriber: EventSubscriber, replay: bool) -> None:
        """Add a subscriber; with `replay`, first hand it the window, in order."""
        if replay:
            for message in list(self.log.window):
                self._tell(subscriber, message)
        self._subscribers.append(subscriber)

    def unsubscribe(self, subscriber: EventSubscriber) -> None:
        if subscriber in self._subscribers:
            self._subscribers.remove(subscriber)

    def observe(self, message: Message) -> None:
        """Window it, hand it to the sinks; subscribers hear of it after the commit."""
        self.log.add(message)
        for sink in self._sinks:
            try:
                sink.record(message)
            except Exception as exc:  # noqa: BLE001 - a sink may raise anything: the others record
                log_failure(logger, f"sink {sink!r} failed to record a message", exc)
        self._unannounced.append(message)

    def after_item(self, mailbox: Mailbox) -> None:
        """Group commit: once nothing more is queued (or a group is full), flush the sinks,
        then tell the subscribers. A busy team's reports commit together, an idle one's at
        once: a team that is idle has its whole record committed and announced."""
        pending = len(self._unannounced)
        if pending and (pending >= MAX_GROUP or not mailbox.qsize()):
            self.commit()

    def flush(self) -> None:
        """Have every sink make what it took durable now."""
        for sink in self._sinks:
            try:
                sink.flush()
            except Exception as exc:  # noqa: BLE001 - a sink may raise anything: the others flush
                log_failure(logger, f"sink {sink!r} failed to flush", exc)

    def commit(self) -> None:
        """Flush the sinks, then announce to the subscribers what they now hold."""
        if not self._unannounced:
            return
        self.flush()
        messages, self._unannounced = self._unannounced, []
        for message in messages:
            for subscriber in list(self._subscribers):
                self._tell(subscriber, message)

    def close(self) -> None:
        """The team stopped: close each sink that holds a resource, stop each subscriber."""
        for sink in self._sinks:  # a sink may hold a resource: the recorder, the team's lease
            close = getattr(sink, "close", None)
            try:
                if callable(close):
                    close()
            except Exception as exc:  # noqa: BLE001 - a sink may raise anything: the others close
                log_failure(logger, f"sink {sink!r} failed to close", exc)
        for subscriber in self._subscribers:
            try:
                subscriber.on_stop()
            except Exception as exc:  # noqa: BLE001 - a subscriber may raise anything: others stop
                log_failure(logger, f"subscriber {subscriber!r} failed to stop", exc)

    def _tell(self, subscriber: EventSubscriber, message: Message) -> None:
        try:
            subscriber.on_message(message)
        except Exception as exc:  # noqa: BLE001 - a subscriber may raise anything: it is logged
            log_failure(logger, f"subscriber {subscriber!r} failed", exc)
