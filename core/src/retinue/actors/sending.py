"""How an actor sends: messages stamped into their chain, and reports to its orchestrator.

The first part of `Actor` (`retinue.actors.actor` builds on it): it declares what every
part of an actor holds, and owns the outbound side, because every other part reports
through `_tell_orchestrator` and only this part may batch those reports.
"""

from __future__ import annotations

import concurrent.futures
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import pykka

from retinue.actors.errors import format_traceback, log_failure
from retinue.actors.messages import ErrorMessage, EventMessage, Message, ReportBatch
from retinue.actors.surface import remote
from retinue.actors.turns import TurnObserver, observe

if TYPE_CHECKING:
    from retinue.actors.address import ActorAddress
    from retinue.actors.intake import Intake
    from retinue.actors.mailbox import Letter, Mailbox
    from retinue.actors.system import ActorSystem

#: The actor's log lines keep the name they always had, whichever part of it logs them.
logger = logging.getLogger("retinue.actors.actor")


class SendingActor(pykka.ThreadingActor):
    """An actor's outbound side: stamping, sending, reporting to its orchestrator."""

    _turn_observers: tuple[TurnObserver, ...] = ()
    """What plugins watch this actor's turns with (`retinue.actors.turns`); none by default."""
    _turn_trace: dict[str, str] | None = None

    # Set by `Actor.__init__`; declared here, where every part of an actor can see them.
    mailbox: Mailbox
    _system: ActorSystem
    myAddress: ActorAddress
    orchestrator: ActorAddress | None
    parent: ActorAddress | None
    intake: Intake
    _current: Message | None
    #: Letters the turn in flight took in beside its own message (`take_into_turn`).
    _joined: list[Letter]
    _busy: str | None
    _report_buffer: list[Message] | None
    #: Its team's `TeamConfig.turn_reports` (read as it starts): it reports its turns.
    reports_turns: bool
    _receipt: Message | None  # the turn's `ReceivedMessage`, not yet sent

    @property
    def current_message(self) -> Message | None:
        """The message being handled right now, if any."""
        return self._current

    def stamp(self, recipient: ActorAddress, message: Message) -> Message:
        """A copy of `message` addressed from this actor, in the chain (and the trace context)
        of the current one."""
        me = self.myAddress
        current = self._current
        if current is None:
            return message.addressed(me, recipient, me.team_id, fresh=True)
        return message.addressed(
            me,
            recipient,
            me.team_id,
            parent_id=current.id,
            chain_id=current.chain_id or None,
            trace_context=self._turn_trace if self._turn_observers else current.trace_context,
            fresh=True,
        )

    @remote
    def send(self, recipient: ActorAddress, message: Message) -> None:
        """Deliver `message` to `recipient`; the orchestrator hears of it first."""
        stamped = self.stamp(recipient, message)
        self._send_receipt(flush=True)  # the turn's start is reported before what it sends
        self._system.route(self.orchestrator, stamped)

    def _tell_orchestrator(self, message: Message, flush: bool = False) -> None:
        """Report to the orchestrator; held in the open batch if any, unless `flush` sends the
        batch so far now (with this report last: the record keeps its order)."""
        target = self.orchestrator
        if target is None:
            return
        if self._receipt is not None:  # the turn's start goes first, in the same slot
            self._send_receipt()
        me = self.myAddress
        current = self._current
        if current is None:
            report = message.addressed(me, target, me.team_id)
        else:  # in the chain of the message being handled, caused by it
            report = message.addressed(
                me, target, me.team_id, parent_id=current.id, chain_id=current.chain_id
            )
        if self._turn_observers:
            observe(report)
        buffer = self._report_buffer
        if buffer is not None and self.intake.in_own_thread():
            buffer.append(report)
            if flush:
                self._report_buffer = []
                self._system.post(target, ReportBatch(reports=tuple(buffer)))
        else:
            self._system.post(target, report)

    def report_durably(self, message: Message) -> concurrent.futures.Future[Any] | None:
        """Report `message` and have the orchestrator commit it before it answers (the
        future); None when this actor has no orchestrator. From any thread but the actor's."""
        target = self.orchestrator
        if target is None:
            return None
        me = self.myAddress
        current = self._current
        if current is None:
            report = message.addressed(me, target, me.team_id)
        else:
            report = message.addressed(
                me, target, me.team_id, parent_id=current.id, chain_id=current.chain_id
            )
        return self._system.ask_future(target, "record_now", report)

    def _send_receipt(self, flush: bool = False) -> None:
        """Report the turn's `ReceivedMessage` if it is still held (from the actor's thread)."""
        receipt = self._receipt
        if receipt is not None and self.intake.in_own_thread():
            self._receipt = None
            self._tell_orchestrator(receipt, flush)

    @contextmanager
    def batched_reports(self) -> Iterator[None]:
        """Hold this thread's reports to the orchestrator and send them as one batch.

        For bursts such as the events of a model run: one mailbox slot instead of one per
        event. Only what is reported before any message is sent belongs in a batch, so the
        record keeps its causal order.
        """
        if self._report_buffer is not None:
            yield
            return
        self._report_buffer = []
        try:
            yield
        finally:
            reports, self._report_buffer = self._report_buffer, None
            if reports and self.orchestrator is not None:
                batch = reports[0] if len(reports) == 1 else ReportBatch(reports=tuple(reports))
                self._system.post(self.orchestrator, batch)

    def notify_event(self, event: Any) -> None:
        """Publish an event (any serializable object) to the team's subscribers."""
        self._tell_orchestrator(EventMessage(event=event))

    def undeliverable_notice(self, message: Message, recipient: ActorAddress) -> Message | None:
        """What this actor should receive when `message`, which it sent, found `recipient` gone.

        Called by the system from whichever thread found the dead letter, so it must only
        build a message from its arguments and this actor's address, never touch state.
        None (the default): nothing is owed.
        """
        return None

    # ------------------------------------------------------------------ failures reported
    def _log_failure(self, exc: BaseException, what: str) -> None:
        """One WARNING line naming the cause; the traceback at DEBUG (and in the record).

        While the system shuts down everything is DEBUG: an interrupted turn is a clean end.
        """
        level = logging.DEBUG if self._system.shutting_down else logging.WARNING
        log_failure(logger, what, exc, level)

    def _report_error(self, exc: BaseException, message: Message | None) -> None:
        self._tell_orchestrator(
            ErrorMessage(
                exception_type=type(exc).__name__,
                exception_value=str(exc),
                current_message_id=message.id if message is not None else None,
                traceback=format_traceback(exc),
            )
        )
